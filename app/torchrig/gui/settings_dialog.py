"""Settings dialog: language, theme, quote defaults and default folders.

OK and Apply write the settings file and emit ``applied``; the main window then switches
language or theme at once (rebuilding its pages with their state) and hands the new defaults
to the pages. Nothing needs a restart.
"""

from __future__ import annotations

from typing import Any

from torchrig.builds.wall_checks import REGIONS
from torchrig.catalog.exchange_rates import ReferenceRate
from torchrig.gui.qt import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.settings import Settings, exchange_rate_error
from torchrig.gui.style import colour


class SettingsDialog(QDialog):
    """Signals:
        applied(list): the settings were written; the names of the options that changed.
    Attributes:
        settings: the Settings edited.
        error: the message shown for the last refused input ("" when none).
    """

    applied = Signal(list)

    def __init__(self, settings: Settings, parent: QWidget | None = None,
                 reference: ReferenceRate | None = None, lang: str = "en") -> None:
        super().__init__(parent)
        self.settings = settings
        self.reference = reference
        self.lang = lang
        self.error = ""
        self._body: QWidget | None = None
        self._layout = QVBoxLayout(self)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel
                                        | QDialogButtonBox.StandardButton.Apply)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        self._layout.addWidget(self.buttons)
        self._build(self._stored_values())

    # --- layout -------------------------------------------------------------------------------

    def _build(self, values: dict[str, Any]) -> None:
        """(Re)create the fields in the current UI language, filled with ``values``."""
        self.setWindowTitle(self.tr("Settings"))
        if self._body is not None:
            self._layout.removeWidget(self._body)
            self._body.deleteLater()
        body = QWidget()
        outer = QVBoxLayout(body)
        outer.setContentsMargins(0, 0, 0, 0)

        look = QGroupBox(self.tr("Appearance"))
        form = QFormLayout(look)
        self.language_box = QComboBox()
        self.language_box.addItem(self.tr("Follow the system"), "system")
        self.language_box.addItem("English", "en")
        self.language_box.addItem("中文（简体）", "zh")
        self.language_box.setToolTip(self.tr("Language of the window. Follow the system: "
                                             "Chinese when the desktop's locale is Chinese"))
        self.theme_box = QComboBox()
        self.theme_box.addItem(self.tr("Follow the system"), "system")
        self.theme_box.addItem(self.tr("Light"), "light")
        self.theme_box.addItem(self.tr("Dark"), "dark")
        self.theme_box.setToolTip(self.tr("Light or dark colours; the system setting is used "
                                          "where the desktop reports one"))
        form.addRow(self.tr("Language"), self.language_box)
        form.addRow(self.tr("Theme"), self.theme_box)
        outer.addWidget(look)

        quote = QGroupBox(self.tr("Quotes"))
        form = QFormLayout(quote)
        self.currency_box = QComboBox()
        self.currency_box.addItems(["CNY", "USD"])
        self.currency_box.setToolTip(self.tr("Currency of new builds (an open build keeps "
                                             "its own)"))
        self.rate_spin = QDoubleSpinBox()
        self.rate_spin.setRange(0, 1000)
        self.rate_spin.setDecimals(4)
        self.rate_spin.setSpecialValueText(self.tr("not set"))
        self.rate_spin.setToolTip(self.tr("CNY per USD for new builds, as you set it: TorchRig "
                                          "never fetches rates online"))
        self.rate_date = QLineEdit()
        self.rate_date.setPlaceholderText("YYYY-MM-DD")
        self.rate_date.setToolTip(self.tr("The day the rate was taken, printed next to it"))
        # The shipped reference stands in while the shop sets no rate of its own.
        self.reference_label = QLabel(
            self.tr("Not set: builds without a rate use the shipped reference, {0} CNY per USD "
                    "({1}).").format(self.reference.rate, self.reference.origin.get(self.lang))
            if self.reference is not None else
            self.tr("Not set and no reference rate shipped: enter a rate in each build."))
        self.reference_label.setWordWrap(True)
        self.reference_label.setStyleSheet(f"color: {colour('muted')};")
        self.region_box = QComboBox()
        for code, region in REGIONS.items():
            self.region_box.addItem(region.name.get(self.lang), code)
        self.region_box.setToolTip(self.tr(
            "Where builds are plugged in: the wall-circuit check compares a build's draw with "
            "this region's outlets (mainland China 220 V 10/16 A, US 120 V 15 A, EU 230 V 16 A)"))
        self.shop_edit = QLineEdit()
        self.shop_edit.setToolTip(self.tr("Shop or lab name printed as the sender of quotes"))
        self.contact_edit = QLineEdit()
        self.contact_edit.setToolTip(self.tr("Phone, e-mail or address printed under the "
                                             "name"))
        self.logo_edit = QLineEdit()
        self.logo_edit.setToolTip(self.tr("A PNG or JPEG drawn at the top right of quotes"))
        form.addRow(self.tr("Currency for new builds"), self.currency_box)
        form.addRow(self.tr("Exchange rate (CNY per USD)"), self.rate_spin)
        form.addRow(self.tr("Rate date"), self.rate_date)
        form.addRow("", self.reference_label)
        form.addRow(self.tr("Region"), self.region_box)
        form.addRow(self.tr("Shop / lab name"), self.shop_edit)
        form.addRow(self.tr("Contact"), self.contact_edit)
        form.addRow(self.tr("Logo"), self._with_browse(self.logo_edit, self._pick_logo))
        outer.addWidget(quote)

        folders = QGroupBox(self.tr("Folders"))
        form = QFormLayout(folders)
        self.build_folder_edit = QLineEdit()
        self.build_folder_edit.setToolTip(self.tr("Where Open and Save start for build files"))
        self.dataset_folder_edit = QLineEdit()
        self.dataset_folder_edit.setToolTip(self.tr("Folder on the dataset's disk that the "
                                                    "storage benchmark tests"))
        form.addRow(self.tr("Build files"), self._with_browse(
            self.build_folder_edit, lambda: self._pick_folder(self.build_folder_edit)))
        form.addRow(self.tr("Dataset folder"), self._with_browse(
            self.dataset_folder_edit, lambda: self._pick_folder(self.dataset_folder_edit)))
        outer.addWidget(folders)

        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {colour('error')};")
        outer.addWidget(self.message)
        self._body = body
        self._layout.insertWidget(0, body)
        self._set_values(values)

    def _with_browse(self, edit: QLineEdit, slot: Any) -> QWidget:
        host = QWidget()
        row = QHBoxLayout(host)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(edit, 1)
        button = QPushButton(self.tr("Browse…"))
        button.clicked.connect(lambda _checked=False: slot())
        row.addWidget(button)
        return host

    def _pick_logo(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Logo"), self.logo_edit.text(),
                                              self.tr("Images (*.png *.jpg *.jpeg)"))
        if path:
            self.logo_edit.setText(path)

    def _pick_folder(self, edit: QLineEdit) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose a folder"), edit.text())
        if folder:
            edit.setText(folder)

    # --- values -------------------------------------------------------------------------------

    def _stored_values(self) -> dict[str, Any]:
        s = self.settings
        return {"language": s.language, "theme": s.theme, "currency": s.currency,
                "exchange_rate": s.exchange_rate, "exchange_rate_date": s.exchange_rate_date,
                "region": s.region, "shop_name": s.shop_name, "shop_contact": s.shop_contact,
                "logo_path": s.logo_path, "build_folder": s.build_folder,
                "dataset_folder": s.dataset_folder}

    def _set_values(self, v: dict[str, Any]) -> None:
        self.language_box.setCurrentIndex(max(0, self.language_box.findData(v["language"])))
        self.theme_box.setCurrentIndex(max(0, self.theme_box.findData(v["theme"])))
        self.currency_box.setCurrentText(v["currency"])
        self.rate_spin.setValue(v["exchange_rate"])
        self.rate_date.setText(v["exchange_rate_date"])
        self.region_box.setCurrentIndex(max(0, self.region_box.findData(v["region"])))
        self.shop_edit.setText(v["shop_name"])
        self.contact_edit.setText(v["shop_contact"])
        self.logo_edit.setText(v["logo_path"])
        self.build_folder_edit.setText(v["build_folder"])
        self.dataset_folder_edit.setText(v["dataset_folder"])

    def values(self) -> dict[str, Any]:
        """The fields as settings values (not yet checked)."""
        return {"language": self.language_box.currentData(),
                "theme": self.theme_box.currentData(),
                "currency": self.currency_box.currentText(),
                "exchange_rate": round(self.rate_spin.value(), 4),
                "exchange_rate_date": self.rate_date.text().strip(),
                "region": self.region_box.currentData(),
                "shop_name": self.shop_edit.text().strip(),
                "shop_contact": self.contact_edit.text().strip(),
                "logo_path": self.logo_edit.text().strip(),
                "build_folder": self.build_folder_edit.text().strip(),
                "dataset_folder": self.dataset_folder_edit.text().strip()}

    def _check(self, v: dict[str, Any]) -> str:
        """A message for the first unacceptable field, or ""."""
        problem = exchange_rate_error(v["exchange_rate"], v["exchange_rate_date"],
                                      self.tr("Exchange rate"))
        if problem:
            return problem
        if not Settings.options()["exchange_rate_date"].valid(v["exchange_rate_date"]):
            return self.tr("Rate date: '{0}' is not a date like 2026-01-31.").format(
                v["exchange_rate_date"])
        for key, name in (("shop_name", self.tr("Shop / lab name")),
                          ("shop_contact", self.tr("Contact")), ("logo_path", self.tr("Logo")),
                          ("build_folder", self.tr("Build files")),
                          ("dataset_folder", self.tr("Dataset folder"))):
            if not Settings.options()[key].valid(v[key]):
                return self.tr("{0}: the text is too long.").format(name)
        return ""

    def apply(self) -> bool:
        """Check, store and announce the settings; False (with a message) when refused."""
        values = self.values()
        self.error = self._check(values)
        self.message.setText(self.error)
        if self.error:
            return False
        language_before = self.settings.language
        changed = [key for key, value in values.items() if getattr(self.settings, key) != value]
        for key in changed:
            setattr(self.settings, key, values[key])
        if not self.settings.sync():
            self.error = self.tr("The settings could not be saved: {0}").format(
                self.settings.save_error)
            self.message.setText(self.error)
        self.applied.emit(changed)
        if self.settings.language != language_before:
            # The window switched language: so does this dialog, including the texts it takes
            # from the core in self.lang (region names, the reference rate's origin).
            from torchrig.gui.i18n import resolve_language

            self.lang = resolve_language(self.settings.language)
            self._build(values)
        return not self.error

    def accept(self) -> None:
        if self.apply():
            super().accept()
