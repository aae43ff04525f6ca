"""Wizard: describe the work step by step; requirements, a recommendation and findings update
live on the right as you type.

Every edit rebuilds a workload document from the fields and validates it with the core's own
rules (``Workload.from_dict``); an error names its field, and the message is shown next to that
field. Planning is pure and fast (well under 50 ms), so it runs on every keystroke.
"""

from __future__ import annotations

import time
from decimal import Decimal
from html import escape
from pathlib import Path
from typing import Any

from torchrig import labels
from torchrig.builds.capabilities import Capabilities, from_profile, from_tier
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.findings import Severity
from torchrig.gui.charts import BreakdownChart, ScalingChart
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.qt import (
    QT_TRANSLATE_NOOP,
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
from torchrig.gui.style import colour
from torchrig.gui.verify_panel import VerifyPanel
from torchrig.gui.workers import TaskRunner
from torchrig.hardware.model import SystemProfile
from torchrig.i18n import Msg
from torchrig.planning.advice import Advice, advise, positive_amount, time_target_seconds
from torchrig.planning.analysis import Analysis, analyze
from torchrig.planning.breakdown import requirement_bars
from torchrig.planning.gpu_choice import candidate_gpus
from torchrig.planning.hf_config import hf_workload_fields, load_hf_config
from torchrig.planning.presets import load_presets
from torchrig.planning.solver import Change, SolverAnswer
from torchrig.planning.workload import (
    ARCH_FIELDS,
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
from torchrig.units import fmt_flops, fmt_gib, fmt_money, fmt_seconds

CHOICE_LABELS = {
    # tasks
    "image_classification": QT_TRANSLATE_NOOP("WizardPage", "Image classification"),
    "detection_segmentation": QT_TRANSLATE_NOOP("WizardPage", "Detection / segmentation"),
    "nlp_transformer": QT_TRANSLATE_NOOP("WizardPage", "NLP / transformer training"),
    "llm_finetune_full": QT_TRANSLATE_NOOP("WizardPage", "LLM fine-tuning (full)"),
    "llm_finetune_lora": QT_TRANSLATE_NOOP("WizardPage", "LLM fine-tuning (LoRA)"),
    "llm_inference": QT_TRANSLATE_NOOP("WizardPage", "LLM inference"),
    "reinforcement_learning": QT_TRANSLATE_NOOP("WizardPage", "Reinforcement learning"),
    "image_generation": QT_TRANSLATE_NOOP("WizardPage", "Image generation (diffusion)"),
    # modes
    "train": QT_TRANSLATE_NOOP("WizardPage", "Train from scratch"),
    "finetune": QT_TRANSLATE_NOOP("WizardPage", "Fine-tune"),
    "infer": QT_TRANSLATE_NOOP("WizardPage", "Inference"),
    # precisions
    "fp32": QT_TRANSLATE_NOOP("WizardPage", "FP32"),
    "tf32": QT_TRANSLATE_NOOP("WizardPage", "TF32 (FP32 with tensor cores)"),
    "amp_fp16": QT_TRANSLATE_NOOP("WizardPage", "AMP FP16 (mixed precision)"),
    "amp_bf16": QT_TRANSLATE_NOOP("WizardPage", "AMP BF16 (mixed precision)"),
    "bf16": QT_TRANSLATE_NOOP("WizardPage", "BF16 (pure)"),
    "int8": QT_TRANSLATE_NOOP("WizardPage", "INT8 weights (inference)"),
    "int4": QT_TRANSLATE_NOOP("WizardPage", "INT4 weights, GPTQ/AWQ style (inference)"),
    # optimizers
    "sgd": QT_TRANSLATE_NOOP("WizardPage", "SGD"),
    "sgd_momentum": QT_TRANSLATE_NOOP("WizardPage", "SGD with momentum"),
    "adamw": QT_TRANSLATE_NOOP("WizardPage", "AdamW"),
    "adam_8bit": QT_TRANSLATE_NOOP("WizardPage", "Adam 8-bit"),
    # strategies
    "ddp": QT_TRANSLATE_NOOP("WizardPage", "DDP (data parallel)"),
    "zero1": QT_TRANSLATE_NOOP("WizardPage", "ZeRO-1 (optimizer states sharded)"),
    "zero2": QT_TRANSLATE_NOOP("WizardPage", "ZeRO-2 (+ gradients sharded)"),
    "zero3": QT_TRANSLATE_NOOP("WizardPage", "ZeRO-3 / FSDP (+ weights sharded)"),
    "tensor_parallel": QT_TRANSLATE_NOOP("WizardPage", "Tensor parallel"),
    "pipeline_parallel": QT_TRANSLATE_NOOP("WizardPage", "Pipeline parallel"),
    "expert_parallel": QT_TRANSLATE_NOOP("WizardPage", "Expert parallel (MoE experts split)"),
    # offloads
    "none": QT_TRANSLATE_NOOP("WizardPage", "None"),
    "optimizer": QT_TRANSLATE_NOOP("WizardPage", "Optimizer states to CPU RAM"),
    "optimizer_and_params": QT_TRANSLATE_NOOP("WizardPage",
                                              "Optimizer states and weights to CPU RAM"),
    # classifier-free guidance
    "default": QT_TRANSLATE_NOOP("WizardPage", "The model's usual setting (on)"),
    "on": QT_TRANSLATE_NOOP("WizardPage", "On: two denoiser passes per step"),
    "off": QT_TRANSLATE_NOOP("WizardPage", "Off"),
}
"""Display names of the workload's choice values (the values stay codes in the file)."""

# Field key (as in the workload document) -> (step, label, kind). Kinds: choice, int, float,
# bool. The document keys are what validation errors name, so messages find their field.
STEPS = (
    QT_TRANSLATE_NOOP("WizardPage", "Task"),
    QT_TRANSLATE_NOOP("WizardPage", "Model"),
    QT_TRANSLATE_NOOP("WizardPage", "Training"),
    QT_TRANSLATE_NOOP("WizardPage", "Data"),
    QT_TRANSLATE_NOOP("WizardPage", "Scale"),
)
TASK_STEP, MODEL_STEP, TRAINING_STEP, DATA_STEP, SCALE_STEP = STEPS
FIELDS: dict[str, tuple[str, str, str]] = {
    "task": (TASK_STEP, QT_TRANSLATE_NOOP("WizardPage", "Task"), "choice"),
    "mode": (TASK_STEP, QT_TRANSLATE_NOOP("WizardPage", "Mode"), "choice"),
    "model": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Model"), "choice"),
    "params": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Parameters (custom)"), "int"),
    "layers": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Layers (custom)"), "int"),
    "hidden": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Hidden size (custom)"), "int"),
    "heads": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Attention heads (custom)"), "int"),
    "kv_heads": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "KV heads (custom)"), "int"),
    "vocab": (MODEL_STEP, QT_TRANSLATE_NOOP("WizardPage", "Vocabulary (custom)"), "int"),
    "precision": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Precision"), "choice"),
    "optimizer": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Optimizer"), "choice"),
    "batch_size": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Batch size per GPU"),
                   "int"),
    "image_size": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Image size (pixels)"),
                   "int"),
    "seq_len": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Sequence length (tokens)"),
                "int"),
    "gradient_checkpointing": (TRAINING_STEP,
                               QT_TRANSLATE_NOOP("WizardPage", "Gradient checkpointing"),
                               "bool"),
    "lora_rank": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "LoRA rank"), "int"),
    "epochs": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Epochs"), "float"),
    "ema": (TRAINING_STEP, QT_TRANSLATE_NOOP("WizardPage", "Keep a moving average of the "
                                             "weights (EMA)"), "bool"),
    "denoising_steps": (TRAINING_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Denoising steps per image (generation)"), "int"),
    "guidance": (TRAINING_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Classifier-free guidance (generation)"), "choice"),
    "dataset.samples": (DATA_STEP, QT_TRANSLATE_NOOP("WizardPage", "Samples per epoch"), "int"),
    "dataset.sample_bytes": (DATA_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Mean sample size on disk (bytes)"), "float"),
    "dataset.decoded_bytes": (DATA_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Decoded sample size (bytes, empty = derive)"), "float"),
    "dataset.cache_in_ram": (DATA_STEP, QT_TRANSLATE_NOOP("WizardPage",
                                                          "Cache the dataset in RAM"), "bool"),
    "precomputed_latents": (DATA_STEP, QT_TRANSLATE_NOOP(
        "WizardPage", "Images already encoded to VAE latents"), "bool"),
    "gpus_per_node": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "GPUs per node"), "int"),
    "nodes": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Nodes"), "int"),
    "strategy": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Strategy"), "choice"),
    "tp_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Tensor-parallel size"), "int"),
    "pp_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Pipeline-parallel size"), "int"),
    "ep_size": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "Expert-parallel size"), "int"),
    "offload": (SCALE_STEP, QT_TRANSLATE_NOOP("WizardPage", "CPU offload"), "choice"),
}
FIELD_HELP = {
    "task": QT_TRANSLATE_NOOP(
        "WizardPage", "The kind of work; choosing one loads that task's typical defaults"),
    "mode": QT_TRANSLATE_NOOP(
        "WizardPage", "Training keeps gradients and optimizer states in memory; inference "
        "needs only the weights and activations"),
    "model": QT_TRANSLATE_NOOP(
        "WizardPage", "A model preset with published parameter counts, or Custom… to enter "
        "the architecture yourself"),
    "params": QT_TRANSLATE_NOOP(
        "WizardPage", "Total trainable parameters, e.g. 7000000000 for a 7B model"),
    "layers": QT_TRANSLATE_NOOP("WizardPage", "Number of transformer blocks"),
    "hidden": QT_TRANSLATE_NOOP("WizardPage", "Width of the hidden state (d_model)"),
    "heads": QT_TRANSLATE_NOOP("WizardPage", "Attention heads per layer"),
    "kv_heads": QT_TRANSLATE_NOOP(
        "WizardPage", "Key/value heads (fewer than attention heads with grouped-query "
        "attention); sets the KV cache size"),
    "vocab": QT_TRANSLATE_NOOP("WizardPage", "Tokenizer vocabulary size (embedding rows)"),
    "precision": QT_TRANSLATE_NOOP(
        "WizardPage", "Number format of weights and math. Mixed precision (AMP) halves "
        "activation memory and uses tensor cores; Adam's states stay FP32 (seed 3.1)"),
    "optimizer": QT_TRANSLATE_NOOP(
        "WizardPage", "Sets the optimizer state per parameter: none for SGD, one for "
        "momentum, two FP32 moments for AdamW"),
    "batch_size": QT_TRANSLATE_NOOP(
        "WizardPage", "Samples one GPU processes per step (the micro-batch); activation "
        "memory grows with it"),
    "image_size": QT_TRANSLATE_NOOP(
        "WizardPage", "Input side length in pixels (224 for ImageNet classification)"),
    "seq_len": QT_TRANSLATE_NOOP(
        "WizardPage", "Tokens per sample; attention activations and the KV cache grow "
        "with it"),
    "gradient_checkpointing": QT_TRANSLATE_NOOP(
        "WizardPage", "Recompute activations in the backward pass: much less activation "
        "memory for extra compute time (seed 3.3)"),
    "lora_rank": QT_TRANSLATE_NOOP(
        "WizardPage", "Rank of the LoRA adapters; only the adapters are trained"),
    "epochs": QT_TRANSLATE_NOOP(
        "WizardPage", "Passes over the dataset; used for the time estimate"),
    "ema": QT_TRANSLATE_NOOP(
        "WizardPage", "Training keeps an FP32 exponential moving average of the weights, as "
        "diffusion training usually does: 4 more bytes per trained parameter"),
    "denoising_steps": QT_TRANSLATE_NOOP(
        "WizardPage", "Image generation: denoiser passes per image (empty = 50); guidance "
        "doubles each"),
    "guidance": QT_TRANSLATE_NOOP(
        "WizardPage", "Image generation: guidance runs the denoiser with and without the "
        "prompt (or class) at every step, twice the work per image"),
    "precomputed_latents": QT_TRANSLATE_NOOP(
        "WizardPage", "Image generation training: the images were encoded to latents "
        "beforehand, so the VAE does not encode each batch (less memory and time)"),
    "dataset.samples": QT_TRANSLATE_NOOP(
        "WizardPage", "Images, sequences or environment steps in one epoch"),
    "dataset.sample_bytes": QT_TRANSLATE_NOOP(
        "WizardPage", "Average size of one sample as stored (e.g. a JPEG); sets the disk "
        "read rate the loader needs"),
    "dataset.decoded_bytes": QT_TRANSLATE_NOOP(
        "WizardPage", "One sample after decoding, in RAM; empty derives it from the image "
        "size or sequence length"),
    "dataset.cache_in_ram": QT_TRANSLATE_NOOP(
        "WizardPage", "Keep the decoded dataset in RAM so epochs after the first do not read "
        "the disk (seed 1.2)"),
    "gpus_per_node": QT_TRANSLATE_NOOP("WizardPage", "GPUs in each machine"),
    "nodes": QT_TRANSLATE_NOOP("WizardPage", "Machines; more than one adds network traffic"),
    "strategy": QT_TRANSLATE_NOOP(
        "WizardPage", "How the work is split over GPUs: DDP copies the model to every GPU, "
        "ZeRO/FSDP shard its states, tensor and pipeline parallelism split the model "
        "(seed 3.2)"),
    "tp_size": QT_TRANSLATE_NOOP(
        "WizardPage", "GPUs that split each layer (tensor parallelism); keep it within one "
        "node's NVLink domain"),
    "pp_size": QT_TRANSLATE_NOOP("WizardPage", "Pipeline stages the layers are split into"),
    "ep_size": QT_TRANSLATE_NOOP(
        "WizardPage", "GPUs a mixture of experts' routed experts are split over (each GPU keeps "
        "the attention and shared layers)"),
    "offload": QT_TRANSLATE_NOOP(
        "WizardPage", "Move optimizer states (and weights) to CPU RAM to save VRAM, at the "
        "cost of PCIe traffic"),
}
GUIDANCE = {"default": None, "on": True, "off": False}
"""The guidance combo's values and the workload's (None: the model's usual setting)."""
CHOICES = {"task": TASKS, "mode": MODES, "precision": PRECISIONS, "optimizer": OPTIMIZERS,
           "strategy": STRATEGIES, "offload": OFFLOADS, "guidance": tuple(GUIDANCE)}
CUSTOM_ONLY = ("params", "layers", "hidden", "heads", "kv_heads", "vocab")


class WizardPage(QWidget):
    """Signals:
        workload_changed(object): a valid Workload after each edit (for the Report page).
    Attributes:
        workload: the last valid workload; analysis: its last Analysis (or None).
        last_plan_ms: how long the last re-plan took (shown, and measured in tests).
    """

    workload_changed = Signal(object)

    def __init__(self, catalog: Catalog, lang: str = "en", parent: QWidget | None = None,
                 default_cny_per_usd: Decimal | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.lang = lang
        self.default_cny_per_usd = default_cny_per_usd
        self.presets = load_presets()
        self.profile: SystemProfile | None = None
        self.build_caps: Capabilities | None = None
        self.workload: Workload = default_workload("image_classification")
        self.analysis: Analysis | None = None
        self.collective_report: Any = None  # attached on the Benchmark page (cluster tab)
        self.last_plan_ms = 0.0
        self.stale = False  # a field is invalid: the results shown are the last valid plan
        # Planning re-plans the workload on every catalog GPU (the overkill rule, the
        # recommendation: ~25-40 plans, 40-60 ms on a busy machine), so it runs on a worker
        # thread and typing never waits for it. Each edit takes a new generation number; a
        # plan is shown only if no newer edit came meanwhile, and an edit made while a plan
        # runs is planned when it ends - so a burst of keystrokes costs at most two plans.
        self._generation = 0
        self._wanted: tuple[int, Workload, Capabilities, tuple[Any, ...]] | None = None
        self._shut_down = False
        self.plan_runner = TaskRunner(self)
        self.plan_runner.succeeded.connect(self._on_planned)
        self.plan_runner.failed.connect(self._on_plan_failed)
        self.plan_runner.finished.connect(self._plan_next)
        self._priced: tuple[str, ...] = ()  # GPUs the user gave an hourly price for
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
            button.clicked.connect(lambda _checked=False, s=slot: s())
            bar.addWidget(button)
        self.import_button = QPushButton(self.tr("Import config.json…"))
        self.import_button.setToolTip(self.tr(
            "Read a Hugging Face model's config.json (Llama, Mistral, Mixtral, Qwen, Gemma, "
            "Phi-3, DeepSeek, GPT-2, BERT/RoBERTa) as a custom model"))
        self.import_button.clicked.connect(lambda: self.import_config_dialog())
        bar.addWidget(self.import_button)
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
        # The first plan waits for the event loop: the window paints before any planning.
        self.load_workload(self.workload, replan=False)
        self._timer.start()

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
            self.tabs.addTab(scroll, self.tr("{0}. {1}").format(i + 1, self.tr(step)))
        for key, (step, label, kind) in FIELDS.items():
            widget: QWidget
            if kind == "choice":
                combo = QComboBox()
                if key != "model":
                    for value in CHOICES[key]:
                        combo.addItem(self.tr(CHOICE_LABELS[value]), value)
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
        layout.addWidget(self._money_controls())
        self.solver_box = QWidget()
        self.solver_layout = QVBoxLayout(self.solver_box)
        self.solver_layout.setContentsMargins(0, 0, 0, 0)
        self.solver_box.hide()
        self.apply_buttons: list[QPushButton] = []
        layout.addWidget(self.solver_box)
        self.findings_view = FindingsView(self.lang)
        self.scaling_chart = ScalingChart(self.lang)
        tabs = QTabWidget()
        tabs.addTab(self.findings_view, self.tr("Findings"))
        tabs.addTab(self.scaling_chart, self.tr("Multi-GPU scaling"))
        self.verify_panel = VerifyPanel(self.lang)
        self.verify_panel.workload_measured.connect(self.load_workload)
        tabs.addTab(self.verify_panel, self.tr("On this machine"))
        self.result_tabs = tabs
        layout.addWidget(tabs, 1)
        return host

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
        self.rate_edit = QLineEdit("" if self.default_cny_per_usd is None
                                   else str(self.default_cny_per_usd))
        self.rate_edit.setPlaceholderText(self.tr("no exchange rate"))
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
            edit.textEdited.connect(lambda _t: self._timer.start())
        for combo in (self.currency_box, self.hourly_gpu_box):
            combo.currentIndexChanged.connect(lambda _i: self._timer.start())
        return box

    def set_default_exchange_rate(self, rate: Decimal | None) -> None:
        """The Settings' default rate, shown in the exchange-rate field unless the user has
        typed one of their own."""
        shown = "" if self.default_cny_per_usd is None else str(self.default_cny_per_usd)
        self.default_cny_per_usd = rate
        if self.rate_edit.text().strip() == shown:
            self.rate_edit.setText("" if rate is None else str(rate))
            self.replan()

    def money_terms(self) -> tuple[float | None, str, Decimal | None, dict[str, Decimal]]:
        """(time target in seconds, currency, CNY per USD, {GPU: hourly price}) from the fields;
        a field that does not parse is left out and named in the error line below them."""
        errors: list[str] = []
        target = None
        text = self.time_target_edit.text().strip().replace(",", "")
        if text:
            try:
                target = time_target_seconds(float(text), "time target")
            except (ValueError, InputError):
                errors.append(self.tr("Time target: give a positive number of hours"))
        rate = None
        if self.rate_edit.text().strip():
            try:
                rate = positive_amount(self.rate_edit.text().replace(",", ""), "exchange rate")
            except InputError:
                errors.append(self.tr("Exchange rate: give a positive number of CNY per USD"))
        hourly: dict[str, Decimal] = {}
        if self.hourly_price_edit.text().strip():
            try:
                hourly[self.hourly_gpu_box.currentData()] = positive_amount(
                    self.hourly_price_edit.text().replace(",", ""), "GPU-hour price")
            except InputError:
                errors.append(self.tr("Price per GPU-hour: give a positive amount"))
        self.money_error.setText("\n".join(errors))
        self.money_error.setVisible(bool(errors))
        return target, self.currency_box.currentData(), rate, hourly

    # --- fields <-> workload -------------------------------------------------------------------

    def _set_models_for(self, task: str, current: str) -> None:
        combo = self.widgets["model"]
        assert isinstance(combo, QComboBox)
        combo.blockSignals(True)
        combo.clear()
        for preset in self.presets.values():
            if task in preset.tasks:
                combo.addItem(labels.label(labels.MODELS, preset.id, self.lang), preset.id)
        combo.addItem(self.tr("Custom…"), "custom")
        index = combo.findData(current)
        combo.setCurrentIndex(index if index >= 0 else 0)
        combo.blockSignals(False)

    def load_workload(self, workload: Workload, replan: bool = True) -> None:
        self._loading = True
        try:
            doc = workload.to_dict()
            flat = {k: v for k, v in doc.items() if k != "dataset"}
            flat.update({f"dataset.{k}": v for k, v in doc["dataset"].items()})
            self._set_models_for(workload.task, workload.model)
            for key, widget in self.widgets.items():
                value = flat.get(key)
                if isinstance(widget, QComboBox):
                    if key == "guidance":
                        value = next(k for k, v in GUIDANCE.items() if v is value)
                    if key != "model":
                        widget.setCurrentIndex(max(0, widget.findData(value)))
                elif isinstance(widget, QCheckBox):
                    widget.setChecked(bool(value))
                elif isinstance(widget, QLineEdit):
                    widget.setText("" if value is None else _number_text(value))
        finally:
            self._loading = False
        self.workload = workload
        if replan:
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
                if key == "guidance":
                    value = GUIDANCE[value]
            elif isinstance(widget, QCheckBox):
                value = widget.isChecked()
            else:
                assert isinstance(widget, QLineEdit)
                value, error = self._parse_number(widget.text(), kind)
                if error:
                    errors[key] = error
                    continue
            if key in CUSTOM_ONLY and not custom:
                value = None
            if key.startswith("dataset."):
                doc["dataset"][key.split(".", 1)[1]] = value
            else:
                doc[key] = value
        if not custom:
            # A preset has its own shape: drop what an imported config or a custom model set.
            for key in ("params", "style", *ARCH_FIELDS):
                doc[key] = None
        return doc, errors

    def _parse_number(self, text: str, kind: str) -> tuple[Any, str]:
        """(value, "") or (None, a message for the field); empty text is (None, "")."""
        text = text.strip().replace(",", "").replace("_", "")
        if not text:
            return None, ""
        try:
            value = float(text)
        except ValueError:
            return None, self.tr("'{0}' is not a number").format(text)
        if kind == "int":
            if not value.is_integer():
                return None, self.tr("must be a whole number")
            return int(value), ""
        return value, ""

    def snapshot(self) -> dict[str, Any]:
        """Every field as typed (including text that does not parse yet), the subject, the
        step and the attached collective report."""
        fields: dict[str, Any] = {}
        for key, widget in self.widgets.items():
            if isinstance(widget, QComboBox):
                fields[key] = widget.currentData()
            elif isinstance(widget, QCheckBox):
                fields[key] = widget.isChecked()
            elif isinstance(widget, QLineEdit):
                fields[key] = widget.text()
        money = {"time_target": self.time_target_edit.text(),
                 "currency": self.currency_box.currentData(), "rate": self.rate_edit.text(),
                 "hourly_gpu": self.hourly_gpu_box.currentData(),
                 "hourly_price": self.hourly_price_edit.text()}
        return {"workload": self.workload, "fields": fields, "step": self.tabs.currentIndex(),
                "subject": self.subject_box.currentData(),
                "collective_report": self.collective_report, "money": money}

    def restore(self, state: dict[str, Any]) -> None:
        self.collective_report = state["collective_report"]
        self.subject_box.blockSignals(True)
        self.subject_box.setCurrentIndex(max(0, self.subject_box.findData(state["subject"])))
        self.subject_box.blockSignals(False)
        self.load_workload(state["workload"])  # fills the model list for the task
        self._loading = True
        try:
            for key, value in state["fields"].items():
                widget = self.widgets[key]
                if isinstance(widget, QComboBox):
                    widget.setCurrentIndex(max(0, widget.findData(value)))
                elif isinstance(widget, QCheckBox):
                    widget.setChecked(bool(value))
                elif isinstance(widget, QLineEdit):
                    widget.setText(value)
        finally:
            self._loading = False
        money = state.get("money")
        if money:
            self.time_target_edit.setText(money["time_target"])
            self.currency_box.setCurrentIndex(max(0, self.currency_box.findData(
                money["currency"])))
            self.rate_edit.setText(money["rate"])
            self.hourly_gpu_box.setCurrentIndex(max(0, self.hourly_gpu_box.findData(
                money["hourly_gpu"])))
            self.hourly_price_edit.setText(money["hourly_price"])
        self.tabs.setCurrentIndex(state["step"])
        self.replan()

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
            return from_profile(self.profile, self.catalog) if self.profile else None
        if choice == "build":
            return self.build_caps
        return from_tier(self.catalog.tier(choice.split(":", 1)[1]), self.catalog)

    def replan(self) -> None:
        doc, errors = self.document()
        if errors:
            self._show_errors(errors)
            self._mark_stale(True)
            return
        try:
            workload = Workload.from_dict(doc, where="workload")
        except InputError as exc:
            message = str(exc).removeprefix("workload: ")
            key = next((k for k in FIELDS if f"'{k}'" in message
                        or f"'{k.split('.')[-1]}'" in message), None)
            self._show_errors({key: message} if key else {}, "" if key else message)
            self._mark_stale(True)
            return
        self._show_errors({})
        self._mark_stale(False)
        self.workload = workload
        self.verify_panel.set_workload(workload)
        caps = self.subject()
        if caps is None:
            caps = Capabilities(label=Msg.verbatim(self.tr("This machine (detecting…)")),
                                kind="machine")
        # The money terms are read here, on the GUI thread (their field errors show at once);
        # the recommendation is worked out with them on the worker.
        target, currency, rate, hourly = self.money_terms()
        self._priced = tuple(hourly)
        self._generation += 1
        self._wanted = (self._generation, workload, caps, (currency, rate, hourly, target))
        self._plan_next()
        self.workload_changed.emit(workload)

    @property
    def planning(self) -> bool:
        """A re-plan is due, waiting or running: what is shown is not yet for the input."""
        return self._timer.isActive() or self._wanted is not None or self.plan_runner.running

    def _plan_next(self) -> None:
        """Plan the newest edit on the worker thread, unless a plan is running (its end calls
        this again)."""
        if self._wanted is None or self.plan_runner.running or self._shut_down:
            return
        generation, workload, caps, (currency, rate, hourly, target) = self._wanted
        self._wanted = None
        catalog = self.catalog

        def task(_cancel: Any, _progress: Any) -> tuple[int, Analysis, Advice, float]:
            started = time.perf_counter()
            analysis = analyze(workload, caps, catalog)
            # The same advise() -> recommend() path as `torchrig plan --recommend`;
            # gpu_options' cache makes the re-plans the overkill rule did cheap here.
            advice = advise(workload, catalog, currency, rate, hourly, target)
            return generation, analysis, advice, (time.perf_counter() - started) * 1000

        self.plan_runner.start(task)

    def _on_planned(self, result: tuple[int, Analysis, Advice, float]) -> None:
        generation, analysis, advice, ms = result
        if generation != self._generation:
            return  # a newer edit is on its way
        self.analysis, self.last_plan_ms = analysis, ms
        self._show(analysis)
        self._show_recommendation(advice)

    def _on_plan_failed(self, message: str, details: str) -> None:
        # A planner bug must not look like an answer: say so where the verdict goes.
        self.headline.setText(_coloured(self.tr("Planning failed: {0}").format(message),
                                        colour("error")))
        self.headline.setToolTip(details)

    def _mark_stale(self, stale: bool) -> None:
        """While a field is invalid the results are the last valid plan's: greyed out, and the
        headline says so, so nobody reads them as the answer for what is typed now."""
        self.stale = stale
        for widget in (self.chart, self.findings_view, self.recommendation):
            widget.setEnabled(not stale)
        if stale and not self.headline.text().startswith("<p><b>"):
            note = self.tr("Out of date: these results are for the last valid input. Correct the "
                           "field marked in red to plan again.")
            self.headline.setText(f"<p><b>{escape(note)}</b></p>"
                                  f"<span style='color:{colour('muted')}'>"
                                  f"{self.headline.text()}</span>")

    def _show(self, analysis: Analysis) -> None:
        self.headline.setToolTip("")
        req = analysis.requirements
        caps = analysis.subject
        self.chart.set_bars(requirement_bars(req, caps))
        t = req.throughput
        fits = req.fits
        subject = caps.label.get(self.lang)
        if caps.gpu_count == 0:
            verdict = escape(self.tr("no GPU on {0}").format(subject))
        elif fits is None:
            verdict = escape(self.tr("GPU memory of {0} unknown").format(subject))
        elif fits:
            verdict = _coloured(self.tr("fits on {0}").format(subject), colour("ok"))
        elif req.vram_verdict == "tight":
            verdict = _coloured(self.tr("tight on {0}: only the safety margin is short").format(
                subject), colour("warn"))
        else:
            verdict = _coloured(self.tr("does not fit on {0}").format(subject),
                                colour("error"))
        speed = t.get("samples_per_s")
        epoch = t.get("time_per_epoch_s")
        util = t.get("utilisation")
        parts = [_bold(self.tr("VRAM per GPU:")) + f" {fmt_gib(req.vram_total)} — {verdict}"]
        # The VRAM verdict alone read "fits" in green beside a Blocker: say what blocks.
        blockers = [f for f in analysis.findings if f.severity == Severity.BLOCKER]
        if blockers:
            first = blockers[0].title.get(self.lang)
            text = (self.tr("Not ready: 1 blocker ({0})").format(first) if len(blockers) == 1
                    else self.tr("Not ready: {0} blockers, first: {1}").format(len(blockers),
                                                                              first))
            parts.insert(0, _coloured(text, colour("error")))
        throughput = _bold(self.tr("Estimated throughput:"))
        if speed is not None and speed.value:
            rate = f"{speed.value:,.0f}"
            per_epoch = fmt_seconds(epoch.value if epoch else None, self.lang)
            text = (self.tr("1 sample/s; time per epoch {0}").format(per_epoch) if rate == "1"
                    else self.tr("{0} samples/s; time per epoch {1}").format(rate, per_epoch))
            if util is not None and util.value:
                text += " " + self.tr("(assumes {0} of {1})").format(
                    f"{util.value:.0%}", fmt_flops(t["peak_flops"].value))
            parts.append(f"{throughput} {escape(text)}")
        elif speed is not None:
            parts.append(f"{throughput} {escape(speed.note.get(self.lang))}")
        parts.append(_coloured(self.tr("planned in {0} ms").format(f"{self.last_plan_ms:.1f}"),
                               colour("muted")))
        self.headline.setText("<br/>".join(p for p in parts if p))
        self.findings_view.set_findings(analysis.findings,
                                        empty=self.tr("No bottlenecks found."))
        self._show_solver(analysis.solver)

    def _show_recommendation(self, advice: Advice) -> None:
        """The lowest tier and the best-value GPU with the time and money behind them, and
        the scaling chart that may be modelled with that GPU."""
        assert self.analysis is not None
        rec = advice.recommendation
        if rec.tier:
            tier = _bold(rec.tier.name.get(self.lang)) + " " + escape(
                self.tr("(seed {0})").format(rec.tier.section))
        else:
            tier = escape(self.tr("none of the seed's tiers"))
        gpu = (f"{escape(rec.gpu.name)} ({fmt_gib(rec.gpu.gpu.vram_bytes, 0)})"
               if rec.gpu else escape(self.tr("no catalog GPU fits")))
        lines = [_bold(self.tr("Recommended:")) + " "
                 + self.tr("lowest tier {0}; catalog GPU of best value that fits (price per "
                           "unit of work): {1}").format(tier, gpu)]
        lines += self._money_lines(advice)
        self.recommendation.setText("<br/>".join(lines))
        self._show_scaling(self.analysis, advice)

    def _money_lines(self, advice: Advice) -> list[str]:
        """The time and money behind the recommendation: the tier's run time against the
        target, the best-value GPU's price and time, and the user's hourly price worked out."""
        rec = advice.recommendation
        lines: list[str] = []
        target = advice.time_target_s
        if rec.time_s is not None:
            text = self.tr("run time on the tier's GPU: {0}").format(
                fmt_seconds(rec.time_s, self.lang))
            if target is not None:
                text += " " + self.tr("(target {0})").format(fmt_seconds(target, self.lang))
            lines.append(escape(text))
        elif target is not None and rec.tier is None:
            lines.append(_coloured(self.tr("No tier finishes within {0}.").format(
                fmt_seconds(target, self.lang)), colour("warn")))
        options = {o.part.id: o for o in advice.options}
        best = options.get(rec.gpu.id) if rec.gpu is not None else None
        if best is not None:
            price = (self.tr("no price in {0}").format(advice.currency) if best.price is None
                     else fmt_money(float(best.price), best.currency))
            lines.append(escape(self.tr("{0}: {1} per GPU, run time {2}").format(
                best.part.name, price, fmt_seconds(best.time_s, self.lang))))
        for part_id, option in options.items():
            if part_id not in self._priced:
                continue
            cost = option.cost_per_epoch if option.cost_per_epoch is not None \
                else option.cost_per_million_tokens
            if cost is None:
                text = self.tr("At your price, {0}: no epoch or token rate to cost").format(
                    option.part.name)
            elif option.cost_per_epoch is not None:
                text = self.tr("At your price, {0}: {1} per epoch, run time {2}").format(
                    option.part.name, fmt_money(float(cost), option.currency),
                    fmt_seconds(option.time_s, self.lang))
            else:
                text = self.tr("At your price, {0}: {1} per million tokens").format(
                    option.part.name, fmt_money(float(cost), option.currency))
            if option.meets_target is False:
                text += " " + self.tr("(misses the time target)")
            lines.append(escape(text))
        return lines

    def _show_solver(self, answer: SolverAnswer | None) -> None:
        """The sizing solver's changes, settings first, each with an Apply button."""
        while self.solver_layout.count():
            item = self.solver_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.apply_buttons = []
        if answer is None or not answer.changes:
            self.solver_box.hide()
            return
        title = QLabel(_bold(self.tr("Changes that make it fit (re-planned):")))
        title.setTextFormat(Qt.TextFormat.RichText)
        self.solver_layout.addWidget(title)
        for change in answer.changes:
            row = QWidget()
            row_layout = QHBoxLayout(row)
            row_layout.setContentsMargins(0, 0, 0, 0)
            time = (self.tr("time unknown") if change.time_ratio is None else
                    self.tr("time ×{0}").format(f"{change.time_ratio:.2f}"))
            text = QLabel(escape(f"{change.label.get(self.lang)} — "
                                 f"{fmt_gib(change.vram_needed)}, {time}"))
            text.setToolTip(change.time_note.get(self.lang))
            text.setWordWrap(True)
            row_layout.addWidget(text, 1)
            if change.kind == "setting":
                button = QPushButton(self.tr("Apply"))
                button.setToolTip(self.tr("Change the workload to this setting"))
                button.clicked.connect(lambda _checked=False, c=change: self.apply_change(c))
                row_layout.addWidget(button)
                self.apply_buttons.append(button)
            self.solver_layout.addWidget(row)
        self.solver_box.show()

    def apply_change(self, change: Change) -> None:
        try:
            workload = change.apply(self.workload)
        except InputError as exc:
            QMessageBox.warning(self, self.tr("Cannot apply the change"), str(exc))
            return
        self.load_workload(workload)

    def _show_scaling(self, analysis: Analysis, advice: Advice) -> None:
        """Efficiency vs GPU count for the candidate links; planned with the subject's GPU, or
        with the recommended catalog GPU when the subject has none."""
        rec = advice.recommendation
        from torchrig.planning.device import device_spec
        from torchrig.planning.requirements import plan
        from torchrig.planning.scaling_series import scaling_series

        req = analysis.requirements
        note = ""
        step = req.throughput.get("step_time_s")
        if (step is None or not step.value) and rec.gpu is not None:
            req = plan(req.workload, device_spec(rec.gpu))
            note = self.tr("modelled with {0}").format(rec.gpu.name)
        series = scaling_series(req.workload, req, analysis.subject, self.collective_report)
        self.scaling_chart.set_series(series, note if series else self.tr(
            "No scaling curve: inference, or no GPU throughput to model with."))

    def shutdown(self) -> bool:
        # The page is closing or being rebuilt: nothing may start a plan after this (a
        # pending re-plan timer or a late profile), or the thread would outlive the page.
        self._shut_down = True
        self._timer.stop()
        self._wanted = None
        planner_stopped = self.plan_runner.shutdown()
        return self.verify_panel.shutdown() and planner_stopped

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
                                              self.tr("Workload (*.json)"))
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
            model = load_hf_config(path)
            text_tasks = ("nlp_transformer", "llm_finetune_full", "llm_finetune_lora",
                          "llm_inference")
            task = self.workload.task if self.workload.task in text_tasks \
                and model.task != "nlp_transformer" else None
            fields = hf_workload_fields(model, task)
            doc = default_workload(fields["task"]).to_dict()
            doc.update(fields)
            workload = Workload.from_dict(doc, where=str(path))
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


def _number_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _bold(text: str) -> str:
    return f"<b>{escape(text)}</b>"


def _coloured(text: str, hex_colour: str) -> str:
    return f"<span style='color:{hex_colour}'>{escape(text)}</span>"
