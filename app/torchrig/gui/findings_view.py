"""A read-only list of findings, worst first, with the rule's source in the tooltip."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from torchrig.findings import Finding, sort_findings
from torchrig.gui.qt import QTextBrowser, QWidget
from torchrig.gui.style import SEVERITY_COLOURS


def findings_html(findings: Iterable[Finding], lang: str, empty: str) -> str:
    items = sort_findings(findings)
    if not items:
        return f"<p style='color:#1e7b34'>{escape(empty)}</p>"
    parts = []
    for f in items:
        colour = SEVERITY_COLOURS[f.severity]
        parts.append(
            f"<p style='margin:4px 0'><span style='color:{colour};font-weight:bold'>"
            f"[{escape(f.severity.label.get(lang))}]</span> <b>{escape(f.title.get(lang))}</b>"
            f"<br/>{escape(f.detail.get(lang))}"
            f"<br/><i>{escape(f.fix.get(lang))}</i>"
            f" <span style='color:#77767b'>({escape(f.source)})</span></p>"
        )
    return "".join(parts)


class FindingsView(QTextBrowser):
    def __init__(self, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._lang = lang
        self.setOpenExternalLinks(False)
        self.set_findings([])

    def set_findings(self, findings: Iterable[Finding], empty: str | None = None) -> None:
        self.setHtml(findings_html(findings, self._lang, empty or self.tr("No findings.")))
