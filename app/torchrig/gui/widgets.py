"""Small widgets shared by the pages."""

from __future__ import annotations

from torchrig.gui.qt import QLabel, QPainter, QSize, QSizePolicy, Qt, QWidget


class ElidedLabel(QLabel):
    """One line of plain text that shrinks with "…" instead of widening the window.

    A long build name or file path in a toolbar would otherwise set the window's minimum
    width (a plain QLabel never gets narrower than its text); the full text is the tooltip.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        rect = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideMiddle,
                                              rect.width())
        painter.drawText(rect, int(self.alignment()), shown)
        painter.end()
