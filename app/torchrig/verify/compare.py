"""Measured beside predicted: the comparison ``torchrig verify`` shows in the terminal, the
Wizard, ``--json`` and the PDF (torch-free, so every face can import it).

Each planner item - weights, gradients, optimizer states, activations, step temporaries, CUDA
context, allocator headroom, total, FLOPs per sample, samples/s, step time - gets the measured
value and the difference in percent. A difference over :data:`FLAG_PERCENT` (and, for memory,
over :data:`FLAG_MIN_BYTES`) is flagged with its likely cause.

How each item is measured:

* weights, gradients, optimizer states: the bytes of the tensors themselves after a step;
* activations: on CUDA the memory still allocated after the forward pass (everything kept for
  backward, autocast's weight copies included); on the CPU the bytes autograd saves for
  backward (``saved_tensors_hooks``), plus the inputs checkpointed blocks keep;
* step temporaries (CUDA): the step's peak minus the four items above (backward's buffers,
  the optimizer's temporaries, a checkpointed block's recomputation);
* CUDA context: device memory in use outside PyTorch's allocator (other processes count too);
  allocator headroom: peak reserved minus peak allocated;
* total: on CUDA peak reserved + memory outside the allocator (what the device shows at the
  step's peak); on the CPU weights + gradients + optimizer states + activations, compared with
  the same planned items (no allocator statistics, no context, no caching allocator).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.requirements import Requirements
from torchrig.planning.workload import MEASURED_ATTENTIONS, Workload
from torchrig.units import MiB, fmt_gib, fmt_seconds

VERIFY_FORMAT = "torchrig.verify"
VERIFY_VERSION = 1

SOURCE_UNKNOWN: dict[str, Any] = {"kind": "reference", "label": "TorchRig reference model",
                                  "fallback": None}

FLAG_PERCENT = 25.0
FLAG_MIN_BYTES = 16 * MiB
"""A memory difference is flagged only when it is also this large: a few MiB either way on a
small item changes no purchase."""


@dataclass(frozen=True)
class Phase:
    """CUDA allocator statistics of one phase of the memory step (bytes)."""

    name: str  # forward | backward | optimizer
    allocated_after: int
    peak_allocated: int
    peak_reserved: int


@dataclass(frozen=True)
class Measured:
    """Figures at the workload's full size (extrapolated when a reduced copy was run)."""

    weights: float
    gradients: float
    optimizer_states: float
    activations: float
    step_peak: float | None
    reserved_peak: float | None
    outside_allocator: float | None
    step_s: float
    forward_flops: float  # one forward pass of the batch
    saved_bytes: float
    batch: int
    phases: tuple[Phase, ...] = ()
    phases_size: tuple[int | None, int] = (None, 0)
    # How the step time was found (torchrig.verify.timefit): the range when it is an estimate
    # (extrapolated beyond timefit.ESTIMATE_FACTOR), the FLOP factor beyond the largest run,
    # the fit's worst relative error at the measured runs, its fixed and per-FLOP costs.
    step_s_low: float | None = None
    step_s_high: float | None = None
    time_factor: float = 1.0
    time_fit_error: float | None = None
    time_fixed_s: float | None = None
    time_per_flop_s: float | None = None

    @property
    def transients(self) -> float | None:
        if self.step_peak is None:
            return None
        steady = self.weights + self.gradients + self.optimizer_states + self.activations
        return max(0.0, self.step_peak - steady)


@dataclass(frozen=True)
class Row:
    key: str
    label: Msg
    unit: str  # bytes | flop | samples/s | s
    predicted: float | None
    measured: float | None
    note: Msg
    cause: Msg | None = None

    @property
    def diff_percent(self) -> float | None:
        if self.predicted is None or self.measured is None or self.predicted <= 0:
            return None
        return (self.measured - self.predicted) / self.predicted * 100.0

    @property
    def flagged(self) -> bool:
        return self.cause is not None


@dataclass(frozen=True)
class VerifyResult:
    """A verification: what ran where, the comparison rows, and figures to feed back."""

    workload: Workload
    verified: Workload
    device: str
    device_kind: str
    device_name: str
    torch_version: str
    steps: int
    sizes: list[tuple[int | None, int, int | None]]
    reduction: Msg | None
    model: Msg
    precision_note: str
    notes: list[Msg]
    rows: list[Row]
    measured: Measured
    feedback: dict[str, Any] | None
    wall_s: float
    date: str
    extra: dict[str, Any] = field(default_factory=dict)
    attention_used: str | None = None
    """The attention the runs took (workload_fields.MEASURED_ATTENTIONS): sdpa's fused
    kernels, its math path (off CUDA with attention dropout) or eager; None where not a
    transformer of known attention. ``verify --apply`` writes it as ``measured_attention``."""
    image_size_used: int | None = None
    """Pixels per side of the images the runs fed (None: not images, or the user's batch()
    made them)."""
    source: dict[str, Any] = field(default_factory=lambda: dict(SOURCE_UNKNOWN))
    """Where the model came from: ``kind`` (factory, transformers, torchvision, timm,
    reference), ``label`` (library + class, or file + function) and ``fallback`` (why the
    reference model stood in, both languages; None when it did not)."""

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if r.key == key)

    def to_dict(self) -> dict[str, Any]:
        """The ``torchrig verify --json`` document (SI units)."""
        return {
            "format": VERIFY_FORMAT, "version": VERIFY_VERSION, "date": self.date,
            "device": self.device, "device_kind": self.device_kind,
            "device_name": self.device_name, "torch_version": self.torch_version,
            "steps": self.steps, "wall_s": self.wall_s, "source": self.source,
            "workload": self.workload.to_dict(),
            "model": self.model.to_dict(), "precision": self.precision_note,
            "sizes_measured": [{"layers": lay, "batch": b, "seq_len": sq}
                               for lay, b, sq in self.sizes],
            "reduction": None if self.reduction is None else self.reduction.to_dict(),
            "notes": [n.to_dict() for n in self.notes],
            "rows": [{
                "key": r.key, "label": r.label.to_dict(), "unit": r.unit,
                "predicted": r.predicted, "measured": r.measured,
                "diff_percent": r.diff_percent, "flagged": r.flagged,
                "cause": None if r.cause is None else r.cause.to_dict(),
                "note": r.note.to_dict(),
            } for r in self.rows],
            "phases": [{"phase": p.name, "allocated_after": p.allocated_after,
                        "peak_allocated": p.peak_allocated, "peak_reserved": p.peak_reserved}
                       for p in self.measured.phases],
            "phases_size": {"layers": self.measured.phases_size[0],
                            "batch": self.measured.phases_size[1]},
            "saved_for_backward_bytes": self.measured.saved_bytes,
            "feedback": self.feedback,
            "attention_used": self.attention_used, "image_size_used": self.image_size_used,
            # What ran (the workload as reduced to one GPU) and every measured figure, so the
            # document opens again as the same result (from_dict).
            "verified": self.verified.to_dict(),
            "measured": {key: getattr(self.measured, key) for key in _MEASURED_NUMBERS},
        }

    @classmethod
    def from_dict(cls, doc: Any, where: str = "verify result") -> VerifyResult:
        """The result a :meth:`to_dict` document describes; InputError names what is wrong
        (the plan check's child process sends its result this way)."""
        from torchrig.jsonio import get_num, get_str, req

        if not isinstance(doc, dict) or doc.get("format") != VERIFY_FORMAT:
            raise InputError(f"{where}: not a TorchRig verify result")
        if doc.get("version") != VERIFY_VERSION:
            raise InputError(f"{where}: version {doc.get('version')!r} is not "
                             f"{VERIFY_VERSION}")
        workload = Workload.from_dict(req(doc, "workload", where), where=f"{where}.workload")
        verified = Workload.from_dict(req(doc, "verified", where), where=f"{where}.verified")
        numbers = _dict(req(doc, "measured", where), f"{where}.measured")
        phases_size = _dict(req(doc, "phases_size", where), f"{where}.phases_size")
        measured = Measured(
            **{key: get_num(numbers, key, f"{where}.measured",
                            optional=key in _OPTIONAL_MEASURED, integer=key == "batch",
                            default=1.0 if key == "time_factor" else None)
               for key in _MEASURED_NUMBERS},
            phases=tuple(Phase(get_str(p, "phase", f"{where}.phases"),
                               *(get_num(p, k, f"{where}.phases", integer=True)
                                 for k in ("allocated_after", "peak_allocated",
                                           "peak_reserved")))
                         for p in _list(req(doc, "phases", where), f"{where}.phases")),
            phases_size=(get_num(phases_size, "layers", f"{where}.phases_size",
                                 optional=True, integer=True),
                         get_num(phases_size, "batch", f"{where}.phases_size", integer=True)))
        rows = []
        for i, r in enumerate(_list(req(doc, "rows", where), f"{where}.rows")):
            at = f"{where}.rows[{i}]"
            r = _dict(r, at)
            rows.append(Row(
                key=get_str(r, "key", at, max_len=100),
                label=Msg.from_json(req(r, "label", at), at),
                unit=get_str(r, "unit", at, max_len=20),
                predicted=get_num(r, "predicted", at, optional=True),
                measured=get_num(r, "measured", at, optional=True),
                note=Msg.from_json(req(r, "note", at), at),
                cause=None if r.get("cause") is None else Msg.from_json(r["cause"], at)))
        sizes = [(get_num(s, "layers", f"{where}.sizes_measured", optional=True, integer=True),
                  get_num(s, "batch", f"{where}.sizes_measured", integer=True),
                  get_num(s, "seq_len", f"{where}.sizes_measured", optional=True,
                          integer=True))
                 for s in _list(req(doc, "sizes_measured", where), f"{where}.sizes_measured")]
        notes = [Msg.from_json(n, f"{where}.notes[{i}]")
                 for i, n in enumerate(_list(req(doc, "notes", where), f"{where}.notes"))]
        feedback = doc.get("feedback")
        if feedback is not None:
            # Feedback is merged into the workload: it must make a valid one.
            Workload.from_dict({**workload.to_dict(), **_dict(feedback, f"{where}.feedback")},
                               where=f"{where}.feedback")
        return cls(
            workload=workload, verified=verified,
            device=get_str(doc, "device", where, max_len=100),
            device_kind=get_str(doc, "device_kind", where, max_len=20),
            device_name=get_str(doc, "device_name", where, max_len=500),
            torch_version=get_str(doc, "torch_version", where, max_len=100),
            steps=get_num(doc, "steps", where, minimum=1, integer=True), sizes=sizes,
            reduction=(None if doc.get("reduction") is None
                       else Msg.from_json(doc["reduction"], where)),
            model=Msg.from_json(req(doc, "model", where), where),
            precision_note=get_str(doc, "precision", where, max_len=1000),
            notes=notes, rows=rows,
            measured=measured, feedback=feedback,
            wall_s=get_num(doc, "wall_s", where, minimum=0),
            date=get_str(doc, "date", where, max_len=40), source=_source(doc, where),
            attention_used=_attention_used(doc, where),
            image_size_used=_image_size_used(doc, where))


def _attention_used(doc: dict[str, Any], where: str) -> str | None:
    value = doc.get("attention_used")
    if value is not None and value not in MEASURED_ATTENTIONS:
        raise InputError(f"{where}: field 'attention_used' must be one of "
                         f"{', '.join(MEASURED_ATTENTIONS)}; got {value!r}")
    return value


def _image_size_used(doc: dict[str, Any], where: str) -> int | None:
    value = doc.get("image_size_used")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or not 1 <= value <= 65_536):
        raise InputError(f"{where}: field 'image_size_used' must be a whole number of pixels "
                         f"from 1 to 65536; got {value!r}")
    return value


def _source(doc: dict[str, Any], where: str) -> dict[str, Any]:
    from torchrig.jsonio import get_str

    raw = doc.get("source")
    if raw is None:
        return dict(SOURCE_UNKNOWN)
    raw = _dict(raw, f"{where}.source")
    fallback = raw.get("fallback")
    return {"kind": get_str(raw, "kind", f"{where}.source", max_len=40),
            "label": get_str(raw, "label", f"{where}.source", max_len=1000),
            "fallback": None if fallback is None
            else Msg.from_json(fallback, f"{where}.source").to_dict()}


_TIME_FIT_NUMBERS = ("step_s_low", "step_s_high", "time_factor", "time_fit_error",
                     "time_fixed_s", "time_per_flop_s")
_MEASURED_NUMBERS = ("weights", "gradients", "optimizer_states", "activations", "step_peak",
                     "reserved_peak", "outside_allocator", "step_s", "forward_flops",
                     "saved_bytes", "batch", *_TIME_FIT_NUMBERS)
_OPTIONAL_MEASURED = {"step_peak", "reserved_peak", "outside_allocator", *_TIME_FIT_NUMBERS}


def _dict(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected an object")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"{where}: expected a list")
    return value


LABELS: dict[str, Msg] = {
    "weights": Msg("Weights", "权重"),
    "gradients": Msg("Gradients", "梯度"),
    "optimizer_states": Msg("Optimizer states", "优化器状态"),
    "activations": Msg("Activations", "激活"),
    "transients": Msg("Step temporaries", "单步临时内存"),
    "kv_cache": Msg("KV cache", "KV 缓存"),
    "overhead": Msg("CUDA context and workspaces", "CUDA 上下文与工作区"),
    "fragmentation": Msg("Allocator headroom", "分配器余量"),
    "total": Msg("Total", "合计"),
    "flops_per_sample": Msg("FLOPs per sample", "每样本 FLOPs"),
    "samples_per_s": Msg("Samples per second", "每秒样本数"),
    "step_time_s": Msg("Step time", "单步时间"),
}

CAUSES: dict[str, Msg] = {
    "weights": Msg(
        "parameters or buffers the planner does not count (batch-norm statistics, position "
        "tables), or a parameter count in the workload that does not match the architecture",
        "规划未计入的参数或缓冲区（批归一化统计量、位置表），或工作负载中的参数量与结构不符"),
    "gradients": Msg("gradients kept in another precision, or frozen parameters",
                     "梯度精度与规划不同，或有冻结参数"),
    "optimizer_states": Msg("the optimizer keeps a different number or size of states",
                            "优化器状态的数量或大小与规划不同"),
    "activations": Msg(
        "different kernels save different tensors (attention implementation, CPU vs CUDA "
        "kernels, torch version), or the workload's sizes are outside the calibrated range; "
        "with checkpointing, the plan also counts one recomputed block, which only a GPU's "
        "allocator sees",
        "不同内核保存的张量不同（注意力实现、CPU 与 CUDA 内核、torch 版本），或工作负载尺寸超出"
        "校准范围；启用检查点时，规划还计入一个重算的块，只有 GPU 分配器能看到"),
    "transients": Msg(
        "backward buffers, the optimizer's foreach temporaries or a checkpointed block's "
        "recomputation peak at a different moment than the plan assumes (it adds them all)",
        "反向缓冲、优化器 foreach 临时张量或检查点重算的峰值时刻与规划假设不同"
        "（规划将其全部相加）"),
    "overhead": Msg(
        "the CUDA context depends on the driver and lazy module loading; other processes on "
        "the GPU count here too", "CUDA 上下文大小取决于驱动和延迟加载；GPU 上其他进程也计入此项"),
    "fragmentation": Msg("the caching allocator kept more or fewer blocks than 10 %; "
                         "expandable_segments reduces it",
                         "缓存分配器保留的块多于或少于 10%；expandable_segments 可减少"),
    "total": Msg("the sum of the differences above", "上述各项差异之和"),
    "flops_per_sample": Msg(
        "the planner counts matmul FLOPs by formula (6N + attention); the counter sees every "
        "matmul, convolution and attention kernel actually run",
        "规划按公式计算矩阵乘 FLOPs（6N + 注意力）；计数器统计实际运行的每个矩阵乘、卷积与"
        "注意力内核"),
    "samples_per_s": Msg(
        "the planner assumes 40 % of the GPU's dense peak (MFU); small or reduced runs, "
        "data types without tensor cores and memory-bound layers reach less",
        "规划假设达到 GPU 稠密峰值的 40%（MFU）；小规模或缩小的运行、无张量核心的数据类型和"
        "受内存限制的层达不到"),
    "step_time_s": Msg("see samples per second", "见每秒样本数"),
}


def compare(*, workload: Workload, verified: Workload, requirements: Requirements,
            measured: Measured, device: str, device_kind: str, device_name: str,
            torch_version: str, steps: int, sizes: list[tuple[int | None, int, int | None]],
            reduction: Msg | None, model: Msg, precision_note: str, notes: list[Msg],
            wall_s: float, date: str, source: dict[str, Any] | None = None,
            attention_used: str | None = None, image_size_used: int | None = None
            ) -> VerifyResult:
    """Build the comparison rows and the figures to feed back."""
    rows = _rows(verified, requirements, measured, device_kind, reduction,
                 math_attention=attention_used == "sdpa_math")
    notes = list(notes)
    if device_kind != "cuda" and verified.precision in ("amp_fp16", "amp_bf16"):
        notes.append(Msg("AMP on the CPU: CUDA autocast's casts are emulated so the memory "
                         "figures match a GPU; speed is the CPU's",
                         "CPU 上的 AMP：模拟 CUDA autocast 的类型转换，内存数字与 GPU 一致；"
                         "速度为 CPU 的速度"))
    if device_kind != "cuda" and not verified.is_training:
        notes.append(Msg("inference working set: the peak of the tensors the forward pass "
                         "creates, counted as they live and die (no allocator statistics on "
                         "this device)",
                         "推理工作集：前向传播所创建张量的峰值（按其存活与释放计数；此设备没有分配器"
                         "统计）"))
    feedback = _feedback(verified, requirements, measured, device_name, device_kind,
                         torch_version, date, reduction)
    return VerifyResult(
        workload=workload, verified=verified, device=device, device_kind=device_kind,
        device_name=device_name, torch_version=torch_version, steps=steps, sizes=sizes,
        reduction=reduction, model=model, precision_note=precision_note, notes=notes,
        rows=rows, measured=measured, feedback=feedback, wall_s=wall_s, date=date,
        source=dict(source or SOURCE_UNKNOWN), attention_used=attention_used,
        image_size_used=image_size_used)


def _rows(w: Workload, req: Requirements, m: Measured, kind: str,
          reduction: Msg | None, math_attention: bool = False) -> list[Row]:
    v = req.vram_per_gpu
    cuda = kind == "cuda"
    # Training: the bytes saved for backward. Inference: the working set of the forward, from
    # the allocator's peak on CUDA, elsewhere from the tensors the pass creates
    # (verify/live_memory.py).
    activations = m.activations

    def planned(key: str) -> float | None:
        item = v.get(key)
        return None if item is None else item.value

    def planned_note(key: str) -> Msg:
        item = v.get(key)
        return item.note if item is not None else Msg("", "")

    transient_keys = [k for k in ("backward_transient", "optimizer_step_transient") if k in v]
    planned_transients = sum(v[k].value or 0.0 for k in transient_keys)
    # The terms the CPU measures (a KV cache or DDP's buckets are not run here).
    body_keys = ("weights", "gradients", "optimizer_states", "activations")
    cpu_total = sum(planned(k) or 0.0 for k in body_keys) \
        if planned("activations") is not None else None
    no_cuda = Msg("not applicable: no CUDA context or caching allocator on this device",
                  "不适用：此设备没有 CUDA 上下文或缓存分配器")
    rows: list[tuple[str, str, float | None, float | None, Msg]] = [
        ("weights", "bytes", planned("weights"), m.weights, planned_note("weights")),
        ("gradients", "bytes", planned("gradients"), m.gradients if w.is_training else 0.0,
         planned_note("gradients")),
        ("optimizer_states", "bytes", planned("optimizer_states"),
         m.optimizer_states if w.is_training else 0.0, planned_note("optimizer_states")),
        ("activations", "bytes", planned("activations"), activations,
         planned_note("activations")),
        ("transients", "bytes", planned_transients, m.transients, Msg(
            "planned: " + ", ".join(transient_keys) if transient_keys else "none planned",
            "规划项：" + "、".join(transient_keys) if transient_keys else "规划中无此项")),
    ]
    kv = planned("kv_cache")
    if kv:
        rows.append(("kv_cache", "bytes", kv, None, Msg(
            "not measured: verify runs the forward pass without a KV cache",
            "未测量：验证运行的前向传播不含 KV 缓存")))
    if cuda:
        fragmentation = None if m.reserved_peak is None or m.step_peak is None \
            else m.reserved_peak - m.step_peak
        total = None if m.reserved_peak is None \
            else m.reserved_peak + (m.outside_allocator or 0.0)
        rows += [
            ("overhead", "bytes", planned("overhead"), m.outside_allocator,
             planned_note("overhead")),
            ("fragmentation", "bytes", planned("fragmentation"), fragmentation,
             planned_note("fragmentation")),
            ("total", "bytes", planned("total"), total, Msg(
                "measured: peak reserved + memory outside the allocator",
                "实测：峰值保留量 + 分配器之外的显存")),
        ]
    else:
        steady = None if activations is None \
            else m.weights + m.gradients + m.optimizer_states + activations
        rows += [
            ("overhead", "bytes", planned("overhead"), None, no_cuda),
            ("fragmentation", "bytes", planned("fragmentation"), None, no_cuda),
            ("total", "bytes", cpu_total, steady, Msg(
                "weights, gradients, optimizer states and activations (the CPU has no "
                "allocator statistics for the temporaries or a CUDA context; a GPU run measures "
                "them)", "权重、梯度、优化器状态与激活之和（CPU 没有临时内存的分配器统计，也没有 "
                "CUDA 上下文；GPU 上的运行会测量它们）")),
        ]
    t = req.throughput
    per_sample = m.forward_flops / max(1, m.batch)
    # A step is the forward and a backward of about twice its FLOPs (input and weight
    # gradients); under LoRA the frozen weights get no gradient, so the backward is about one
    # forward (the planner's 4N against 6N).
    factor = 2 if w.is_lora else 3
    if w.is_training:
        per_sample *= factor * (4 / 3 if w.gradient_checkpointing else 1.0)
    backward = Msg("LoRA: backward ~ 1x forward, no gradients of the frozen weights",
                   "LoRA：反向约为前向 1 倍，冻结权重无梯度") if w.is_lora else \
        Msg("backward ~ 2x forward", "反向约为前向 2 倍")
    flops_item = t.get("flops_per_sample")
    rows.append(("flops_per_sample", "flop", flops_item.value if flops_item else None,
                 per_sample, Msg(
                     (f"measured: torch.utils.flop_counter forward x {factor} ({backward.en})"
                      + (" x 4/3 (checkpointing)" if w.gradient_checkpointing else ""))
                     if w.is_training else "measured: torch.utils.flop_counter forward",
                     (f"实测：torch.utils.flop_counter 前向 × {factor}（{backward.zh}）"
                      + ("× 4/3（检查点）" if w.gradient_checkpointing else ""))
                     if w.is_training else "实测：torch.utils.flop_counter 前向")))
    speed = t.get("samples_per_s_per_gpu")
    step = t.get("step_time_s")
    no_speed = Msg("the planner predicts speed for GPUs it knows (from the catalog)",
                   "规划仅对目录中已知的 GPU 预测速度")
    rows.append(("samples_per_s", "samples/s", speed.value if speed else None,
                 m.batch / m.step_s if m.step_s > 0 else None,
                 speed.note if speed and speed.value else no_speed))
    rows.append(("step_time_s", "s", step.value if step else None, m.step_s,
                 step.note if step and step.value else no_speed))
    out = []
    for key, unit, predicted, value, note in rows:
        cause = _cause(key, unit, predicted, value, reduction)
        if cause is not None and math_attention and key == "activations":
            cause = Msg(f"{MATH_ATTENTION.en}; {cause.en}", f"{MATH_ATTENTION.zh}；{cause.zh}")
        out.append(Row(key, LABELS[key], unit, predicted, value, note, cause))
    return out


MATH_ATTENTION = Msg(
    "here sdpa took its math path (attention dropout off CUDA), which keeps the tokens x tokens "
    "attention probabilities a GPU's fused kernel does not; the plan counts the GPU's kernel "
    "(verify --apply records the path and the plan corrects for it)",
    "此处 sdpa 走了数学路径（非 CUDA 上的注意力 dropout），会保存 GPU 融合内核不保存的 token×token "
    "注意力概率；规划按 GPU 内核计算（verify --apply 会记录该路径，规划据此修正）")
"""The first cause of an activations difference where the runs took sdpa's math path."""


def _cause(key: str, unit: str, predicted: float | None, measured: float | None,
           reduction: Msg | None) -> Msg | None:
    if predicted is None or measured is None:
        return None
    if predicted <= 0:
        large = unit == "bytes" and measured > FLAG_MIN_BYTES
    else:
        large = abs(measured - predicted) / predicted * 100.0 > FLAG_PERCENT
        if unit == "bytes":
            large = large and abs(measured - predicted) > FLAG_MIN_BYTES
    if not large:
        return None
    cause = CAUSES[key]
    if reduction is not None and key in ("activations", "transients", "total",
                                         "samples_per_s", "step_time_s"):
        cause = Msg(f"{cause.en}; also, the figure is extrapolated from a reduced copy",
                    f"{cause.zh}；另外，此数值由缩小副本外推")
    return cause


def _feedback(w: Workload, req: Requirements, m: Measured, device_name: str, kind: str,
              torch_version: str, date: str, reduction: Msg | None) -> dict[str, Any] | None:
    """Per-sample activation bytes and forward FLOPs for a workload the planner cannot size."""
    acts_unknown = req.vram_per_gpu["activations"].value is None
    flops_item = req.throughput.get("flops_per_sample")
    flops_unknown = w.is_training and (flops_item is None or flops_item.value is None)
    if not (acts_unknown or flops_unknown):
        return None
    batch = max(1, m.batch)
    details = [w.precision, f"batch {m.batch}"]
    if w.gradient_checkpointing:
        details.append("gradient checkpointing")
    if reduction is not None:
        details.append(reduction.en)
    return {
        "activation_bytes_per_sample": round(m.activations / batch),
        "forward_flops_per_sample": round(m.forward_flops / batch),
        "figures_source": (f"measured by torchrig verify on {device_name} ({kind}), torch "
                           f"{torch_version}, {date}: {', '.join(details)}")[:500],
    }


# --- presentation -----------------------------------------------------------------------------

HEADERS = {
    "item": Msg("Item", "项目"), "predicted": Msg("Planned", "规划"),
    "measured": Msg("Measured", "实测"), "diff": Msg("Difference", "差异"),
}


def format_value(value: float | None, unit: str, lang: str = "en") -> str:
    if value is None:
        return "—"
    if unit == "bytes":
        return fmt_gib(value, 2)
    if unit == "flop":
        return f"{value / 1e9:,.2f} GFLOP"
    if unit == "samples/s":
        return f"{value:,.1f}/s" if value >= 10 else f"{value:.3g}/s"
    return fmt_seconds(value, lang)


def format_diff(row: Row) -> str:
    d = row.diff_percent
    return "—" if d is None else f"{d:+.0f}%"


def table(result: VerifyResult, lang: str = "en") -> tuple[list[str], list[list[str]]]:
    """Header and body cells of the comparison, in ``lang`` (the CLI, GUI and PDF share it)."""
    header = [HEADERS[k].get(lang) for k in ("item", "predicted", "measured", "diff")]
    body = [[r.label.get(lang) + (" (!)" if r.flagged else ""),
             format_value(r.predicted, r.unit, lang), format_value(r.measured, r.unit, lang),
             format_diff(r)] for r in result.rows]
    return header, body


_REFERENCE_LABEL = "TorchRig reference model"


def source_label(source: dict[str, Any], lang: str) -> str:
    """The model's source as a reader of ``lang`` sees it. A library's or a factory's label
    names a class or a file and reads the same in both languages; the reference model's
    (``TorchRig reference model (instead of NAME)``) is said in Chinese for zh."""
    label = str(source.get("label", ""))
    if lang != "zh" or source.get("kind") != "reference" or \
            not label.startswith(_REFERENCE_LABEL):
        return label
    rest = label[len(_REFERENCE_LABEL):].strip()
    instead = rest.removeprefix("(instead of ").removesuffix(")") if rest else ""
    return "TorchRig 参考模型" + (f"（代替 {instead}）" if instead else "")


EMULATED_AMP = Msg("CUDA autocast emulated on the CPU (bf16; fp16 keeps the same sizes)",
                   "在 CPU 上模拟 CUDA autocast（bf16；fp16 的大小相同）")
MODEL_BF16 = Msg("model in bf16", "模型为 bf16")
TF32_MATMULS = Msg("tf32 matmuls", "tf32 矩阵乘")
"""The precision notes verify writes in words (probe.PrecisionPlan.describe; the JSON keeps
the English). ``torch.autocast(...)``, ``GradScaler`` and fp32 are code, the same in both."""

PRECISION_ZH = {m.en: m.zh for m in (EMULATED_AMP, MODEL_BF16, TF32_MATMULS)}


def precision_text(note: str, lang: str) -> str:
    return PRECISION_ZH.get(note, note) if lang == "zh" else note


def summary_lines(result: VerifyResult, lang: str = "en") -> list[str]:
    """What ran, how, and what was reduced, then the flagged causes and notes."""
    zh = lang == "zh"
    lines = [
        (f"设备：{result.device_name}（{result.device}），torch {result.torch_version}，"
         f"{result.steps} 步，用时 {result.wall_s:.1f} 秒") if zh else
        (f"Device: {result.device_name} ({result.device}), torch {result.torch_version}, "
         f"{result.steps} steps, {result.wall_s:.1f} s"),
        ("模型：" if zh else "Model: ") + result.model.get(lang),
        ("精度：" if zh else "Precision: ") + precision_text(result.precision_note, lang),
    ]
    lines.append(("模型来源：" if zh else "Model source: ") + source_label(result.source, lang))
    if result.reduction is not None:
        lines.append(result.reduction.get(lang))
    time_line = time_fit_line(result.measured, lang)
    if time_line:
        lines.append(time_line)
    lines += [n.get(lang) for n in result.notes]
    for r in result.rows:
        if r.cause is not None:
            lines.append(f"(!) {r.label.get(lang)}: {r.cause.get(lang)}")
    if result.feedback is not None:
        lines.append(
            "规划无法估算此模型：实测的每样本激活字节和前向 FLOPs 可写回工作负载"
            f"（每样本 {fmt_gib(result.feedback['activation_bytes_per_sample'], 2)}，"
            f"{result.feedback['forward_flops_per_sample'] / 1e9:,.2f} GFLOP）" if zh else
            "The planner cannot size this model: the measured per-sample activation bytes "
            "and forward FLOPs can be written back to the workload "
            f"({fmt_gib(result.feedback['activation_bytes_per_sample'], 2)}/sample, "
            f"{result.feedback['forward_flops_per_sample'] / 1e9:,.2f} GFLOP)")
    return lines


def time_fit_line(m: Measured, lang: str = "en") -> str | None:
    """How the step time was found when it was not measured at the full size."""
    if m.time_factor == 1.0 and m.step_s_low is None:
        return None
    zh = lang == "zh"
    if m.time_fixed_s is not None and m.time_per_flop_s is not None:
        per_tflop = m.time_per_flop_s * 1e12
        fit = (f"拟合：每步固定 {m.time_fixed_s:.3g} 秒 + 每 TFLOP（前向）{per_tflop:.3g} 秒，"
               f"在测量点的最大误差 {100 * (m.time_fit_error or 0):.0f}%" if zh else
               f"fit: {m.time_fixed_s:.3g} s fixed per step + {per_tflop:.3g} s per forward "
               f"TFLOP, at most {100 * (m.time_fit_error or 0):.0f}% off at the measured runs")
    else:
        fit = ("仅一个测量规模：按其每 FLOP 秒数缩放" if zh else
               "one measured size only: scaled by its seconds per FLOP")
    line = (f"单步时间由测量规模外推 {m.time_factor:.1f} 倍（按 FLOPs）；{fit}" if zh else
            f"Step time extrapolated {m.time_factor:.1f}x beyond the largest measured size "
            f"(in FLOPs); {fit}")
    if m.step_s_low is not None and m.step_s_high is not None:
        line += (f"。超过 10 倍：这是估计值，约 {fmt_seconds(m.step_s_low, lang)} 至 "
                 f"{fmt_seconds(m.step_s_high, lang)}" if zh else
                 f". More than 10x: this is an estimate, between about "
                 f"{fmt_seconds(m.step_s_low, lang)} and {fmt_seconds(m.step_s_high, lang)}")
    return line


def format_text(result: VerifyResult, lang: str = "en") -> str:
    header, body = table(result, lang)
    widths = [max(_width(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0] + " " * (widths[0] - _width(cells[0]))
        rest = [" " * (widths[i] - _width(c)) + c for i, c in enumerate(cells) if i]
        return "  ".join([first, *rest])

    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in body]
    return "\n".join(summary_lines(result, lang) + [""] + out) + "\n"


def _width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)
