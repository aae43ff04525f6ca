"""The profile as labelled rows, shared by the GUI cards, the text summary and the PDF.

One function decides how each field reads to a person (units, "unknown (reason)"), so the
This-machine page, ``torchrig detect`` and the build sheet always agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from torchrig.hardware.model import DiskInfo, GpuInfo, SystemProfile
from torchrig.i18n import Msg, pick
from torchrig.labels import STORAGE_KINDS, label
from torchrig.units import fmt_gb, fmt_gib, fmt_hz, fmt_watts

PCIE_IDLE_NOTE = Msg("links downclock when idle: read the current link under load",
                     "空闲时链路会降速：请在负载下读取当前链路")
_USABLE_HINT = Msg("CPU affinity and cgroup quota limit what DataLoader workers can use",
                   "CPU 亲和性和 cgroup 配额限制了 DataLoader 工作进程能用的处理器")
_ISA_HINT = Msg("AVX2/AVX-512/AMX (x86) and NEON/SVE (ARM) decide torch's CPU kernel speed",
                "AVX2/AVX-512/AMX（x86）和 NEON/SVE（ARM）决定 torch 在 CPU 上的运算速度")


@dataclass
class Row:
    label: str
    value: str
    known: bool = True
    hint: str = ""  # tooltip: what the field means or why it is unknown


@dataclass
class Section:
    key: str  # "cpu", "memory", "gpu0", "storage", "software"
    title: str
    rows: list[Row] = field(default_factory=list)


_L = {
    "cpu": ("CPU", "处理器"),
    "memory": ("Memory", "内存"),
    "gpu": ("GPU", "显卡"),
    "gpus_none": ("GPUs", "显卡"),
    "storage": ("Storage", "存储"),
    "software": ("Software", "软件"),
    "unknown": ("unknown", "未知"),
    "model": ("Model", "型号"),
    "vendor": ("Vendor", "厂商"),
    "arch": ("Architecture", "架构"),
    "cores": ("Physical cores", "物理核心"),
    "threads": ("Logical CPUs", "逻辑处理器"),
    "usable": ("Usable by this process", "本进程可用"),
    "smt": ("SMT / Hyper-Threading", "超线程 (SMT)"),
    "base": ("Base frequency", "基础频率"),
    "max": ("Max frequency", "最高频率"),
    "cache": ("Caches", "缓存"),
    "isa": ("ISA features for torch", "与 torch 相关的指令集"),
    "numa": ("NUMA nodes", "NUMA 节点"),
    "torch_threads": ("torch intra-op threads", "torch 运算线程数"),
    "ram_total": ("Total RAM", "内存总量"),
    "ram_avail": ("Available RAM", "可用内存"),
    "swap": ("Swap (used / total)", "交换空间（已用 / 总量）"),
    "dimm": ("DIMM type / speed", "内存条类型 / 速率"),
    "vram": ("VRAM (free / total)", "显存（可用 / 总量）"),
    "cc": ("Compute capability", "计算能力"),
    "sms": ("SMs", "SM 数量"),
    "pcie": ("PCIe link (current / max)", "PCIe 链路（当前 / 最大）"),
    "power": ("Power limit", "功耗上限"),
    "nvlink": ("NVLink", "NVLink"),
    "mig": ("MIG mode", "MIG 模式"),
    "torch_use": ("Usable by torch", "torch 可用"),
    "uuid": ("UUID", "UUID"),
    "seen_by": ("Seen by", "检测来源"),
    "driver": ("Driver / CUDA driver", "驱动 / CUDA 驱动"),
    "torch_build": ("torch build (CUDA / ROCm / cuDNN)", "torch 构建（CUDA / ROCm / cuDNN）"),
    "no_gpu": ("No GPU detected", "未检测到显卡"),
    "os": ("Operating system", "操作系统"),
    "kernel": ("Kernel", "内核"),
    "python": ("Python", "Python"),
    "torch": ("torch (installed package)", "torch（已安装的包）"),
    "pyside": ("PySide6", "PySide6"),
    "nvml": ("NVML (nvidia-ml-py)", "NVML (nvidia-ml-py)"),
    "container": ("In a container", "容器内运行"),
    "yes": ("yes", "是"),
    "no": ("no", "否"),
    "on": ("on", "开启"),
    "off": ("off", "关闭"),
    "not_installed": ("not installed", "未安装"),
    "free_of": ("free of", "可用，共"),
    "filesystem": ("filesystem", "文件系统"),
    "disk": ("disk", "磁盘"),
    "links_active": ("{active} / {total} links active", "{active} / {total} 条链路在用"),
    "none": ("none", "无"),
}


# Names of detection's probes (``SystemProfile.probe_errors`` keys), for people.
PROBES = {
    "hostname": Msg("host name", "主机名"),
    "torch": Msg("torch", "torch"),
    "cpu": Msg("CPU", "处理器"),
    "memory": Msg("memory", "内存"),
    "storage": Msg("storage", "存储"),
    "software": Msg("software", "软件"),
    "nvml": Msg("NVML", "NVML"),
    "gpu_merge": Msg("GPU list", "显卡列表"),
}


def _t(key: str, lang: str) -> str:
    return pick(_L, key, lang)


def _unknown(reason: Msg | None, lang: str) -> str:
    word = _t("unknown", lang)
    text = reason.get(lang) if reason else ""
    if not text:
        return word
    return f"{word}（{text}）" if lang == "zh" else f"{word} ({text})"


def _row(label: str, value: Any, reason: Msg | None, lang: str, hint: Msg | None = None) -> Row:
    if value is None or value == "" or value == []:
        why = reason or hint
        return Row(label, _unknown(reason, lang), known=False, hint=why.get(lang) if why else "")
    return Row(label, str(value), hint=hint.get(lang) if hint else "")


def _yes_no(value: bool | None, lang: str, words: tuple[str, str] = ("yes", "no")) -> str | None:
    if value is None:
        return None
    return _t(words[0], lang) if value else _t(words[1], lang)


def cpu_section(profile: SystemProfile, lang: str) -> Section:
    cpu, why = profile.cpu, profile.cpu.unknown
    caches = ", ".join(f"{k} {fmt_gib(v) if v >= 2**30 else f'{v / 1024:.0f} KiB'}"
                       for k, v in cpu.cache_bytes.items()) if cpu.cache_bytes else None
    rows = [
        _row(_t("model", lang), cpu.model_name, why.get("model_name"), lang),
        _row(_t("vendor", lang), cpu.vendor, why.get("vendor"), lang),
        _row(_t("arch", lang), cpu.architecture, why.get("architecture"), lang),
        _row(_t("cores", lang), cpu.physical_cores, why.get("physical_cores"), lang),
        _row(_t("threads", lang), cpu.logical_cpus, why.get("logical_cpus"), lang),
        _row(_t("usable", lang), cpu.usable_cpus, why.get("usable_cpus"), lang,
             hint=_USABLE_HINT),
        _row(_t("smt", lang), _yes_no(cpu.smt_enabled, lang, ("on", "off")),
             why.get("smt_enabled"), lang),
        _row(_t("base", lang), fmt_hz(cpu.base_freq_hz) if cpu.base_freq_hz else None,
             why.get("base_freq_hz"), lang),
        _row(_t("max", lang), fmt_hz(cpu.max_freq_hz) if cpu.max_freq_hz else None,
             why.get("max_freq_hz"), lang),
        _row(_t("cache", lang), caches, why.get("cache_bytes"), lang),
        _row(_t("isa", lang), ", ".join(cpu.isa_features) if cpu.isa_features else None,
             why.get("isa_features"), lang, hint=_ISA_HINT),
        _row(_t("numa", lang), cpu.numa_nodes, why.get("numa_nodes"), lang),
    ]
    if cpu.torch_threads is not None or "torch_threads" in why:
        rows.append(_row(_t("torch_threads", lang), cpu.torch_threads,
                         why.get("torch_threads"), lang))
    return Section("cpu", _t("cpu", lang), rows)


def memory_section(profile: SystemProfile, lang: str) -> Section:
    mem, why = profile.memory, profile.memory.unknown
    swap = None
    if mem.swap_total_bytes is not None:
        swap = f"{fmt_gib(mem.swap_used_bytes)} / {fmt_gib(mem.swap_total_bytes)}"
    dimm = None
    if mem.dimm_type or mem.dimm_speed_mts:
        speed = f"{mem.dimm_speed_mts} MT/s" if mem.dimm_speed_mts else ""
        dimm = " ".join(p for p in [mem.dimm_type or "?", speed] if p)
    return Section("memory", _t("memory", lang), [
        _row(_t("ram_total", lang), fmt_gib(mem.total_bytes) if mem.total_bytes else None,
             why.get("total_bytes"), lang),
        _row(_t("ram_avail", lang), fmt_gib(mem.available_bytes) if mem.available_bytes else None,
             why.get("available_bytes"), lang),
        _row(_t("swap", lang), swap, why.get("swap_total_bytes"), lang),
        _row(_t("dimm", lang), dimm, why.get("dimm_type") or why.get("dimm_speed_mts"), lang),
    ])


def _pcie(gpu: GpuInfo) -> str | None:
    if gpu.pcie_gen_current is None and gpu.pcie_gen_max is None:
        return None

    def link(gen: int | None, width: int | None) -> str:
        return f"Gen{gen if gen is not None else '?'} x{width if width is not None else '?'}"

    return (f"{link(gpu.pcie_gen_current, gpu.pcie_width_current)} / "
            f"{link(gpu.pcie_gen_max, gpu.pcie_width_max)}")


def gpu_section(gpu: GpuInfo, profile: SystemProfile, lang: str) -> Section:
    why = gpu.unknown
    vram = None
    if gpu.vram_total_bytes is not None:
        free = fmt_gib(gpu.vram_free_bytes) if gpu.vram_free_bytes is not None else "?"
        vram = f"{free} / {fmt_gib(gpu.vram_total_bytes)}"
    nvlink = None
    if gpu.nvlinks:
        active = sum(1 for link in gpu.nvlinks if link.active)
        nvlink = _t("links_active", lang).format(active=active, total=len(gpu.nvlinks))
    elif "nvlinks" not in why and "nvml" in gpu.sources:
        nvlink = _t("none", lang)
    title = f"{_t('gpu', lang)} {gpu.index}: {gpu.name or _t('unknown', lang)}"
    rows = [
        _row(_t("vendor", lang), gpu.vendor, why.get("vendor"), lang),
        _row(_t("vram", lang), vram, why.get("vram_total_bytes"), lang),
        _row(_t("cc", lang), gpu.compute_capability, why.get("compute_capability"), lang),
        _row(_t("sms", lang), gpu.sm_count, why.get("sm_count"), lang),
        _row(_t("pcie", lang), _pcie(gpu), why.get("pcie_gen_current"), lang,
             hint=PCIE_IDLE_NOTE),
        _row(_t("power", lang), fmt_watts(gpu.power_limit_w) if gpu.power_limit_w else None,
             why.get("power_limit_w"), lang),
        _row(_t("nvlink", lang), nvlink, why.get("nvlinks"), lang),
        _row(_t("mig", lang), _yes_no(gpu.mig_enabled, lang, ("on", "off")),
             why.get("mig_enabled"), lang),
        _row(_t("torch_use", lang),
             (_yes_no(gpu.torch_usable, lang) or "") +
             (f" ({gpu.torch_device})" if gpu.torch_device and gpu.torch_usable else "") +
             (f" ({why['torch_usable'].get(lang)})"
              if not gpu.torch_usable and "torch_usable" in why else "")
             if gpu.torch_usable is not None else None,
             why.get("torch_usable"), lang),
        _row(_t("seen_by", lang), ", ".join(gpu.sources), None, lang),
        _row(_t("uuid", lang), gpu.uuid, why.get("uuid"), lang),
    ]
    return Section(f"gpu{gpu.index}", title, rows)


def accelerator_rows(profile: SystemProfile, lang: str) -> list[Row]:
    acc, why = profile.accelerator, profile.accelerator.unknown
    driver = None
    if acc.driver_version or acc.cuda_driver_version:
        driver = f"{acc.driver_version or '?'} / CUDA {acc.cuda_driver_version or '?'}"
    rows = [_row(_t("driver", lang), driver, why.get("nvml") or why.get("driver_version"), lang)]
    if acc.torch_loaded:
        build = (f"CUDA {acc.torch_cuda_version or '-'} / ROCm {acc.torch_hip_version or '-'} / "
                 f"cuDNN {acc.cudnn_version or '-'}")
        rows.append(_row(_t("torch_build", lang), build, None, lang))
    return rows


def storage_section(profile: SystemProfile, lang: str) -> Section:
    rows = [_disk_row(d, lang) for d in profile.disks]
    return Section("storage", _t("storage", lang), rows)


def _disk_row(disk: DiskInfo, lang: str) -> Row:
    size = (f"{fmt_gb(disk.free_bytes)} {_t('free_of', lang)} {fmt_gb(disk.total_bytes)} "
            f"({_t('filesystem', lang)})"
            if disk.total_bytes is not None else _unknown(disk.unknown.get("total_bytes"), lang))
    if disk.device_bytes is not None:
        # The filesystem can be far smaller than the disk it sits on: show both.
        size += f" · {_t('disk', lang)} {fmt_gb(disk.device_bytes)}"
    kind = label(STORAGE_KINDS, disk.kind, lang)
    value = f"{kind} · {size} · {disk.device or '?'} ({disk.fstype or '?'})"
    return Row(disk.mountpoint, value, hint=disk.kind_basis.get(lang))


def software_section(profile: SystemProfile, lang: str) -> Section:
    sw, why = profile.software, profile.software.unknown
    os_text = " ".join(p for p in [sw.os_name or "", sw.os_version or ""] if p) or None
    return Section("software", _t("software", lang), [
        _row(_t("os", lang), os_text, why.get("os_name"), lang),
        _row(_t("kernel", lang), sw.kernel, why.get("kernel"), lang),
        _row(_t("python", lang), sw.python_version, why.get("python_version"), lang),
        Row(_t("torch", lang), sw.torch_version or _t("not_installed", lang),
            known=sw.torch_version is not None),
        Row(_t("pyside", lang), sw.pyside6_version or _t("not_installed", lang),
            known=sw.pyside6_version is not None),
        Row(_t("nvml", lang), sw.nvml_library or _t("not_installed", lang),
            known=sw.nvml_library is not None),
        _row(_t("container", lang), _yes_no(sw.in_container, lang), why.get("in_container"), lang),
    ])


def profile_sections(profile: SystemProfile, lang: str = "en") -> list[Section]:
    """CPU, memory, one section per GPU (or a "no GPU" section), storage, software."""
    sections = [cpu_section(profile, lang), memory_section(profile, lang)]
    if profile.gpus:
        for gpu in profile.gpus:
            section = gpu_section(gpu, profile, lang)
            sections.append(section)
        sections[2].rows.extend(accelerator_rows(profile, lang))
    else:
        why = profile.accelerator.unknown
        reason = why.get("nvml") or why.get("gpus")
        text = reason.get(lang) if reason else ""
        none = Section("gpus", _t("gpus_none", lang), [
            Row(_t("no_gpu", lang), text or "-", known=True, hint=text)])
        none.rows.extend(accelerator_rows(profile, lang))
        sections.append(none)
    sections.append(storage_section(profile, lang))
    sections.append(software_section(profile, lang))
    return sections


def sections_text(sections: list[Section]) -> str:
    """Plain-text rendering (the GUI's "copy as text" and the CLI summary share it)."""
    lines: list[str] = []
    for section in sections:
        lines.append(f"== {section.title} ==")
        width = max((len(r.label) for r in section.rows), default=0)
        for row in section.rows:
            lines.append(f"  {row.label.ljust(width)}  {row.value}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
