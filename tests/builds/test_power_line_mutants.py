"""The Build page's power line (builds/power_line.py), as mutation testing (scripts/mutate.py
builds.power_line) found it unpinned: every field for a node with a CPU, a GPU and two
supplies in each region, a node whose power is unknown, a node without a supply, the headroom
and its share (negative when the draw is above the capacity, unknown with no capacity).
Figures are the catalog's (docs/hardware-sources.md sec. 6.1 and 8): i9-13900K 253 W maximum
turbo power, RTX 4090 450 W board power, 150 W for the rest of the system, Seasonic Focus
GX-1000/-850 V4 1,000 W / 850 W 80 PLUS Gold (Gold's lowest figure: 87 % at 115 V, 89 % at
230 V EU).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.power_line import PowerLine, power_line
from torchrig.builds.wall_checks import REGIONS
from torchrig.catalog import Catalog, load_catalog

CPU, GPU = "intel-core-i9-13900k", "nvidia-rtx-4090"
PSU_1000, PSU_850 = "seasonic-focus-gx-1000-v4", "seasonic-focus-gx-850-v4"


def _build(*lines: tuple[str, int]) -> Build:
    return Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])


@pytest.mark.parametrize(("code", "efficiency"), [("cn", 0.89), ("eu", 0.89), ("us", 0.87)])
def test_every_field_with_a_region(code: str, efficiency: float) -> None:
    line = power_line(_build((CPU, 1), (GPU, 1), (PSU_1000, 1)), load_catalog(), code)
    # 253 + 450 + 150 = 853 W sustained; 1,000 W capacity; 147 W headroom = 14.7 %.
    assert line.sustained_w == pytest.approx(853.0)
    assert line.capacity_w == pytest.approx(1000.0)
    assert line.unknown == ()
    assert line.region is REGIONS[code]
    assert line.wall is not None
    assert line.wall.dc_w == pytest.approx(853.0)
    assert line.wall.efficiency == pytest.approx(efficiency)
    assert line.wall.wall_w == pytest.approx(853.0 / efficiency)
    assert line.headroom_w == pytest.approx(147.0)
    assert line.headroom_share == pytest.approx(0.147)


def test_no_region_no_wall_draw() -> None:
    line = power_line(_build((CPU, 1), (GPU, 1), (PSU_1000, 1)), load_catalog(), None)
    assert line.region is None and line.wall is None
    assert line.sustained_w == pytest.approx(853.0)
    assert power_line(_build((CPU, 1), (PSU_1000, 1)), load_catalog(), "xx").region is None


def test_two_supplies_and_a_draw_above_them() -> None:
    # Two GPUs: 253 + 2 x 450 + 150 = 1,303 W on one 850 W supply: -453 W, -453/850.
    line = power_line(_build((CPU, 1), (GPU, 2), (PSU_850, 1)), load_catalog(), "us")
    assert line.headroom_w == pytest.approx(-453.0)
    assert line.headroom_share == pytest.approx(-453.0 / 850.0)
    # Two supplies of 850 W: 1,700 W, 397 W headroom.
    two = power_line(_build((CPU, 1), (GPU, 2), (PSU_850, 2)), load_catalog(), "us")
    assert two.capacity_w == pytest.approx(1700.0)
    assert two.headroom_w == pytest.approx(397.0)


def test_only_a_cpu_counts_as_known_power() -> None:
    # 253 W + 150 W: a CPU alone is known power (the "or" of CPU and GPU).
    line = power_line(_build((CPU, 1), (PSU_1000, 1)), load_catalog(), "cn")
    assert line.sustained_w == pytest.approx(403.0)
    assert line.wall is not None and line.wall.dc_w == pytest.approx(403.0)
    gpu_only = power_line(_build((GPU, 1), (PSU_1000, 1)), load_catalog(), "cn")
    assert gpu_only.sustained_w == pytest.approx(600.0)


def test_unknown_power_and_no_supply() -> None:
    cat = load_catalog()
    gpu = cat.get(GPU)
    parts = dict(cat.parts)
    parts["gpu-x"] = replace(gpu, id="gpu-x", specs=replace(gpu.specs, tdp_w=None))
    mine = Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)
    line = power_line(_build(("gpu-x", 1)), mine, "cn")
    assert line.sustained_w is None and line.capacity_w is None and line.wall is None
    assert line.unknown == (gpu.name,)
    assert line.headroom_w is None and line.headroom_share is None
    no_supply = power_line(_build((CPU, 1)), cat, "cn")
    assert no_supply.capacity_w is None and no_supply.headroom_w is None


def test_the_headroom_properties_alone() -> None:
    assert PowerLine(500.0, 800.0, (), None, None).headroom_w == 300.0
    assert PowerLine(500.0, 800.0, (), None, None).headroom_share == 300.0 / 800.0
    assert PowerLine(None, 800.0, (), None, None).headroom_w is None
    assert PowerLine(500.0, None, (), None, None).headroom_share is None
    # A capacity of 0 W has no share (no division by zero).
    assert PowerLine(0.0, 0.0, (), None, None).headroom_share is None
