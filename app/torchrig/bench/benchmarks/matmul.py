"""Matrix-multiply throughput per dtype (FP32, TF32, FP16, BF16) on the chosen device.

GEMM is what most of a training step's FLOPs are, so this is the figure to hold against the
catalog's peak. FLOP = 2*M*N*K (one multiply and one add per term). Sizes start from 8192^3 on
big GPUs and shrink to fit free memory; on slow devices the size is chosen from a calibration
call so one multiplication takes a fraction of a second (cancel stays responsive, the budget
holds).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress, Skip
from torchrig.bench.benchmarks.cpufeatures import BF16_FEATURES, FP16_FEATURES, native_16bit
from torchrig.bench.report import Measurement, Reference
from torchrig.bench.settings import device_kind
from torchrig.bench.timing import free_memory_bytes, median, round_down, spread, time_calls
from torchrig.i18n import Msg

GPU_MAX_N = 8192
"""8192^3 keeps a Hopper GPU busy for ~1.4 ms per call in BF16: long enough to time, and the
size the published H100/H200 figures use."""

_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2}
_NATIVE = {"bf16": BF16_FEATURES, "fp16": FP16_FEATURES}


@dataclass(frozen=True)
class GemmResult:
    flops: float
    n: int
    repeats: int
    seconds_per_call: float
    rate_spread: dict[str, float | int]
    """FLOP/s median, min, max over the timed repeats, and their number (timing.spread)."""


def _torch_dtype(name: str) -> Any:
    import torch

    return {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
            "bf16": torch.bfloat16}[name]


def gemm_rate(
    ctx: BenchContext,
    dtype_name: str,
    *,
    max_n: int,
    target_call_s: float,
    slice_s: float,
    device: str | None = None,
) -> GemmResult:
    """Measure FLOP/s of square ``dtype_name`` matmuls on ``device`` (default ctx.device).

    The size is the largest multiple of 256 that fits ``max_n``, a quarter of free memory
    (times ctx.scale after an out-of-memory retry) and ``target_call_s`` per call at the rate a
    small calibration call showed.
    """
    import torch

    device = device or ctx.device
    on_cpu = device_kind(device) == "cpu"
    dtype = _torch_dtype(dtype_name)
    elem = _BYTES[dtype_name]
    mem_n = math.sqrt(free_memory_bytes(device) * 0.25 * ctx.scale / (3 * elem))
    n_cap = round_down(min(max_n, mem_n), 256, 256)

    def operands(n: int) -> tuple[Any, Any, Any]:
        # Generated on the device: filling 8192^2 matrices on the host would cost seconds.
        a = torch.randn(n, n, device=device, dtype=dtype)
        b = torch.randn(n, n, device=device, dtype=dtype)
        return a, b, torch.empty(n, n, device=device, dtype=dtype)

    n0 = min(n_cap, 512 if on_cpu else 2048)
    a, b, c = operands(n0)
    torch.matmul(a, b, out=c)  # first call pays kernel selection / library load
    # The fastest of three calls: sizing must not be thrown off by one preempted call.
    t0 = min(time_calls(lambda: torch.matmul(a, b, out=c), ctx, min_reps=3, max_reps=3,
                        max_s=0.0, device=device))
    rate0 = 2 * n0**3 / max(t0, 1e-9)
    n = round_down(min(n_cap, (rate0 * target_call_s / 2) ** (1 / 3)), 256, 256)
    if n != n0:
        del a, b, c
        a, b, c = operands(n)
        torch.matmul(a, b, out=c)
    est = 2 * n**3 / rate0
    # Short GPU calls are timed in groups so event resolution and launch gaps do not count.
    inner = 1 if on_cpu else max(1, min(50, math.ceil(0.01 / max(est, 1e-9))))
    samples = time_calls(lambda: torch.matmul(a, b, out=c), ctx, min_reps=3, max_reps=100,
                         max_s=max(slice_s, 0.0), inner=inner, device=device)
    t = median(samples)
    return GemmResult(flops=2 * n**3 / t, n=n, repeats=len(samples) * inner,
                      seconds_per_call=t, rate_spread=spread(samples, 2 * n**3))


def _plan(ctx: BenchContext) -> list[tuple[str, Msg | None]]:
    """(dtype, reason it is not measured) for this device."""
    import torch

    if ctx.kind == "cuda":
        major, minor = torch.cuda.get_device_capability(ctx.device)
        ampere = (major, minor) >= (8, 0)
        need = Msg("needs an Ampere (sm_80) or newer GPU", "需要 Ampere (sm_80) 或更新的 GPU")
        return [("fp32", None), ("tf32", None if ampere else need), ("fp16", None),
                ("bf16", None if ampere else need)]
    no_tf32 = Msg("TF32 is a tensor-core format of NVIDIA GPUs (Ampere and newer)",
                  "TF32 是 NVIDIA GPU（Ampere 及更新）张量核心的格式")
    if ctx.kind != "cpu":
        return [("fp32", None), ("tf32", no_tf32), ("fp16", None), ("bf16", None)]
    plan: list[tuple[str, Msg | None]] = [("fp32", None), ("tf32", no_tf32)]
    for name in ("fp16", "bf16"):
        # Without native instructions torch converts element by element (two orders of
        # magnitude slower than FP32): a figure about software, not the hardware.
        flags = ", ".join(sorted(_NATIVE[name]))
        plan.append((name, None if native_16bit(ctx.profile, name) else Msg(
            f"this CPU has no native {name} matmul instructions ({flags})",
            f"该 CPU 没有原生 {name} 矩阵乘指令（{flags}）")))
    return plan


def _label(name: str) -> Msg:
    return {
        "fp32": Msg("FP32 matmul", "FP32 矩阵乘"),
        "tf32": Msg("TF32 matmul (tensor cores)", "TF32 矩阵乘（张量核心）"),
        "fp16": Msg("FP16 matmul", "FP16 矩阵乘"),
        "bf16": Msg("BF16 matmul", "BF16 矩阵乘"),
    }[name]


def peak_reference(ctx: BenchContext, key: str) -> tuple[Reference | None, tuple[Msg, ...]]:
    """The catalog peak for ``key`` as a reference, or a note saying there is none."""
    peak = ctx.settings.peak(key)
    if peak is None:
        return None, (Msg("no catalog peak for this device", "目录中没有该设备的峰值数据"),)
    return Reference(kind="spec_peak", label=Msg("catalog peak (dense)", "目录峰值（稠密）"),
                     source="catalog", value=peak), ()


def run(ctx: BenchContext) -> Iterator[Event]:
    import torch

    plan = _plan(ctx)
    todo = [name for name, reason in plan if reason is None]
    for name, reason in plan:
        if reason is not None:
            ctx.note(Msg(f"{name.upper()} not measured: {reason.en}",
                         f"未测 {name.upper()}：{reason.zh}"))
    if not todo:
        raise Skip(Msg("no supported dtype", "没有支持的数据类型"))
    on_cpu = ctx.kind == "cpu"
    max_n = {"smoke": 256, "quick": GPU_MAX_N, "full": GPU_MAX_N}[ctx.preset]
    target = {"smoke": 0.01, "quick": 0.08, "full": 0.25}[ctx.preset] if on_cpu else 1.0
    previous_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for i, name in enumerate(todo):
            yield Progress("matmul", i, len(todo), _label(name))
            if ctx.out_of_time(0.2):
                ctx.note_budget_stop(Msg(f"{name.upper()} not measured",
                                         f"未测 {name.upper()}"))
                break
            if ctx.kind == "cuda":
                torch.backends.cuda.matmul.allow_tf32 = name == "tf32"
            slice_s = max(0.0, ctx.time_left() / (len(todo) - i) - 0.3)
            result = gemm_rate(ctx, name, max_n=max_n, target_call_s=target, slice_s=slice_s)
            ref, notes = peak_reference(ctx, name)
            if ctx.kind == "cuda" and name == "fp32":
                notes += (Msg("TF32 off (torch.backends.cuda.matmul.allow_tf32 = False)",
                              "已关闭 TF32（allow_tf32 = False）"),)
            if on_cpu:
                notes += (Msg(f"{torch.get_num_threads()} torch threads (the default)",
                              f"{torch.get_num_threads()} 个 torch 线程（默认）"),)
            yield Measurement(
                id=name, label=_label(name), value=result.flops, unit="FLOP/s",
                reference=ref,
                notes=(Msg("FLOP = 2*N^3 per N x N x N multiplication; median of repeats "
                           "(repeated until they agree within 2 % or the time slice ends)",
                           "FLOP = 2*N^3（N×N×N 乘法）；取重复测量的中位数（重复至相差 2% 以内"
                           "或时间片用完）"),) + notes,
                details={"n": result.n, "repeats": result.repeats,
                         "seconds_per_call": result.seconds_per_call,
                         "spread": result.rate_spread},
            )
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous_tf32
    yield Progress("matmul", len(todo), len(todo), Msg("done", "完成"))


BENCHMARK = Benchmark(
    id="matmul",
    title=Msg("Matrix multiply (GEMM) by dtype", "各数据类型的矩阵乘法 (GEMM)"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    weight=2.0,
)
