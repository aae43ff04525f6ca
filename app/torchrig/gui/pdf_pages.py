"""The Report page's preview: the PDF's pages as images rendered on a worker thread.

``QPdfView`` parses the document and rasterises its pages on the GUI thread (its page
renderer's thread shares QtPdf's one lock with every call the view makes while painting), which
held the window for 60-200 ms per preview under load (``benchmarks/bench_gui_stalls.py``). Here
the worker that made the PDF also reads it back and renders each page at the width the view
shows it (:func:`render_page_images`); the GUI thread only draws the finished images. The view
fits the pages to its width as ``QPdfView``'s ``FitToWidth`` did: after a resize it draws the
images it has scaled to the new width and asks for sharp ones (:attr:`PdfPagesView.width_wanted`,
once the resizing has paused), which the page renders off the GUI thread again.
"""

from __future__ import annotations

import threading
from typing import Any

from torchrig.gui.qt import (
    QBuffer,
    QByteArray,
    QIODevice,
    QPainter,
    QPdfDocument,
    QRectF,
    QScrollArea,
    QSize,
    Qt,
    QTimer,
    QWidget,
    Signal,
)

MARGIN_PX = 8
"""Space around and between the pages (logical pixels)."""
RESIZE_PAUSE_MS = 200
"""How long the width must hold still before sharp pages are rendered for it."""


class PreviewUnreadable(Exception):
    """QtPdf could not read back the PDF that was just made (the bytes are still exported)."""


def render_page_images(pdf: bytes, width_px: int, dpr: float,
                       cancel: threading.Event | None = None) -> list[Any]:
    """Every page of ``pdf`` as a ``QImage`` ``width_px`` device pixels wide (``dpr``: device
    pixels per logical pixel, set on each image). Runs on any thread: the document, its buffer
    and the images are made and dropped here. An empty list when ``cancel`` was set.
    Raises :class:`PreviewUnreadable` when QtPdf cannot read the bytes."""
    if QPdfDocument is None:
        return []
    buffer = QBuffer()
    buffer.setData(QByteArray(pdf))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    document = QPdfDocument()
    try:
        document.load(buffer)
        if document.status() != QPdfDocument.Status.Ready or document.pageCount() == 0:
            raise PreviewUnreadable(f"QtPdf: {document.error().name}")
        images = []
        for index in range(document.pageCount()):
            if cancel is not None and cancel.is_set():
                return []
            points = document.pagePointSize(index)
            height = max(1, round(width_px * points.height() / max(points.width(), 1.0)))
            image = document.render(index, QSize(width_px, height))
            image.setDevicePixelRatio(dpr)
            images.append(image)
        return images
    finally:
        document.close()
        buffer.close()


class _Pages(QWidget):
    """The images one under the other, each scaled to the column's width."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: list[Any] = []
        self.column = 0  # logical width each page is drawn at

    def layout_for(self, column: int) -> None:
        self.column = max(1, column)
        height = MARGIN_PX
        for image in self.images:
            height += self._height(image) + MARGIN_PX
        self.setFixedSize(self.column + 2 * MARGIN_PX, height)
        self.update()

    def _height(self, image: Any) -> int:
        return max(1, round(self.column * image.height() / max(image.width(), 1)))

    def paintEvent(self, event: Any) -> None:
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), self.palette().mid())
            visible = event.rect()
            top = MARGIN_PX
            for image in self.images:
                height = self._height(image)
                target = QRectF(MARGIN_PX, top, self.column, height)
                if target.intersects(QRectF(visible)):
                    painter.drawImage(target, image)
                top += height + MARGIN_PX
        finally:
            painter.end()


class PdfPagesView(QScrollArea):
    """Shows pre-rendered page images, fitted to its width.

    Signals:
        width_wanted(int): the view's width changed and has held still; sharp pages should be
            rendered for this width (device pixels, see :meth:`render_width`).
    """

    width_wanted = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(False)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self._pages = _Pages()
        self.setWidget(self._pages)
        self.rendered_width = 0
        """The device-pixel width the pages on show were rendered at."""
        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(RESIZE_PAUSE_MS)
        self._pause.timeout.connect(self._width_settled)
        # PySide builds the enums a scroll area's geometry calls use on their first call (10 ms
        # and more): paid here, with the page, not on the first preview's click.
        self.render_width()

    def page_count(self) -> int:
        return len(self._pages.images)

    def images(self) -> list[Any]:
        return list(self._pages.images)

    def column_width(self) -> int:
        """The logical width a page is drawn at: the viewport less the margins."""
        return max(64, self.viewport().width() - 2 * MARGIN_PX)

    def render_width(self) -> int:
        """The pages' width in device pixels for the view as it is now."""
        return max(1, round(self.column_width() * self.devicePixelRatioF()))

    def set_pages(self, images: list[Any], width_px: int) -> None:
        """Show ``images``, rendered ``width_px`` device pixels wide."""
        self._pages.images = list(images)
        self.rendered_width = width_px
        self._pages.layout_for(self.column_width())

    def clear(self) -> None:
        self.set_pages([], 0)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        if not self._pages.images:
            return
        self._pages.layout_for(self.column_width())  # scaled at once, sharp after the pause
        if self.render_width() != self.rendered_width:
            self._pause.start()

    def _width_settled(self) -> None:
        if self._pages.images and self.render_width() != self.rendered_width:
            self.width_wanted.emit(self.render_width())
