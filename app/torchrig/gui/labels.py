"""Display names for codes the core uses as identifiers (part categories, tier roles).

The core keeps codes such as ``"gpu"`` or ``"storage-system"`` in files and JSON; the GUI shows
them in the UI language. The texts are marked with ``QT_TRANSLATE_NOOP`` so lupdate extracts them
(a ``tr(variable)`` call is never extracted), and translated at display time.
"""

from __future__ import annotations

from torchrig.gui.qt import QT_TRANSLATE_NOOP, QCoreApplication

CONTEXT = "Labels"

CATEGORY_NAMES = {
    "gpu": QT_TRANSLATE_NOOP("Labels", "GPU"),
    "cpu": QT_TRANSLATE_NOOP("Labels", "CPU"),
    "memory": QT_TRANSLATE_NOOP("Labels", "Memory"),
    "storage": QT_TRANSLATE_NOOP("Labels", "Storage"),
    "motherboard": QT_TRANSLATE_NOOP("Labels", "Motherboard"),
    "psu": QT_TRANSLATE_NOOP("Labels", "Power supply"),
    "network": QT_TRANSLATE_NOOP("Labels", "Network"),
    "server-platform": QT_TRANSLATE_NOOP("Labels", "Server platform"),
    "platform": QT_TRANSLATE_NOOP("Labels", "Server platform"),
    "case": QT_TRANSLATE_NOOP("Labels", "Case"),
    "cpu_cooler": QT_TRANSLATE_NOOP("Labels", "CPU cooler"),
    "cooling": QT_TRANSLATE_NOOP("Labels", "Cooling"),
    "storage-system": QT_TRANSLATE_NOOP("Labels", "Storage system"),
    "shared-storage": QT_TRANSLATE_NOOP("Labels", "Shared storage"),
    "backup": QT_TRANSLATE_NOOP("Labels", "Backup"),
    "switch": QT_TRANSLATE_NOOP("Labels", "Network switch"),
    "software": QT_TRANSLATE_NOOP("Labels", "Software"),
    "service": QT_TRANSLATE_NOOP("Labels", "Service"),
    "other": QT_TRANSLATE_NOOP("Labels", "Other"),
}


def translate(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def category_name(code: str) -> str:
    """A part category or tier role in the UI language; an unknown code is shown as is."""
    text = CATEGORY_NAMES.get(code)
    return translate(text) if text else code
