"""Memory probe: RAM and swap sizes, and the DIMM type/speed where it is readable without root.

Sizes come from /proc/meminfo on Linux (psutil reads the same file; reading it ourselves lets
tests use a fake tree) and from psutil elsewhere. DIMM type and speed live in the SMBIOS
tables, which only root may read (that is why ``dmidecode`` needs sudo); the EDAC driver, when
loaded, exposes the type to everyone. Nothing else is guessed.
"""

from __future__ import annotations

import platform
import struct
from collections import Counter
from pathlib import Path

from torchrig.hardware.model import MemoryInfo
from torchrig.hardware.sysfs import LINUX_ROOTS, FsRoots, list_dir, read_bytes, read_text
from torchrig.i18n import Msg

# Shown as "unknown (needs root: dmidecode)".
NEEDS_ROOT = Msg("needs root: dmidecode", "需要 root 权限：dmidecode")

# SMBIOS (DMTF DSP0134) type 17 "Memory Type" byte -> name; only the types one meets in
# machines that run PyTorch.
SMBIOS_MEMORY_TYPES = {
    0x12: "DDR",
    0x13: "DDR2",
    0x18: "DDR3",
    0x1A: "DDR4",
    0x1B: "LPDDR",
    0x1C: "LPDDR2",
    0x1D: "LPDDR3",
    0x1E: "LPDDR4",
    0x20: "HBM",
    0x21: "HBM2",
    0x22: "DDR5",
    0x23: "LPDDR5",
    0x24: "HBM3",
}


def probe_memory(roots: FsRoots = LINUX_ROOTS, *, system: str | None = None) -> MemoryInfo:
    system = system or platform.system()
    info = MemoryInfo()
    if system == "Linux":
        _sizes_linux(info, roots)
        _dimms_linux(info, roots)
    else:
        _sizes_psutil(info)
        where = {"Darwin": "macOS"}.get(system, system)
        info.unknown["dimm_type"] = info.unknown["dimm_speed_mts"] = Msg(
            f"not read on {where}", f"在 {where} 上不读取")
    return info


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo in bytes (the kernel's "kB" means KiB)."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, sep, rest = line.partition(":")
        fields = rest.split()
        if not sep or not fields:
            continue
        try:
            number = int(fields[0])
        except ValueError:
            continue
        unit = fields[1].lower() if len(fields) > 1 else ""
        values[key.strip()] = number * 1024 if unit == "kb" else number
    return values


def _sizes_linux(info: MemoryInfo, roots: FsRoots) -> None:
    got = read_text(roots.proc / "meminfo")
    if got.text is None:
        _sizes_psutil(info)
        return
    values = parse_meminfo(got.text)
    info.total_bytes = values.get("MemTotal")
    # MemAvailable exists since Linux 3.14; older kernels only have MemFree (an underestimate).
    info.available_bytes = values.get("MemAvailable")
    info.swap_total_bytes = values.get("SwapTotal")
    if info.swap_total_bytes is not None and "SwapFree" in values:
        info.swap_used_bytes = info.swap_total_bytes - values["SwapFree"]
    for name, key in (
        ("total_bytes", "MemTotal"),
        ("available_bytes", "MemAvailable"),
        ("swap_total_bytes", "SwapTotal"),
        ("swap_used_bytes", "SwapFree"),
    ):
        if getattr(info, name) is None:
            meminfo = roots.proc / "meminfo"
            info.unknown[name] = Msg(f"no {key} in {meminfo}", f"{meminfo} 中没有 {key}")


def _sizes_psutil(info: MemoryInfo) -> None:
    import psutil

    try:
        vm = psutil.virtual_memory()
        info.total_bytes = int(vm.total)
        info.available_bytes = int(vm.available)
    except (psutil.Error, OSError) as exc:
        info.unknown["total_bytes"] = info.unknown["available_bytes"] = _psutil_failed(exc)
    try:
        swap = psutil.swap_memory()
        info.swap_total_bytes = int(swap.total)
        info.swap_used_bytes = int(swap.used)
    except (psutil.Error, OSError) as exc:
        info.unknown["swap_total_bytes"] = info.unknown["swap_used_bytes"] = _psutil_failed(exc)


def _psutil_failed(exc: Exception) -> Msg:
    return Msg(f"psutil: {exc}", f"psutil 读取失败：{type(exc).__name__}")


def _dimms_linux(info: MemoryInfo, roots: FsRoots) -> None:
    dmi_path = roots.sys / "firmware/dmi/tables/DMI"
    data, dmi_reason = read_bytes(dmi_path, max_bytes=1 << 22)
    types: list[str] = []
    speeds: list[int] = []
    if data is not None:
        for device in parse_smbios_memory_devices(data):
            if device.type_name:
                types.append(device.type_name)
            if device.speed_mts:
                speeds.append(device.speed_mts)
    if not types:
        types = _edac_types(roots.sys / "devices/system/edac/mc")
    if types:
        # Mixed kits are rare; the most common type is the honest one-word answer.
        info.dimm_type = Counter(types).most_common(1)[0][0]
    if speeds:
        # The memory bus runs every DIMM at the speed of the slowest one.
        info.dimm_speed_mts = min(speeds)

    if data is None:
        unreadable = (NEEDS_ROOT if dmi_reason is None or "without root" in dmi_reason.en
                      else dmi_reason)
        if info.dimm_type is None:
            info.unknown["dimm_type"] = unreadable + Msg("; EDAC reports no DIMM type",
                                                         "；EDAC 没有报告内存条类型")
        if info.dimm_speed_mts is None:
            info.unknown["dimm_speed_mts"] = unreadable  # EDAC never reports speed
    else:
        if info.dimm_type is None:
            info.unknown["dimm_type"] = Msg(
                f"{dmi_path} lists no installed DIMM with a known type",
                f"{dmi_path} 中没有已知类型的已安装内存条")
        if info.dimm_speed_mts is None:
            info.unknown["dimm_speed_mts"] = Msg(
                f"{dmi_path} lists no installed DIMM with a speed",
                f"{dmi_path} 中没有标明速率的已安装内存条")


def _edac_types(mc_dir: Path) -> list[str]:
    """EDAC's ``dimm_mem_type`` reads like "Registered-DDR4" or "Unbuffered-DDR5"."""
    types: list[str] = []
    for controller in list_dir(mc_dir):
        if not controller.startswith("mc"):
            continue
        for entry in list_dir(mc_dir / controller):
            if not (entry.startswith("dimm") or entry.startswith("rank")):
                continue
            text = read_text(mc_dir / controller / entry / "dimm_mem_type").text
            if not text or text.lower() in ("unknown", "empty"):
                continue
            name = text.split("-")[-1].upper()
            if name.startswith(("DDR", "LPDDR", "HBM")):
                types.append(name)
    return types


class SmbiosMemoryDevice:
    """The two fields of an SMBIOS type 17 record this app uses."""

    __slots__ = ("speed_mts", "type_name")

    def __init__(self, type_name: str | None, speed_mts: int | None) -> None:
        self.type_name = type_name
        self.speed_mts = speed_mts


def parse_smbios_memory_devices(data: bytes) -> list[SmbiosMemoryDevice]:
    """Walk a raw SMBIOS structure table (/sys/firmware/dmi/tables/DMI) for installed DIMMs.

    Each structure is a formatted area (type, length, handle, fields) followed by a string set
    ended by two NUL bytes. Type 17 fields used: size at 0x0C (0 = empty slot), memory type at
    0x12, rated speed at 0x15 and configured speed at 0x20 (both MT/s; 0 = unknown).
    """
    devices: list[SmbiosMemoryDevice] = []
    offset = 0
    while offset + 4 <= len(data):
        kind, length = data[offset], data[offset + 1]
        if length < 4:
            break  # corrupt table: stop rather than loop
        formatted = data[offset : offset + length]
        end = data.find(b"\x00\x00", offset + length)
        if end < 0:
            break
        if kind == 17 and length >= 0x17:
            devices.extend(_memory_device(formatted))
        if kind == 127:  # end-of-table marker
            break
        offset = end + 2
    return devices


def _memory_device(record: bytes) -> list[SmbiosMemoryDevice]:
    (size,) = struct.unpack_from("<H", record, 0x0C)
    if size == 0:
        return []  # empty slot
    type_name = SMBIOS_MEMORY_TYPES.get(record[0x12])
    (speed,) = struct.unpack_from("<H", record, 0x15)
    configured = 0
    if len(record) >= 0x22:
        (configured,) = struct.unpack_from("<H", record, 0x20)
    # 0xFFFF means "see the extended field" (over 65,534 MT/s): not used by any DIMM yet.
    chosen = next((s for s in (configured, speed) if s and s != 0xFFFF), None)
    return [SmbiosMemoryDevice(type_name, chosen)]
