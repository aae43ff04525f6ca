"""Hardware detection: this machine as a :class:`SystemProfile`, without Qt and without torch.

``detect()`` reads /proc and /sys (Linux), psutil/platform elsewhere, and NVML for NVIDIA GPUs;
torch is imported only with ``use_torch=True``. Every probe is guarded: unknown values are None
with a reason, and a crashing probe is listed in ``profile.probe_errors``.
"""

from __future__ import annotations

from torchrig.hardware.detection import detect
from torchrig.hardware.model import (
    AcceleratorStack,
    CpuInfo,
    DiskInfo,
    GpuInfo,
    MemoryInfo,
    NvLinkInfo,
    SoftwareInfo,
    SystemProfile,
)
from torchrig.hardware.text import format_profile_text

__all__ = [
    "AcceleratorStack",
    "CpuInfo",
    "DiskInfo",
    "GpuInfo",
    "MemoryInfo",
    "NvLinkInfo",
    "SoftwareInfo",
    "SystemProfile",
    "detect",
    "format_profile_text",
]
