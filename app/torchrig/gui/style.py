"""Colours shared by every page, so a status or severity looks the same everywhere."""

from __future__ import annotations

from torchrig.findings import Severity

STATUS_COLOURS = {
    "meets": "#1e7b34",
    "short": "#b3261e",
    "exceeds": "#1a5fb4",
    "unknown": "#77767b",
    "no target": "#77767b",
}

SEVERITY_COLOURS = {
    Severity.BLOCKER: "#b3261e",
    Severity.BOTTLENECK: "#c64600",
    Severity.WARNING: "#9c6d00",
    Severity.OVERKILL: "#7b3fa0",
    Severity.ADVICE: "#1a5fb4",
}
