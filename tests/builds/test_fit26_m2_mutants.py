"""builds/m2_sharing.py at its edges, found unpinned by mutation testing (scripts/mutate.py
builds.m2_sharing): the slot-count Blocker word for word and at equality, both per-slot
findings word for word, the placement order when a SATA drive or an x8 card changes what a
slot costs, a card of unknown width counted as x16 (docs/hardware-sources.md sec. 6.2)."""

from __future__ import annotations

from dataclasses import replace

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import BOARD_MANUAL, BOARD_SPECS, Node
from torchrig.builds.compat import check_build
from torchrig.builds.m2_sharing import m2_sharing, m2_slot_count, place_drives
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import M2Slot
from torchrig.findings import Severity
from torchrig.i18n import Msg

X870E = "asus-rog-strix-x870e-e-gaming-wifi"  # 5 M.2 slots
DRIVE = "samsung-990-pro-1tb"


def _node(*lines: tuple[str, int], cat: Catalog | None = None) -> Node:
    return Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat or load_catalog())


def _with(**parts: tuple[str, dict]) -> Catalog:  # type: ignore[type-arg]
    cat = load_catalog()
    new = dict(cat.parts)
    for pid, (base, changes) in parts.items():
        b = cat.get(base)
        new[pid] = replace(b, id=pid, specs=replace(b.specs, **changes))
    return Catalog(parts=new, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)


def test_more_drives_than_slots_word_for_word() -> None:
    assert m2_slot_count(_node((X870E, 1), (DRIVE, 5))) == []  # 5 drives, 5 slots
    [f] = m2_slot_count(_node((X870E, 1), (DRIVE, 6)))
    assert (f.code, f.severity) == ("compat.m2_slots", Severity.BLOCKER)
    assert f.title == Msg("More M.2 drives than M.2 slots", "M.2 硬盘数量超过 M.2 插槽数")
    assert f.detail == Msg("6 M.2 NVMe drives; ROG STRIX X870E-E GAMING WIFI has 5 M.2 slots.",
                           "6 块 M.2 NVMe 硬盘；ROG STRIX X870E-E GAMING WIFI 只有 5 个 M.2 插槽。")
    assert f.fix == Msg("Use fewer, larger drives or a PCIe M.2 adapter card.",
                        "改用数量更少、容量更大的硬盘，或使用 PCIe 转 M.2 扩展卡。")
    assert f.source == BOARD_SPECS and f.numbers == {"drives": 6.0, "slots": 5.0}
    assert "compat.m2_slots" in {x.code for x in check_build(
        Build(name="t", line_items=[LineItem(part_id=X870E), LineItem(part_id=DRIVE,
                                                                      quantity=6)]),
        load_catalog())}


def test_the_gpu_lane_finding_word_for_word() -> None:
    [f] = m2_sharing(_node((X870E, 1), ("nvidia-rtx-4090", 1), (DRIVE, 4)))
    assert f.detail == Msg(
        "4 M.2 drives on ROG STRIX X870E-E GAMING WIFI: M.2_1, M.2_4, M.2_5 share nothing and "
        "are used first; M.2_2 shares CPU lanes with the first x16 slot, which drops to x8 "
        "when M.2_2 is used, so the GPU runs at x8 instead of x16.",
        "ROG STRIX X870E-E GAMING WIFI 上 4 块 M.2 硬盘：M.2_1, M.2_4, M.2_5 不共享通道，先用；"
        "M.2_2 与第一个 x16 插槽共享 CPU 通道，使用 M.2_2 时该插槽降为 x8，GPU 以 x8 而非 x16 "
        "运行。")
    assert f.title.zh == "M.2 插槽 M.2_2 占用 GPU 插槽的通道"
    assert f.fix == Msg(
        "Use one drive fewer, a larger drive, or a PCIe M.2 adapter in a chipset slot, to keep "
        "M.2_2 empty.",
        "少用一块硬盘、改用更大容量的硬盘，或在芯片组插槽上用 PCIe 转 M.2 扩展卡，让 M.2_2 空着。")
    assert f.source == BOARD_MANUAL


def test_a_board_whose_every_slot_shares() -> None:
    cat = _with(**{"asus-test-all-shared": (X870E, {"m2_slots": 1, "m2_slot_map": (
        M2Slot("M.2_9", "cpu", 5, 4, gpu_slot_lanes=8),)})})
    [f] = m2_sharing(_node(("asus-test-all-shared", 1), ("nvidia-rtx-4090", 1), (DRIVE, 1),
                           cat=cat))
    # Nothing shares nothing: the detail goes straight to the slot.
    assert f.detail.en.startswith("1 M.2 drive on ROG STRIX X870E-E GAMING WIFI: M.2_9 shares")
    assert "：M.2_9 与" in f.detail.zh


def test_the_sata_finding_word_for_word() -> None:
    cat = _with(**{"asus-test-sata": (X870E, {"m2_slots": 1, "m2_slot_map": (
        M2Slot("M.2_1", "chipset", 4, 4, sata_ports_off=(5, 6)),)})})
    [f] = m2_sharing(_node(("asus-test-sata", 1), (DRIVE, 1), ("samsung-870-evo-1tb", 2),
                           cat=cat))
    assert f.detail == Msg(
        "ROG STRIX X870E-E GAMING WIFI: using M.2_1 turns off SATA port(s) 5, 6; the build has "
        "2 SATA drives.",
        "ROG STRIX X870E-E GAMING WIFI：使用 M.2_1 会关闭 SATA 接口 5, 6；配置中有 2 块 "
        "SATA 硬盘。")
    assert f.fix == Msg("Connect the SATA drives to ports other than 5, 6.",
                        "把 SATA 硬盘接在 5, 6 以外的接口上。")
    assert f.title.zh == "M.2 插槽 M.2_1 会禁用 SATA 接口"
    assert f.source == BOARD_MANUAL
    assert f.numbers == {"m2_drives": 1.0, "sata_drives": 2.0, "sata_ports_off": 2.0}


G = M2Slot("G", "cpu", 5, 4, gpu_slot_lanes=8)
S = M2Slot("S", "chipset", 4, 4, sata_ports_off=(1,))


def test_a_sata_drive_decides_between_two_sharing_slots() -> None:
    # No card: G costs nothing; one SATA drive makes S cost 1, so G goes first.
    assert [s.name for s in place_drives((S, G), 1, None, 1)] == ["G"]
    # No SATA drive either: both cost nothing, the manual's order decides.
    assert [s.name for s in place_drives((S, G), 1, None, 0)] == ["S"]


def test_an_x8_card_loses_nothing_in_a_slot_that_drops_to_x8() -> None:
    # An x8 card: G costs nothing; S costs 1 with a SATA drive.
    assert [s.name for s in place_drives((S, G), 1, 8, 1)] == ["G"]
    # An x16 card: G costs 2, S 1.
    assert [s.name for s in place_drives((S, G), 1, 16, 1)] == ["S"]


def test_a_card_of_unknown_width_counts_as_x16() -> None:
    cat = _with(**{"nvidia-test-unknown-lanes": ("nvidia-rtx-4090", {"pcie_lanes": None})})
    [f] = m2_sharing(_node((X870E, 1), ("nvidia-test-unknown-lanes", 1), (DRIVE, 4), cat=cat))
    assert f.numbers["card_lanes"] == 16.0


def test_the_card_in_the_slot_decides_between_gpu_and_sata_sharing() -> None:
    # An x16 card and a SATA drive: the GPU-sharing slot costs 2, the SATA one 1, so the one
    # M.2 drive goes to the SATA slot and only the SATA finding is given.
    cat = _with(**{"asus-test-g-s": (X870E, {"m2_slots": 2, "m2_slot_map": (G, S)})})
    found = {f.code for f in m2_sharing(_node(("asus-test-g-s", 1), ("nvidia-rtx-4090", 1),
                                              (DRIVE, 1), ("samsung-870-evo-1tb", 1), cat=cat))}
    assert found == {"board.m2_sata"}
