"""The one place the GUI imports Qt from.

Keeping every Qt import here means a binding switch or a version workaround is a one-file change.
"""

from __future__ import annotations

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
    QObject,
    QPoint,
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
    QFont,
    QGuiApplication,
    QIcon,
    QKeySequence,
    QPainter,
    QPalette,
    QPen,
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

from torchrig.gui import refcount_guard

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
    "PYSIDE6_VERSION", "QT_TRANSLATE_NOOP", "QT_VERSION", "QAbstractButton", "QAbstractItemView",
    "QAction", "QApplication", "QBrush", "QBuffer", "QByteArray", "QCheckBox", "QCloseEvent",
    "QColor", "QComboBox", "QCoreApplication", "QDesktopServices", "QDialog", "QDialogButtonBox",
    "QDoubleSpinBox", "QEvent", "QFileDialog", "QFont", "QFormLayout", "QFrame", "QGridLayout",
    "QGroupBox", "QGuiApplication", "QHBoxLayout", "QHeaderView", "QIODevice", "QIcon",
    "QKeySequence", "QLabel", "QLibraryInfo", "QLineEdit", "QListWidget", "QListWidgetItem",
    "QLocale", "QMainWindow", "QMenu", "QMessageBox", "QObject", "QPainter", "QPalette", "QPen",
    "QPlainTextEdit", "QPoint", "QProgressBar", "QPushButton", "QScrollArea", "QSize",
    "QSizePolicy", "QSpinBox", "QSplitter", "QStackedWidget", "QTabWidget", "QTableWidget",
    "QTableWidgetItem", "QTextBrowser", "QThread", "QTimer", "QToolButton", "QToolTip",
    "QTranslator", "QUrl", "QVBoxLayout", "QWidget", "Qt", "QtCore", "QtGui", "QtWidgets",
    "Signal", "Slot",
]

# Before any widget exists: PySide6 6.12 on Python 3.11 loses a reference to None on every
# void call (see refcount_guard).
refcount_guard.install()
