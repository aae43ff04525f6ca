"""The 1F1B pipeline schedule a pipeline-parallel training step runs, plain or interleaved
(docs/estimation.md sec. 6, "Tensor and pipeline parallelism").

Megatron-LM and DeepSpeed train a pipeline of p stages with the "one forward, one backward"
schedule (PipeDream-Flush; Narayanan et al. 2021, "Efficient Large-Scale Language Model
Training on GPU Clusters Using Megatron-LM", sec. 2.2.1): an optimizer step pushes m
micro-batches through the stages and flushes the pipeline before the optimizer steps, so
each stage works for m micro-batch slots of the m + p - 1 the step lasts, and idles for the
rest, the bubble (p - 1) / (m + p - 1) of the step. Megatron takes m as the global batch over
the micro-batch and the data-parallel ranks, which is TorchRig's gradient accumulation.

The interleaved schedule (sec. 2.2.2; Megatron's ``--num-layers-per-virtual-pipeline-stage``,
NeMo's ``virtual_pipeline_model_parallel_size``; the workload's ``vp_size`` = v) gives each
GPU v model chunks of L / (p·v) layers instead of one stage of L / p: a chunk's forward or
backward takes 1/v of a slot, so the warm-up and the flush last (p - 1) / v slots and the
step m + (p - 1) / v of them; the bubble's share of the ideal time is (1/v)·(p - 1)/m, the
paper's formula. v = 1 is plain 1F1B, figure for figure. Megatron requires m to be a multiple
of p for it (planning/pipeline_rules.py).

The paper adds that "the amount of communication also increases by v": each micro-batch
crosses p·v - 1 chunk boundaries instead of p - 1. The planner counts no pipeline
send/receive at all (one b·s·h activation per boundary; :func:`.scaling.model_parallel_step`),
plain or interleaved, so the v-fold sends are not counted either: an interleaved plan is an
upper bound of the speed by at most their exposed time.

Issue 24: the planner used to divide a stage's rate by p, which made a pipeline of p GPUs
no faster than one GPU whatever the micro-batch count (x0.31 on NeMo's Llama-2-13B PP 4
row, tests/planning/published).
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.workload import Workload

PIPELINE_SOURCE = Msg("Narayanan et al. 2021, sec. 2.2.1", "Narayanan 等 2021，2.2.1 节")
INTERLEAVED_SOURCE = Msg("Narayanan et al. 2021, sec. 2.2.2", "Narayanan 等 2021，2.2.2 节")


def chunks(w: Workload) -> int:
    """Model chunks per GPU: v with a pipeline (1 = plain 1F1B), 1 without one."""
    return max(1, w.vp_size) if w.pp_size > 1 else 1


def micro_batch_slots(w: Workload) -> float:
    """Micro-batch slots one optimizer step lasts on every stage: m + (p - 1) / v (m without
    a pipeline, where a step is its m accumulation micro-batches back to back; m + p - 1 in
    plain 1F1B). A slot is one micro-batch's forward and backward over a GPU's L/p layers."""
    return w.grad_accumulation + (max(1, w.pp_size) - 1) / chunks(w)


def busy_share(w: Workload) -> float:
    """The share of a step each stage computes: m / (m + (p - 1) / v); 1 without a
    pipeline."""
    return w.grad_accumulation / micro_batch_slots(w)


def busy_note(w: Workload) -> Msg:
    """Why a stage computes :func:`busy_share` of the step, with the counts."""
    m, p, v = w.grad_accumulation, w.pp_size, chunks(w)
    if v == 1:
        return Msg(
            f"x {m} / ({m} + {p} - 1) = {busy_share(w):.0%} busy: {m} micro-batch"
            f"{'es' if m != 1 else ''} per step through {p} pipeline stages, the rest is the "
            f"bubble of the 1F1B schedule ({PIPELINE_SOURCE.en})",
            f"× {m} / ({m} + {p} - 1) = {busy_share(w):.0%} 忙碌：每步 {m} 个微批次流经 {p} 个"
            f"流水线阶段，其余为 1F1B 调度的气泡（{PIPELINE_SOURCE.zh}）")
    return Msg(
        f"x {m} / ({m} + ({p} - 1) / {v}) = {busy_share(w):.0%} busy: {m} micro-batches per "
        f"step through {p} pipeline stages of {v} model chunks each, the rest is the bubble "
        f"of the interleaved 1F1B schedule ({INTERLEAVED_SOURCE.en})",
        f"× {m} / ({m} + ({p} - 1) / {v}) = {busy_share(w):.0%} 忙碌：每步 {m} 个微批次流经 "
        f"{p} 个流水线阶段（每阶段 {v} 个模型块），其余为交错 1F1B 调度的气泡"
        f"（{INTERLEAVED_SOURCE.zh}）")
