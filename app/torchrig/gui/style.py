"""Colours shared by every page, so a status or severity looks the same everywhere, in a light
and a dark variant so coloured text stays readable on either background.

Pages ask :func:`colour` at the moment they draw or build their HTML; after a theme change the
main window rebuilds its pages, so nothing keeps a colour from the other theme.
The variants are chosen for at least 4.5:1 contrast (WCAG AA for body text) against their
theme's base and window colours (tests/gui/test_theme.py measures it).
"""

from __future__ import annotations

from torchrig.findings import Severity
from torchrig.gui.qt import QApplication, QColor

LIGHT = {
    "ok": "#1e7b34",
    "error": "#b3261e",
    "info": "#1a5fb4",
    "warn": "#8a6100",
    "caution": "#b04000",
    "violet": "#7b3fa0",
    "muted": "#646368",
    "unknown": "#945400",
    "grid": "#c0bfbc",
}
DARK = {
    "ok": "#57e389",
    "error": "#ff7b72",
    "info": "#78aeed",
    "warn": "#f6d32d",
    "caution": "#ffa348",
    "violet": "#d4a5f0",
    "muted": "#a8a7ab",
    "unknown": "#ffbe6f",
    "grid": "#5e5c64",
}
TEXT_ROLES = ("ok", "error", "info", "warn", "caution", "violet", "muted", "unknown")
"""Roles used for text (the contrast rule applies); "grid" only draws chart lines."""

STATUS_ROLES = {
    "meets": "ok",
    "short": "error",
    "exceeds": "info",
    "unknown": "muted",
    "no target": "muted",
}

SEVERITY_ROLES = {
    Severity.BLOCKER: "error",
    Severity.BOTTLENECK: "caution",
    Severity.WARNING: "warn",
    Severity.OVERKILL: "violet",
    Severity.ADVICE: "info",
}


def is_dark() -> bool:
    """Whether text is drawn light on dark: judged from the application palette actually in
    use, so it is right whether the dark look came from the desktop or from our own theme.
    (Not a widget's palette: a page built inside an existing window still carries the old
    palette until the event loop delivers the change.)"""
    return QApplication.palette().window().color().lightness() < 128


def colour(role: str) -> str:
    """The ``#rrggbb`` for a role ("ok", "error", "muted", ...) in the current theme."""
    return (DARK if is_dark() else LIGHT)[role]


def qcolour(role: str) -> QColor:
    return QColor(colour(role))


def status_colour(status: str) -> str:
    return colour(STATUS_ROLES[status])


def severity_colour(severity: Severity) -> str:
    return colour(SEVERITY_ROLES[severity])


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio between two colours (1 to 21)."""

    def luminance(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        return (0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF())
                + 0.0722 * channel(c.blueF()))

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
