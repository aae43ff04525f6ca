"""GUI robustness: crash recovery of unsaved edits, the exception hook, stderr None.

Edits are made in the picker and the table, files saved and opened with the buttons. The
recovery offer is made by ``MainWindow.start()``, which the app calls once the window has
painted (run_gui): the launch itself, not a gesture, so the tests call it. A window whose
``dirty`` flag a test clears is one that "crashed": it must not discard its copy on close."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from gui_gestures import add_part, click, go_to, open_build, type_into_cell

from torchrig.builds.recovery import find_recoveries, new_recovery_path
from torchrig.gui import crash
from torchrig.gui.main_window import MainWindow
from torchrig.gui.qt import QMessageBox


def _dead_pid() -> int:
    """The pid of a process that has exited (what a crashed TorchRig leaves)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _as_if_crashed(path: Path) -> Path:
    """Rename a recovery file as if the process that wrote it had died."""
    dead = path.with_name(re.sub(r"build-\d+-", f"build-{_dead_pid()}-", path.name))
    path.rename(dead)
    return dead


def _edit_and_wait_for_the_copy(qtbot, window, part_id: str, quantity: int = 1) -> None:
    """Add a GPU from the picker (and type its quantity), then wait for the recovery copy the
    page's timer writes a moment after the last edit."""
    add_part(qtbot, window.build_page, part_id, "gpu")
    if quantity != 1:
        window.show()
        qtbot.waitExposed(window)
        go_to(qtbot, window, "build")
        type_into_cell(qtbot, window.build_page.lines, 0, 3, str(quantity))
    qtbot.waitUntil(window.build_page.recovery_file.exists, timeout=10_000)


def test_unsaved_edits_survive_a_crash_and_are_offered_back(qtbot, monkeypatch):
    first = MainWindow()
    qtbot.addWidget(first)
    _edit_and_wait_for_the_copy(qtbot, first, "nvidia-rtx-4090", quantity=2)
    left = _as_if_crashed(first.build_page.recovery_file)
    first.build_page.dirty = False
    first.deleteLater()

    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    second = MainWindow()
    qtbot.addWidget(second)
    second.start()  # what the app does once the window has painted
    assert second.build_page.build.line_items[0].part_id == "nvidia-rtx-4090"
    assert second.build_page.build.line_items[0].quantity == 2
    assert second.build_page.dirty
    assert second.current_page() == "build"
    # Taken over: the copy now lives in the second window's own file.
    assert not left.exists() and second.build_page.recovery_file.exists()
    second.build_page.dirty = False


def test_a_running_windows_copy_is_not_offered_to_another(qtbot, monkeypatch):
    first = MainWindow()
    qtbot.addWidget(first)
    _edit_and_wait_for_the_copy(qtbot, first, "nvidia-rtx-4090")
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or
                        QMessageBox.StandardButton.No)
    second = MainWindow()
    qtbot.addWidget(second)
    second.start()
    assert asked == [] and first.build_page.recovery_file.exists()
    assert second.build_page.build.line_items == [] and second.current_page() != "build"
    first.build_page.dirty = False


def test_each_window_keeps_its_own_recovery_copy(qtbot, tmp_path, file_dialogs):
    """Window B opening or saving a build once deleted window A's (shared) recovery copy."""
    answers, _ = file_dialogs
    a, b = MainWindow(), MainWindow()
    qtbot.addWidget(a)
    qtbot.addWidget(b)
    _edit_and_wait_for_the_copy(qtbot, a, "nvidia-rtx-4090")
    _edit_and_wait_for_the_copy(qtbot, b, "nvidia-rtx-3060-12gb")
    assert a.build_page.recovery_file != b.build_page.recovery_file
    answers.append(str(tmp_path / "b.json"))
    click(qtbot, b.build_page.buttons["save_as"])
    assert (tmp_path / "b.json").is_file() and not b.build_page.dirty
    assert a.build_page.recovery_file.exists()
    _edit_and_wait_for_the_copy(qtbot, b, "nvidia-rtx-4090")
    sample = sorted((Path(__file__).resolve().parents[2] / "builds").glob("*.json"))[0]
    open_build(qtbot, b, answers, sample)  # "Save changes?" answered Discard (conftest)
    assert b.build_page.path == sample
    assert a.build_page.recovery_file.exists()
    assert not b.build_page.recovery_file.exists()
    a.build_page.dirty = False


def test_saving_removes_the_recovery_copy(window, qtbot, tmp_path, file_dialogs):
    _edit_and_wait_for_the_copy(qtbot, window, "nvidia-rtx-3060-12gb")
    file_dialogs[0].append(str(tmp_path / "b.json"))
    click(qtbot, window.build_page.buttons["save_as"])
    assert (tmp_path / "b.json").is_file()
    assert not window.build_page.recovery_file.exists()


def _damaged_copy() -> Path:
    path = new_recovery_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    good = {"part_id": "nvidia-rtx-4090", "quantity": 2}
    bad = {"text": "t" * 600, "category": "other", "quantity": 1}
    doc = {"format": "torchrig.recovery", "version": 1, "original": None,
           "build": {"format": "torchrig.build", "version": 1, "name": "Half a quote",
                     "tax_rate": "1.5", "line_items": [good, bad, good]}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return _as_if_crashed(path)


def test_a_damaged_recovery_copy_is_kept_aside_and_what_can_be_read_is_offered(qtbot,
                                                                               monkeypatch):
    left = _damaged_copy()
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda parent, title, text, *a:
                        asked.append(text) or QMessageBox.StandardButton.Yes)
    window = MainWindow()
    qtbot.addWidget(window)
    window.start()
    assert window.current_page() == "build"  # the recovered build is on show
    kept = left.parent / "unreadable" / left.name
    assert kept.exists() and not left.exists()  # moved, never deleted
    assert str(kept) in asked[0] and "tax_rate" in asked[0] and "2 lines" in asked[0]
    build = window.build_page.build
    assert build.name == "Half a quote" and len(build.line_items) == 2
    window.build_page.dirty = False


def test_an_unreadable_recovery_copy_is_moved_aside_and_the_user_told_where(qtbot,
                                                                            monkeypatch):
    path = new_recovery_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00garbage")
    left = _as_if_crashed(path)
    older = left.parent / "unreadable" / left.name
    older.parent.mkdir()
    older.write_bytes(b"an earlier damaged copy")
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a:
                        warned.append(text))
    window = MainWindow()
    qtbot.addWidget(window)
    window.start()
    assert window.current_page() != "build" and window.build_page.build.line_items == []
    kept = older.with_name(f"{older.stem}-2.json")
    assert kept.read_bytes() == b"\x00garbage"
    assert older.read_bytes() == b"an earlier damaged copy"
    assert str(kept) in warned[0]
    assert find_recoveries() == []  # told once, not at every start


def test_exception_hook_logs_and_shows_a_dialog(monkeypatch):
    shown = []
    monkeypatch.setattr(crash, "_show_dialog", lambda *args: shown.append(args))
    try:
        raise ValueError("boom in a slot")
    except ValueError as exc:
        crash.excepthook(type(exc), exc, exc.__traceback__)
    log = (crash.log_dir() / "torchrig.log").read_text(encoding="utf-8")
    assert "boom in a slot" in log
    assert shown and "ValueError: boom in a slot" in shown[0][0]


def test_no_stderr_never_crashes_the_app():
    """A Windows GUI launch has sys.stderr = None: errors must still be handled."""
    code = textwrap.dedent(
        """
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        sys.stderr = None
        from torchrig.gui import crash
        crash._show_dialog = lambda *a: None
        try:
            raise RuntimeError("no console")
        except RuntimeError as exc:
            crash.excepthook(type(exc), exc, exc.__traceback__)
        from torchrig.cli import main
        print(main(["check", "missing.json"]))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2"


def test_the_crash_log_is_rotated_and_old_logs_are_capped(monkeypatch):
    """An error repeating in a slot grew torchrig.log without bound."""
    monkeypatch.setattr(crash, "MAX_LOG_BYTES", 2_000)
    entry = "Traceback: boom\n" + "x" * 900
    for _ in range(40):
        path = crash.write_log(entry)
    assert path is not None
    logs = sorted(p.name for p in path.parent.iterdir())
    assert logs == ["torchrig.log", "torchrig.log.1", "torchrig.log.2", "torchrig.log.3"]
    assert all(p.stat().st_size < 2_000 + 1_000 for p in path.parent.iterdir())
    assert "boom" in path.read_text(encoding="utf-8")


def test_one_huge_crash_entry_is_shortened():
    path = crash.write_log("y" * (crash.MAX_ENTRY_CHARS * 3))
    assert path is not None
    assert path.stat().st_size < crash.MAX_ENTRY_CHARS + 1_000
