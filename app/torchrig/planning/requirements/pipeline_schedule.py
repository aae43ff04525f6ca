"""The 1F1B pipeline schedule a pipeline-parallel training step runs (docs/estimation.md
sec. 6, "Tensor and pipeline parallelism").

Megatron-LM and DeepSpeed train a pipeline of p stages with the "one forward, one backward"
schedule (PipeDream-Flush; Narayanan et al. 2021, "Efficient Large-Scale Language Model
Training on GPU Clusters Using Megatron-LM", sec. 2.2.1): an optimizer step pushes m
micro-batches through the stages and flushes the pipeline before the optimizer steps, so
each stage works for m micro-batch slots of the m + p - 1 the step lasts, and idles for the
rest, the bubble (p - 1) / (m + p - 1) of the step. Megatron takes m as the global batch over
the micro-batch and the data-parallel ranks, which is TorchRig's gradient accumulation.

Issue 24: the planner used to divide a stage's rate by p, which made a pipeline of p GPUs
no faster than one GPU whatever the micro-batch count (x0.31 on NeMo's Llama-2-13B PP 4
row, tests/planning/published). The interleaved schedule (v model chunks per stage) shrinks
the bubble to (p - 1) / (v x m); it is not modelled, so a plan of an interleaved run is
slower than the run by at most that difference.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.workload import Workload

PIPELINE_SOURCE = Msg("Narayanan et al. 2021, sec. 2.2.1", "Narayanan 等 2021，2.2.1 节")


def micro_batch_slots(w: Workload) -> int:
    """Micro-batch slots one optimizer step lasts on every stage: m + p - 1 (m without a
    pipeline, where a step is its m accumulation micro-batches back to back)."""
    return w.grad_accumulation + max(1, w.pp_size) - 1


def busy_share(w: Workload) -> float:
    """The share of a step each stage computes: m / (m + p - 1); 1 without a pipeline."""
    return w.grad_accumulation / micro_batch_slots(w)


def busy_note(w: Workload) -> Msg:
    """Why a stage computes :func:`busy_share` of the step, with the counts."""
    m, p = w.grad_accumulation, w.pp_size
    return Msg(
        f"x {m} / ({m} + {p} - 1) = {busy_share(w):.0%} busy: {m} micro-batch"
        f"{'es' if m != 1 else ''} per step through {p} pipeline stages, the rest is the "
        f"bubble of the 1F1B schedule ({PIPELINE_SOURCE.en})",
        f"× {m} / ({m} + {p} - 1) = {busy_share(w):.0%} 忙碌：每步 {m} 个微批次流经 {p} 个"
        f"流水线阶段，其余为 1F1B 调度的气泡（{PIPELINE_SOURCE.zh}）")
