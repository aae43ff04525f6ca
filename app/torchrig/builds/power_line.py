"""The Build page's power line: sustained draw, supply capacity, headroom and the wall draw,
from the functions the power and wall checks use (one formula for the line and the findings).
"""

from __future__ import annotations

from dataclasses import dataclass

from torchrig.builds.build import Build
from torchrig.builds.check_node import Node
from torchrig.builds.power_checks import estimate_power, psu_capacity_w
from torchrig.builds.wall_checks import Region, WallDraw, region, wall_draw
from torchrig.catalog.model import Catalog


@dataclass(frozen=True)
class PowerLine:
    """One node's power. ``sustained_w`` is None when no CPU or GPU power is known,
    ``capacity_w`` when no supply is; ``unknown`` names parts whose power was not counted."""

    sustained_w: float | None
    capacity_w: float | None
    unknown: tuple[str, ...]
    region: Region | None
    wall: WallDraw | None

    @property
    def headroom_w(self) -> float | None:
        if self.sustained_w is None or self.capacity_w is None:
            return None
        return self.capacity_w - self.sustained_w

    @property
    def headroom_share(self) -> float | None:
        """Headroom as a share of the supply capacity (negative when the draw is above it)."""
        headroom = self.headroom_w
        if headroom is None or not self.capacity_w:
            return None
        return headroom / self.capacity_w


def power_line(build: Build, catalog: Catalog, region_code: str | None) -> PowerLine:
    node = Node(build, catalog)
    est = estimate_power(node)
    known = est.cpu_w + est.gpu_w > 0
    reg = region(region_code)
    return PowerLine(
        sustained_w=est.sustained_w if known else None, capacity_w=psu_capacity_w(node),
        unknown=est.unknown, region=reg,
        wall=wall_draw(node, reg) if reg is not None and known else None)
