"""The physical-fit, power and board-limit checks: each with a build that fails it and one that
passes. Parts the shipped catalog lacks (a board with known slot positions, a server with
redundant supplies) are catalog parts with one field changed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity

ROOT = Path(__file__).resolve().parents[2]


def _build(*lines: tuple[str, int], nodes: int = 1, custom: tuple[str, ...] = ()) -> Build:
    items = [LineItem(part_id=pid, quantity=q) for pid, q in lines]
    items += [LineItem(text=c, category=c) for c in custom]
    # Quoted in USD: these tests are about compatibility. A CNY build also gets the export-control
    # warning for a listed part (the RTX 4090 here), which tests/builds/test_export_checks.py and
    # tests/catalog/test_export_controls_data.py test.
    return Build(name="t", nodes=nodes, currency="USD", line_items=items)


def _codes(findings: list[Finding]) -> dict[str, Severity]:
    return {f.code: f.severity for f in findings}


def _variant(cat: Catalog, part_id: str, new_id: str, **spec_changes: Any) -> Catalog:
    """The catalog plus a copy of ``part_id`` under ``new_id`` with some spec fields changed."""
    base = cat.get(part_id)
    part = replace(base, id=new_id, specs=replace(base.specs, **spec_changes))
    return Catalog(parts={**cat.parts, new_id: part}, tiers=cat.tiers,
                   seed_rules=cat.seed_rules, sources=cat.sources)


# i5 (117 W max) on the ATX Z790 board, in the E-ATX tower with a 165 W cooler: no findings.
DESK = [("intel-core-i5-12400f", 1), ("asus-rog-maximus-z790-formula", 1),
        ("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 1),
        ("samsung-990-pro-1tb", 1), ("corsair-rm1000x", 1), ("nfortec-krater-x", 1),
        ("thermalright-axp120-x67", 1)]


def _desk(*extra: tuple[str, int], drop: tuple[str, ...] = ()) -> Build:
    return _build(*[line for line in DESK if line[0] not in drop], *extra)


def _check(build: Build, cat: Catalog | None = None) -> dict[str, Severity]:
    return _codes(check_build(build, cat or load_catalog()))


# --- physical fit ---------------------------------------------------------------------------


def test_gpu_length_against_the_case() -> None:
    cat = load_catalog()
    assert _check(_desk(("nvidia-rtx-4090", 1)), cat) == {}  # 304 mm in a 340 mm case
    small = _variant(cat, "nfortec-krater-x", "nfortec-short-case", max_gpu_length_mm=300.0)
    build = _desk(("nvidia-rtx-4090", 1), ("nfortec-short-case", 1), drop=("nfortec-krater-x",))
    finding = next(f for f in check_build(build, small) if f.code == "fit.gpu_length")
    assert finding.severity is Severity.BLOCKER
    assert finding.numbers == {"gpu_length_mm": 304.0, "max_gpu_length_mm": 300.0}
    assert "304 mm" in finding.detail.en and "300 mm" in finding.detail.zh


def test_cooler_height_against_the_case() -> None:
    cat = _variant(load_catalog(), "deepcool-an600", "deepcool-tall-test", height_mm=180.0)
    build = _desk(("deepcool-tall-test", 1), drop=("thermalright-axp120-x67",))
    finding = next(f for f in check_build(build, cat) if f.code == "fit.cooler_height")
    assert finding.severity is Severity.BLOCKER
    assert finding.numbers == {"cooler_height_mm": 180.0, "max_cooler_height_mm": 170.0}
    assert "fit.cooler_height" not in _check(_desk())


def test_board_form_factor_against_the_case() -> None:
    cat = _variant(load_catalog(), "nfortec-caelum", "nfortec-matx-test",
                   board_form_factors=("Micro-ATX", "Mini-ITX"))
    build = _desk(("nfortec-matx-test", 1), drop=("nfortec-krater-x",))
    assert _check(build, cat)["fit.board_form"] is Severity.BLOCKER
    # "mATX" in one file and "Micro-ATX" in another are the same size.
    ok = _variant(load_catalog(), "nfortec-caelum", "nfortec-matx-test",
                  board_form_factors=("mATX",))
    b650 = _build(("amd-ryzen-9-7950x", 1), ("gigabyte-b650m-aorus-elite-ax-ice", 1),
                  ("nfortec-matx-test", 1))
    assert "fit.board_form" not in _check(b650, ok)


def test_cooler_socket() -> None:
    # The AXP120-X67 lists AM4 only among AMD sockets; the AN600 lists the AMx family.
    bad = _build(("amd-ryzen-9-7950x", 1), ("thermalright-axp120-x67", 1))
    assert _check(bad)["fit.cooler_socket"] is Severity.BLOCKER
    good = _build(("amd-ryzen-9-7950x", 1), ("deepcool-an600", 1))
    assert "fit.cooler_socket" not in _check(good)


def test_cooler_rating_against_base_and_maximum_power() -> None:
    below_base = _check(_build(("intel-core-i9-13900k", 1), ("noctua-nh-l12sx77", 1)))
    assert below_base["fit.cooler_rating"] is Severity.WARNING  # 107 W < 125 W base
    below_max = check_build(_build(("intel-core-i9-13900k", 1), ("deepcool-an600", 1)),
                            load_catalog())
    rating = next(f for f in below_max if f.code == "fit.cooler_rating")
    assert rating.severity is Severity.ADVICE and rating.numbers == {"rated_heat_w": 180.0,
                                                                     "cpu_w": 253.0}
    assert "fit.cooler_rating" not in _check(_desk())  # 165 W >= 117 W


def test_a_cooler_without_a_rating_is_named_for_a_hungry_cpu_only() -> None:
    unrated = _check(_build(("intel-core-i9-13900k", 1),
                            ("thermalright-phantom-spirit-120-se", 1)))
    assert unrated["fit.cooler_unrated"] is Severity.ADVICE
    assert "fit.cooler_rating" not in unrated
    finding = next(f for f in check_build(_build(("intel-core-i9-13900k", 1),
                                                 ("thermalright-phantom-spirit-120-se", 1)),
                                          load_catalog()) if f.code == "fit.cooler_unrated")
    assert finding.numbers == {"cpu_w": 253.0} and "253 W" in finding.fix.zh
    # A 117 W i5 needs no check; a rated cooler gets the rating check instead.
    assert "fit.cooler_unrated" not in _check(_build(
        ("intel-core-i5-12400f", 1), ("thermalright-phantom-spirit-120-se", 1)))
    assert "fit.cooler_unrated" not in _check(_build(("intel-core-i9-13900k", 1),
                                                    ("deepcool-ls720-se", 1)))


def test_thick_cards_in_adjacent_slots() -> None:
    cat = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "asus-test-board",
                   x16_slot_positions=(1, 3))
    build = _desk(("nvidia-rtx-4090", 2), ("asus-test-board", 1),
                  drop=("asus-rog-maximus-z790-formula",))
    finding = next(f for f in check_build(build, cat) if f.code == "fit.gpu_slot_spacing")
    assert finding.severity is Severity.BLOCKER
    assert finding.numbers == {"slot_width": 3.0, "slot_gap": 2.0}
    assert "blower" in finding.fix.en and "riser" in finding.fix.en
    wide = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "asus-test-board",
                    x16_slot_positions=(1, 4))
    assert "fit.gpu_slot_spacing" not in _check(build, wide)


def test_slot_spacing_unknown_only_for_thick_cards() -> None:
    assert _check(_desk(("nvidia-rtx-4090", 2)))["fit.gpu_slot_spacing_unknown"] is \
        Severity.WARNING
    assert "fit.gpu_slot_spacing_unknown" not in _check(_desk(("nvidia-rtx-5090", 2)))


def test_case_expansion_slots() -> None:
    # The Caelum has 7 expansion slots: 3-slot cards at positions 1 and 6 need 8.
    cat = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "asus-test-board",
                   x16_slot_positions=(1, 6))
    build = _desk(("nvidia-rtx-4090", 2), ("asus-test-board", 1), ("nfortec-caelum", 1),
                  drop=("asus-rog-maximus-z790-formula", "nfortec-krater-x"))
    finding = next(f for f in check_build(build, cat) if f.code == "fit.case_slots")
    assert finding.numbers == {"slots_needed": 8.0, "slots": 7.0}
    fits = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "asus-test-board",
                    x16_slot_positions=(1, 5))
    assert "fit.case_slots" not in _check(build, fits)


def test_passive_gpu_needs_server_airflow() -> None:
    assert _check(_desk(("nvidia-l40s", 1)))["fit.passive_gpu"] is Severity.WARNING
    rack = _variant(load_catalog(), "nfortec-krater-x", "nfortec-rack-test", kind="rackmount")
    in_rack = _desk(("nvidia-l40s", 1), ("nfortec-rack-test", 1), drop=("nfortec-krater-x",))
    assert "fit.passive_gpu" not in _check(in_rack, rack)
    platform = _build(("nvidia-l40s", 4), custom=("server-platform",))
    assert "fit.passive_gpu" not in _check(platform)


def test_gpu_module_on_a_pc_board() -> None:
    assert _check(_desk(("nvidia-jetson-agx-orin-64gb", 1)))["fit.gpu_module"] is \
        Severity.BLOCKER
    assert "fit.gpu_module" not in _check(_build(("nvidia-jetson-agx-orin-64gb", 1)))


# --- power ----------------------------------------------------------------------------------


def test_atx3_supply_carries_gpu_transients() -> None:
    # 253 + 450 + 150 = 853 W sustained; peak 253 + 150 + 3 x 450 = 1753 W <= 2 x 1000 W.
    codes = _check(load_build(ROOT / "builds" / "professional.json"))
    assert not [c for c in codes if c.startswith("compat.psu")]
    # The RTX 5090 passes the sustained test (978 W) but spikes to 2128 W > 2000 W.
    build = _build(("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 1),
                   ("nfortec-sagitta-x2-1000w", 1))
    finding = next(f for f in check_build(build, load_catalog())
                   if f.code == "compat.psu_headroom")
    assert finding.numbers["load_w"] == 978 and finding.numbers["peak_w"] == 2128
    assert finding.numbers["required_w"] == 1064
    assert "100 µs" in finding.detail.en


def test_sustained_draw_above_the_supply_is_a_blocker() -> None:
    build = _build(("intel-core-i9-13900k", 1), ("nvidia-rtx-4090", 2),
                   ("nfortec-sagitta-x2-1000w", 1))
    findings = check_build(build, load_catalog())
    psu = next(f for f in findings if f.code == "compat.psu")
    assert psu.severity is Severity.BLOCKER and psu.numbers["load_w"] == 1303


def test_12v_2x6_connector_count() -> None:
    two = _build(("nvidia-rtx-4090", 2), ("nfortec-sagitta-x2-1000w", 1))
    finding = next(f for f in check_build(two, load_catalog())
                   if f.code == "compat.psu_connectors")
    assert finding.numbers == {"needed": 2.0, "available": 1.0}
    one = _build(("nvidia-rtx-4090", 1), ("nfortec-sagitta-x2-1000w", 1))
    assert "compat.psu_connectors" not in _check(one)


def test_server_supplies_sized_by_redundant_rating() -> None:
    cat = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "acme-server-board",
                   integrated_psu_w=3000.0, redundant_psu_w=1500.0)
    # 4 x 350 W + 150 W = 1550 W: fine on 3,000 W, too much once one supply has failed.
    build = _build(("nvidia-l40s", 4), ("acme-server-board", 1))
    psu = next(f for f in check_build(build, cat) if f.code == "compat.psu")
    assert psu.numbers["psu_w"] == 1500 and "redundant" in psu.detail.en
    no_redundancy = _variant(load_catalog(), "asus-rog-maximus-z790-formula",
                             "acme-server-board", integrated_psu_w=3000.0)
    assert "compat.psu" not in _check(build, no_redundancy)


# --- board limits ---------------------------------------------------------------------------


def test_two_dimms_per_channel_on_intel_desktop() -> None:
    four = _desk(("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 2),
                 drop=("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40",))
    finding = next(f for f in check_build(four, load_catalog())
                   if f.code == "board.memory_2dpc")
    assert finding.numbers == {"modules": 4.0, "channels": 2.0, "rated_mts": 5600.0}
    assert "board.memory_2dpc" not in _check(_desk())
    rated = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "asus-test-board",
                     max_memory_speed_2dpc_mts=5600)
    four_rated = _desk(("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 2),
                       ("asus-test-board", 1),
                       drop=("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40",
                             "asus-rog-maximus-z790-formula"))
    assert "board.memory_2dpc" not in _check(four_rated, rated)


def test_empty_memory_channels_state_the_bandwidth() -> None:
    epyc = _build(("amd-epyc-9554", 1), ("samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm", 4))
    finding = next(f for f in check_build(epyc, load_catalog())
                   if f.code == "compat.memory_channels")
    assert finding.numbers["channels"] == 12 and finding.numbers["modules"] == 4
    assert finding.numbers["bandwidth"] == finding.numbers["peak_bandwidth"] * 4 / 12
    assert "GB/s" in finding.detail.en
    full = _build(("amd-epyc-9554", 1), ("samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm", 12))
    assert "compat.memory_channels" not in _check(full)


def test_m2_lane_sharing() -> None:
    cat = _variant(load_catalog(), "asus-rog-maximus-z790-formula", "asus-test-board",
                   m2_gpu_lane_sharing=True)
    build = _desk(("nvidia-rtx-4090", 1), ("asus-test-board", 1),
                  drop=("asus-rog-maximus-z790-formula",))
    assert _check(build, cat)["board.m2_gpu_lanes"] is Severity.WARNING
    assert "board.m2_gpu_lanes" not in _check(_desk(("nvidia-rtx-4090", 1)))


def test_400g_nic_on_a_gen4_host() -> None:
    gen4 = _variant(load_catalog(), "intel-core-i5-12400f", "intel-test-gen4-cpu", pcie_gen=4)
    build = _desk(("nvidia-connectx-7-ndr-osfp", 1), ("intel-test-gen4-cpu", 1),
                  drop=("intel-core-i5-12400f",))
    finding = next(f for f in check_build(build, gen4) if f.code == "board.nic_pcie")
    assert finding.severity is Severity.BOTTLENECK
    assert finding.numbers["port_gbit"] == 400
    assert finding.numbers["link_gbit"] < 400  # Gen4 x16: about 252 Gb/s
    assert "board.nic_pcie" not in _check(_desk(("nvidia-connectx-7-ndr-osfp", 1)))


def test_no_slot_left_for_the_nic() -> None:
    build = _build(("intel-core-i5-12400f", 1), ("asus-prime-b660-plus-d4", 1),
                   ("nvidia-rtx-3060-12gb", 2), ("intel-e810-cqda2", 1))
    assert _check(build)["board.nic_no_slot"] is Severity.WARNING
    one_gpu = _build(("intel-core-i5-12400f", 1), ("asus-prime-b660-plus-d4", 1),
                     ("nvidia-rtx-3060-12gb", 1), ("intel-e810-cqda2", 1))
    assert "board.nic_no_slot" not in _check(one_gpu)


def test_one_nic_per_gpu_across_nodes() -> None:
    shared = _desk(("nvidia-rtx-5090", 2), ("intel-e810-cqda2", 1))
    shared.nodes = 2
    assert _check(shared)["board.nic_per_gpu"] is Severity.ADVICE
    each = _desk(("nvidia-rtx-5090", 2), ("intel-e810-cqda2", 2))
    each.nodes = 2
    assert "board.nic_per_gpu" not in _check(each)
