"""CPU matrix-multiply throughput with every usable core, whatever device the suite targets.

The CPU does real math in a PyTorch machine too (CPU-only users, preprocessing, optimizer
offload), and the figure shows whether torch's threading uses all the cores it may. FP32
always; BF16 only where the CPU has native bf16 instructions (AVX512_BF16, AMX, Arm BF16):
without them torch's bf16 matmul is emulated and tells nothing about the hardware.
"""

from __future__ import annotations

from collections.abc import Iterator

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress
from torchrig.bench.benchmarks.cpufeatures import native_16bit
from torchrig.bench.benchmarks.matmul import gemm_rate
from torchrig.bench.report import Measurement
from torchrig.i18n import Msg


def run(ctx: BenchContext) -> Iterator[Event]:
    import torch

    threads = ctx.usable_cpus()
    has_bf16 = native_16bit(ctx.profile, "bf16")
    dtypes = ["fp32", "bf16"] if has_bf16 else ["fp32"]
    if not has_bf16:
        ctx.note(Msg("BF16 not measured: no native bf16 instructions (avx512_bf16 / AMX / Arm "
                     "BF16) found",
                     "未测 BF16：未发现原生 bf16 指令（avx512_bf16 / AMX / Arm BF16）"))
    max_n = {"smoke": 256, "quick": 4096, "full": 8192}[ctx.preset]
    target = {"smoke": 0.01, "quick": 0.08, "full": 0.25}[ctx.preset]
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        for i, name in enumerate(dtypes):
            label = Msg(f"CPU {name.upper()} matmul, {threads} threads",
                        f"CPU {name.upper()} 矩阵乘，{threads} 线程")
            yield Progress("cpu_matmul", i, len(dtypes), label)
            if ctx.out_of_time(0.2):
                ctx.note_budget_stop(Msg(f"{name.upper()} not measured", f"未测 {name.upper()}"))
                break
            slice_s = max(0.0, ctx.time_left() / (len(dtypes) - i) - 0.3)
            result = gemm_rate(ctx, name, max_n=max_n, target_call_s=target, slice_s=slice_s,
                               device="cpu")
            yield Measurement(
                id=name, label=label, value=result.flops, unit="FLOP/s",
                notes=(Msg("FLOP = 2*N^3; median of repeats", "FLOP = 2*N^3；取重复测量的中位数"),
                       Msg(f"torch.set_num_threads({threads}) (usable CPUs), restored afterwards",
                           f"torch.set_num_threads({threads})（可用 CPU 数），测后恢复"),
                       Msg("no catalog peak for CPUs", "目录中没有 CPU 的峰值数据")),
                details={"n": result.n, "repeats": result.repeats, "threads": threads,
                         "seconds_per_call": result.seconds_per_call,
                         "spread": result.rate_spread},
            )
    finally:
        torch.set_num_threads(previous)
    yield Progress("cpu_matmul", len(dtypes), len(dtypes), Msg("done", "完成"))


BENCHMARK = Benchmark(
    id="cpu_matmul",
    title=Msg("CPU matrix multiply, all cores", "CPU 矩阵乘法（全部核心）"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    weight=1.5,
)
