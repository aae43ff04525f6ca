"""The benchmarks of the suite, in the order they run.

Order matters where one benchmark reads another's result: dataload compares with the training
rate train measured, so train comes first. Importing this module imports no torch.
"""

from __future__ import annotations

from torchrig.bench.base import Benchmark
from torchrig.bench.benchmarks import (
    checkpointing,
    cpu_matmul,
    dataload,
    h2d,
    matmul,
    membw,
    storage,
    train,
)
from torchrig.errors import InputError

BENCHMARKS: tuple[Benchmark, ...] = (
    matmul.BENCHMARK,
    membw.BENCHMARK,
    h2d.BENCHMARK,
    train.BENCHMARK,
    checkpointing.BENCHMARK,
    dataload.BENCHMARK,
    storage.BENCHMARK,
    cpu_matmul.BENCHMARK,
)


def benchmark_ids() -> list[str]:
    return [b.id for b in BENCHMARKS]


def get_benchmark(bench_id: str) -> Benchmark:
    for bench in BENCHMARKS:
        if bench.id == bench_id:
            return bench
    raise InputError(f"unknown benchmark {bench_id!r}: choose from {', '.join(benchmark_ids())}")
