"""The app's window (``MainWindow(pages_later=True)``, as run_gui starts it) loads the catalog and
builds the catalog pages only when one is wanted (issue 27): each way in must still reach a
working page, through the widgets a user touches. The eager window the other GUI tests use
(``MainWindow()``) is unchanged."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from gui_gestures import add_part, go_to, menu_action

from torchrig.builds.build import load_build
from torchrig.builds.recovery import new_recovery_path, save_recovery
from torchrig.gui.main_window import MainWindow
from torchrig.gui.pages.placeholder import PlaceholderPage
from torchrig.gui.qt import QLabel, QMessageBox

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "builds" / "professional.json"


def _lazy_window(qtbot) -> MainWindow:
    win = MainWindow(pages_later=True)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def _waits(win: MainWindow) -> bool:
    """The catalog pages are not built yet (and the catalog not loaded)."""
    return win.catalog is None and all(isinstance(win.pages[key], PlaceholderPage)
                                       for key in ("targets", "build", "wizard", "bench",
                                                   "report"))


def test_the_catalog_pages_wait_until_one_is_clicked_then_work(qtbot):
    win = _lazy_window(qtbot)
    assert _waits(win)
    go_to(qtbot, win, "build")
    assert not _waits(win) and win.page_host("build").widget() is win.build_page
    # The page built on that click is a working Build page: a part added with its picker
    # becomes a line of the build.
    add_part(qtbot, win.build_page, "nvidia-rtx-4090", "gpu")
    assert [line.part_id for line in win.build_page.build.line_items] == ["nvidia-rtx-4090"]
    win.build_page.dirty = False


def test_file_open_on_a_waiting_window_opens_the_build(qtbot, file_dialogs):
    answers, _ = file_dialogs
    win = _lazy_window(qtbot)
    answers.append(str(SAMPLE))
    menu_action(win, "File", "Open").trigger()
    assert win.current_page() == "build"
    assert win.build_page.build == load_build(SAMPLE, win.catalog)


def test_the_edit_menu_waits_disabled_and_becomes_the_build_pages_undo(qtbot):
    win = _lazy_window(qtbot)
    undo = menu_action(win, "Edit", "Undo build edit")
    assert not undo.isEnabled()
    menu_action(win, "File", "New build").trigger()  # builds the pages, then a new build
    assert not _waits(win)
    add_part(qtbot, win.build_page, "nvidia-rtx-4090", "gpu")
    undo = menu_action(win, "Edit", "Undo build edit")
    assert undo.isEnabled()
    undo.trigger()
    assert win.build_page.build.line_items == []
    win.build_page.dirty = False


def test_a_copy_a_crash_left_is_offered_at_start(qtbot, monkeypatch):
    # A recovery copy whose process is gone, as a crashed TorchRig leaves it.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    path = new_recovery_path()
    path = path.with_name(re.sub(r"build-\d+-", f"build-{dead.pid}-", path.name))
    from torchrig.catalog import load_catalog

    save_recovery(path, load_build(SAMPLE, load_catalog()), None)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    win = _lazy_window(qtbot)
    assert _waits(win)
    win.start()  # what the app does once the window has painted
    assert win.current_page() == "build"
    assert win.build_page.build == load_build(SAMPLE, win.catalog) and win.build_page.dirty
    win.build_page.dirty = False


def test_nothing_left_behind_leaves_the_pages_waiting_while_detection_runs(qtbot):
    win = _lazy_window(qtbot)
    win.start()
    qtbot.waitUntil(lambda: win.machine_page.profile is not None, timeout=15_000)
    assert _waits(win)
    go_to(qtbot, win, "targets")
    # Built after detection, the Targets page still compares this machine: a third column
    # (dimension, target, this machine).
    qtbot.waitUntil(lambda: win.targets_page.table.columnCount() == 3, timeout=5_000)


def test_the_last_sessions_page_is_built_after_the_first_paint(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show_page("wizard")
    first.close()  # saves the page it was on
    win = MainWindow(pages_later=True)
    qtbot.addWidget(win)
    # Restored before it is shown: a placeholder until the window has painted.
    assert win.current_page() == "wizard" and _waits(win)
    win.show()
    win.start()
    assert win.current_page() == "wizard"
    assert win.page_host("wizard").widget() is win.wizard_page


def test_a_damaged_catalog_is_reported_when_a_page_is_chosen(qtbot, tmp_path, monkeypatch):
    from torchrig.catalog import clear_catalog_cache

    copy = tmp_path / "resources"
    shutil.copytree(ROOT / "resources", copy)
    (copy / "catalog" / "gpus.json").write_text("{", encoding="utf-8")
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(copy))
    clear_catalog_cache()
    try:
        win = _lazy_window(qtbot)
        go_to(qtbot, win, "report")
        assert win.catalog is None
        texts = [label.text() for label in win.page_host("report").findChildren(QLabel)]
        assert any("The parts catalog could not be loaded" in t and "gpus.json" in t
                   for t in texts), texts
        # The File menu still opens nothing rather than failing.
        assert win.open_file(SAMPLE) is False
    finally:
        clear_catalog_cache()
