"""Parts of the Build page: the quote header - the fields of a build that are not its lines
(name, customer, project, nodes, currency, exchange rate and its date, tax, discount), read as
:class:`~torchrig.builds.build_editor.HeaderValues` for the editor to check and apply - and the
dialog that asks for a custom line."""

from __future__ import annotations

from collections.abc import Callable

from torchrig.builds.build import CUSTOM_CATEGORIES, Build
from torchrig.builds.build_editor import HeaderValues
from torchrig.gui.qt import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)
from torchrig.labels import CATEGORIES, label


class QuoteHeader(QGroupBox):
    """The header fields in a "Quote" group; ``fields()`` names them as a HeaderError does."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Quote"))
        form = QHBoxLayout(self)
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

    def connect_edits(self, slot: Callable[[], None]) -> None:
        """Call ``slot`` when the user is done with a field: a text field's editing finished,
        a number or a choice changed."""
        for widget in (self.name_edit, self.customer_edit, self.project_edit, self.rate_date):
            widget.editingFinished.connect(slot)
        for spin in (self.nodes_spin, self.rate_spin, self.tax_spin, self.discount_spin):
            spin.valueChanged.connect(slot)
        self.currency_box.currentIndexChanged.connect(slot)
        self.discount_kind.currentIndexChanged.connect(slot)

    def fields(self) -> dict[str, QWidget]:
        """The fields by the names a HeaderError gives (builds.build_editor.HEADER_FIELDS)."""
        return {"name": self.name_edit, "customer": self.customer_edit,
                "project": self.project_edit, "nodes": self.nodes_spin,
                "currency": self.currency_box, "rate": self.rate_spin,
                "rate_date": self.rate_date, "tax": self.tax_spin,
                "discount": self.discount_spin}

    def values(self) -> HeaderValues:
        return HeaderValues(
            name=self.name_edit.text(), customer=self.customer_edit.text(),
            project=self.project_edit.text(), nodes=self.nodes_spin.value(),
            currency=self.currency_box.currentText(), rate=self.rate_spin.value(),
            rate_date=self.rate_date.text(), tax_percent=self.tax_spin.value(),
            discount=self.discount_spin.value(), discount_kind=self.discount_kind.currentData())

    def display(self, b: Build) -> None:
        """Show the header of build ``b``."""
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
