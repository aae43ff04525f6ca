"""Report: the PDF build sheet / quote — header fields, sections, language, a preview of the
actual PDF (QtPdf) and export.

The page is widgets bound to a :class:`~torchrig.report.report_model.ReportModel`, which holds
the inputs the other pages attach, the fields as typed and the last PDF, and reads them into
the render job. The preview is the exact bytes that Export writes: one render, shown and then
saved atomically (temp file + rename), so what the user checked is what the customer gets.

A render runs on the page's worker thread, which makes the PDF and then its page images
(:mod:`torchrig.gui.pdf_pages`); the GUI thread reads the fields before and draws the images
after. A preview asked for while one renders replaces it (the older result is dropped, never
shown); an export or a print is never dropped: it waits its turn. Nothing is shown after the
page has closed. Printing then draws the pages on a thread of its own
(:mod:`torchrig.gui.printing`); closing the window waits for a print run being drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from torchrig.catalog.exchange_rates import catalog_reference
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.file_names import suggested_file_name
from torchrig.gui.pdf_pages import PdfPagesView, PreviewUnreadable, render_page_images
from torchrig.gui.qt import (
    QT_TRANSLATE_NOOP,
    QCheckBox,
    QComboBox,
    QDesktopServices,
    QDialog,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPdfDocument,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    Qt,
    QUrl,
    QVBoxLayout,
    QWidget,
)
from torchrig.gui.settings import Settings
from torchrig.gui.widgets import ElidedLabel
from torchrig.gui.workers import TaskRunner
from torchrig.i18n import one_language
from torchrig.report.report_model import ReportModel, ReportWords, SheetFields, SheetJob

SECTION_LABELS = {
    "bom": QT_TRANSLATE_NOOP("ReportPage", "Bill of materials"),
    "totals": QT_TRANSLATE_NOOP("ReportPage", "Totals"),
    "comparison": QT_TRANSLATE_NOOP("ReportPage", "Tier comparison"),
    "requirements": QT_TRANSLATE_NOOP("ReportPage", "Workload requirements"),
    "verify": QT_TRANSLATE_NOOP("ReportPage", "Measured vs planned"),
    "bench": QT_TRANSLATE_NOOP("ReportPage", "Benchmark results"),
    "claims": QT_TRANSLATE_NOOP("ReportPage", "Seed claims vs measured"),
    "scaling": QT_TRANSLATE_NOOP("ReportPage", "Scaling model"),
    "findings": QT_TRANSLATE_NOOP("ReportPage", "Findings"),
    "attachment": QT_TRANSLATE_NOOP("ReportPage", "Attach the build file"),
}
SECTION_HELP = {
    "bom": QT_TRANSLATE_NOOP("ReportPage", "Every line with quantity, unit price and the "
                             "price's origin"),
    "totals": QT_TRANSLATE_NOOP("ReportPage", "Subtotal, discount, tax and total"),
    "comparison": QT_TRANSLATE_NOOP("ReportPage", "The build against the chosen seed tier, "
                                    "dimension by dimension"),
    "requirements": QT_TRANSLATE_NOOP("ReportPage", "What the Wizard's workload needs (VRAM, "
                                      "RAM, disk, throughput)"),
    "verify": QT_TRANSLATE_NOOP("ReportPage", "The Wizard's \"Measure on this machine\" run "
                                "beside the plan, item by item (when one was made)"),
    "bench": QT_TRANSLATE_NOOP("ReportPage", "The last benchmark's measurements against spec "
                               "peaks"),
    "claims": QT_TRANSLATE_NOOP("ReportPage", "The seed document's claims next to what was "
                                "measured here"),
    "scaling": QT_TRANSLATE_NOOP("ReportPage", "Modelled multi-GPU efficiency per "
                                 "interconnect"),
    "findings": QT_TRANSLATE_NOOP("ReportPage", "Compatibility, bottleneck and benchmark "
                                  "findings with their sources"),
    "attachment": QT_TRANSLATE_NOOP("ReportPage", "Embed the build file in the PDF so it can "
                                    "be opened again in TorchRig"),
}


@dataclass
class _Request:
    """One render asked for: ``job`` makes the PDF (None: the page images of the PDF the page
    holds, for a new width), ``then`` gets the bytes (export, print)."""

    generation: int
    job: SheetJob | None
    then: Callable[[bytes], object] | None
    width_px: int
    dpr: float


@dataclass
class _Rendered:
    """What the worker hands back: the PDF and its pages (empty without QtPdf, or with
    ``unreadable`` saying why QtPdf could not read it back)."""

    generation: int
    pdf: bytes
    width_px: int
    images: list[Any] = field(default_factory=list)
    unreadable: str = ""


def _from_model(name: str) -> Any:
    """A read-only page attribute that is the model's ``name``."""
    return property(lambda page: getattr(page.model, name), doc=f"The model's {name}.")


class ReportPage(QWidget):
    """Attributes:
    model: the ReportModel the page shows; its inputs (build / workload / bench_report /
    verify_result / profile / collective_report: what the sheet shows, fed by the other pages),
    pdf_bytes (the last rendered PDF, what Export writes) and last_export are also the page's.
    """

    def __init__(self, catalog: Catalog, settings: Settings, lang: str = "en",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.settings = settings
        self.lang = lang
        self.model = ReportModel(catalog, SheetFields(
            shop=settings.shop_name, contact=settings.shop_contact, logo=settings.logo_path,
            validity=settings.validity_days, pdf_lang=settings.report_lang), ReportWords(
            no_build=self.tr("There is no build to print: make or open one on the Build "
                             "page, or attach the Wizard's workload for a plan sheet."),
            no_logo=self.tr("logo {0}: no such file"),
            no_parts_list=self.tr("A plan sheet has no parts list to put in a workbook; "
                                  "export it as PDF.")))
        self._generation = 0  # of the newest render asked for: only its result is shown
        self._queue: list[_Request] = []
        self._current: _Request | None = None
        self._closed = False

        outer = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(self.tr("<h2>Report</h2>")))
        self.context = ElidedLabel()
        bar.addWidget(self.context, 1)
        self.preview_button = QPushButton(self.tr("Update preview"))
        self.export_button = QPushButton(self.tr("Export…"))
        self.export_button.setToolTip(self.tr("Save the sheet as a PDF, or the quote as an "
                                              "Excel workbook with formulas (.xlsx)"))
        self.open_button = QPushButton(self.tr("Open exported file"))
        self.open_button.setEnabled(False)
        self.print_button = QPushButton(self.tr("Print…"))
        self.print_button.setToolTip(self.tr("Print the sheet exactly as previewed"))
        for button in (self.preview_button, self.export_button, self.print_button,
                       self.open_button):
            bar.addWidget(button)
        outer.addLayout(bar)

        form_host = QWidget()
        form_layout = QVBoxLayout(form_host)
        form_layout.setContentsMargins(0, 0, 0, 0)
        header = QGroupBox(self.tr("Header (remembered)"))
        form = QFormLayout(header)
        self.kind_box = QComboBox()
        self.kind_box.addItem(self.tr("Quote"), "quote")
        self.kind_box.addItem(self.tr("Build sheet"), "sheet")
        self.kind_box.setToolTip(self.tr("Quote: a priced offer with a validity period. Build "
                                         "sheet: the same content without an offer"))
        self.number_edit = QLineEdit()
        self.number_edit.setPlaceholderText("Q-2026-001")
        self.number_edit.setToolTip(self.tr("Your quote or document number, printed as typed"))
        self.shop_edit = QLineEdit(self.model.fields.shop)
        self.shop_edit.setToolTip(self.tr("Sender shown at the top of the PDF (default in "
                                          "Settings)"))
        self.contact_edit = QLineEdit(self.model.fields.contact)
        self.contact_edit.setToolTip(self.tr("Phone, e-mail or address printed under the shop "
                                             "name (default in Settings)"))
        self.logo_edit = QLineEdit(self.model.fields.logo)
        self.logo_edit.setToolTip(self.tr("A PNG or JPEG drawn at the top right of the PDF"))
        logo_row = QHBoxLayout()
        logo_row.addWidget(self.logo_edit, 1)
        logo_browse = QPushButton(self.tr("Browse…"))
        logo_browse.clicked.connect(self._pick_logo)
        logo_row.addWidget(logo_browse)
        self.validity_spin = QSpinBox()
        self.validity_spin.setRange(0, 365)
        self.validity_spin.setSuffix(self.tr(" days"))
        self.validity_spin.setSpecialValueText(self.tr("not stated"))
        self.validity_spin.setValue(self.model.fields.validity)
        self.validity_spin.setToolTip(self.tr("How long a quote's prices hold, counted from "
                                              "today; 0 prints no validity"))
        self.lang_box = QComboBox()
        self.lang_box.addItem("中文", "zh")
        self.lang_box.addItem("English", "en")
        self.lang_box.setCurrentIndex(max(0, self.lang_box.findData(self.model.fields.pdf_lang)))
        self.lang_box.setToolTip(self.tr("Language of the PDF, independent of the window's "
                                         "language"))
        self.tier_box = QComboBox()
        self.tier_box.addItem(self.tr("The build's tier"), None)
        for tier in catalog.tiers.values():
            self.tier_box.addItem(tier.name.get(lang), tier.id)
        self.tier_box.setToolTip(self.tr("The seed tier the build is compared with in the "
                                         "Tier comparison section"))
        form.addRow(self.tr("Kind"), self.kind_box)
        form.addRow(self.tr("Number"), self.number_edit)
        form.addRow(self.tr("Shop / lab"), self.shop_edit)
        form.addRow(self.tr("Contact"), self.contact_edit)
        form.addRow(self.tr("Logo (PNG/JPEG)"), logo_row)
        form.addRow(self.tr("Valid for"), self.validity_spin)
        form.addRow(self.tr("PDF language"), self.lang_box)
        form.addRow(self.tr("Compare with"), self.tier_box)
        form_layout.addWidget(header)
        sections = QGroupBox(self.tr("Sections"))
        grid = QGridLayout(sections)
        self.section_checks: dict[str, QCheckBox] = {}
        for i, (key, label) in enumerate(SECTION_LABELS.items()):
            check = QCheckBox(self.tr(label))
            check.setToolTip(self.tr(SECTION_HELP[key]))
            check.setChecked(True)
            grid.addWidget(check, i // 2, i % 2)
            self.section_checks[key] = check
        # A customer quote by default: the shop's remarks and its own PC are not the
        # customer's business.
        self.internal_check = QCheckBox(self.tr("Internal sheet (not for the customer)"))
        self.internal_check.setToolTip(self.tr(
            "For the shop's own use: keeps how old each price is, how reliable its source, "
            "the estimate remarks and the \"edited in TorchRig\" marks, and adds a \"This "
            "machine\" column to the Tier comparison. Leave it off for a customer quote"))
        row = (len(SECTION_LABELS) + 1) // 2
        # Left-aligned at its own width: a click anywhere on the box or its words toggles it.
        grid.addWidget(self.internal_check, row, 0, 1, 2, Qt.AlignmentFlag.AlignLeft)
        # The Wizard always holds a workload (its default one too): it goes on the sheet only
        # when the user says so.
        self.attach_check = QCheckBox(self.tr("Attach the Wizard's workload"))
        self.attach_check.setToolTip(self.tr(
            "Print the Wizard's workload with its requirements, findings and scaling chart. "
            "Without a build, the sheet is then a plan: requirements, findings and a "
            "recommendation"))
        grid.addWidget(self.attach_check, row + 1, 0, 1, 2, Qt.AlignmentFlag.AlignLeft)
        self.attach_check.toggled.connect(lambda _on: self._update_context())
        form_layout.addWidget(sections)
        self.status = QLabel()
        self.status.setWordWrap(True)
        form_layout.addWidget(self.status)
        form_layout.addStretch(1)

        # Shown while a render runs (the busy state): the page stays usable meanwhile.
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setMaximumHeight(6)
        self.busy.setVisible(False)
        self.pages_view: PdfPagesView | None = None
        preview = QWidget()
        preview_layout = QVBoxLayout(preview)
        preview_layout.setContentsMargins(0, 0, 0, 0)
        preview_layout.addWidget(self.busy)
        if QPdfDocument is not None:
            self.pages_view = PdfPagesView(self)
            self.pages_view.width_wanted.connect(lambda _width: self._rerender_pages())
            preview_layout.addWidget(self.pages_view, 1)
        else:
            preview_layout.addWidget(QLabel(self.tr(
                "PDF preview needs the PySide6-Pdf package; Export still works.")), 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(form_host)
        splitter.addWidget(preview)
        splitter.setSizes([380, 820])
        outer.addWidget(splitter, 1)

        self.runner = TaskRunner(self)
        self.runner.succeeded.connect(self._on_rendered)
        self.runner.failed.connect(self._on_render_failed)
        self.runner.finished.connect(self._on_render_finished)
        self.preview_button.clicked.connect(lambda: self.start_render())
        self.export_button.clicked.connect(self.export_dialog)
        self.open_button.clicked.connect(self.open_exported)
        self.print_button.clicked.connect(lambda: self.start_render(self._print))
        # Printing has its own thread: a print run takes seconds (every page rasterised) and
        # previews and exports need not wait for it.
        self.print_runner = TaskRunner(self)
        self.print_runner.progress.connect(self._on_print_progress)
        self.print_runner.succeeded.connect(self._on_printed)
        self.print_runner.failed.connect(self._on_print_failed)
        self.print_runner.finished.connect(self._on_print_finished)
        self._close_after_print: Callable[[], object] | None = None
        self._update_context()

    # --- inputs from the other pages --------------------------------------------------------

    def set_build(self, build: Any) -> None:
        self.model.build = build
        self._update_context()

    def set_workload(self, workload: Any) -> None:
        self.model.workload = workload
        self._update_context()

    def set_bench_report(self, report: Any) -> None:
        self.model.bench_report = report
        self._update_context()

    def set_verify_result(self, result: Any) -> None:
        """A measurement of the workload's model (shown while it is the sheet's workload)."""
        self.model.verify_result = result

    def set_profile(self, profile: Any) -> None:
        self.model.profile = profile

    def set_collective_report(self, report: Any) -> None:
        self.model.collective_report = report
        self._update_context()

    def _update_context(self) -> None:
        self.model.fields = replace(self.model.fields,
                                    attach_workload=self.attach_check.isChecked())
        self.attach_check.setEnabled(self.model.workload is not None)
        attached = self.model.attached()
        if attached.build is not None:
            parts = [self.tr("build: {0}").format(one_language(attached.build, self.lang))]
        elif attached.plan_only:
            parts = [self.tr("no build: a plan sheet")]
        else:
            parts = [self.tr("no build yet (make one on the Build page)")]
        if attached.workload is not None:
            parts.append(self.tr("workload: {0}").format(attached.workload))
        if attached.bench is not None:
            parts.append(self.tr("benchmark of {0}").format(attached.bench))
        if attached.collective:
            parts.append(self.tr("collective report"))
        self.context.setText(" · ".join(parts))
        self.preview_button.setEnabled(attached.ready)
        self.export_button.setEnabled(attached.ready)

    # --- the model's state, as the page's attributes -------------------------------------------

    build = _from_model("build")
    workload = _from_model("workload")
    bench_report = _from_model("bench_report")
    verify_result = _from_model("verify_result")
    profile = _from_model("profile")
    collective_report = _from_model("collective_report")
    pdf_bytes = _from_model("pdf_bytes")
    last_export = _from_model("last_export")

    def _read_fields(self) -> None:
        """Copy the header and section fields into the model."""
        self.model.fields = SheetFields(
            kind=self.kind_box.currentData(), number=self.number_edit.text(),
            shop=self.shop_edit.text(), contact=self.contact_edit.text(),
            logo=self.logo_edit.text(), validity=self.validity_spin.value(),
            pdf_lang=self.lang_box.currentData(), tier=self.tier_box.currentData(),
            sections={k: c.isChecked() for k, c in self.section_checks.items()},
            internal=self.internal_check.isChecked(),
            attach_workload=self.attach_check.isChecked())

    def _pick_logo(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Logo"), "",
                                              self.tr("Images (*.png *.jpg *.jpeg)"))
        if path:
            self.logo_edit.setText(path)

    # --- rendering ----------------------------------------------------------------------------

    def _remember(self) -> None:
        self._read_fields()
        for key, value in self.model.remembered().items():
            setattr(self.settings, key, value)

    def sheet_job(self) -> SheetJob:
        """Read the fields now (GUI thread) and return the rendering work, which touches no
        widget and can run on a worker thread. Raises InputError for bad input."""
        self._read_fields()
        self.model.default_rate = self.settings.default_rate(
            catalog_reference(self.catalog))
        return self.model.sheet_job()

    def render_sheet(self) -> bytes:
        """Render the sheet for the current inputs here and now (raises InputError)."""
        return self.sheet_job()()

    def apply_settings(self, changed: set[str]) -> None:
        """The sender defaults in ``changed`` were edited in Settings: show them here (the
        fields stay editable for this sheet)."""
        for key, edit in (("shop_name", self.shop_edit), ("shop_contact", self.contact_edit),
                          ("logo_path", self.logo_edit)):
            if key in changed:
                edit.setText(getattr(self.settings, key))

    def snapshot(self) -> dict[str, Any]:
        """Inputs from the other pages, the header as typed, the sections and the preview."""
        self._read_fields()
        return {**self.model.snapshot(), "status": self.status.text()}

    def restore(self, state: dict[str, Any]) -> None:
        self.model.restore(state)
        fields = self.model.fields
        for box, value in ((self.kind_box, fields.kind), (self.lang_box, fields.pdf_lang),
                           (self.tier_box, fields.tier)):
            box.setCurrentIndex(max(0, box.findData(value)))
        self.number_edit.setText(fields.number)
        self.shop_edit.setText(fields.shop)
        self.contact_edit.setText(fields.contact)
        self.logo_edit.setText(fields.logo)
        self.validity_spin.setValue(fields.validity)
        for key, checked in fields.sections.items():
            self.section_checks[key].setChecked(checked)
        self.internal_check.setChecked(fields.internal)
        self.attach_check.setChecked(fields.attach_workload)
        self.open_button.setEnabled(self.last_export is not None)
        self.status.setText(state["status"])
        if self.pdf_bytes:
            self.model.pdf_bytes = self.pdf_bytes
            self._rerender_pages()  # the held PDF's pages, drawn on the worker thread
        self._update_context()

    def render_preview(self) -> bool:
        """Render synchronously (scripts and tests); the buttons use :meth:`start_render`."""
        try:
            pdf = self.render_sheet()
        except InputError as exc:
            self.status.setText(str(exc))
            return False
        self._rendered(pdf)
        return True

    def start_render(self, then: Callable[[bytes], object] | None = None) -> None:
        """Render on the worker thread so the window stays responsive (a full sheet takes a
        few hundred ms, its page images more); ``then`` runs on the GUI thread with the PDF
        bytes. A preview asked for while another renders replaces it."""
        if self._closed:
            return
        try:
            job = self.sheet_job()
        except InputError as exc:
            self.status.setText(str(exc))
            return
        self._generation += 1
        width, dpr = self._page_size()
        self._request(_Request(self._generation, job, then, width, dpr))
        self.status.setText(self.tr("Rendering…"))
        self.export_button.setEnabled(False)

    def _page_size(self) -> tuple[int, float]:
        if self.pages_view is None:
            return 0, 1.0
        return self.pages_view.render_width(), self.pages_view.devicePixelRatioF()

    def _rerender_pages(self) -> None:
        """The held PDF's pages for the view's width now (after a resize, or a restore)."""
        if self._closed or self.pages_view is None or not self.model.pdf_bytes:
            return
        if self.runner.running or self._queue:
            return  # what runs is drawn at the width asked for; a new one is checked after
        width, dpr = self._page_size()
        self._request(_Request(self._generation, None, None, width, dpr))

    def _request(self, request: _Request) -> None:
        # A preview not started yet is superseded; an export or a print keeps its place.
        self._queue = [r for r in self._queue if r.then is not None] + [request]
        self.busy.setVisible(True)
        if self.runner.running:
            current = self._current
            if current is not None and current.then is None:
                self.runner.cancel()  # its result would be dropped: stop at the next step
            return
        self._start_next()

    def _start_next(self) -> None:
        if self._closed or not self._queue:
            return
        request = self._current = self._queue.pop(0)
        held = self.model.pdf_bytes

        def work(cancel: Any, progress: Any) -> _Rendered | None:
            pdf = request.job() if request.job is not None else held
            if cancel.is_set() and request.then is None:
                return None
            result = _Rendered(request.generation, pdf, request.width_px)
            if request.width_px:
                try:
                    result.images = render_page_images(pdf, request.width_px, request.dpr,
                                                       cancel if request.then is None else None)
                except PreviewUnreadable as exc:
                    result.unreadable = str(exc)
            return result

        self.runner.start(work)

    def _on_rendered(self, result: object) -> None:
        request = self._current
        if self._closed or request is None or not isinstance(result, _Rendered):
            return
        if result.generation == self._generation:  # nothing newer was asked for meanwhile
            if request.job is not None:
                self._rendered(result.pdf, result)
            elif self.pages_view is not None:
                self.pages_view.set_pages(result.images, result.width_px)
        if request.then is not None:
            request.then(result.pdf)

    def _on_render_failed(self, message: str, details: str) -> None:
        request = self._current
        if self._closed or request is None or (request.then is None
                                               and request.generation != self._generation):
            return  # a preview nobody waits for any more (an export's failure is shown)
        self.status.setText(message)

    def _on_render_finished(self) -> None:
        self._current = None
        if self._closed:
            return
        if self._queue:
            self._start_next()
            return
        self.busy.setVisible(False)
        self._update_context()
        view = self.pages_view
        if view is not None and view.page_count() and \
                view.render_width() != view.rendered_width:
            self._rerender_pages()  # the view was resized while this one rendered

    def _rendered(self, pdf: bytes, drawn: _Rendered | None = None) -> None:
        # reportlab is loaded by now (the render imported it), so this costs nothing.
        from torchrig.report.fonts import MISSING_CJK_FONT, find_cjk_font

        self._remember()
        status = self.tr("Preview: {0} kB").format(len(pdf) // 1024)
        if find_cjk_font() is None:
            status += "\n" + MISSING_CJK_FONT.get(self.lang)
        if drawn is None and self.pages_view is not None:
            # The synchronous path (scripts and tests): the pages are drawn here too.
            width, dpr = self._page_size()
            drawn = _Rendered(self._generation, pdf, width)
            try:
                drawn.images = render_page_images(pdf, width, dpr)
            except PreviewUnreadable as exc:
                drawn.unreadable = str(exc)
        if drawn is not None and drawn.unreadable:
            status += "\n" + self.tr("The preview cannot be drawn ({0}); Export still writes "
                                     "the PDF.").format(drawn.unreadable)
        self.status.setText(status)
        self.model.pdf_bytes = pdf
        if self.pages_view is not None and drawn is not None:
            self.pages_view.set_pages(drawn.images, drawn.width_px)

    def shutdown(self) -> bool:
        # Whatever is still rendering or queued is dropped: nothing is shown after a close.
        self._closed = True
        self._queue.clear()
        # A print run still going (the window waited for it once, close_later) stops between
        # bands; a printer that can abort drops the job.
        printed = self.print_runner.shutdown()
        return self.runner.shutdown() and printed

    def export_dialog(self) -> None:
        name = self.build.name if self.model.has_build() else (
            self.workload.name or self.workload.model if self.workload is not None else "plan")
        default = self.settings.builds_folder() / suggested_file_name(name, ".pdf")
        pdf_filter = self.tr("PDF document (*.pdf)")
        xlsx_filter = self.tr("Excel workbook (*.xlsx)")
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export"), str(default),
                                                   f"{pdf_filter};;{xlsx_filter}")
        if not path:
            return
        suffix = ".xlsx" if chosen == xlsx_filter or path.lower().endswith(".xlsx") else ".pdf"
        target = Path(path if path.lower().endswith(suffix) else path + suffix)
        if suffix == ".xlsx":
            self._export_xlsx(target)
        else:
            self.start_render(lambda pdf: self._write(target, pdf))

    def _export_xlsx(self, path: Path) -> bool:
        """The quote as an Excel workbook: no reportlab, a few milliseconds, so it is made
        here on the GUI thread."""
        try:
            data = self.sheet_job().xlsx(self.model.words.no_parts_list)
        except InputError as exc:
            self.status.setText(str(exc))
            QMessageBox.warning(self, self.tr("Cannot export"), str(exc))
            return False
        return self._write(path, data)

    def export_to(self, path: Path) -> bool:
        """Render and write synchronously (scripts and tests); a ``.xlsx`` path gets the
        workbook."""
        if path.suffix.lower() == ".xlsx":
            return self._export_xlsx(path)
        if not self.render_preview():
            QMessageBox.warning(self, self.tr("Cannot export"), self.status.text())
            return False
        return self._write(path, self.pdf_bytes)

    def _write(self, path: Path, pdf: bytes) -> bool:
        try:
            self.model.export(path, pdf)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot export"), str(exc))
            return False
        self.open_button.setEnabled(True)
        self.status.setText(self.tr("Exported {0} ({1} kB)").format(path, len(pdf) // 1024))
        return True

    def _print(self, pdf: bytes) -> None:
        """The print dialog, then the print run on :attr:`print_runner`'s thread."""
        from torchrig.gui import printing
        from torchrig.gui.qt import QPrintDialog, QPrinter

        if QPrinter is None or QPrintDialog is None:
            QMessageBox.warning(self, self.tr("Cannot print"), self.tr(
                "This Qt installation has no print support (QtPrintSupport); export the PDF "
                "and print it from a PDF reader."))
            return
        if self.print_runner.running:  # a second Print clicked while the first one renders
            self.status.setText(self.tr("A print run is still being sent to the printer."))
            return
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        said = {printing.NO_QTPDF: self.tr("Qt's PDF module (PySide6 QtPdf) is not installed."),
                printing.UNREADABLE: self.tr("The sheet could not be read back for printing."),
                printing.NOT_STARTED: self.tr("The printer could not be started.")}

        def print_run(cancel: Any, progress: Any) -> int | None:
            # The closure keeps the printer alive until this thread is done with it.
            try:
                return printing.print_pdf(pdf, printer, cancel, progress)
            except RuntimeError as exc:  # said in the window's language, without a class name
                raise InputError(said.get(str(exc), str(exc))) from exc

        self.print_button.setEnabled(False)
        self.status.setText(self.tr("Printing…"))
        self.print_runner.start(print_run)

    def _on_print_progress(self, step: object) -> None:
        if self._closed or not isinstance(step, tuple):
            return
        page, pages = step
        self.status.setText(self.tr("Printing page {0} of {1}…").format(page, pages))

    def _on_printed(self, pages: object) -> None:
        if self._closed or not isinstance(pages, int):
            return  # cancelled when the window closed: the print run was aborted
        self.status.setText(self.tr("Sent 1 page to the printer.") if pages == 1
                            else self.tr("Sent {0} pages to the printer.").format(pages))

    def _on_print_finished(self) -> None:
        self.print_button.setEnabled(True)
        close, self._close_after_print = self._close_after_print, None
        if close is not None and not self._closed:
            close()

    def close_later(self, close: Callable[[], object]) -> bool:
        """While a print run is being drawn, ask for ``close`` to be called once it has gone
        to the printer and return True, so the window waits instead of cutting the printout
        short. A second request while waiting returns False: the window closes and the print
        run stops between pages."""
        if not self.print_runner.running or self._close_after_print is not None:
            return False
        self._close_after_print = close
        self.status.setText(self.tr("The window closes when the print run has been sent."))
        return True

    def _on_print_failed(self, message: str, details: str) -> None:
        if self._closed:
            return
        self.status.setText(message)
        QMessageBox.warning(self, self.tr("Cannot print"), message)

    def open_exported(self) -> None:
        if self.last_export is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.last_export)))
