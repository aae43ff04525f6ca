"""Issue 27: what the PDF preview and detection do off the GUI thread, through the widgets.

The preview's PDF and its page images are made on the worker thread and the page shows a busy
bar meanwhile; a preview pressed again while one renders replaces it (the older result is
never shown), a render that ends after the window closed shows nothing, a failure is a
message. Detection makes the cards' rows on its own thread, and a result that arrives after
the window closed is dropped. Renders are held at a gate (a ``threading.Event``) so the test
decides when each one ends: no sleeps, no wall-clock.
"""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path

import pypdf
import pytest
from gui_gestures import click, open_build, type_text

from torchrig.gui.qt import QApplication, QPdfDocument
from torchrig.gui.workers import Preload, TaskRunner
from torchrig.report.report_model import ReportModel

ROOT = Path(__file__).resolve().parents[2]
needs_qtpdf = pytest.mark.skipif(QPdfDocument is None, reason="PySide6-Pdf not installed")


def _text(pdf: bytes) -> str:
    return "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)


class _Gates:
    """Each sheet job the Report page makes waits for its own gate before it renders; every
    gate is opened at the end, so no thread outlives the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail: BaseException | None = None,
                 result: bytes | None = None) -> None:
        self.opened: list[threading.Event] = []
        self.entered: list[threading.Event] = []
        self.threads: list[threading.Thread] = []
        real = ReportModel.sheet_job
        gates = self

        def sheet_job(model: ReportModel, *args: object, **kwargs: object) -> object:
            job = real(model, *args, **kwargs)
            gate, entered = threading.Event(), threading.Event()
            gates.opened.append(gate)
            gates.entered.append(entered)

            def gated() -> bytes:
                gates.threads.append(threading.current_thread())
                entered.set()
                gate.wait()
                if fail is not None:
                    raise fail
                return job() if result is None else result

            return gated

        monkeypatch.setattr(ReportModel, "sheet_job", sheet_job)

    def open_all(self) -> None:
        for gate in self.opened:
            gate.set()


@pytest.fixture
def report(window, qtbot, file_dialogs):
    open_build(qtbot, window, file_dialogs[0], ROOT / "builds" / "entry.json")
    return window.report_page


@needs_qtpdf
def test_a_preview_pressed_again_replaces_the_one_rendering(report, qtbot, monkeypatch):
    gates = _Gates(monkeypatch)
    try:
        type_text(qtbot, report.shop_edit, "First Shop")
        click(qtbot, report.preview_button)
        qtbot.waitUntil(lambda: gates.entered and gates.entered[0].is_set(), timeout=10_000)
        assert not report.busy.isHidden() and report.preview_button.isEnabled()
        # The sheet is made off the GUI thread.
        assert gates.threads[0] is not threading.main_thread()
        type_text(qtbot, report.shop_edit, "Second Shop")
        click(qtbot, report.preview_button)
        gates.opened[0].set()  # the first render ends now, after the second was asked for
        qtbot.waitUntil(lambda: len(gates.entered) == 2 and gates.entered[1].is_set(),
                        timeout=20_000)
        QApplication.processEvents()
        assert not report.pdf_bytes and report.pages_view.page_count() == 0  # never shown
        assert not report.busy.isHidden()
        gates.opened[1].set()
        qtbot.waitUntil(lambda: not report.runner.running and bool(report.pdf_bytes),
                        timeout=30_000)
    finally:
        gates.open_all()
    text = _text(report.pdf_bytes)
    assert "Second Shop" in text and "First Shop" not in text
    assert report.pages_view.page_count() == len(pypdf.PdfReader(
        io.BytesIO(report.pdf_bytes)).pages)
    assert report.busy.isHidden()


@needs_qtpdf
def test_the_preview_draws_its_pages_off_the_gui_thread(report, qtbot, monkeypatch):
    import torchrig.gui.pages.report_page as report_page

    threads: list[threading.Thread] = []
    real = report_page.render_page_images

    def recording(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(report_page, "render_page_images", recording)
    click(qtbot, report.preview_button)
    qtbot.waitUntil(lambda: not report.runner.running and bool(report.pdf_bytes),
                    timeout=30_000)
    assert threads and all(t is not threading.main_thread() for t in threads)
    images = report.pages_view.images()
    assert images and all(image.width() == report.pages_view.rendered_width
                          for image in images)


@needs_qtpdf
def test_a_resized_preview_is_drawn_again_at_its_new_width(shown_window, qtbot,
                                                           file_dialogs):
    from gui_gestures import go_to

    window = shown_window
    open_build(qtbot, window, file_dialogs[0], ROOT / "builds" / "entry.json")
    go_to(qtbot, window, "report")
    page = window.report_page
    click(qtbot, page.preview_button)
    qtbot.waitUntil(lambda: not page.runner.running and page.pages_view.page_count() > 0,
                    timeout=30_000)
    before = page.pages_view.rendered_width
    window.resize(window.width() + 300, window.height())
    qtbot.waitUntil(lambda: page.pages_view.render_width() != before, timeout=5_000)
    wanted = page.pages_view.render_width()
    qtbot.waitUntil(lambda: not page.runner.running
                    and page.pages_view.rendered_width == wanted, timeout=30_000)
    assert all(image.width() == wanted for image in page.pages_view.images())


def test_a_render_that_ends_after_the_window_closed_shows_nothing(report, window, qtbot,
                                                                  monkeypatch):
    gates = _Gates(monkeypatch)
    try:
        click(qtbot, report.preview_button)
        qtbot.waitUntil(lambda: gates.entered and gates.entered[0].is_set(), timeout=10_000)
        gates.opened[0].set()  # its result is queued for the GUI thread while it closes
        window.close()
    finally:
        gates.open_all()
    qtbot.waitUntil(lambda: TaskRunner.running_threads() == 0, timeout=30_000)
    QApplication.processEvents()
    assert not report.pdf_bytes
    assert report.pages_view is None or report.pages_view.page_count() == 0
    assert report.status.text() == "Rendering…"


def test_a_render_that_fails_is_a_message(report, qtbot, monkeypatch):
    gates = _Gates(monkeypatch, fail=OSError("no space left on device"))
    gates_open = gates.open_all
    try:
        click(qtbot, report.preview_button)
        qtbot.waitUntil(lambda: gates.entered and gates.entered[0].is_set(), timeout=10_000)
        gates_open()
        qtbot.waitUntil(lambda: not report.runner.running, timeout=10_000)
    finally:
        gates_open()
    assert "no space left on device" in report.status.text()
    assert report.busy.isHidden() and report.preview_button.isEnabled()
    assert not report.pdf_bytes


@needs_qtpdf
def test_a_pdf_qtpdf_cannot_read_still_exports_and_says_why(report, qtbot, monkeypatch):
    gates = _Gates(monkeypatch, result=b"%PDF-1.4 not really")
    try:
        click(qtbot, report.preview_button)
        qtbot.waitUntil(lambda: gates.entered and gates.entered[0].is_set(), timeout=10_000)
        gates.open_all()
        qtbot.waitUntil(lambda: not report.runner.running, timeout=10_000)
    finally:
        gates.open_all()
    assert report.pdf_bytes == b"%PDF-1.4 not really"  # what Export would write
    assert "The preview cannot be drawn" in report.status.text()
    assert report.pages_view.page_count() == 0 and report.export_button.isEnabled()


# --- detection ----------------------------------------------------------------------------


def test_detection_makes_the_cards_rows_off_the_gui_thread(window, qtbot, monkeypatch):
    import torchrig.hardware.sections as sections

    threads: list[threading.Thread] = []
    real = sections.profile_sections

    def recording(*args: object, **kwargs: object) -> object:
        threads.append(threading.current_thread())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sections, "profile_sections", recording)
    page = window.machine_page
    with qtbot.waitSignal(page.profile_changed, timeout=180_000):
        click(qtbot, page.refresh_button)
    assert threads and all(t is not threading.main_thread() for t in threads)
    # One card per section the profile has (counted by the function itself, off-thread).
    assert page._cards.count() == len(real(page.profile, "en"))


def test_a_detection_that_ends_after_the_window_closed_shows_nothing(window, qtbot,
                                                                     monkeypatch):
    import torchrig.hardware as hardware

    real = hardware.detect
    gate, entered = threading.Event(), threading.Event()

    def held(use_torch: bool = False) -> object:
        entered.set()
        gate.wait()
        return real(use_torch=use_torch)

    monkeypatch.setattr(hardware, "detect", held)
    page = window.machine_page
    shown: list[object] = []
    page.profile_changed.connect(shown.append)
    try:
        click(qtbot, page.refresh_button)
        qtbot.waitUntil(entered.is_set, timeout=10_000)
        gate.set()
        window.close()
    finally:
        gate.set()
    qtbot.waitUntil(lambda: TaskRunner.running_threads() == 0, timeout=60_000)
    for _ in range(10):  # the cards would be added one per event-loop turn
        QApplication.processEvents()
    assert page.profile is None and page._cards.count() == 0 and not shown
    assert page.status.text() == "Detecting…"


def test_a_detection_that_fails_is_a_message(window, qtbot, monkeypatch):
    import torchrig.hardware as hardware

    def broken(use_torch: bool = False) -> object:
        raise RuntimeError("probe exploded")

    monkeypatch.setattr(hardware, "detect", broken)
    page = window.machine_page
    click(qtbot, page.refresh_button)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=30_000)
    assert "Detection failed" in page.status.text() and "probe exploded" in page.status.text()
    assert page.refresh_button.isEnabled() and page.profile is None


# --- imports before a page's first fill ------------------------------------------------------


def test_preload_imports_on_a_worker_and_then_fills_on_the_gui_thread(qtbot, tmp_path,
                                                                      monkeypatch):
    (tmp_path / "gui27_probe_module.py").write_text(
        "import threading\nIMPORTED_ON = threading.current_thread()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gui27_probe_module", raising=False)
    filled: list[threading.Thread] = []
    preload = Preload(("gui27_probe_module",),
                      lambda: filled.append(threading.current_thread()))
    qtbot.waitUntil(lambda: bool(filled), timeout=10_000)
    module = sys.modules["gui27_probe_module"]
    assert module.IMPORTED_ON is not threading.main_thread()
    assert filled == [threading.main_thread()] and preload.done


def test_preload_shut_down_never_calls_back(qtbot, tmp_path, monkeypatch):
    gate = threading.Event()
    (tmp_path / "gui27_slow_module.py").write_text(
        "import builtins\nbuiltins.gui27_gate.wait()\n")
    monkeypatch.setattr("builtins.gui27_gate", gate, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gui27_slow_module", raising=False)
    filled: list[bool] = []
    preload = Preload(("gui27_slow_module",), lambda: filled.append(True))
    gate.set()  # the import ends while the owner closes
    assert preload.shutdown()
    for _ in range(5):
        QApplication.processEvents()
    assert not filled
