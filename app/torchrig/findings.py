"""Findings: what analysis, compatibility checks and benchmarks tell the user.

One model for all of them, so the GUI, the CLI and the PDF show findings the same way. Each
finding has the numbers behind it, a fix, and its source (a seed section such as "seed 4.2" or a
reference), so a user can check the rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

from torchrig.i18n import Msg
from torchrig.labels import citation
from torchrig.records import field, record


class Severity(str, Enum):
    """Ordered from worst to mildest.

    BLOCKER is the "error" severity of the CLI contract: the build cannot work or the workload
    will not run (does not fit in VRAM, socket mismatch). ``torchrig check`` exits 1 on one.
    """

    BLOCKER = "blocker"
    BOTTLENECK = "bottleneck"
    WARNING = "warning"
    OVERKILL = "overkill"
    ADVICE = "advice"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)

    @property
    def label(self) -> Msg:
        return _SEVERITY_LABELS[self]


_SEVERITY_LABELS = {
    Severity.BLOCKER: Msg("Blocker", "阻断"),
    Severity.BOTTLENECK: Msg("Bottleneck", "瓶颈"),
    Severity.WARNING: Msg("Warning", "警告"),
    Severity.OVERKILL: Msg("Overkill", "配置过剩"),
    Severity.ADVICE: Msg("Advice", "建议"),
}


@record
class Finding:
    """One observation with its evidence.

    Attributes:
        code: stable dotted id, e.g. ``"compat.socket"``, ``"analysis.vram"``.
        severity: how bad it is.
        title: one line.
        detail: the numbers behind it, in words.
        fix: what to change (a catalog part, a technique).
        source: where the rule comes from: a citation of documents and people as text
            ("seed 4.2", "Puget Systems; Tim Dettmers"; :func:`torchrig.labels.citation` names
            the project's own documents in the reader's language), or a :class:`Msg` when it
            says more than names ("maker specifications (card length …)").
        numbers: the same numbers in SI base units, for JSON consumers.
    """

    code: str
    severity: Severity
    title: Msg
    detail: Msg
    fix: Msg
    source: Msg | str
    numbers: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "title": self.title.to_dict(),
            "detail": self.detail.to_dict(),
            "fix": self.fix.to_dict(),
            "source": self.source.to_dict() if isinstance(self.source, Msg) else self.source,
            "numbers": dict(self.numbers),
        }


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first; stable within a severity so related findings stay together."""
    return sorted(findings, key=lambda f: f.severity.rank)


def has_blocker(findings: Iterable[Finding]) -> bool:
    return any(f.severity is Severity.BLOCKER for f in findings)


_WORDS = {
    "none": ("No findings.", "未发现问题。"),
    "fix": ("fix", "建议"),
    "source": ("source", "依据"),
}


def format_findings_text(findings: Iterable[Finding], lang: str = "en",
                         none: str | None = None) -> str:
    """Findings for a terminal, worst first: severity, title, numbers, fix and source."""
    ordered = sort_findings(findings)
    if not ordered:
        return "  " + (none or _WORDS["none"][lang == "zh"]) + "\n"
    out = []
    colon = "：" if lang == "zh" else ": "
    for f in ordered:
        out.append(f"  [{f.severity.label.get(lang)}] {f.title.get(lang)}")
        out.append(f"      {f.detail.get(lang)}")
        out.append(f"      {_WORDS['fix'][lang == 'zh']}{colon}{f.fix.get(lang)}")
        out.append(f"      {_WORDS['source'][lang == 'zh']}{colon}{citation(f.source, lang)}")
    return "\n".join(out) + "\n"
