"""Memory probe boundaries (hardware/memory.py): /proc/meminfo lines, the SMBIOS type 17 walk,
EDAC names, psutil failures and every unknown-reason text, in both languages.

Inputs are real formats: /proc/meminfo as Linux 6.x prints it (proc(5): "kB" is KiB), SMBIOS
structures laid out as DMTF DSP0134 3.x section 7.18 says (type 17: size word at 0x0C, memory
type byte at 0x12, speed word at 0x15, configured speed word at 0x20; a structure is its
formatted area followed by strings, ended by two NUL bytes; type 127 ends the table), EDAC's
``dimm_mem_type`` names as drivers/edac/edac_mc_sysfs.c spells them ("Registered-DDR4").
Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import struct
import types

import psutil
import pytest

from torchrig.hardware import memory
from torchrig.hardware.memory import (
    NEEDS_ROOT,
    parse_meminfo,
    parse_smbios_memory_devices,
    probe_memory,
)
from torchrig.i18n import Msg

# /proc/meminfo of a 16 GiB Linux 6.5 machine (first lines, as the kernel prints them).
MEMINFO_16G = """MemTotal:       16318480 kB
MemFree:         1012344 kB
MemAvailable:    9876544 kB
Buffers:          349876 kB
Cached:          8123456 kB
SwapCached:          512 kB
SwapTotal:       2097148 kB
SwapFree:        2095100 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
"""


def _structure(kind: int, length: int, fields: dict[int, bytes], strings: bytes) -> bytes:
    body = bytearray(length)
    body[0], body[1] = kind, length
    for offset, value in fields.items():
        body[offset:offset + len(value)] = value
    return bytes(body) + strings


def _type17(size: int, mem_type: int, speed: int, configured: int | None = None,
            length: int = 0x28) -> bytes:
    fields = {0x0C: struct.pack("<H", size), 0x12: bytes([mem_type]),
              0x15: struct.pack("<H", speed)}
    if configured is not None:
        fields[0x20] = struct.pack("<H", configured)
    return _structure(17, length, fields, b"DIMM_A1\x00\x00")


END = _structure(127, 4, {}, b"\x00\x00")


# --------------------------------------------------------------------------- /proc/meminfo


def test_meminfo_lines_in_bytes():
    values = parse_meminfo(MEMINFO_16G)
    assert values["MemTotal"] == 16318480 * 1024  # 16,710,123,520 B
    assert values["SwapFree"] == 2095100 * 1024
    assert values["HugePages_Total"] == 0  # a count: no unit, not multiplied
    assert values["Hugepagesize"] == 2048 * 1024
    assert len(values) == 10


def test_meminfo_odd_lines_are_skipped_not_guessed():
    text = ("no colon here 5 kB\n"  # no ":": skipped
            "Empty:\n"  # a key without a value: skipped
            "Word: many kB\n"  # not a number: skipped
            "  Spaced  :   7 KB\n"  # key stripped; the unit compared without case
            "Plain: 12\n"  # no unit: the number itself
            "Pages: 3 pages\n")  # a unit other than kB: the number itself
    assert parse_meminfo(text) == {"Spaced": 7 * 1024, "Plain": 12, "Pages": 3}


def test_linux_sizes_and_swap_used(tree):
    tree.write("proc/meminfo", MEMINFO_16G)
    info = probe_memory(tree.roots, system="Linux")
    assert info.total_bytes == 16318480 * 1024
    assert info.available_bytes == 9876544 * 1024
    assert info.swap_total_bytes == 2097148 * 1024
    assert info.swap_used_bytes == (2097148 - 2095100) * 1024  # 2048 KiB = 2,097,152 B
    for field in ("total_bytes", "available_bytes", "swap_total_bytes", "swap_used_bytes"):
        assert field not in info.unknown


def test_each_missing_meminfo_line_has_its_own_reason(tree):
    path = tree.write("proc/meminfo", "MemFree: 1000 kB\n")
    info = probe_memory(tree.roots, system="Linux")
    assert (info.total_bytes, info.available_bytes) == (None, None)
    assert (info.swap_total_bytes, info.swap_used_bytes) == (None, None)
    for field, key in (("total_bytes", "MemTotal"), ("available_bytes", "MemAvailable"),
                       ("swap_total_bytes", "SwapTotal"), ("swap_used_bytes", "SwapFree")):
        assert info.unknown[field] == Msg(f"no {key} in {path}", f"{path} 中没有 {key}")


def test_swap_total_without_swap_free_leaves_only_the_used_size_unknown(tree):
    path = tree.write("proc/meminfo", "MemTotal: 2048 kB\nMemAvailable: 1024 kB\n"
                                      "SwapTotal: 4096 kB\n")
    info = probe_memory(tree.roots, system="Linux")
    assert info.swap_total_bytes == 4096 * 1024 and info.swap_used_bytes is None
    assert info.unknown["swap_used_bytes"] == Msg(f"no SwapFree in {path}",
                                                  f"{path} 中没有 SwapFree")
    # the DIMM fields are unknown too (no DMI table, no EDAC: tested below); nothing else is
    assert set(info.unknown) == {"swap_used_bytes", "dimm_type", "dimm_speed_mts"}


def test_swap_free_without_swap_total_gives_no_used_size(tree):
    tree.write("proc/meminfo", "MemTotal: 2048 kB\nSwapFree: 1024 kB\n")
    info = probe_memory(tree.roots, system="Linux")
    assert info.swap_total_bytes is None and info.swap_used_bytes is None


def _fake_psutil(monkeypatch, vm=None, swap=None):
    def answer(value):
        def call():
            if isinstance(value, BaseException):
                raise value
            return value
        return call

    monkeypatch.setattr(psutil, "virtual_memory", answer(vm))
    monkeypatch.setattr(psutil, "swap_memory", answer(swap))


def test_no_meminfo_falls_back_to_psutil(tree, monkeypatch):
    _fake_psutil(monkeypatch, types.SimpleNamespace(total=8 * 2**30, available=5 * 2**30),
                 types.SimpleNamespace(total=2**30, used=2**20))
    info = probe_memory(tree.roots, system="Linux")  # the tree has no proc/meminfo
    assert (info.total_bytes, info.available_bytes) == (8 * 2**30, 5 * 2**30)
    assert (info.swap_total_bytes, info.swap_used_bytes) == (2**30, 2**20)


def test_psutil_failures_become_reasons(monkeypatch):
    _fake_psutil(monkeypatch, psutil.AccessDenied(), OSError("swap file gone"))
    info = probe_memory(system="Windows")
    assert info.total_bytes is None and info.swap_total_bytes is None
    denied = Msg(f"psutil: {psutil.AccessDenied()}", "psutil 读取失败：AccessDenied")
    assert info.unknown["total_bytes"] == denied and info.unknown["available_bytes"] == denied
    swap = Msg("psutil: swap file gone", "psutil 读取失败：OSError")
    assert info.unknown["swap_total_bytes"] == swap and info.unknown["swap_used_bytes"] == swap
    assert info.unknown["dimm_type"] == Msg("not read on Windows", "在 Windows 上不读取")
    assert info.unknown["dimm_speed_mts"] == Msg("not read on Windows", "在 Windows 上不读取")


def test_macos_is_named_macos(monkeypatch):
    _fake_psutil(monkeypatch, types.SimpleNamespace(total=2**34, available=2**33),
                 types.SimpleNamespace(total=0, used=0))
    info = probe_memory(system="Darwin")
    assert (info.total_bytes, info.available_bytes) == (2**34, 2**33)
    assert (info.swap_total_bytes, info.swap_used_bytes) == (0, 0)
    assert info.unknown == {"dimm_type": Msg("not read on macOS", "在 macOS 上不读取"),
                            "dimm_speed_mts": Msg("not read on macOS", "在 macOS 上不读取")}


def test_the_system_defaults_to_this_machine(monkeypatch, tree):
    tree.write("proc/meminfo", "MemTotal: 4 kB\n")
    monkeypatch.setattr(memory.platform, "system", lambda: "Linux")
    assert probe_memory(tree.roots).total_bytes == 4096


# --------------------------------------------------------------------------- SMBIOS walk


def test_type17_fields_by_offset():
    # DDR5 (0x22) rated 5600 MT/s, configured 4800 MT/s: the configured speed is used.
    table = _type17(16384, 0x22, 5600, 4800) + END
    devices = parse_smbios_memory_devices(table)
    assert [(d.type_name, d.speed_mts) for d in devices] == [("DDR5", 4800)]


def test_every_memory_type_code_in_the_table():
    # DSP0134 3.7 table 76 ("Memory Device - Type"): the codes the module names.
    codes = {0x12: "DDR", 0x13: "DDR2", 0x18: "DDR3", 0x1A: "DDR4", 0x1B: "LPDDR",
             0x1C: "LPDDR2", 0x1D: "LPDDR3", 0x1E: "LPDDR4", 0x20: "HBM", 0x21: "HBM2",
             0x22: "DDR5", 0x23: "LPDDR5", 0x24: "HBM3"}
    table = b"".join(_type17(8192, code, 3200, 3200) for code in codes) + END
    assert [d.type_name for d in parse_smbios_memory_devices(table)] == list(codes.values())
    # 0x02 is "Unknown": no name, the speed still counts.
    (other,) = parse_smbios_memory_devices(_type17(8192, 0x02, 2666, 2666) + END)
    assert (other.type_name, other.speed_mts) == (None, 2666)


def test_shortest_type17_that_has_a_speed_is_read():
    # SMBIOS 2.3 type 17 records are 0x17 bytes: the speed word at 0x15-0x16 is the last
    # field and there is no configured speed (added in 2.7 at 0x20).
    (device,) = parse_smbios_memory_devices(_type17(4096, 0x18, 1600, length=0x17) + END)
    assert (device.type_name, device.speed_mts) == ("DDR3", 1600)
    # 0x16 bytes: too short to hold the speed; the record is skipped.
    assert parse_smbios_memory_devices(_type17(4096, 0x18, 1600, length=0x16) + END) == []


def test_configured_speed_is_read_from_a_record_of_exactly_0x22_bytes():
    (device,) = parse_smbios_memory_devices(_type17(8192, 0x1A, 3200, 2933, length=0x22) + END)
    assert device.speed_mts == 2933
    # 0x21 bytes end inside the configured-speed word: the rated speed is used.
    (short,) = parse_smbios_memory_devices(_type17(8192, 0x1A, 3200, length=0x21) + END)
    assert short.speed_mts == 3200


def test_speed_0xffff_means_see_the_extended_field_and_is_not_a_speed():
    (configured_ext,) = parse_smbios_memory_devices(_type17(8192, 0x22, 6400, 0xFFFF) + END)
    assert configured_ext.speed_mts == 6400  # the rated speed instead
    (both_ext,) = parse_smbios_memory_devices(_type17(8192, 0x22, 0xFFFF, 0xFFFF) + END)
    assert both_ext.speed_mts is None
    (unknown,) = parse_smbios_memory_devices(_type17(8192, 0x22, 0, 0) + END)
    assert unknown.speed_mts is None


def test_an_empty_slot_and_the_end_marker():
    table = (_type17(0, 0x22, 0, 0)  # size 0: no module in the slot
             + _type17(1, 0x22, 4800, 4800)  # 1 MB: smallest installed size
             + END
             + _type17(8192, 0x1A, 3200, 3200))  # after type 127: not read
    assert [(d.type_name, d.speed_mts) for d in parse_smbios_memory_devices(table)] == [
        ("DDR5", 4800)]


def test_other_structures_are_stepped_over_by_their_strings():
    # A BIOS (type 0) record with two strings, then a DIMM: the walk skips "AMI\0v1.2\0\0".
    bios = _structure(0, 0x18, {}, b"AMI\x00v1.2\x00\x00")
    table = bios + _type17(16384, 0x1A, 3200, 3200) + END
    assert [d.speed_mts for d in parse_smbios_memory_devices(table)] == [3200]
    # Without an end marker the walk stops at the end of the data.
    assert [d.speed_mts for d in parse_smbios_memory_devices(bios + _type17(
        16384, 0x1A, 2400, 2400))] == [2400]


def test_a_length_under_four_stops_the_walk():
    broken = _structure(1, 3, {}, b"\x00\x00")
    assert parse_smbios_memory_devices(broken + _type17(8192, 0x1A, 3200, 3200) + END) == []
    # Length 4 is a valid (empty) structure: the DIMM after it is read.
    fine = _structure(1, 4, {}, b"\x00\x00")
    assert len(parse_smbios_memory_devices(fine + _type17(8192, 0x1A, 3200, 3200) + END)) == 1


def test_strings_that_never_end_stop_the_walk():
    unterminated = _type17(8192, 0x1A, 3200, 3200)[:-1]  # only one NUL after the strings
    assert parse_smbios_memory_devices(unterminated) == []


# --------------------------------------------------------------------------- DIMMs on Linux


def test_most_common_type_and_slowest_speed(tree):
    tree.write("proc/meminfo", MEMINFO_16G)
    table = (_type17(16384, 0x1A, 3200, 3200) + _type17(16384, 0x22, 5600, 5600)
             + _type17(16384, 0x22, 4800, 4800) + END)
    tree.write_bytes("sys/firmware/dmi/tables/DMI", table)
    info = probe_memory(tree.roots, system="Linux")
    assert info.dimm_type == "DDR5"  # two of three
    assert info.dimm_speed_mts == 3200  # the bus runs at the slowest: min(3200, 5600, 4800)
    assert "dimm_type" not in info.unknown and "dimm_speed_mts" not in info.unknown


def test_dimms_without_type_or_speed_say_so(tree):
    tree.write("proc/meminfo", MEMINFO_16G)
    dmi = tree.write_bytes("sys/firmware/dmi/tables/DMI", _type17(8192, 0x02, 0, 0) + END)
    info = probe_memory(tree.roots, system="Linux")
    assert info.dimm_type is None and info.dimm_speed_mts is None
    assert info.unknown["dimm_type"] == Msg(
        f"{dmi} lists no installed DIMM with a known type", f"{dmi} 中没有已知类型的已安装内存条")
    assert info.unknown["dimm_speed_mts"] == Msg(
        f"{dmi} lists no installed DIMM with a speed", f"{dmi} 中没有标明速率的已安装内存条")


def test_a_table_with_speeds_but_no_known_type_asks_edac(tree):
    tree.write("proc/meminfo", MEMINFO_16G)
    tree.write_bytes("sys/firmware/dmi/tables/DMI", _type17(8192, 0x02, 2933, 2933) + END)
    tree.write("sys/devices/system/edac/mc/mc0/dimm0/dimm_mem_type", "Registered-DDR4\n")
    info = probe_memory(tree.roots, system="Linux")
    assert (info.dimm_type, info.dimm_speed_mts) == ("DDR4", 2933)
    assert info.unknown == {}


def test_missing_dmi_table_gives_its_own_reason_and_edac_never_a_speed(tree):
    tree.write("proc/meminfo", MEMINFO_16G)
    dmi = tree.roots.sys / "firmware/dmi/tables/DMI"
    info = probe_memory(tree.roots, system="Linux")
    missing = Msg(f"{dmi} not present", f"{dmi} 不存在")
    assert info.unknown["dimm_speed_mts"] == missing
    assert info.unknown["dimm_type"] == missing + Msg("; EDAC reports no DIMM type",
                                                      "；EDAC 没有报告内存条类型")


def test_permission_denied_reads_as_needs_root(tree, monkeypatch):
    tree.write("proc/meminfo", MEMINFO_16G)
    tree.write("sys/devices/system/edac/mc/mc0/dimm0/dimm_mem_type", "Unbuffered-DDR5\n")
    dmi = tree.roots.sys / "firmware/dmi/tables/DMI"
    real = memory.read_bytes

    def deny(path, **kwargs):
        if path == dmi:
            return None, memory.Msg(f"{path} not readable without root", "需要 root")
        return real(path, **kwargs)

    monkeypatch.setattr(memory, "read_bytes", deny)
    info = probe_memory(tree.roots, system="Linux")
    assert info.dimm_type == "DDR5" and "dimm_type" not in info.unknown
    assert info.unknown["dimm_speed_mts"] == Msg("needs root: dmidecode",
                                                 "需要 root 权限：dmidecode")


def test_a_read_without_a_reason_is_taken_as_needs_root(tree, monkeypatch):
    tree.write("proc/meminfo", MEMINFO_16G)
    monkeypatch.setattr(memory, "read_bytes", lambda path, **kwargs: (None, None))
    info = probe_memory(tree.roots, system="Linux")
    assert info.unknown["dimm_speed_mts"] == NEEDS_ROOT
    assert info.unknown["dimm_type"] == NEEDS_ROOT + Msg("; EDAC reports no DIMM type",
                                                         "；EDAC 没有报告内存条类型")


def test_the_dmi_table_is_read_up_to_4_mib(tree, monkeypatch):
    tree.write("proc/meminfo", MEMINFO_16G)
    asked = []
    monkeypatch.setattr(memory, "read_bytes",
                        lambda path, **kwargs: asked.append((path, kwargs)) or (None, None))
    probe_memory(tree.roots, system="Linux")
    assert asked == [(tree.roots.sys / "firmware/dmi/tables/DMI", {"max_bytes": 4 * 2**20})]


@pytest.mark.parametrize(("entries", "expected"), [
    # EDAC's names: "Unbuffered-DDR4", "Registered-DDR5", "LPDDR4" (edac_mc_sysfs.c).
    ({"mc0/dimm0": "Registered-DDR4", "mc0/dimm1": "Registered-DDR4",
      "mc1/dimm0": "Unbuffered-DDR5"}, "DDR4"),
    ({"mc0/rank0": "Unbuffered-ddr5"}, "DDR5"),  # older kernels: ranks, any case
    ({"mc0/dimm0": "LPDDR4"}, "LPDDR4"),
    ({"mc0/dimm0": "HBM2"}, "HBM2"),
    ({"mc0/dimm0": "Unknown", "mc0/dimm1": "Empty", "mc0/dimm2": "Registered-DDR3"}, "DDR3"),
    ({"mc0/dimm0": "unknown", "mc0/dimm1": "EMPTY"}, None),  # either case
    ({"mc0/dimm0": "Registered-SDR"}, None),  # not a DDR, LPDDR or HBM name
    ({"mc0/csrow0": "Registered-DDR4"}, None),  # only dimm* and rank* entries
    ({"power/dimm0": "Registered-DDR4"}, None),  # only mc* controllers
    ({"mc0/dimm0": ""}, None),  # an empty attribute
])
def test_edac_dimm_types(tree, entries, expected):
    tree.write("proc/meminfo", MEMINFO_16G)
    for where, text in entries.items():
        tree.write(f"sys/devices/system/edac/mc/{where}/dimm_mem_type", text + "\n")
    assert probe_memory(tree.roots, system="Linux").dimm_type == expected


def test_edac_rank_entries_count_as_modules(tree):
    tree.write("proc/meminfo", MEMINFO_16G)
    for rank in ("rank0", "rank1", "rank2"):
        tree.write(f"sys/devices/system/edac/mc/mc0/{rank}/dimm_mem_type", "Registered-DDR4\n")
    tree.write("sys/devices/system/edac/mc/mc0/dimm0/dimm_mem_type", "Registered-DDR5\n")
    tree.write("sys/devices/system/edac/mc/mc0/dimm1/dimm_mem_type", "Registered-DDR5\n")
    assert probe_memory(tree.roots, system="Linux").dimm_type == "DDR4"  # 3 ranks to 2 dimms


def test_edac_controller_attributes_beside_the_dimms_are_stepped_over(tree):
    # A controller folder as the kernel lays it out (edac_mc_sysfs.c): counters and names
    # beside the dimm folders, several of them sorting before "dimm0".
    tree.write("proc/meminfo", MEMINFO_16G)
    mc0 = "sys/devices/system/edac/mc/mc0"
    for attribute in ("ce_count", "ce_noinfo_count", "max_location", "mc_name", "size_mb",
                      "ue_count", "ue_noinfo_count"):
        tree.write(f"{mc0}/{attribute}", "0\n")
    tree.write(f"{mc0}/dimm0/dimm_mem_type", "Registered-DDR4\n")
    assert probe_memory(tree.roots, system="Linux").dimm_type == "DDR4"
