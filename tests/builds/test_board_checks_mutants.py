"""Board limits at their edges, found unpinned by mutation testing (scripts/mutate.py
builds.board_checks): two DIMMs per channel across kits and sockets, ECC, M.2 lane and SATA
sharing, network adapters in narrow or missing slots, and one adapter per GPU across nodes.
Figures are the catalog's (the Z890 AORUS MASTER wires x16 Gen5 / x4 Gen4 / x1 Gen4 by GPU
count, the B660 its second slot x4 from the chipset with no generation given; the E810 is a
100 Gb/s Gen4 x16 adapter, the ConnectX-7 NDR 400 Gb/s Gen5 x16) and PCIe payload per lane
per direction (docs/hardware-sources.md sec. 3: Gen4 1.969 GB/s, Gen5 3.938 GB/s).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from torchrig.builds.board_checks import board_checks
from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg

DDR5_KIT = "corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40"  # 2 x DDR5-5600, no ECC
RDIMM = "samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm"  # 1 x DDR5-5600 ECC
Z790 = "asus-rog-maximus-z790-formula"  # 2 channels, no ECC
Z890 = "gigabyte-z890-aorus-master"
E810 = "intel-e810-cqda2"


def _cat(**variants: tuple[str, dict[str, Any]]) -> Catalog:
    cat = load_catalog()
    parts = dict(cat.parts)
    for new_id, (base_id, changes) in variants.items():
        base = cat.get(base_id)
        parts[new_id] = replace(base, id=new_id, specs=replace(base.specs, **changes))
    return Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)


def _found(*lines: tuple[str, int], cat: Catalog | None = None,
           nodes: int = 1) -> dict[str, Finding]:
    build = Build(name="t", nodes=nodes,
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return {f.code: f for f in board_checks(Node(build, cat or load_catalog()))}


def _all(*lines: tuple[str, int], cat: Catalog | None = None) -> list[Finding]:
    build = Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return board_checks(Node(build, cat or load_catalog()))


# --- two DIMMs per channel --------------------------------------------------------------------

INTEL_DESK = (("intel-core-i9-13900k", 1), (Z790, 1))


def test_one_dimm_per_channel_is_fine_and_one_more_is_not() -> None:
    assert "board.memory_2dpc" not in _found(*INTEL_DESK, (DDR5_KIT, 1))  # 2 on 2 channels
    # A 2-module kit plus one RDIMM: 3 modules on 2 channels.
    three = _found(*INTEL_DESK, (DDR5_KIT, 1), (RDIMM, 1))["board.memory_2dpc"]
    assert three.severity is Severity.ADVICE
    assert three.numbers == {"modules": 3.0, "channels": 2.0, "rated_mts": 5600.0}
    assert three.detail.en.startswith("3 DDR5 modules on 2 channels (two per channel); the "
                                      "kits are rated 5600 MT/s. Intel rates")
    assert three.source.en.startswith("Intel Core desktop DDR5 with two DIMMs per channel")


def test_ddr4_kits_are_not_judged() -> None:
    ddr4 = "corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2b3200c16"
    assert "board.memory_2dpc" not in _found(("intel-core-i5-12400f", 1),
                                             ("asus-prime-b660-plus-d4", 1), (ddr4, 2))


def test_the_fastest_kit_is_the_rated_speed() -> None:
    cat = _cat(**{"corsair-test-6400": (DDR5_KIT, {"speed_mts": 6400})})
    found = _found(*INTEL_DESK, (DDR5_KIT, 1), ("corsair-test-6400", 1), cat=cat)
    assert found["board.memory_2dpc"].numbers["rated_mts"] == 6400


def test_a_board_figure_replaces_intels_note() -> None:
    cat = _cat(**{"asus-test-board": (Z790, {"max_memory_speed_2dpc_mts": 4800})})
    found = _found(("intel-core-i9-13900k", 1), ("asus-test-board", 1), (DDR5_KIT, 2), cat=cat)
    finding = found["board.memory_2dpc"]
    assert "ROG MAXIMUS Z790 FORMULA rates two DIMMs per channel at 4800 MT/s." in \
        finding.detail.en
    assert finding.source.en == "vendor board specifications (memory QVL, 2DPC)"


def test_amd_desktop_without_a_board_figure_is_not_judged() -> None:
    assert "board.memory_2dpc" not in _found(("amd-ryzen-9-7950x", 1),
                                             ("asus-rog-strix-x870e-e-gaming-wifi", 1),
                                             (DDR5_KIT, 2))


def test_unknown_channels_are_not_judged() -> None:
    cat = _cat(**{"intel-test-cpu": ("intel-core-i9-13900k", {"memory_channels": None})})
    # No board and a CPU without a channel count: nothing to compare the modules with.
    assert "board.memory_2dpc" not in _found(("intel-test-cpu", 1), (DDR5_KIT, 2), cat=cat)


def test_two_sockets_drive_twice_the_channels() -> None:
    board = "asrock-rack-4u8g-turin2"  # 12 channels per socket, two sockets
    cat = _cat(**{"asrock-rack-test": (board, {"max_memory_speed_2dpc_mts": 4400})})
    # 2 x EPYC 9554: 2 x 12 = 24 channels for 24 RDIMMs, one per channel.
    assert "board.memory_2dpc" not in _found(("amd-epyc-9554", 2), ("asrock-rack-test", 1),
                                             (RDIMM, 24), cat=cat)
    # One CPU in the two-socket board drives its 12 channels only: 24 modules, two each.
    one = _found(("amd-epyc-9554", 1), ("asrock-rack-test", 1), (RDIMM, 24), cat=cat)
    assert one["board.memory_2dpc"].numbers == {"modules": 24.0, "channels": 12.0,
                                                "rated_mts": 5600.0}


# --- ECC --------------------------------------------------------------------------------------


def test_ecc_memory_on_a_board_without_ecc_names_every_kit() -> None:
    rdimm_96 = "samsung-96gb-ddr5-5600-rdimm-m321ryga0pb0-cwm"
    finding = _found(*INTEL_DESK, (rdimm_96, 1), (RDIMM, 1), (DDR5_KIT, 1))["board.ecc"]
    cat = load_catalog()
    names = sorted([cat.get(RDIMM).name, cat.get(rdimm_96).name])
    assert finding.severity is Severity.WARNING
    assert finding.detail.en.startswith(f"{names[0]}, {names[1]} is ECC memory; "
                                        "ROG MAXIMUS Z790 FORMULA runs memory without ECC")
    assert finding.detail.zh.startswith(f"{names[0]}、{names[1]} 为 ECC 内存")


def test_ecc_is_judged_only_on_a_board_known_without_it() -> None:
    assert "board.ecc" not in _found(*INTEL_DESK, (DDR5_KIT, 1))  # no ECC memory
    # The B660's ECC support is not in the catalog; the TRX50 board supports ECC.
    assert "board.ecc" not in _found(("asus-prime-b660-plus-d4", 1), (RDIMM, 1))
    assert "board.ecc" not in _found(("asus-pro-ws-trx50-sage-wifi", 1), (RDIMM, 1))
    assert "board.ecc" not in _found((RDIMM, 1))  # no board


# --- M.2 sharing ----------------------------------------------------------------------------

X870E = "asus-rog-strix-x870e-e-gaming-wifi"  # an M.2 slot shares lanes with the GPU slot


def test_an_m2_drive_and_a_gpu_on_a_lane_sharing_board() -> None:
    found = _found((X870E, 1), ("nvidia-rtx-4090", 1), ("samsung-990-pro-1tb", 2))
    assert found["board.m2_gpu_lanes"].numbers == {"m2_drives": 2.0}
    assert "board.m2_gpu_lanes" not in _found((X870E, 1), ("samsung-990-pro-1tb", 1))  # no GPU
    # A 2.5-inch U.2 NVMe drive is not in an M.2 slot.
    assert "board.m2_gpu_lanes" not in _found((X870E, 1), ("nvidia-rtx-4090", 1),
                                              ("samsung-pm9d3a-7-68tb-mzwl67t6hblc", 1))
    assert "board.m2_gpu_lanes" not in _found((Z790, 1), ("nvidia-rtx-4090", 1),
                                              ("samsung-990-pro-1tb", 1))


def test_m2_drives_that_switch_off_sata_ports() -> None:
    cat = _cat(**{"asus-test-board": (Z790, {"m2_sata_sharing": True})})
    found = _found(("asus-test-board", 1), ("samsung-990-pro-1tb", 1),
                   ("samsung-870-evo-1tb", 1), ("seagate-exos-x24-24tb", 1), cat=cat)
    finding = found["board.m2_sata"]
    assert finding.severity is Severity.ADVICE
    assert finding.numbers == {"m2_drives": 1.0, "sata_drives": 2.0}
    assert "the build has 1 M.2 and 2 SATA drives" in finding.detail.en
    assert "board.m2_sata" not in _found(("asus-test-board", 1), ("samsung-990-pro-1tb", 1),
                                         cat=cat)  # no SATA drive
    assert "board.m2_sata" not in _found(("asus-test-board", 1), ("samsung-870-evo-1tb", 1),
                                         cat=cat)  # no M.2 drive
    assert "board.m2_sata" not in _found((Z790, 1), ("samsung-990-pro-1tb", 1),
                                         ("samsung-870-evo-1tb", 1))  # no sharing


# --- network adapters ------------------------------------------------------------------------

I9 = ("intel-core-i9-13900k", 1)  # PCIe Gen5


def test_a_nic_after_one_gpu_gets_the_x4_gen4_chipset_slot() -> None:
    found = _found(I9, (Z890, 1), ("nvidia-rtx-4090", 1), (E810, 1))
    finding = found["board.nic_pcie"]
    # Slot 2 with two cards: x4 Gen4 = 1.969 x 4 x 8 = 63.008 Gb/s < 100 Gb/s.
    assert finding.severity is Severity.BOTTLENECK
    assert finding.numbers["port_gbit"] == 100
    assert finding.numbers["link_gbit"] == pytest.approx(1.969 * 4 * 8)
    assert "a 100 Gb/s port on PCIe Gen4 x4, about 63 Gb/s per direction" in finding.detail.en


def test_a_nic_alone_gets_the_first_slot() -> None:
    # Slot 1, x16 Gen5, but the E810 is Gen4: 1.969 x 16 x 8 = 252 Gb/s >= 100.
    assert "board.nic_pcie" not in _found(I9, (Z890, 1), (E810, 1))


def test_two_nics_take_consecutive_slots() -> None:
    found = _all(I9, (Z890, 1), (E810, 2))
    (slow,) = [f for f in found if f.code == "board.nic_pcie"]
    assert slow.numbers["link_gbit"] == pytest.approx(1.969 * 4 * 8)  # the second, x4


def test_a_nic_after_two_gpus_gets_the_x1_slot() -> None:
    found = _found(I9, (Z890, 1), ("nvidia-rtx-4090", 2), (E810, 1))
    # Third slot with three cards: x1 Gen4 = 1.969 x 8 = 15.752 Gb/s.
    assert found["board.nic_pcie"].numbers["link_gbit"] == pytest.approx(1.969 * 1 * 8)


def test_no_slot_left_names_the_count() -> None:
    found = _found(I9, (Z890, 1), ("nvidia-rtx-4090", 3), (E810, 1))
    finding = found["board.nic_no_slot"]
    assert finding.numbers == {"slots": 3.0, "gpus": 3.0}
    assert "board.nic_pcie" not in found
    assert "wires at most 3 x16-size slots; the GPUs take 3" in finding.detail.en
    # An NVLink bridge is not an adapter that needs a slot.
    assert _found(I9, (Z890, 1), ("nvidia-rtx-4090", 3),
                  ("nvidia-nvlink-bridge-2way-ga102", 1)) == {}


def test_a_slot_of_unknown_generation_keeps_the_adapters() -> None:
    found = _found(("intel-core-i5-12400f", 1), ("asus-prime-b660-plus-d4", 1),
                   ("nvidia-rtx-3060-12gb", 1), (E810, 1))
    # Chipset slot x4, generation not given: the E810's Gen4 (below the CPU's Gen5) at x4.
    assert found["board.nic_pcie"].numbers["link_gbit"] == pytest.approx(1.969 * 4 * 8)
    assert "PCIe Gen4 x4" in found["board.nic_pcie"].detail.en


def test_without_a_board_the_adapter_and_cpu_decide() -> None:
    ndr = "nvidia-connectx-7-ndr-osfp"
    assert "board.nic_pcie" not in _found(I9, (ndr, 1))  # Gen5 x16: 504 Gb/s >= 400
    cat = _cat(**{"intel-test-gen4-cpu": ("intel-core-i9-13900k", {"pcie_gen": 4})})
    slow = _found(("intel-test-gen4-cpu", 1), (ndr, 1), cat=cat)["board.nic_pcie"]
    assert slow.numbers == {"port_gbit": 400.0, "link_gbit": pytest.approx(1.969 * 16 * 8)}
    # An adapter whose PCIe link is not in the catalog is not judged.
    assert _found(I9, ("nvidia-connectx-7-25gbe-sfp56", 1)) == {}


# --- one adapter per GPU across nodes ----------------------------------------------------------


@pytest.mark.parametrize(("nodes", "gpus", "nics", "advice"), [
    (2, 2, 1, True),
    (1, 2, 1, False),  # one node: no traffic between nodes
    (2, 1, 1, False),  # one GPU per node
    (2, 2, 0, False),  # no adapter: nothing to share
    (2, 3, 2, True),
    (2, 2, 2, False),  # one each
])
def test_one_nic_per_gpu(nodes: int, gpus: int, nics: int, advice: bool) -> None:
    lines = [("nvidia-rtx-5090", gpus)] + ([(E810, nics)] if nics else [])
    found = _found(*lines, nodes=nodes)
    assert ("board.nic_per_gpu" in found) is advice
    if advice:
        assert found["board.nic_per_gpu"].numbers == {"gpus": float(gpus), "nics": float(nics)}


# --- what the findings say ---------------------------------------------------------------------


def test_without_a_board_an_intel_cpu_still_gets_intels_note() -> None:
    found = _found(("intel-core-i9-13900k", 1), (DDR5_KIT, 2))
    # The CPU's 2 channels, 4 modules: Intel's desktop rating applies.
    finding = found["board.memory_2dpc"]
    assert finding.numbers == {"modules": 4.0, "channels": 2.0, "rated_mts": 5600.0}
    assert finding.detail.en.endswith("Intel rates its desktop CPUs well below one DIMM per "
                                      "channel with two (about 4,000-4,400 MT/s).")


def _every_board_finding() -> list[Finding]:
    limit = _cat(**{"asus-test-board": (Z790, {"max_memory_speed_2dpc_mts": 4800,
                                               "m2_sata_sharing": True})})
    gen4 = _cat(**{"intel-test-gen4-cpu": ("intel-core-i9-13900k", {"pcie_gen": 4})})
    out = _all(("intel-core-i9-13900k", 1), ("asus-test-board", 1), (DDR5_KIT, 2), (RDIMM, 1),
               ("samsung-990-pro-1tb", 1), ("samsung-870-evo-1tb", 1), cat=limit)
    out += _all(*INTEL_DESK, (DDR5_KIT, 2))
    out += _all((X870E, 1), ("nvidia-rtx-4090", 1), ("samsung-990-pro-1tb", 1))
    out += _all(I9, (Z890, 1), ("nvidia-rtx-4090", 3), (E810, 1))
    out += _all(("intel-test-gen4-cpu", 1), ("nvidia-connectx-7-ndr-osfp", 1), cat=gen4)
    build = Build(name="t", nodes=2, line_items=[LineItem(part_id="nvidia-rtx-5090", quantity=2),
                                                 LineItem(part_id=E810, quantity=1)])
    return out + board_checks(Node(build, load_catalog()))


def test_every_board_finding_speaks_both_languages() -> None:
    findings = _every_board_finding()
    assert {f.code for f in findings} == {
        "board.memory_2dpc", "board.ecc", "board.m2_gpu_lanes", "board.m2_sata",
        "board.nic_no_slot", "board.nic_pcie", "board.nic_per_gpu"}
    for f in findings:
        for text in (f.title, f.detail, f.fix, f.source):
            assert isinstance(text, Msg), f.code
            for words in (text.en, text.zh):
                assert isinstance(words, str) and words.strip() and "None" not in words, f.code


def test_the_board_figure_is_named_in_both_languages() -> None:
    cat = _cat(**{"asus-test-board": (Z790, {"max_memory_speed_2dpc_mts": 4800})})
    finding = _found(("intel-core-i9-13900k", 1), ("asus-test-board", 1), (DDR5_KIT, 2),
                     cat=cat)["board.memory_2dpc"]
    assert finding.detail.zh.endswith("ROG MAXIMUS Z790 FORMULA 每通道两条时额定 4800 MT/s。")
    assert finding.source == Msg("vendor board specifications (memory QVL, 2DPC)",
                                 "主板厂商规格（内存兼容列表、每通道两条）")
