"""The power model's edges, found unpinned by mutation testing (scripts/mutate.py
builds.power_checks): two sockets, two supplies, the ATX 3.x excursion thresholds, each
comparison at equality, unknown power, the vendor minimum across GPUs and connectors across
supplies. The rules and figures are docs/hardware-sources.md sec. 6.1 (ATX 3.0 PSU design
guide: 200% for 100 µs above 450 W with a 12V-2x6 connector, else 150%; GPUs 3x for 100 µs;
150 W for the rest; x1.3 without an ATX 3.x rating). Part figures are the catalog's (i9-13900K
253 W maximum turbo power, RTX 4090 450 W and 850 W system minimum, RTX 5090 575 W and
1,000 W, EPYC 9554 360 W TDP and no maximum, L40S 350 W); supplies with other ratings are
catalog supplies with one field changed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from catalog_variants import catalog_with as _cat

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.power_checks import _excursion, estimate_power, power_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg


def _node(cat: Catalog, *lines: tuple[str, int]) -> Node:
    return Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat)


def _by_code(findings: list[Finding]) -> dict[str, Finding]:
    return {f.code: f for f in findings}


def _psu(watts: float, base: str = "nfortec-sagitta-x2-1000w", **changes: Any) -> Catalog:
    return _cat(**{"test-psu": (base, {"wattage_w": watts, **changes})})


# --- the estimate ---------------------------------------------------------------------------


def test_two_sockets_count_each_cpu_and_each_gpu() -> None:
    node = _node(load_catalog(), ("amd-epyc-9554", 2), ("nvidia-l40s", 4))
    est = estimate_power(node)
    # EPYC 9554 has no maximum in the catalog: its 360 W TDP, twice. 4 x 350 W L40S.
    assert (est.cpu_w, est.gpu_w, est.rest_w) == (720.0, 1400.0, 150.0)
    assert est.sustained_w == 720 + 1400 + 150  # 2,270 W
    assert est.peak_w == 720 + 150 + 3 * 1400  # 5,070 W
    assert est.unknown == ()


def test_the_maximum_turbo_power_wins_over_the_tdp() -> None:
    est = estimate_power(_node(load_catalog(), ("intel-core-i9-13900k", 1)))
    assert est.cpu_w == 253.0  # not its 125 W TDP


def test_unknown_power_is_named_once_and_not_counted() -> None:
    # The RTX 5070 Ti's board power is in the catalog (300 W): a copy without it.
    cat = _cat(**{"intel-test-cpu": ("intel-core-i5-12400f",
                                     {"tdp_w": None, "max_turbo_power_w": None}),
                  "nvidia-test-gpu": ("nvidia-rtx-5070-ti", {"tdp_w": None})})
    node = _node(cat, ("intel-test-cpu", 2), ("nvidia-test-gpu", 2), ("nvidia-rtx-4090", 1))
    est = estimate_power(node)
    assert (est.cpu_w, est.gpu_w) == (0.0, 450.0)
    assert est.unknown == ("Core i5-12400F", "GeForce RTX 5070 Ti")


def test_unknown_power_is_said_in_the_finding() -> None:
    cat = _cat(**{"test-psu": ("corsair-rm1000x", {"wattage_w": 500.0}),
                  "nvidia-test-gpu": ("nvidia-rtx-5070-ti", {"tdp_w": None})})
    node = _node(cat, ("nvidia-test-gpu", 1), ("nvidia-rtx-4090", 1), ("test-psu", 1))
    # 450 + 150 = 600 W sustained > 500 W: a blocker that says what it could not count.
    psu = _by_code(power_checks(node))["compat.psu"]
    assert psu.severity is Severity.BLOCKER and psu.numbers["load_w"] == 600
    assert "GeForce RTX 5070 Ti is unknown and not counted" in psu.detail.en
    assert "GeForce RTX 5070 Ti 的功耗未知" in psu.detail.zh


def test_no_known_cpu_or_gpu_power_means_no_power_check() -> None:
    cat = _cat(**{"test-psu": ("corsair-rm1000x", {"wattage_w": 100.0}),
                  "nvidia-test-gpu": ("nvidia-rtx-5070-ti", {"tdp_w": None})})
    # Only the 150 W rest-of-system allowance would be left, above a 100 W supply: the check
    # says nothing rather than judge a build on the allowance alone.
    assert power_checks(_node(cat, ("nvidia-test-gpu", 1), ("test-psu", 1))) == []
    assert power_checks(_node(load_catalog(), ("nvidia-rtx-4090", 1))) == []  # no supply


# --- sustained draw and transient headroom ---------------------------------------------------

# i9-13900K + RTX 4090: 253 + 450 + 150 = 853 W sustained, peak 253 + 150 + 3 x 450 = 1,753 W.
DESK = (("intel-core-i9-13900k", 1), ("nvidia-rtx-4090", 1))


def test_a_supply_equal_to_the_sustained_draw_is_no_blocker() -> None:
    at = _by_code(power_checks(_node(_psu(853.0), *DESK, ("test-psu", 1))))
    assert "compat.psu" not in at
    # ATX 3.1, above 450 W, one 12V-2x6: 2 x 853 = 1,706 W < 1,753 W, so it needs
    # 1,753 / 2 = 876.5 W.
    assert at["compat.psu_headroom"].numbers["required_w"] == 876.5
    assert "rated for 200% = 1706 W for 100 µs" in at["compat.psu_headroom"].detail.en
    below = _by_code(power_checks(_node(_psu(852.0), *DESK, ("test-psu", 1))))
    assert below["compat.psu"].severity is Severity.BLOCKER
    assert below["compat.psu"].numbers["psu_w"] == 852 and "compat.psu_headroom" not in below


def test_an_excursion_rating_exactly_at_the_peak_passes() -> None:
    # 876.5 W x 200% = 1,753 W = the peak.
    assert "compat.psu_headroom" not in _by_code(
        power_checks(_node(_psu(876.5), *DESK, ("test-psu", 1))))
    assert "compat.psu_headroom" in _by_code(
        power_checks(_node(_psu(876.0), *DESK, ("test-psu", 1))))


def test_without_an_excursion_rating_the_supply_needs_x13() -> None:
    need = 853 * 1.3  # 1,108.9 W
    legacy = _by_code(power_checks(_node(_psu(1100.0, "corsair-rm1000x"), *DESK,
                                         ("test-psu", 1))))
    headroom = legacy["compat.psu_headroom"]
    assert headroom.severity is Severity.WARNING
    assert headroom.numbers["required_w"] == pytest.approx(need)
    assert "no ATX 3.x excursion rating" in headroom.detail.en and "x1.3" in headroom.detail.en
    assert "compat.psu_headroom" not in _by_code(
        power_checks(_node(_psu(need, "corsair-rm1000x"), *DESK, ("test-psu", 1))))


# --- two supplies -----------------------------------------------------------------------------

# i9-13900K + 2 x RTX 5090: 253 + 1,150 + 150 = 1,553 W sustained; peak 253 + 150 + 3 x 1,150
# = 3,853 W. x1.3 would ask 2,018.9 W.
TWO_5090 = (("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 2))


def test_two_supplies_of_one_kind_add_up_and_keep_their_excursion_rating() -> None:
    node = _node(load_catalog(), *TWO_5090, ("nfortec-sagitta-x2-1000w", 2))
    # 2 x 1,000 W, ATX 3.1 with 12V-2x6: 2 x 2,000 = 4,000 W for 100 µs >= 3,853 W.
    found = _by_code(power_checks(node))
    assert "compat.psu" not in found and "compat.psu_headroom" not in found


def test_mixed_supplies_fall_back_to_the_x13_margin() -> None:
    node = _node(load_catalog(), *TWO_5090, ("nfortec-sagitta-x2-1000w", 1),
                 ("corsair-rm1000x", 1))
    # 1,000 + 1,000 = 2,000 W, one without an ATX 3.x rating: the pair is sized by x1.3,
    # 1,553 x 1.3 = 2,018.9 W > 2,000 W.
    headroom = _by_code(power_checks(node))["compat.psu_headroom"]
    assert headroom.numbers["psu_w"] == 2000
    assert headroom.numbers["required_w"] == pytest.approx(1553 * 1.3)
    assert headroom.detail.en.startswith("Sagitta X2 1000W + RM1000x: 2000 W with no ATX 3.x")


def test_a_smaller_pair_of_atx3_supplies_is_judged_by_their_sum() -> None:
    node = _node(_psu(900.0), *TWO_5090, ("test-psu", 2))
    # 2 x 900 = 1,800 W >= 1,553 W; 2 x 1,800 = 3,600 W < 3,853 W -> needs 3,853 / 2.
    headroom = _by_code(power_checks(node))["compat.psu_headroom"]
    assert headroom.numbers["psu_w"] == 1800 and headroom.numbers["required_w"] == 1926.5


# --- the ATX 3.x excursion factor ---------------------------------------------------------------


@pytest.mark.parametrize(("version", "watts", "connectors", "factor"), [
    ("ATX 3.1", 1000.0, 1, 2.0),   # above 450 W with a 12V-2x6: 200%
    ("atx 3.0", 1000.0, 2, 2.0),   # the version compared case-blind
    ("ATX 3.1", 450.0, 1, 1.5),    # "above 450 W": 450 W itself gets 150%
    ("ATX 3.1", 451.0, 1, 2.0),
    ("ATX 3.1", 1000.0, 0, 1.5),   # no 12V-2x6 connector: 150%
    ("ATX 3.1", 1000.0, None, 1.5),
    ("ATX 2.53", 1600.0, 2, None),  # no ATX 3.x excursion rating at all
    (None, 1600.0, 2, None),
])
def test_atx3_excursion_factor(version: str | None, watts: float, connectors: int | None,
                               factor: float | None) -> None:
    cat = _psu(watts, atx_version=version, pcie_12v_2x6_connectors=connectors)
    assert _excursion(cat.get("test-psu")) == factor


# --- the GPU maker's minimum and the connectors ---------------------------------------------------


def test_the_most_demanding_gpu_sets_the_vendor_minimum() -> None:
    cat = load_catalog()
    node = _node(_psu(900.0), ("nvidia-rtx-4090", 1), ("nvidia-rtx-5090", 1), ("test-psu", 1))
    vendor = _by_code(power_checks(node))["compat.psu_vendor_min"]
    # 850 W for the 4090, 1,000 W for the 5090: the 5090's figure, with its source.
    assert vendor.numbers == {"psu_w": 900.0, "required_w": 1000.0}
    assert vendor.detail.en.startswith("GeForce RTX 5090: vendor asks for a 1000 W")
    assert vendor.source == cat.get("nvidia-rtx-5090").field_sources["required_system_power_w"]


def test_a_supply_at_the_vendor_minimum_passes() -> None:
    at = power_checks(_node(_psu(850.0), ("nvidia-rtx-4090", 1), ("test-psu", 1)))
    assert "compat.psu_vendor_min" not in _by_code(at)
    below = _by_code(power_checks(_node(_psu(849.0), ("nvidia-rtx-4090", 1), ("test-psu", 1))))
    assert below["compat.psu_vendor_min"].numbers == {"psu_w": 849.0, "required_w": 850.0}


def test_an_unsourced_vendor_minimum_cites_the_vendor_specification() -> None:
    cat = load_catalog()
    base = cat.get("nvidia-rtx-4090")
    bare = replace(base, id="nvidia-test-gpu", field_sources={})
    cat = Catalog(parts={**_psu(800.0).parts, bare.id: bare}, tiers=cat.tiers,
                  seed_rules=cat.seed_rules, sources=cat.sources)
    vendor = _by_code(power_checks(_node(cat, ("nvidia-test-gpu", 1), ("test-psu", 1))))
    assert vendor["compat.psu_vendor_min"].source == "GPU vendor specification"


def test_connectors_are_counted_across_supplies() -> None:
    two_psus = _node(load_catalog(), ("nvidia-rtx-4090", 2), ("nfortec-sagitta-x2-1000w", 1),
                     ("msi-meg-ai1300p-pcie5", 1))
    # One 12V-2x6 on each supply, one on each card: 2 >= 2.
    assert "compat.psu_connectors" not in _by_code(power_checks(two_psus))
    three = _node(load_catalog(), ("nvidia-rtx-4090", 3), ("nfortec-sagitta-x2-1000w", 1),
                  ("msi-meg-ai1300p-pcie5", 1))
    short = _by_code(power_checks(three))["compat.psu_connectors"]
    assert short.numbers == {"needed": 3.0, "available": 2.0}
    assert short.detail.en == ("The GPUs need 3 12V-2x6 connectors; "
                               "Sagitta X2 1000W + MEG Ai1300P PCIE5 has 2.")


def test_connectors_unknown_on_either_side_are_not_judged() -> None:
    # The RM1000x's connector count is not in the catalog: the pair is not judged.
    unknown_psu = _node(load_catalog(), ("nvidia-rtx-4090", 3), ("nfortec-sagitta-x2-1000w", 1),
                        ("corsair-rm1000x", 1))
    assert "compat.psu_connectors" not in _by_code(power_checks(unknown_psu))
    # A card whose 12V-2x6 count is not known: nor is a mix with it judged.
    cat = _cat(**{"nvidia-test-gpu": ("nvidia-rtx-5090", {"power_12v_2x6": None})})
    unknown_gpu = _node(cat, ("nvidia-rtx-4090", 1), ("nvidia-test-gpu", 1),
                        ("nfortec-sagitta-x2-1000w", 1))
    assert "compat.psu_connectors" not in _by_code(power_checks(unknown_gpu))


def test_eight_pin_connectors() -> None:
    cat = _psu(1600.0, pcie_8pin_connectors=1)
    # The Radeon PRO W7900 takes two 8-pin PCIe cables; the supply has one.
    short = _by_code(power_checks(_node(cat, ("amd-radeon-pro-w7900", 1), ("test-psu", 1))))
    finding = short["compat.psu_connectors"]
    assert finding.numbers == {"needed": 2.0, "available": 1.0}
    assert finding.title.en == "Not enough 8-pin PCIe power connectors"
    enough = _psu(1600.0, pcie_8pin_connectors=2)
    assert "compat.psu_connectors" not in _by_code(
        power_checks(_node(enough, ("amd-radeon-pro-w7900", 1), ("test-psu", 1))))


def test_a_built_in_supply_has_no_connector_count_to_judge() -> None:
    cat = _cat(**{"asus-test-board": ("asus-rog-maximus-z790-formula",
                                      {"integrated_psu_w": 3000.0})})
    node = _node(cat, ("nvidia-rtx-4090", 4), ("asus-test-board", 1))
    found = _by_code(power_checks(node))
    assert "compat.psu_connectors" not in found and found == {}


# --- what the findings say ---------------------------------------------------------------------


def test_the_blocker_word_for_word() -> None:
    psu = _by_code(power_checks(_node(_psu(852.0), *DESK, ("test-psu", 1))))["compat.psu"]
    assert psu.title.en == "Power supply is below the system's sustained draw"
    assert psu.title.zh == "电源功率低于整机持续功耗"
    assert psu.detail.en == ("Sagitta X2 1000W: 852 W; CPU maximum power 253 W + GPU board "
                             "power 450 W + 150 W for the rest of the system = 853 W.")
    assert psu.detail.zh == ("Sagitta X2 1000W：852 W；CPU 最大功耗 253 W + GPU 板卡功耗 450 W + "
                             "其余部件 150 W = 853 W。")
    # 853 W x 1.3 = 1,108.9 W, shown as 1109 W. The power limit that fits (fin26): sustained
    # 852 - 403 = 449 W; ATX 3.1 with a 12V-2x6 output carries 200% x 852 = 1,704 W, so
    # (1,704 - 403) / 3 = 433.7 -> 433 W; the RTX 4090's minimum is not in the catalog.
    assert psu.fix.en == ("Use at least 1109 W (x1.3), or an ATX 3.x unit rated for GPU power "
                          "excursions; or fewer GPUs; or keep this supply and cap each GPU at "
                          "433 W (nvidia-smi -pl 433, with administrator rights; nvidia-smi -q "
                          "-d POWER shows the range the card allows) if the card allows it: "
                          "the catalog does not have GeForce RTX 4090's minimum power limit.")
    assert psu.fix.zh == ("至少使用 1109 W（×1.3）电源，"
                          "或可承受 GPU 瞬时功耗的 ATX 3.x 电源；或减少 GPU；或保留此电源，将每块 "
                          "GPU 功耗限制在 433 W（nvidia-smi -pl 433，需管理员权限；nvidia-smi -q "
                          "-d POWER 可查看显卡允许的范围）（前提是显卡允许：目录中没有 GeForce "
                          "RTX 4090 的最低功耗上限）。")
    assert psu.numbers == {"psu_w": 852.0, "cpu_w": 253.0, "gpu_w": 450.0, "rest_w": 150.0,
                           "load_w": 853.0, "peak_w": 1753.0, "gpu_limit_w": 433.0}


def test_the_headroom_and_vendor_titles_word_for_word() -> None:
    found = _by_code(power_checks(_node(_psu(849.0, "corsair-rm1000x"), ("nvidia-rtx-4090", 1),
                                        ("test-psu", 1))))
    # 450 + 150 = 600 W sustained, x1.3 = 780 W <= 849 W: no headroom warning; the vendor's
    # 850 W is not met.
    assert "compat.psu_headroom" not in found
    vendor = found["compat.psu_vendor_min"]
    assert vendor.title == Msg("Power supply below the GPU vendor's system requirement",
                               "电源低于 GPU 厂商要求的整机功率")
    assert vendor.fix == Msg("Use at least 850 W.", "至少使用 850 W 电源。")
    headroom = _by_code(power_checks(_node(_psu(876.0), *DESK, ("test-psu", 1))))
    assert headroom["compat.psu_headroom"].title == Msg(
        "Power supply too small for transient spikes", "电源不足以承受瞬时功耗尖峰")


def _every_power_finding() -> list[Finding]:
    eight_pin = _psu(1600.0, pcie_8pin_connectors=1)
    builtin = _cat(**{"asus-test-board": ("asus-rog-maximus-z790-formula",
                                          {"integrated_psu_w": 500.0})})
    builds = [
        (_psu(852.0), (*DESK, ("test-psu", 1))),                        # blocker
        (_psu(876.0), (*DESK, ("test-psu", 1))),                        # ATX 3.x headroom
        (_psu(1100.0, "corsair-rm1000x"), (*DESK, ("test-psu", 1))),    # x1.3 headroom
        (_psu(849.0), (("nvidia-rtx-4090", 1), ("test-psu", 1))),       # vendor minimum
        (load_catalog(), (("nvidia-rtx-4090", 3), ("nfortec-sagitta-x2-1000w", 1),
                          ("msi-meg-ai1300p-pcie5", 1))),               # 12V-2x6 short
        (eight_pin, (("amd-radeon-pro-w7900", 1), ("test-psu", 1))),    # 8-pin short
        (builtin, (("nvidia-rtx-4090", 1), ("asus-test-board", 1))),    # built-in, too small
    ]
    return [f for cat, lines in builds for f in power_checks(_node(cat, *lines))]


def test_every_power_finding_speaks_both_languages() -> None:
    findings = _every_power_finding()
    assert {f.code for f in findings} == {"compat.psu", "compat.psu_headroom",
                                          "compat.psu_vendor_min", "compat.psu_connectors"}
    for f in findings:
        for text in (f.title, f.detail, f.fix):
            assert isinstance(text, Msg), f.code
            for words in (text.en, text.zh):
                assert isinstance(words, str) and words.strip() and "None" not in words, f.code
        assert f.source and (isinstance(f.source, str) or (f.source.en and f.source.zh))


def test_a_built_in_supply_is_named_as_built_in() -> None:
    cat = _cat(**{"asus-test-board": ("asus-rog-maximus-z790-formula",
                                      {"integrated_psu_w": 500.0})})
    psu = _by_code(power_checks(_node(cat, ("nvidia-rtx-4090", 1), ("asus-test-board", 1))))
    # 450 + 150 = 600 W on a 500 W built-in supply.
    assert psu["compat.psu"].detail.en.startswith("ROG MAXIMUS Z790 FORMULA (built-in): 500 W;")


def test_both_connector_kinds_are_checked_on_one_card() -> None:
    cat = _cat(**{"nvidia-test-gpu": ("nvidia-rtx-4090", {"power_8pin": 2}),
                  "test-psu": ("nfortec-sagitta-x2-1000w", {"pcie_8pin_connectors": 1})})
    # One 12V-2x6 needed and present; two 8-pin needed, one present.
    (short,) = [f for f in power_checks(_node(cat, ("nvidia-test-gpu", 1), ("test-psu", 1)))
                if f.code == "compat.psu_connectors"]
    assert short.numbers == {"needed": 2.0, "available": 1.0}
    assert short.title.en == "Not enough 8-pin PCIe power connectors"


def test_one_missing_connector_is_counted_in_the_singular() -> None:
    cat = _psu(1000.0, pcie_12v_2x6_connectors=0)
    (short,) = [f for f in power_checks(_node(cat, ("nvidia-rtx-4090", 1), ("test-psu", 1)))
                if f.code == "compat.psu_connectors"]
    assert short.detail.en == "The GPUs need 1 12V-2x6 connector; Sagitta X2 1000W has 0."
    assert short.fix.en == ("Choose a power supply with 1 native 12V-2x6 connectors (adapters "
                            "and splitters concentrate current on one cable).")
    assert short.fix.zh == ("选择带 1 个原生 12V-2x6 接口的电源"
                            "（转接线和一分二线会让电流集中在一根线上）。")
