"""The Build page's "Replace part…" dialog: the catalog picker locked to the line's category,
its "Compatible with this build" filter asking whether each part could take that line's place
(builds.part_fit, the picker's own filter), and the pick returned to the page."""

from __future__ import annotations

from typing import Any

from torchrig.builds.build import Build
from torchrig.catalog.model import Catalog
from torchrig.gui.part_picker import PartPicker
from torchrig.gui.qt import QDialog, QDialogButtonBox, QVBoxLayout, QWidget
from torchrig.gui.settings import Settings


class ReplacePartDialog(QDialog):
    """Attributes:
        picker: the catalog picker (its add button reads "Replace").
        chosen: the picked part's id once accepted (None before).
    """

    def __init__(self, catalog: Catalog, settings: Settings, build: Build, index: int,
                 lang: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        part_id = build.line_items[index].part_id
        assert part_id is not None
        part = catalog.get(part_id)
        self.setWindowTitle(self.tr("Replace {0}").format(f"{part.vendor} {part.name}"))
        self.chosen: str | None = None
        self.picker = PartPicker(catalog, settings, lang)
        self.picker.replace_line(build, index)
        self.picker.add_button.setText(self.tr("Replace"))
        self.picker.add_button.setToolTip(self.tr(
            "Put the selected part in this line's place (or double-click it); the quantity "
            "stays"))
        self.picker.add_requested.connect(self._picked)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.picker, 1)
        layout.addWidget(buttons)
        self.resize(560, 520)

    @classmethod
    def ask(cls, page: Any, build: Build, index: int) -> str | None:
        """Show the dialog over the Build ``page`` for line ``index``; the picked id or None."""
        dialog = cls(page.catalog, page.settings, build, index, page.lang, page)
        accepted = dialog.exec() == QDialog.DialogCode.Accepted
        return dialog.chosen if accepted else None

    def _picked(self, part_id: str) -> None:
        self.chosen = part_id
        self.accept()
