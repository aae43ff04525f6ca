"""The wall-circuit check (builds/wall_checks.py), hand-computed per region.

Figures used below: Core i9-13900K 253 W maximum turbo power, RTX 4090 450 W board power,
150 W for the rest of the system (power_checks); Corsair RM1000x is 80 PLUS Gold and Corsair
RM850x (2021) has no 80 PLUS level in the catalog. 80 PLUS Gold's lowest guaranteed efficiency
is 87 % at 115 V (internal) and 89 % at 230 V (EU internal): 87/90/87 and 90/92/89 at 20/50/100 %
load (docs/hardware-sources.md sec. 8).
"""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.compat import check_build
from torchrig.builds.wall_checks import (
    PROGRAMME_115V,
    PROGRAMME_230V_EU,
    REGION_CODES,
    REGIONS,
    psu_efficiency,
    wall_draw,
)
from torchrig.catalog import load_catalog
from torchrig.findings import Finding, Severity

CPU = ("intel-core-i9-13900k", 1)
GOLD = "corsair-rm1000x"
UNRATED = "corsair-rm850x-2021"


def _build(*lines: tuple[str, int]) -> Build:
    return Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])


def _wall(build: Build, region: str) -> list[Finding]:
    return [f for f in check_build(build, load_catalog(), region=region)
            if f.code.startswith("wall.")]


def test_outlet_ratings_per_region() -> None:
    # cn: 220 V x 10 A and x 16 A; us: 120 V x 15 A x 80 % (NEC), x 20 A x 80 %; eu 230 V x 16 A.
    watts = {code: [REGIONS[code].continuous_w(o) for o in REGIONS[code].outlets]
             for code in REGION_CODES}
    assert watts == {"cn": [2200.0, 3520.0], "us": [1440.0, 1920.0], "eu": [3680.0]}


def test_80_plus_levels_read_from_the_catalog_text() -> None:
    assert psu_efficiency("80 PLUS Gold", PROGRAMME_115V) == 0.87
    assert psu_efficiency("80 PLUS Gold", PROGRAMME_230V_EU) == 0.89
    assert psu_efficiency("80 plus titanium", PROGRAMME_115V) == 0.90
    assert psu_efficiency("80 PLUS", PROGRAMME_230V_EU) == 0.82
    assert psu_efficiency("Cybenetics Gold", PROGRAMME_115V) is None
    assert psu_efficiency(None, PROGRAMME_115V) is None


def test_us_one_gpu_on_a_15_a_outlet_passes() -> None:
    # 253 + 450 + 150 = 853 W DC; / 0.87 = 980.5 W <= 1440 W.
    build = _build(CPU, ("nvidia-rtx-4090", 1), (GOLD, 1))
    draw = wall_draw(Node(build, load_catalog()), REGIONS["us"])
    assert draw is not None and draw.wall_w == pytest.approx(853 / 0.87)
    assert _wall(build, "us") == []


def test_us_two_gpus_two_supplies_need_a_20_a_circuit() -> None:
    # Two RM1000x (Gold): 253 + 2 x 450 + 150 = 1303 W DC; / 0.87 = 1497.7 W > 1440 W (15 A x
    # 120 V x 80 %) but <= 1920 W (20 A). Power limit to fit 1440 W: (1497.7 - 1440) x 0.87 =
    # 1303 - 1252.8 = 50.2 W over both GPUs, 25 W each.
    build = _build(CPU, ("nvidia-rtx-4090", 2), (GOLD, 2))
    [finding] = _wall(build, "us")
    assert finding.code == "wall.outlet" and finding.severity is Severity.WARNING
    assert finding.numbers["wall_w"] == pytest.approx(1303 / 0.87)
    assert finding.numbers["amps"] == pytest.approx(1303 / 0.87 / 120)
    assert finding.numbers["continuous_w"] == 1440 and finding.numbers["needed_outlet_a"] == 20
    assert "1498 W" in finding.detail.en and "1498 W" in finding.detail.zh
    assert "20 A" in finding.fix.en and "25 W" in finding.fix.en and "25 W" in finding.fix.zh


def test_us_four_gpus_exceed_any_one_circuit() -> None:
    # 253 + 4 x 450 + 150 = 2203 W DC; / 0.87 = 2532.2 W > 1920 W.
    build = _build(CPU, ("nvidia-rtx-4090", 4), (GOLD, 3))
    [finding] = _wall(build, "us")
    assert finding.code == "wall.circuit"
    assert finding.numbers["largest_outlet_w"] == 1920
    assert "second circuit" in finding.fix.en


def test_cn_two_gpus_fit_a_10_a_outlet() -> None:
    # 1303 W / 0.89 = 1464.0 W <= 2200 W (220 V x 10 A).
    assert _wall(_build(CPU, ("nvidia-rtx-4090", 2), (GOLD, 2)), "cn") == []


def test_cn_four_gpus_need_a_16_a_outlet() -> None:
    # 2203 W / 0.89 = 2475.3 W > 2200 W, <= 3520 W (220 V x 16 A).
    [finding] = _wall(_build(CPU, ("nvidia-rtx-4090", 4), (GOLD, 3)), "cn")
    assert finding.code == "wall.outlet" and finding.numbers["needed_outlet_a"] == 16
    assert finding.numbers["wall_w"] == pytest.approx(2203 / 0.89)
    assert "16 A" in finding.fix.en and "16 A" in finding.fix.zh


def test_cn_and_eu_eight_gpus() -> None:
    # 253 + 8 x 450 + 150 = 4003 W; / 0.89 = 4497.8 W: over 3520 W (cn 16 A) and 3680 W (eu).
    build = _build(CPU, ("nvidia-rtx-4090", 8), (GOLD, 5))
    assert [f.code for f in _wall(build, "cn")] == ["wall.circuit"]
    assert [f.code for f in _wall(build, "eu")] == ["wall.circuit"]
    # Four GPUs, 2475.3 W, fit the one 16 A Schuko outlet (3680 W).
    assert _wall(_build(CPU, ("nvidia-rtx-4090", 4), (GOLD, 3)), "eu") == []


def test_a_supply_without_an_80_plus_level_is_taken_at_80_percent() -> None:
    # One Gold and one unrated supply share the load: the unrated one's 80 % bounds it.
    # 1303 W / 0.80 = 1628.75 W at the wall.
    build = _build(CPU, ("nvidia-rtx-4090", 2), (GOLD, 1), (UNRATED, 1))
    draw = wall_draw(Node(build, load_catalog()), REGIONS["us"])
    assert draw is not None and draw.efficiency_assumed and draw.efficiency == 0.80
    [finding] = _wall(build, "us")
    assert finding.numbers["wall_w"] == pytest.approx(1628.75)
    assert "80%" in finding.detail.en


def test_no_region_no_wall_check() -> None:
    build = _build(CPU, ("nvidia-rtx-4090", 8), (GOLD, 5))
    assert not [f for f in check_build(build, load_catalog()) if f.code.startswith("wall.")]


def test_cli_region_choices_are_the_regions() -> None:
    from torchrig.cli import build_parser

    parser = build_parser()
    check = parser._subparsers._group_actions[0].choices["check"]  # type: ignore[union-attr]
    region = next(a for a in check._actions if a.dest == "region")
    assert tuple(region.choices) == REGION_CODES
