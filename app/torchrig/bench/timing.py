"""Timing and sizing helpers shared by the benchmarks (torch imported inside functions).

GPU work is asynchronous: a timer around a kernel launch measures the launch, not the work.
So on CUDA every timed region is bracketed by CUDA events and waited for; on other devices the
device is synchronised before the clock is read.

Method for throughput figures: repeat until the repeats agree (:func:`settled`: at least
:data:`SETTLE_MIN_REPS` repeats whose interquartile range is within :data:`SETTLE_SPREAD` of
the median) or the benchmark's time slice ends; report the median, with min, max and the
number of repeats beside it (:func:`spread`), so a figure that never settled shows it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

from torchrig.bench.base import BenchContext
from torchrig.bench.settings import device_kind


def synchronize(device: str) -> None:
    import torch

    kind = device_kind(device)
    if kind == "cuda":
        torch.cuda.synchronize(device)
    elif kind == "mps":
        torch.mps.synchronize()


SETTLE_MIN_REPS = 5
SETTLE_SPREAD = 0.02
"""Repeats whose middle half lies within 2 % of their median have settled: more would not
move the median by a figure anyone reads."""


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def settled(values: Sequence[float], min_reps: int = SETTLE_MIN_REPS,
            tolerance: float = SETTLE_SPREAD) -> bool:
    if len(values) < max(min_reps, 4):
        return False
    q1, _, q3 = statistics.quantiles(values, n=4)
    mid = median(values)
    return mid > 0 and (q3 - q1) / mid <= tolerance


def spread(values: Sequence[float], work: float | None = None) -> dict[str, float | int]:
    """Median, min and max of timings, or of ``work / time`` rates when ``work`` is given
    (the slowest repeat then gives the min rate), and the number of repeats."""
    if work is not None:
        values = [work / max(v, 1e-12) for v in values]
    return {"median": median(values), "min": float(min(values)), "max": float(max(values)),
            "repeats": len(values)}


def time_calls(
    fn: Callable[[], object],
    ctx: BenchContext,
    *,
    min_reps: int = 3,
    max_reps: int = 50,
    max_s: float = 1.0,
    inner: int = 1,
    device: str | None = None,
) -> list[float]:
    """Seconds per call of ``fn`` for each repeat; ``inner`` calls are timed together.

    Stops after ``max_reps`` repeats, once the repeats have :func:`settled`, or once ``max_s``
    seconds have been spent (but never before ``min_reps``), and checks cancel between
    repeats. ``device`` defaults to the suite's device (cpu_matmul times the CPU while the
    suite targets a GPU).
    """
    import torch

    device = device or ctx.device
    on_cuda = device_kind(device) == "cuda"
    if ctx.preset == "smoke":
        # Smoke runs prove each code path works; repeats would only add time.
        max_reps = min_reps
    samples: list[float] = []
    spent_from = time.perf_counter()
    while len(samples) < max_reps:
        ctx.check()
        if on_cuda:
            # Events record on the current device's stream: made current, the events bracket
            # the work on ``device`` even when another GPU is the process's current one.
            with torch.cuda.device(device):
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(inner):
                    fn()
                end.record()
                end.synchronize()
            samples.append(start.elapsed_time(end) / 1e3 / inner)
        else:
            synchronize(device)
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            synchronize(device)
            samples.append((time.perf_counter() - t0) / inner)
        if len(samples) >= min_reps and (time.perf_counter() - spent_from >= max_s
                                         or settled(samples)):
            break
    return samples


def free_memory_bytes(device: str) -> int:
    """Memory a benchmark may take on ``device``: free VRAM on CUDA, available RAM otherwise
    (MPS shares system memory)."""
    if device_kind(device) == "cuda":
        import torch

        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    import psutil

    return int(psutil.virtual_memory().available)


def is_out_of_memory(exc: BaseException) -> bool:
    """True for CUDA/MPS allocator failures and host MemoryError."""
    if isinstance(exc, MemoryError):
        return True
    try:
        import torch

        if isinstance(exc, torch.cuda.OutOfMemoryError):
            return True
    except ImportError:
        pass
    return isinstance(exc, RuntimeError) and "out of memory" in str(exc).lower()


def release_device_memory(device: str) -> None:
    """Give cached blocks back after an out-of-memory error so the retry starts clean."""
    import gc

    gc.collect()
    kind = device_kind(device)
    try:
        import torch

        if kind == "cuda":
            torch.cuda.empty_cache()
        elif kind == "mps":
            torch.mps.empty_cache()
    except (ImportError, RuntimeError):
        pass


def round_down(value: float, multiple: int, minimum: int) -> int:
    """Round to a multiple (GEMM kernels run at full speed on multiples of 64/128)."""
    return max(minimum, int(value) // multiple * multiple)
