"""The one place the GUI imports Qt from.

Keeping every Qt import here means a binding switch or a version workaround is a one-file change.
"""

from __future__ import annotations

import ctypes
import importlib
import sys
from typing import TYPE_CHECKING, Any

import PySide6
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import QObject, Signal  # the reference-count guard below needs them

if TYPE_CHECKING:
    from PySide6.QtCore import (
        QBuffer,
        QByteArray,
        QCoreApplication,
        QEvent,
        QIODevice,
        QLibraryInfo,
        QLocale,
        QMimeData,
        QPoint,
        QPointF,
        QRect,
        QRectF,
        QSize,
        Qt,
        QThread,
        QTimer,
        QTranslator,
        QUrl,
        Slot,
    )
    from PySide6.QtGui import (
        QAction,
        QBrush,
        QCloseEvent,
        QColor,
        QDesktopServices,
        QDragEnterEvent,
        QDropEvent,
        QFont,
        QGuiApplication,
        QIcon,
        QImage,
        QKeySequence,
        QPainter,
        QPalette,
        QPen,
        QShortcut,
        QUndoCommand,
        QUndoStack,
    )
    from PySide6.QtPdf import QPdfDocument
    from PySide6.QtPdfWidgets import QPdfView
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QApplication,
        QCheckBox,
        QComboBox,
        QDialog,
        QDialogButtonBox,
        QDoubleSpinBox,
        QFileDialog,
        QFormLayout,
        QFrame,
        QGridLayout,
        QGroupBox,
        QHBoxLayout,
        QHeaderView,
        QLabel,
        QLineEdit,
        QListWidget,
        QListWidgetItem,
        QMainWindow,
        QMenu,
        QMessageBox,
        QPlainTextEdit,
        QProgressBar,
        QPushButton,
        QScrollArea,
        QSizePolicy,
        QSpinBox,
        QSplitter,
        QStackedWidget,
        QTableWidget,
        QTableWidgetItem,
        QTabWidget,
        QTextBrowser,
        QToolButton,
        QToolTip,
        QVBoxLayout,
        QWidget,
    )

_LAZY_MODULES = {"QPrintDialog": "QtPrintSupport", "QPrinter": "QtPrintSupport",
                 "QPdfDocument": "QtPdf", "QPdfView": "QtPdfWidgets"}
"""Names imported on first use: the PDF and printing modules load libraries (pdfium among
them) that the window's start does not need; only the Report page and printing use them.
QtPrintSupport is in the main wheel but some distro builds leave it out; QtPdf ships in the
separate PySide6-Pdf wheel: a missing one reads as None (the Report page then has no preview)."""


_EAGER_MODULES = (QtCore, QtGui, QtWidgets)


def _resolve(name: str) -> Any:
    """A name of ``__all__`` from the PySide6 module that has it (None for an optional
    module that is not installed)."""
    module = _LAZY_MODULES.get(name)
    if module is not None:
        try:
            return getattr(importlib.import_module(f"PySide6.{module}"), name)
        except ImportError:  # pragma: no cover - depends on the installed wheels
            return None
    for qt_module in _EAGER_MODULES:
        value = getattr(qt_module, name, None)
        if value is not None:
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if not TYPE_CHECKING:  # mypy reads the imports above; this only runs

    def __getattr__(name: str) -> Any:
        """Each Qt name is looked up on first import: PySide6 6.12 builds a class when it is
        first touched, and touching all of ``__all__`` here cost the window's start about
        7 MB and a third of a second (measured; benchmarks/bench_window_start.py)."""
        if name not in __all__ or name in {"QtCore", "QtGui", "QtWidgets"}:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = _resolve(name)
        globals()[name] = value  # later lookups find it without this hook
        return value


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate looks for
    """Marks ``text`` for extraction into ``context`` and returns it unchanged; translate it
    where it is shown (``tr``). PySide6's own version is typed to return ``object``."""
    return text


QT_VERSION = QtCore.qVersion()
"""The Qt library in use at run time (may differ from the one PySide6 was built against)."""
PYSIDE6_VERSION = PySide6.__version__

__all__ = [
    "PYSIDE6_VERSION",
    "QT_TRANSLATE_NOOP",
    "QT_VERSION",
    "QAbstractButton",
    "QAbstractItemView",
    "QAction",
    "QApplication",
    "QBrush",
    "QBuffer",
    "QByteArray",
    "QCheckBox",
    "QCloseEvent",
    "QColor",
    "QComboBox",
    "QCoreApplication",
    "QDesktopServices",
    "QDialog",
    "QDialogButtonBox",
    "QDoubleSpinBox",
    "QDragEnterEvent",
    "QDropEvent",
    "QEvent",
    "QFileDialog",
    "QFont",
    "QFormLayout",
    "QFrame",
    "QGridLayout",
    "QGroupBox",
    "QGuiApplication",
    "QHBoxLayout",
    "QHeaderView",
    "QIODevice",
    "QIcon",
    "QImage",
    "QKeySequence",
    "QLabel",
    "QLibraryInfo",
    "QLineEdit",
    "QListWidget",
    "QListWidgetItem",
    "QLocale",
    "QMainWindow",
    "QMenu",
    "QMessageBox",
    "QMimeData",
    "QObject",
    "QPainter",
    "QPalette",
    "QPdfDocument",
    "QPdfView",
    "QPen",
    "QPlainTextEdit",
    "QPoint",
    "QPointF",
    "QRect",
    "QRectF",
    "QPrintDialog",
    "QPrinter",
    "QProgressBar",
    "QPushButton",
    "QScrollArea",
    "QShortcut",
    "QSize",
    "QSizePolicy",
    "QSpinBox",
    "QSplitter",
    "QStackedWidget",
    "QTabWidget",
    "QTableWidget",
    "QTableWidgetItem",
    "QTextBrowser",
    "QThread",
    "QTimer",
    "QToolButton",
    "QToolTip",
    "QTranslator",
    "QUndoCommand",
    "QUndoStack",
    "QUrl",
    "QVBoxLayout",
    "QWidget",
    "Qt",
    "QtCore",
    "QtGui",
    "QtWidgets",
    "Signal",
    "Slot",
]

# --- PySide6's import hook reads every module's source through linecache -------------------
#
# PySide6 asks of each module imported after it whether its source mentions "PySide6" (its
# ``__feature__`` switching applies only there): shibokensupport.feature._mod_uses_pyside calls
# inspect.getsource, which tokenizes the file and keeps its lines in linecache for the life of
# the process. The window's start imported 115 modules after PySide6 (2.7 MB of source text,
# kept as line strings: RSS the window idled with) and spent about 10 ms tokenizing them
# (benchmarks/bench_window_start.py). The same question is answered from the file's bytes,
# which are read and dropped; a module without a .py file gets PySide's own answer.


def _uses_pyside_from_bytes(upstream: Any) -> Any:
    def mod_uses_pyside(module: Any) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return bool(upstream(module))
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return bool(upstream(module))

    mod_uses_pyside.reads_bytes = True  # type: ignore[attr-defined]
    return mod_uses_pyside


def install_source_scan_without_linecache() -> bool:
    """Replace PySide's source scan (once; where this PySide6 has it). True when in place."""
    feature = sys.modules.get("shibokensupport.feature")
    upstream = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or upstream is None:
        return False
    if not getattr(upstream, "reads_bytes", False):
        setattr(feature, "_mod_uses_pyside", _uses_pyside_from_bytes(upstream))  # noqa: B010
    return True


install_source_scan_without_linecache()


# --- PySide6 6.12 on Python 3.11: None, True and False returned without a reference ---------
#
# PySide6 6.12.0's wheels return None from every void method (setText, setValue,
# processEvents ...) and True from Signal.emit without taking a reference: harmless on
# Python >= 3.12, where these objects are immortal, fatal on 3.11, where each call lowers the
# object's reference count by one. None starts near 5,000 once Qt is loaded, so a few thousand
# widget updates abort the interpreter ("none_dealloc: deallocating None", "bool_dealloc"); a
# benchmark run's progress updates and the GUI stall meter reached it within seconds. The
# guard measures the leak once and, only where it is real, gives the three objects the
# effectively endless reference count 3.12 gives them (PEP 683). Drop it once PySide6 6.12 on
# Python 3.11 is no longer supported (pin PySide6 != 6.12.* or require Python 3.12).

REFCOUNT_IMMORTAL = 1 << 40
"""Far more references than any session can leak."""


def _qt_leaks_references() -> bool:
    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    none, true = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(10):
        probe.setObjectName("probe")
        probe.ping.emit()
    return sys.getrefcount(None) < none - 5 or sys.getrefcount(True) < true - 5


def install_refcount_guard() -> bool:
    """Apply the workaround where needed (once); True when it is in place."""
    global refcount_guard_installed
    if refcount_guard_installed:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython" or \
            not _qt_leaks_references():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += REFCOUNT_IMMORTAL
    refcount_guard_installed = True
    return True


refcount_guard_installed = False
install_refcount_guard()  # before any widget exists
