"""Side-by-side comparison of builds: specs, price, and price per unit of what matters.

Price per dense tensor TFLOP and per GB of VRAM are computed from the build's own priced total
and its catalog figures; when a figure is unknown the ratio is unknown, never estimated. Row
names and cell words come in both languages; the cells are written in the caller's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from torchrig.builds.build import Build
from torchrig.builds.capabilities import Capabilities, from_build
from torchrig.builds.pricing import DefaultRate, price_build
from torchrig.catalog.model import Catalog
from torchrig.i18n import Msg
from torchrig.labels import STORAGE_KINDS, cores, label
from torchrig.units import GB, fmt_gb, fmt_gib

UNKNOWN = Msg("unknown", "未知")


@dataclass(frozen=True)
class CompareRow:
    label: Msg
    values: tuple[str, ...]  # one per build, in the language compare_builds was asked for


def _ratio(total: Decimal, incomplete: bool, amount: float | None, currency: str,
           lang: str) -> str:
    if not amount or incomplete:
        return UNKNOWN.get(lang)
    return f"{currency} {float(total) / amount:,.2f}"


def _cpu(c: Capabilities, lang: str) -> str:
    name = c.cpu_name or UNKNOWN.get(lang)
    if c.cpu_cores is None:
        return name
    return f"{name} ({cores(c.cpu_cores, lang)})"


def _storage(c: Capabilities, lang: str) -> str:
    kind = label(STORAGE_KINDS, c.storage_kind or "unknown", lang)
    return f"{kind} {fmt_gb(c.storage_bytes, 1)}" if c.storage_bytes else kind


def _sized(value: float | None, lang: str, digits: int = 0) -> str:
    return fmt_gib(value, digits) if value else UNKNOWN.get(lang)


def compare_builds(builds: list[Build], catalog: Catalog, lang: str = "en",
                   default_rate: DefaultRate | None = None) -> list[CompareRow]:
    """``default_rate`` prices a build without a rate of its own (the Settings' or the shipped
    reference rate, as on the Build page)."""
    caps = [from_build(b, catalog) for b in builds]
    priced = [price_build(b, catalog, default_rate=default_rate) for b in builds]
    unknown = UNKNOWN.get(lang)

    def row(en: str, zh: str, values: list[str]) -> CompareRow:
        return CompareRow(Msg(en, zh), tuple(values))

    total_tflops = [
        (c.tensor_flops or 0) * c.gpu_count * c.nodes / 1e12 if c.tensor_flops else None
        for c in caps]
    total_vram = [
        c.vram_per_gpu_bytes * c.gpu_count * c.nodes if c.vram_per_gpu_bytes else None
        for c in caps]
    incomplete = Msg(" (incomplete)", "（不完整）").get(lang)
    return [
        row("Nodes", "节点数", [str(c.nodes) for c in caps]),
        row("CPU (per node)", "CPU（每节点）", [_cpu(c, lang) for c in caps]),
        row("GPUs (per node)", "GPU（每节点）",
            [f"{c.gpu_count} × {c.gpu_name or unknown}" if c.gpu_count
             else Msg("none", "无").get(lang) for c in caps]),
        row("VRAM per GPU", "单卡显存", [_sized(c.vram_per_gpu_bytes, lang) for c in caps]),
        row("Tensor FP16/BF16 dense, all GPUs", "全部 GPU 的 FP16/BF16 稠密张量算力",
            [f"{t:,.1f} TFLOP/s" if t else unknown for t in total_tflops]),
        row("RAM (per node)", "内存（每节点）", [_sized(c.ram_bytes, lang) for c in caps]),
        row("Storage (per node)", "存储（每节点）", [_storage(c, lang) for c in caps]),
        row("Power supply", "电源", [f"{c.psu_w:.0f} W" if c.psu_w else unknown for c in caps]),
        row("Total price", "总价", [f"{p.currency} {p.total:,.2f}"
                                   + (incomplete if p.incomplete else "") for p in priced]),
        row("Price per tensor TFLOP/s", "每 TFLOP/s 张量算力的价格",
            [_ratio(p.total, p.incomplete, t, p.currency, lang) for p, t in
             zip(priced, total_tflops, strict=True)]),
        row("Price per GB of VRAM", "每 GB 显存的价格",
            [_ratio(p.total, p.incomplete, v / GB if v else None, p.currency, lang)
             for p, v in zip(priced, total_vram, strict=True)]),
    ]
