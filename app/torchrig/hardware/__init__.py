"""Hardware detection: this machine as a :class:`SystemProfile`, without Qt and without torch.

``detect()`` reads /proc and /sys (Linux), psutil/platform elsewhere, and NVML for NVIDIA GPUs;
torch is imported only with ``use_torch=True``. Every probe is guarded: unknown values are None
with a reason, and a crashing probe is listed in ``profile.probe_errors``.
"""

from __future__ import annotations

from typing import Any

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


def __getattr__(name: str) -> Any:
    """``detect`` and ``format_profile_text`` load the probes on first use: the GUI imports
    the profile model at start-up but runs detection later, on a worker thread."""
    if name == "detect":
        from torchrig.hardware.detection import detect

        return detect
    if name == "format_profile_text":
        from torchrig.hardware.text import format_profile_text

        return format_profile_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
