"""Match the names hardware detection reports to catalog parts.

Detection reports vendor strings such as ``"NVIDIA GeForce RTX 4090"``,
``"13th Gen Intel(R) Core(TM) i9-13900K"`` or ``"AMD Ryzen 9 7950X 16-Core Processor"``. Both
those and each part's ``match_names`` are normalised the same way and compared for equality, so
"RTX 4090" never matches "RTX 4090 D" or a laptop part by accident.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from torchrig.catalog.model import Catalog, Part

_NOISE = [
    re.compile(r"\((?:r|tm)\)", re.I),
    re.compile(r"\b\d+(?:st|nd|rd|th)\s+gen\b", re.I),
    re.compile(r"\b\d+-cores?(?:\s+processor)?\b", re.I),
    re.compile(r"\bprocessor\b", re.I),
    re.compile(r"\bcpu\b", re.I),
    re.compile(r"@.*$"),
]

VRAM_TOLERANCE = 0.10
"""Detected VRAM is a little below the nominal size (reserved memory); a larger gap means a
different model with the same name (e.g. the 8 GB and 12 GB RTX 3060)."""


def normalize_name(name: str) -> str:
    text = name
    for pattern in _NOISE:
        text = pattern.sub(" ", text)
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    return " ".join(text.split())


def match_part(parts: Iterable[Part], detected_name: str,
               vram_bytes: int | None = None) -> Part | None:
    """The part whose match name equals ``detected_name`` (normalised), or None.

    With ``vram_bytes`` (GPUs), a part whose nominal VRAM differs by more than
    :data:`VRAM_TOLERANCE` is not a match.
    """
    key = normalize_name(detected_name)
    if not key:
        return None
    for part in parts:
        if key not in {normalize_name(n) for n in (*part.match_names, part.name)}:
            continue
        nominal = getattr(part.specs, "vram_bytes", None)
        if vram_bytes is not None and nominal and \
                abs(vram_bytes - nominal) > VRAM_TOLERANCE * nominal:
            continue
        return part
    return None


def match_gpu(catalog: Catalog, detected_name: str, vram_bytes: int | None = None) -> Part | None:
    """The catalog GPU a detected GPU is (see :func:`match_part`), or None."""
    return match_part(catalog.by_category("gpu"), detected_name, vram_bytes=vram_bytes)


def match_cpu(catalog: Catalog, detected_name: str) -> Part | None:
    """The catalog CPU a detected CPU is, or None."""
    return match_part(catalog.by_category("cpu"), detected_name)
