"""Print a rendered sheet: the exact PDF bytes the Report page previews and exports, drawn page
by page onto the printer, so paper and file never differ.

Pages are rasterised by QtPdf at the printer's resolution, at most :data:`MAX_RASTER_DPI`, and
scaled to its page, keeping the aspect ratio (an A4 sheet on Letter paper shrinks a little
instead of losing its edges).
"""

from __future__ import annotations

from typing import Any

from torchrig.gui.qt import (
    QBuffer,
    QByteArray,
    QIODevice,
    QPainter,
    QPdfDocument,
    QRect,
    QSize,
    Qt,
)

MAX_RASTER_DPI = 600
"""The finest a page is rasterised for printing. Qt's high-resolution printer is 1200 dpi for
"Print to file": an A4 page was a 9,920 x 14,031 image, 557 MB, and two pages took 6.2 s on the
window's thread; 600 dpi is a quarter of that and finer than text needs on paper."""


def print_pdf(pdf: bytes, printer: Any) -> int:
    """Draw every page of ``pdf`` on ``printer``; returns the number of pages printed.

    Raises :class:`RuntimeError` when QtPdf cannot read the bytes or the printer will not
    start (the caller says so to the user)."""
    if QPdfDocument is None:
        raise RuntimeError("Qt's PDF module (PySide6 QtPdf) is not installed")
    buffer = QBuffer()
    buffer.setData(QByteArray(pdf))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    document = QPdfDocument()
    document.load(buffer)
    if document.status() != QPdfDocument.Status.Ready or document.pageCount() == 0:
        raise RuntimeError("the sheet could not be read back for printing")
    painter = QPainter()
    if not painter.begin(printer):
        raise RuntimeError("the printer could not be started")
    pages = document.pageCount()
    try:
        dpi = printer.resolution()
        raster = min(1.0, MAX_RASTER_DPI / dpi) if dpi > 0 else 1.0
        for index in range(pages):
            if index:
                printer.newPage()
            area = painter.viewport()
            points = document.pagePointSize(index)
            pixels = QSize(round(points.width() / 72 * dpi), round(points.height() / 72 * dpi))
            fitted = pixels.scaled(area.size(), Qt.AspectRatioMode.KeepAspectRatio)
            image = document.render(index, QSize(max(1, round(fitted.width() * raster)),
                                                 max(1, round(fitted.height() * raster))))
            painter.drawImage(QRect(area.topLeft(), fitted), image)  # scaled up to the page
    finally:
        painter.end()
        document.close()
    return pages
