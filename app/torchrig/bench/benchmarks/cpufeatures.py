"""Which 16-bit matmul instructions the CPU has, so benchmarks measure hardware, not emulation.

Without native instructions torch still runs bf16/fp16 matmul on a CPU, but by converting
element by element - orders of magnitude slower and meaningless as a hardware figure.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torchrig.hardware.model import SystemProfile

BF16_FEATURES = frozenset({"avx512_bf16", "amx_bf16", "bf16"})
"""x86 AVX512_BF16 / AMX-BF16 (Linux flag names) and Arm's BF16 extension."""

FP16_FEATURES = frozenset({"avx512_fp16", "amx_fp16"})
"""x86 AVX512-FP16 (Sapphire Rapids) and AMX-FP16 (Granite Rapids)."""


def cpu_isa_features(profile: SystemProfile | None) -> set[str]:
    """ISA flags from the detected profile, or /proc/cpuinfo when there is no profile."""
    if profile is not None and profile.cpu.isa_features:
        return {f.lower() for f in profile.cpu.isa_features}
    return cpu_flags()


def cpu_flags() -> set[str]:
    """Every flag the first CPU of /proc/cpuinfo lists (Linux; empty elsewhere). The detected
    profile keeps only the ISA features torch uses, so a question about the machine itself -
    ``hypervisor``: is this a virtual machine - must read them here."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    key = line.split(":", 1)[0].strip().lower()
                    if key in ("flags", "features"):
                        return set(line.split(":", 1)[1].lower().split())
        except OSError:
            pass
    return set()


def native_16bit(profile: SystemProfile | None, dtype: str) -> bool:
    features = cpu_isa_features(profile)
    return bool(features & (BF16_FEATURES if dtype == "bf16" else FP16_FEATURES))
