"""CPU probe: what PyTorch's CPU side depends on.

Core counts decide DataLoader workers and intra-op threads, ISA flags decide which kernels
oneDNN/FBGEMM dispatch to (AVX2, AVX-512, VNNI, BF16, AMX; NEON/SVE on ARM), and the usable CPU
count (affinity + cgroup quota) is what a container really gets, which is often far less than
the host's count that ``os.cpu_count()`` reports.

Linux is read from /proc and /sys (no lscpu subprocess: detection must stay fast). macOS and
Windows get what psutil/platform give, with honest reasons for the rest.
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import re
import sys
from pathlib import Path

from torchrig.hardware.model import CpuInfo
from torchrig.hardware.sysfs import (
    LINUX_ROOTS,
    FsRoots,
    list_dir,
    parse_cpu_list,
    parse_size,
    read_int,
    read_text,
)
from torchrig.i18n import Msg

# Flags whose presence changes which PyTorch CPU kernels run; the rest of the ~150 x86 flags
# would only be noise in a build sheet.
X86_TORCH_FLAGS: tuple[str, ...] = (
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "avx_vnni",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "amx_fp16",
)
ARM_TORCH_FLAGS: tuple[str, ...] = (
    "neon",  # 32-bit kernels call Advanced SIMD "neon"
    "asimd",  # AArch64 name for NEON
    "asimdhp",
    "asimddp",
    "fphp",
    "bf16",
    "i8mm",
    "sve",
    "sve2",
    "sme",
)

X86_VENDORS = {
    "GenuineIntel": "Intel",
    "AuthenticAMD": "AMD",
    "HygonGenuine": "Hygon",
    "CentaurHauls": "Centaur",
    "Shanghai": "Zhaoxin",
}

# ARM MIDR implementer and part codes, as listed by util-linux's lscpu; only the cores one is
# likely to meet in a PyTorch machine (servers, Jetson, Apple under Linux).
ARM_IMPLEMENTERS = {
    0x41: "ARM",
    0x48: "HiSilicon",
    0x4E: "NVIDIA",
    0x51: "Qualcomm",
    0x61: "Apple",
    0xC0: "Ampere",
}
ARM_PARTS = {
    (0x41, 0xD03): "Cortex-A53",
    (0x41, 0xD07): "Cortex-A57",
    (0x41, 0xD08): "Cortex-A72",
    (0x41, 0xD0B): "Cortex-A76",
    (0x41, 0xD0C): "Neoverse-N1",
    (0x41, 0xD40): "Neoverse-V1",
    (0x41, 0xD4F): "Neoverse-V2",
}

_BRAND_GHZ = re.compile(r"@\s*([0-9]+(?:\.[0-9]+)?)\s*GHz", re.IGNORECASE)


def probe_cpu(
    roots: FsRoots = LINUX_ROOTS, *, system: str | None = None, machine: str | None = None
) -> CpuInfo:
    """Fill a :class:`CpuInfo`; ``system``/``machine`` override platform for tests."""
    system = system or platform.system()
    arch = machine if machine is not None else platform.machine()
    info = CpuInfo(architecture=arch or None)
    if not arch:
        info.unknown["architecture"] = Msg("platform.machine() returned nothing",
                                           "platform.machine() 没有返回结果")
    if system == "Linux":
        _probe_linux(info, roots)
    else:
        _probe_portable(info, system)
    _torch_threads(info)
    return info


# --------------------------------------------------------------------------- Linux


def parse_cpuinfo(text: str) -> list[dict[str, str]]:
    """/proc/cpuinfo as one dict per processor block (x86: per logical CPU)."""
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            current.setdefault(key.strip(), value.strip())
    if current:
        blocks.append(current)
    return blocks


def _probe_linux(info: CpuInfo, roots: FsRoots) -> None:
    cpu_dir = roots.sys / "devices/system/cpu"
    got = read_text(roots.proc / "cpuinfo", max_bytes=1 << 24)  # ~1.5 KB per logical CPU
    blocks = parse_cpuinfo(got.text) if got.text else []
    if not blocks:
        reason = got.reason or Msg(f"{roots.proc / 'cpuinfo'} is empty",
                                   f"{roots.proc / 'cpuinfo'} 为空")
        for name in ("vendor", "model_name"):
            info.unknown[name] = reason
        info.unknown["isa_features"] = reason
    else:
        _identity(info, blocks)
        _isa(info, blocks)

    online = _online_cpus(cpu_dir)
    if online:
        info.logical_cpus = len(online)
    else:
        info.logical_cpus = os.cpu_count()
        if info.logical_cpus is None:
            info.unknown["logical_cpus"] = Msg(
                "neither /sys cpu/online nor os.cpu_count() answered",
                "/sys 的 cpu/online 和 os.cpu_count() 都没有给出结果")
    cpus = sorted(online) if online else list(range(info.logical_cpus or 0))

    _cores(info, cpu_dir, cpus, blocks)
    _usable(info, roots)
    _smt(info, cpu_dir)
    _frequencies(info, cpu_dir, cpus, blocks)
    _caches(info, cpu_dir, cpus)
    _numa(info, roots)


def _identity(info: CpuInfo, blocks: list[dict[str, str]]) -> None:
    first = blocks[0]
    vendor_id = first.get("vendor_id")
    if vendor_id:
        info.vendor = X86_VENDORS.get(vendor_id.strip(), vendor_id)
        info.model_name = first.get("model name") or None
        if info.model_name is None:
            info.unknown["model_name"] = Msg("no 'model name' in /proc/cpuinfo",
                                             "/proc/cpuinfo 中没有 “model name” 一行")
        return
    if "CPU implementer" in first:
        _identity_arm(info, blocks)
        return
    # Other architectures (POWER's "cpu", RISC-V's "uarch", 32-bit ARM "model name").
    name = first.get("model name") or first.get("cpu") or first.get("uarch")
    info.model_name = name or None
    if info.model_name is None:
        info.unknown["model_name"] = Msg("no model line in /proc/cpuinfo",
                                         "/proc/cpuinfo 中没有型号一行")
    info.unknown["vendor"] = Msg("/proc/cpuinfo names no vendor on this architecture",
                                 "在此架构上 /proc/cpuinfo 不写明厂商")


def _identity_arm(info: CpuInfo, blocks: list[dict[str, str]]) -> None:
    names: list[str] = []
    vendors: list[str] = []
    for block in blocks:
        try:
            implementer = int(block.get("CPU implementer", ""), 16)
            part = int(block.get("CPU part", ""), 16)
        except ValueError:
            continue
        vendor = ARM_IMPLEMENTERS.get(implementer, f"implementer 0x{implementer:02x}")
        name = ARM_PARTS.get((implementer, part), f"{vendor} part 0x{part:03x}")
        if vendor not in vendors:
            vendors.append(vendor)
        if name not in names:
            names.append(name)
    # big.LITTLE parts list every core type, e.g. "Cortex-A76 + Cortex-A55".
    info.vendor = " + ".join(vendors) or None
    info.model_name = " + ".join(names) or blocks[0].get("model name") or None
    if info.vendor is None:
        info.unknown["vendor"] = Msg("unreadable 'CPU implementer' in /proc/cpuinfo",
                                     "/proc/cpuinfo 中的 “CPU implementer” 无法解析")
    if info.model_name is None:
        info.unknown["model_name"] = Msg("unreadable 'CPU part' in /proc/cpuinfo",
                                         "/proc/cpuinfo 中的 “CPU part” 无法解析")


def _isa(info: CpuInfo, blocks: list[dict[str, str]]) -> None:
    first = blocks[0]
    if "flags" in first:
        present = set(first["flags"].split())
        info.isa_features = [f for f in X86_TORCH_FLAGS if f in present]
    elif "Features" in first:
        present = set(first["Features"].split())
        info.isa_features = [f for f in ARM_TORCH_FLAGS if f in present]
    else:
        info.unknown["isa_features"] = Msg(
            "no 'flags' or 'Features' line in /proc/cpuinfo",
            "/proc/cpuinfo 中没有 “flags” 或 “Features” 一行")


def _online_cpus(cpu_dir: Path) -> set[int]:
    got = read_text(cpu_dir / "online")
    if not got.text:
        return set()
    try:
        return parse_cpu_list(got.text)
    except ValueError:
        return set()


def _cores(info: CpuInfo, cpu_dir: Path, cpus: list[int], blocks: list[dict[str, str]]) -> None:
    """Physical cores = distinct sets of SMT siblings (works on every architecture)."""
    sibling_sets: set[frozenset[int]] = set()
    for cpu in cpus:
        topo = cpu_dir / f"cpu{cpu}/topology"
        got = read_text(topo / "core_cpus_list")
        if not got.ok:
            got = read_text(topo / "thread_siblings_list")
        if not got.text:
            sibling_sets.clear()
            break
        try:
            sibling_sets.add(frozenset(parse_cpu_list(got.text)))
        except ValueError:
            sibling_sets.clear()
            break
    if sibling_sets:
        info.physical_cores = len(sibling_sets)
        return
    pairs = {
        (b.get("physical id"), b.get("core id")) for b in blocks if "core id" in b
    }
    if pairs:
        info.physical_cores = len(pairs)
        return
    import psutil

    info.physical_cores = psutil.cpu_count(logical=False)
    if info.physical_cores is None:
        info.unknown["physical_cores"] = Msg("no CPU topology in /sys or /proc/cpuinfo",
                                             "/sys 和 /proc/cpuinfo 中都没有 CPU 拓扑信息")


def _usable(info: CpuInfo, roots: FsRoots) -> None:
    usable: int | None = info.logical_cpus
    if hasattr(os, "sched_getaffinity"):
        usable = len(os.sched_getaffinity(0))
    quota = cgroup_cpu_limit(roots)
    if quota is not None and usable is not None:
        # A 1.5-CPU quota still lets two threads run, just not all the time.
        usable = min(usable, max(1, math.ceil(quota)))
    info.usable_cpus = usable
    if usable is None:
        info.unknown["usable_cpus"] = Msg(
            "CPU affinity not available and logical count unknown",
            "无法读取 CPU 亲和性，逻辑处理器数量也未知")


def cgroup_cpu_limit(roots: FsRoots = LINUX_ROOTS) -> float | None:
    """The tightest CPU quota (in CPUs) of this process's cgroup and its ancestors, or None.

    cgroup v2 writes ``cpu.max`` as ``"<quota> <period>"`` or ``"max <period>"``; v1 splits it
    into ``cpu.cfs_quota_us`` (-1 = none) and ``cpu.cfs_period_us``. Docker's ``--cpus`` and
    Kubernetes CPU limits end up here.
    """
    got = read_text(roots.proc / "self/cgroup")
    if not got.text:
        return None
    v2_path: str | None = None
    v1_path: str | None = None
    for line in got.text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":
            v2_path = path
        elif "cpu" in controllers.split(","):
            v1_path = path
    cgroup = roots.sys / "fs/cgroup"
    limits: list[float] = []
    if v2_path is not None:
        for folder in _cgroup_chain(cgroup, v2_path):
            text = read_text(folder / "cpu.max").text
            if text:
                fields = text.split()
                if len(fields) == 2 and fields[0] != "max":
                    limits.append(_ratio(fields[0], fields[1]))
    for mount in ("cpu,cpuacct", "cpu", "cpuacct,cpu"):
        base = cgroup / mount
        # os.path.isdir: an unreadable /sys answers False instead of raising PermissionError.
        if not os.path.isdir(base):
            continue
        for folder in _cgroup_chain(base, v1_path or "/"):
            quota, _ = read_int(folder / "cpu.cfs_quota_us")
            period, _ = read_int(folder / "cpu.cfs_period_us")
            if quota is not None and quota > 0 and period:
                limits.append(quota / period)
        break
    limits = [x for x in limits if x > 0 and math.isfinite(x)]
    return min(limits) if limits else None


def _ratio(quota: str, period: str) -> float:
    try:
        return int(quota) / int(period)
    except (ValueError, ZeroDivisionError):
        return math.inf


def _cgroup_chain(base: Path, path: str) -> list[Path]:
    """The cgroup folder and its ancestors up to the mount root. Inside a container the path
    printed in /proc/self/cgroup may belong to the host's namespace and not exist here; then
    the mount root is the container's own cgroup."""
    relative = [p for p in path.strip().split("/") if p and p not in (".", "..")]
    chain: list[Path] = []
    for depth in range(len(relative), 0, -1):
        folder = base.joinpath(*relative[:depth])
        if os.path.isdir(folder):
            chain.append(folder)
    chain.append(base)
    return chain


def _smt(info: CpuInfo, cpu_dir: Path) -> None:
    active, _ = read_int(cpu_dir / "smt/active")
    if active is not None:
        info.smt_enabled = active == 1
        return
    control = read_text(cpu_dir / "smt/control").text
    if control in ("notsupported", "notimplemented", "off", "forceoff"):
        info.smt_enabled = False
        return
    if info.physical_cores and info.logical_cpus:
        info.smt_enabled = info.logical_cpus > info.physical_cores
        return
    info.unknown["smt_enabled"] = Msg("no /sys cpu/smt and core counts unknown",
                                      "没有 /sys 的 cpu/smt，核心数量也未知")


def _frequencies(info: CpuInfo, cpu_dir: Path, cpus: list[int],
                 blocks: list[dict[str, str]]) -> None:
    first = cpus[0] if cpus else 0
    freq_dir = cpu_dir / f"cpu{first}/cpufreq"
    max_khz, max_reason = read_int(freq_dir / "cpuinfo_max_freq")
    if max_khz:
        info.max_freq_hz = max_khz * 1000.0
    else:
        info.unknown["max_freq_hz"] = _cpufreq_reason(freq_dir, max_reason)

    base_khz, _ = read_int(freq_dir / "base_frequency")  # intel_pstate only
    if base_khz:
        info.base_freq_hz = base_khz * 1000.0
        return
    # Intel brand strings carry the base clock ("... CPU @ 2.50GHz"); AMD's do not.
    match = _BRAND_GHZ.search(info.model_name or "")
    if match:
        info.base_freq_hz = float(match.group(1)) * 1e9
        return
    # Without cpufreq (VMs, containers, cpufreq disabled) "cpu MHz" does not move with load:
    # the kernel reports the frequency it calibrated the TSC at, the CPU's nominal clock.
    mhz = _cpuinfo_mhz(blocks)
    if mhz is not None and not os.path.isdir(freq_dir):
        info.base_freq_hz = mhz * 1e6
        return
    info.unknown["base_freq_hz"] = (
        Msg("cpufreq exposes no base_frequency for this driver and the model name has no "
            "'@ GHz'", "此驱动的 cpufreq 不提供 base_frequency，型号名称中也没有 “@ GHz”")
        if os.path.isdir(freq_dir)
        else _cpufreq_reason(freq_dir, None)
    )


def _cpuinfo_mhz(blocks: list[dict[str, str]]) -> float | None:
    """The first "cpu MHz" of /proc/cpuinfo (x86), None when absent or not a number."""
    text = blocks[0].get("cpu MHz") if blocks else None
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and 0 < value < 100_000 else None


def _cpufreq_reason(freq_dir: Path, reason: Msg | None) -> Msg:
    if not os.path.isdir(freq_dir):
        cpu = freq_dir.parent.name
        return Msg(f"the kernel exposes no cpufreq for {cpu} (common in VMs)",
                   f"内核没有为 {cpu} 提供 cpufreq（虚拟机中常见）")
    return reason or Msg(f"unreadable {freq_dir}", f"{freq_dir} 无法读取")


def _caches(info: CpuInfo, cpu_dir: Path, cpus: list[int]) -> None:
    """Total size per level over all cache instances (what lscpu's summary reports).

    Each physical cache appears once per CPU sharing it, so instances are told apart by their
    ``shared_cpu_list``; reading that first lets us skip CPUs whose caches are already counted.
    """
    seen: set[tuple[str, frozenset[int]]] = set()
    totals: dict[str, int] = {}
    for cpu in cpus:
        cache_dir = cpu_dir / f"cpu{cpu}/cache"
        for index in list_dir(cache_dir):
            if not index.startswith("index"):
                continue
            folder = cache_dir / index
            shared_text = read_text(folder / "shared_cpu_list").text
            try:
                shared = frozenset(parse_cpu_list(shared_text)) if shared_text else None
            except ValueError:
                shared = None
            key = (index, shared if shared is not None else frozenset({cpu}))
            if key in seen:
                continue
            seen.add(key)
            name = _cache_name(folder)
            size_text = read_text(folder / "size").text
            size = parse_size(size_text) if size_text else None
            if name and size:
                totals[name] = totals.get(name, 0) + size
    order = ["L1d", "L1i", "L2", "L3", "L4"]
    info.cache_bytes = {k: totals[k] for k in sorted(totals, key=lambda k: (k not in order, k))}
    if not totals:
        info.unknown["cache_bytes"] = Msg(
            f"no cache index folders under {cpu_dir}/cpu*/cache",
            f"没有 {cpu_dir}/cpu*/cache/index* 缓存目录")


def _cache_name(folder: Path) -> str | None:
    level, _ = read_int(folder / "level")
    kind = read_text(folder / "type").text
    if level is None or kind is None:
        return None
    suffix = {"Data": "d", "Instruction": "i"}.get(kind, "")
    return f"L{level}{suffix}"


def _numa(info: CpuInfo, roots: FsRoots) -> None:
    node_dir = roots.sys / "devices/system/node"
    nodes = [n for n in list_dir(node_dir) if re.fullmatch(r"node\d+", n)]
    if nodes:
        info.numa_nodes = len(nodes)
    else:
        info.unknown["numa_nodes"] = Msg(f"no {node_dir}/node* (kernel built without NUMA?)",
                                         f"没有 {node_dir}/node*（内核未启用 NUMA？）")


# --------------------------------------------------------------------------- macOS / Windows


def _probe_portable(info: CpuInfo, system: str) -> None:
    import psutil

    os_name = {"Darwin": "macOS"}.get(system, system)
    on_os = Msg(f" on {os_name}", f"在 {os_name} 上") if os_name else Msg(
        " on this OS", "在此操作系统上")
    not_read = Msg("not read{on}", "{on}不读取").format(on=on_os)
    info.logical_cpus = psutil.cpu_count(logical=True)
    info.physical_cores = psutil.cpu_count(logical=False)
    info.usable_cpus = info.logical_cpus
    if hasattr(psutil.Process, "cpu_affinity"):
        with contextlib.suppress(psutil.Error, OSError):
            info.usable_cpus = len(psutil.Process().cpu_affinity() or []) or info.logical_cpus
    if info.logical_cpus and info.physical_cores:
        info.smt_enabled = info.logical_cpus > info.physical_cores
    else:
        info.unknown["smt_enabled"] = Msg("core counts unknown", "核心数量未知")
    for name in ("logical_cpus", "physical_cores", "usable_cpus"):
        if getattr(info, name) is None:
            info.unknown[name] = Msg("psutil could not count CPUs", "psutil 无法统计处理器数量")

    brand = _darwin_sysctl_str("machdep.cpu.brand_string") if system == "Darwin" else None
    if brand is None and system == "Windows":
        brand = _windows_cpu_name()
    info.model_name = brand or platform.processor() or None
    if brand:
        info.vendor = _vendor_from_brand(brand)
    if info.vendor is None:
        info.unknown["vendor"] = not_read
    if info.model_name is None:
        info.unknown["model_name"] = not_read

    freq = None
    try:
        freq = psutil.cpu_freq()
    except (psutil.Error, OSError, NotImplementedError):
        freq = None
    if freq is not None and freq.max:
        info.max_freq_hz = freq.max * 1e6
    else:
        info.unknown["max_freq_hz"] = Msg("not reported by psutil{on}",
                                          "psutil {on}没有报告").format(on=on_os)
    for name in ("base_freq_hz", "cache_bytes", "isa_features", "numa_nodes"):
        info.unknown[name] = not_read


def _vendor_from_brand(brand: str) -> str | None:
    for vendor in ("Apple", "Intel", "AMD", "Qualcomm"):
        if vendor.lower() in brand.lower():
            return vendor
    return None


def _darwin_sysctl_str(name: str) -> str | None:
    """sysctlbyname() through ctypes: the ``sysctl`` command would cost a subprocess."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        size = ctypes.c_size_t(0)
        if libc.sysctlbyname(name.encode(), None, ctypes.byref(size), None, 0) != 0:
            return None
        buffer = ctypes.create_string_buffer(size.value)
        if libc.sysctlbyname(name.encode(), buffer, ctypes.byref(size), None, 0) != 0:
            return None
        return buffer.value.decode("utf-8", "replace").strip() or None
    except (OSError, AttributeError, ValueError):
        return None


def _windows_cpu_name() -> str | None:
    """The marketing name Windows keeps in the registry (platform.processor() gives only the
    family/model numbers there)."""
    try:
        import winreg  # type: ignore[import-not-found]

        key = winreg.OpenKey(  # type: ignore[attr-defined]
            winreg.HKEY_LOCAL_MACHINE,  # type: ignore[attr-defined]
            r"HARDWARE\DESCRIPTION\System\CentralProcessor\0",
        )
        value, _ = winreg.QueryValueEx(key, "ProcessorNameString")  # type: ignore[attr-defined]
        return str(value).strip() or None
    except (ImportError, OSError):
        return None


# --------------------------------------------------------------------------- torch


def _torch_threads(info: CpuInfo) -> None:
    """Only when something else already imported torch: importing it here would cost seconds."""
    torch = sys.modules.get("torch")
    if torch is None:
        info.unknown["torch_threads"] = Msg("torch is not loaded in this process",
                                            "本进程没有加载 torch")
        return
    try:
        info.torch_threads = int(torch.get_num_threads())
    except Exception as exc:  # a broken torch install must not break CPU detection
        info.unknown["torch_threads"] = Msg(f"torch.get_num_threads() failed: {exc}",
                                            f"torch.get_num_threads() 调用失败：{exc}")
