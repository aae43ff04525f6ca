"""The main window: a navigation list on the left, one page per task on the right."""

from __future__ import annotations

from torchrig.gui.pages.machine_page import MachinePage
from torchrig.gui.pages.placeholder import PlaceholderPage
from torchrig.gui.qt import (
    QCloseEvent,
    QHBoxLayout,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QWidget,
)


class MainWindow(QMainWindow):
    """Attributes:
    pages: page widgets by key ("machine", "targets", "build", "wizard", "bench", "report").
    """

    def __init__(self, lang: str = "en") -> None:
        super().__init__()
        self.setWindowTitle("TorchRig")
        self.resize(1200, 800)
        self.lang = lang

        self.nav = QListWidget()
        self.nav.setFixedWidth(190)
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}

        self.machine_page = MachinePage(lang)
        self._add("machine", self.tr("This machine"), self.machine_page)
        self._add("targets", self.tr("Targets"), PlaceholderPage(
            self.tr("Targets"),
            self.tr("This machine beside the entry, professional and enterprise tiers from the "
                    "seed document, one row per dimension, each marked meets / short / exceeds.")))
        self._add("build", self.tr("Build"), PlaceholderPage(
            self.tr("Build"),
            self.tr("Pick parts from the catalog, edit prices, see totals and compatibility "
                    "findings live, compare up to three builds, save and open build files.")))
        self._add("wizard", self.tr("Wizard"), PlaceholderPage(
            self.tr("Wizard"),
            self.tr("Describe the work (task, model, precision, batch, data, GPUs) and get the "
                    "VRAM, RAM, storage and CPU it needs, a recommended tier and findings.")))
        self._add("bench", self.tr("Benchmark"), PlaceholderPage(
            self.tr("Benchmark"),
            self.tr("Measure this machine with torch: matmul, memory bandwidth, host-device "
                    "copies, training steps, data loading and storage.")))
        self._add("report", self.tr("Report"), PlaceholderPage(
            self.tr("Report"),
            self.tr("Export a PDF build sheet or quote with the bill of materials, findings, "
                    "requirements and benchmark results.")))

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.setCurrentRow(0)

    def _add(self, key: str, title: str, page: QWidget) -> None:
        self.pages[key] = page
        self.nav.addItem(title)
        self.stack.addWidget(page)

    def show_page(self, key: str) -> None:
        self.nav.setCurrentRow(list(self.pages).index(key))

    def start(self) -> None:
        """Work that must not delay the first paint: detection runs on a worker thread."""
        self.machine_page.refresh()

    def closeEvent(self, event: QCloseEvent) -> None:
        for page in self.pages.values():
            shutdown = getattr(page, "shutdown", None)
            if shutdown is not None:
                shutdown()
        super().closeEvent(event)
