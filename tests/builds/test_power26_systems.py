"""Issue 26: a server sold as a whole system (the ASRock Rack 4U8G-TURIN2, NVIDIA's DGX B200)
brings its chassis, fans, airflow and supplies: no "no PSU", "no case", passive-GPU or
no-NIC-slot warnings, and its supplies feed the power check where their rating is sourced.
The same parts on a bare board (the system's fields removed) get every one of them.

Figures: STH's 4U8G-TURIN2 review (servethehome.com, pages 2 and 4): a 4U chassis with
hot-swap fan modules and airflow guides through eight double-width GPU slots, "PCIe expansion
slots" besides them; its supplies' count and redundancy are not stated, so the power check is
skipped for it. NVIDIA's DGX B200 user guide: 6 x 3,300 W supplies, 5+1 redundant = 16,500 W;
B200 1,000 W each; the DGX's Xeon Platinum 8570 has no power figure in the catalog.
"""

from __future__ import annotations

from dataclasses import replace

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.compat import check_build
from torchrig.builds.power_checks import power_checks, psu_capacity_w
from torchrig.builds.system_parts import is_system, node_system, system_extra_slots
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Severity

TURIN2 = "asrock-rack-4u8g-turin2"
SYSTEM_WARNINGS = {"compat.missing_psu", "compat.missing_case", "compat.missing_cpu_cooler",
                   "fit.passive_gpu", "board.nic_no_slot"}


def _build(board: str, *extra: tuple[str, int]) -> Build:
    lines = [(board, 1), ("amd-epyc-9554", 2), ("samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm",
                                                  24),
             ("samsung-990-pro-2tb", 1), ("nvidia-l40s", 8), ("nvidia-connectx-7-ndr-osfp", 1),
             *extra]
    return Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])


def _bare_board() -> Catalog:
    """The TURIN2 as a bare board: no chassis, no word on supplies, no extra slots."""
    cat = load_catalog()
    part = cat.get(TURIN2)
    bare = replace(part, id="asrock-rack-test-board", unknown_fields={},
                   specs=replace(part.motherboard, system_chassis=None, extra_x16_slots=None))
    return Catalog(parts={**cat.parts, bare.id: bare}, tiers=cat.tiers,
                   seed_rules=cat.seed_rules, sources=cat.sources)


def test_the_4u8g_turin2_is_a_whole_system() -> None:
    codes = {f.code for f in check_build(_build(TURIN2), load_catalog())}
    assert codes & SYSTEM_WARNINGS == set()


def test_the_same_parts_on_a_bare_board_get_every_system_warning() -> None:
    found = {f.code: f.severity for f in
             check_build(_build("asrock-rack-test-board"), _bare_board())}
    assert {c: found.get(c) for c in SYSTEM_WARNINGS} == {
        "compat.missing_psu": Severity.WARNING, "compat.missing_case": Severity.WARNING,
        "compat.missing_cpu_cooler": Severity.ADVICE, "fit.passive_gpu": Severity.WARNING,
        # eight GPU slots, eight L40S: the ninth card, the NIC, has none left.
        "board.nic_no_slot": Severity.WARNING}


def test_what_makes_a_system() -> None:
    cat = load_catalog()
    assert is_system(cat.get(TURIN2)) and is_system(cat.get("nvidia-dgx-b200"))
    assert not is_system(_bare_board().get("asrock-rack-test-board"))
    assert not is_system(cat.get("asus-rog-maximus-z790-formula"))
    assert not is_system(cat.get("nvidia-rtx-5090"))  # not a board at all
    node = Node(_build(TURIN2), cat)
    assert node_system(node) is cat.get(TURIN2) and system_extra_slots(node) == 2
    bare = Node(_build("asrock-rack-test-board"), _bare_board())
    assert node_system(bare) is None and system_extra_slots(bare) == 0


def test_a_third_nic_in_the_system_has_no_slot() -> None:
    # Two expansion slots beside the eight GPU slots: a third adapter gets the warning.
    build = _build(TURIN2, ("nvidia-connectx-7-ndr-osfp", 2))
    found = [f for f in check_build(build, load_catalog()) if f.code == "board.nic_no_slot"]
    assert len(found) == 1 and found[0].severity is Severity.WARNING


def test_an_unsourced_supply_rating_is_not_guessed() -> None:
    node = Node(_build(TURIN2), load_catalog())
    # The system has supplies (no "no PSU" warning) but no sourced rating: nothing to size.
    assert psu_capacity_w(node) is None and power_checks(node) == []


def _dgx(cat: Catalog, board: str = "nvidia-dgx-b200") -> Node:
    lines = [(board, 1), ("intel-xeon-platinum-8570", 2), ("nvidia-b200-sxm", 8)]
    return Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat)


def test_the_dgx_supplies_feed_the_power_check() -> None:
    node = _dgx(load_catalog())
    # 5 x 3,300 W with one of six failed; 8 x 1,000 W + 150 W = 8,150 W (CPU power unknown).
    assert psu_capacity_w(node) == 5 * 3300
    assert power_checks(node) == []


def test_a_system_whose_supplies_are_too_small_is_a_blocker() -> None:
    cat = load_catalog()
    dgx = cat.get("nvidia-dgx-b200")
    small = replace(dgx, id="nvidia-test-dgx",
                    specs=replace(dgx.motherboard, redundant_psu_w=8000.0))
    cat = Catalog(parts={**cat.parts, small.id: small}, tiers=cat.tiers,
                  seed_rules=cat.seed_rules, sources=cat.sources)
    psu = {f.code: f for f in power_checks(_dgx(cat, "nvidia-test-dgx"))}["compat.psu"]
    assert psu.severity is Severity.BLOCKER
    assert psu.numbers["psu_w"] == 8000 and psu.numbers["load_w"] == 8 * 1000 + 150
    assert psu.detail.en.startswith("DGX B200") and "(built-in, redundant): 8000 W" in psu.detail.en
