"""A read-only list of findings, worst first, with the rule's source in the text and the rule
itself (its code, source and the numbers it judged) in each finding's tooltip."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from torchrig.findings import Finding, sort_findings
from torchrig.gui.qt import QEvent, QPoint, QTextBrowser, QToolTip, QWidget
from torchrig.gui.style import colour, severity_colour
from torchrig.labels import citation


def findings_html(findings: Iterable[Finding], lang: str, empty: str) -> str:
    """One paragraph per finding (the tooltip maps a paragraph back to its finding)."""
    items = sort_findings(findings)
    if not items:
        return f"<p style='color:{colour('ok')}'>{escape(empty)}</p>"
    muted = colour("muted")
    parts = []
    for f in items:
        parts.append(
            f"<p style='margin:4px 0'><span style='color:{severity_colour(f.severity)};"
            f"font-weight:bold'>[{escape(f.severity.label.get(lang))}]</span> "
            f"<b>{escape(f.title.get(lang))}</b>"
            f"<br/>{escape(f.detail.get(lang))}"
            f"<br/><i>{escape(f.fix.get(lang))}</i>"
            f" <span style='color:{muted}'>({escape(citation(f.source, lang))})</span></p>"
        )
    return "".join(parts)


def _number(value: float) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class FindingsView(QTextBrowser):
    """Attributes:
    findings: the findings shown, in display order (worst first).
    """

    def __init__(self, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang = lang
        self.findings: list[Finding] = []
        self.setOpenExternalLinks(False)
        self.set_findings([])

    def set_findings(self, findings: Iterable[Finding], empty: str | None = None) -> None:
        self.findings = sort_findings(findings)
        self.setHtml(findings_html(self.findings, self._lang, empty or self.tr("No findings.")))

    def rule_tooltip(self, finding: Finding) -> str:
        """What the rule is and what it judged: a user checks it against the source."""
        lines = [self.tr("Rule: {0}").format(finding.code),
                 self.tr("Source: {0}").format(citation(finding.source, self._lang)),
                 self.tr("Severity: {0}").format(finding.severity.label.get(self._lang))]
        if finding.numbers:
            lines.append(self.tr("Numbers it judged (SI units):"))
            lines += [f"  {key} = {_number(value)}" for key, value in finding.numbers.items()]
        return "\n".join(lines)

    def finding_at(self, x: int, y: int) -> Finding | None:
        """The finding under a viewport position (each finding is one text block)."""
        block = self.cursorForPosition(QPoint(x, y)).blockNumber()
        return self.findings[block] if 0 <= block < len(self.findings) else None

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            pos = event.pos()  # type: ignore[attr-defined]
            where = event.globalPos()  # type: ignore[attr-defined]
            finding = self.finding_at(pos.x(), pos.y())
            if finding is not None:
                QToolTip.showText(where, self.rule_tooltip(finding), self.viewport())
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)
