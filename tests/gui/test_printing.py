"""Printing from the Report page, as a user prints: the Print button, the print dialog answered
OK with a printer that writes a PDF file (what "Print to file" does), the status read after.

The print run is drawn on a worker thread (gui/printing.py): on the GUI thread two pages at
600 dpi held the window for about 2.5 s. A print run that is being drawn when the window is
closed is finished first, not cut short.
"""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from gui_gestures import click, go_to, menu_action, open_from_menu

from torchrig.gui.qt import QDialog, QMessageBox

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "builds" / "pro-dual-4090.json"


@pytest.fixture
def window(shown_window):
    """The main window on screen (conftest.py): hidden widgets take no clicks."""
    return shown_window


@pytest.fixture
def print_dialog(monkeypatch):
    """Answer the print dialog OK with a printer writing a PDF file. ``print_dialog(out, dpi,
    full_page=False)`` sets what the next dialog chooses; it returns the answers given."""
    from torchrig.gui.qt import QPrintDialog, QPrinter

    if QPrinter is None:
        pytest.skip("this Qt has no QtPrintSupport")
    chosen: dict = {}
    answered: list[Path] = []

    def accept(dialog):
        printer = dialog.printer()
        printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
        printer.setOutputFileName(str(chosen["out"]))
        printer.setResolution(chosen["dpi"])
        printer.setFullPage(chosen["full_page"])
        answered.append(chosen["out"])
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(QPrintDialog, "exec", accept)

    def choose(out: Path, dpi: int, full_page: bool = False) -> list[Path]:
        chosen.update(out=out, dpi=dpi, full_page=full_page)
        return answered

    return choose


def _report_with_sample(window, qtbot):
    """The Report page with the sample build open. ``report.shown`` lists every status the
    page has shown since: a preview finishing later may replace "Sent ..." on the label."""
    # A build with parts first: the empty "New build" is no quote (issue 25).
    open_from_menu(window, SAMPLE)
    go_to(qtbot, window, "report")
    report = window.report_page
    report.shown = []
    set_text = report.status.setText

    def shown(text):
        report.shown.append(text)
        set_text(text)

    report.status.setText = shown  # the page sets its status from Python: each call is seen
    return report


def _sent(report) -> str | None:
    return next((text for text in report.shown if text.startswith("Sent ")), None)


def _print_and_wait(window, qtbot, print_dialog, out, dpi, full_page=False):
    print_dialog(out, dpi, full_page)
    report = _report_with_sample(window, qtbot)
    click(qtbot, report.print_button)
    qtbot.waitUntil(lambda: _sent(report) is not None, timeout=60_000)
    qtbot.waitUntil(report.print_button.isEnabled)  # once the print thread has ended
    return report


def _sheet_pages(pdf: bytes) -> int:
    import pypdf

    return len(pypdf.PdfReader(io.BytesIO(pdf)).pages)


def test_print_from_the_report_page_prints_every_page(window, qtbot, tmp_path, print_dialog):
    """The printout has the sheet's pages. A 150 dpi printer: the pages are drawn by the same
    code at any resolution, and 1200 dpi (the window's printer for a file) took seconds."""
    import pypdf

    out = tmp_path / "printed.pdf"
    report = _print_and_wait(window, qtbot, print_dialog, out, 150)
    pages = _sheet_pages(report.pdf_bytes)
    assert pages >= 2  # the second page is drawn after newPage(), not over the first
    assert len(pypdf.PdfReader(out).pages) == pages
    assert _sent(report) == f"Sent {pages} pages to the printer."


@pytest.mark.parametrize(("dpi", "rendered_width"), [
    # A4 is 595.28 pt wide: 595.28 / 72 x dpi pixels, at most 600 dpi (4,961 px)
    (1200, 4961),
    (300, 2480),
])
def test_print_rasterises_a_page_at_most_at_600_dpi(window, qtbot, tmp_path, print_dialog,
                                                   monkeypatch, dpi, rendered_width):
    """Through the Print button and dialog, with QtPdf's render() watched: a 1200 dpi printer
    ("Print to file") gets pages rendered at 600 dpi and drawn over the whole page; a 300 dpi
    one at its own resolution."""
    import torchrig.gui.printing as printing

    if printing.QPdfDocument is None:
        pytest.skip("this Qt has no QtPdf")
    rendered = []

    class Watched(printing.QPdfDocument):  # type: ignore[misc, valid-type]
        def render(self, index, size, *args):
            rendered.append((size.width(), size.height()))
            return super().render(index, size, *args)

    monkeypatch.setattr(printing, "QPdfDocument", Watched)
    # the whole page is the drawing area: its width is the rendered width
    _print_and_wait(window, qtbot, print_dialog, tmp_path / "printed.pdf", dpi, full_page=True)
    # within 0.5 %: the printer's page area is whole device pixels (A4 at 1200 dpi: 9,916)
    assert rendered and all(abs(w - rendered_width) <= 0.005 * rendered_width
                            for w, _h in rendered)
    # in bands, each one call into Qt that holds Python's lock for a few milliseconds
    assert all(w * h <= printing.BAND_PIXELS for w, h in rendered)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bands_put_together_are_the_whole_page(qapp, tmp_path, lang):
    """The bands a page is printed in, stacked, against QtPdf rendering the whole page at once
    (put on white the same way): the same pixels, give or take a rounding at a band's edge."""
    import numpy as np
    import pypdf

    from torchrig.cli import main
    from torchrig.gui import printing
    from torchrig.gui.qt import QBuffer, QByteArray, QImage, QIODevice, QPdfDocument, QSize

    if QPdfDocument is None:
        pytest.skip("this Qt has no QtPdf")
    out = tmp_path / "sheet.pdf"
    assert main(["export", str(SAMPLE), "-o", str(out), "--lang", lang]) == 0
    pdf = out.read_bytes()
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    buffer = QBuffer()
    buffer.setData(QByteArray(pdf))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    whole_document = QPdfDocument()
    whole_document.load(buffer)

    def pixels(image):
        image = image.convertToFormat(QImage.Format.Format_RGB32)
        rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
        rgbx = rows[:, : image.width() * 4].reshape(image.height(), image.width(), 4)
        return rgbx[..., :3].copy()  # a copy: the QImage whose memory it reads goes away

    size = QSize(1240, 1754)  # A4 at 150 dpi
    for index in range(len(reader.pages)):
        bands = list(printing._bands(reader, index, size))
        assert bands[0][0] == 0 and bands[-1][1] == size.height()
        assert all(a[1] == b[0] for a, b in zip(bands, bands[1:], strict=False))
        assert len(bands) == -(-size.height() // (printing.BAND_PIXELS // size.width()))
        stacked = np.concatenate([pixels(image) for _top, _bottom, image in bands])
        whole = pixels(printing._on_white(whole_document.render(index, size)))
        assert stacked.shape == whole.shape
        differ = (np.abs(stacked.astype(int) - whole.astype(int)).max(axis=2) > 24).sum()
        assert differ <= 1e-4 * whole.shape[0] * whole.shape[1], (index, differ)
        assert (whole < 128).sum() > 10_000  # a page with text on it, not two blank images
    whole_document.close()


class HeldPrint:
    """The real print_pdf, held at its first page until :meth:`release`: the test can look at
    the window while a print run is being drawn. Records the thread it ran on."""

    def __init__(self, monkeypatch):
        import torchrig.gui.printing as printing

        self.real = printing.print_pdf
        self.at_first_page = threading.Event()
        self.released = threading.Event()
        self.threads: list[threading.Thread] = []
        self.results: list[object] = []
        monkeypatch.setattr(printing, "print_pdf", self)

    def __call__(self, pdf, printer, cancel=None, progress=None):
        self.threads.append(threading.current_thread())

        def held(step):
            progress(step)
            if step[0] == 1:
                self.at_first_page.set()
                # Never forever: a failed test must not hang the run.
                self.released.wait(30)

        result = self.real(pdf, printer, cancel, held)
        self.results.append(result)
        return result

    def release(self):
        self.released.set()


def _held_print_run(window, qtbot, tmp_path, print_dialog, monkeypatch):
    """Print the sample quote (150 dpi, to a file) and return (held run, Report page, file)
    once the worker is held at the first page."""
    held = HeldPrint(monkeypatch)
    out = tmp_path / "printed.pdf"
    print_dialog(out, 150)
    report = _report_with_sample(window, qtbot)
    click(qtbot, report.print_button)
    try:
        # The GUI thread turns its event loop (waitUntil) while the page is held on the worker.
        qtbot.waitUntil(held.at_first_page.is_set, timeout=60_000)
    except BaseException:
        held.release()
        raise
    return held, report, out


def test_a_print_run_is_drawn_off_the_gui_thread_with_its_progress_shown(
        window, qtbot, tmp_path, print_dialog, monkeypatch):
    held, report, _out = _held_print_run(window, qtbot, tmp_path, print_dialog, monkeypatch)
    pages = None
    try:
        pages = _sheet_pages(report.pdf_bytes)
        qtbot.waitUntil(lambda: f"Printing page 1 of {pages}…" in report.shown)
        assert not report.print_button.isEnabled()  # one print run at a time
        assert held.threads[0] is not threading.main_thread()
    finally:
        held.release()
    qtbot.waitUntil(lambda: _sent(report) == f"Sent {pages} pages to the printer.",
                    timeout=60_000)
    qtbot.waitUntil(report.print_button.isEnabled)  # once the print thread has ended
    assert held.results == [pages]


def test_closing_the_window_while_printing_waits_for_the_printout(
        window, qtbot, tmp_path, print_dialog, monkeypatch):
    """The first close waits until every page has been sent, then the window closes."""
    import pypdf

    held, report, out = _held_print_run(window, qtbot, tmp_path, print_dialog, monkeypatch)
    try:
        window.build_page.dirty = False  # no "Save changes?" in the way of this close
        menu_action(window, "File", "Quit").trigger()
        assert window.isVisible()  # refused for now
        assert report.shown[-1] == "The window closes when the print run has been sent."
    finally:
        held.release()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=60_000)
    pages = _sheet_pages(report.pdf_bytes)
    assert held.results == [pages]
    assert len(pypdf.PdfReader(out).pages) == pages


def test_closing_twice_while_printing_stops_the_run_between_pages(
        window, qtbot, tmp_path, print_dialog, monkeypatch):
    """A user who closes again does not wait: no page after the current one is drawn."""
    import pypdf

    held, report, out = _held_print_run(window, qtbot, tmp_path, print_dialog, monkeypatch)
    window.build_page.dirty = False
    quit_action = menu_action(window, "File", "Quit")
    quit_action.trigger()
    assert window.isVisible()
    # The second close waits for the worker (page 1 still held): release it shortly after.
    threading.Timer(0.3, held.release).start()
    quit_action.trigger()
    assert not window.isVisible()
    assert held.results == [None]  # stopped, not finished
    assert _sheet_pages(report.pdf_bytes) >= 2
    assert len(pypdf.PdfReader(out).pages) == 1  # a file cannot be aborted: what was drawn


@pytest.mark.qt_log_ignore("QPainter::begin")  # Qt's own warning for the printer refusing
def test_a_printer_that_will_not_start_is_reported(window, qtbot, tmp_path, print_dialog,
                                                   monkeypatch):
    """Print to a file in a folder that does not exist: the printer does not start; the user
    is told so and can print again."""
    shown: list[str] = []

    def warn(parent, title, text, *args, **kwargs):
        shown.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", warn)
    print_dialog(tmp_path / "no such folder" / "printed.pdf", 150)
    report = _report_with_sample(window, qtbot)
    click(qtbot, report.print_button)
    qtbot.waitUntil(lambda: bool(shown), timeout=60_000)
    assert shown == ["The printer could not be started."]
    assert "The printer could not be started." in report.shown
    qtbot.waitUntil(report.print_button.isEnabled)
