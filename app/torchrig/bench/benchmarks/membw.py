"""Device memory bandwidth with a copy kernel over buffers far larger than the caches.

A buffer that fits in cache measures the cache: an RTX 4090 "reaches" 3.9 TB/s on 16 MB because
its L2 holds it. So buffers are at least 4x the last-level cache (L2 on a GPU, L3 on a CPU from
the detected profile) and at least 256 MiB. Two conventions exist for a copy: CUDA's
bandwidthTest counts the bytes read plus the bytes written, nvbandwidth counts them once. Both
are reported; the read + write figure is the one comparable with a vendor's peak.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress
from torchrig.bench.report import Measurement, Reference
from torchrig.bench.timing import free_memory_bytes, median, spread, time_calls
from torchrig.i18n import Msg
from torchrig.units import GiB, MiB

_PRESET_BYTES = {"smoke": 64 * MiB, "quick": 1 * GiB, "full": 2 * GiB}
_CPU_PRESET_BYTES = {"smoke": 64 * MiB, "quick": 256 * MiB, "full": 1 * GiB}


def last_level_cache_bytes(ctx: BenchContext) -> tuple[int | None, str]:
    """(size, what it is) of the cache the buffer must dwarf."""
    if ctx.kind == "cuda":
        import torch

        size = getattr(torch.cuda.get_device_properties(ctx.device), "L2_cache_size", None)
        return (int(size) if size else None), "L2"
    if ctx.kind == "cpu" and ctx.profile is not None:
        caches = ctx.profile.cpu.cache_bytes
        for key in ("L3", "l3", "L2", "l2"):
            if caches.get(key):
                return int(caches[key]), key.upper()
    return None, "last-level cache"


def run(ctx: BenchContext) -> Iterator[Event]:
    import torch

    yield Progress("membw", 0, 2, Msg("allocating buffers", "分配缓冲区"))
    cache, cache_name = last_level_cache_bytes(ctx)
    sizes = _CPU_PRESET_BYTES if ctx.kind == "cpu" else _PRESET_BYTES
    wanted = max(sizes[ctx.preset], 4 * cache if cache else 0)
    fits = int(free_memory_bytes(ctx.device) * 0.4 * ctx.scale / 2)
    size = min(wanted, fits) // MiB * MiB
    notes: list[Msg] = []
    if cache is None:
        notes.append(Msg(f"{cache_name} size unknown: buffer sized from the preset only",
                         f"{cache_name} 大小未知：仅按预设确定缓冲区大小"))
    elif size < 4 * cache:
        notes.append(Msg(
            f"buffer {size / MiB:.0f} MiB is less than 4x the {cache_name} "
            f"({cache / MiB:.0f} MiB): the cache may inflate the figure",
            f"缓冲区 {size / MiB:.0f} MiB 小于 {cache_name}（{cache / MiB:.0f} MiB）的 4 倍："
            "缓存可能使结果偏高",
        ))
    src = torch.empty(size, dtype=torch.uint8, device=ctx.device)
    dst = torch.empty_like(src)
    # Touch every page first: first-touch page faults are not memory bandwidth.
    src.fill_(1)
    dst.fill_(0)
    dst.copy_(src)
    ctx.check()
    yield Progress("membw", 1, 2, Msg("timing copies", "计时复制"))
    samples = time_calls(lambda: dst.copy_(src), ctx, min_reps=3, max_reps=200,
                         max_s=max(0.0, ctx.time_left() - 0.3))
    t = median(samples)
    details: dict[str, Any] = {"buffer_bytes": size, "repeats": len(samples),
                               "seconds_per_copy": t, "spread": spread(samples, 2 * size)}
    if cache:
        details["cache_bytes"] = cache
    if ctx.kind == "cpu":
        notes.append(Msg(f"{torch.get_num_threads()} torch threads",
                         f"{torch.get_num_threads()} 个 torch 线程"))
    peak = ctx.settings.peak("mem_bw")
    ref = None
    if peak is not None:
        ref = Reference(kind="spec_peak", label=Msg("catalog memory bandwidth",
                                                    "目录内存带宽"),
                        source="catalog", value=peak)
    else:
        notes.append(Msg("no catalog peak for this device", "目录中没有该设备的峰值数据"))
    yield Measurement(
        id="copy_rw", label=Msg("Memory bandwidth, copy (read + write)", "内存带宽，复制（读+写）"),
        value=2 * size / t, unit="B/s", reference=ref,
        notes=(Msg("bytes counted once read + once written (CUDA bandwidthTest convention); "
                   "comparable with the vendor peak",
                   "读、写各计一次字节（CUDA bandwidthTest 口径）；可与厂商峰值对比"),
               *notes),
        details=details,
    )
    yield Measurement(
        id="copy_once", label=Msg("Memory bandwidth, copy (bytes counted once)",
                                  "内存带宽，复制（字节只计一次）"),
        value=size / t, unit="B/s",
        notes=(Msg("bytes copied / time (nvbandwidth convention): half the read + write figure",
                   "复制字节数 / 时间（nvbandwidth 口径）：为读+写数值的一半"),),
        details=details,
    )
    yield Progress("membw", 2, 2, Msg("done", "完成"))


BENCHMARK = Benchmark(
    id="membw",
    title=Msg("Memory bandwidth", "内存带宽"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    weight=1.5,
)
