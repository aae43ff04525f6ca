"""GUI tests: fail any test that leaves a worker QThread running (napari's rule: a thread
outliving its test can segfault a later one)."""

from __future__ import annotations

import gc

import pytest

from torchrig.gui.workers import TaskRunner


@pytest.fixture(autouse=True)
def _no_running_qthreads(qtbot):
    # Garbage is collected on the GUI thread only, as the app does (gui/gc_thread.py): a
    # collection on a worker thread can delete a widget from the wrong thread and segfault.
    gc.disable()
    yield
    qtbot.waitUntil(lambda: TaskRunner.running_threads() == 0, timeout=10_000)
    gc.collect()  # with the test's widgets closed and its threads done
    gc.enable()


def _discard_unsaved_edits(_window) -> None:
    """pytest-qt closes the window before the test's fixtures are torn down, so a test's own
    answer to "Save changes?" (Cancel, say) still holds: the close was refused, the pages were
    never shut down, and a plan still running on a busy machine outlived its deleted window.
    The test is over: close as a user who discards the edits."""
    from torchrig.gui.qt import QMessageBox

    # monkeypatch still holds the original and restores it after the test.
    QMessageBox.question = lambda *args, **kwargs: QMessageBox.StandardButton.Discard


@pytest.fixture
def window(qtbot):
    from torchrig.gui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win, before_close_func=_discard_unsaved_edits)
    yield win
    win.close()


@pytest.fixture(autouse=True)
def _unanswered_message_boxes(monkeypatch):
    """A modal box nobody answers hangs an offscreen run (e.g. "Save changes?" when a test that
    failed half-way leaves unsaved edits and pytest-qt closes the window). By default they
    answer Discard / OK at once; a test that cares about the answer patches its own."""
    from torchrig.gui.qt import QMessageBox

    def answer(*args, **kwargs):
        return QMessageBox.StandardButton.Discard

    for name in ("question", "warning", "information", "critical"):
        monkeypatch.setattr(QMessageBox, name, answer)


@pytest.fixture(autouse=True)
def _english_light_ui(qapp):
    """Every test starts and ends with the English UI and the platform's colours: a test that
    switches language or theme must not leak it into the next one."""
    from torchrig.gui.i18n import apply_language
    from torchrig.gui.theme import apply_theme

    apply_language("en")
    yield
    apply_language("en")
    apply_theme("system")


@pytest.fixture
def zh(qapp):
    """The Chinese catalogues installed for the duration of a test."""
    from torchrig.gui.i18n import apply_language

    loaded = apply_language("zh")
    assert any(path.endswith("torchrig_zh_CN.qm") for path in loaded), loaded
    return loaded


@pytest.fixture
def file_dialogs(monkeypatch):
    """Answer the native file dialogs, which a test cannot click into: ``answers.append(path)``
    before the click that opens one (an empty answer is Cancel); ``asked`` collects their
    captions."""
    from torchrig.gui.qt import QFileDialog

    answers: list[str] = []
    asked: list[str] = []

    def answer(parent, caption, *args, **kwargs):
        asked.append(caption)
        return (answers.pop(0) if answers else "", "")

    monkeypatch.setattr(QFileDialog, "getOpenFileName", answer)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer)
    return answers, asked


@pytest.fixture
def shown_window(window, qtbot):
    """The main window on screen: hidden widgets take no clicks at a position (table cells,
    the sidebar)."""
    window.show()
    qtbot.waitExposed(window)
    return window
