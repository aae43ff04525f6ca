"""Build: pick parts, edit prices, see totals and compatibility findings live, save/open.

The page edits a :class:`~torchrig.builds.build.Build` by replacing it with edited copies;
after every edit it re-prices (``price_build``) and re-checks (``check_build``) — both are fast,
pure functions of the build and the catalog, so nothing is cached that could go stale.
Because an edit is "this build instead of that one", undo/redo keeps the two builds of each
edit on a QUndoStack and nothing else.
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from decimal import Decimal
from html import escape
from pathlib import Path
from typing import Any

from torchrig.builds.build import (
    CUSTOM_CATEGORIES,
    Build,
    Discount,
    ExchangeRate,
    LineItem,
    build_from_tier,
    save_build,
    validate_build,
)
from torchrig.builds.compat import check_build
from torchrig.builds.pricelist import load_price_list
from torchrig.builds.pricing import PricedBuild, price_build
from torchrig.builds.recovery import (
    clear_recovery,
    find_recoveries,
    new_recovery_path,
    save_recovery,
)
from torchrig.catalog.fields import parse_money
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.file_names import suggested_file_name
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.part_picker import PartPicker
from torchrig.gui.qt import (
    QT_TRANSLATE_NOOP,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QEvent,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QKeySequence,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QObject,
    QPushButton,
    QSpinBox,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTimer,
    QUndoCommand,
    QUndoStack,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.settings import Settings
from torchrig.gui.style import colour, qcolour
from torchrig.gui.widgets import ElidedLabel
from torchrig.labels import CATEGORIES, label
from torchrig.report.open_build import load_build_or_sheet

LINE_COLUMNS = [
    QT_TRANSLATE_NOOP("BuildPage", "Category"),
    QT_TRANSLATE_NOOP("BuildPage", "Item"),
    QT_TRANSLATE_NOOP("BuildPage", "Key spec"),
    QT_TRANSLATE_NOOP("BuildPage", "Qty"),
    QT_TRANSLATE_NOOP("BuildPage", "Unit price"),
    QT_TRANSLATE_NOOP("BuildPage", "Line total"),
    QT_TRANSLATE_NOOP("BuildPage", "Price origin"),
]
QTY_COL, PRICE_COL, TOTAL_COL = 3, 4, 5
ELIDED_COLS = (1, 2)  # item and key spec: the long texts, shown whole in their tooltip
ROW_PADDING = 10  # px above and below one line of text: a comfortable, single-line row

LINE_STATUS = {  # planning.pricing.LineStatus
    "ok": QT_TRANSLATE_NOOP("BuildPage", "ok"),
    "price needed": QT_TRANSLATE_NOOP("BuildPage", "price needed"),
    "exchange rate needed": QT_TRANSLATE_NOOP("BuildPage", "exchange rate needed"),
}
PRICE_KINDS = {  # catalog.model.PriceKind
    "launch-msrp": QT_TRANSLATE_NOOP("BuildPage", "launch MSRP"),
    "retail": QT_TRANSLATE_NOOP("BuildPage", "retail"),
    "estimate": QT_TRANSLATE_NOOP("BuildPage", "estimate"),
}


def _money(amount: Decimal | None, currency: str) -> str:
    return "—" if amount is None else f"{currency} {amount:,.2f}"


class _BuildEdit(QUndoCommand):
    """One edit of the build: undo shows ``before`` again, redo ``after``."""

    def __init__(self, page: BuildPage, before: Build, after: Build, text: str) -> None:
        super().__init__(text)
        self._page, self._before, self._after = page, before, after

    def redo(self) -> None:
        self._page._set_build(self._after)

    def undo(self) -> None:
        self._page._set_build(self._before)


class _CustomLineDialog(QDialog):
    """Asks for a custom line item: free text, category, quantity, unit price."""

    def __init__(self, currency: str, lang: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Custom line item"))
        form = QFormLayout(self)
        self.text = QLineEdit()
        self.text.setToolTip(self.tr("What the line is, as it should read on the quote"))
        self.category = QComboBox()
        for code in CUSTOM_CATEGORIES:
            self.category.addItem(label(CATEGORIES, code, lang), code)
        self.category.setCurrentIndex(self.category.findData("other"))
        self.category.setToolTip(self.tr("Where the line is listed and totalled on the quote"))
        self.quantity = QSpinBox()
        self.quantity.setRange(1, 10_000)
        self.price = QLineEdit()
        self.price.setPlaceholderText(self.tr("unit price in {0} (empty: ask later)")
                                      .format(currency))
        self.price.setToolTip(self.tr("Price of one unit in the build's currency; leave empty "
                                      "and the line is marked as needing a price"))
        self.scope = QComboBox()
        self.scope.addItem(self.tr("per node"), "node")
        self.scope.addItem(self.tr("once for the cluster"), "cluster")
        self.scope.setToolTip(self.tr("Per node: multiplied by the number of nodes. Once: "
                                      "bought once for the whole cluster (a switch, a service)"))
        form.addRow(self.tr("Description"), self.text)
        form.addRow(self.tr("Category"), self.category)
        form.addRow(self.tr("Quantity"), self.quantity)
        form.addRow(self.tr("Unit price"), self.price)
        form.addRow(self.tr("Scope"), self.scope)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class BuildPage(QWidget):
    """Signals:
        build_changed(object): the edited Build after every change (for Targets and Report).
        status(str): a one-line message for the status bar.
    Attributes:
        build, path (None until saved), dirty (unsaved edits), priced, findings.
    """

    build_changed = Signal(object)
    status = Signal(str)

    def __init__(self, catalog: Catalog, settings: Settings, lang: str = "en",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.settings = settings
        self.lang = lang
        self.build = self._new_build()
        self.path: Path | None = None
        self.dirty = False
        self.priced: PricedBuild | None = None
        self.findings: list = []
        self._updating = False
        self.undo_stack = QUndoStack(self)
        # Undoing back to the state last saved or opened makes the build clean again; a build
        # started from a tier or recovered after a crash was never saved, so it stays dirty.
        self._clean_state_is_saved = True
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        # Unsaved edits are copied to this page's own recovery file a moment after they stop.
        self.recovery_file = new_recovery_path()
        self._autosave = QTimer(self)
        self._autosave.setSingleShot(True)
        self._autosave.setInterval(1500)
        self._autosave.timeout.connect(self.autosave_now)

        outer = QVBoxLayout(self)
        outer.addLayout(self._toolbar())
        self.splitter = splitter = QSplitter(Qt.Orientation.Horizontal)
        # Side by side the two halves need ~1,050 px; on a narrower window the catalog goes
        # below the build (resizeEvent), so the page's minimum width is the toolbar's.
        splitter.setMinimumWidth(600)
        splitter.addWidget(self._left_side())
        self.picker = PartPicker(catalog, settings, lang)
        self.picker.add_requested.connect(self.add_part)
        self.picker.status.connect(self.status)
        splitter.addWidget(self.picker)
        splitter.setSizes([800, 420])
        outer.addWidget(splitter, 1)
        self._refresh_all()

    # --- layout -------------------------------------------------------------------------------

    SIDE_BY_SIDE_WIDTH = 1080
    """Below this page width the catalog picker moves under the build."""

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        want = (Qt.Orientation.Horizontal if self.width() >= self.SIDE_BY_SIDE_WIDTH
                else Qt.Orientation.Vertical)
        if self.splitter.orientation() != want:
            self.splitter.setOrientation(want)

    def _toolbar(self) -> QHBoxLayout:
        bar = QHBoxLayout()
        bar.addWidget(QLabel(self.tr("<h2>Build</h2>")))
        self.title = ElidedLabel()
        bar.addWidget(self.title, 1)
        buttons = [
            ("new", self.tr("New"), self.new_build,
             self.tr("Start an empty build (asks about unsaved changes first)")),
            ("open", self.tr("Open…"), self.open_dialog, self.tr("Open a build file (.json)")),
            ("save", self.tr("Save"), self.save, self.tr("Save the build to its file")),
            ("save_as", self.tr("Save as…"), self.save_as,
             self.tr("Save the build to a new file")),
            ("import", self.tr("Import prices…"), self.import_prices,
             self.tr("Apply a CSV price list (part id, price, currency, date, source) to the "
                     "build's lines")),
            ("compare", self.tr("Compare…"), self.compare_dialog,
             self.tr("Compare this build with up to two build files side by side")),
        ]
        self.buttons: dict[str, QPushButton] = {}
        for key, text, slot, tip in buttons:
            button = QPushButton(text)
            button.setToolTip(tip)
            button.clicked.connect(lambda _checked=False, s=slot: s())
            bar.addWidget(button)
            self.buttons[key] = button
        self.recent_box = QComboBox()
        self.recent_box.setToolTip(self.tr("Build files opened or saved recently"))
        self.recent_box.setMinimumWidth(160)
        self.recent_box.activated.connect(self._open_recent)
        bar.addWidget(self.recent_box)
        self._fill_recent()
        return bar

    def _left_side(self) -> QWidget:
        host = QWidget()
        layout = QVBoxLayout(host)
        layout.setContentsMargins(0, 0, 0, 0)
        header = QGroupBox(self.tr("Quote"))
        form = QHBoxLayout(header)
        left, right = QFormLayout(), QFormLayout()
        form.addLayout(left)
        form.addLayout(right)
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip(self.tr("The build's name: the quote's title and the "
                                          "suggested file name"))
        self.customer_edit = QLineEdit()
        self.customer_edit.setToolTip(self.tr("Who the quote is for (printed on the PDF)"))
        self.project_edit = QLineEdit()
        self.project_edit.setToolTip(self.tr("The customer's project or purchase reference "
                                             "(printed on the PDF)"))
        self.nodes_spin = QSpinBox()
        self.nodes_spin.setRange(1, 10_000)
        self.nodes_spin.setToolTip(self.tr("Identical machines: per-node lines are multiplied"))
        left.addRow(self.tr("Name"), self.name_edit)
        left.addRow(self.tr("Customer"), self.customer_edit)
        left.addRow(self.tr("Project"), self.project_edit)
        left.addRow(self.tr("Nodes"), self.nodes_spin)
        self.currency_box = QComboBox()
        self.currency_box.addItems(["CNY", "USD"])
        self.currency_box.setToolTip(self.tr("Currency of the quote; prices in the other "
                                             "currency are converted with the exchange rate"))
        self.rate_spin = QDoubleSpinBox()
        self.rate_spin.setRange(0, 100)
        self.rate_spin.setDecimals(4)
        self.rate_spin.setSpecialValueText(self.tr("not set"))
        self.rate_spin.setToolTip(self.tr("CNY per USD, as you set it (no online rates)"))
        self.rate_date = QLineEdit()
        self.rate_date.setPlaceholderText("YYYY-MM-DD")
        self.rate_date.setToolTip(self.tr("The day the exchange rate was taken (printed next "
                                          "to it, so the quote says how fresh it is)"))
        self.tax_spin = QDoubleSpinBox()
        self.tax_spin.setRange(0, 100)
        self.tax_spin.setSuffix(" %")
        self.tax_spin.setToolTip(self.tr("Tax added to the subtotal after the discount "
                                         "(e.g. 13 % VAT in China); 0 for none"))
        self.discount_spin = QDoubleSpinBox()
        self.discount_spin.setRange(0, 1e9)
        self.discount_spin.setToolTip(self.tr("Discount on the subtotal, as a percentage or "
                                              "an amount in the build's currency"))
        self.discount_kind = QComboBox()
        self.discount_kind.addItem("%", "percent")
        self.discount_kind.addItem(self.tr("amount"), "amount")
        self.discount_kind.setToolTip(self.discount_spin.toolTip())
        discount_row = QHBoxLayout()
        discount_row.addWidget(self.discount_spin, 1)
        discount_row.addWidget(self.discount_kind)
        right.addRow(self.tr("Currency"), self.currency_box)
        right.addRow(self.tr("Exchange rate (CNY/USD)"), self.rate_spin)
        right.addRow(self.tr("Rate date"), self.rate_date)
        right.addRow(self.tr("Tax"), self.tax_spin)
        right.addRow(self.tr("Discount"), discount_row)
        layout.addWidget(header)
        # A header edit the build file could not hold is not applied; why is shown here, in
        # the loader's own words, with the field marked (see _header_edited).
        self.header_error = QLabel()
        self.header_error.setWordWrap(True)
        self.header_error.setStyleSheet(f"color: {colour('error')};")
        self.header_error.hide()
        layout.addWidget(self.header_error)
        for widget in (self.name_edit, self.customer_edit, self.project_edit, self.rate_date):
            widget.editingFinished.connect(self._header_edited)
        for spin in (self.nodes_spin, self.rate_spin, self.tax_spin, self.discount_spin):
            spin.valueChanged.connect(self._header_edited)
        self.currency_box.currentIndexChanged.connect(self._header_edited)
        self.discount_kind.currentIndexChanged.connect(self._header_edited)

        self.lines = QTableWidget(0, len(LINE_COLUMNS))
        self.lines.setHorizontalHeaderLabels([self.tr(c) for c in LINE_COLUMNS])
        self.lines.setToolTip(self.tr("Double-click Qty or Unit price to edit; hover a price "
                                      "origin to see its source"))
        self.lines.verticalHeader().setVisible(False)
        self.lines.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # One line per row: a wrapped key spec made rows 40-70 px tall and the BOM hard to scan.
        # Long texts are elided; the whole text is the cell's tooltip.
        self.lines.setWordWrap(False)
        self.lines.setTextElideMode(Qt.TextElideMode.ElideRight)
        rows = self.lines.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + ROW_PADDING)
        head = self.lines.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.lines.itemChanged.connect(self._cell_edited)
        # Enough for three or four lines when the page is short and scrolls (1024x700).
        self.lines.setMinimumHeight(170)
        # Delete and Ctrl+C act on the selected lines; a cell being edited keeps its own keys
        # (its editor has the focus, so these never reach the table then).
        self.lines.installEventFilter(self)
        layout.addWidget(self.lines, 3)

        row = QHBoxLayout()
        self.remove_button = QPushButton(self.tr("Remove line"))
        self.remove_button.clicked.connect(self.remove_selected)
        self.custom_button = QPushButton(self.tr("Add custom line…"))
        self.custom_button.clicked.connect(self.add_custom_dialog)
        self.copy_button = QPushButton(self.tr("Copy as"))
        self.copy_button.setToolTip(self.tr("Copy the priced parts list for a forum post, a "
                                            "chat or a spreadsheet"))
        copy_menu = QMenu(self.copy_button)
        for fmt, text in (("md", self.tr("Markdown (forums, GitHub)")),
                          ("bbcode", self.tr("BBCode (forums)")),
                          ("text", self.tr("Plain text (chats)")),
                          ("csv", self.tr("CSV (spreadsheets)"))):
            action = copy_menu.addAction(text)
            action.setData(fmt)
            action.triggered.connect(lambda _checked=False, f=fmt: self.copy_as(f))
        self.copy_button.setMenu(copy_menu)
        row.addWidget(self.remove_button)
        row.addWidget(self.custom_button)
        row.addWidget(self.copy_button)
        row.addStretch(1)
        hint = QLabel(self.tr("Edit Qty and Unit price in the table; clear a price to use the "
                              "catalog's."))
        hint.setWordWrap(True)
        hint.setStyleSheet(f"color: {colour('muted')};")
        row.addWidget(hint)
        layout.addLayout(row)

        bottom = QSplitter(Qt.Orientation.Horizontal)
        self.totals = QLabel()
        self.totals.setTextFormat(Qt.TextFormat.RichText)
        self.totals.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.totals.setWordWrap(True)
        self.findings_view = FindingsView(self.lang)
        bottom.addWidget(self.totals)
        bottom.addWidget(self.findings_view)
        bottom.setSizes([300, 520])
        layout.addWidget(bottom, 2)
        return host

    def add_part(self, part_id: str, quantity: int = 1) -> None:
        lines = list(self.build.line_items)
        for i, item in enumerate(lines):
            if item.part_id == part_id:
                lines[i] = replace(item, quantity=item.quantity + quantity)
                break
        else:
            lines.append(LineItem(part_id=part_id, quantity=quantity))
        self._edit(replace(self.build, line_items=lines), self.tr("Add part"))

    def add_custom_dialog(self) -> None:
        dialog = _CustomLineDialog(self.build.currency, self.lang, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        text = dialog.text.text().strip()
        category = dialog.category.currentData()
        if not text:
            self._warn(self.tr("A custom line needs a description."))
            return
        price = self._parse_price(dialog.price.text())
        if price is False:
            return
        item = LineItem(text=text, category=category,
                        quantity=dialog.quantity.value(),
                        unit_price=price if isinstance(price, Decimal) else None,
                        currency=self.build.currency if isinstance(price, Decimal) else None,
                        scope=dialog.scope.currentData())
        self._set_checked(replace(self.build, line_items=[*self.build.line_items, item]),
                          self.tr("Add custom line"))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.lines and event.type() == QEvent.Type.KeyPress:
            if event.matches(QKeySequence.StandardKey.Delete):  # type: ignore[attr-defined]
                self.remove_selected()
                return True
            if event.matches(QKeySequence.StandardKey.Copy):  # type: ignore[attr-defined]
                self.copy_selected_lines()
                return True
        return super().eventFilter(watched, event)

    def copy_selected_lines(self) -> None:
        """The selected cells as tab-separated text (pastes into a spreadsheet as cells)."""
        cells = sorted((i.row(), i.column()) for i in self.lines.selectedIndexes())
        if not cells:
            return
        rows: dict[int, list[str]] = {}
        for r, c in cells:
            item = self.lines.item(r, c)
            rows.setdefault(r, []).append(item.text().replace("\n", " ") if item else "")
        header = [self.lines.model().headerData(c, Qt.Orientation.Horizontal)
                  for c in sorted({c for _r, c in cells})]
        text = "\n".join("\t".join(row) for row in [header, *rows.values()])
        QApplication.clipboard().setText(text)
        self.status.emit(self.tr("Copied 1 line.") if len(rows) == 1
                         else self.tr("Copied {0} lines.").format(len(rows)))

    def copy_as(self, fmt: str) -> None:
        """The whole priced build on the clipboard as Markdown, BBCode, text or CSV, with the
        same totals as the PDF (report/share_text.py)."""
        from torchrig.report.share_text import share_text

        assert self.priced is not None
        QApplication.clipboard().setText(share_text(self.priced, fmt, self.lang))
        self.status.emit(self.tr("Copied the parts list ({0}).").format(fmt.upper()))

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.lines.selectedIndexes()}, reverse=True)
        if not rows:
            return
        lines = list(self.build.line_items)
        for r in rows:
            del lines[r]
        self._edit(replace(self.build, line_items=lines), self.tr("Remove lines"))

    # --- editing ------------------------------------------------------------------------------

    def _parse_price(self, text: str) -> Decimal | None | bool:
        """None for empty (use the catalog), a Decimal, or False after telling the user."""
        text = text.strip().replace(",", "")
        for prefix in ("CNY", "USD", "¥", "$", "￥"):
            text = text.removeprefix(prefix).strip()
        if not text:
            return None
        try:
            # The loader's parser: a price the editor takes is one the file can hold.
            return parse_money(text, self.tr("Unit price"))
        except InputError as exc:
            self._warn(str(exc))
            return False

    def _cell_edited(self, item: QTableWidgetItem) -> None:
        if self._updating:
            return
        row, col = item.row(), item.column()
        line = self.build.line_items[row]
        if col == QTY_COL:
            try:
                qty = int(item.text().strip())
                if not 1 <= qty <= 10_000:
                    raise ValueError
            except ValueError:
                self._warn(self.tr("Quantity must be a whole number from 1 to 10,000."))
                self._refresh_all()
                return
            new = replace(line, quantity=qty)
        elif col == PRICE_COL:
            price = self._parse_price(item.text())
            if price is False:
                self._refresh_all()
                return
            if not isinstance(price, Decimal):
                new = replace(line, unit_price=None, currency=None, price_source="",
                              price_date="", price_kind="")
            else:
                # The shop's own price as of today: not the published figure it replaces.
                new = replace(line, unit_price=price, currency=self.build.currency,
                              price_source=self.tr("edited in TorchRig"),
                              price_date=datetime.date.today().isoformat(), price_kind="")
        else:
            return
        lines = list(self.build.line_items)
        lines[row] = new
        self._set_checked(replace(self.build, line_items=lines),
                          self.tr("Edit quantity") if col == QTY_COL else self.tr("Edit price"))

    def _header_edited(self) -> None:
        if self._updating:
            return
        rate = None
        if self.rate_spin.value() > 0:
            rate = ExchangeRate(Decimal(str(round(self.rate_spin.value(), 4))),
                                self.rate_date.text().strip())
        discount = None
        if self.discount_spin.value() > 0:
            discount = Discount(self.discount_kind.currentData(),
                                Decimal(str(round(self.discount_spin.value(), 2))))
        fields: list[tuple[QWidget, dict[str, Any]]] = [
            (self.name_edit, {"name": self.name_edit.text().strip() or self.tr("Untitled build")}),
            (self.customer_edit, {"customer": self.customer_edit.text()}),
            (self.project_edit, {"project": self.project_edit.text()}),
            (self.nodes_spin, {"nodes": self.nodes_spin.value()}),
            (self.currency_box, {"currency": self.currency_box.currentText()}),
            (self.rate_spin, {"exchange_rate": rate}),
            (self.tax_spin, {"tax_rate": Decimal(str(round(self.tax_spin.value(), 4))) / 100}),
            (self.discount_spin, {"discount": discount}),
        ]
        # Each field is checked alone against the loader first, so the message sits next to
        # the field that caused it; nothing is applied while any field is refused.
        for widget, change in fields:
            try:
                validate_build(replace(self.build, **change))
            except InputError as exc:
                if "exchange_rate.date" in str(exc):
                    widget = self.rate_date
                self._show_header_error(widget, str(exc))
                return
        self._show_header_error(None, "")
        changes = {key: value for _widget, change in fields for key, value in change.items()}
        self._edit(replace(self.build, **changes), self.tr("Edit quote details"))

    def _show_header_error(self, widget: QWidget | None, text: str) -> None:
        for field in (self.name_edit, self.customer_edit, self.project_edit, self.nodes_spin,
                      self.currency_box, self.rate_spin, self.rate_date, self.tax_spin,
                      self.discount_spin):
            field.setStyleSheet(f"border: 1px solid {colour('error')};" if field is widget
                                else "")
        self.header_error.setText(text)
        self.header_error.setVisible(bool(text))

    def _set_checked(self, build: Build, text: str) -> None:
        """Apply an edit of the lines (undoably) if the build file can hold it; else say why
        (the loader's message) and keep the build as it was."""
        try:
            validate_build(build)
        except InputError as exc:
            self._warn(str(exc))
            self._refresh_all()
            return
        self._edit(build, text)

    def _edit(self, build: Build, text: str) -> None:
        """Apply a user's edit, undoably. Edits that change nothing are not recorded."""
        if build != self.build:
            self.undo_stack.push(_BuildEdit(self, self.build, build, text))

    def _load_document(self, build: Build, *, saved: bool) -> None:
        """Show a build that replaces the document (opened, new, from a tier, recovered):
        earlier edits cannot be undone into it."""
        self._clean_state_is_saved = saved
        self.undo_stack.clear()
        self._set_build(build, dirty=not saved)

    def _on_clean_changed(self, clean: bool) -> None:
        if clean and self._clean_state_is_saved and self.dirty:
            self.dirty = False
            self._autosave.stop()
            clear_recovery(self.recovery_file)
            self._refresh_title()

    def _set_build(self, build: Build, *, dirty: bool = True) -> None:
        self.build = build
        self.dirty = dirty
        self._refresh_all()
        if dirty:
            self._autosave.start()
        else:
            self._autosave.stop()
            clear_recovery(self.recovery_file)
        self.build_changed.emit(build)

    def autosave_now(self) -> None:
        if self.dirty:
            save_recovery(self.recovery_file, self.build, self.path)

    def offer_recovery(self) -> bool:
        """At start-up: give back the unsaved build a crash left behind, if the user wants it."""
        for found in find_recoveries():
            yes = QMessageBox.StandardButton.Yes
            if found.damaged:
                # Kept where it was moved, whatever the answer: it is the user's data.
                text = self.tr("TorchRig did not close cleanly, and the copy of the unsaved "
                               "build could not be read:\n{0}\n\nIt was kept as {1}.") \
                    .format(found.problem, found.moved_to)
                if found.build is None:
                    QMessageBox.warning(self, self.tr("Recover unsaved build"), text)
                    continue
                count = len(found.build.line_items)
                text += "\n\n" + (self.tr("Open what could be read (1 line)?") if count == 1
                                  else self.tr("Open what could be read ({0} lines)?")
                                  .format(count))
                if QMessageBox.question(self, self.tr("Recover unsaved build"), text,
                                        yes | QMessageBox.StandardButton.No) != yes:
                    continue
            else:
                answer = QMessageBox.question(
                    self, self.tr("Recover unsaved build"),
                    self.tr("TorchRig did not close cleanly. Recover the unsaved build “{0}”?")
                    .format(found.build.name if found.build else ""),
                    yes | QMessageBox.StandardButton.No)
                if answer != yes:
                    clear_recovery(found.path)  # the user declined it
                    continue
            assert found.build is not None
            self.path = found.original
            self._load_document(found.build, saved=False)
            self.autosave_now()  # now this page's own copy; only then drop the old one
            if not found.damaged:
                clear_recovery(found.path)
            return True
        return False

    # --- display ------------------------------------------------------------------------------

    def _refresh_all(self) -> None:
        self._updating = True
        try:
            self._show_header()
            self.priced = price_build(self.build, self.catalog)
            self.findings = check_build(self.build, self.catalog)
            self._show_lines()
            self._show_totals()
            self.picker.set_build(self.build)
            self.findings_view.set_findings(
                self.findings, empty=self.tr("No compatibility problems found."))
        finally:
            self._updating = False
        self._refresh_title()

    def _refresh_title(self) -> None:
        name = self.path.name if self.path else self.tr("not saved")
        self.title.setText(f"{self.build.name} — {name}{' *' if self.dirty else ''}")

    def _show_header(self) -> None:
        b = self.build
        self._show_header_error(None, "")
        self.name_edit.setText(b.name)
        self.customer_edit.setText(b.customer)
        self.project_edit.setText(b.project)
        self.nodes_spin.setValue(b.nodes)
        self.currency_box.setCurrentText(b.currency)
        self.rate_spin.setValue(float(b.exchange_rate.cny_per_usd) if b.exchange_rate else 0.0)
        self.rate_date.setText(b.exchange_rate.date if b.exchange_rate else "")
        self.tax_spin.setValue(float(b.tax_rate * 100))
        if b.discount:
            self.discount_spin.setValue(float(b.discount.value))
            self.discount_kind.setCurrentIndex(0 if b.discount.kind == "percent" else 1)
        else:
            self.discount_spin.setValue(0)

    def _show_lines(self) -> None:
        assert self.priced is not None
        cur = self.build.currency
        self.lines.setRowCount(len(self.build.line_items))
        rows = zip(self.build.line_items, self.priced.lines, strict=True)
        for r, (item, priced) in enumerate(rows):
            part = self.catalog.get(item.part_id) if item.part_id else None
            qty = f"{item.quantity}"
            total = self.tr(LINE_STATUS.get(priced.status, priced.status))
            if priced.total is not None:
                total = _money(priced.total, cur)
                if priced.multiplier > 1:
                    total += " " + self.tr("(x{0} nodes)").format(priced.multiplier)
            cells = [
                label(CATEGORIES, priced.category, self.lang),
                priced.label,
                part.key_spec(self.lang) if part else self.tr("custom line"),
                qty,
                "" if priced.unit_price is None else f"{priced.unit_price:,.2f}",
                total,
                self._origin_text(priced),
            ]
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                editable = c in (QTY_COL, PRICE_COL)
                flags = cell.flags()
                cell.setFlags(flags | Qt.ItemFlag.ItemIsEditable if editable
                              else flags & ~Qt.ItemFlag.ItemIsEditable)
                if c in (QTY_COL, PRICE_COL, TOTAL_COL):
                    cell.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if c in ELIDED_COLS:
                    cell.setToolTip(text)
                if c == len(cells) - 1:
                    origin = priced.origin.get(self.lang)
                    cell.setToolTip(origin)
                    if priced.alerts:
                        # Old price or part out of production (catalog.alerts): marked here
                        # and explained in the tooltip, as in the picker and on the quote.
                        cell.setText(f"⚠ {text}")
                        cell.setForeground(qcolour("warn"))
                        cell.setToolTip("\n".join([origin] + [
                            alert.text.get(self.lang) for alert in priced.alerts]))
                if priced.status != "ok" and c in (PRICE_COL, TOTAL_COL):
                    cell.setForeground(qcolour("error"))
                    cell.setToolTip(self.tr("Enter a unit price for this line"))
                self.lines.setItem(r, c, cell)

    def _origin_text(self, priced: object) -> str:
        """Short origin for the table; the full origin (source URL) is the cell's tooltip."""
        kind = getattr(priced, "origin_kind", "missing")
        if kind == "missing":
            return self.tr("price needed")
        if kind == "override":
            return self.tr("your price")
        return self.tr("catalog: {0}").format(
            self._price_kind(getattr(priced, "price_kind", None) or ""))

    def _price_kind(self, kind: str) -> str:
        return self.tr(PRICE_KINDS[kind]) if kind in PRICE_KINDS else kind

    def _show_totals(self) -> None:
        p = self.priced
        assert p is not None
        cur = p.currency

        def row(label: str, amount: str, bold: bool = False) -> str:
            label, amount = escape(label), escape(amount)
            if bold:
                label, amount = f"<b>{label}</b>", f"<b>{amount}</b>"
            return f"<tr><td>{label}</td><td align=right>{amount}</td></tr>"

        rows = [row(label(CATEGORIES, cat, self.lang), _money(v, cur))
                for cat, v in p.category_totals.items()]
        rows.append(row(self.tr("Subtotal"), _money(p.subtotal, cur), bold=True))
        if p.discount:
            rows.append(row(self.tr("Discount"), "-" + _money(p.discount, cur)))
        if p.tax_rate:
            rows.append(row(self.tr("Tax ({0}%)").format(f"{p.tax_rate * 100:g}"),
                            _money(p.tax, cur)))
        rows.append(row(self.tr("Total"), _money(p.total, cur), bold=True))
        notes = []
        if p.incomplete:
            missing = len(p.missing_price_lines)
            text = (self.tr("Incomplete: 1 line needs a price or an exchange rate.")
                    if missing == 1 else
                    self.tr("Incomplete: {0} lines need a price or an exchange rate.")
                    .format(missing))
            notes.append(f"<p style='color:{colour('error')}'>{escape(text)}</p>")
        # The prompt for a missing rate: say which field fixes it and mark the field.
        need_rate = sum(1 for line in p.lines if line.status == "exchange rate needed")
        other = "USD" if cur == "CNY" else "CNY"
        if need_rate:
            text = (self.tr("Enter the exchange rate (CNY per USD) and its date above: 1 line "
                            "is priced in {0}.").format(other) if need_rate == 1 else
                    self.tr("Enter the exchange rate (CNY per USD) and its date above: {0} "
                            "lines are priced in {1}.").format(need_rate, other))
            notes.append(f"<p style='color:{colour('error')}'>{escape(text)}</p>")
        self.rate_spin.setStyleSheet(
            f"QDoubleSpinBox {{ border: 1px solid {colour('error')}; }}" if need_rate else "")
        warn = colour("warn")
        notes += [f"<p style='color:{warn}'>{escape(w.get(self.lang))}</p>" for w in p.warnings]
        self.totals.setText(f"<table width=100%>{''.join(rows)}</table>{''.join(notes)}")

    # --- files --------------------------------------------------------------------------------

    def maybe_save(self) -> bool:
        """Ask about unsaved edits; False means the user cancelled (keep the window open)."""
        if not self.dirty:
            return True
        answer = QMessageBox.question(
            self, self.tr("Unsaved build"),
            self.tr("The build “{0}” has unsaved changes. Save them?").format(self.build.name),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self._autosave.stop()
            clear_recovery(self.recovery_file)
            return True
        return False

    def _new_build(self) -> Build:
        """An empty build with the defaults from Settings (currency, exchange rate)."""
        rate = None
        if self.settings.exchange_rate > 0:
            rate = ExchangeRate(Decimal(str(round(self.settings.exchange_rate, 4))),
                                self.settings.exchange_rate_date)
        build = Build(name=self.tr("New build"), currency=self.settings.currency,
                      exchange_rate=rate)
        try:
            return validate_build(build)
        except InputError:
            # A default rate a build file cannot hold (settings from before the Settings
            # dialog required a date): start without it rather than with a file that won't
            # open again.
            return replace(build, exchange_rate=None)

    def new_build(self) -> None:
        if self.maybe_save():
            self.path = None
            self._load_document(self._new_build(), saved=True)

    def snapshot(self) -> dict[str, Any]:
        """The open build with its file and unsaved state, and the picker's filter."""
        return {"build": self.build, "path": self.path, "dirty": self.dirty,
                "picker": self.picker.state()}

    def restore(self, state: dict[str, Any]) -> None:
        self.picker.set_state(state["picker"])
        self.path = state["path"]
        # dirty=True restarts the recovery autosave; dirty=False would also clear a recovery
        # copy, which is right: the saved file is the build. (A language switch rebuilds the
        # page, so the undo history does not survive it.)
        self._load_document(state["build"], saved=not state["dirty"])

    def start_from_tier(self, tier_id: str) -> None:
        if self.maybe_save():
            self.path = None
            self._load_document(build_from_tier(tier_id, self.catalog), saved=False)

    def open_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open build"),
                                              self.settings.build_folder, self._open_filter())
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        """Open a build file or the build attached to a TorchRig PDF sheet."""
        try:
            build = load_build_or_sheet(path, self.catalog)
        except InputError as exc:
            self._warn(str(exc), title=self.tr("Cannot open build"))
            return False
        self.path = path
        self.settings.add_recent(str(path))
        self.settings.build_folder = str(path.parent)
        self._fill_recent()
        if path.suffix.lower() == ".pdf":
            # Save must not write JSON over the PDF: the build was read from it, not into it.
            self.path = None
            self._load_document(build, saved=False)
        else:
            self._load_document(build, saved=True)
        self.status.emit(self.tr("Opened {0}").format(path))
        return True

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        start = str(self.settings.builds_folder() / suggested_file_name(self.build.name, ".json"))
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save build"), start,
                                              self._filter())
        if not path:
            return False
        if not path.endswith(".json"):
            path += ".json"
        return self._write(Path(path))

    def _filter(self) -> str:
        return self.tr("TorchRig build (*.json)")

    def _open_filter(self) -> str:
        return ";;".join((self.tr("TorchRig build or PDF sheet (*.json *.pdf)"), self._filter(),
                          self.tr("TorchRig PDF sheet (*.pdf)")))

    def _write(self, path: Path) -> bool:
        try:
            save_build(self.build, path)
        except (InputError, OSError) as exc:
            self._warn(str(exc), title=self.tr("Cannot save build"))
            return False
        self.path = path
        self.dirty = False
        self._clean_state_is_saved = True
        self.undo_stack.setClean()
        self._autosave.stop()
        clear_recovery(self.recovery_file)
        self.settings.add_recent(str(path))
        self._fill_recent()
        self._refresh_all()
        self.status.emit(self.tr("Saved {0}").format(path))
        return True

    def import_prices(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Import price list"), "",
                                              self.tr("CSV price list (*.csv)"))
        if not path:
            return
        try:
            prices = load_price_list(path, self.catalog)
        except InputError as exc:
            self._warn(str(exc), title=self.tr("Cannot import price list"))
            return
        build, applied = prices.apply(self.build)
        self._edit(build, self.tr("Import prices"))
        message = (self.tr("Applied 1 price from {1}.") if applied == 1 else
                   self.tr("Applied {0} prices from {1}.")).format(applied, Path(path).name)
        if prices.warnings:
            message += "\n\n" + "\n".join(prices.warnings[:20])
        QMessageBox.information(self, self.tr("Price list"), message)

    def compare_dialog(self) -> None:
        from torchrig.gui.compare_dialog import CompareDialog

        CompareDialog(self.catalog, self.build, self.settings, self.lang, self).exec()

    def _fill_recent(self) -> None:
        self.recent_box.clear()
        self.recent_box.addItem(self.tr("Recent files…"), None)
        for path in self.settings.recent_files:
            self.recent_box.addItem(Path(path).name, path)
            self.recent_box.setItemData(self.recent_box.count() - 1, path,
                                        Qt.ItemDataRole.ToolTipRole)

    def _open_recent(self, index: int) -> None:
        path = self.recent_box.itemData(index)
        self.recent_box.setCurrentIndex(0)
        if path and self.maybe_save():
            self.open_path(Path(path))

    def _warn(self, text: str, title: str | None = None) -> None:
        QMessageBox.warning(self, title or self.tr("Build"), text)
