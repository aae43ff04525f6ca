"""The "Measured on this machine" section of the PDF sheet: ``torchrig verify``'s comparison
of measured against planned, item by item (self-contained: the sheet holds a
:class:`VerifySection`, the renderer asks :func:`verify_flowables` for its flowables)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from torchrig.report.markup import escape_text

if TYPE_CHECKING:
    from torchrig.report.platypus import Flowable
    from torchrig.verify.compare import VerifyResult


@dataclass(frozen=True)
class VerifySection:
    """Ready-to-print text in the sheet's language.

    Attributes:
        context: what ran where, what was reduced, notes and flagged causes.
        header: item, planned, measured, difference.
        rows: (item, planned, measured, difference, flagged).
    """

    context: tuple[str, ...]
    header: tuple[str, ...]
    rows: tuple[tuple[str, str, str, str, bool], ...]


def verify_section(result: VerifyResult, lang: str) -> VerifySection:
    """The data of the section, from a verification (the CLI and the Wizard show the same)."""
    from torchrig.verify.compare import summary_lines, table

    header, body = table(result, lang)
    return VerifySection(
        context=tuple(summary_lines(result, lang)), header=tuple(header),
        rows=tuple((c[0], c[1], c[2], c[3], r.flagged)
                   for c, r in zip(body, result.rows, strict=True)))


def verify_flowables(renderer: Any, section: VerifySection) -> list[Flowable]:
    """Flowables for ``section`` in the renderer's fonts and table style."""
    from reportlab.lib.units import mm

    from torchrig.findings import Severity
    from torchrig.report.pdf_layout import CONTENT_W, SEVERITY_COLORS
    from torchrig.report.platypus import Spacer

    r = renderer
    out: list[Flowable] = [r.p(r.u(line), r.small) for line in section.context]
    out.append(Spacer(1, 4))
    rows: list[list[Any]] = [[r.p(escape_text(section.header[0]), r.head)]
                             + [r.p(escape_text(h), r.head_right) for h in section.header[1:]]]
    flagged = []
    for i, (item, planned, measured, diff, flag) in enumerate(section.rows, start=1):
        rows.append([r.p(escape_text(item))]
                    + [r.p(escape_text(v), r.cell_right) for v in (planned, measured, diff)])
        if flag:
            flagged.append(("BACKGROUND", (3, i), (3, i), SEVERITY_COLORS[Severity.WARNING]))
    widths = [0.0, 35 * mm, 35 * mm, 25 * mm]
    widths[0] = CONTENT_W - sum(widths)
    out.append(r._table(rows, widths, extra=flagged))
    return out
