"""Rules for the interleaved pipeline (``vp_size``, Megatron's virtual pipeline stages), part of
the one workload validation (planning/workload.py) used for load and save.

v model chunks per GPU (``vp_size`` > 1, docs/estimation.md sec. 6) are a training schedule of
a pipeline: they need pp_size > 1; the micro-batches of a step (``grad_accumulation``) a
multiple of p, which Megatron-LM's ``forward_backward_pipelining_with_interleaving`` required
("number of microbatches (m) is not divisible by pipeline-model-parallel-size (p) when using
interleaved schedule", megatron/core/pipeline_parallel/schedules.py until its tunable schedule
of November 2024, whose default micro-batch groups of p still refuse a last group short of
p); and the layers to split into p·v equal chunks (Megatron's
``--num-layers-per-virtual-pipeline-stage`` is L / (p·v)). Each is refused naming the numbers,
never changed. v = 1 (the default, and what files without the field read) is plain 1F1B.
"""

from __future__ import annotations

from torchrig.planning.rule_kit import Facts, Rule, group


def _interleaved(c: Facts) -> bool:
    return bool(c.w.vp_size > 1)


def _layers_unsplit(c: Facts) -> bool:
    arch = c.model.arch
    return arch is not None and bool(arch.layers % (c.w.pp_size * c.w.vp_size))


def _layers_text(c: Facts) -> str:
    p, v, layers = c.w.pp_size, c.w.vp_size, c.model.arch.layers
    return (f"is {v}: the {layers} layers do not split into {p} pipeline stages x {v} chunks "
            f"= {p * v} equal chunks ({layers} is not a multiple of {p * v})")


PIPELINE_RULES: tuple[Rule, ...] = group(
    _interleaved,
    Rule("vp_size", lambda c: not c.w.is_training,
         lambda c: f"is {c.w.vp_size}: virtual pipeline stages apply to training only (the "
                   "interleaved 1F1B schedule orders forward and backward passes)"),
    Rule("vp_size", lambda c: c.w.pp_size < 2,
         lambda c: f"is {c.w.vp_size}: virtual pipeline stages need a pipeline (pp_size at "
                   f"least 2, strategy pipeline_parallel); pp_size is {c.w.pp_size}"),
    Rule("vp_size", lambda c: c.w.grad_accumulation % c.w.pp_size,
         lambda c: f"is {c.w.vp_size}: the interleaved schedule needs the micro-batches per "
                   f"step (grad_accumulation {c.w.grad_accumulation}) to be a multiple of the "
                   f"{c.w.pp_size} pipeline stages (Megatron-LM requires it)"),
    Rule("vp_size", _layers_unsplit, _layers_text),
)
