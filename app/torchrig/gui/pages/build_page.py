"""Build: pick parts, edit prices, see totals and compatibility findings live, save/open.

The page is widgets bound to a :class:`~torchrig.builds.build_editor.BuildEditor`, which holds
the build, its file and unsaved state, makes every edit (an edited copy of the build, checked
by the build loader) and re-prices and re-checks after each - fast, pure functions of the build
and the catalog. Because an edit is "this build instead of that one", undo/redo keeps the two
builds of each edit on a QUndoStack and nothing else.
"""

from __future__ import annotations

from decimal import Decimal
from html import escape
from pathlib import Path
from typing import Any

from torchrig.builds.build import Build
from torchrig.builds.build_editor import (
    BuildEditor,
    EditorWords,
    HeaderError,
    NewBuildDefaults,
    new_build,
)
from torchrig.builds.pricing import PricedBuild
from torchrig.builds.recovery import Recovered
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.file_names import suggested_file_name
from torchrig.findings import Finding
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.pages.build_power_line import BuildFacts
from torchrig.gui.pages.build_recovery import offer_recovery
from torchrig.gui.pages.build_replace import ReplacePartDialog
from torchrig.gui.pages.build_widgets import QuoteHeader, _CustomLineDialog
from torchrig.gui.part_picker import PartPicker
from torchrig.gui.qt import (
    QT_TRANSLATE_NOOP,
    QAbstractItemView,
    QAction,
    QApplication,
    QComboBox,
    QDialog,
    QEvent,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QKeySequence,
    QLabel,
    QMenu,
    QMessageBox,
    QObject,
    QPushButton,
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
from torchrig.i18n import one_language
from torchrig.labels import CATEGORIES, label
from torchrig.report.open_build import load_build_or_sheet
from torchrig.units import fmt_percent_number

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
        self._page._header_refused = None  # undo asks for the header as it was: show it
        self._page._set_build(self._before)


class BuildPage(QWidget):
    """Signals:
        build_changed(object): the edited Build after every change (for Targets and Report).
        status(str): a one-line message for the status bar.
    Attributes:
        editor: the BuildEditor the page shows; its build, path (None until saved), dirty
        (unsaved edits), priced, findings and recovery_file are also the page's.
    """

    build_changed = Signal(object)
    status = Signal(str)

    def __init__(self, catalog: Catalog, settings: Settings, lang: str = "en",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.settings = settings
        self.lang = lang
        words = EditorWords(
            new_build=self.tr("New build"), untitled=self.tr("Untitled build"),
            unit_price=self.tr("Unit price"), edited_here=self.tr("edited in TorchRig"),
            bad_quantity=self.tr("Quantity must be a whole number from 1 to 10,000."),
            no_description=self.tr("A custom line needs a description."))
        self.editor = BuildEditor(catalog, new_build(self._defaults(), words.new_build), words)
        self._updating = False
        # A header edit that was refused and is still typed in its field (see _show_header).
        self._header_refused: HeaderError | None = None
        self.undo_stack = QUndoStack(self)
        # Undoing back to the state last saved or opened makes the build clean again; a build
        # started from a tier or recovered after a crash was never saved, so it stays dirty.
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        # Unsaved edits are copied to this page's own recovery file a moment after they stop.
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
        self.apply_settings()

    def apply_settings(self) -> None:
        """Check and price with the Settings' region and default rate (again, when changed)."""
        self.editor.set_context(self.settings.region,
                                self.settings.default_rate(self.picker.reference))
        self._refresh_all()

    # --- the editor's state, as the page's attributes -------------------------------------------

    @property
    def build(self) -> Build:
        return self.editor.build

    @property
    def path(self) -> Path | None:
        return self.editor.path

    @path.setter
    def path(self, path: Path | None) -> None:
        self.editor.path = path

    @property
    def dirty(self) -> bool:
        return self.editor.dirty

    @dirty.setter
    def dirty(self, dirty: bool) -> None:
        self.editor.dirty = dirty

    @property
    def priced(self) -> PricedBuild:
        return self.editor.priced

    @property
    def findings(self) -> list[Finding]:
        return self.editor.findings

    @property
    def recovery_file(self) -> Path:
        return self.editor.recovery_file

    # --- layout -------------------------------------------------------------------------------

    SIDE_BY_SIDE_WIDTH = 1040
    """Below this page width the picker moves under the build. Both sides fit in ~940 px; a
    1280x720 Chinese window leaves the page ~1,070 px (it scrolls): 1,080 was too much."""

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
        self.header = header = QuoteHeader()
        self.name_edit, self.customer_edit = header.name_edit, header.customer_edit
        self.project_edit, self.nodes_spin = header.project_edit, header.nodes_spin
        self.currency_box, self.rate_spin = header.currency_box, header.rate_spin
        self.rate_date, self.tax_spin = header.rate_date, header.tax_spin
        self.discount_spin, self.discount_kind = header.discount_spin, header.discount_kind
        layout.addWidget(header)
        # A header edit the build file could not hold is not applied; why is shown here, in
        # the loader's own words, with the field marked (see _header_edited).
        self.header_error = QLabel()
        self.header_error.setWordWrap(True)
        self.header_error.setStyleSheet(f"color: {colour('error')};")
        self.header_error.hide()
        layout.addWidget(self.header_error)
        header.connect_edits(self._header_edited)

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
        self.replace_button = QPushButton(self.tr("Replace part…"))
        self.replace_button.setToolTip(self.tr("Pick another part for the selected line from "
                                               "the parts that fit the rest of the build"))
        self.replace_button.clicked.connect(self.replace_selected)
        self.replace_action = QAction(self.replace_button.text(), self.lines)
        self.replace_action.triggered.connect(self.replace_selected)
        self.lines.addAction(self.replace_action)  # the table's context menu
        self.lines.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
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
        row.addWidget(self.replace_button)
        row.addWidget(self.custom_button)
        row.addWidget(self.copy_button)
        row.addStretch(1)
        hint = QLabel(self.tr("Edit Qty and Unit price in the table; clear a price to use the "
                              "catalog's."))
        hint.setWordWrap(True)
        hint.setStyleSheet(f"color: {colour('muted')};")
        row.addWidget(hint)
        layout.addLayout(row)
        self.facts = BuildFacts(self.lang)  # power and exchange-rate lines, always in view
        layout.addWidget(self.facts)

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
        self._edit(self.editor.with_part(part_id, quantity), self.tr("Add part"))

    def add_custom_dialog(self) -> None:
        dialog = _CustomLineDialog(self.build.currency, self.lang, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        try:
            build = self.editor.with_custom_line(
                dialog.text.text(), dialog.category.currentData(), dialog.quantity.value(),
                dialog.price.text(), dialog.scope.currentData())
        except InputError as exc:
            self._warn(str(exc))
            return
        self._set_checked(build, self.tr("Add custom line"))

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

    def replace_selected(self) -> None:
        """Replace the selected line's catalog part (a dialog), keeping its quantity."""
        rows = {i.row() for i in self.lines.selectedIndexes()}
        if len(rows) != 1 or self.build.line_items[min(rows)].part_id is None:
            self.status.emit(self.tr("Select one catalog part's line to replace."))
            return
        chosen = ReplacePartDialog.ask(self, self.build, min(rows))
        if chosen is not None:
            self._set_checked(self.editor.with_replacement(min(rows), chosen),
                              self.tr("Replace part"))

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.lines.selectedIndexes()}, reverse=True)
        if not rows:
            return
        self._edit(self.editor.without_lines(rows), self.tr("Remove lines"))

    # --- editing ------------------------------------------------------------------------------

    def _cell_edited(self, item: QTableWidgetItem) -> None:
        if self._updating:
            return
        row, col = item.row(), item.column()
        if col not in (QTY_COL, PRICE_COL):
            return
        try:
            build = self.editor.with_cell(row, "quantity" if col == QTY_COL else "unit_price",
                                          item.text())
        except InputError as exc:
            self._warn(str(exc))
            self._refresh_all()
            return
        self._edit(build, self.tr("Edit quantity") if col == QTY_COL else self.tr("Edit price"))

    def _header_edited(self) -> None:
        if self._updating:
            return
        try:
            build = self.editor.with_header(self.header.values())
        except HeaderError as exc:
            self._header_refused = exc
            self._show_header_error(self.header.fields()[exc.field], str(exc))
            return
        self._header_refused = None
        self._show_header_error(None, "")
        self._edit(build, self.tr("Edit quote details"))

    def _header_saveable(self) -> bool:
        """Save must not write the build without a header value the user typed and was
        refused (it would vanish from the field): say what is wrong and keep it marked."""
        if self._header_refused is None:
            return True
        self._warn(self.tr("The quote details hold a value the build file cannot hold, so "
                           "the build was not saved. Correct the marked field and save "
                           "again:\n{0}").format(self._header_refused),
                   title=self.tr("Cannot save build"))
        return False

    def _show_header_error(self, widget: QWidget | None, text: str) -> None:
        for field in self.header.fields().values():
            field.setStyleSheet(f"border: 1px solid {colour('error')};" if field is widget
                                else "")
        self.header_error.setText(text)
        self.header_error.setVisible(bool(text))

    def _set_checked(self, build: Build, text: str) -> None:
        """Apply an edit of the lines (undoably) if the build file can hold it; else say why
        (the loader's message) and keep the build as it was."""
        try:
            self.editor.check(build)
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
        self.editor.begin_document(saved)  # before clear(): cleanChanged asks about it
        self._header_refused = None  # another document: its own header is shown
        self.undo_stack.clear()
        self._set_build(build, dirty=not saved)

    def _on_clean_changed(self, clean: bool) -> None:
        if clean and self.editor.reached_clean_state():
            self._autosave.stop()
            self._refresh_title()

    def _set_build(self, build: Build, *, dirty: bool = True) -> None:
        self.editor.set_build(build, dirty=dirty)
        self._build_shown()

    def _build_shown(self) -> None:
        """The editor's build changed: show it, time the recovery copy, tell the others."""
        self._refresh_all()
        if self.editor.dirty:
            self._autosave.start()
        else:
            self._autosave.stop()
        self.build_changed.emit(self.editor.build)

    def autosave_now(self) -> None:
        self.editor.autosave()

    def offer_recovery(self) -> bool:
        """At start-up: give back the unsaved build a crash left behind, if the user wants it
        (every damaged copy is announced first: gui/pages/build_recovery.py)."""
        return offer_recovery(self, self.editor, self.take_recovered)

    def take_recovered(self, found: Recovered) -> None:
        """Make a recovered build the document, unsaved."""
        self._load_document(self.editor.take_recovery(found), saved=False)
        self.editor.took_recovery(found)  # now this page's own copy; then the old goes

    # --- display ------------------------------------------------------------------------------

    def _refresh_all(self) -> None:
        self._updating = True
        try:
            self._show_header()
            self._show_lines()
            self._show_totals()
            self.picker.set_build(self.build)
            self.findings_view.set_findings(
                self.findings, empty=self.tr("No compatibility problems found."))
            self.facts.show_build(self.build, self.priced, self.catalog, self.editor.region)
        finally:
            self._updating = False
        self._refresh_title()

    def _refresh_title(self) -> None:
        name = self.path.name if self.path else self.tr("not saved")
        # A tier's "English / Chinese" name shows the window's half (the name field keeps both).
        shown = one_language(self.build.name, self.lang)
        self.title.setText(f"{shown} — {name}{' *' if self.dirty else ''}")

    def _show_header(self) -> None:
        if self._header_refused is not None:
            return  # the refused text stays typed and marked until it is corrected
        self._show_header_error(None, "")
        self.header.display(self.build)

    def _show_lines(self) -> None:
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
            rows.append(row(self.tr("Tax ({0}%)").format(fmt_percent_number(p.tax_rate * 100)),
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
        if not self.dirty and self._header_refused is None:
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
            self.editor.discard()
            return True
        return False

    def _defaults(self) -> NewBuildDefaults:
        """What a new build starts with, from Settings (currency, exchange rate)."""
        return NewBuildDefaults(self.settings.currency, self.settings.exchange_rate,
                                self.settings.exchange_rate_date)

    def new_build(self) -> None:
        if self.maybe_save():
            self.path = None
            self._load_document(self.editor.blank(self._defaults()), saved=True)

    def snapshot(self) -> dict[str, Any]:
        """The open build with its file and unsaved state, and the picker's filter."""
        return {**self.editor.snapshot(), "picker": self.picker.state()}

    def restore(self, state: dict[str, Any]) -> None:
        self.picker.set_state(state["picker"])
        # dirty=True restarts the recovery autosave; dirty=False would also clear a recovery
        # copy, which is right: the saved file is the build. (A language switch rebuilds the
        # page, so the undo history does not survive it.)
        self.undo_stack.clear()
        self.editor.restore(state)
        self._build_shown()

    def start_from_tier(self, tier_id: str) -> None:
        if self.maybe_save():
            self.path = None
            self._load_document(self.editor.from_tier(tier_id), saved=False)

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
        # A PDF sheet is not the build's file: Save must not write JSON over it.
        saved = self.editor.opened(path)
        self.settings.add_recent(str(path))
        self.settings.build_folder = str(path.parent)
        self._fill_recent()
        self._load_document(build, saved=saved)
        self.status.emit(self.tr("Opened {0}").format(path))
        return True

    def save(self) -> bool:
        if not self._header_saveable():
            return False
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        if not self._header_saveable():
            return False
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
            self.editor.save(path)
        except (InputError, OSError) as exc:
            self._warn(str(exc), title=self.tr("Cannot save build"))
            return False
        self.undo_stack.setClean()
        self._autosave.stop()
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
            build, applied, warnings = self.editor.with_price_list(path)
        except InputError as exc:
            self._warn(str(exc), title=self.tr("Cannot import price list"))
            return
        self._edit(build, self.tr("Import prices"))
        message = (self.tr("Applied 1 price from {1}.") if applied == 1 else
                   self.tr("Applied {0} prices from {1}.")).format(applied, Path(path).name)
        if warnings:
            message += "\n\n" + "\n".join(warnings[:20])
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
