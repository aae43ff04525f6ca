"""Wall-circuit facts that mutation testing (scripts/mutate.py builds.wall_checks) found
unpinned: a draw exactly at an outlet's continuous rating (allowed), one watt over, the GPU
power-limit advice exactly at a card's board power (not offered) and across two different
cards, an unknown card, every number of both findings, the detail's wording with and without a
larger outlet, and the 80 PLUS levels as the catalog writes them. The rules and figures are
builds/wall_checks.py's module doc and docs/hardware-sources.md sec. 8; loads are made with
catalog parts whose power figure is changed in the test, so each sum is exact:
a supply with no 80 PLUS level counts at 80 %, 150 W is the rest of the system.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.wall_checks import (
    PROGRAMME_115V,
    PROGRAMME_230V_EU,
    REGIONS,
    UNRATED_EFFICIENCY,
    psu_efficiency,
    region,
    wall_checks,
    wall_draw,
)
from torchrig.catalog import Catalog, load_catalog

CPU, GPU, L40S = "intel-core-i9-13900k", "nvidia-rtx-4090", "nvidia-l40s"
GOLD, UNRATED = "corsair-rm1000x", "corsair-rm850x-2021"


def _cat(cpu_w: float | None = None, gpu_w: float | None = 450.0) -> Catalog:
    """The catalog plus "cpu-x" drawing ``cpu_w`` and "gpu-x" drawing ``gpu_w``."""
    cat = load_catalog()
    cpu, gpu = cat.get(CPU), cat.get(GPU)
    parts = dict(cat.parts)
    parts["cpu-x"] = replace(cpu, id="cpu-x", specs=replace(
        cpu.specs, max_turbo_power_w=cpu_w, tdp_w=cpu_w))
    parts["gpu-x"] = replace(gpu, id="gpu-x", name="GPU X", specs=replace(gpu.specs,
                                                                        tdp_w=gpu_w))
    return Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)


def _node(cat: Catalog, *lines: tuple[str, int]) -> Node:
    return Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat)


def test_regions_by_code() -> None:
    assert region("cn") is REGIONS["cn"] and region("us") is REGIONS["us"]
    assert region(None) is None and region("") is None and region("uk") is None
    assert [r.efficiency_programme for r in REGIONS.values()] == [
        PROGRAMME_230V_EU, PROGRAMME_115V, PROGRAMME_230V_EU]
    assert [r.volts for r in REGIONS.values()] == [220.0, 120.0, 230.0]


@pytest.mark.parametrize(("level", "at_115", "at_230"), [
    ("80 PLUS", 0.80, 0.82), ("80 PLUS Bronze", 0.82, 0.85), ("80 PLUS Silver", 0.85, 0.87),
    ("80 PLUS Gold", 0.87, 0.89), ("80 PLUS Platinum", 0.89, 0.90),
    ("80 PLUS Titanium", 0.90, 0.90), ("  80plus gold ", 0.87, 0.89),
    ("80  PLUS   GOLD", 0.87, 0.89)])
def test_every_80_plus_level(level: str, at_115: float, at_230: float) -> None:
    assert psu_efficiency(level, PROGRAMME_115V) == at_115
    assert psu_efficiency(level, PROGRAMME_230V_EU) == at_230


@pytest.mark.parametrize("level", ["", "Gold", "80 PLUS Gold+", "80 PLUS Diamond",
                                   "x 80 PLUS Gold"])
def test_levels_torchrig_does_not_know(level: str) -> None:
    assert psu_efficiency(level, PROGRAMME_115V) is None


def test_the_wall_draw_and_its_efficiency() -> None:
    cat = _cat(cpu_w=500.0)
    # 500 + 450 + 150 = 1,100 W DC.
    gold = wall_draw(_node(cat, ("cpu-x", 1), ("gpu-x", 1), (GOLD, 2)), REGIONS["us"])
    assert gold is not None
    assert (gold.dc_w, gold.efficiency, gold.efficiency_assumed, gold.unknown) == (
        1100.0, 0.87, False, ())
    assert gold.wall_w == pytest.approx(1100.0 / 0.87)
    # A supply without a level among two Gold ones: 80 % for the lot; no supply at all too.
    mixed = wall_draw(_node(cat, ("cpu-x", 1), (GOLD, 2), (UNRATED, 1)), REGIONS["cn"])
    assert mixed is not None and mixed.efficiency == UNRATED_EFFICIENCY == 0.80
    assert mixed.efficiency_assumed
    bare = wall_draw(_node(cat, ("cpu-x", 1)), REGIONS["eu"])
    assert bare is not None and bare.efficiency == 0.80 and bare.efficiency_assumed
    # No known CPU or GPU power: no wall draw at all.
    assert wall_draw(_node(_cat(cpu_w=None, gpu_w=None), ("cpu-x", 1), ("gpu-x", 1)),
                     REGIONS["us"]) is None


def test_a_draw_exactly_at_the_outlets_rating_is_allowed() -> None:
    # cn, 10 A x 220 V = 2,200 W; unrated supply 80 %: DC 1,760 W = 1,610 W CPU + 150 W.
    # 1,760 / 0.8 = 2,200 W exactly: allowed. One watt more: 2,201.25 W, a finding.
    assert wall_checks(_node(_cat(cpu_w=1610.0), ("cpu-x", 1), (UNRATED, 1)), "cn") == []
    [over] = wall_checks(_node(_cat(cpu_w=1611.0), ("cpu-x", 1), (UNRATED, 1)), "cn")
    assert over.code == "wall.outlet" and over.numbers["needed_outlet_a"] == 16
    # us, 15 A x 120 V x 80 % = 1,440 W: DC 1,152 W / 0.8 = 1,440 W exactly.
    assert wall_checks(_node(_cat(cpu_w=1002.0), ("cpu-x", 1), (UNRATED, 1)), "us") == []
    assert wall_checks(_node(_cat(cpu_w=1002.0), ("cpu-x", 1), (UNRATED, 1)), None) == []


def test_the_20_a_circuit_exactly_at_its_rating() -> None:
    # us 20 A: 1,920 W = DC 1,536 W at 80 %: 1,386 W CPU + 150 W. Outlet advice, not circuit.
    [finding] = wall_checks(_node(_cat(cpu_w=1386.0), ("cpu-x", 1), (UNRATED, 1)), "us")
    assert finding.code == "wall.outlet" and finding.numbers["needed_outlet_a"] == 20


def test_every_number_of_the_outlet_finding() -> None:
    # us: 253 + 2 x 450 + 150 = 1,303 W DC on two Gold supplies, / 0.87 = 1,497.7 W > 1,440 W.
    node = _node(load_catalog(), (CPU, 1), (GPU, 2), (GOLD, 2))
    [finding] = wall_checks(node, "us")
    wall = 1303 / 0.87
    assert finding.numbers == pytest.approx({
        "dc_w": 1303.0, "efficiency": 0.87, "wall_w": wall, "volts": 120.0,
        "amps": wall / 120, "outlet_a": 15.0, "continuous_w": 1440.0, "needed_outlet_a": 20.0})
    # Over the 15 A outlet by (1,497.7 - 1,440) x 0.87 = 1,303 - 1,252.8 = 50.2 W DC: 25 W
    # off each of the two GPUs.
    assert finding.fix.en == ("Use a 20 A circuit (NEMA 5-20) (1920 W continuous) with nothing "
                              "else on its circuit; or power-limit each of the 2 GPUs by at "
                              "least 25 W (nvidia-smi -pl).")
    assert finding.detail.en == (
        "Sustained draw 1303 W / efficiency 87% (the 80 PLUS minimum, 115 V internal) = "
        "1498 W at the wall, 12.5 A at 120 V; 15 A outlet (NEMA 5-15) carries 1440 W "
        "continuously (United States).")
    assert finding.source == REGIONS["us"].source


def test_every_number_of_the_circuit_finding() -> None:
    # us: 253 + 4 x 450 + 150 = 2,203 W / 0.87 = 2,532.2 W > 1,920 W (20 A). Over by
    # 2,203 - 1,920 x 0.87 = 2,203 - 1,670.4 = 532.6 W DC: 133 W off each of 4 GPUs.
    node = _node(load_catalog(), (CPU, 1), (GPU, 4), (GOLD, 3))
    [finding] = wall_checks(node, "us")
    wall = 2203 / 0.87
    assert finding.code == "wall.circuit"
    assert finding.numbers == pytest.approx({
        "dc_w": 2203.0, "efficiency": 0.87, "wall_w": wall, "volts": 120.0,
        "amps": wall / 120, "outlet_a": 15.0, "continuous_w": 1440.0,
        "largest_outlet_w": 1920.0})
    assert finding.detail.en == (
        "Sustained draw 2203 W / efficiency 87% (the 80 PLUS minimum, 115 V internal) = "
        "2532 W at the wall, 21.1 A at 120 V; 15 A outlet (NEMA 5-15) carries 1440 W "
        "continuously, 20 A circuit (NEMA 5-20) 1920 W (United States).")
    assert finding.fix.en == (
        "Feed the node from a second circuit (one supply on each, each under 1920 W) or from "
        "a higher-rated circuit an electrician installs; or power-limit each of the 4 GPUs by "
        "at least 133 W (nvidia-smi -pl).")


def test_one_outlet_region_names_no_larger_one() -> None:
    # eu: 253 + 8 x 450 + 150 = 4,003 W / 0.89 = 4,497.8 W > 3,680 W; the only outlet.
    [finding] = wall_checks(_node(load_catalog(), (CPU, 1), (GPU, 8), (GOLD, 5)), "eu")
    assert finding.detail.en.endswith(
        "16 A outlet (Schuko, CEE 7/3) carries 3680 W continuously (European Union).")
    assert "(欧盟)" not in finding.detail.zh and finding.detail.zh.endswith("（欧盟）。")


def test_no_power_limit_advice_when_a_card_cannot_give_that_much() -> None:
    # us, unrated 80 %: DC 1,986 W = 1,386 W CPU + 450 W GPU + 150 W; wall 2,482.5 W over
    # 1,920 W; over by 1,986 - 1,920 x 0.8 = 450 W DC: exactly the card's 450 W, so no cut.
    [at] = wall_checks(_node(_cat(cpu_w=1386.0), ("cpu-x", 1), ("gpu-x", 1), (UNRATED, 1)),
                       "us")
    assert at.code == "wall.circuit" and "power-limit" not in at.fix.en
    assert "限功耗" not in at.fix.zh
    # 1,385 W CPU: over by 449 W, under the card's 450 W: the cut is offered.
    [under] = wall_checks(_node(_cat(cpu_w=1385.0), ("cpu-x", 1), ("gpu-x", 1),
                                (UNRATED, 1)), "us")
    assert under.fix.en.endswith("; or power-limit each of the 1 GPUs by at least 449 W "
                                 "(nvidia-smi -pl).")
    assert "将 1 块 GPU 每块限功耗至少 449 W" in under.fix.zh


def test_the_smallest_card_bounds_the_advice_and_an_unknown_card_blocks_it() -> None:
    cat = _cat(cpu_w=1000.0, gpu_w=300.0)
    l40s = cat.get(L40S).gpu.tdp_w
    assert l40s == 350.0
    # us unrated: DC 1,000 + 300 + 350 + 150 = 1,800 W; over 1,920 x 0.8 = 1,536 W by 264 W,
    # 132 W per GPU, below the smaller card's 300 W: offered.
    [finding] = wall_checks(_node(cat, ("cpu-x", 1), ("gpu-x", 1), (L40S, 1), (UNRATED, 1)),
                            "us")
    assert "each of the 2 GPUs by at least 132 W" in finding.fix.en
    # A card of unknown power counts as 0 W that it could give up: no advice, and the
    # detail names it.
    unknown = _cat(cpu_w=1600.0, gpu_w=None)
    [blocked] = wall_checks(_node(unknown, ("cpu-x", 1), ("gpu-x", 1), (L40S, 1),
                                  (UNRATED, 1)), "us")
    assert "power-limit" not in blocked.fix.en
    assert blocked.detail.en.endswith(" Power of GPU X is unknown and not counted.")
    assert blocked.detail.zh.endswith(" GPU X 的功耗未知，未计入。")


def test_an_unrated_supply_is_said_to_be_assumed() -> None:
    [finding] = wall_checks(_node(_cat(cpu_w=1611.0), ("cpu-x", 1), (UNRATED, 1)), "cn")
    assert ("efficiency 80% (no 80 PLUS level in the catalog: the lowest any level allows)"
            in finding.detail.en)
    assert "80%（目录中无 80 PLUS 等级：按各等级的最低值）" in finding.detail.zh
    assert finding.numbers["efficiency"] == 0.80


def test_the_circuit_finding_word_for_word_in_both_languages() -> None:
    # The same four-GPU US node as above (2,203 W DC, 2,532 W at the wall, 133 W per GPU).
    [finding] = wall_checks(_node(load_catalog(), (CPU, 1), (GPU, 4), (GOLD, 3)), "us")
    assert finding.title.en == "The node draws more than one wall circuit carries"
    assert finding.title.zh == "整机功耗超过单个墙插回路的承载能力"
    assert finding.detail.zh == (
        "持续功耗 2203 W ÷ 效率 87%（80 PLUS 最低效率，115 V 内置电源） = 墙插功耗 2532 W，"
        "120 V 下 21.1 A；15 A 插座（NEMA 5-15）可持续承载 1440 W，20 A 回路（NEMA 5-20） "
        "1920 W（美国）。")
    assert finding.fix.zh == ("用第二个回路供电（每个回路接一个电源，每路低于 1920 W），或由电工"
                              "安装更高额定值的回路；或将 4 块 GPU 每块限功耗至少 133 W"
                              "（nvidia-smi -pl）。")
    assert finding.source == REGIONS["us"].source


def test_the_circuit_finding_without_the_power_limit_advice() -> None:
    # The 1,386 W CPU + 450 W card node above: over by exactly the card's 450 W, no cut.
    [finding] = wall_checks(_node(_cat(cpu_w=1386.0), ("cpu-x", 1), ("gpu-x", 1),
                                  (UNRATED, 1)), "us")
    assert finding.fix.en == ("Feed the node from a second circuit (one supply on each, each "
                              "under 1920 W) or from a higher-rated circuit an electrician "
                              "installs.")
    assert finding.fix.zh == ("用第二个回路供电（每个回路接一个电源，每路低于 1920 W），或由电工"
                              "安装更高额定值的回路。")
    assert finding.detail.en.endswith(" (United States).")
    assert finding.detail.zh.endswith("（美国）。")


def test_the_outlet_finding_word_for_word_in_chinese() -> None:
    [finding] = wall_checks(_node(load_catalog(), (CPU, 1), (GPU, 2), (GOLD, 2)), "us")
    assert finding.title.en == "The node draws more than a 15 A outlet carries"
    assert finding.title.zh == "整机功耗超过 15 A 插座的承载能力"
    assert finding.detail.zh == (
        "持续功耗 1303 W ÷ 效率 87%（80 PLUS 最低效率，115 V 内置电源） = 墙插功耗 1498 W，"
        "120 V 下 12.5 A；15 A 插座（NEMA 5-15）可持续承载 1440 W（美国）。")
    assert finding.fix.zh == ("改用20 A 回路（NEMA 5-20）（可持续 1920 W），且该回路不接其他负载"
                              "；或将 2 块 GPU 每块限功耗至少 25 W（nvidia-smi -pl）。")


def test_an_outlet_finding_without_the_power_limit_advice() -> None:
    # cn, CPU only (1,611 W + 150 W over 2,200 W at 80 %): no GPU to power-limit.
    [finding] = wall_checks(_node(_cat(cpu_w=1611.0), ("cpu-x", 1), (UNRATED, 1)), "cn")
    assert finding.fix.en == ("Use a 16 A outlet (GB/T 2099.1, GB 1002) (3520 W continuous) "
                              "with nothing else on its circuit.")
    assert finding.fix.zh == ("改用16 A 插座（GB/T 2099.1、GB 1002）（可持续 3520 W），且该回路"
                              "不接其他负载。")
    assert finding.detail.en.endswith(" (mainland China).")
    assert finding.detail.zh.endswith("（中国大陆）。")


def test_an_unknown_card_blocks_even_a_tiny_cut() -> None:
    # us unrated: 1,036.5 W CPU + 350 W L40S + 0 W counted for the unknown card + 150 W =
    # 1,536.5 W DC, 1,920.625 W at the wall, over 1,920 W by 0.5 W DC, 0.25 W per GPU. The
    # unknown card could give up nothing we know of: still no advice.
    cat = _cat(cpu_w=1036.5, gpu_w=None)
    [finding] = wall_checks(_node(cat, ("cpu-x", 1), ("gpu-x", 1), (L40S, 1), (UNRATED, 1)),
                            "us")
    assert finding.code == "wall.circuit" and "power-limit" not in finding.fix.en
