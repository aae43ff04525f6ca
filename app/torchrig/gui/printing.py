"""Print a rendered sheet: the exact PDF bytes the Report page previews and exports, drawn page
by page onto the printer, so paper and file never differ.

Pages are rasterised by QtPdf at the printer's resolution, at most :data:`MAX_RASTER_DPI`, and
scaled to its page, keeping the aspect ratio (an A4 sheet on Letter paper shrinks a little
instead of losing its edges).

:func:`print_pdf` touches no widget, so the Report page runs it on a worker thread: Qt allows
a QPainter on a QPrinter outside the GUI thread ("Threads and QObjects": QImage, QPrinter and
QPicture), and QtPdf serialises its own calls. A thread alone is not enough: PySide6 keeps
Python's lock (the GIL) through each call into Qt, and the window needs that lock for every
event, so one 600 dpi page rendered (0.15-0.25 s) and drawn (1.0-1.4 s) in one call each
still held the window for over a second. Each page is therefore rasterised and drawn in bands
of at most :data:`BAND_PIXELS`, each call a few milliseconds.

A band is the page itself with its crop box narrowed to the band's rows (a copy of the page
that shares its content, made with pypdf), so pdfium draws it at exactly the scale and offset
of the whole page: the bands put together match a whole-page render pixel for pixel (tested).
QtPdf's own clip option (``QPdfDocumentRenderOptions.setScaledClipRect``) was tried first and
drew bands shifted by up to 4 pixels.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator
from typing import Any

from torchrig.gui.qt import (
    QBuffer,
    QByteArray,
    QImage,
    QIODevice,
    QPainter,
    QPdfDocument,
    QRect,
    QSize,
    Qt,
)

NO_QTPDF = "Qt's PDF module (PySide6 QtPdf) is not installed"
UNREADABLE = "the sheet could not be read back for printing"
NOT_STARTED = "the printer could not be started"
"""The messages :func:`print_pdf` raises (the Report page shows them translated)."""

MAX_RASTER_DPI = 600
"""The finest a page is rasterised for printing. Qt's high-resolution printer is 1200 dpi for
"Print to file": an A4 page was a 9,920 x 14,031 image, 557 MB, and two pages took 6.2 s on the
window's thread; 600 dpi is a quarter of that and finer than text needs on paper."""

BAND_PIXELS = 500_000
"""Pixels rasterised and drawn per call into Qt (about 100 rows of a 600 dpi A4 page): on the
2-core test machine another Python thread then waited at most 11-21 ms for the lock, where a
whole page's render and draw held it 0.15-0.25 s and 1.0-1.4 s; the window's worst stall
while printing was 23-46 ms (``benchmarks/bench_gui_stalls.py --only print``). Half this size
lowered the median stall by 5 ms and made a print run 15 % longer."""


def print_pdf(pdf: bytes, printer: Any, cancel: threading.Event | None = None,
              progress: Callable[[tuple[int, int]], None] | None = None) -> int | None:
    """Draw every page of ``pdf`` on ``printer``; returns the number of pages printed.

    ``progress((page, pages))`` is called before each page is drawn (1-based). When ``cancel``
    is set, no further band is drawn, the print run is aborted where the printer allows it
    (Qt's PDF file output does not: the file keeps what was drawn) and None is returned.
    Raises :class:`RuntimeError` when the bytes cannot be read or the printer will not start
    (the caller says so to the user)."""
    if QPdfDocument is None:
        raise RuntimeError(NO_QTPDF)
    import pypdf

    try:
        reader = pypdf.PdfReader(io.BytesIO(pdf))
        pages = len(reader.pages)
    except Exception as exc:  # pypdf raises many kinds for damaged files
        raise RuntimeError(UNREADABLE) from exc
    if pages == 0:
        raise RuntimeError(UNREADABLE)
    painter = QPainter()
    if not painter.begin(printer):
        raise RuntimeError(NOT_STARTED)
    try:
        dpi = printer.resolution()
        raster = min(1.0, MAX_RASTER_DPI / dpi) if dpi > 0 else 1.0
        for index in range(pages):
            if cancel is not None and cancel.is_set():
                printer.abort()
                return None
            if progress is not None:
                progress((index + 1, pages))
            if index:
                printer.newPage()
            area = painter.viewport()
            box = reader.pages[index].cropbox
            width_pt, height_pt = float(box.width), float(box.height)
            pixels = QSize(round(width_pt / 72 * dpi), round(height_pt / 72 * dpi))
            fitted = pixels.scaled(area.size(), Qt.AspectRatioMode.KeepAspectRatio)
            size = QSize(max(1, round(fitted.width() * raster)),
                         max(1, round(fitted.height() * raster)))
            for top, bottom, image in _bands(reader, index, size):
                if cancel is not None and cancel.is_set():
                    printer.abort()
                    return None
                # Rows top..bottom of the raster, scaled up to the page: neighbouring bands
                # meet at the same rounded row, so no gap or overlap opens between them.
                y0 = area.top() + round(top * fitted.height() / size.height())
                y1 = area.top() + round(bottom * fitted.height() / size.height())
                painter.drawImage(QRect(area.left(), y0, fitted.width(), y1 - y0), image)
    finally:
        painter.end()
    return pages


def _bands(reader: Any, index: int, size: QSize) -> Iterator[tuple[int, int, QImage]]:
    """(first row, end row, image on white) of page ``index`` rasterised at ``size``, in bands
    of at most :data:`BAND_PIXELS`. A rotated page is one band (its crop box is not in the
    drawn orientation); TorchRig's sheets never are."""
    import pypdf
    from pypdf.generic import RectangleObject

    page = reader.pages[index]
    box = page.cropbox
    left, low, right, high = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    rows = max(1, BAND_PIXELS // size.width())
    if page.rotation % 360:
        rows = size.height()
    limits = [(top, min(size.height(), top + rows)) for top in range(0, size.height(), rows)]
    writer = pypdf.PdfWriter()
    points_per_row = (high - low) / size.height()
    for top, bottom in limits:
        band = writer.add_page(page)  # shares the page's content and resources
        # PDF's y runs up from the bottom of the page; rows run down from its top.
        band.cropbox = band.mediabox = RectangleObject(
            [left, high - bottom * points_per_row, right, high - top * points_per_row])
    data = io.BytesIO()
    writer.write(data)
    buffer = QBuffer()
    buffer.setData(QByteArray(data.getvalue()))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    document = QPdfDocument()
    document.load(buffer)
    if document.status() != QPdfDocument.Status.Ready or document.pageCount() != len(limits):
        raise RuntimeError(UNREADABLE)
    try:
        for number, (top, bottom) in enumerate(limits):
            yield top, bottom, _on_white(document.render(number, QSize(size.width(),
                                                                         bottom - top)))
    finally:
        document.close()


def _on_white(image: QImage) -> QImage:
    """QtPdf draws a page on a transparent background: put it on paper-white, so the printer
    gets an opaque image (no alpha mask to write: smaller and about 40 % faster to draw)."""
    out = QImage(image.size(), QImage.Format.Format_RGB32)
    out.fill(Qt.GlobalColor.white)
    painter = QPainter(out)
    painter.drawImage(0, 0, image)
    painter.end()
    return out
