"""Arithmetic of the collective benchmark, kept pure so it can be checked against nccl-tests.

Conventions follow NVIDIA's nccl-tests (doc/PERFORMANCE.md) so figures compare one to one:

* ``bytes`` is the size nccl-tests prints: the all-reduce buffer, and for all-gather and
  reduce-scatter the *whole* gathered / scattered buffer (per-rank piece x ranks);
* algorithm bandwidth ``algbw = bytes / time``;
* bus bandwidth ``busbw = algbw x factor``, the factor making the figure comparable with the
  link's hardware peak whatever the rank count: all-reduce ``2(n-1)/n``, all-gather and
  reduce-scatter ``(n-1)/n``.

Sizes on the command line use binary multiples as nccl-tests does (``1K`` = 1024 bytes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from torchrig.errors import InputError

Op = Literal["all_reduce", "all_gather", "reduce_scatter"]
OPS: tuple[Op, ...] = ("all_reduce", "all_gather", "reduce_scatter")

ELEMENT_BYTES = 4
"""The benchmark moves float32, nccl-tests' default type, so sizes compare directly."""

MAX_MESSAGE_BYTES = 16 * 1024**3
"""Largest message accepted; all-gather needs this much on every GPU plus the input piece."""

MAX_SIZES = 64

DEFAULT_SIZES_NCCL = (8, 256 * 1024**2)
"""nccl-tests' usual sweep (-b 8 -e 256M -f 2): latency-bound to bandwidth-bound."""

DEFAULT_SIZES_GLOO = (8, 1024**2)
"""gloo runs on CPUs (often many ranks on few cores): a short sweep finishes in seconds."""

_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1024**2, "MB": 1024**2,
          "MIB": 1024**2, "G": 1024**3, "GB": 1024**3, "GIB": 1024**3}
_SIZE_RE = re.compile(r"^\s*(\d+)\s*([A-Za-z]*)\s*$")


def bus_factor(op: str, world_size: int) -> float:
    """nccl-tests' bus-bandwidth factor for ``op`` on ``world_size`` ranks."""
    if world_size < 1:
        raise ValueError(f"world_size must be >= 1, got {world_size}")
    n = world_size
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    raise ValueError(f"unknown collective {op!r}")


def algbw(n_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth in bytes/s."""
    if seconds <= 0:
        raise ValueError(f"time must be positive, got {seconds}")
    return n_bytes / seconds


def busbw(op: str, n_bytes: float, seconds: float, world_size: int) -> float:
    """Bus bandwidth in bytes/s: ``algbw x bus_factor``."""
    return algbw(n_bytes, seconds) * bus_factor(op, world_size)


@dataclass(frozen=True)
class MessageLayout:
    """How one requested size maps onto buffers, rounded down as nccl-tests rounds it.

    ``count`` is the element count of the per-rank piece for all-gather (input) and
    reduce-scatter (output), and of the whole buffer for all-reduce; ``n_bytes`` is the size
    bandwidth is computed from.
    """

    op: Op
    requested_bytes: int
    count: int
    n_bytes: int


def message_layout(op: Op, requested_bytes: int, world_size: int) -> MessageLayout | None:
    """Buffers for one (op, size), or None when the size is too small to give every rank one
    element (nccl-tests skips those sizes too)."""
    if op == "all_reduce":
        count = requested_bytes // ELEMENT_BYTES
        n_bytes = count * ELEMENT_BYTES
    else:
        count = requested_bytes // (ELEMENT_BYTES * world_size)
        n_bytes = count * ELEMENT_BYTES * world_size
    if count < 1:
        return None
    return MessageLayout(op=op, requested_bytes=requested_bytes, count=count, n_bytes=n_bytes)


def parse_size(text: str) -> int:
    """``"8"``, ``"64K"``, ``"1M"``, ``"2GiB"`` -> bytes (binary multiples)."""
    match = _SIZE_RE.match(text)
    if not match:
        raise InputError(f"--sizes: {text!r} is not a size (examples: 8, 64K, 1M, 1G)")
    unit = match.group(2).upper()
    if unit not in _UNITS:
        raise InputError(f"--sizes: unknown unit {match.group(2)!r} in {text!r} (use K, M or G)")
    value = int(match.group(1)) * _UNITS[unit]
    if value < 1:
        raise InputError(f"--sizes: {text!r} must be at least 1 byte")
    if value > MAX_MESSAGE_BYTES:
        raise InputError(f"--sizes: {text!r} is larger than the 16G limit")
    return value


def power_of_two_sizes(first: int, last: int) -> list[int]:
    """``first, 2*first, 4*first, ...`` up to ``last`` (nccl-tests ``-b first -e last -f 2``)."""
    if first > last:
        raise InputError(f"--sizes: range starts at {first} bytes, after its end at {last}")
    sizes = []
    size = first
    while size <= last:
        sizes.append(size)
        size *= 2
    return sizes


def parse_sizes(text: str) -> list[int]:
    """``"1K..1G"`` (doubling range) or ``"1K,64K,1M"`` (list), or both mixed with commas.

    Returns sorted, de-duplicated byte counts.
    """
    sizes: set[int] = set()
    for part in text.split(","):
        if not part.strip():
            raise InputError(f"--sizes: empty entry in {text!r}")
        if ".." in part:
            low, _, high = part.partition("..")
            sizes.update(power_of_two_sizes(parse_size(low), parse_size(high)))
        else:
            sizes.add(parse_size(part))
        if len(sizes) > MAX_SIZES:
            raise InputError(f"--sizes: more than {MAX_SIZES} sizes in {text!r}")
    return sorted(sizes)


def default_sizes(backend: str) -> list[int]:
    low, high = DEFAULT_SIZES_NCCL if backend == "nccl" else DEFAULT_SIZES_GLOO
    return power_of_two_sizes(low, high)


def parse_ops(text: str) -> list[Op]:
    """``"all"`` or a comma list of ``all_reduce, all_gather, reduce_scatter`` (``-`` allowed)."""
    chosen: list[Op] = []
    for part in text.split(","):
        name = part.strip().lower().replace("-", "_")
        if name == "all":
            return list(OPS)
        match = next((op for op in OPS if op == name), None)
        if match is None:
            raise InputError(f"--ops: unknown collective {part.strip()!r}; use {', '.join(OPS)}")
        if match not in chosen:
            chosen.append(match)
    return chosen


def fmt_size(n_bytes: int) -> str:
    """Binary sizes as nccl-tests users read them: ``8 B``, ``64 KiB``, ``1.5 MiB``."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= scale:
            value = n_bytes / scale
            return f"{value:.0f} {unit}" if value.is_integer() else f"{value:.1f} {unit}"
    return f"{n_bytes} B"
