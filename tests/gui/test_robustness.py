"""GUI robustness: crash recovery of unsaved edits, the exception hook, stderr None."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from torchrig.builds.recovery import load_recovery, recovery_path
from torchrig.gui import crash
from torchrig.gui.main_window import MainWindow
from torchrig.gui.qt import QMessageBox


def test_unsaved_edits_survive_a_crash_and_are_offered_back(qtbot, monkeypatch):
    first = MainWindow()
    qtbot.addWidget(first)
    first.build_page.add_part("nvidia-rtx-4090", quantity=2)
    first.build_page.autosave_now()  # what the timer does a moment after the last edit
    assert recovery_path().exists()
    # A crash: the window is gone without saving or discarding.
    first.build_page.dirty = False
    first.deleteLater()

    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Yes)
    second = MainWindow()
    qtbot.addWidget(second)
    second.start()
    assert second.build_page.build.line_items[0].part_id == "nvidia-rtx-4090"
    assert second.build_page.build.line_items[0].quantity == 2
    assert second.build_page.dirty
    assert second.stack.currentWidget() is second.build_page
    second.build_page.dirty = False


def test_saving_removes_the_recovery_copy(window, tmp_path):
    window.build_page.add_part("nvidia-rtx-3060-12gb")
    window.build_page.autosave_now()
    assert load_recovery() is not None
    assert window.build_page._write(tmp_path / "b.json")
    assert not recovery_path().exists()


def test_a_damaged_recovery_copy_is_dropped_quietly():
    path = recovery_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x00garbage")
    assert load_recovery() is None
    assert not path.exists()


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
