"""``torchrig detect``'s text summary (hardware/text.py) written out by hand, line for line.

The expected texts below are the layout rules of text.py applied by hand to small profiles:
a header line, a blank line, each section's title, its rows as two spaces + the label padded
to the section's longest label + two spaces + the value, a blank line after each section, the
failed probes last, and exactly one final line break. The labels are the fixed words of
hardware/sections.py (``_L``); the longest label of each section is counted in a comment.
"""

from __future__ import annotations

from torchrig.hardware.model import (
    AcceleratorStack,
    DiskInfo,
    GpuInfo,
    SystemProfile,
)
from torchrig.hardware.text import format_profile_text
from torchrig.i18n import Msg

# The CPU section of a profile that knows nothing: 12 rows, the longest labels
# "Usable by this process" and "ISA features for torch" are 22 characters.
_CPU_UNKNOWN = [
    "CPU",
    "  Model                   unknown",
    "  Vendor                  unknown",
    "  Architecture            unknown",
    "  Physical cores          unknown",
    "  Logical CPUs            unknown",
    "  Usable by this process  unknown",
    "  SMT / Hyper-Threading   unknown",
    "  Base frequency          unknown",
    "  Max frequency           unknown",
    "  Caches                  unknown",
    "  ISA features for torch  unknown",
    "  NUMA nodes              unknown",
    "",
]
# "Swap (used / total)" is the longest memory label: 19 characters.
_MEMORY_UNKNOWN = [
    "Memory",
    "  Total RAM            unknown",
    "  Available RAM        unknown",
    "  Swap (used / total)  unknown",
    "  DIMM type / speed    unknown",
    "",
]
# "torch (installed package)": 25 characters.
_SOFTWARE_UNKNOWN = [
    "Software",
    "  Operating system           unknown",
    "  Kernel                     unknown",
    "  Python                     unknown",
    "  torch (installed package)  not installed",
    "  PySide6                    not installed",
    "  NVML (nvidia-ml-py)        not installed",
    "  In a container             unknown",
]


def _lines(text: str) -> list[str]:
    assert text.endswith("\n") and not text.endswith("\n\n")  # one final line break
    return text[:-1].split("\n")


def test_a_profile_that_knows_nothing_reads_line_for_line():
    text = format_profile_text(SystemProfile())
    # No GPU section: its first row (the "no GPU" row) becomes the plain line without a
    # reason; the driver row is the only row left, so its label sets the width (20).
    assert _lines(text) == [
        "Host: ?  (?; detected in unknown)",
        "",
        *_CPU_UNKNOWN,
        *_MEMORY_UNKNOWN,
        "GPUs",
        "  No GPU detected",
        "  Driver / CUDA driver  unknown",
        "",
        "Storage",
        "",
        *_SOFTWARE_UNKNOWN,
    ]


def test_the_header_names_host_time_and_duration_in_both_languages():
    profile = SystemProfile(hostname="rig-01", created="2026-12-02T01:00:00Z",
                            detection_seconds=1.25)
    # fmt_seconds: under 120 s, one decimal and "s" (1.25 -> "1.2" by round-half-even of the
    # binary value 1.25 -> "1.2").
    assert _lines(format_profile_text(profile))[0] == (
        "Host: rig-01  (2026-12-02T01:00:00Z; detected in 1.2 s)")
    assert _lines(format_profile_text(profile, "zh"))[0] == (
        "主机: rig-01  (2026-12-02T01:00:00Z; 探测耗时 1.2 s)")
    # The default language is English.
    assert format_profile_text(profile) == format_profile_text(profile, "en")
    # An unknown duration in Chinese is "未知", not the English word.
    assert _lines(format_profile_text(SystemProfile(), "zh"))[0] == "主机: ?  (?; 探测耗时 未知)"


def test_the_no_gpu_line_gives_the_reason_and_prefers_the_gpus_reason():
    nvml = Msg("NVIDIA kernel driver is not loaded", "NVIDIA 内核驱动未加载")
    gpus = Msg("no GPU answered", "没有显卡应答")

    def gpu_lines(unknown: dict[str, Msg], lang: str = "en") -> list[str]:
        profile = SystemProfile(accelerator=AcceleratorStack(unknown=dict(unknown)))
        lines = _lines(format_profile_text(profile, lang))
        start = lines.index("GPUs" if lang == "en" else "显卡")
        return lines[start:start + 3]

    # Only NVML's reason: it is given.  The driver row's reason is NVML's too (sections.py),
    # and it is not printed a second time as a hint: only storage and PCIe rows get hints.
    assert gpu_lines({"nvml": nvml}) == [
        "GPUs",
        "  No GPU detected (NVIDIA kernel driver is not loaded)",
        "  Driver / CUDA driver  unknown (NVIDIA kernel driver is not loaded)",
    ]
    # Only the GPU list's reason.
    assert gpu_lines({"gpus": gpus})[1] == "  No GPU detected (no GPU answered)"
    # Both: the GPU list's reason wins.
    assert gpu_lines({"gpus": gpus, "nvml": nvml})[1] == "  No GPU detected (no GPU answered)"
    # In Chinese, the Chinese reason.  "驱动 / CUDA 驱动" is 12 characters.
    assert gpu_lines({"nvml": nvml}, "zh") == [
        "显卡",
        "  未检测到显卡 (NVIDIA 内核驱动未加载)",
        "  驱动 / CUDA 驱动  未知（NVIDIA 内核驱动未加载）",
    ]


def test_failed_probes_come_last_sorted_and_named_for_people():
    profile = SystemProfile(probe_errors={"storage": "OSError: no mount table",
                                          "cpu": "ValueError: bad cpuinfo",
                                          "custom_probe": "boom"})
    lines = _lines(format_profile_text(profile))
    # Everything before the probes is the "knows nothing" text; the software section ends
    # with its last row, then a blank line, then the probes sorted by their key.
    assert lines[-len(_SOFTWARE_UNKNOWN) - 5:] == [
        *_SOFTWARE_UNKNOWN,
        "",
        "Probes that failed",
        "  CPU: ValueError: bad cpuinfo",
        "  custom_probe: boom",  # no name for people: the key itself
        "  storage: OSError: no mount table",
    ]
    assert lines[:2] == ["Host: ?  (?; detected in unknown)", ""]
    zh = _lines(format_profile_text(profile, "zh"))
    assert zh[-4:] == ["失败的探测", "  处理器: ValueError: bad cpuinfo", "  custom_probe: boom",
                       "  存储: OSError: no mount table"]


def test_storage_rows_print_how_the_kind_was_decided_under_the_value():
    basis = Msg.verbatim("/sys/block/sda/queue/rotational = 0")
    disks = [
        DiskInfo(mountpoint="/", device="/dev/nvme0n1p2", fstype="ext4", kind="nvme",
                 total_bytes=500 * 10**9, free_bytes=125 * 10**9, device_bytes=2 * 10**12,
                 kind_basis=Msg("device name nvme0n1 (NVMe)", "设备名 nvme0n1（NVMe）")),
        DiskInfo(mountpoint="/data", device="/dev/sda1", fstype="xfs", kind="ssd",
                 total_bytes=4 * 10**12, free_bytes=3 * 10**12, kind_basis=basis),
    ]
    lines = _lines(format_profile_text(SystemProfile(disks=disks)))
    start = lines.index("Storage")
    # Labels are the mountpoints; "/data" (5) sets the width, so the hint line is indented
    # 2 + 5 + 2 spaces.  Sizes are decimal (fmt_gb): 125e9 B = 125.0 GB, 2e12 B = 2.0 TB.
    assert lines[start:start + 6] == [
        "Storage",
        "  /      NVMe · 125.0 GB free of 500.0 GB (filesystem) · disk 2.0 TB · "
        "/dev/nvme0n1p2 (ext4)",
        "         (device name nvme0n1 (NVMe))",
        "  /data  SSD · 3.0 TB free of 4.0 TB (filesystem) · /dev/sda1 (xfs)",
        "         (/sys/block/sda/queue/rotational = 0)",
        "",
    ]


def _gpu(index: int, name: str = "NVIDIA RTX 4090", **fields) -> GpuInfo:
    return GpuInfo(index=index, name=name, vendor="NVIDIA", sources=["nvml"], **fields)


def test_a_gpu_section_prints_the_pcie_hint_and_no_other_hint():
    gpu = _gpu(0, pcie_gen_current=1, pcie_gen_max=4, pcie_width_current=16, pcie_width_max=16,
               unknown={"uuid": Msg("nvmlDeviceGetUUID: Not Supported",
                                    "nvmlDeviceGetUUID 调用失败：Not Supported")})
    profile = SystemProfile(gpus=[gpu], accelerator=AcceleratorStack(driver_version="550.54.15",
                                                                   cuda_driver_version="12.4"))
    lines = _lines(format_profile_text(profile))
    start = lines.index("GPU 0: NVIDIA RTX 4090")
    # "PCIe link (current / max)" is the longest label: 25; the hint line is indented 29.
    pad = " " * 29
    assert lines[start:start + 16] == [
        "GPU 0: NVIDIA RTX 4090",
        "  Vendor                     NVIDIA",
        "  VRAM (free / total)        unknown",
        "  Compute capability         unknown",
        "  SMs                        unknown",
        "  PCIe link (current / max)  Gen1 x16 / Gen4 x16",
        f"{pad}(PCIe: links downclock when idle: read the current link under load)",
        "  Power limit                unknown",
        "  NVLink                     none",
        "  MIG mode                   unknown",
        "  Usable by torch            unknown",
        "  Seen by                    nvml",
        # An unknown UUID has its reason as a hint, which the text does not repeat.
        "  UUID                       unknown (nvmlDeviceGetUUID: Not Supported)",
        "  Driver / CUDA driver       550.54.15 / CUDA 12.4",
        "",
        "Storage",
    ]


def test_two_gpus_get_one_section_each_with_the_driver_on_the_first():
    profile = SystemProfile(gpus=[_gpu(0), _gpu(1, name="NVIDIA A100-SXM4-80GB")])
    lines = _lines(format_profile_text(profile))
    first, second = lines.index("GPU 0: NVIDIA RTX 4090"), lines.index(
        "GPU 1: NVIDIA A100-SXM4-80GB")
    # GPU 0: its title, 11 rows, the PCIe hint line (printed for an unknown link too: the
    # idle note is the row's hint), the driver row and a blank line; then GPU 1, without the
    # driver row (it is added to the first GPU's section only).
    assert second == first + 15
    assert lines[second - 2:second] == ["  Driver / CUDA driver       unknown", ""]
    assert not any(line.startswith("  Driver") for line in lines[second:])
    assert "No GPU detected" not in "\n".join(lines)
