"""The sheet's colours and the one-line text fitting that charts and page headers share.

Apart from :mod:`torchrig.report.charts` so that a sheet without charts (a quote without a
workload or benchmark) does not import ``reportlab.graphics`` (15-20 ms of CPU of every such
export process, issue 27).
"""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

INK = colors.HexColor("#222222")
MUTED = colors.HexColor("#666666")
RULE = colors.HexColor("#BBBBBB")
GRID = colors.HexColor("#E3E3E3")
ACCENT = colors.HexColor("#1F4E79")

PALETTE = [colors.HexColor(c) for c in (
    "#1F4E79", "#4E9FD1", "#F28E2B", "#59A14F", "#B07AA1", "#E15759", "#76B7B2", "#EDC948",
    "#9C755F", "#BAB0AC",
)]
"""Colour-blind-friendly order (Tableau 10 based), starting with the accent colour."""

TITLE_SIZE = 9.0
LABEL_SIZE = 7.0


def fit_text(label: str, font: str, size: float, width: float) -> str:
    """``label`` shortened with "..." so it fits ``width`` points (chart text cannot wrap)."""
    if stringWidth(label, font, size) <= width:
        return label
    ellipsis = "..."
    lo, hi = 0, len(label)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if stringWidth(label[:mid] + ellipsis, font, size) <= width:
            lo = mid
        else:
            hi = mid - 1
    return label[:lo] + ellipsis
