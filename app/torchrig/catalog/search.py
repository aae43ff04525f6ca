"""Finding parts in the catalog: loose text search, the spec columns that matter per category,
range filters and sorting. The picker in the GUI is a face over these functions.

Search is forgiving in the ways people type: case and spaces do not matter ("rtx4090" finds
"RTX 4090"), and a capacity written as ``24GB``, ``24 GB`` or ``24GiB`` finds the same parts
(vendors write GB for what are binary GiB on GPUs and memory, so the two are one unit here).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

from torchrig.catalog.model import Part
from torchrig.catalog.specs import (
    CaseSpec,
    CpuCoolerSpec,
    CpuSpec,
    GpuSpec,
    MemorySpec,
    MotherboardSpec,
    NetworkSpec,
    PsuSpec,
    StorageSpec,
)
from torchrig.i18n import Msg
from torchrig.units import GB, TERA, GiB

_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*(gib|gb|g|tib|tb|t|mib|mb)\b")
_UNIT_SHORT = {"gib": "g", "gb": "g", "g": "g", "tib": "t", "tb": "t", "t": "t",
               "mib": "m", "mb": "m"}
_SEPARATORS = re.compile(r"[\s\-_/,()]+")


def _spaced(text: str) -> str:
    """Lower case, units folded (``24 GiB`` -> ``24g``), separators as single spaces."""
    text = _UNIT.sub(lambda m: m.group(1) + _UNIT_SHORT[m.group(2)], text.lower())
    return _SEPARATORS.sub(" ", text).strip()


def _canonical(text: str) -> str:
    return _spaced(text).replace(" ", "")


def search_text(part: Part, lang: str = "en") -> str:
    """Everything a search looks through for ``part``, canonicalised with word breaks kept."""
    return _spaced(f"{part.vendor} {part.name} {part.id} {part.key_spec(lang)}")


def query_terms(query: str) -> list[str]:
    """The query's words, canonicalised; a number and its unit stay one word (``24 GB``)."""
    joined = _UNIT.sub(lambda m: m.group(1) + _UNIT_SHORT[m.group(2)], query.lower())
    return [t for t in (_canonical(w) for w in joined.split()) if t]


def matches(part: Part, query: str, lang: str = "en") -> bool:
    """Every query word occurs in the part's text. A word starting with a digit must not follow
    another digit, so ``24g`` does not match ``124g``."""
    spaced = search_text(part, lang)
    compact = spaced.replace(" ", "")
    for term in query_terms(query):
        if term[0].isdigit():
            if not re.search(r"(?<![0-9.])" + re.escape(term), spaced):
                return False
        elif term not in compact:
            return False
    return True


@dataclass(frozen=True)
class SpecColumn:
    """One number the picker shows, filters and sorts by. ``value`` returns it in the display
    unit (``unit``), or None when the catalog does not know it."""

    key: str
    label: Msg
    unit: str
    value: Callable[[Part], float | None]
    digits: int = 0

    def text(self, part: Part) -> str:
        v = self.value(part)
        if v is None:
            return "—"
        return f"{v:,.{self.digits}f}".rstrip("0").rstrip(".") if self.digits else f"{v:,.0f}"


def _get(cls: type, fn: Callable[..., float | int | None]) -> Callable[[Part], float | None]:
    def value(part: Part) -> float | None:
        if not isinstance(part.specs, cls):
            return None
        v = fn(part.specs)
        return None if v is None else float(v)
    return value


def _scaled(x: float | int | None, unit: float) -> float | None:
    return None if x is None else x / unit


COLUMNS: dict[str, tuple[SpecColumn, ...]] = {
    "gpu": (
        SpecColumn("vram", Msg("VRAM", "显存"), "GiB",
                   _get(GpuSpec, lambda s: _scaled(s.vram_bytes, GiB))),
        SpecColumn("tensor", Msg("FP16 tensor", "FP16 Tensor"), "TFLOPS",
                   _get(GpuSpec, lambda s: _scaled(s.fp16_tensor_flops, TERA)), 1),
        SpecColumn("bandwidth", Msg("Bandwidth", "带宽"), "GB/s",
                   _get(GpuSpec, lambda s: _scaled(s.memory_bandwidth, GB))),
        SpecColumn("power", Msg("Board power", "板卡功耗"), "W", _get(GpuSpec, lambda s: s.tdp_w)),
        SpecColumn("length", Msg("Length", "长度"), "mm", _get(GpuSpec, lambda s: s.length_mm)),
        SpecColumn("slots", Msg("Slots", "槽宽"), "", _get(GpuSpec, lambda s: s.slot_width), 1),
    ),
    "cpu": (
        SpecColumn("cores", Msg("Cores", "核心"), "", _get(CpuSpec, lambda s: s.cores)),
        SpecColumn("boost", Msg("Boost", "加速频率"), "GHz",
                   _get(CpuSpec, lambda s: _scaled(s.boost_clock_hz, 1e9)), 2),
        SpecColumn("max_power", Msg("Max power", "最大功耗"), "W",
                   _get(CpuSpec, lambda s: s.max_turbo_power_w or s.tdp_w)),
        SpecColumn("lanes", Msg("PCIe lanes", "PCIe 通道"), "",
                   _get(CpuSpec, lambda s: s.pcie_lanes)),
    ),
    "memory": (
        SpecColumn("capacity", Msg("Capacity", "容量"), "GiB",
                   _get(MemorySpec, lambda s: _scaled(s.total_bytes, GiB))),
        SpecColumn("speed", Msg("Speed", "频率"), "MT/s", _get(MemorySpec, lambda s: s.speed_mts)),
    ),
    "storage": (
        SpecColumn("capacity", Msg("Capacity", "容量"), "GB",
                   _get(StorageSpec, lambda s: _scaled(s.capacity_bytes, GB))),
        SpecColumn("read", Msg("Read", "读取"), "MB/s",
                   _get(StorageSpec, lambda s: _scaled(s.seq_read, 1e6))),
        SpecColumn("endurance", Msg("Endurance", "耐久"), "TBW",
                   _get(StorageSpec, lambda s: s.endurance_tbw)),
    ),
    "motherboard": (
        SpecColumn("dimms", Msg("DIMM slots", "内存插槽"), "",
                   _get(MotherboardSpec, lambda s: s.memory_slots)),
        SpecColumn("x16", Msg("x16 slots", "x16 插槽"), "",
                   _get(MotherboardSpec, lambda s: s.x16_slots)),
        SpecColumn("m2", Msg("M.2 slots", "M.2 插槽"), "",
                   _get(MotherboardSpec, lambda s: s.m2_slots)),
    ),
    "psu": (
        SpecColumn("watts", Msg("Wattage", "功率"), "W", _get(PsuSpec, lambda s: s.wattage_w)),
        SpecColumn("12v2x6", Msg("12V-2x6", "12V-2x6"), "",
                   _get(PsuSpec, lambda s: s.pcie_12v_2x6_connectors)),
    ),
    "network": (
        SpecColumn("rate", Msg("Port rate", "端口速率"), "Gb/s",
                   _get(NetworkSpec, lambda s: _scaled(s.rate_bits_per_s, 1e9))),
        SpecColumn("ports", Msg("Ports", "端口"), "", _get(NetworkSpec, lambda s: s.ports)),
    ),
    "case": (
        SpecColumn("gpu_length", Msg("GPU length", "显卡限长"), "mm",
                   _get(CaseSpec, lambda s: s.max_gpu_length_mm)),
        SpecColumn("cooler_height", Msg("Cooler height", "散热器限高"), "mm",
                   _get(CaseSpec, lambda s: s.max_cooler_height_mm)),
        SpecColumn("slots", Msg("Expansion slots", "扩展槽"), "",
                   _get(CaseSpec, lambda s: s.expansion_slots)),
    ),
    "cpu_cooler": (
        SpecColumn("heat", Msg("Rated heat", "额定散热"), "W",
                   _get(CpuCoolerSpec, lambda s: s.rated_heat_w)),
        SpecColumn("height", Msg("Height", "高度"), "mm",
                   _get(CpuCoolerSpec, lambda s: s.height_mm)),
    ),
}
"""The spec columns per category, in the order the picker shows them."""

PRICE_KEY = "price"
PRICE_PER_TFLOP_KEY = "price_per_tflop"

_CHOICES: dict[str, tuple[Msg, Callable[[Part], Iterable[str]]]] = {
    "cpu": (Msg("Socket", "插槽"), lambda p: [p.cpu.socket] if p.cpu.socket else []),
    "motherboard": (Msg("Socket", "插槽"),
                    lambda p: [p.motherboard.socket] if p.motherboard.socket else []),
    "cpu_cooler": (Msg("Socket", "插槽"), lambda p: p.cooler.sockets),
    "case": (Msg("Board size", "主板尺寸"), lambda p: p.case.board_form_factors),
    "memory": (Msg("Type", "类型"),
               lambda p: [p.memory.memory_type] if p.memory.memory_type else []),
    "gpu": (Msg("Cooling", "散热"), lambda p: [p.gpu.cooling] if p.gpu.cooling else []),
    "psu": (Msg("Standard", "规范"), lambda p: [p.psu.atx_version] if p.psu.atx_version else []),
}


def choice_label(category: str) -> Msg | None:
    """The name of the one text spec a category filters by (socket, board size…)."""
    entry = _CHOICES.get(category)
    return entry[0] if entry else None


def choice_values(parts: Iterable[Part], category: str) -> list[str]:
    """The values that text spec takes among ``parts``, sorted."""
    entry = _CHOICES.get(category)
    if entry is None:
        return []
    return sorted({v for p in parts if p.category == category for v in entry[1](p)})


def has_choice(part: Part, value: str) -> bool:
    entry = _CHOICES.get(part.category)
    return entry is not None and value in entry[1](part)


PriceOf = Callable[[Part], Decimal | None]


def column(category: str, key: str) -> SpecColumn | None:
    return next((c for c in COLUMNS.get(category, ()) if c.key == key), None)


def sort_value(part: Part, key: str, price_of: PriceOf) -> float | None:
    """The number a sort key means for ``part``: a spec column, the price, or price per dense
    FP16 tensor TFLOP (GPUs)."""
    if key == PRICE_KEY:
        price = price_of(part)
        return None if price is None else float(price)
    if key == PRICE_PER_TFLOP_KEY:
        price = price_of(part)
        flops = part.gpu.fp16_tensor_flops if isinstance(part.specs, GpuSpec) else None
        return None if price is None or not flops else float(price) / (flops / TERA)
    col = column(part.category, key)
    return col.value(part) if col else None


@dataclass(frozen=True)
class PartQuery:
    """What the picker asks for. ``range_key`` with ``minimum``/``maximum`` (display units)
    filters by one number; ``choice`` by the category's text spec; ``sort_key`` orders the
    result (unknown values last) with ``descending``."""

    category: str
    text: str = ""
    choice: str | None = None
    range_key: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    sort_key: str | None = None
    descending: bool = False


def find_parts(parts: Iterable[Part], query: PartQuery, price_of: PriceOf,
               lang: str = "en") -> list[Part]:
    """Parts of ``query.category`` that match the text, choice and range, sorted."""
    out = []
    for part in parts:
        if part.category != query.category or not matches(part, query.text, lang):
            continue
        if query.choice and not has_choice(part, query.choice):
            continue
        if query.range_key and (query.minimum is not None or query.maximum is not None):
            v = sort_value(part, query.range_key, price_of)
            if v is None or (query.minimum is not None and v < query.minimum) or (
                    query.maximum is not None and v > query.maximum):
                continue
        out.append(part)
    if query.sort_key:
        key = query.sort_key
        known = [p for p in out if sort_value(p, key, price_of) is not None]
        unknown = [p for p in out if sort_value(p, key, price_of) is None]
        known.sort(key=lambda p: sort_value(p, key, price_of) or 0.0, reverse=query.descending)
        out = known + unknown
    return out
