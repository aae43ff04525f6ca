"""Measured matmul throughput beside spec peaks: this GPU's and each tier's reference GPU.

Chart data for the Benchmark page and the PDF, so both draw the same bars. Spec figures are the
catalog's dense tensor peaks (FP32 accumulate); a measured figure is only ever a measurement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torchrig.bench.report import BenchReport
from torchrig.catalog.matching import match_gpu
from torchrig.catalog.model import Catalog, Part
from torchrig.hardware.pcie import link_bytes_per_s
from torchrig.i18n import Msg

if TYPE_CHECKING:
    from torchrig.hardware.model import SystemProfile

HALF_PRECISION = ("bf16", "fp16")


@dataclass(frozen=True)
class ThroughputBar:
    label: Msg
    flops: float
    kind: str  # "measured", "spec" (this GPU's catalog peak) or "tier" (a tier's GPU)


def _measured_half(report: BenchReport) -> tuple[str, float] | None:
    for result in report.results:
        if result.id != "matmul" or not result.ok:
            continue
        found = {m.id: m for m in result.measurements if m.value}
        for dtype in HALF_PRECISION:
            if dtype in found:
                return dtype, float(found[dtype].value or 0.0)
        if "fp32" in found:
            return "fp32", float(found["fp32"].value or 0.0)
    return None


def matmul_bars(report: BenchReport, catalog: Catalog) -> list[ThroughputBar]:
    bars: list[ThroughputBar] = []
    measured = _measured_half(report)
    if measured is not None:
        dtype, flops = measured
        where = report.device_name or report.device
        bars.append(ThroughputBar(Msg(f"Measured {dtype.upper()} matmul ({where})",
                                      f"实测 {dtype.upper()} 矩阵乘（{where}）"), flops,
                                  "measured"))
        for result in report.results:
            for m in result.measurements:
                if result.id == "matmul" and m.id == dtype and m.reference is not None \
                        and m.reference.value:
                    bars.append(ThroughputBar(
                        Msg(f"Spec peak: {m.reference.label.en}",
                            f"规格峰值：{m.reference.label.zh}"),
                        float(m.reference.value), "spec"))
    for tier in catalog.tiers.values():
        choice = tier.part_choice("gpu")
        if choice is None:
            continue
        part = catalog.get(choice.recommended)
        g = part.gpu
        peak = g.bf16_tensor_flops or g.fp16_tensor_flops
        note_en, note_zh = "BF16 TC", "BF16 张量"
        if peak is None and g.fp16_flops:
            peak, note_en, note_zh = g.fp16_flops, "FP16, no TC", "FP16，无张量核心"
        if peak:
            short_en = tier.name.en.split(" ")[0]
            bars.append(ThroughputBar(
                Msg(f"{short_en}: {part.name} ({note_en}, spec)",
                    f"{tier.name.zh}：{part.name}（{note_zh}，规格）"), float(peak), "tier"))
    return bars


def catalog_peaks(part: Part | None, pcie: tuple[int | None, int | None] = (None, None)
                  ) -> dict[str, float] | None:
    """The benchmark's reference peaks for a catalog GPU (dense, FP32 accumulate), and the
    theoretical per-direction PCIe rate of the detected link when its gen and width are known."""
    peaks: dict[str, float] = {}
    if part is not None:
        g = part.gpu
        for key, value in (("fp32", g.fp32_flops), ("tf32", g.tf32_tensor_flops),
                           ("fp16", g.fp16_tensor_flops or g.fp16_flops),
                           ("bf16", g.bf16_tensor_flops), ("mem_bw", g.memory_bandwidth)):
            if value:
                peaks[key] = float(value)
    link = link_bytes_per_s(*pcie)
    if link:
        peaks["pcie_bps"] = link
    return peaks or None


PeaksFn = Callable[[str, "SystemProfile | None"], "dict[str, float] | None"]


def peaks_lookup(catalog: Catalog) -> PeaksFn:
    """The runner's ``peaks_lookup``: spec peaks of the catalog GPU that matches the benchmark
    device (by torch device, else the first detected GPU), with its detected PCIe link."""

    def lookup(device: str, profile: SystemProfile | None) -> dict[str, float] | None:
        if device == "cpu" or profile is None or not profile.gpus:
            return None
        gpu = next((g for g in profile.gpus if g.torch_device == device), profile.gpus[0])
        part = match_gpu(catalog, gpu.name or "", gpu.vram_total_bytes)
        return catalog_peaks(part, (gpu.pcie_gen_max, gpu.pcie_width_max))

    return lookup
