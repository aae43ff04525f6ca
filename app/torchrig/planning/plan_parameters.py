"""The parameter counts a plan states: total, trainable, and a transformer's parts.

One function for the plan JSON (``parameters``), the plan's text and the Wizard, so the three
say the same figures; the counts are the ones the memory figures use
(:func:`torchrig.planning.workload.resolve_model`, :mod:`torchrig.planning.param_parts`).
"""

from __future__ import annotations

from typing import Any

from torchrig.i18n import Msg
from torchrig.labels import HEADS, label
from torchrig.planning.param_parts import ParamParts, param_parts
from torchrig.planning.requirements.model_states import lora_trainable_params
from torchrig.planning.workload import Workload, counted_head, resolve_model
from torchrig.records import record


@record
class PlanParameters:
    """``total``: the model's parameters plus LoRA adapters; ``trainable``: what trains (a
    full run: the model; LoRA: the adapters; inference: 0); ``parts``: a transformer's
    embeddings / blocks / head / adapters (None for other models, or a count given as
    ``params``, which has no parts)."""

    total: int
    trainable: int
    head: str | None
    parts: ParamParts | None

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "trainable": self.trainable,
                "params_total": self.total, "params_trainable": self.trainable,
                "head": self.head,
                "parts": None if self.parts is None else self.parts.to_dict()}


def plan_parameters(w: Workload) -> PlanParameters:
    model = resolve_model(w)
    lora = lora_trainable_params(w, model) if w.is_lora and w.is_training else 0.0
    trainable = lora if w.is_lora else model.params if w.is_training else 0.0
    arch = model.arch
    parts = head = None
    if arch is not None and w.params is None:
        head = counted_head(w, arch.style)
        counted = param_parts(arch, head, w.num_labels or 2,
                              w.lora_rank if w.is_lora and w.is_training else None)
        # A preset's published count may differ from the architecture's by what the count
        # leaves out (a norm): the blocks take the difference, so the parts add up.
        blocks = counted.blocks + model.params - counted.model
        parts = ParamParts(counted.embeddings, blocks, counted.head, counted.lora)
    return PlanParameters(int(model.params + lora), int(trainable), head, parts)


def _m(n: float) -> str:
    return f"{n / 1e6:,.1f}M" if n < 1e9 else f"{n / 1e9:,.2f}B"


def parameters_line(p: PlanParameters, lang: str) -> str:
    """One line for the plan's text."""
    if p.parts is None:
        return Msg(f"Parameters: {_m(p.total)} total, {_m(p.trainable)} trainable",
                   f"参数：共 {_m(p.total)}，可训练 {_m(p.trainable)}").get(lang)
    q = p.parts
    lora_en = f", LoRA adapters {_m(q.lora)}" if q.lora else ""
    lora_zh = f"，LoRA 适配器 {_m(q.lora)}" if q.lora else ""
    return Msg(f"Parameters: {_m(p.total)} total (embeddings {_m(q.embeddings)}, blocks "
               f"{_m(q.blocks)}, {label(HEADS, p.head or '', 'en')} {_m(q.head)}{lora_en}), "
               f"{_m(p.trainable)} "
               "trainable",
               f"参数：共 {_m(p.total)}（嵌入 {_m(q.embeddings)}，层 {_m(q.blocks)}，"
               f"{label(HEADS, p.head or '', 'zh')} {_m(q.head)}{lora_zh}），"
               f"可训练 {_m(p.trainable)}").get(lang)


__all__ = ["PlanParameters", "parameters_line", "plan_parameters"]
