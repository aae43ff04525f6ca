"""The one place the GUI imports Qt from.

Keeping every Qt import here means a binding switch or a version workaround is a one-file change.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QIODevice,
    QObject,
    QSettings,
    QSize,
    Qt,
    QThread,
    QTimer,
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
    QPen,
)
from PySide6.QtWidgets import (
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
    QVBoxLayout,
    QWidget,
)

try:  # QtPdf ships in the separate PySide6-Pdf wheel; the Report page works without a preview.
    from PySide6.QtPdf import QPdfDocument
    from PySide6.QtPdfWidgets import QPdfView
except ImportError:  # pragma: no cover - depends on the installed wheels
    QPdfDocument = None  # type: ignore[assignment,misc]
    QPdfView = None  # type: ignore[assignment,misc]

QT_VERSION = QtCore.qVersion()

__all__ = [
    "QT_VERSION", "QAbstractItemView", "QAction", "QApplication", "QBrush", "QBuffer",
    "QByteArray", "QCheckBox", "QDesktopServices", "QIODevice", "QUrl",
    "QCloseEvent", "QColor",
    "QComboBox", "QDialog", "QDialogButtonBox", "QDoubleSpinBox", "QFileDialog", "QFont",
    "QFormLayout", "QFrame", "QGridLayout", "QGroupBox", "QGuiApplication", "QHBoxLayout",
    "QHeaderView", "QIcon", "QKeySequence", "QLabel", "QLineEdit", "QListWidget",
    "QListWidgetItem", "QMainWindow", "QMessageBox", "QObject", "QPainter", "QPen",
    "QPlainTextEdit", "QProgressBar", "QPushButton", "QScrollArea", "QSettings", "QSize",
    "QSizePolicy", "QSpinBox", "QSplitter", "QStackedWidget", "QTabWidget", "QTableWidget",
    "QTableWidgetItem", "QTextBrowser", "QThread", "QTimer", "QToolButton", "QVBoxLayout",
    "QWidget", "Qt", "QtCore", "QtGui", "QtWidgets", "Signal", "Slot",
]
