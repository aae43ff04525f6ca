"""M.2 drives placed slot by slot from the board manual's sharing map (issue 26).

Maps are the catalog's, from hardwareluxx's tables: the ROG STRIX X870E-E has M.2_1 (CPU,
Gen5 x4, no sharing), M.2_2 and M.2_3 (CPU, Gen5 x4, each drops the x16 slot to x8) and M.2_4,
M.2_5 (X870E chipset, Gen4 x4); the Z890 AORUS MASTER has M2A and M2B (CPU, no sharing), M2D
(CPU, takes four of the x16 slot's lanes: x8) and M2M, M2P (Z890 chipset). The RTX 4090 is a
PCIe 4.0 x16 card, the RTX 4060 Ti an x8 card (docs/hardware-sources.md sec. 1).
"""

from __future__ import annotations

from dataclasses import replace

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.compat import check_build
from torchrig.builds.m2_sharing import m2_sharing, place_drives
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import M2Slot
from torchrig.findings import Finding, Severity

X870E = "asus-rog-strix-x870e-e-gaming-wifi"
Z890 = "gigabyte-z890-aorus-master"
DRIVE = "samsung-990-pro-1tb"  # M.2 2280 NVMe
SATA = "samsung-870-evo-1tb"


def _found(*lines: tuple[str, int], cat: Catalog | None = None) -> dict[str, Finding]:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return {f.code: f for f in m2_sharing(Node(build, cat or load_catalog()))}


def test_one_drive_on_the_x870e_e_is_not_a_false_alarm() -> None:
    # The issue's false alarm: one drive goes in M.2_1, which shares nothing.
    assert _found((X870E, 1), ("nvidia-rtx-4090", 1), (DRIVE, 1)) == {}
    # Three drives: M.2_1, M.2_4, M.2_5 share nothing.
    assert _found((X870E, 1), ("nvidia-rtx-4090", 1), (DRIVE, 3)) == {}


def test_the_fourth_drive_on_the_x870e_e_takes_gpu_lanes() -> None:
    finding = _found((X870E, 1), ("nvidia-rtx-4090", 1), (DRIVE, 4))["board.m2_gpu_lanes"]
    assert finding.severity is Severity.WARNING
    # The 4th drive goes in M.2_2 (the first sharing slot in the manual's order).
    assert finding.title.en == "M.2 slot M.2_2 takes lanes from the GPU slot"
    assert finding.numbers == {"m2_drives": 4.0, "gpu_lanes": 8.0, "card_lanes": 16.0}
    assert "M.2_1, M.2_4, M.2_5 share nothing" in finding.detail.en
    assert "x8 instead of x16" in finding.detail.en
    assert "M.2_2" in finding.fix.en and "M.2_2" in finding.fix.zh
    # Five drives fill both sharing slots: one finding per slot.
    five = [f for f in m2_sharing(Node(Build(name="t", line_items=[
        LineItem(part_id=X870E), LineItem(part_id="nvidia-rtx-4090"),
        LineItem(part_id=DRIVE, quantity=5)]), load_catalog()))]
    assert [f.title.en for f in five] == ["M.2 slot M.2_2 takes lanes from the GPU slot",
                                          "M.2 slot M.2_3 takes lanes from the GPU slot"]


def test_without_a_card_or_with_an_x8_card_nothing_is_lost() -> None:
    assert _found((X870E, 1), (DRIVE, 5)) == {}  # no GPU in the x16 slot
    # An x8 card (RTX 4060 Ti) in a slot that drops to x8 loses nothing.
    assert _found((X870E, 1), ("nvidia-rtx-4060-ti-16gb", 1), (DRIVE, 5)) == {}


def test_one_drive_on_the_z890_aorus_master_is_not_a_false_alarm() -> None:
    assert _found((Z890, 1), ("nvidia-rtx-4090", 1), (DRIVE, 1)) == {}
    # Four drives: M2A, M2B, M2M, M2P share nothing; the fifth needs M2D.
    assert _found((Z890, 1), ("nvidia-rtx-4090", 1), (DRIVE, 4)) == {}
    fifth = _found((Z890, 1), ("nvidia-rtx-4090", 1), (DRIVE, 5))["board.m2_gpu_lanes"]
    assert fifth.title.en == "M.2 slot M2D_CPU takes lanes from the GPU slot"
    assert "M2A_CPU, M2B_CPU, M2M_SB, M2P_SB share nothing" in fifth.detail.en


def test_the_whole_check_on_the_issue_builds() -> None:
    cat = load_catalog()
    for board in (X870E, Z890):
        build = Build(name="t", currency="USD", line_items=[
            LineItem(part_id=board), LineItem(part_id="nvidia-rtx-4090"),
            LineItem(part_id=DRIVE)])
        assert "board.m2_gpu_lanes" not in {f.code for f in check_build(build, cat)}


SATA_MAP = (M2Slot("M.2_1", "cpu", 4, 4), M2Slot("M.2_2", "chipset", 4, 4,
                                                 sata_ports_off=(5, 6)),
            M2Slot("M.2_3", "chipset", 4, 4))


def _sata_board() -> Catalog:
    cat = load_catalog()
    base = cat.get(X870E)
    part = replace(base, id="asus-test-sata-map",
                   specs=replace(base.specs, m2_slot_map=SATA_MAP, m2_slots=3))
    return Catalog(parts={**cat.parts, part.id: part}, tiers=cat.tiers,
                   seed_rules=cat.seed_rules, sources=cat.sources)


def test_a_sata_sharing_slot_is_used_last_and_named() -> None:
    cat = _sata_board()
    # Two drives and a SATA drive: M.2_1 and M.2_3 share nothing.
    assert _found(("asus-test-sata-map", 1), (DRIVE, 2), (SATA, 1), cat=cat) == {}
    three = _found(("asus-test-sata-map", 1), (DRIVE, 3), (SATA, 1), cat=cat)["board.m2_sata"]
    assert three.severity is Severity.ADVICE
    assert three.title.en == "M.2 slot M.2_2 disables SATA ports"
    assert "SATA port(s) 5, 6" in three.detail.en and "1 SATA drive." in three.detail.en
    assert three.numbers == {"m2_drives": 3.0, "sata_drives": 1.0, "sata_ports_off": 2.0}
    # Without SATA drives the slot costs nothing.
    assert _found(("asus-test-sata-map", 1), (DRIVE, 3), cat=cat) == {}


def test_placement_prefers_slots_whose_loss_the_build_does_not_feel() -> None:
    gpu = M2Slot("G", "cpu", 5, 4, gpu_slot_lanes=8)
    sata = M2Slot("S", "chipset", 4, 4, sata_ports_off=(1,))
    plain = M2Slot("P", "chipset", 4, 4)
    slots = (gpu, sata, plain)
    # x16 card and SATA drives: plain first, then the SATA slot (cost 1) before the GPU (2).
    assert [s.name for s in place_drives(slots, 2, 16, 1)] == ["S", "P"]
    # No SATA drives: the SATA slot costs nothing, but sharing slots still come after plain.
    assert [s.name for s in place_drives(slots, 1, 16, 0)] == ["P"]
    assert [s.name for s in place_drives(slots, 2, 16, 0)] == ["S", "P"]
    # No card: the GPU slot's sharing costs nothing either; manual order among equals.
    assert [s.name for s in place_drives(slots, 3, None, 1)] == ["G", "S", "P"]
