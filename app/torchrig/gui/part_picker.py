"""The catalog picker beside the build: search, filter and sort parts, see their prices in the
build's currency, and add one to the build.

The searching, filtering and sorting are :mod:`torchrig.catalog.search`; which parts fit the
build and what they cost in its currency are :mod:`torchrig.builds.part_fit`. This widget only
lays them out.
"""

from __future__ import annotations

import datetime
import math
from decimal import Decimal
from typing import Any

from torchrig.builds.build import Build, ExchangeRate
from torchrig.builds.part_fit import compatible_parts, price_in
from torchrig.catalog.alerts import price_alerts
from torchrig.catalog.exchange_rates import catalog_reference
from torchrig.catalog.model import Catalog, Part
from torchrig.catalog.money_text import parse_amount_text, ungroup_number
from torchrig.catalog.search import (
    COLUMNS,
    PRICE_KEY,
    PRICE_PER_TFLOP_KEY,
    PartQuery,
    SpecColumn,
    choice_label,
    choice_values,
    find_parts,
)
from torchrig.catalog.specs import CATEGORIES
from torchrig.errors import InputError
from torchrig.gui.qt import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.settings import Settings
from torchrig.gui.style import colour
from torchrig.labels import CATEGORIES as CATEGORY_NAMES
from torchrig.labels import CHOICES, label

NAME_WIDTH = 190
"""Pixels for the part-name column."""


def _bound(text: str, is_price: bool) -> float | None:
    """A bound typed into a range box: blank means none. A price is read as every price is
    (catalog/money_text.py); another figure is any number, with the same thousands commas.
    Raises InputError or ValueError for text that is neither."""
    if not text.strip():
        return None
    if is_price:
        return float(parse_amount_text(text, "price"))
    plain = ungroup_number(text.strip())
    if plain is None:
        raise ValueError(text)
    value = float(plain)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


class PartPicker(QGroupBox):
    """Signals:
        add_requested(str): the id of the part to add (Add button or a double-click).
        status(str): a one-line message for the status bar.
    Attributes:
        category_box, search_edit, compatible_box, choice_box, range_box, min_edit, max_edit,
        sort_box, descending_box, parts_table, add_button, rate_note: the controls.
    """

    add_requested = Signal(str)
    status = Signal(str)

    def __init__(self, catalog: Catalog, settings: Settings, lang: str = "en",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Catalog"))
        self.catalog = catalog
        self.settings = settings
        self.lang = lang
        self.build = Build(name="")
        self._parts: list[Part] = []
        self._compatible: set[str] | None = None
        self.replacing: int | None = None
        self.reference = catalog_reference(catalog)
        """A line index: the list shows parts that could take that line's place."""

        self.category_box = QComboBox()
        for category in CATEGORIES:
            self.category_box.addItem(label(CATEGORY_NAMES, category, self.lang), category)
        self.category_box.setToolTip(self.tr("Which kind of part the list shows"))
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("Search parts…"))
        self.search_edit.setToolTip(self.tr(
            "Words to match in vendor, name and key spec; all words must match. Case, spaces "
            "and GB/GiB do not matter: “24GB” finds 24 GiB cards."))
        self.search_edit.setClearButtonEnabled(True)
        self.compatible_box = QCheckBox(self.tr("Compatible with this build"))
        self.compatible_box.setToolTip(self.tr(
            "Hide parts that would add a blocking problem to the build (wrong socket, too long "
            "for the case…); a board, CPU, case, cooler or power supply replaces the build's"))
        self.compatible_box.setChecked(True)
        self.choice_box = QComboBox()
        self.range_box = QComboBox()
        self.range_box.setToolTip(self.tr("Which figure the minimum and maximum apply to"))
        self.min_edit = QLineEdit()
        self.min_edit.setPlaceholderText(self.tr("min"))
        self.max_edit = QLineEdit()
        self.max_edit.setPlaceholderText(self.tr("max"))
        self.sort_box = QComboBox()
        self.sort_box.setToolTip(self.tr("Order of the list; parts without the figure go last"))
        self.descending_box = QCheckBox(self.tr("Highest first"))
        self.parts_table = QTableWidget(0, 2)
        self.parts_table.verticalHeader().setVisible(False)
        self.parts_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.parts_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.parts_table.setWordWrap(True)
        self.rate_note = QLabel()
        self.rate_note.setWordWrap(True)
        self.add_button = QPushButton(self.tr("Add to build"))
        self.add_button.setToolTip(self.tr("Add the selected part (or double-click it); adding "
                                           "it again raises the quantity"))

        filters = QGridLayout()
        filters.addWidget(self.choice_box, 0, 0)
        filters.addWidget(self.compatible_box, 0, 1, 1, 2)
        filters.addWidget(self.range_box, 1, 0)
        filters.addWidget(self.min_edit, 1, 1)
        filters.addWidget(self.max_edit, 1, 2)
        filters.addWidget(self.sort_box, 2, 0)
        filters.addWidget(self.descending_box, 2, 1, 1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.category_box)
        layout.addWidget(self.search_edit)
        layout.addLayout(filters)
        layout.addWidget(self.parts_table, 1)
        layout.addWidget(self.rate_note)
        layout.addWidget(self.add_button)

        self.category_box.currentIndexChanged.connect(lambda _i: self._category_changed())
        for box in (self.choice_box, self.range_box, self.sort_box):
            box.currentIndexChanged.connect(lambda _i: self.refresh())
        for edit in (self.search_edit, self.min_edit, self.max_edit):
            edit.textChanged.connect(lambda _t: self.refresh())
        for check in (self.compatible_box, self.descending_box):
            check.toggled.connect(lambda _on: self.refresh())
        self.add_button.clicked.connect(lambda _checked: self.add_selected())
        self.parts_table.doubleClicked.connect(lambda _index: self.add_selected())
        self._category_changed()

    # --- state ----------------------------------------------------------------------------

    @property
    def category(self) -> str:
        return str(self.category_box.currentData())

    def set_build(self, build: Build) -> None:
        """Show prices in ``build``'s currency and filter by what fits it."""
        self.build = build
        self._compatible = None
        price_text = self.tr("Price ({0})").format(build.currency)
        for box in (self.range_box, self.sort_box):
            index = box.findData(PRICE_KEY)
            if index >= 0:
                box.setItemText(index, price_text)
        self.refresh()

    def replace_line(self, build: Build, index: int) -> None:
        """Show only parts of line ``index``'s category, filtered (when "Compatible with this
        build" is on) by whether they could take that line's place in ``build``."""
        part_id = build.line_items[index].part_id
        assert part_id is not None
        self.build, self.replacing = build, index
        self.category_box.blockSignals(True)  # one refresh, below, with the build in place
        self.category_box.setCurrentIndex(
            self.category_box.findData(self.catalog.get(part_id).category))
        self.category_box.blockSignals(False)
        self.category_box.setEnabled(False)
        self._category_changed()

    def state(self) -> dict[str, Any]:
        return {"category": self.category, "search": self.search_edit.text()}

    def set_state(self, state: dict[str, Any]) -> None:
        self.category_box.setCurrentIndex(max(0, self.category_box.findData(state["category"])))
        self.search_edit.setText(state["search"])

    def rate(self) -> tuple[ExchangeRate | None, bool]:
        """The rate for showing prices: the build's, else the Settings default (the shop's own
        rate, or the shipped reference: Settings.default_rate); the flag says it is the
        default."""
        if self.build.exchange_rate is not None:
            return self.build.exchange_rate, False
        default = self.settings.default_rate(self.reference)
        if default is not None:
            return ExchangeRate(default.cny_per_usd, default.date), True
        return None, False

    def _shop_rate_set(self) -> bool:
        """Whether the Settings hold the shop's own default rate (it wins over the reference:
        Settings.default_rate)."""
        return self.settings.exchange_rate > 0 and bool(self.settings.exchange_rate_date)

    def _price(self, part: Part) -> Decimal | None:
        return price_in(part, self.build.currency, self.rate()[0])[0]

    def _columns(self) -> tuple[SpecColumn, ...]:
        return COLUMNS.get(self.category, ())

    def _category_changed(self) -> None:
        category = self.category
        self._compatible = None
        for box in (self.choice_box, self.range_box, self.sort_box):
            box.blockSignals(True)
            box.clear()
        choice = choice_label(category)
        self.choice_box.setVisible(choice is not None)
        if choice is not None:
            self.choice_box.addItem(self.tr("Any {0}").format(choice.get(self.lang).lower()),
                                    None)
            names = CHOICES.get(category, {})
            for value in choice_values(self.catalog.parts.values(), category):
                self.choice_box.addItem(label(names, value, self.lang), value)
        self.sort_box.addItem(self.tr("Catalog order"), None)
        for col in self._columns():
            text = col.label.get(self.lang) + (f" ({col.unit})" if col.unit else "")
            self.range_box.addItem(text, col.key)
            self.sort_box.addItem(text, col.key)
        price_text = self.tr("Price ({0})").format(self.build.currency)
        self.range_box.addItem(price_text, PRICE_KEY)
        self.sort_box.addItem(price_text, PRICE_KEY)
        if category == "gpu":
            self.sort_box.addItem(self.tr("Price per FP16 tensor TFLOP"), PRICE_PER_TFLOP_KEY)
        for box in (self.choice_box, self.range_box, self.sort_box):
            box.blockSignals(False)
        self.refresh()

    def query(self) -> PartQuery:
        range_key = self.range_box.currentData()
        return PartQuery(
            category=self.category, text=self.search_edit.text(),
            choice=self.choice_box.currentData(), range_key=range_key,
            minimum=self._bound(self.min_edit, range_key == PRICE_KEY),
            maximum=self._bound(self.max_edit, range_key == PRICE_KEY),
            sort_key=self.sort_box.currentData(), descending=self.descending_box.isChecked())

    def _bound(self, edit: QLineEdit, is_price: bool) -> float | None:
        """The bound ``edit`` holds; one it cannot be read as is marked, said in the status
        bar and left out of the filter (never read as some other number)."""
        try:
            value = _bound(edit.text(), is_price)
        except (InputError, ValueError):
            edit.setStyleSheet(f"border: 1px solid {colour('error')};")
            self.status.emit(self.tr("'{0}' is not a number the filter can use: write 1299.00 "
                                     "or 1,299.00 (a point before the decimals; commas only "
                                     "between groups of three digits)").format(edit.text()))
            return None
        edit.setStyleSheet("")
        return value

    def visible_parts(self) -> list[Part]:
        parts = find_parts(self.catalog.parts.values(), self.query(), self._price, self.lang)
        if self.compatible_box.isChecked():
            if self._compatible is None:
                self._compatible = compatible_parts(self.catalog.by_category(self.category),
                                                    self.build, self.catalog, self.replacing)
            parts = [p for p in parts if p.id in self._compatible]
        return parts

    # --- display --------------------------------------------------------------------------

    def refresh(self) -> None:
        self._parts = self.visible_parts()
        columns = self._columns()
        table = self.parts_table
        table.clear()
        table.setColumnCount(len(columns) + 2)
        # Price next to the name: it is what a quote needs first, and stays in view.
        table.setHorizontalHeaderLabels(
            [self.tr("Part"), self.tr("Price ({0})").format(self.build.currency)]
            + [c.label.get(self.lang) + (f"\n{c.unit}" if c.unit else "") for c in columns])
        head = table.horizontalHeader()
        # The name keeps a readable width; the figures scroll sideways if the pane is narrow.
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        table.setColumnWidth(0, NAME_WIDTH)
        for i in range(1, len(columns) + 2):
            head.setSectionResizeMode(i, QHeaderView.ResizeMode.ResizeToContents)
        table.setRowCount(len(self._parts))
        missing_rate = False
        for r, part in enumerate(self._parts):
            name = QTableWidgetItem(f"{part.vendor} {part.name}")
            name.setData(Qt.ItemDataRole.UserRole, part.id)
            name.setToolTip(f"{part.id}\n{part.key_spec(self.lang)}")
            table.setItem(r, 0, name)
            for c, col in enumerate(columns, start=2):
                item = QTableWidgetItem(col.text(part))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                table.setItem(r, c, item)
            price_item, needs_rate = self._price_item(part)
            missing_rate = missing_rate or needs_rate
            table.setItem(r, 1, price_item)
        table.resizeRowsToContents()
        self._show_rate_note(missing_rate)

    def _price_item(self, part: Part) -> tuple[QTableWidgetItem, bool]:
        rate, from_settings = self.rate()
        amount, price = price_in(part, self.build.currency, rate)
        alerts = price_alerts(part, price, datetime.date.today())
        mark = "⚠ " if alerts else ""
        if price is None:
            item = QTableWidgetItem(mark + self.tr("no price: enter one"))
            needs_rate = False
        elif amount is None:
            item = QTableWidgetItem(f"{mark}{price.currency} {price.amount:,.0f}\n"
                                    + self.tr("exchange rate needed"))
            needs_rate = True
        else:
            converted = price.currency != self.build.currency
            item = QTableWidgetItem(f"{mark}{'≈ ' if converted else ''}{self.build.currency} "
                                    f"{amount:,.0f}\n{price.date}")
            needs_rate = False
        tips = [a.text.get(self.lang) for a in alerts]
        if price is not None:
            tips.append(self.catalog.source_url(price.source))
            if price.currency != self.build.currency and rate is not None:
                tips.append(self.tr("{0} {1} at {2} CNY per USD ({3}{4})").format(
                    price.currency, f"{price.amount:,.0f}", rate.cny_per_usd, rate.date,
                    self.tr(", default from Settings") if from_settings else ""))
        item.setToolTip("\n".join(tips))
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item, needs_rate

    def _show_rate_note(self, missing_rate: bool) -> None:
        rate, from_settings = self.rate()
        if missing_rate:
            text = self.tr("Some prices are in another currency: set an exchange rate with its "
                           "date in the build, or a default in Settings.")
        elif from_settings and rate is not None and self._shop_rate_set():
            text = self.tr("Converted at the Settings default: {0} CNY per USD ({1}).").format(
                rate.cny_per_usd, rate.date)
        elif from_settings and rate is not None and self.reference is not None:
            # No rate of the shop's own: the shipped reference, named as what it is.
            text = self.tr("Converted at the shipped reference rate ({2}): {0} CNY per USD "
                           "({1}).").format(rate.cny_per_usd, rate.date,
                                            self.reference.kind_name(self.lang))
        else:
            text = ""
        self.rate_note.setText(text)
        self.rate_note.setVisible(bool(text))

    def add_selected(self) -> None:
        row = self.parts_table.currentRow()
        if row < 0:
            self.status.emit(self.tr("Select a part in the catalog list first."))
            return
        item = self.parts_table.item(row, 0)
        if item is not None:
            self.add_requested.emit(item.data(Qt.ItemDataRole.UserRole))
