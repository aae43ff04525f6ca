"""Host <-> device copy rates, pinned and pageable, against the PCIe link's theoretical rate.

Every batch a training loop feeds the GPU crosses this link; a GPU in an x4 slot or a gen3
board shows up here first. Pinned (page-locked) host memory lets the GPU's DMA engine read it
directly; pageable memory is staged through a pinned bounce buffer by the driver, which is why
DataLoader(pin_memory=True) matters. Links drop to a lower generation when idle to save power,
so the link is read again right after the transfers, while it is still trained up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress, Skip
from torchrig.bench.report import Measurement, Reference
from torchrig.bench.timing import free_memory_bytes, median, spread, time_calls
from torchrig.i18n import Msg
from torchrig.units import GB, MiB

# Payload rate per lane per direction in bytes/s: transfer rate x line-code efficiency / 8.
# gen1/2: 2.5/5 GT/s with 8b/10b; gen3/4/5: 8/16/32 GT/s with 128b/130b
# (docs/hardware-sources.md section 3: x16 gen3 15.75, gen4 31.5, gen5 63 GB/s per direction).
PCIE_LANE_BPS: dict[int, float] = {
    1: 2.5e9 * 8 / 10 / 8,
    2: 5e9 * 8 / 10 / 8,
    3: 0.985 * GB,
    4: 1.969 * GB,
    5: 3.938 * GB,
}

_PRESET_BYTES = {"smoke": 64 * MiB, "quick": 256 * MiB, "full": 1024 * MiB}


def pcie_rate_bps(gen: int | None, width: int | None) -> float | None:
    """Theoretical payload rate per direction of a PCIe link, or None if unknown."""
    if gen is None or width is None or gen not in PCIE_LANE_BPS or width <= 0:
        return None
    return PCIE_LANE_BPS[gen] * width


def _profile_gpu(ctx: BenchContext) -> Any:
    """The profile's GpuInfo for ctx.device (matched by torch device, then UUID, then index)."""
    if ctx.profile is None:
        return None
    index = int(ctx.device.split(":")[1]) if ":" in ctx.device else 0
    for gpu in ctx.profile.gpus:
        if gpu.torch_device == ctx.device:
            return gpu
    uuid = _torch_uuid(index)
    if uuid:
        for gpu in ctx.profile.gpus:
            if gpu.uuid and uuid in gpu.uuid:
                return gpu
    return None


def _torch_uuid(index: int) -> str | None:
    try:
        import torch

        uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
        return str(uuid) if uuid is not None else None
    except (RuntimeError, AssertionError):
        return None


def read_link_now(index: int) -> tuple[int | None, int | None, Msg]:
    """(gen, width, how it was read) of the link right now via NVML, matched to torch's device
    by UUID (CUDA numbers GPUs fastest-first, NVML by PCI bus, so indexes can differ)."""
    try:
        import pynvml
    except ImportError:
        return None, None, Msg("NVML binding (nvidia-ml-py) not installed",
                               "未安装 NVML 绑定（nvidia-ml-py）")
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        return None, None, Msg(f"NVML unavailable ({exc})", f"NVML 不可用（{exc}）")
    try:
        handle = None
        uuid = _torch_uuid(index)
        if uuid:
            for i in range(pynvml.nvmlDeviceGetCount()):
                h = pynvml.nvmlDeviceGetHandleByIndex(i)
                nv_uuid = pynvml.nvmlDeviceGetUUID(h)
                nv_uuid = nv_uuid.decode() if isinstance(nv_uuid, bytes) else nv_uuid
                if nv_uuid.replace("GPU-", "") == uuid.replace("GPU-", ""):
                    handle = h
                    break
        if handle is None:
            return None, None, Msg("no NVML device with torch's UUID",
                                   "NVML 中没有与 torch 的 UUID 相同的设备")
        gen = pynvml.nvmlDeviceGetCurrPcieLinkGeneration(handle)
        width = pynvml.nvmlDeviceGetCurrPcieLinkWidth(handle)
        return int(gen), int(width), Msg("NVML, read right after the transfers",
                                         "NVML，传输结束后立即读取")
    except pynvml.NVMLError as exc:
        return None, None, Msg(f"NVML could not read the link ({exc})",
                               f"NVML 无法读取链路（{exc}）")
    finally:
        with contextlib.suppress(pynvml.NVMLError):
            pynvml.nvmlShutdown()


def run(ctx: BenchContext) -> Iterator[Event]:
    if ctx.kind != "cuda":
        raise Skip(_NOT_APPLICABLE.get(ctx.kind, _NOT_APPLICABLE["cpu"]))
    import psutil
    import torch

    size = _PRESET_BYTES[ctx.preset]
    host_free = psutil.virtual_memory().available
    size = int(min(size, free_memory_bytes(ctx.device) * 0.3 * ctx.scale,
                   host_free * 0.2 * ctx.scale)) // MiB * MiB
    if size < 16 * MiB:
        raise MemoryError("not enough free memory for a 16 MiB transfer")
    steps = 4
    yield Progress("h2d", 0, steps, Msg("allocating pinned and pageable buffers",
                                        "分配锁页与可分页缓冲区"))
    dev = torch.empty(size, dtype=torch.uint8, device=ctx.device)
    pinned = torch.empty(size, dtype=torch.uint8, pin_memory=True)
    pageable = torch.empty(size, dtype=torch.uint8)
    dev.fill_(1)
    pinned.fill_(2)
    pageable.fill_(3)

    cases = [
        ("pinned_h2d", pinned, "h2d", Msg("Host to device, pinned", "主机到设备，锁页内存")),
        ("pinned_d2h", pinned, "d2h", Msg("Device to host, pinned", "设备到主机，锁页内存")),
        ("pageable_h2d", pageable, "h2d", Msg("Host to device, pageable",
                                              "主机到设备，可分页内存")),
        ("pageable_d2h", pageable, "d2h", Msg("Device to host, pageable",
                                              "设备到主机，可分页内存")),
    ]
    rates: dict[str, tuple[float, dict[str, float | int]]] = {}
    for i, (case_id, host, direction, label) in enumerate(cases):
        yield Progress("h2d", i, steps, label)
        if ctx.out_of_time(0.1):
            ctx.note_budget_stop(label)
            break

        def copy(host: Any = host, direction: str = direction) -> None:
            if direction == "h2d":
                dev.copy_(host)
            else:
                host.copy_(dev)

        copy()
        samples = time_calls(copy, ctx, min_reps=3, max_reps=50,
                             max_s=max(0.0, ctx.time_left() / (steps - i) - 0.1))
        rates[case_id] = (size / median(samples), spread(samples, size))

    gen, width, how = read_link_now(int(ctx.device.split(":")[1]))
    gpu = _profile_gpu(ctx)
    link_notes: list[Msg] = []
    if gen is None and gpu is not None:
        gen, width = gpu.pcie_gen_current, gpu.pcie_width_current
        how = Msg(f"detected profile ({how.en}); an idle link may report a lower generation",
                  f"检测到的配置（{how.zh}）；空闲链路可能报告较低的代数")
    max_rate = None
    if gpu is not None:
        max_rate = pcie_rate_bps(gpu.pcie_gen_max, gpu.pcie_width_max)
    theoretical = pcie_rate_bps(gen, width)
    ref = None
    if theoretical is not None:
        ref = Reference(
            kind="theoretical",
            label=Msg(f"PCIe gen{gen} x{width} theoretical, per direction",
                      f"PCIe {gen}.0 x{width} 理论值（单向）"),
            source="docs/hardware-sources.md sec. 3",  # the lane rates
            value=theoretical,
        )
        link_notes.append(Msg(f"link read from {how.en}", f"链路读数来自{how.zh}"))
    else:
        link_notes.append(Msg(f"PCIe link unknown ({how.en}): no theoretical rate to compare",
                              f"PCIe 链路未知（{how.zh}）：无理论值可比"))
    catalog = ctx.settings.peak("pcie_bps")
    if catalog is not None:
        link_notes.append(Msg(f"catalog link rate {catalog / GB:.1f} GB/s per direction",
                              f"目录链路速率 {catalog / GB:.1f} GB/s（单向）"))
    if max_rate is not None and theoretical is not None and max_rate > theoretical * 1.01:
        link_notes.append(Msg(
            f"link runs below its maximum (gen{gpu.pcie_gen_max} x{gpu.pcie_width_max} = "
            f"{max_rate / GB:.1f} GB/s)",
            f"链路低于其最高规格（{gpu.pcie_gen_max}.0 x{gpu.pcie_width_max} = "
            f"{max_rate / GB:.1f} GB/s）",
        ))
    details_common: dict[str, Any] = {"bytes": size}
    if gen is not None:
        details_common.update({"pcie_gen": gen, "pcie_width": width})
    for case_id, _host, _direction, label in cases:
        if case_id not in rates:
            continue
        rate, rate_spread = rates[case_id]
        notes = [Msg("bytes / time, one direction", "字节数 / 时间（单向）")]
        if case_id.startswith("pageable"):
            notes.append(Msg("pageable memory is staged through a pinned buffer by the driver",
                             "可分页内存由驱动经锁页缓冲区中转"))
        yield Measurement(id=case_id, label=label, value=rate, unit="B/s", reference=ref,
                          notes=tuple(notes + link_notes),
                          details={**details_common, "repeats": rate_spread["repeats"],
                                   "spread": rate_spread})
    yield Progress("h2d", steps, steps, Msg("done", "完成"))


_NOT_APPLICABLE = {
    "cpu": Msg("no accelerator: host<->device copies do not apply to the CPU device",
               "无加速器：主机与设备间的复制不适用于 CPU 设备"),
    "mps": Msg("Apple GPUs share memory with the CPU: there is no host<->device link",
               "Apple GPU 与 CPU 共享内存：没有主机与设备间的链路"),
}

BENCHMARK = Benchmark(
    id="h2d",
    title=Msg("Host <-> device transfers (PCIe)", "主机与设备间传输（PCIe）"),
    devices=("cuda",),
    run=run,
    weight=1.5,
    not_applicable=_NOT_APPLICABLE,
)
