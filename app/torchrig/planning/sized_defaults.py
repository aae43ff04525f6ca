"""An imported or chosen model's defaults follow its size, not the task's default model's.

Why: a task's defaults were chosen for the task's default model. ``llm_finetune_full``'s
(8 GPUs, ZeRO-3, gradient checkpointing) are what a full fine-tune of its 7B Llama needs:
16 bytes of model states per parameter (ZeRO paper sec. 3.1) are 108 GB, more than one 80 GB
GPU. Applied to GPT-2's 124M parameters (2 GB of states) they describe a cluster for a job
one GPU runs without checkpointing, and the plan said nothing about it. ``llm_inference``'s
one GPU is what its Llama 3 8B needs; a 70B model's 129 GiB of bf16 weights need several.

The rule (docs/estimation.md sec. 2.6): when the model is not the task's default model, the
run is on one node, and the user gave not all of the layout's options (those given are kept),
the layout is the first of these setups whose VRAM per GPU fits the GPU the plan is for.
Training (options ``--gpus``, ``--strategy``, ``--checkpointing``):

1. one GPU, plain data parallel (DDP: no sharding), no checkpointing - the fastest setup
   (checkpointing repeats the forward pass, ZeRO-3 adds 1.5x the data-parallel traffic);
2. one GPU, DDP, gradient checkpointing - the least memory one GPU can give without
   sharding or offload;
3. the task's own defaults, when neither fits.

Inference (options ``--gpus``, ``--strategy``, ``--tp-size``): the fewest GPUs of one tensor-
parallel group - 1, 2, 4 or 8, as serving engines split a model over the GPUs of a node -
that hold the weights, the KV cache of the batch and the rest; the task's one GPU when not even
8 do.

Without a GPU given, the plan is sized for :data:`REFERENCE_GPU`, one GPU of the 8-GPU HGX H100
node the task's 8-GPU default stands for, so a model that fits it keeps one GPU. Every setting
the rule chose is printed as an assumption with the rule's reason
(:mod:`torchrig.planning.assumed_settings`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.types import vram_verdict
from torchrig.planning.workload import Workload, default_workload, resolve_model
from torchrig.records import record, replace
from torchrig.units import fmt_gib

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec

REFERENCE_GPU = "nvidia-h100-sxm"
"""The catalog GPU a plan without one is sized for (see the module docstring)."""
REFERENCE_VRAM_BYTES = 80 * 2**30
""":data:`REFERENCE_GPU`'s memory (the catalog's figure, held equal to it by
tests/planning/test_assume24_sizing.py): an inference plan whose task layout fits it is
decided without reading the catalog, so ``plan --task llm_inference --model X`` stays as
quick as before the rule covered inference (issue 27)."""

SIZED_FLAGS = {"gpus_per_node": "--gpus", "strategy": "--strategy",
               "gradient_checkpointing": "--checkpointing"}
"""The settings the rule sizes for training and the options that set them (one given: that
one is kept)."""
SERVING_FLAGS = {"gpus_per_node": "--gpus", "strategy": "--strategy", "tp_size": "--tp-size"}
"""The settings the rule sizes for inference and their options."""

SETUPS: tuple[dict[str, Any], ...] = (
    {"gpus_per_node": 1, "strategy": "ddp", "gradient_checkpointing": False},
    {"gpus_per_node": 1, "strategy": "ddp", "gradient_checkpointing": True},
)
"""The training setups tried in order before the task's defaults."""
SERVING_SETUPS: tuple[dict[str, Any], ...] = (
    {"gpus_per_node": 1, "strategy": "ddp", "tp_size": 1},
    *({"gpus_per_node": n, "strategy": "tensor_parallel", "tp_size": n} for n in (2, 4, 8)),
)
"""The inference setups tried in order before the task's defaults: one tensor-parallel group
of 1, 2, 4 or 8 GPUs."""


@record
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


def _rule(w: Workload) -> tuple[dict[str, str], tuple[dict[str, Any], ...]]:
    """The options the rule sizes for ``w`` and the setups it tries."""
    return (SIZED_FLAGS, SETUPS) if w.is_training else (SERVING_FLAGS, SERVING_SETUPS)


def _applies(w: Workload, given: Collection[str]) -> bool:
    flags, _ = _rule(w)
    return (w.model != default_workload(w.task).model and w.nodes == 1
            and any(flag not in given for flag in flags.values()))


def reference_device() -> DeviceSpec:
    """:data:`REFERENCE_GPU` as the planner's device (reads the catalog)."""
    from torchrig.catalog import load_catalog  # only when the rule needs it: a plan of a

    # workload alone does not read the catalog
    from torchrig.planning.device import device_spec

    return device_spec(load_catalog().get(REFERENCE_GPU))


def _candidates(w: Workload, given: Collection[str]) -> list[Workload]:
    """The setups of the rule with the user's given options kept, each valid and laid out on
    whole tensor-parallel groups; the same setup twice (a given option makes them equal) once."""
    flags, setups = _rule(w)
    free = [f for f in flags if flags[f] not in given]
    out: list[Workload] = []
    for setup in setups:
        try:
            candidate = replace(w, **{f: setup[f] for f in free}).validate()
        except InputError:
            continue  # the user's own choices (or the model's heads) rule this setup out
        if candidate.gpus_per_node % candidate.tp_size == 0 and candidate not in out:
            out.append(candidate)
    return out


def size_to_model(w: Workload, given: Collection[str], device: DeviceSpec | None) -> Sizing:
    """Apply the rule to ``w`` (a workload built from options: ``given`` is the options the
    user typed, e.g. "--gpus"), sizing for ``device`` (None: :func:`reference_device`)."""
    if not _applies(w, given):
        return Sizing(w)
    flags, _ = _rule(w)
    free = tuple(f for f in flags if flags[f] not in given)
    candidates = _candidates(w, given)
    known = device is not None and device.vram_bytes is not None
    if not w.is_training and candidates[:1] == [w] and _fits(
            w, device.vram_bytes if known else REFERENCE_VRAM_BYTES):  # type: ignore[union-attr]
        # Serving: the task's own layout (one GPU) holds the model, so there is nothing to
        # size - and without a GPU given, the catalog is not read for it.
        return Sizing(w)
    if device is None or device.vram_bytes is None:
        device = reference_device()
    params = resolve_model(w).params
    for candidate in candidates:
        if _fits(candidate, device.vram_bytes):
            return Sizing(candidate, free, _reason(params, device, _need(candidate),
                                                   candidate.tp_size))
    most = max((c.tp_size for c in candidates), default=1)
    return Sizing(w, free, _kept(w, params, device, most, _fits(w, device.vram_bytes)))


def _need(w: Workload) -> float:
    return plan(w).vram_total  # the memory plan does not depend on the GPU, only its fit


def _fits(w: Workload, vram: float | None) -> bool:
    req = plan(w)
    return vram_verdict(req.vram_total, req.vram_without_margin, vram) == "fits"


def _size(params: float) -> str:
    return f"{params / 1e6:,.1f}M" if params < 1e9 else f"{params / 1e9:,.2f}B"


def _gpu(device: DeviceSpec) -> str:
    return f"{device.name} ({fmt_gib(device.vram_bytes or 0, 0)})"


def _reason(params: float, device: DeviceSpec, vram: float, gpus: int) -> Msg:
    """Why the setup was chosen; ``gpus``: the GPUs of one tensor-parallel group."""
    size, gpu = _size(params), _gpu(device)
    if gpus > 1:
        return Msg(f"sized to the model: {size} parameters need {gpus} x {gpu} with tensor "
                   f"parallelism, the fewest whose {fmt_gib(vram)} per GPU fits",
                   f"按模型规模：{size} 参数用张量并行需要 {gpus} 块 {gpu}，"
                   f"这是每 GPU {fmt_gib(vram)} 放得下的最少 GPU 数")
    return Msg(f"sized to the model: the smallest setup whose {fmt_gib(vram)} per GPU fits "
               f"one {gpu} for {size} parameters",
               f"按模型规模：{size} 参数在一块 {gpu} 上可容纳"
               f"（每 GPU {fmt_gib(vram)}）的最小配置")


def _kept(w: Workload, params: float, device: DeviceSpec, most: int, fits: bool) -> Msg:
    """Why the task's defaults stand, in words that agree with them (the settings follow the
    reason in the text: "1 GPU per node" was once announced as "multi-GPU defaults"), and
    said when they do not fit either."""
    size, gpu = _size(params), _gpu(device)
    if most > 1:
        tried = Msg(f"{size} parameters do not fit {most} x {gpu} with tensor parallelism",
                    f"{size} 参数用张量并行时 {most} 块 {gpu} 也放不下")
    elif w.is_training:
        tried = Msg(f"{size} parameters do not fit one {gpu} without sharding",
                    f"{size} 参数不分片时一块 {gpu} 放不下")
    else:
        tried = Msg(f"{size} parameters do not fit one {gpu}", f"{size} 参数一块 {gpu} 放不下")
    kept = Msg("the task's defaults kept", "保留任务默认值")
    if not fits:
        kept = Msg(f"{kept.en}, though they do not fit either", f"{kept.zh}，但同样放不下")
    return Msg(f"{tried.en}: {kept.en}", f"{tried.zh}：{kept.zh}")


__all__ = ["REFERENCE_GPU", "REFERENCE_VRAM_BYTES", "SERVING_FLAGS", "SERVING_SETUPS", "SETUPS",
           "SIZED_FLAGS", "Sizing", "reference_device", "size_to_model"]
