"""Wizard: describe the work step by step; requirements, a recommendation and findings update
live on the right as you type.

The page is widgets bound to a :class:`~torchrig.planning.wizard_model.WizardModel`, which holds
the state and the rules without Qt. Every edit copies the fields into the model, which builds a
workload document and validates it with the core's own rules (``Workload.from_dict``); an error
names its field, and the message is shown next to that field. Planning is pure and fast, so it
runs on every keystroke, on a worker thread (``compute_plan``).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from torchrig import labels
from torchrig.builds.capabilities import Capabilities
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.gui.combo_items import enable_items
from torchrig.gui.pages.wizard_results import WizardResults
from torchrig.gui.pages.wizard_texts import (
    CHOICE_LABELS,
    FIELD_HELP,
    FIELDS,
    MONEY_ERRORS,
    STEPS,
)
from torchrig.gui.qt import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    Qt,
    QTabWidget,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.style import colour
from torchrig.gui.verify_panel import VerifyPanel
from torchrig.gui.workers import TaskRunner
from torchrig.hardware.model import SystemProfile
from torchrig.i18n import Msg
from torchrig.planning.analysis import Analysis
from torchrig.planning.gpu_choice import candidate_gpus
from torchrig.planning.solver import Change
from torchrig.planning.wizard_model import (
    CHOICES,
    CUSTOM_MODEL,
    CUSTOM_ONLY,
    FIELD_KINDS,
    NETWORK_FIELDS,
    FieldError,
    MoneyFields,
    PlanResult,
    WizardModel,
    compute_plan,
    precisions_for,
)
from torchrig.planning.workload import Workload, save_workload

TYPING_PAUSE_MS = 150
"""How long typing must pause before the Wizard re-plans: a word typed at an ordinary pace is
one plan, not one per keystroke (each costs the GUI thread its validation and the result's
display; issue 27 measured 96 ms a keystroke)."""




class WizardPage(QWidget):
    """Widgets bound to a :class:`~torchrig.planning.wizard_model.WizardModel` (``model``):
    the page builds the fields, copies what is typed into the model, asks it to validate and
    plan (on a worker thread), and shows the answer.

    Signals:
        workload_changed(object): a valid Workload after each edit (for the Report page).
    Attributes:
        workload: the last valid workload; analysis: its last Analysis (or None).
        last_plan_ms: how long the last re-plan took (shown, and measured in tests).
        stale: a field is invalid, so the results shown are the last valid plan.
    """

    workload_changed = Signal(object)

    def __init__(self, catalog: Catalog, lang: str = "en", parent: QWidget | None = None,
                 default_cny_per_usd: Decimal | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.lang = lang
        self.model = WizardModel(catalog, default_cny_per_usd)
        # Planning re-plans the workload on every catalog GPU (the overkill rule, the
        # recommendation: ~25-40 plans, 40-60 ms on a busy machine), so it runs on a worker
        # thread and typing never waits for it. Each edit is a newer plan request (the
        # model's generation); a plan is shown only if no newer edit came meanwhile, and an
        # edit made while a plan runs is planned when it ends - so a burst of keystrokes
        # costs at most two plans.
        self._shut_down = False
        self.plan_runner = TaskRunner(self)
        self.plan_runner.succeeded.connect(self._on_planned)
        self.plan_runner.failed.connect(self._on_plan_failed)
        self.plan_runner.finished.connect(self._plan_next)
        self._loading = False
        self.widgets: dict[str, QWidget] = {}
        self.errors: dict[str, QLabel] = {}

        outer = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(self.tr("<h2>Wizard</h2>")))
        bar.addStretch(1)
        for name, text, slot in (("open_workload", self.tr("Open workload…"), self.open_dialog),
                                 ("save_workload", self.tr("Save workload…"), self.save_dialog)):
            button = QPushButton(text)
            button.setObjectName(name)  # what tests find it by, in either language
            button.clicked.connect(lambda _checked=False, s=slot: s())
            bar.addWidget(button)
        self.import_button = QPushButton(self.tr("Import config.json…"))
        self.import_button.setToolTip(self.tr(
            "Read a Hugging Face model's config.json (Llama, Mistral, Mixtral, Qwen, Gemma, "
            "Phi-3, DeepSeek, GPT-2, BERT/RoBERTa) as a custom model"))
        self.import_button.clicked.connect(lambda: self.import_config_dialog())
        bar.addWidget(self.import_button)
        outer.addLayout(bar)
        # What the Wizard chose that the user did not (the task's defaults, an imported
        # model's layout sized to it): the core's words, in both languages
        # (planning.assumed_settings), naming the fields that change them.
        self.assumed_label = QLabel()
        self.assumed_label.setObjectName("assumed_settings")
        self.assumed_label.setWordWrap(True)
        self.assumed_label.setVisible(False)
        outer.addWidget(self.assumed_label)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self._steps())
        splitter.addWidget(self._results())
        splitter.setSizes([470, 730])
        outer.addWidget(splitter, 1)

        # Typing fires many edits; coalesce them into one re-plan per event-loop turn.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.replan)
        # The first plan waits for the event loop: the window paints before any planning.
        self.load_workload(self.model.workload, replan=False)
        self._timer.start()

    # --- the model's state, as the page's attributes -------------------------------------------

    @property
    def workload(self) -> Workload:
        return self.model.workload

    @property
    def analysis(self) -> Analysis | None:
        return self.model.analysis

    @property
    def last_plan_ms(self) -> float:
        return self.model.last_plan_ms

    @property
    def stale(self) -> bool:
        return self.model.stale

    @property
    def collective_report(self) -> Any:
        return self.model.collective_report

    # --- steps --------------------------------------------------------------------------------

    def _steps(self) -> QWidget:
        host = QWidget()
        layout = QVBoxLayout(host)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        forms: dict[str, QFormLayout] = {}
        for i, step in enumerate(STEPS):
            page = QWidget()
            forms[step] = QFormLayout(page)
            # A field goes under its label where the pane is too narrow for both side by
            # side (1280 px: the fields ran under the splitter, cut off).
            forms[step].setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(page)
            self.tabs.addTab(scroll, self.tr("{0}. {1}").format(i + 1, self.tr(step)))
        for key, kind in FIELD_KINDS.items():
            step, label = FIELDS[key]
            widget: QWidget
            if kind == "choice":
                combo = QComboBox()
                # Long choices ("AMP BF16 (mixed precision)", the KV-cache and guidance
                # texts) set the form's width: at 1280 x 720 the fields ran under the
                # splitter, cut off. The closed box now shrinks to the pane; its list and
                # tooltip show the whole text.
                combo.setSizeAdjustPolicy(
                    QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
                combo.setMinimumContentsLength(12)
                if key != "model":
                    for value in CHOICES[key]:
                        text = CHOICE_LABELS.get(f"{key}.{value}") or CHOICE_LABELS[value]
                        combo.addItem(self.tr(text), value)
                combo.currentIndexChanged.connect(lambda _i, k=key: self._edited(k))
                widget = combo
            elif kind == "bool":
                check = QCheckBox()
                check.toggled.connect(lambda _v, k=key: self._edited(k))
                widget = check
            else:
                edit = QLineEdit()
                edit.textEdited.connect(lambda _t, k=key: self._edited(k, TYPING_PAUSE_MS))
                widget = edit
            widget.setToolTip(self.tr(FIELD_HELP[key]))
            error = QLabel()
            error.setStyleSheet(f"color: {colour('error')};")
            error.setWordWrap(True)
            error.hide()
            cell = QWidget()
            cell_layout = QVBoxLayout(cell)
            cell_layout.setContentsMargins(0, 0, 0, 0)
            cell_layout.addWidget(widget)
            cell_layout.addWidget(error)
            forms[step].addRow(self.tr(label), cell)
            label_widget = forms[step].labelForField(cell)
            if label_widget is not None:
                label_widget.setToolTip(widget.toolTip())
            self.widgets[key] = widget
            self.errors[key] = error
        layout.addWidget(self.tabs, 1)
        nav = QHBoxLayout()
        self.back_button = QPushButton(self.tr("Back"))
        self.next_button = QPushButton(self.tr("Next"))
        self.back_button.clicked.connect(lambda: self.tabs.setCurrentIndex(
            max(0, self.tabs.currentIndex() - 1)))
        self.next_button.clicked.connect(lambda: self.tabs.setCurrentIndex(
            min(self.tabs.count() - 1, self.tabs.currentIndex() + 1)))
        nav.addWidget(self.back_button)
        nav.addStretch(1)
        nav.addWidget(self.next_button)
        layout.addLayout(nav)
        self.general_error = QLabel()
        self.general_error.setStyleSheet(f"color: {colour('error')};")
        self.general_error.setWordWrap(True)
        layout.addWidget(self.general_error)
        return host

    def _results(self) -> QWidget:
        host = QWidget()
        layout = QVBoxLayout(host)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Check against:")))
        self.subject_box = QComboBox()
        self.subject_box.addItem(self.tr("This machine"), "machine")
        for tier in self.catalog.tiers.values():
            self.subject_box.addItem(tier.name.get(self.lang), f"tier:{tier.id}")
        self.subject_box.addItem(self.tr("Current build"), "build")
        self.subject_box.setToolTip(self.tr("What the requirements are checked against: the "
                                            "detected machine, a seed tier or the Build page's "
                                            "build"))
        self.subject_box.currentIndexChanged.connect(self.replan)
        row.addWidget(self.subject_box, 1)
        layout.addLayout(row)
        # The plan's widgets, filled by the results view; the money terms sit among them.
        self.results = results = WizardResults(self.lang, self)
        results.apply_requested.connect(self.apply_change)
        self.headline, self.chart = results.headline, results.chart
        self.recommendation, self.solver_box = results.recommendation, results.solver_box
        self.findings_view, self.scaling_chart = results.findings_view, results.scaling_chart
        layout.addWidget(self.headline)
        layout.addWidget(self.chart)
        layout.addWidget(self.recommendation)
        layout.addWidget(self._money_controls())
        layout.addWidget(self.solver_box)
        tabs = QTabWidget()
        tabs.addTab(self.findings_view, self.tr("Findings"))
        tabs.addTab(self.scaling_chart, self.tr("Multi-GPU scaling"))
        self.verify_panel = VerifyPanel(self.lang)
        self.verify_panel.workload_measured.connect(self.load_workload)
        tabs.addTab(self.verify_panel, self.tr("On this machine"))
        self.result_tabs = tabs
        layout.addWidget(tabs, 1)
        # The results scroll on their own: in the window's page scroll area the whole page
        # scrolled, and at 1280 x 720 a user reading the measured table had an empty space
        # where the steps' form had been.
        self.results_scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(host)
        return scroll

    def _money_controls(self) -> QWidget:
        """The terms ``torchrig plan --recommend`` takes on the command line - a time target,
        the currency, the exchange rate and the user's own GPU-hour price - fed to the same
        advise()/recommend() path."""
        box = QWidget()
        form = QFormLayout(box)
        form.setContentsMargins(0, 0, 0, 0)
        self.time_target_edit = QLineEdit()
        self.time_target_edit.setPlaceholderText(self.tr("no time target"))
        self.time_target_edit.setToolTip(self.tr(
            "The run must finish within this many hours: tiers and GPUs that take longer are "
            "not recommended"))
        form.addRow(self.tr("Must finish within (hours)"), self.time_target_edit)
        self.currency_box = QComboBox()
        self.currency_box.addItem(self.tr("US dollars (USD)"), "USD")
        self.currency_box.addItem(self.tr("Chinese yuan (CNY)"), "CNY")
        self.currency_box.setToolTip(self.tr("The currency prices are compared in"))
        form.addRow(self.tr("Compare prices in"), self.currency_box)
        self.rate_edit = QLineEdit(self.model.money.rate)
        reference = self.model.reference
        self.rate_edit.setPlaceholderText(
            self.tr("empty: the shipped reference, {0} ({1}, {2})").format(
                reference.rate, reference.kind_name(self.lang), reference.date)
            if reference is not None else self.tr("no exchange rate"))
        self.rate_edit.setToolTip(self.tr(
            "CNY per USD, to compare catalog prices given in the other currency; starts at the "
            "default rate set in Settings"))
        form.addRow(self.tr("Exchange rate (CNY per USD)"), self.rate_edit)
        row = QHBoxLayout()
        self.hourly_gpu_box = QComboBox()
        for part in sorted(candidate_gpus(self.catalog), key=lambda p: p.name):
            self.hourly_gpu_box.addItem(part.name, part.id)
        self.hourly_gpu_box.setToolTip(self.tr("The GPU your hourly price is for"))
        self.hourly_price_edit = QLineEdit()
        self.hourly_price_edit.setPlaceholderText(self.tr("no price"))
        self.hourly_price_edit.setToolTip(self.tr(
            "What one GPU-hour of that GPU costs you (rental or internal charge rate), in the "
            "currency above: adds the cost per epoch or per million tokens"))
        row.addWidget(self.hourly_gpu_box, 1)
        row.addWidget(self.hourly_price_edit)
        form.addRow(self.tr("Your price per GPU-hour"), row)
        self.money_error = QLabel()
        self.money_error.setStyleSheet(f"color: {colour('error')};")
        self.money_error.setWordWrap(True)
        self.money_error.hide()
        form.addRow(self.money_error)
        for edit in (self.time_target_edit, self.rate_edit, self.hourly_price_edit):
            edit.textEdited.connect(lambda _t: self._timer.start(TYPING_PAUSE_MS))
        for combo in (self.currency_box, self.hourly_gpu_box):
            combo.currentIndexChanged.connect(lambda _i: self._timer.start(0))
        return box

    def set_default_exchange_rate(self, rate: Decimal | None) -> None:
        """The Settings' default rate, shown in the exchange-rate field unless the user has
        typed one of their own."""
        self._read_money()
        if self.model.set_default_rate(rate):
            self.rate_edit.setText(self.model.money.rate)
            self.replan()

    # --- widgets <-> model ---------------------------------------------------------------------

    def _read_fields(self) -> None:
        """Copy what the fields and the subject box show into the model."""
        fields: dict[str, Any] = {}
        for key, widget in self.widgets.items():
            if isinstance(widget, QComboBox):
                fields[key] = widget.currentData()
            elif isinstance(widget, QCheckBox):
                fields[key] = widget.isChecked()
            elif isinstance(widget, QLineEdit):
                fields[key] = widget.text()
        self.model.fields = fields
        self.model.subject_choice = self.subject_box.currentData()

    def _read_money(self) -> None:
        self.model.money = MoneyFields(
            time_target=self.time_target_edit.text(), currency=self.currency_box.currentData(),
            rate=self.rate_edit.text(), hourly_gpu=self.hourly_gpu_box.currentData(),
            hourly_price=self.hourly_price_edit.text())

    def _write_fields(self, fields: dict[str, Any]) -> None:
        """Show ``fields`` (values as the model holds them) without treating it as an edit."""
        self._loading = True
        try:
            for key, value in fields.items():
                widget = self.widgets[key]
                if isinstance(widget, QComboBox):
                    widget.setCurrentIndex(max(0, widget.findData(value)))
                elif isinstance(widget, QCheckBox):
                    widget.setChecked(bool(value))
                elif isinstance(widget, QLineEdit):
                    widget.setText(value)
        finally:
            self._loading = False

    def _write_money(self, money: MoneyFields) -> None:
        self.time_target_edit.setText(money.time_target)
        self.currency_box.setCurrentIndex(max(0, self.currency_box.findData(money.currency)))
        self.rate_edit.setText(money.rate)
        self.hourly_gpu_box.setCurrentIndex(max(0, self.hourly_gpu_box.findData(
            money.hourly_gpu)))
        self.hourly_price_edit.setText(money.hourly_price)

    def _set_models_for(self, task: str, current: str) -> None:
        combo = self.widgets["model"]
        assert isinstance(combo, QComboBox)
        combo.blockSignals(True)
        combo.clear()
        for preset_id in self.model.models_for(task):
            combo.addItem(labels.label(labels.MODELS, preset_id, self.lang), preset_id)
        combo.addItem(self.tr("Custom…"), CUSTOM_MODEL)
        index = combo.findData(current)
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)

    def load_workload(self, workload: Workload, replan: bool = True) -> None:
        self.model.load(workload)
        self._set_models_for(workload.task, workload.model)
        self._write_fields(self.model.fields)
        if replan:
            self.replan()

    def _edited(self, key: str, wait_ms: int = 0) -> None:
        """A field changed: re-plan once the event loop is free (a choice), or once typing
        pauses for ``wait_ms`` (text: each keystroke only restarts the wait)."""
        if self._loading:
            return
        if key == "task":
            task = self.widgets["task"].currentData()  # type: ignore[attr-defined]
            self.load_workload(self.model.for_task(task))
            return
        self._timer.start(wait_ms)

    def snapshot(self) -> dict[str, Any]:
        """Every field as typed (including text that does not parse yet), the subject, the
        step and the attached collective report."""
        self._read_fields()
        self._read_money()
        return {**self.model.snapshot(), "step": self.tabs.currentIndex()}

    def restore(self, state: dict[str, Any]) -> None:
        self.model.restore(state)
        self.subject_box.blockSignals(True)
        self.subject_box.setCurrentIndex(max(0, self.subject_box.findData(state["subject"])))
        self.subject_box.blockSignals(False)
        # The workload first (it fills the model list for its task and plans), then the
        # fields as they were typed over it, then the money terms.
        self.load_workload(state["workload"])
        self._write_fields(state["fields"])
        if state.get("money"):
            self._write_money(MoneyFields.from_dict(state["money"]))
        self.tabs.setCurrentIndex(state["step"])
        self.replan()

    def _show_errors(self, errors: dict[str, FieldError], general: str = "") -> None:
        for key, label in self.errors.items():
            error = errors.get(key)
            text = "" if error is None else self._error_text(error)
            label.setText(text)
            label.setVisible(bool(text))
        self.general_error.setText(general)

    def _error_text(self, error: FieldError) -> str:
        if error.kind == "not_a_number":
            return self.tr("'{0}' is not a number").format(error.text)
        if error.kind == "not_whole":
            return self.tr("must be a whole number")
        return error.text  # the workload loader's own message

    # --- planning -----------------------------------------------------------------------------

    def replan(self) -> None:
        self._read_fields()
        custom = self.model.custom
        # The network between nodes means nothing for one node: its fields are greyed out.
        multi_node = self.model.multi_node
        for key, widget in self.widgets.items():
            widget.setEnabled((custom or key not in CUSTOM_ONLY)
                              and (multi_node or key not in NETWORK_FIELDS))
        check = self.model.check()
        if check.workload is None:
            self._show_errors(check.errors, check.general)
            self.results.mark_stale(True)
            return
        self._show_errors({})
        self.results.mark_stale(False)
        analysis = self.model.analysis
        self._show_assumed(analysis.requirements.assumptions if analysis else ())
        workload = check.workload
        # Grey out what the planner refuses for this workload (fp8 for a CNN...).
        enable_items(self.widgets["precision"], precisions_for(workload))  # type: ignore[arg-type]
        self.verify_panel.set_workload(workload)
        caps = self.model.subject()
        if caps is None:
            caps = Capabilities(label=Msg.verbatim(self.tr("This machine (detecting…)")),
                                kind="machine")
        # The money terms are read here, on the GUI thread (their field errors show at once);
        # the recommendation is worked out with them on the worker.
        self._read_money()
        terms = self.model.money_terms()
        self.money_error.setText("\n".join(self.tr(MONEY_ERRORS[name]) for name in terms.errors))
        self.money_error.setVisible(bool(terms.errors))
        self.model.request_plan(caps, terms)
        self._plan_next()
        self.workload_changed.emit(workload)

    def _show_assumed(self, planned: Any) -> None:
        """The settings the user has not chosen, in the core's words, each pointing at the
        Wizard's own fields by the labels the form shows (not the CLI's options); ``planned``:
        the shown plan's assumptions, whose "no network given" is listed with them."""
        note = self.model.assumed_note(self.lang, {key: self.tr(label)
                                                   for key, (_step, label) in FIELDS.items()},
                                       planned)
        self.assumed_label.setText(note)
        self.assumed_label.setVisible(bool(note))

    @property
    def planning(self) -> bool:
        """A re-plan is due, waiting or running: what is shown is not yet for the input."""
        return (self._timer.isActive() or self.model.pending is not None
                or self.plan_runner.running)

    def _plan_next(self) -> None:
        """Plan the newest edit on the worker thread, unless a plan is running (its end calls
        this again)."""
        if self.model.pending is None or self.plan_runner.running or self._shut_down:
            return
        request = self.model.take_pending()
        assert request is not None
        catalog = self.catalog
        self.plan_runner.start(lambda _cancel, _progress: compute_plan(request, catalog))

    def _on_planned(self, result: PlanResult) -> None:
        if not self.model.accept(result):
            return  # a newer edit is on its way
        self._show_assumed(result.analysis.requirements.assumptions)
        self.results.show(result, self.model.priced, self.model.collective_report)

    def _on_plan_failed(self, message: str, details: str) -> None:
        self.results.show_failure(message, details)

    @property
    def apply_buttons(self) -> list[QPushButton]:
        """The solver's Apply buttons on show (one per setting it changes)."""
        return self.results.apply_buttons

    def apply_change(self, change: Change) -> None:
        try:
            workload = change.apply(self.workload)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot apply the change"), str(exc))
            return
        self.load_workload(workload)

    def shutdown(self) -> bool:
        # The page is closing or being rebuilt: nothing may start a plan after this (a
        # pending re-plan timer or a late profile), or the thread would outlive the page.
        self._shut_down = True
        self._timer.stop()
        self.model.take_pending()
        planner_stopped = self.plan_runner.shutdown()
        return self.verify_panel.shutdown() and planner_stopped

    def set_profile(self, profile: SystemProfile) -> None:
        self.model.profile = profile
        self.replan()

    def set_collective_report(self, report: Any) -> None:
        self.model.collective_report = report
        self.replan()

    def set_build_capabilities(self, caps: Capabilities | None) -> None:
        self.model.subject_choice = self.subject_box.currentData()
        if self.model.set_build_caps(caps):
            self.replan()

    # --- files --------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open workload"), "",
                                              self.tr("Workload (*.json)"))
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        try:
            workload = self.model.load_file(path)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot open workload"), str(exc))
            return False
        self.load_workload(workload)
        return True

    def import_config_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import a Hugging Face config.json"), "",
            self.tr("Model config (config.json *.json)"))
        if path:
            self.import_config_path(Path(path))

    def import_config_path(self, path: Path) -> bool:
        """Replace the model with the architecture a config.json describes; the task stays
        when it suits a transformer (a BERT config on an LLM task takes its own)."""
        try:
            workload = self.model.workload_from_config(path)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot import the config"), str(exc))
            return False
        self.load_workload(workload)
        return True

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save workload"), "workload.json",
                                              self.tr("Workload (*.json)"))
        if not path:
            return
        try:
            save_workload(self.workload, Path(path))
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot save workload"), str(exc))

