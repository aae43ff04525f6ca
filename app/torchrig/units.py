"""Units: the core stores SI base units (bytes, bytes/s, FLOP/s, seconds, watts); these helpers
format them for people with the unit always explicit.

Memory (RAM, VRAM) is shown in binary GiB because that is how it is built and how the OS and
NVML count it; storage, link and memory *rates* are shown in decimal GB and GB/s because that is
how vendors quote them. Both helpers are here so each page uses the same convention.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # A type only: the decimal module costs a plan process milliseconds it never uses.
    from decimal import Decimal

KB = 1000
MB = 1000**2
GB = 1000**3
TB = 1000**4
KiB = 1024
MiB = 1024**2
GiB = 1024**3
TiB = 1024**4
TERA = 1e12


def _finite(value: float | None) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def fmt_gib(n_bytes: float | None, digits: int = 1) -> str:
    """Memory sizes: ``24.0 GiB``."""
    if not _finite(n_bytes):
        return "unknown"
    assert n_bytes is not None
    if abs(n_bytes) < GiB:
        return f"{n_bytes / MiB:.{digits}f} MiB"
    return f"{n_bytes / GiB:.{digits}f} GiB"


def fmt_gb(n_bytes: float | None, digits: int = 1) -> str:
    """Storage sizes, decimal as drives are sold: ``512.1 GB``, ``4.0 TB``."""
    if not _finite(n_bytes):
        return "unknown"
    assert n_bytes is not None
    if abs(n_bytes) >= TB:
        return f"{n_bytes / TB:.{digits}f} TB"
    if abs(n_bytes) >= GB:
        return f"{n_bytes / GB:.{digits}f} GB"
    return f"{n_bytes / MB:.{digits}f} MB"


def fmt_rate(bytes_per_s: float | None, digits: int = 1) -> str:
    """Transfer rates, decimal: ``7.0 GB/s``, ``560 MB/s``."""
    if not _finite(bytes_per_s):
        return "unknown"
    assert bytes_per_s is not None
    if abs(bytes_per_s) >= GB:
        return f"{bytes_per_s / GB:.{digits}f} GB/s"
    return f"{bytes_per_s / MB:.0f} MB/s"


def fmt_flops(flop_per_s: float | None, digits: int = 1) -> str:
    if not _finite(flop_per_s):
        return "unknown"
    assert flop_per_s is not None
    if abs(flop_per_s) >= TERA:
        return f"{flop_per_s / TERA:.{digits}f} TFLOP/s"
    return f"{flop_per_s / 1e9:.{digits}f} GFLOP/s"


def fmt_hz(hz: float | None) -> str:
    if not _finite(hz):
        return "unknown"
    assert hz is not None
    return f"{hz / 1e9:.2f} GHz"


def fmt_seconds(seconds: float | None, lang: str = "en") -> str:
    """Durations from microseconds to days; units are symbols (read alike in both languages)
    except the day, which is a word ("days" / "天")."""
    if not _finite(seconds):
        return "未知" if lang == "zh" else "unknown"
    assert seconds is not None
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} {'天' if lang == 'zh' else 'days'}"


def fmt_watts(watts: float | None) -> str:
    if not _finite(watts):
        return "unknown"
    assert watts is not None
    return f"{watts:.0f} W"


def fmt_percent_number(percent: Decimal) -> str:
    """A percentage's number as a quote prints it: 13 for 13 %, 6.5 for 6.5 %, 10 for 10 %
    (never "1e+1" or "13.00"); the one rule for every tax label."""
    return f"{percent.normalize():f}"


def fmt_money(amount: float | None, currency: str) -> str:
    """Money with two decimals and the ISO code: ``CNY 12,999.00``."""
    if not _finite(amount):
        return f"{currency} unknown"
    assert amount is not None
    return f"{currency} {amount:,.2f}"
