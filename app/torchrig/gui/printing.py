"""Print a rendered sheet: the exact PDF bytes the Report page previews and exports, drawn page
by page onto the printer, so paper and file never differ.

Pages are rasterised by QtPdf at the printer's resolution and scaled to its page, keeping the
aspect ratio (an A4 sheet on Letter paper shrinks a little instead of losing its edges).
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
        for index in range(pages):
            if index:
                printer.newPage()
            area = painter.viewport()
            points = document.pagePointSize(index)
            pixels = QSize(round(points.width() / 72 * dpi), round(points.height() / 72 * dpi))
            fitted = pixels.scaled(area.size(), Qt.AspectRatioMode.KeepAspectRatio)
            image = document.render(index, fitted)
            painter.drawImage(QRect(area.topLeft(), fitted), image)
    finally:
        painter.end()
        document.close()
    return pages
