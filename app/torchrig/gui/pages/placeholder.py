"""A page that is not built yet says what it will do; it shows no fake data."""

from __future__ import annotations

from typing import Any

from torchrig.gui.qt import QLabel, Qt, QVBoxLayout, QWidget
from torchrig.gui.style import colour


class PlaceholderPage(QWidget):
    """``lazy``: its labels are made when it is first shown. The window starts with five
    "Loading…" ones behind This machine, and their rich-text headings and style sheets were
    laid out (the stack's size hint asks every page) before the first paint for nothing the
    user sees; a page that says why it cannot be built is filled at once."""

    def __init__(self, title: str, plan: str, parent: QWidget | None = None,
                 lazy: bool = False) -> None:
        super().__init__(parent)
        self.title, self.plan = title, plan
        self._layout: QVBoxLayout | None = None
        if not lazy:
            self._fill()

    def showEvent(self, event: Any) -> None:
        if self._layout is None:
            self._fill()
        super().showEvent(event)

    def _fill(self) -> None:
        layout = self._layout = QVBoxLayout(self)
        heading = QLabel(f"<h2>{self.title}</h2>")
        body = QLabel(self.plan)
        body.setWordWrap(True)
        body.setTextFormat(Qt.TextFormat.PlainText)
        note = QLabel(self.tr("This page is not built yet."))
        note.setStyleSheet(f"color: {colour('muted')};")
        layout.addWidget(heading)
        layout.addWidget(body)
        layout.addWidget(note)
        layout.addStretch(1)
