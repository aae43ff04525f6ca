"""The main window: a menu bar, a navigation list on the left, one page per task on the right.

Switching language (or theme) rebuilds the pages rather than retranslating them in place:
every page is built by its constructor in the current language, so there is no second code path
that could forget a string. Each page hands over what it shows with ``snapshot()`` and takes it
back with ``restore()``: the open build with its unsaved edits, the wizard's fields as typed,
the detected profile, benchmark results, the report header and the current page.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from torchrig.errors import InputError
from torchrig.gui.pages.machine_page import MachinePage
from torchrig.gui.pages.placeholder import PlaceholderPage
from torchrig.gui.qt import (
    QAction,
    QByteArray,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QKeySequence,
    QListWidget,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QTimer,
    QUrl,
    QWidget,
)
from torchrig.gui.settings import Settings
from torchrig.i18n import Lang
from torchrig.paths import fallback_dir, fallback_notice, recovery_dir

if TYPE_CHECKING:
    from decimal import Decimal

    # Types only: the catalog and the hardware model are imported by the work that needs
    # them, after the first paint (docs/architecture.md, "What starts lazily").
    from torchrig.catalog.model import Catalog
    from torchrig.hardware.model import SystemProfile

Key = QKeySequence.StandardKey
RESTORE_ORDER = ("machine", "targets", "build", "bench", "wizard", "report")
"""Pages feed each other through signals while they restore: the profile and the build go
first, and the report page last so its inputs end exactly as they were."""


def _load_catalog() -> tuple[Catalog | None, str]:
    from torchrig.builds.export_checks import shipped_controls
    from torchrig.catalog import load_catalog
    from torchrig.catalog.exchange_rates import reference_rate

    try:
        catalog = load_catalog()
        # The catalog's other documents, read once here: a damaged one is reported as a
        # damaged parts file is, not later from inside a page.
        reference_rate(catalog.root)
        shipped_controls(catalog)
        return catalog, ""
    except InputError as exc:
        return None, str(exc)


def _recovery_left_behind() -> bool:
    """Whether any editor left a copy of unsaved edits (the Build page then decides whose
    owner is gone and offers them): a folder listing, so a start with nothing to recover
    builds no catalog page."""
    try:
        return any(path.is_file() for path in recovery_dir().iterdir())
    except OSError:
        return False


def readme_path() -> Path | None:
    """README.md of a source checkout (the documentation), or None when not shipped."""
    from torchrig.resources import resources_dir

    try:
        path = resources_dir().parent / "README.md"
    except InputError:
        return None
    return path if path.is_file() else None


def _scrolling(page: QWidget) -> QScrollArea:
    """``page`` in a scroll area: a page gets all the room there is, and scroll bars only
    when the window is smaller than the page's minimum, so no page sets the window's minimum
    size (the Build page alone made it 1,266 px wide: too wide for a 1280 px laptop screen
    with a dock, and for 1024 px)."""
    host = QScrollArea()
    host.setWidgetResizable(True)
    host.setFrameShape(QFrame.Shape.NoFrame)
    host.setWidget(page)
    return host


class MainWindow(QMainWindow):
    """Attributes:
    pages: page widgets by key ("machine", "targets", "build", "wizard", "bench", "report").
    catalog: the shipped catalog, or None when it failed to load (pages then say why).
    lang: the UI language the pages were built in ("en" or "zh").
    rebuilds: how many times the pages were rebuilt (language or theme changes).
    """

    def __init__(self, lang: Lang = "en", settings: Settings | None = None,
                 pages_later: bool = False) -> None:
        """``pages_later``: show the window with only This machine built; the catalog is
        loaded and the other pages built by :meth:`finish_pages` when one of them is first
        wanted (shown, a file opened, a menu action on the build), not before (how the app
        starts: a window the user only reads This machine on never loads them)."""
        super().__init__()
        self._pages_later = pages_later
        self.setWindowTitle("TorchRig")
        self.resize(1280, 820)
        self.lang: Lang = lang
        self.settings = settings or Settings()
        self.catalog: Catalog | None = None
        self._catalog_error = ""
        if not pages_later:
            self.catalog, self._catalog_error = _load_catalog()
        self.rebuilds = 0
        self._theme = self.settings.theme  # applied by run_gui before the window is made
        self._pending: tuple[Lang, str] | None = None  # language/theme waiting for idle
        self._build_ui()
        self.setAcceptDrops(True)  # build, workload, benchmark-report and PDF files
        self._restore_window_state()
        if self.settings.load_error:
            self.statusBar().showMessage(self.tr("Settings could not be read, defaults are "
                                                 "used: {0}").format(self.settings.load_error))
        if fallback_notice():
            self.statusBar().showMessage(self.tr(
                "Your home folder is unknown (HOME is not set and this user has no passwd "
                "entry): TorchRig keeps its settings and files in {0}.").format(fallback_dir()))

    # --- construction -------------------------------------------------------------------------

    def _build_ui(self) -> None:
        """Create the menus and all pages in the current language (also used by rebuild)."""
        self.nav = QListWidget()
        self.nav.setFixedWidth(170)
        self.stack = QStackedWidget()
        self.pages: dict[str, QWidget] = {}
        lang, catalog, error = self.lang, self.catalog, self._catalog_error

        self.machine_page = MachinePage(lang)
        # Modules the catalog pages import when a profile arrives: worth importing on the
        # detection thread only once those pages exist.
        self.machine_page.prepare_pages = not self._pages_later
        self._add("machine", self.tr("This machine"), self.machine_page)
        if self._pages_later:
            for key, title in self._catalog_titles():
                self._add(key, title, PlaceholderPage(title, self.tr("Loading…"), lazy=True))
        elif catalog is not None:
            for key, title in self._catalog_titles():
                self._add(key, title, QWidget())
            self._create_catalog_pages(catalog)
        else:
            why = self.tr("The parts catalog could not be loaded: {0}").format(error)
            for key, title in self._catalog_titles():
                self._add(key, title, PlaceholderPage(title, why))
        self.machine_page.runner.finished.connect(self._on_task_finished)

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)  # deletes the previous pages on a rebuild
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.currentRowChanged.connect(self._on_row_chosen)
        self.nav.setCurrentRow(0)
        self.machine_page.profile_changed.connect(self._on_profile)
        self._build_menus()

    def _catalog_titles(self) -> tuple[tuple[str, str], ...]:
        return (("targets", self.tr("Targets")), ("build", self.tr("Build")),
                ("wizard", self.tr("Wizard")), ("bench", self.tr("Benchmark")),
                ("report", self.tr("Report")))

    def _create_catalog_pages(self, catalog: Catalog) -> None:
        """Build the five catalog pages into their places in the stack and wire them."""
        from torchrig.gui.pages.bench_page import BenchPage
        from torchrig.gui.pages.build_page import BuildPage
        from torchrig.gui.pages.report_page import ReportPage
        from torchrig.gui.pages.targets_page import TargetsPage
        from torchrig.gui.pages.wizard_page import WizardPage

        lang = self.lang
        self.targets_page = TargetsPage(catalog, lang)
        self.build_page = BuildPage(catalog, self.settings, lang)
        self.wizard_page = WizardPage(catalog, lang,
                                      default_cny_per_usd=self.default_exchange_rate())
        self.bench_page = BenchPage(catalog, self.settings, lang)
        self.report_page = ReportPage(catalog, self.settings, lang)
        for key, page in (("targets", self.targets_page), ("build", self.build_page),
                          ("wizard", self.wizard_page), ("bench", self.bench_page),
                          ("report", self.report_page)):
            index = list(self.pages).index(key)
            old = self.stack.widget(index)
            if old is not None:
                self.stack.removeWidget(old)
                old.deleteLater()
            self.stack.insertWidget(index, _scrolling(page))
            self.pages[key] = page
        self.stack.setCurrentIndex(max(0, self.nav.currentRow()))
        self.machine_page.prepare_pages = True
        self.targets_page.start_build.connect(self._start_build_from_tier)
        self.build_page.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.build_page.build_changed.connect(self._on_build_changed)
        self.wizard_page.workload_changed.connect(self.report_page.set_workload)
        self.wizard_page.verify_panel.result_ready.connect(self.report_page.set_verify_result)
        self.bench_page.report_ready.connect(self.report_page.set_bench_report)
        self.bench_page.cluster.report_changed.connect(self.wizard_page.set_collective_report)
        self.bench_page.cluster.report_changed.connect(self.report_page.set_collective_report)
        self.report_page.set_build(self.build_page.build)
        for runner in self._runners()[1:]:
            runner.finished.connect(self._on_task_finished)
        if self.machine_page.profile is not None:
            self._on_profile(self.machine_page.profile)

    def start_after_first_paint(self) -> None:
        """Call :meth:`start` as soon as the window has painted once (how the app starts: a
        zero timer alone can fire before the first paint)."""
        self._start_on_paint = True

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        if getattr(self, "_start_on_paint", False):
            self._start_on_paint = False
            QTimer.singleShot(0, self.start)

    def finish_pages(self) -> None:
        """Load the catalog and build the pages a ``pages_later`` window left until one was
        wanted; a catalog that cannot be loaded leaves pages that say why."""
        if not self._pages_later:
            return
        self._pages_later = False
        self.catalog, self._catalog_error = _load_catalog()
        if self.catalog is not None:
            self._create_catalog_pages(self.catalog)
        else:
            why = self.tr("The parts catalog could not be loaded: {0}").format(
                self._catalog_error)
            for key, title in self._catalog_titles():
                index = list(self.pages).index(key)
                old = self.stack.widget(index)
                if old is not None:
                    self.stack.removeWidget(old)
                    old.deleteLater()
                page = PlaceholderPage(title, why)
                self.stack.insertWidget(index, _scrolling(page))
                self.pages[key] = page
            self.stack.setCurrentIndex(max(0, self.nav.currentRow()))
        self._build_menus()

    def _on_row_chosen(self, row: int) -> None:
        """A catalog page chosen in a ``pages_later`` window: build the pages now. Before the
        window is shown (the last session's page restored) they wait for :meth:`start`, so
        the first paint is never delayed by them."""
        if self._pages_later and row > 0 and self.isVisible():
            self.finish_pages()

    def _with_pages(self, call: Any) -> Any:
        """A menu slot that needs the Build page: build the pages first if they wait."""
        def slot() -> None:
            self.finish_pages()
            if self.catalog is not None:
                call()
        return slot

    def _add(self, key: str, title: str, page: QWidget) -> None:
        self.pages[key] = page
        self.nav.addItem(title)
        self.stack.addWidget(_scrolling(page))

    def page_host(self, key: str) -> QWidget | None:
        """The stack's widget for a page (a scroll area holding it)."""
        return self.stack.widget(list(self.pages).index(key))

    def _build_menus(self) -> None:
        bar = self.menuBar()
        for action in bar.actions():
            # deleteLater: a menu action may be what triggered this rebuild.
            bar.removeAction(action)
            if action.menu() is not None:
                action.menu().deleteLater()
        file_menu = bar.addMenu(self.tr("&File"))
        if self.catalog is not None or self._pages_later:
            # Pages still waiting are built by the first of these that needs them.
            build = self._with_pages(lambda: self.build_page.new_build())
            save = self._with_pages(lambda: self.build_page.save())
            save_as = self._with_pages(lambda: self.build_page.save_as())
            self._action(file_menu, self.tr("&New build"), build, Key.New)
            self._action(file_menu, self.tr("&Open…"), self.open_dialog, Key.Open)
            self._action(file_menu, self.tr("&Save build"), save, Key.Save)
            self._action(file_menu, self.tr("Save build &as…"), save_as, Key.SaveAs)
            self.recent_menu = file_menu.addMenu(self.tr("Open &recent"))
            self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
            file_menu.addSeparator()
        self._action(file_menu, self.tr("&Quit"), self.close, Key.Quit)

        if self.catalog is not None and not self._pages_later:
            edit_menu = bar.addMenu(self.tr("&Edit"))
            stack = self.build_page.undo_stack
            undo = stack.createUndoAction(edit_menu, self.tr("&Undo build edit"))
            undo.setShortcut(QKeySequence(Key.Undo))
            redo = stack.createRedoAction(edit_menu, self.tr("&Redo build edit"))
            # Ctrl+Shift+Z everywhere, and Ctrl+Y where the platform's Redo is that.
            redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), *QKeySequence.keyBindings(Key.Redo)])
            edit_menu.addAction(undo)
            edit_menu.addAction(redo)
        elif self._pages_later:
            # No build page yet, so no edit to undo: the same entries, disabled until it exists.
            edit_menu = bar.addMenu(self.tr("&Edit"))
            for text in (self.tr("&Undo build edit"), self.tr("&Redo build edit")):
                edit_menu.addAction(text).setEnabled(False)

        settings_menu = bar.addMenu(self.tr("&Settings"))
        self._action(settings_menu, self.tr("&Settings…"), self.open_settings,
                     Key.Preferences)
        language = settings_menu.addMenu(self.tr("&Language"))
        for value, text in (("system", self.tr("Follow the system")), ("en", "English"),
                            ("zh", "中文（简体）")):
            action = self._action(language, text, lambda _c=False, v=value:
                                  self.set_preferences(language=v))
            action.setCheckable(True)
            action.setChecked(self.settings.language == value)
        theme = settings_menu.addMenu(self.tr("&Theme"))
        for value, text in (("system", self.tr("Follow the system")), ("light", self.tr("Light")),
                            ("dark", self.tr("Dark"))):
            action = self._action(theme, text, lambda _c=False, v=value:
                                  self.set_preferences(theme=v))
            action.setCheckable(True)
            action.setChecked(self.settings.theme == value)

        help_menu = bar.addMenu(self.tr("&Help"))
        self._action(help_menu, self.tr("&Documentation"), self.open_documentation,
                     Key.HelpContents)
        self._action(help_menu, self.tr("&About TorchRig"), self.open_about)

    def _action(self, menu: QMenu, text: str, slot: Any,
                shortcut: Key | None = None) -> QAction:
        action = menu.addAction(text)
        action.triggered.connect(lambda _checked=False: slot())  # slots take no 'checked'
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        return action

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files
        if not files:
            self.recent_menu.addAction(self.tr("(no recent files)")).setEnabled(False)
        for path in files:
            action = self.recent_menu.addAction(Path(path).name)
            action.setToolTip(path)
            action.triggered.connect(lambda _c=False, p=path: self._open_recent(p))

    def _open_recent(self, path: str) -> None:
        self.finish_pages()
        if self.catalog is None:
            return
        if self.build_page.maybe_save() and self.build_page.open_path(Path(path)):
            self.show_page("build")

    # --- opening any TorchRig file (File → Open, drag and drop) --------------------------------

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open"), str(self.settings.builds_folder()), ";;".join((
                self.tr("TorchRig files (*.json *.pdf)"),
                self.tr("Build, workload or benchmark report (*.json)"),
                self.tr("TorchRig PDF sheet (*.pdf)"))))
        if path:
            self.open_file(Path(path))

    def open_file(self, path: Path) -> bool:
        """Open a build, a build's PDF sheet, a workload, or a benchmark or collective report
        on the page that shows it; the kind is read from the file, not its name."""
        from torchrig.file_kinds import file_kind

        self.finish_pages()
        if self.catalog is None:
            return False
        try:
            kind = file_kind(path)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot open file"), str(exc))
            return False
        if kind in ("build", "build-sheet"):
            opened = self.build_page.maybe_save() and self.build_page.open_path(path)
            page = "build"
        elif kind == "workload":
            opened, page = self.wizard_page.open_path(path), "wizard"
        elif kind == "collective-report":
            opened, page = self.bench_page.cluster.open_path(path), "bench"
        else:
            opened, page = self._open_bench_report(path), "bench"
        if opened:
            self.show_page(page)
        return opened

    def _open_bench_report(self, path: Path) -> bool:
        try:
            report = self.bench_page.show_file(path)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot open benchmark report"), str(exc))
            return False
        self.report_page.set_bench_report(report)
        return True

    @staticmethod
    def _dropped_files(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return []
        return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if self._dropped_files(event) and (self.catalog is not None or self._pages_later):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        files = self._dropped_files(event)
        if not files:
            return
        event.acceptProposedAction()
        # Queued: a modal "Save changes?" must not run inside the platform's drag handler.
        for path in files:
            QTimer.singleShot(0, self, lambda p=path: self.open_file(p))

    # --- pages --------------------------------------------------------------------------------

    def show_page(self, key: str) -> None:
        self.nav.setCurrentRow(list(self.pages).index(key))

    def current_page(self) -> str:
        return list(self.pages)[max(0, self.nav.currentRow())]

    def start(self) -> None:
        """Work that must not delay the first paint: detection runs on a worker thread;
        unsaved edits a crash left behind are offered back (which needs the Build page, so
        only then, or when the last session's page is a catalog page, are the pages built
        now)."""
        if self._pages_later and (self.current_page() != "machine"
                                  or _recovery_left_behind()):
            self.finish_pages()
        self.machine_page.refresh()
        if self.catalog is not None and not self._pages_later \
                and self.build_page.offer_recovery():
            self.show_page("build")

    def _on_profile(self, profile: SystemProfile) -> None:
        if self.catalog is not None and not self._pages_later:
            # One page per event-loop turn, so the window repaints between them.
            for page in (self.targets_page, self.wizard_page, self.bench_page,
                         self.report_page):
                QTimer.singleShot(0, page, lambda p=page: p.set_profile(profile))

    def _on_build_changed(self, build: object) -> None:
        from torchrig.builds.capabilities import from_build

        assert self.catalog is not None
        caps = from_build(build, self.catalog)  # type: ignore[arg-type]
        self.targets_page.set_build_capabilities(caps)
        self.wizard_page.set_build_capabilities(caps)
        self.report_page.set_build(build)

    def _start_build_from_tier(self, tier_id: str) -> None:
        self.build_page.start_from_tier(tier_id)
        self.show_page("build")

    # --- language, theme, settings ------------------------------------------------------------

    def _runners(self) -> list[Any]:
        runners = [self.machine_page.runner]
        if self.catalog is not None and not self._pages_later:
            runners += [self.bench_page.runner, self.bench_page.cluster.runner,
                        self.report_page.runner, self.wizard_page.verify_panel.runner]
        return runners

    def busy(self) -> bool:
        """A background task is running (a rebuild would have to stop it)."""
        return any(runner.running for runner in self._runners())

    def rebuild(self) -> None:
        """Recreate every page in the current language and theme, carrying their state over."""
        from torchrig.gui.gc_thread import thaw

        thaw()  # the old pages were frozen with the rest at start-up: let them be collected
        states = {key: page.snapshot() for key, page in self.pages.items()
                  if hasattr(page, "snapshot")}
        current = self.current_page()
        for page in self.pages.values():
            shutdown = getattr(page, "shutdown", None)
            if shutdown is not None:
                shutdown()  # idle by now (see busy); releases the runners' threads
        self._build_ui()
        for key in RESTORE_ORDER:
            if key in states:
                self.pages[key].restore(states[key])  # type: ignore[attr-defined]
        self.show_page(current)
        self.rebuilds += 1

    def set_preferences(self, language: str | None = None, theme: str | None = None) -> None:
        """Store a new language and/or theme and show it (the menu's quick switch)."""
        if language is not None:
            self.settings.language = language
        if theme is not None:
            self.settings.theme = theme
        self.settings.sync()
        self.apply_settings()

    def apply_settings(self, changed: Iterable[str] = ()) -> None:
        """Make the stored settings visible: language and theme (a rebuild, deferred while a
        background task runs), and the ``changed`` defaults that pages show in their fields
        (only those: text the user typed into a page is not overwritten by an unrelated
        change)."""
        from torchrig.gui.i18n import resolve_language

        want = (resolve_language(self.settings.language), self.settings.theme)
        if want != (self.lang, self._theme) or self._pending:
            self._pending = want
            if self.busy():
                self.statusBar().showMessage(self.tr(
                    "The new language or theme applies when the running task finishes."))
            else:
                self._switch_now()
        changed = set(changed)
        if self.catalog is not None:
            self.report_page.apply_settings(changed)
            if "dataset_folder" in changed:
                self.bench_page.folder_edit.setText(self.settings.dataset_folder)
            if "exchange_rate" in changed:
                self.wizard_page.set_default_exchange_rate(self.default_exchange_rate())
            if changed & {"region", "exchange_rate", "exchange_rate_date"}:
                self.build_page.apply_settings()

    def reference_rate(self) -> Any:
        """The catalog's shipped reference rate (None without a catalog or a rate file)."""
        page = getattr(self, "build_page", None)
        return page.picker.reference if page is not None else None

    def default_exchange_rate(self) -> Decimal | None:
        """The Settings' default CNY-per-USD rate, None when none is set (0)."""
        from decimal import Decimal

        rate = self.settings.exchange_rate
        return Decimal(str(round(rate, 4))) if rate > 0 else None

    def _on_task_finished(self) -> None:
        if self._pending is not None:
            # The runner's page is still on the call stack here: rebuild (which deletes that
            # page) from the event loop instead.
            QTimer.singleShot(0, self._switch_now)

    def _switch_now(self) -> None:
        from torchrig.gui.i18n import apply_language
        from torchrig.gui.theme import apply_theme

        if self._pending is None or self.busy():
            return
        lang, theme = self._pending
        self._pending = None
        apply_language(lang)
        apply_theme(theme)
        self._theme = theme
        self.lang = lang
        self.rebuild()

    def settings_dialog(self) -> Any:
        """The Settings dialog, wired so that what it applies shows at once."""
        from torchrig.gui.settings_dialog import SettingsDialog

        self.finish_pages()  # the dialog shows the catalog's reference rate
        dialog = SettingsDialog(self.settings, self, reference=self.reference_rate(),
                                lang=self.lang)
        dialog.applied.connect(self.apply_settings)
        # The quick-switch menus show the stored choice.
        dialog.applied.connect(lambda _changed: self._build_menus())
        return dialog

    def open_settings(self) -> None:
        self.settings_dialog().exec()

    def open_about(self) -> None:
        from torchrig.gui.about_dialog import AboutDialog

        AboutDialog(self.machine_page.profile, self.settings.path, self, self.lang).exec()

    def open_documentation(self) -> None:
        path = readme_path()
        if path is not None and QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            return
        where = str(path) if path is not None else self.tr("README.md in the TorchRig source")
        QMessageBox.information(self, self.tr("Documentation"), self.tr(
            "The documentation is the README: {0}").format(where))

    # --- window state -------------------------------------------------------------------------

    def _restore_window_state(self) -> None:
        geometry = self.settings.window_geometry
        if geometry:
            self.restoreGeometry(QByteArray(geometry))
        if self.settings.last_page in self.pages:
            self.show_page(self.settings.last_page)

    def _save_window_state(self) -> None:
        self.settings.window_geometry = bytes(self.saveGeometry().data())
        self.settings.last_page = self.current_page()

    def closeEvent(self, event: QCloseEvent) -> None:
        for page in self.pages.values():
            close_later = getattr(page, "close_later", None)  # a print run being drawn
            if close_later is not None and close_later(self.close):
                event.ignore()
                return
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
        self._save_window_state()
        self.settings.sync()
        super().closeEvent(event)
