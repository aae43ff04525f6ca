"""Targets: this machine (and the current build) beside the seed's three tiers."""

from __future__ import annotations

from html import escape
from typing import Any

from torchrig.builds.capabilities import Capabilities, from_profile
from torchrig.builds.targets import compare
from torchrig.catalog.model import Catalog, Tier
from torchrig.catalog.tiers import tier_contradictions
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.qt import (
    QAbstractItemView,
    QBrush,
    QColor,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.style import status_colour
from torchrig.hardware.model import SystemProfile
from torchrig.labels import CATEGORIES, label


class TargetsPage(QWidget):
    """Signals:
        start_build(str): the user asked to start a build from this tier id.
    """

    start_build = Signal(str)

    def __init__(self, catalog: Catalog, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.lang = lang
        self._machine: Capabilities | None = None
        self._build: Capabilities | None = None

        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(self.tr("<h2>Targets</h2>")))
        bar.addStretch(1)
        bar.addWidget(QLabel(self.tr("Tier:")))
        self.tier_box = QComboBox()
        for tier in catalog.tiers.values():
            self.tier_box.addItem(self.tr("{0} (seed {1})").format(tier.name.get(lang),
                                                                   tier.section), tier.id)
        bar.addWidget(self.tier_box)
        self.tier_box.setToolTip(self.tr(
            "The seed document's three target configurations (sections 2.1-2.3)"))
        self.start_button = QPushButton(self.tr("Start a build from this tier"))
        self.start_button.setToolTip(self.tr(
            "Open the Build page with this tier's parts, ready to price and edit"))
        bar.addWidget(self.start_button)
        layout.addLayout(bar)

        self.summary = QLabel()
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.summary)

        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)

        self.tier_info = QTextBrowser()
        self.contradictions = FindingsView(lang)
        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(self.tier_info)
        lower.addWidget(self.contradictions)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(lower)
        splitter.setSizes([300, 380])
        layout.addWidget(splitter, 1)

        self.tier_box.currentIndexChanged.connect(self.refresh)
        self.start_button.clicked.connect(lambda: self.start_build.emit(self.current_tier().id))
        self.refresh()

    def snapshot(self) -> dict[str, Any]:
        return {"tier": self.tier_box.currentData()}

    def restore(self, state: dict[str, Any]) -> None:
        index = self.tier_box.findData(state.get("tier"))
        if index >= 0:
            self.tier_box.setCurrentIndex(index)

    def current_tier(self) -> Tier:
        return self.catalog.tier(self.tier_box.currentData())

    def set_profile(self, profile: SystemProfile) -> None:
        self._machine = from_profile(profile, self.catalog)
        self.refresh()

    def set_build_capabilities(self, caps: Capabilities | None) -> None:
        self._build = caps
        self.refresh()

    def refresh(self) -> None:
        tier = self.current_tier()
        subjects = [s for s in (self._machine, self._build) if s is not None]
        rows = compare(tier, self.catalog, subjects, self.lang)
        headers = [self.tr("Dimension"), self.tr("Target: {0}").format(tier.name.get(self.lang))]
        headers += [s.label.get(self.lang) for s in subjects]
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        for c, text in enumerate(headers):
            # A build's name can be longer than its column: elided, the whole name on hover.
            head = self.table.horizontalHeaderItem(c)
            if head is not None:
                head.setToolTip(text)
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(row.dimension.get(self.lang)))
            self.table.setItem(r, 1, QTableWidgetItem(row.target))
            for c, cell in enumerate(row.cells, start=2):
                status = cell.status.label.get(self.lang)
                text = cell.text if cell.text.startswith(status) else f"{status} · {cell.text}"
                item = QTableWidgetItem(text)
                item.setForeground(QBrush(QColor(status_colour(cell.status.value))))
                item.setToolTip(self.tr(
                    "short: below the tier's target; meets: at or above it; exceeds: at least "
                    "twice the target or a faster class of device"))
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        # A header clips a name wider than its column on both sides ("fessional: dual…")
        # unless it is told to elide.
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.resizeRowsToContents()
        if subjects:
            counts = [sum(1 for row in rows if row.cells[i].status.value == "short")
                      for i in range(len(subjects))]
            self.summary.setText(" · ".join(
                self.tr("{0}: {1} of {2} dimensions short").format(
                    escape(s.label.get(self.lang)), n, len(rows))
                for s, n in zip(subjects, counts, strict=False)))
        else:
            self.summary.setText(self.tr("Waiting for detection of this machine…"))
        self._show_tier(tier)

    def _show_tier(self, tier: Tier) -> None:
        lang = self.lang
        parts = []
        for choice in tier.parts:
            names = [self.catalog.get(pid).name for pid in choice.all_ids]
            role = label(CATEGORIES, choice.role, self.lang)
            parts.append(f"<li>{_field(role, ' / '.join(names))}</li>")
        price = ""
        if tier.price_range_cny:
            lo, hi = tier.price_range_cny
            price = "<p>" + _field(self.tr("Seed price range:"),
                                   f"CNY {lo:,.0f}-{hi:,.0f} ({tier.price_note.get(lang)})")
            price += "</p>"
        title = self.tr("{0} (seed {1})").format(tier.name.get(lang), tier.section)
        use_cases = _field(self.tr("Use cases:"), tier.use_cases.get(lang))
        ram = _field(self.tr("RAM:"), tier.ram.get(lang))
        storage = _field(self.tr("Storage:"), tier.storage.get(lang))
        advantages = _field(self.tr("Claimed advantages:"), tier.advantages.get(lang))
        self.tier_info.setHtml(
            f"<h3>{escape(title)}</h3><p>{use_cases}</p><ul>{''.join(parts)}</ul>"
            f"<p>{ram}<br/>{storage}</p>{price}<p>{advantages}</p>")
        self.contradictions.set_findings(
            tier_contradictions(tier, self.catalog),
            empty=self.tr("This tier is consistent with the seed's own rules."))


def _field(label: str, value: str) -> str:
    """``label`` in bold, then the value; both escaped. A label carries its own colon, so a
    translation can use the full-width one."""
    sep = "" if label.endswith(("：", ":")) else ":"
    return f"<b>{escape(label)}{sep}</b> {escape(value)}"
