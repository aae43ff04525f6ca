"""The readable summary printed by ``torchrig detect``: CPU, Memory, GPUs, Storage, Software.

Field formatting (units, "unknown (reason)", labels in English or Chinese) lives in
:mod:`torchrig.hardware.sections`, which the GUI's machine page uses too, so the CLI and the
window always say the same thing. This module lays those rows out as text and prints the hints
a terminal user would otherwise miss: the PCIe idle-downclock note, how each disk's kind was
decided, why no GPU was found, and any probe that failed.
"""

from __future__ import annotations

from torchrig.hardware.model import SystemProfile
from torchrig.hardware.sections import PROBES, Row, Section, profile_sections
from torchrig.i18n import Msg, pick
from torchrig.units import fmt_seconds

_WORDS = {
    "host": ("Host", "主机"),
    "took": ("detected in", "探测耗时"),
    "no_gpu": ("No GPU detected", "未检测到显卡"),
    "problems": ("Probes that failed", "失败的探测"),
}


def _w(key: str, lang: str) -> str:
    return pick(_WORDS, key, lang)


def format_profile_text(profile: SystemProfile, lang: str = "en") -> str:
    """Plain text, one section per component; ``lang`` is "en" or "zh" (labels only)."""
    lines = [
        f"{_w('host', lang)}: {profile.hostname or '?'}  ({profile.created or '?'}; "
        f"{_w('took', lang)} {fmt_seconds(profile.detection_seconds, lang)})",
        "",
    ]
    for section in profile_sections(profile, lang):
        lines += _section(section, profile, lang)
        lines.append("")
    if profile.probe_errors:
        lines.append(_w("problems", lang))
        lines += [f"  {PROBES.get(name, Msg.verbatim(name)).get(lang)}: {why}"
                  for name, why in sorted(profile.probe_errors.items())]
    return "\n".join(lines).rstrip() + "\n"


def _section(section: Section, profile: SystemProfile, lang: str) -> list[str]:
    lines = [section.title]
    rows = list(section.rows)
    if section.key == "gpus":  # the "no GPU" section: a normal result, with its reason
        why = profile.accelerator.unknown
        reason = why.get("gpus") or why.get("nvml")
        lines.append(f"  {_w('no_gpu', lang)}" + (f" ({reason.get(lang)})" if reason else ""))
        rows = rows[1:]
    width = max((len(row.label) for row in rows), default=0)
    for row in rows:
        lines.append(f"  {row.label.ljust(width)}  {row.value}")
        extra = _hint_to_print(section, row)
        if extra:
            lines.append(f"  {' ' * width}  ({extra})")
    return lines


def _hint_to_print(section: Section, row: Row) -> str:
    """Hints that change how a value should be read; the GUI shows them as tooltips."""
    if section.key == "storage":
        return row.hint  # how the medium kind was decided
    if section.key.startswith("gpu") and row.label.startswith("PCIe"):
        return f"PCIe: {row.hint}"
    return ""
