"""Side-by-side comparison of builds: specs, price, and price per unit of what matters.

Price per dense tensor TFLOP and per GB of VRAM are computed from the build's own priced total
and its catalog figures; when a figure is unknown the ratio is unknown, never estimated.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from torchrig.builds.build import Build
from torchrig.builds.capabilities import from_build
from torchrig.builds.pricing import price_build
from torchrig.catalog.model import Catalog
from torchrig.units import GB, fmt_gb, fmt_gib


@dataclass(frozen=True)
class CompareRow:
    label: str
    values: tuple[str, ...]


def _ratio(total: Decimal, incomplete: bool, amount: float | None, currency: str,
           unit: str) -> str:
    if not amount or incomplete:
        return "unknown"
    return f"{currency} {float(total) / amount:,.2f} {unit}"


def compare_builds(builds: list[Build], catalog: Catalog) -> list[CompareRow]:
    caps = [from_build(b, catalog) for b in builds]
    priced = [price_build(b, catalog) for b in builds]

    def row(label: str, values: list[str]) -> CompareRow:
        return CompareRow(label, tuple(values))

    total_tflops = [
        (c.tensor_flops or 0) * c.gpu_count * c.nodes / 1e12 if c.tensor_flops else None
        for c in caps]
    total_vram = [
        c.vram_per_gpu_bytes * c.gpu_count * c.nodes if c.vram_per_gpu_bytes else None
        for c in caps]
    return [
        row("Nodes", [str(c.nodes) for c in caps]),
        row("CPU (per node)", [f"{c.cpu_name or 'unknown'} ({c.cpu_cores or '?'} cores)"
                               for c in caps]),
        row("GPUs (per node)", [f"{c.gpu_count} x {c.gpu_name}" if c.gpu_count else "none"
                                for c in caps]),
        row("VRAM per GPU", [fmt_gib(c.vram_per_gpu_bytes, 0) for c in caps]),
        row("Tensor FP16/BF16 dense, all GPUs",
            [f"{t:,.1f} TFLOP/s" if t else "unknown" for t in total_tflops]),
        row("RAM (per node)", [fmt_gib(c.ram_bytes, 0) for c in caps]),
        row("Storage (per node)", [f"{(c.storage_kind or 'unknown').upper()} "
                                   f"{fmt_gb(c.storage_bytes, 1)}" for c in caps]),
        row("Power supply", [f"{c.psu_w:.0f} W" if c.psu_w else "unknown" for c in caps]),
        row("Total price", [f"{p.currency} {p.total:,.2f}" + (" (incomplete)" if p.incomplete
                                                              else "") for p in priced]),
        row("Price per tensor TFLOP/s",
            [_ratio(p.total, p.incomplete, t, p.currency, "") for p, t in
             zip(priced, total_tflops, strict=True)]),
        row("Price per GB of VRAM",
            [_ratio(p.total, p.incomplete, v / GB if v else None, p.currency, "")
             for p, v in zip(priced, total_vram, strict=True)]),
    ]
