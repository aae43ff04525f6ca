"""An imported or chosen model's defaults follow its size, not the task's default model's.

Why: a task's defaults were chosen for the task's default model. ``llm_finetune_full``'s
(8 GPUs, ZeRO-3, gradient checkpointing) are what a full fine-tune of its 7B Llama needs:
16 bytes of model states per parameter (ZeRO paper sec. 3.1) are 108 GB, more than one 80 GB
GPU. Applied to GPT-2's 124M parameters (2 GB of states) they describe a cluster for a job
one GPU runs without checkpointing, and the plan said nothing about it.

The rule (docs/estimation.md sec. 2.6): when the model is not the task's default model, the
run trains, and the user gave none of ``--gpus``, ``--strategy``, ``--checkpointing`` (those
given are kept), the layout is the first of these setups whose VRAM per GPU fits the GPU the
plan is for:

1. one GPU, plain data parallel (DDP: no sharding), no checkpointing - the fastest setup
   (checkpointing repeats the forward pass, ZeRO-3 adds 1.5x the data-parallel traffic);
2. one GPU, DDP, gradient checkpointing - the least memory one GPU can give without
   sharding or offload;
3. the task's own defaults, when neither fits.

Without a GPU given, the plan is sized for :data:`REFERENCE_GPU`, one GPU of the 8-GPU HGX H100
node the task's 8-GPU default stands for, so a model that fits it keeps one GPU. Every setting
the rule chose is printed as an assumption with the rule's reason
(:mod:`torchrig.planning.assumed_settings`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.requirements import plan
from torchrig.planning.workload import Workload, default_workload, resolve_model
from torchrig.units import fmt_gib

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec

REFERENCE_GPU = "nvidia-h100-sxm"
"""The catalog GPU a plan without one is sized for (see the module docstring)."""

SIZED_FLAGS = {"gpus_per_node": "--gpus", "strategy": "--strategy",
               "gradient_checkpointing": "--checkpointing"}
"""The settings the rule sizes and the options that set them (one given: that one is kept)."""

SETUPS: tuple[dict[str, Any], ...] = (
    {"gpus_per_node": 1, "strategy": "ddp", "gradient_checkpointing": False},
    {"gpus_per_node": 1, "strategy": "ddp", "gradient_checkpointing": True},
)
"""The setups tried in order before the task's defaults."""


@dataclass(frozen=True)
class Sizing:
    """The workload after the rule, the fields it decided (changed, or kept at the task's
    defaults when no smaller setup fits) and why (None: the rule did not apply)."""

    workload: Workload
    fields: tuple[str, ...] = ()
    reason: Msg | None = None

    def to_dict(self) -> dict[str, Any] | None:
        if self.reason is None:
            return None
        return {"fields": list(self.fields), "text": self.reason.to_dict()}


def _applies(w: Workload, given: Collection[str]) -> bool:
    return (w.is_training and w.model != default_workload(w.task).model
            and w.nodes == 1 and any(flag not in given for flag in SIZED_FLAGS.values()))


def reference_device() -> DeviceSpec:
    """:data:`REFERENCE_GPU` as the planner's device (reads the catalog)."""
    from torchrig.catalog import load_catalog  # only when the rule needs it: a plan of a

    # workload alone does not read the catalog
    from torchrig.planning.device import device_spec

    return device_spec(load_catalog().get(REFERENCE_GPU))


def size_to_model(w: Workload, given: Collection[str], device: DeviceSpec | None) -> Sizing:
    """Apply the rule to ``w`` (a workload built from options: ``given`` is the options the
    user typed, e.g. "--gpus"), sizing for ``device`` (None: :func:`reference_device`)."""
    if not _applies(w, given):
        return Sizing(w)
    if device is None or device.vram_bytes is None:
        device = reference_device()
    free = [f for f in SIZED_FLAGS if SIZED_FLAGS[f] not in given]
    params = resolve_model(w).params
    for setup in SETUPS:
        change = {f: setup[f] for f in free}
        try:
            candidate = dataclasses.replace(w, **change).validate()
        except InputError:
            continue  # the user's own choices rule this setup out
        req = plan(candidate, device)
        if req.vram_verdict == "fits":
            return Sizing(candidate, tuple(free), _reason(params, device, req.vram_total, True))
    return Sizing(w, tuple(free), _reason(params, device, None, False))


def _reason(params: float, device: DeviceSpec, vram: float | None, fits: bool) -> Msg:
    size = f"{params / 1e6:,.1f}M" if params < 1e9 else f"{params / 1e9:,.2f}B"
    gpu = f"{device.name} ({fmt_gib(device.vram_bytes or 0, 0)})"
    if fits and vram is not None:
        return Msg(f"sized to the model: the smallest setup whose {fmt_gib(vram)} per GPU fits "
                   f"one {gpu} for {size} parameters",
                   f"按模型规模：{size} 参数在一块 {gpu} 上可容纳"
                   f"（每 GPU {fmt_gib(vram)}）的最小配置")
    return Msg(f"{size} parameters do not fit one {gpu} without sharding: the task's "
               "multi-GPU defaults kept",
               f"{size} 参数不分片时一块 {gpu} 放不下：保留任务的多 GPU 默认值")


__all__ = ["REFERENCE_GPU", "SETUPS", "SIZED_FLAGS", "Sizing", "reference_device",
           "size_to_model"]
