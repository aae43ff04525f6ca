"""Wizard: describe the work step by step; requirements, a recommendation and findings update
live on the right as you type.

Every edit rebuilds a workload document from the fields and validates it with the core's own
rules (``Workload.from_dict``); an error names its field, and the message is shown next to that
field. Planning is pure and fast (well under 50 ms), so it runs on every keystroke.
"""

from __future__ import annotations

import time
from html import escape
from pathlib import Path
from typing import Any

from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.gui.charts import BreakdownChart, ScalingChart
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.qt import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
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
from torchrig.hardware.model import SystemProfile
from torchrig.planning.analysis import Analysis, analyze, recommend
from torchrig.planning.breakdown import requirement_bars
from torchrig.planning.capabilities import Capabilities, from_profile, from_tier
from torchrig.planning.presets import load_presets
from torchrig.planning.workload import (
    MODES,
    OFFLOADS,
    OPTIMIZERS,
    PRECISIONS,
    STRATEGIES,
    TASKS,
    Workload,
    default_workload,
    load_workload,
    save_workload,
)
from torchrig.units import fmt_flops, fmt_gib, fmt_seconds

TASK_LABELS = {
    "image_classification": "Image classification",
    "detection_segmentation": "Detection / segmentation",
    "nlp_transformer": "NLP / transformer training",
    "llm_finetune_full": "LLM fine-tuning (full)",
    "llm_finetune_lora": "LLM fine-tuning (LoRA)",
    "llm_inference": "LLM inference",
    "reinforcement_learning": "Reinforcement learning",
}

# Field key (as in the workload document) -> (step, label, kind). Kinds: choice, int, float,
# bool. The document keys are what validation errors name, so messages find their field.
STEPS = ("Task", "Model", "Training", "Data", "Scale")
FIELDS: dict[str, tuple[str, str, str]] = {
    "task": ("Task", "Task", "choice"),
    "mode": ("Task", "Mode", "choice"),
    "model": ("Model", "Model", "choice"),
    "params": ("Model", "Parameters (custom)", "int"),
    "layers": ("Model", "Layers (custom)", "int"),
    "hidden": ("Model", "Hidden size (custom)", "int"),
    "heads": ("Model", "Attention heads (custom)", "int"),
    "kv_heads": ("Model", "KV heads (custom)", "int"),
    "vocab": ("Model", "Vocabulary (custom)", "int"),
    "precision": ("Training", "Precision", "choice"),
    "optimizer": ("Training", "Optimizer", "choice"),
    "batch_size": ("Training", "Batch size per GPU", "int"),
    "image_size": ("Training", "Image size (pixels)", "int"),
    "seq_len": ("Training", "Sequence length (tokens)", "int"),
    "gradient_checkpointing": ("Training", "Gradient checkpointing", "bool"),
    "lora_rank": ("Training", "LoRA rank", "int"),
    "epochs": ("Training", "Epochs", "float"),
    "dataset.samples": ("Data", "Samples per epoch", "int"),
    "dataset.sample_bytes": ("Data", "Mean sample size on disk (bytes)", "float"),
    "dataset.decoded_bytes": ("Data", "Decoded sample size (bytes, empty = derive)", "float"),
    "dataset.cache_in_ram": ("Data", "Cache the dataset in RAM", "bool"),
    "gpus_per_node": ("Scale", "GPUs per node", "int"),
    "nodes": ("Scale", "Nodes", "int"),
    "strategy": ("Scale", "Strategy", "choice"),
    "tp_size": ("Scale", "Tensor-parallel size", "int"),
    "pp_size": ("Scale", "Pipeline-parallel size", "int"),
    "offload": ("Scale", "CPU offload", "choice"),
}
CHOICES = {"task": TASKS, "mode": MODES, "precision": PRECISIONS, "optimizer": OPTIMIZERS,
           "strategy": STRATEGIES, "offload": OFFLOADS}
CUSTOM_ONLY = ("params", "layers", "hidden", "heads", "kv_heads", "vocab")


class WizardPage(QWidget):
    """Signals:
        workload_changed(object): a valid Workload after each edit (for the Report page).
    Attributes:
        workload: the last valid workload; analysis: its last Analysis (or None).
        last_plan_ms: how long the last re-plan took (shown, and measured in tests).
    """

    workload_changed = Signal(object)

    def __init__(self, catalog: Catalog, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.lang = lang
        self.presets = load_presets()
        self.profile: SystemProfile | None = None
        self.build_caps: Capabilities | None = None
        self.workload: Workload = default_workload("image_classification")
        self.analysis: Analysis | None = None
        self.collective_report: Any = None  # attached on the Benchmark page (cluster tab)
        self.last_plan_ms = 0.0
        self._loading = False
        self.widgets: dict[str, QWidget] = {}
        self.errors: dict[str, QLabel] = {}

        outer = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(self.tr("<h2>Wizard</h2>")))
        bar.addStretch(1)
        for text, slot in ((self.tr("Open workload…"), self.open_dialog),
                           (self.tr("Save workload…"), self.save_dialog)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            bar.addWidget(button)
        outer.addLayout(bar)

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
        self.load_workload(self.workload)

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
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setWidget(page)
            self.tabs.addTab(scroll, f"{i + 1}. {self.tr(step)}")
        for key, (step, label, kind) in FIELDS.items():
            widget: QWidget
            if kind == "choice":
                combo = QComboBox()
                if key != "model":
                    for value in CHOICES[key]:
                        combo.addItem(TASK_LABELS.get(value, value), value)
                combo.currentIndexChanged.connect(lambda _i, k=key: self._edited(k))
                widget = combo
            elif kind == "bool":
                check = QCheckBox()
                check.toggled.connect(lambda _v, k=key: self._edited(k))
                widget = check
            else:
                edit = QLineEdit()
                edit.textEdited.connect(lambda _t, k=key: self._edited(k))
                widget = edit
            error = QLabel()
            error.setStyleSheet("color: #b3261e;")
            error.setWordWrap(True)
            error.hide()
            cell = QWidget()
            cell_layout = QVBoxLayout(cell)
            cell_layout.setContentsMargins(0, 0, 0, 0)
            cell_layout.addWidget(widget)
            cell_layout.addWidget(error)
            forms[step].addRow(self.tr(label), cell)
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
        self.general_error.setStyleSheet("color: #b3261e;")
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
        self.subject_box.currentIndexChanged.connect(self.replan)
        row.addWidget(self.subject_box, 1)
        layout.addLayout(row)
        self.headline = QLabel()
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setWordWrap(True)
        layout.addWidget(self.headline)
        self.chart = BreakdownChart(self.lang)
        layout.addWidget(self.chart)
        self.recommendation = QLabel()
        self.recommendation.setTextFormat(Qt.TextFormat.RichText)
        self.recommendation.setWordWrap(True)
        layout.addWidget(self.recommendation)
        self.findings_view = FindingsView(self.lang)
        self.scaling_chart = ScalingChart(self.lang)
        tabs = QTabWidget()
        tabs.addTab(self.findings_view, self.tr("Findings"))
        tabs.addTab(self.scaling_chart, self.tr("Multi-GPU scaling"))
        layout.addWidget(tabs, 1)
        return host

    # --- fields <-> workload -------------------------------------------------------------------

    def _set_models_for(self, task: str, current: str) -> None:
        combo = self.widgets["model"]
        assert isinstance(combo, QComboBox)
        combo.blockSignals(True)
        combo.clear()
        for preset in self.presets.values():
            if task in preset.tasks:
                combo.addItem(f"{preset.name}", preset.id)
        combo.addItem(self.tr("Custom…"), "custom")
        index = combo.findData(current)
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)

    def load_workload(self, workload: Workload) -> None:
        self._loading = True
        try:
            doc = workload.to_dict()
            flat = {k: v for k, v in doc.items() if k != "dataset"}
            flat.update({f"dataset.{k}": v for k, v in doc["dataset"].items()})
            self._set_models_for(workload.task, workload.model)
            for key, widget in self.widgets.items():
                value = flat.get(key)
                if isinstance(widget, QComboBox):
                    if key != "model":
                        widget.setCurrentIndex(max(0, widget.findData(value)))
                elif isinstance(widget, QCheckBox):
                    widget.setChecked(bool(value))
                elif isinstance(widget, QLineEdit):
                    widget.setText("" if value is None else _number_text(value))
        finally:
            self._loading = False
        self.workload = workload
        self.replan()

    def _edited(self, key: str) -> None:
        if self._loading:
            return
        if key == "task":
            task = self.widgets["task"].currentData()  # type: ignore[attr-defined]
            self.load_workload(default_workload(task))
            return
        self._timer.start()

    def document(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The workload document from the fields, and per-field parse errors."""
        doc = self.workload.to_dict()
        doc["dataset"] = dict(doc["dataset"])
        errors: dict[str, str] = {}
        custom = self.widgets["model"].currentData() == "custom"  # type: ignore[attr-defined]
        for key, (_step, _label, kind) in FIELDS.items():
            widget = self.widgets[key]
            widget.setEnabled(custom or key not in CUSTOM_ONLY)
            if isinstance(widget, QComboBox):
                value: Any = widget.currentData()
            elif isinstance(widget, QCheckBox):
                value = widget.isChecked()
            else:
                assert isinstance(widget, QLineEdit)
                value, error = _parse_number(widget.text(), kind)
                if error:
                    errors[key] = error
                    continue
            if key in CUSTOM_ONLY and not custom:
                value = None
            if key.startswith("dataset."):
                doc["dataset"][key.split(".", 1)[1]] = value
            else:
                doc[key] = value
        return doc, errors

    def _show_errors(self, errors: dict[str, str], general: str = "") -> None:
        for key, label in self.errors.items():
            text = errors.get(key, "")
            label.setText(text)
            label.setVisible(bool(text))
        self.general_error.setText(general)

    # --- planning -----------------------------------------------------------------------------

    def subject(self) -> Capabilities | None:
        choice = self.subject_box.currentData()
        if choice == "machine":
            return from_profile(self.profile, self.catalog, self.tr("This machine")) \
                if self.profile else None
        if choice == "build":
            return self.build_caps
        return from_tier(self.catalog.tier(choice.split(":", 1)[1]), self.catalog)

    def replan(self) -> None:
        doc, errors = self.document()
        if errors:
            self._show_errors(errors)
            return
        try:
            workload = Workload.from_dict(doc, where="workload")
        except InputError as exc:
            message = str(exc).removeprefix("workload: ")
            key = next((k for k in FIELDS if f"'{k}'" in message
                        or f"'{k.split('.')[-1]}'" in message), None)
            self._show_errors({key: message} if key else {}, "" if key else message)
            return
        self._show_errors({})
        self.workload = workload
        started = time.perf_counter()
        caps = self.subject()
        if caps is None:
            caps = Capabilities(label=self.tr("This machine (detecting…)"), kind="machine")
        self.analysis = analyze(workload, caps, self.catalog)
        rec = recommend(workload, self.catalog)
        self.last_plan_ms = (time.perf_counter() - started) * 1000
        self._show(self.analysis, rec)
        self.workload_changed.emit(workload)

    def _show(self, analysis: Analysis, rec: Any) -> None:
        req = analysis.requirements
        caps = analysis.subject
        self.chart.set_bars(requirement_bars(req, caps))
        t = req.throughput
        fits = req.fits
        where = escape(caps.label)
        if caps.gpu_count == 0:
            verdict = self.tr("no GPU on {0}").format(where)
        elif fits is None:
            verdict = self.tr("GPU memory of {0} unknown").format(where)
        elif fits:
            verdict = "<span style='color:#1e7b34'>" + self.tr("fits on {0}").format(where) \
                + "</span>"
        else:
            verdict = "<span style='color:#b3261e'>" + self.tr("does not fit on {0}") \
                .format(where) + "</span>"
        speed = t.get("samples_per_s")
        epoch = t.get("time_per_epoch_s")
        util = t.get("utilisation")
        parts = [
            f"<b>{self.tr('VRAM per GPU')}:</b> {fmt_gib(req.vram_total)} — {verdict}",
        ]
        if speed is not None and speed.value:
            text = (f"<b>{self.tr('Estimated throughput')}:</b> {speed.value:,.0f} samples/s; "
                    f"{self.tr('time per epoch')} "
                    f"{fmt_seconds(epoch.value if epoch else None)}")
            if util is not None and util.value:
                text += (f" ({self.tr('assumes')} {util.value:.0%} {self.tr('of')} "
                         f"{fmt_flops(t['peak_flops'].value)})")
            parts.append(text)
        elif speed is not None:
            parts.append(f"<b>{self.tr('Estimated throughput')}:</b> "
                         f"{escape(speed.note.get(self.lang))}")
        parts.append(f"<span style='color:#77767b'>{self.tr('planned in')} "
                     f"{self.last_plan_ms:.1f} ms</span>")
        self.headline.setText("<br/>".join(p for p in parts if p))
        tier = (f"<b>{escape(rec.tier.name.get(self.lang))}</b> (seed {rec.tier.section})"
                if rec.tier else self.tr("none of the seed's tiers"))
        gpu = (f"{escape(rec.gpu.name)} ({fmt_gib(rec.gpu.gpu.vram_bytes, 0)})"
               if rec.gpu else self.tr("no catalog GPU fits"))
        self.recommendation.setText(
            f"<b>{self.tr('Recommended')}:</b> {self.tr('lowest tier')} {tier}; "
            f"{self.tr('cheapest catalog GPU that fits')}: {gpu}")
        self.findings_view.set_findings(analysis.findings,
                                        empty=self.tr("No bottlenecks found."))
        self._show_scaling(analysis, rec)

    def _show_scaling(self, analysis: Analysis, rec: Any) -> None:
        """Efficiency vs GPU count for the candidate links; planned with the subject's GPU, or
        with the recommended catalog GPU when the subject has none."""
        from torchrig.planning.analysis import device_spec
        from torchrig.planning.requirements import plan
        from torchrig.planning.scaling_series import scaling_series

        req = analysis.requirements
        note = ""
        step = req.throughput.get("step_time_s")
        if (step is None or not step.value) and rec.gpu is not None:
            req = plan(self.workload, device_spec(rec.gpu))
            note = self.tr("modelled with {0}").format(rec.gpu.name)
        series = scaling_series(self.workload, req, analysis.subject, self.collective_report)
        self.scaling_chart.set_series(series, note if series else self.tr(
            "No scaling curve: inference, or no GPU throughput to model with."))

    def set_profile(self, profile: SystemProfile) -> None:
        self.profile = profile
        self.replan()

    def set_collective_report(self, report: Any) -> None:
        self.collective_report = report
        self.replan()

    def set_build_capabilities(self, caps: Capabilities | None) -> None:
        self.build_caps = caps
        if self.subject_box.currentData() == "build":
            self.replan()

    # --- files --------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open workload"), "",
                                              "Workload (*.json)")
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        try:
            workload = load_workload(path)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot open workload"), str(exc))
            return False
        self.load_workload(workload)
        return True

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save workload"), "workload.json",
                                              "Workload (*.json)")
        if not path:
            return
        try:
            save_workload(self.workload, Path(path))
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot save workload"), str(exc))


def _number_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _parse_number(text: str, kind: str) -> tuple[Any, str]:
    text = text.strip().replace(",", "").replace("_", "")
    if not text:
        return None, ""
    try:
        value = float(text)
    except ValueError:
        return None, f"'{text}' is not a number"
    if kind == "int":
        if not value.is_integer():
            return None, "must be a whole number"
        return int(value), ""
    return value, ""
