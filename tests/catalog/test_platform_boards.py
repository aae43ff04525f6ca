"""Boards for the platforms the build checker recommends (Threadripper, Xeon W, EPYC, current
desktop sockets), with the slot, lane and memory figures the fit and board checks read."""

from __future__ import annotations

from torchrig.catalog import load_catalog
from torchrig.catalog.matching import match_cpu
from torchrig.catalog.specs import GpuSlot
from torchrig.units import GiB

GEN5_X16 = GpuSlot(lanes=16, gen=5, via="cpu")


def test_every_board_takes_a_catalog_cpu() -> None:
    cat = load_catalog()
    cpu_sockets = {p.cpu.socket for p in cat.by_category("cpu")}
    for board in cat.by_category("motherboard"):
        assert board.motherboard.socket in cpu_sockets, board.id


def test_recommended_platforms_have_boards() -> None:
    sockets = {p.motherboard.socket for p in load_catalog().by_category("motherboard")}
    assert {"sTR5", "SP5", "LGA4677", "AM5", "LGA1851"} <= sockets


def test_each_workstation_platform_has_a_single_socket_registered_ecc_board() -> None:
    boards = load_catalog().by_category("motherboard")
    for socket in ("sTR5", "SP5", "LGA4677"):
        assert any(b.motherboard.socket == socket and b.motherboard.cpu_sockets == 1
                   and b.motherboard.module_form == "RDIMM" and b.motherboard.ecc
                   for b in boards), socket


def test_hardwareluxx_slot_tables() -> None:
    cat = load_catalog()
    x870e = cat.get("asus-rog-strix-x870e-e-gaming-wifi").motherboard
    assert x870e.x16_slot_positions == (3, 7)
    assert x870e.gpu_lane_configs[1][1] == GpuSlot(lanes=4, gen=4, via="chipset")
    # hardwareluxx's M.2 table: M.2_2 and M.2_3 share the x16 slot's CPU lanes (x8 when used).
    assert x870e.m2_slots == 5 and len(x870e.m2_slot_map) == 5
    assert [s.name for s in x870e.m2_slot_map if s.gpu_slot_lanes == 8] == ["M.2_2", "M.2_3"]
    z890 = cat.get("gigabyte-z890-aorus-master").motherboard
    assert z890.x16_slot_positions == (2, 6, 7)
    assert [s.lanes for s in z890.gpu_lane_configs[2]] == [16, 4, 1]


def test_dual_socket_gpu_server() -> None:
    server = load_catalog().get("asrock-rack-4u8g-turin2").motherboard
    assert (server.cpu_sockets, server.memory_channels, server.memory_slots) == (2, 12, 24)
    assert len(server.gpu_lane_configs) == 8
    assert all(s == GpuSlot(lanes=16, gen=5, via="cpu") for s in server.gpu_lane_configs[7])
    assert server.module_form == "RDIMM"


def test_wrx90_board_from_its_smbios_table_and_review() -> None:
    # SMBIOS: 8 DIMMs on channels A-H, 2 TB, registered ECC; seven PCIe 5 x16-size slots,
    # four M.2. Review: six of the seven are wired x16, so six GPUs is the most entered.
    part = load_catalog().get("asus-pro-ws-wrx90e-sage-se")
    b = part.motherboard
    assert (b.socket, b.cpu_sockets, b.memory_type) == ("sTR5", 1, "DDR5")
    assert (b.memory_slots, b.memory_channels, b.max_memory_bytes) == (8, 8, 2048 * GiB)
    assert (b.module_form, b.ecc, b.x16_slots, b.m2_slots) == ("RDIMM", True, 7, 4)
    assert len(b.gpu_lane_configs) == 6
    assert all(slot == GEN5_X16 for slot in b.gpu_lane_configs[5])
    assert "peerip.com" in part.field_sources["gpu_lane_configs"]
    assert part.is_derived("gpu_lane_configs") and part.prices == ()


def test_w790_board_from_its_smbios_table() -> None:
    # SMBIOS with a w9-3495X: 8 DIMMs (A1-H1), 2 TB, registered ECC; PCIEX16(G5)_1-7 with
    # slot 6 at x8, three M.2.
    part = load_catalog().get("asus-pro-ws-w790e-sage-se")
    b = part.motherboard
    assert (b.socket, b.cpu_sockets, b.memory_type) == ("LGA4677", 1, "DDR5")
    assert (b.memory_slots, b.memory_channels, b.max_memory_bytes) == (8, 8, 2048 * GiB)
    assert (b.module_form, b.ecc, b.x16_slots, b.m2_slots) == ("RDIMM", True, 7, 3)
    assert [s.lanes for s in b.gpu_lane_configs[6]] == [16, 16, 16, 16, 16, 16, 8]
    assert all(slot.gen == 5 and slot.via == "cpu" for slot in b.gpu_lane_configs[6])
    assert "linuxhw/DMI" in part.field_sources["x16_slots"]


def test_single_socket_sp5_board_from_its_smbios_tables() -> None:
    # SMBIOS of three EPYC 9454P systems: 12 DIMMs on channels A-L, 6 TB, registered ECC;
    # two PCIe 5 x16 slots (PCIE6, PCIE7) and two M.2.
    b = load_catalog().get("asrock-rack-genoad12m3-2q-h").motherboard
    assert (b.socket, b.cpu_sockets, b.memory_type) == ("SP5", 1, "DDR5")
    assert (b.memory_slots, b.memory_channels, b.max_memory_bytes) == (12, 12, 6144 * GiB)
    assert (b.module_form, b.ecc, b.x16_slots, b.m2_slots) == ("RDIMM", True, 2, 2)
    assert b.gpu_lane_configs == ((GEN5_X16,), (GEN5_X16, GEN5_X16))


def test_epyc_9005_and_xeon_w2400_platform_figures() -> None:
    cat = load_catalog()
    for pid in ("amd-epyc-9575f", "amd-epyc-9555", "amd-epyc-9655"):
        cpu = cat.get(pid).cpu
        assert (cpu.socket, cpu.memory_channels, cpu.memory_types) == ("SP5", 12, ("DDR5",)), pid
        assert cat.get(pid).is_derived("memory_channels"), pid
    w5 = cat.get("intel-xeon-w5-2455x").cpu
    assert (w5.memory_channels, w5.pcie_lanes, w5.max_turbo_power_w, w5.max_sockets) == (
        4, 64, 240, 1)
    assert w5.memory_bandwidth == 153.6e9


def test_xeon_6900p_platform_figures() -> None:
    # Hardwareluxx launch table: LGA7529, 12x DDR5-6400, 96 PCIe/CXL lanes; one or two sockets.
    cat = load_catalog()
    for pid in ("intel-xeon-6980p", "intel-xeon-6972p"):
        cpu = cat.get(pid).cpu
        assert (cpu.socket, cpu.max_sockets, cpu.memory_channels) == ("LGA7529", 2, 12), pid
        assert [m.text() for m in cpu.memory_support] == ["DDR5-6400"], pid
        assert (cpu.pcie_lanes, cpu.pcie_gen, cpu.memory_bandwidth) == (96, 5, 614.4e9), pid
        assert cat.get(pid).is_derived("memory_bandwidth"), pid
    # The string Linux reports for the CPU finds the part.
    detected = match_cpu(cat, "Intel(R) Xeon(R) 6980P CPU @ 2.00GHz")
    assert detected is not None and detected.id == "intel-xeon-6980p"
