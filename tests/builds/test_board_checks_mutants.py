"""Board limits at their edges, found unpinned by mutation testing (scripts/mutate.py
builds.board_checks): two DIMMs per channel across kits and sockets, ECC, M.2 lane and SATA
sharing, network adapters in narrow or missing slots, and one adapter per GPU across nodes.
Figures are the catalog's (the Z890 AORUS MASTER wires x16 Gen5 / x4 Gen4 / x1 Gen4 by GPU
count, the B660 its second slot x4 from the chipset with no generation given; the E810 is a
100 Gb/s Gen4 x16 adapter, the ConnectX-7 NDR 400 Gb/s Gen5 x16) and PCIe payload per lane
per direction (docs/hardware-sources.md sec. 3: Gen4 1.969 GB/s, Gen5 3.938 GB/s).
"""

from __future__ import annotations

import pytest
from catalog_variants import catalog_with as _cat

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


def test_amd_am5_gets_amds_four_module_figure() -> None:
    # Two 2-module DDR5-5600 kits on a Ryzen 7950X: 4 modules on 2 channels; AMD rates four
    # DDR5 modules on AM5 at DDR5-3600 (docs/hardware-sources.md sec. 6), below the kits' 5600.
    found = _found(("amd-ryzen-9-7950x", 1), ("asus-rog-strix-x870e-e-gaming-wifi", 1),
                   (DDR5_KIT, 2))["board.memory_2dpc"]
    assert found.numbers == {"modules": 4.0, "channels": 2.0, "rated_mts": 5600.0}
    assert found.source.en.startswith("AMD Ryzen 7000/9000 specifications")
    # Kits rated at AMD's figure lose nothing.
    cat = _cat(**{"corsair-test-3600": (DDR5_KIT, {"speed_mts": 3600})})
    assert "board.memory_2dpc" not in _found(("amd-ryzen-9-7950x", 1),
                                             ("asus-rog-strix-x870e-e-gaming-wifi", 1),
                                             ("corsair-test-3600", 2), cat=cat)
    # Threadripper (sTR5) has no such figure in the catalog: not judged.
    assert "board.memory_2dpc" not in _found(("amd-ryzen-threadripper-7960x", 1),
                                             (RDIMM, 8))


def test_unknown_channels_are_not_judged() -> None:
    cat = _cat(**{"intel-test-cpu": ("intel-core-i9-13900k", {"memory_channels": None})})
    # No board and a CPU without a channel count: nothing to compare the modules with.
    assert "board.memory_2dpc" not in _found(("intel-test-cpu", 1), (DDR5_KIT, 2), cat=cat)


def test_two_sockets_drive_twice_the_channels() -> None:
    board = "asrock-rack-4u8g-turin2"  # 12 channels per socket, two sockets, 24 slots
    # A test board with two slots per channel (48 slots) and a 2DPC figure of 4,400 MT/s.
    cat = _cat(**{"asrock-rack-test": (board, {"max_memory_speed_2dpc_mts": 4400,
                                               "memory_slots": 48})})
    # 2 x EPYC 9554: 2 x 12 = 24 channels for 24 RDIMMs, one per channel.
    assert "board.memory_2dpc" not in _found(("amd-epyc-9554", 2), ("asrock-rack-test", 1),
                                             (RDIMM, 24), cat=cat)
    # One CPU in the two-socket board drives its 12 channels only: 24 modules, two each.
    one = _found(("amd-epyc-9554", 1), ("asrock-rack-test", 1), (RDIMM, 24), cat=cat)
    assert one["board.memory_2dpc"].numbers == {"modules": 24.0, "channels": 12.0,
                                                "rated_mts": 5600.0}
    # The shipped board has one slot per channel (24 slots, 2 x 12 channels): a second module
    # per channel has no slot, so it is not a two-per-channel case (compat.dimm_slots_cpu).
    shipped = _cat(**{"asrock-rack-test": (board, {"max_memory_speed_2dpc_mts": 4400})})
    assert "board.memory_2dpc" not in _found(("amd-epyc-9554", 1), ("asrock-rack-test", 1),
                                             (RDIMM, 24), cat=shipped)


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

X870E = "asus-test-flag-board"  # the X870E-E known only by the old "an M.2 slot shares" flag
# (the shipped board has its slot-by-slot map: tests/builds/test_fit26_m2_sharing.py)
FLAG = _cat(**{X870E: ("asus-rog-strix-x870e-e-gaming-wifi",
                       {"m2_slot_map": (), "m2_gpu_lane_sharing": True})})


def test_an_m2_drive_and_a_gpu_on_a_lane_sharing_board() -> None:
    found = _found((X870E, 1), ("nvidia-rtx-4090", 1), ("samsung-990-pro-1tb", 2), cat=FLAG)
    assert found["board.m2_gpu_lanes"].numbers == {"m2_drives": 2.0}
    assert "board.m2_gpu_lanes" not in _found((X870E, 1), ("samsung-990-pro-1tb", 1),
                                              cat=FLAG)  # no GPU
    # A 2.5-inch U.2 NVMe drive is not in an M.2 slot.
    assert "board.m2_gpu_lanes" not in _found((X870E, 1), ("nvidia-rtx-4090", 1),
                                              ("samsung-pm9d3a-7-68tb-mzwl67t6hblc", 1),
                                              cat=FLAG)
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
    out += _all((X870E, 1), ("nvidia-rtx-4090", 1), ("samsung-990-pro-1tb", 1), cat=FLAG)
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


# The words of each finding as the build-check table and the quote show them (the builds of
# _every_board_finding: 5 DDR5 modules under a 4,800 MT/s board figure, an RDIMM on the
# Z790, drives on sharing boards, three GPUs and a NIC on the Z890, a 400 Gb/s NIC on
# Gen4, two nodes of two GPUs with one adapter).
WORDS = {
    "board.memory_2dpc": (
        Msg('Two DIMMs per channel lower the memory speed',
            '每通道两条内存会降低内存频率'),
        Msg('5 DDR5 modules on 2 channels (two per channel); the kits are rated 5600 MT/s. '
            'ROG MAXIMUS Z790 FORMULA rates two DIMMs per channel at 4800 MT/s.',
            '2 个通道上 5 条 DDR5（每通道两条）；内存额定 5600 MT/s。ROG MAXIMUS Z790 FORMULA '
            '每通道两条时额定 4800 MT/s。'),
        Msg('Use one larger module per channel to keep the rated speed, or accept the lower '
            'speed for the capacity.',
            '每通道用一条更大容量的内存以保持额定频率，或为容量接受较低频率。'),
    ),
    "board.ecc": (
        Msg('The board does not support ECC memory',
            '主板不支持 ECC 内存'),
        Msg('32GB DDR5-5600 ECC RDIMM (M321R4GA0PB0-CWM) is ECC memory; ROG MAXIMUS Z790 '
            'FORMULA runs memory without ECC, so errors are neither corrected nor reported.',
            '32GB DDR5-5600 ECC RDIMM (M321R4GA0PB0-CWM) 为 ECC 内存；ROG MAXIMUS Z790 FORMULA '
            '不支持 ECC，内存错误既不会被纠正也不会被报告。'),
        Msg('Choose a workstation or server board with ECC support, or save the cost with '
            'non-ECC modules.',
            '选择支持 ECC 的工作站或服务器主板，或改用非 ECC 内存以节省成本。'),
    ),
    "board.m2_sata": (
        Msg('An M.2 drive can disable SATA ports',
            'M.2 硬盘可能禁用 SATA 接口'),
        Msg('ROG MAXIMUS Z790 FORMULA turns off SATA ports when a shared M.2 slot is used; '
            'the build has 1 M.2 and 1 SATA drive.',
            'ROG MAXIMUS Z790 FORMULA 的共享 M.2 插槽插上硬盘时会禁用部分 SATA 接口；配置中有 1'
            ' 块 M.2 与 1 块 SATA 硬盘。'),
        Msg('Check the manual and connect the SATA drives to ports that stay on.',
            '查阅手册，把 SATA 硬盘接在不受影响的接口上。'),
    ),
    "board.m2_gpu_lanes": (
        Msg('An M.2 drive can take lanes from the GPU slot',
            'M.2 硬盘可能占用 GPU 插槽的通道'),
        Msg('ROG STRIX X870E-E GAMING WIFI shares CPU lanes between an M.2 slot and the '
            'first x16 slot: with that M.2 slot filled the GPU runs at x8.',
            'ROG STRIX X870E-E GAMING WIFI 的某个 M.2 插槽与第一个 x16 插槽共享 CPU 通道：该 M.2 '
            '插槽插上硬盘后 GPU '
            '以 x8 运行。'),
        Msg("Put the drives in the M.2 slots wired to the chipset (see the manual's "
            'lane-sharing table).',
            '把硬盘装在连接芯片组的 M.2 插槽上（见主板手册的通道共享表）。'),
    ),
    "board.nic_no_slot": (
        Msg('No x16-size slot left for the network adapter',
            '没有空余的 x16 插槽给网卡'),
        Msg('Z890 AORUS MASTER wires at most 3 x16-size slots; the GPUs take 3, so Ethernet '
            'E810-CQDA2 dual-port 100GbE needs another slot (often a narrow chipset slot).',
            'Z890 AORUS MASTER 最多 3 个 x16 尺寸插槽；GPU 占用 3 个，Ethernet E810-CQDA2 dual-po'
            'rt '
            '100GbE 需另找插槽（通常是较窄的芯片组插槽）。'),
        Msg('Use a board with one more full-width slot (workstation or server).',
            '选择多一个全宽插槽的主板（工作站或服务器）。'),
    ),
    "board.nic_pcie": (
        Msg("The network adapter's PCIe link is slower than its port",
            '网卡的 PCIe 链路慢于其网口速率'),
        Msg('ConnectX-7 NDR 400Gb/s single-port OSFP adapter (PCIe): a 400 Gb/s port on PCIe '
            'Gen4 x16, about 252 Gb/s per direction.',
            'ConnectX-7 NDR 400Gb/s single-port OSFP adapter (PCIe)：网口 400 Gb/s，PCIe Gen4 '
            'x16 单向约 252 Gb/s。'),
        Msg('Use a PCIe Gen5 host and a full x16 slot for 400 Gb/s, or a 200 Gb/s adapter on Gen4.',
            '400 Gb/s 网卡需 PCIe Gen5 主机和完整 x16 插槽；Gen4 平台可改用 200 Gb/s 网卡。'),
    ),
    "board.nic_per_gpu": (
        Msg('Fewer network adapters than GPUs per node',
            '每节点网卡少于 GPU'),
        Msg('2 nodes with 2 GPUs and 1 network adapter each: in data-parallel training 2 '
            'GPUs share 1 link for gradient exchange between nodes.',
            '2 个节点，每节点 2 块 GPU、1 块网卡：数据并行训练时 2 块 GPU 共用 1 条链路在节点间'
            '交换梯度。'),
        Msg("Fit one adapter per GPU (on the GPU's PCIe switch, with GPUDirect RDMA) when "
            'inter-node traffic limits scaling.',
            '若节点间通信限制扩展，为每块 GPU 配一块网卡（与 GPU 在同一 PCIe 交换芯片下，启用 G'
            'PUDirect RDMA）。'),
    ),
}


def test_every_board_finding_word_for_word() -> None:
    found = {}
    for f in _every_board_finding():
        found.setdefault(f.code, f)
    assert set(found) == set(WORDS)
    for code, (title, detail, fix) in WORDS.items():
        got = found[code]
        assert (got.title, got.detail, got.fix) == (title, detail, fix), code

def test_intels_note_in_both_languages() -> None:
    finding = _found(("intel-core-i9-13900k", 1), (DDR5_KIT, 2))["board.memory_2dpc"]
    assert finding.detail.zh.endswith(
        "Intel 桌面 CPU 每通道两条时的额定频率远低于每通道一条（约 4,000-4,400 MT/s）。")


def test_an_nvlink_bridge_is_not_counted_as_a_network_adapter() -> None:
    found = _found(("nvidia-rtx-5090", 2), (E810, 1), ("nvidia-nvlink-bridge-2way-ga102", 1),
                   nodes=2)
    assert found["board.nic_per_gpu"].numbers == {"gpus": 2.0, "nics": 1.0}


def test_each_nic_past_the_slots_is_named() -> None:
    found = [f for f in _all(I9, (Z890, 1), ("nvidia-rtx-4090", 3), (E810, 2))
             if f.code == "board.nic_no_slot"]
    assert len(found) == 2


def test_one_slot_in_the_singular() -> None:
    one = load_catalog().get(Z890).motherboard.gpu_lane_configs[:1]
    cat = _cat(**{"gigabyte-test-board": (Z890, {"gpu_lane_configs": one})})
    finding = _found(I9, ("gigabyte-test-board", 1), ("nvidia-rtx-4090", 1), (E810, 1),
                     cat=cat)["board.nic_no_slot"]
    assert "wires at most 1 x16-size slot; the GPUs take 1" in finding.detail.en


def test_a_nic_with_an_unknown_link_is_skipped_and_the_next_judged() -> None:
    cat = _cat(**{"intel-test-gen4-cpu": ("intel-core-i9-13900k", {"pcie_gen": 4})})
    found = _all(("intel-test-gen4-cpu", 1), ("nvidia-connectx-7-25gbe-sfp56", 1),
                 ("nvidia-connectx-7-ndr-osfp", 1), cat=cat)
    (slow,) = [f for f in found if f.code == "board.nic_pcie"]
    assert slow.numbers["port_gbit"] == 400
    # With no CPU and no board nothing says the link's generation: not judged, no error.
    assert _found(("nvidia-connectx-7-25gbe-sfp56", 1)) == {}
    # An adapter of unknown width in a known slot takes the slot's x16 (Gen5, 504 Gb/s).
    assert _found(I9, (Z890, 1), ("nvidia-connectx-7-25gbe-sfp56", 1)) == {}


def test_a_link_exactly_as_fast_as_the_port_is_enough() -> None:
    # x4 Gen4 = 1.969 x 4 x 8 = 63.008 Gb/s, a port of exactly 63.008 Gb/s.
    cat = _cat(**{"intel-test-nic": (E810, {"rate_bits_per_s": 63.008e9})})
    assert "board.nic_pcie" not in _found(I9, (Z890, 1), ("nvidia-rtx-4090", 1),
                                          ("intel-test-nic", 1), cat=cat)
    faster = _cat(**{"intel-test-nic": (E810, {"rate_bits_per_s": 63.1e9})})
    assert "board.nic_pcie" in _found(I9, (Z890, 1), ("nvidia-rtx-4090", 1),
                                      ("intel-test-nic", 1), cat=faster)


def test_several_adapters_in_the_plural() -> None:
    found = _found(("nvidia-rtx-5090", 3), (E810, 2), nodes=2)
    assert found["board.nic_per_gpu"].detail.en == (
        "2 nodes with 3 GPUs and 2 network adapters each: in data-parallel training 3 GPUs "
        "share 2 links for gradient exchange between nodes.")
