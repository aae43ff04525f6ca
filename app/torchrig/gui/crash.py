"""Uncaught exceptions in the GUI: log them, show them, keep running.

PySide6 routes an exception raised in a slot to ``sys.excepthook``; the default prints it and
carries on, which a GUI user never sees. Ours writes it to a log file in the user's data folder
and shows a dialog with a "Copy details" button. It never writes to ``sys.stderr`` when that is
None (a Windows GUI launch has no console).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import sys
import traceback
from pathlib import Path
from types import TracebackType

from torchrig import __version__


def log_dir() -> Path:
    from torchrig.paths import data_dir

    return data_dir() / "logs"


MAX_LOG_BYTES = 1_000_000
"""The log is rotated past this size: an error repeating in a slot once grew it without bound."""
KEEP_LOGS = 3
"""Rotated logs kept besides the current one (``torchrig.log.1`` is the newest)."""
MAX_ENTRY_CHARS = 50_000


def _rotate(path: Path) -> None:
    """``torchrig.log`` -> ``.1`` -> ``.2`` ... when it is over :data:`MAX_LOG_BYTES`; the
    oldest beyond :data:`KEEP_LOGS` is dropped."""
    try:
        if path.stat().st_size < MAX_LOG_BYTES:
            return
    except FileNotFoundError:
        return
    for n in range(KEEP_LOGS - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{n + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))


def write_log(text: str) -> Path | None:
    """Append to the log (rotated by size); returns its path, or None when it cannot be
    written."""
    try:
        folder = log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "torchrig.log"
        _rotate(path)
        if len(text) > MAX_ENTRY_CHARS:
            text = text[:MAX_ENTRY_CHARS] + f"\n... ({len(text) - MAX_ENTRY_CHARS} more characters)"
        stamp = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"--- {stamp} torchrig {__version__}\n{text}\n")
        return path
    except OSError:
        return None


def _show_dialog(summary: str, details: str, log_path: Path | None) -> None:
    from torchrig.gui.qt import QApplication, QCoreApplication, QMessageBox, QPushButton

    if QApplication.instance() is None:
        return
    box = QMessageBox()
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle("TorchRig")
    box.setText(summary)
    text = QCoreApplication.translate(
        "CrashDialog",
        "TorchRig hit an internal error; your open work is unchanged and the app keeps running.")
    if log_path:
        text += "\n\n" + QCoreApplication.translate("CrashDialog", "Logged to {0}").format(
            log_path)
    box.setInformativeText(text)
    box.setDetailedText(details)
    copy = QPushButton(QCoreApplication.translate("CrashDialog", "Copy details"))
    box.addButton(copy, QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Close)
    copy.clicked.connect(lambda: QApplication.clipboard().setText(details))
    box.exec()


def excepthook(exc_type: type[BaseException], exc: BaseException,
               tb: TracebackType | None) -> None:
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    details = "".join(traceback.format_exception(exc_type, exc, tb))
    log_path = write_log(details)
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(details)
    _show_dialog(f"{exc_type.__name__}: {exc}", details, log_path)


def install() -> None:
    sys.excepthook = excepthook
