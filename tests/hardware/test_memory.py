"""Memory probe: /proc/meminfo, SMBIOS type 17 parsing, EDAC, and the needs-root reason."""

from __future__ import annotations

import struct

import psutil

from torchrig.hardware import memory, sysfs
from torchrig.hardware.memory import parse_meminfo, parse_smbios_memory_devices, probe_memory

MEMINFO = """MemTotal:       65536000 kB
MemFree:         1000000 kB
MemAvailable:   60000000 kB
Buffers:          200000 kB
SwapTotal:       8388604 kB
SwapFree:        8000000 kB
HugePages_Total:       0
"""


def _record(kind: int, length: int, fields: dict[int, bytes], strings: list[str]) -> bytes:
    body = bytearray(length)
    body[0], body[1] = kind, length
    for offset, value in fields.items():
        body[offset : offset + len(value)] = value
    tail = b"".join(s.encode() + b"\x00" for s in strings) + b"\x00" if strings else b"\x00\x00"
    return bytes(body) + tail


def _dimm(size_mb: int, mem_type: int, speed: int, configured: int) -> bytes:
    return _record(
        17,
        0x28,
        {
            0x0C: struct.pack("<H", size_mb),
            0x12: bytes([mem_type]),
            0x15: struct.pack("<H", speed),
            0x20: struct.pack("<H", configured),
        },
        ["DIMM_A1", "BANK 0", "Vendor"],
    )


def _table(*records: bytes) -> bytes:
    bios = _record(0, 0x18, {}, ["BIOS vendor"])
    return bios + b"".join(records) + _record(127, 4, {}, [])


def test_meminfo_sizes(tree):
    tree.write("proc/meminfo", MEMINFO)
    info = probe_memory(tree.roots, system="Linux")
    assert info.total_bytes == 65536000 * 1024
    assert info.available_bytes == 60000000 * 1024
    assert info.swap_total_bytes == 8388604 * 1024
    assert info.swap_used_bytes == (8388604 - 8000000) * 1024
    assert parse_meminfo("HugePages_Total:       0\n") == {"HugePages_Total": 0}


def test_old_kernel_without_memavailable(tree):
    tree.write("proc/meminfo", "MemTotal: 1024 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n")
    info = probe_memory(tree.roots, system="Linux")
    assert info.total_bytes == 1024 * 1024
    assert info.available_bytes is None and "MemAvailable" in info.unknown["available_bytes"].en


def test_smbios_ddr5_slowest_configured_speed(tree):
    tree.write("proc/meminfo", MEMINFO)
    tree.write_bytes(
        "sys/firmware/dmi/tables/DMI",
        _table(
            _dimm(16384, 0x22, 5600, 4800),
            _dimm(0, 0x02, 0, 0),  # empty slot: ignored
            _dimm(16384, 0x22, 5600, 5200),
        ),
    )
    info = probe_memory(tree.roots, system="Linux")
    assert info.dimm_type == "DDR5"
    assert info.dimm_speed_mts == 4800  # the bus runs at the slowest configured speed
    assert "dimm_type" not in info.unknown and "dimm_speed_mts" not in info.unknown


def test_smbios_rated_speed_when_configured_unknown():
    devices = parse_smbios_memory_devices(_table(_dimm(8192, 0x1A, 3200, 0)))
    assert [(d.type_name, d.speed_mts) for d in devices] == [("DDR4", 3200)]


def test_smbios_corrupt_table_does_not_loop():
    assert parse_smbios_memory_devices(b"\x11\x00\x00\x00" * 4) == []
    assert parse_smbios_memory_devices(b"") == []
    truncated = _dimm(8192, 0x1A, 3200, 3200)[:10]
    assert parse_smbios_memory_devices(truncated) == []


def test_dmi_needs_root(tree, monkeypatch):
    tree.write("proc/meminfo", MEMINFO)
    dmi = tree.write_bytes("sys/firmware/dmi/tables/DMI", _table(_dimm(8192, 0x1A, 3200, 3200)))

    def deny(path, **_kwargs):
        if path == dmi:
            return None, sysfs.unreadable(path, PermissionError())
        return real(path, **_kwargs)

    real = memory.read_bytes
    monkeypatch.setattr(memory, "read_bytes", deny)
    info = probe_memory(tree.roots, system="Linux")
    assert info.dimm_type is None and info.dimm_speed_mts is None
    assert info.unknown["dimm_speed_mts"].en == "needs root: dmidecode"
    assert info.unknown["dimm_type"].en.startswith("needs root: dmidecode")


def test_edac_gives_type_without_root(tree):
    tree.write("proc/meminfo", MEMINFO)
    tree.write("sys/devices/system/edac/mc/mc0/dimm0/dimm_mem_type", "Registered-DDR4\n")
    tree.write("sys/devices/system/edac/mc/mc0/dimm1/dimm_mem_type", "Registered-DDR4\n")
    tree.write("sys/devices/system/edac/mc/mc0/dimm2/dimm_mem_type", "Unknown\n")
    info = probe_memory(tree.roots, system="Linux")
    assert info.dimm_type == "DDR4"
    assert info.dimm_speed_mts is None and "not present" in info.unknown["dimm_speed_mts"].en


def test_portable_path_uses_psutil():
    info = probe_memory(system="Darwin")
    assert info.total_bytes == psutil.virtual_memory().total
    assert info.unknown["dimm_type"].en == "not read on macOS"


def test_real_machine_matches_psutil():
    info = probe_memory()
    assert info.total_bytes == psutil.virtual_memory().total
    assert info.swap_total_bytes == psutil.swap_memory().total
