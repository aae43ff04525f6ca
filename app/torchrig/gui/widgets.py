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


class WrappedLabel(QLabel):
    """Word-wrapped rich text whose minimum height is what its lines need at its width.

    A page in a scroll area is laid out by minimum sizes, and a splitter or tab widget on the
    way does not pass heightForWidth on: a plain wrapped label took its extra lines from its
    neighbours (at 1280 x 720 the Wizard's recommendation squeezed the Measure panel below it,
    and the panel's last note line was cut off).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self._wrapped_height = -1

    def minimumSizeHint(self) -> QSize:
        base = super().minimumSizeHint()
        if self.width() <= 0 or not self.text():
            return base
        return QSize(base.width(), max(base.height(), self.heightForWidth(self.width())))

    def setText(self, text: str) -> None:
        super().setText(text)
        self._wrapped_height = -1
        self.updateGeometry()

    def resizeEvent(self, event: object) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)  # type: ignore[arg-type]
        height = self.heightForWidth(self.width())
        if height != self._wrapped_height:  # only then: a new width that wraps differently
            self._wrapped_height = height
            self.updateGeometry()
