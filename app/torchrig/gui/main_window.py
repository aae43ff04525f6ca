"""The main window: a navigation list on the left, one page per task on the right."""

from __future__ import annotations

from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.gui.pages.machine_page import MachinePage
from torchrig.gui.pages.placeholder import PlaceholderPage
from torchrig.gui.qt import (
    QCloseEvent,
    QHBoxLayout,
    QListWidget,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)
from torchrig.gui.settings import Settings
from torchrig.hardware.model import SystemProfile


def _load_catalog() -> tuple[Catalog | None, str]:
    from torchrig.catalog import load_catalog

    try:
        return load_catalog(), ""
    except InputError as exc:
        return None, str(exc)


class MainWindow(QMainWindow):
    """Attributes:
    pages: page widgets by key ("machine", "targets", "build", "wizard", "bench", "report").
    catalog: the shipped catalog, or None when it failed to load (pages then say why).
    """

    def __init__(self, lang: str = "en", settings: Settings | None = None) -> None:
        super().__init__()
        self.setWindowTitle("TorchRig")
        self.resize(1280, 820)
        self.lang = lang
        self.settings = settings or Settings()
        self.catalog, catalog_error = _load_catalog()

        self.nav = QListWidget()
        self.nav.setFixedWidth(170)
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}

        self.machine_page = MachinePage(lang)
        self._add("machine", self.tr("This machine"), self.machine_page)
        if self.catalog is not None:
            self._add_catalog_pages(self.catalog)
        else:
            for key, title in (("targets", self.tr("Targets")), ("build", self.tr("Build"))):
                self._add(key, title, PlaceholderPage(
                    title, self.tr("The parts catalog could not be loaded: {0}")
                    .format(catalog_error)))
        if self.catalog is not None:
            from torchrig.gui.pages.wizard_page import WizardPage

            self.wizard_page = WizardPage(self.catalog, lang)
            self._add("wizard", self.tr("Wizard"), self.wizard_page)
            self.build_page.build_changed.connect(self._on_build_changed)
        else:
            self._add("wizard", self.tr("Wizard"), PlaceholderPage(
                self.tr("Wizard"), self.tr("The parts catalog could not be loaded: {0}")
                .format(catalog_error)))
        if self.catalog is not None:
            from torchrig.gui.pages.bench_page import BenchPage

            self.bench_page = BenchPage(self.catalog, self.settings, lang)
            self._add("bench", self.tr("Benchmark"), self.bench_page)
        else:
            self._add("bench", self.tr("Benchmark"), PlaceholderPage(
                self.tr("Benchmark"), self.tr("The parts catalog could not be loaded: {0}")
                .format(catalog_error)))
        if self.catalog is not None:
            from torchrig.gui.pages.report_page import ReportPage

            self.report_page = ReportPage(self.catalog, self.settings, lang)
            self._add("report", self.tr("Report"), self.report_page)
            self.wizard_page.workload_changed.connect(self.report_page.set_workload)
            self.bench_page.report_ready.connect(self.report_page.set_bench_report)
            self.bench_page.cluster.report_changed.connect(self.wizard_page.set_collective_report)
            self.bench_page.cluster.report_changed.connect(
                self.report_page.set_collective_report)
            self.report_page.set_build(self.build_page.build)
        else:
            self._add("report", self.tr("Report"), PlaceholderPage(
                self.tr("Report"), self.tr("The parts catalog could not be loaded: {0}")
                .format(catalog_error)))

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.setCurrentRow(0)
        self.machine_page.profile_changed.connect(self._on_profile)

    def _add_catalog_pages(self, catalog: Catalog) -> None:
        from torchrig.gui.pages.build_page import BuildPage
        from torchrig.gui.pages.targets_page import TargetsPage
        self.targets_page = TargetsPage(catalog, self.lang)
        self.build_page = BuildPage(catalog, self.settings, self.lang)
        self._add("targets", self.tr("Targets"), self.targets_page)
        self._add("build", self.tr("Build"), self.build_page)
        self.targets_page.start_build.connect(self._start_build_from_tier)
        self.build_page.status.connect(lambda text: self.statusBar().showMessage(text, 8000))

    def _add(self, key: str, title: str, page: QWidget) -> None:
        self.pages[key] = page
        self.nav.addItem(title)
        self.stack.addWidget(page)

    def show_page(self, key: str) -> None:
        self.nav.setCurrentRow(list(self.pages).index(key))

    def start(self) -> None:
        """Work that must not delay the first paint: detection runs on a worker thread;
        unsaved edits a crash left behind are offered back."""
        self.machine_page.refresh()
        if self.catalog is not None and self.build_page.offer_recovery():
            self.show_page("build")

    def _on_profile(self, profile: SystemProfile) -> None:
        if self.catalog is not None:
            self.targets_page.set_profile(profile)
            self.wizard_page.set_profile(profile)
            self.bench_page.set_profile(profile)
            self.report_page.set_profile(profile)

    def _on_build_changed(self, build: object) -> None:
        from torchrig.planning.capabilities import from_build

        assert self.catalog is not None
        caps = from_build(build, self.catalog)  # type: ignore[arg-type]
        self.targets_page.set_build_capabilities(caps)
        self.wizard_page.set_build_capabilities(caps)
        self.report_page.set_build(build)

    def _start_build_from_tier(self, tier_id: str) -> None:
        self.build_page.start_from_tier(tier_id)
        self.show_page("build")

    def closeEvent(self, event: QCloseEvent) -> None:
        build_page = self.pages.get("build")
        maybe_save = getattr(build_page, "maybe_save", None)
        if maybe_save is not None and not maybe_save():
            event.ignore()
            return
        for page in self.pages.values():
            shutdown = getattr(page, "shutdown", None)
            if shutdown is not None and not shutdown():
                QMessageBox.warning(self, "TorchRig",
                                    self.tr("A background task did not stop in time."))
        self.settings.sync()
        super().closeEvent(event)
