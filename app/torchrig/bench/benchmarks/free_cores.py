"""How many torch threads a CPU training phase should use: the cores other work leaves free.

A training step on a CPU is hundreds of short OpenMP parallel regions, each ending at a
barrier that waits for its slowest thread. When another process holds a core, the thread on
it is preempted for a whole scheduler slice and every region waits for it: measured on 2
cores at load 13-20, the quick CNN trained at 3-6 samples/s with 2 threads and 80-90 with 1
(benchmarks/bench_suite_verify.py), the cause of the CNN FP32 figure swinging from 8.3 to
528 samples/s between runs (issue 27). So the training benchmarks first look at what other
processes used over a short window and leave those cores to them.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator

from torchrig.bench.machine_state import CpuSample, cpu_sample, other_load
from torchrig.i18n import Msg

WINDOW_S = 0.25
"""Long enough for CPU times (10 ms ticks) to say something, short beside a benchmark."""

TAKEN_ABOVE = 0.5
"""A core counts as taken when other processes used more than half of one."""


def free_threads(usable: int, *, window_s: float = WINDOW_S,
                 sample: Callable[[], CpuSample | None] = cpu_sample,
                 sleep: Callable[[float], None] = time.sleep) -> tuple[int, float | None]:
    """(threads, cores other processes used) over ``window_s``: ``usable`` less one thread per
    core taken (other cores' worth rounded up past :data:`TAKEN_ABOVE`), at least 1. Without
    CPU times (no psutil): ``usable`` and None."""
    first = sample()
    sleep(window_s)
    second = sample()
    if first is None or second is None:
        return usable, None
    load = other_load(first, second)
    if load is None:
        return usable, None
    other = float(load["other_cpu_cores"])
    taken = max(0, math.ceil(other - TAKEN_ABOVE))
    return max(1, min(usable, usable - taken)), other


def threads_note(threads: int, usable: int, other: float | None) -> Msg:
    if other is None or threads == usable:
        return Msg(f"{threads} torch threads (the usable CPUs)",
                   f"{threads} 个 torch 线程（可用 CPU 数）")
    return Msg(f"{threads} torch threads of {usable} usable CPUs: other processes kept "
               f"{other:.1f} cores busy, and a thread waiting on a busy core stalls every "
               "parallel step (the figure is this machine's under that load)",
               f"可用 CPU {usable} 个，使用 {threads} 个 torch 线程：其他进程占用了 "
               f"{other:.1f} 个核心，线程在繁忙核心上等待会拖慢每个并行步骤"
               "（结果为该负载下的本机水平）")


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """torch.set_num_threads(threads) for the block, the previous count restored after."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
