"""Requirement breakdowns as chart data, shared by the Wizard chart and the PDF.

Charts are drawn twice (QPainter on screen, reportlab in the PDF) from the same numbers, so the
two never disagree: this module decides which items stack into which bar, in the plan's order,
with the plan's own labels (``plan_output.LABELS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from torchrig.builds.capabilities import Capabilities
from torchrig.i18n import Msg
from torchrig.planning.plan_output import LABELS
from torchrig.planning.requirements import Requirements

GROUPS: tuple[tuple[str, Msg, str, str, str], ...] = (
    # (group, title, Requirements section, unit, Capabilities attribute for the capacity)
    ("vram", Msg("VRAM per GPU", "单卡显存"), "vram_per_gpu", "B", "vram_per_gpu_bytes"),
    ("ram", Msg("System RAM", "系统内存"), "system_ram", "B", "ram_bytes"),
    ("storage", Msg("Storage", "存储"), "storage", "B", "storage_bytes"),
    ("cpu", Msg("CPU cores", "CPU 核心"), "cpu", "cores", "cpu_cores"),
)

NOT_SLICES = frozenset({"total", "read_rate_bps", "cores_needed"})
"""Items that are not a slice of their section's stacked bar (a total, a rate)."""


@dataclass(frozen=True)
class Segment:
    key: str
    label: Msg
    amount: float


@dataclass(frozen=True)
class Bar:
    """One stacked bar. ``capacity`` is what the subject offers (a marker), when known;
    ``unknown`` lists the items the plan could not size."""

    group: str
    title: Msg
    unit: str  # "B" or "cores"
    segments: tuple[Segment, ...]
    capacity: float | None
    unknown: tuple[Msg, ...] = ()

    @property
    def total(self) -> float:
        return sum(s.amount for s in self.segments)


def _label(key: str) -> Msg:
    return LABELS.get(key, Msg(key, key))


def requirement_bars(req: Requirements, caps: Capabilities | None = None) -> list[Bar]:
    """VRAM, RAM, storage and CPU bars from a plan; zero items are left out."""
    bars = []
    for group, title, section, unit, capacity_attr in GROUPS:
        items = getattr(req, section)
        segments = tuple(Segment(key, _label(key), float(item.value))
                         for key, item in items.items()
                         if key not in NOT_SLICES and item.value is not None and item.value > 0)
        if not segments:
            continue
        unknown = tuple(_label(key) for key, item in items.items()
                        if key not in NOT_SLICES and item.value is None)
        capacity = getattr(caps, capacity_attr) if caps is not None else None
        bars.append(Bar(group, title, unit, segments,
                        float(capacity) if capacity is not None else None, unknown))
    return bars
