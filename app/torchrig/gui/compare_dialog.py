"""Compare up to three builds side by side (the current one and build files)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchrig.builds.build import Build
from torchrig.builds.compare import compare_builds
from torchrig.catalog.exchange_rates import catalog_reference
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.gui.qt import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)
from torchrig.gui.settings import Settings
from torchrig.report.open_build import load_build_or_sheet

MAX_BUILDS = 3


class CompareDialog(QDialog):
    def __init__(self, catalog: Catalog, current: Build, settings: Settings, lang: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Compare builds"))
        self.resize(980, 480)
        self.catalog = catalog
        self.settings = settings
        self.lang = lang
        self.builds: list[Build] = [current]
        layout = QVBoxLayout(self)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add build file…"))
        self.add_button.clicked.connect(self.add_dialog)
        row.addWidget(self.add_button)
        row.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        row.addWidget(buttons)
        layout.addLayout(row)
        self.refresh()

    def add_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Add build"),
                                              self.settings.build_folder,
                                              self.tr("TorchRig build or PDF sheet (*.json *.pdf)"))
        if path:
            self.add_path(Path(path))

    def add_path(self, path: Path) -> None:
        if len(self.builds) >= MAX_BUILDS:
            QMessageBox.information(self, self.tr("Compare"),
                                    self.tr("Up to three builds can be compared."))
            return
        try:
            self.builds.append(load_build_or_sheet(path, self.catalog))
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot open build"), str(exc))
            return
        self.refresh()

    def refresh(self) -> None:
        rows = compare_builds(self.builds, self.catalog, self.lang,
                              default_rate=self.settings.default_rate(
                                  catalog_reference(self.catalog)))
        self.table.setColumnCount(len(self.builds))
        self.table.setRowCount(len(rows))
        # Long build names wrap onto lines (a header does not wrap by itself and clipped them);
        # the whole name is the header's tooltip.
        for c, build in enumerate(self.builds):
            head = QTableWidgetItem(textwrap.fill(build.name, 28, max_lines=3,
                                                  placeholder=" …"))
            head.setToolTip(build.name)
            self.table.setHorizontalHeaderItem(c, head)
        self.table.setVerticalHeaderLabels([r.label.get(self.lang) for r in rows])
        for r, row in enumerate(rows):
            for c, value in enumerate(row.values):
                self.table.setItem(r, c, QTableWidgetItem(value))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.resizeRowsToContents()
        self.add_button.setEnabled(len(self.builds) < MAX_BUILDS)
