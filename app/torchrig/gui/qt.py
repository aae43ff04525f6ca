"""The one place the GUI imports Qt from.

Keeping every Qt import here means a binding switch or a version workaround is a one-file change.
"""

from __future__ import annotations

import ctypes
import sys

import PySide6
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QEvent,
    QIODevice,
    QLibraryInfo,
    QLocale,
    QMimeData,
    QObject,
    QPoint,
    QPointF,
    QRect,
    QSize,
    Qt,
    QThread,
    QTimer,
    QTranslator,
    QUrl,
    Signal,
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
    QKeySequence,
    QPainter,
    QPalette,
    QPen,
    QShortcut,
    QUndoCommand,
    QUndoStack,
)
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

try:  # QtPrintSupport is in the main wheel, but some distro builds leave it out.
    from PySide6.QtPrintSupport import QPrintDialog, QPrinter
except ImportError:  # pragma: no cover - depends on the installed wheels
    QPrintDialog = QPrinter = None  # type: ignore[assignment,misc]

try:  # QtPdf ships in the separate PySide6-Pdf wheel; the Report page works without a preview.
    from PySide6.QtPdf import QPdfDocument
    from PySide6.QtPdfWidgets import QPdfView
except ImportError:  # pragma: no cover - depends on the installed wheels
    QPdfDocument = None  # type: ignore[assignment,misc]
    QPdfView = None  # type: ignore[assignment,misc]



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
    "QPen",
    "QPlainTextEdit",
    "QPoint",
    "QPointF",
    "QRect",
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
