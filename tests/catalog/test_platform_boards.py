"""Boards for the platforms the build checker recommends (Threadripper, EPYC, current desktop
sockets), with the slot, lane and memory figures the fit and board checks read."""

from __future__ import annotations

from torchrig.catalog import load_catalog
from torchrig.catalog.specs import GpuSlot


def test_every_board_takes_a_catalog_cpu() -> None:
    cat = load_catalog()
    cpu_sockets = {p.cpu.socket for p in cat.by_category("cpu")}
    for board in cat.by_category("motherboard"):
        assert board.motherboard.socket in cpu_sockets, board.id


def test_recommended_platforms_have_boards() -> None:
    sockets = {p.motherboard.socket for p in load_catalog().by_category("motherboard")}
    assert {"sTR5", "SP5", "AM5", "LGA1851"} <= sockets


def test_hardwareluxx_slot_tables() -> None:
    cat = load_catalog()
    x870e = cat.get("asus-rog-strix-x870e-e-gaming-wifi").motherboard
    assert x870e.x16_slot_positions == (3, 7)
    assert x870e.gpu_lane_configs[1][1] == GpuSlot(lanes=4, gen=4, via="chipset")
    assert x870e.m2_gpu_lane_sharing is True and x870e.m2_slots == 5
    z890 = cat.get("gigabyte-z890-aorus-master").motherboard
    assert z890.x16_slot_positions == (2, 6, 7)
    assert [s.lanes for s in z890.gpu_lane_configs[2]] == [16, 4, 1]


def test_dual_socket_gpu_server() -> None:
    server = load_catalog().get("asrock-rack-4u8g-turin2").motherboard
    assert (server.cpu_sockets, server.memory_channels, server.memory_slots) == (2, 12, 24)
    assert len(server.gpu_lane_configs) == 8
    assert all(s == GpuSlot(lanes=16, gen=5, via="cpu") for s in server.gpu_lane_configs[7])
    assert server.module_form == "RDIMM"
