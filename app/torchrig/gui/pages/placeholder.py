"""A page that is not built yet says what it will do; it shows no fake data."""

from __future__ import annotations

from torchrig.gui.qt import QLabel, Qt, QVBoxLayout, QWidget
from torchrig.gui.style import colour


class PlaceholderPage(QWidget):
    def __init__(self, title: str, plan: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        heading = QLabel(f"<h2>{title}</h2>")
        body = QLabel(plan)
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.PlainText)
        note = QLabel(self.tr("This page is not built yet."))
        note.setStyleSheet(f"color: {colour('muted')};")
        layout.addWidget(heading)
        layout.addWidget(body)
        layout.addWidget(note)
        layout.addStretch(1)
