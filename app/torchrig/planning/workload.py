"""Workload: what the user wants to run, as a validated, versioned, JSON-serialisable value.

A workload says which task, model, precision, optimizer, batch, data and parallel layout the
user has in mind; :func:`torchrig.planning.requirements.plan` turns it into hardware
requirements. Every constructor that takes user input (:meth:`Workload.from_dict`,
:func:`workload_from_options`, :func:`load_workload`) validates it and raises
:class:`~torchrig.errors.InputError` naming the field, so the planner never sees nonsense.

Fields left out of a file or a command line take the task's defaults
(:func:`default_workload`), so ``{"format": "torchrig.workload", "version": 1, "task":
"llm_inference"}`` is a complete workload.

Validation is two tables read by short loops: each field's own rule (type, choices, range) in
:data:`torchrig.planning.workload_fields.FIELDS`, the rules between fields in :data:`_RULES`
here. Reading a document and saving a workload both end in :func:`_check`, so both refuse the
same things with the same messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.jsonio import atomic_write_json, load_versioned, upgrade_document
from torchrig.planning.low_precision_rules import REFUSALS
from torchrig.planning.measurement_rules import MEASUREMENT_FIELDS as MEASUREMENT_FIELDS
from torchrig.planning.measurement_rules import MEASUREMENT_RULES
from torchrig.planning.param_parts import PRESET_HEAD, head_difference, param_parts
from torchrig.planning.pipeline_rules import PIPELINE_RULES
from torchrig.planning.presets import ModelPreset, TransformerArch, get_preset
from torchrig.planning.rule_kit import Rule as _Rule
from torchrig.planning.rule_kit import given as _given
from torchrig.planning.rule_kit import given_without_arch as _given_without_arch
from torchrig.planning.rule_kit import group as _group

# The enumerations imported "X as X" are re-exported: they are defined with the per-field table,
# and the CLI, the Wizard and hf_config import them from here.
from torchrig.planning.workload_fields import ACTIVATIONS as ACTIVATIONS
from torchrig.planning.workload_fields import ATTENTIONS as ATTENTIONS
from torchrig.planning.workload_fields import (
    FIELD,
    FIELDS,
    SAVE_CHECKED,
    TASKS,
    check_saved,
    read_field,
)
from torchrig.planning.workload_fields import KV_CACHE_DTYPES as KV_CACHE_DTYPES
from torchrig.planning.workload_fields import MEASURED_ATTENTIONS as MEASURED_ATTENTIONS
from torchrig.planning.workload_fields import MEASURED_DEVICES as MEASURED_DEVICES
from torchrig.planning.workload_fields import MODES as MODES
from torchrig.planning.workload_fields import OFFLOADS as OFFLOADS
from torchrig.planning.workload_fields import OPTIMIZERS as OPTIMIZERS
from torchrig.planning.workload_fields import PRECISIONS as PRECISIONS
from torchrig.planning.workload_fields import STRATEGIES as STRATEGIES
from torchrig.records import field, field_names, record

WORKLOAD_FORMAT = "torchrig.workload"
WORKLOAD_VERSION = 1

VISION_TASKS = ("image_classification", "detection_segmentation", "reinforcement_learning")
TEXT_TASKS = ("nlp_transformer", "llm_finetune_full", "llm_finetune_lora", "llm_inference")
QUANTIZED = ("int8", "int4")
LOW_PRECISION = ("fp8", "fp4")
"""Weights and activations in 8 or 4 bits on fp8 / fp4 tensor cores (serving; fp8 also
trains transformers, docs/estimation.md sec. 14)."""
CUSTOM = "custom"

ARCH_FIELDS = ("layers", "hidden", "heads", "kv_heads", "vocab", "ffn", "head_dim",
               "tied_embeddings", "qkv_bias", "activation", "experts", "active_experts",
               "expert_ffn", "shared_expert_ffn", "dense_layers", "kv_lora_rank", "q_lora_rank",
               "rope_head_dim", "v_head_dim", "sliding_window", "sliding_layers",
               "max_positions")
"""A custom transformer's shape (``--model custom``; what ``--hf-config`` fills in)."""
MOE_FIELDS = ("experts", "active_experts", "expert_ffn")
CONFIG_FIELDS = ("hidden_dropout", "attention_dropout", "embedding_dropout", "head",
                 "num_labels")
"""What else a transformer's config says that changes its memory (dropout masks, the head);
allowed on a preset too (fine-tuning BERT-base without dropout is a choice, not a new model)."""


@record
class Dataset:
    """The training data as the planner needs it.

    Attributes:
        samples: number of samples per epoch (images, sequences, environment steps).
        sample_bytes: mean size of one sample on disk, bytes (what the loader reads).
        decoded_bytes: one decoded sample in RAM, bytes; None = derived (image: h x w x channels
            uint8; text: tokens x 8 bytes of int64 ids).
        cache_in_ram: whether the decoded dataset is held in RAM (seed 1.2's 15 GB example).
    """

    samples: int
    sample_bytes: float
    decoded_bytes: float | None = None
    cache_in_ram: bool = False


@record
class Workload:
    """One planned run. Sizes are per GPU where it matters: ``batch_size`` is the micro-batch
    on one GPU (one data-parallel rank). See the module docstring for defaults."""

    task: str
    mode: str
    model: str
    precision: str
    optimizer: str
    batch_size: int
    dataset: Dataset
    grad_accumulation: int = 1
    seq_len: int | None = None
    output_tokens: int | None = None
    """LLM inference: tokens generated per request (``seq_len`` is then the prompt); None =
    ``seq_len`` is the whole context and the generated length is not given."""
    kv_cache_dtype: str = "auto"
    """LLM inference: the KV cache's element type; "auto" = the model's 16-bit type (vLLM's
    ``--kv-cache-dtype auto``), 4 bytes under fp32/tf32."""
    image_size: int | None = None
    gradient_checkpointing: bool = False
    lora_rank: int | None = None
    attention: str = "sdpa"
    params: int | None = None
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    vocab: int | None = None
    ffn: int | None = None
    head_dim: int | None = None
    max_positions: int | None = None
    tied_embeddings: bool | None = None
    qkv_bias: bool | None = None
    activation: str | None = None
    experts: int | None = None
    active_experts: int | None = None
    expert_ffn: int | None = None
    shared_expert_ffn: int | None = None
    dense_layers: int | None = None
    kv_lora_rank: int | None = None
    q_lora_rank: int | None = None
    rope_head_dim: int | None = None
    v_head_dim: int | None = None
    sliding_window: int | None = None
    sliding_layers: int | None = None
    style: str | None = None
    activation_bytes_per_sample: float | None = None
    forward_flops_per_sample: float | None = None
    # Where the two figures above came from (e.g. "measured by torchrig verify ..."); shown
    # with them so a later plan says whose number it uses.
    figures_source: str | None = None
    # The measurement the two figures come from (torchrig verify --apply), so the planner can
    # tell whether it matches the plan (the attention kept, the precision class) and scale it
    # to the planned batch and length; all given together (the rules below).
    measured_device: str | None = None
    """Device kind of the measurement (:data:`MEASURED_DEVICES`)."""
    measured_attention: str | None = None
    """The attention the measurement ran (:data:`MEASURED_ATTENTIONS`; transformers only)."""
    measured_precision: str | None = None
    """The precision the measurement ran (autocast dtype included: amp_fp16 / amp_bf16)."""
    measured_batch: int | None = None
    measured_seq_len: int | None = None
    """Tokens per sequence of the measurement (transformers only)."""
    measured_image_size: int | None = None
    """Image side in pixels of the measurement (vision models only); None in files written
    before it was recorded: the figure is then taken at the planned image size."""
    measured_checkpointing: bool | None = None
    measured_date: str | None = None
    """ISO date (YYYY-MM-DD) of the measurement."""
    gpus_per_node: int = 1
    nodes: int = 1
    network: str | None = None  # between nodes (NETWORKS); None: the device's, if it knows one
    nics_per_node: int | None = None  # ports of that network per node; None: the device's (1)
    strategy: str = "ddp"
    tp_size: int = 1
    pp_size: int = 1
    vp_size: int = 1
    """Model chunks per pipeline GPU, Megatron's interleaved 1F1B (1: plain 1F1B)."""
    ep_size: int = 1
    offload: str = "none"
    epochs: float = 1.0
    num_workers: int | None = None
    checkpoints_kept: int = 3
    target_samples_per_s: float | None = None
    env_steps_per_s_per_core: float | None = None
    denoising_steps: int | None = None
    """Image generation: denoiser evaluations per image (the sampler's steps)."""
    precomputed_latents: bool = False
    """Image generation training: the images were encoded to VAE latents beforehand (as
    fast-DiT's feature pre-extraction does), so no VAE encodes during training."""
    ema: bool = False
    """Training keeps an exponential moving average of the trained weights in fp32 (DiT's
    train.py, diffusers' --use_ema)."""
    guidance: bool | None = None
    """Image generation: classifier-free guidance, which runs the denoiser twice per step
    (with and without the prompt or class); None = the model's usual setting."""
    name: str = ""
    hidden_dropout: float | None = None
    """Dropout probability on the residual branches (and embeddings, unless
    ``embedding_dropout`` is given); None = the block style's own (GPT-2 and BERT 0.1,
    Llama-style none), which the activation calibration measured."""
    attention_dropout: float | None = None
    """Dropout probability on the attention probabilities; None = the block style's own."""
    embedding_dropout: float | None = None
    """Dropout probability on the embeddings' output (GPT-2's ``embd_pdrop``); None = as
    ``hidden_dropout``."""
    head: str | None = None
    """The output head (:data:`~torchrig.planning.workload_fields.HEADS`); None = the task's
    usual one (BERT fine-tuned: a sequence classifier; otherwise the LM head)."""
    num_labels: int | None = None
    """Classes of a classification head (None: 2, the config classes' default)."""

    @property
    def total_gpus(self) -> int:
        return self.gpus_per_node * self.nodes

    @property
    def data_parallel(self) -> int:
        """Data-parallel ranks: GPUs that each hold a different part of the batch."""
        return max(1, self.total_gpus // (self.tp_size * self.pp_size))

    @property
    def global_batch(self) -> int:
        """Samples per optimizer step: micro-batch x accumulation steps x data-parallel ranks."""
        return self.batch_size * self.grad_accumulation * self.data_parallel

    @property
    def is_training(self) -> bool:
        return self.mode != "infer"

    @property
    def is_lora(self) -> bool:
        """LoRA: the LLM task, or an image-generation run given a LoRA rank."""
        return self.task == "llm_finetune_lora" or (
            self.task == "image_generation" and self.lora_rank is not None)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON document (fields in a stable, readable order)."""
        out: dict[str, Any] = {"format": WORKLOAD_FORMAT, "version": WORKLOAD_VERSION,
                               "name": self.name}
        for name in field_names(self):
            if name == "name":
                continue
            value = getattr(self, name)
            if name == "dataset":
                value = {key: getattr(value, key) for key in field_names(value)}
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "workload") -> Workload:
        """Validate a workload document (format and version included) and build it."""
        data = upgrade_document(data, WORKLOAD_FORMAT, WORKLOAD_VERSION, where=where)
        flat = {k: v for k, v in data.items() if k not in ("format", "version", "dataset")}
        dataset = data.get("dataset")
        if dataset is not None:
            if not isinstance(dataset, dict):
                raise InputError(f"{where}: field 'dataset' must be an object")
            flat.update({f"dataset.{k}": v for k, v in dataset.items()})
        return _build(flat, where, {})

    def validate(self, where: str = "workload") -> Workload:
        """Check every field and every combination; returns self so callers can chain."""
        _check(self, where, {})
        return self


# --- defaults -------------------------------------------------------------------------------

_IMAGENET = Dataset(samples=1_281_167, sample_bytes=110_000)
"""ImageNet-1k train split: 1,281,167 images; mean JPEG ~110 KB (docs/estimation.md sec. 4)."""

_DEFAULTS: dict[str, dict[str, Any]] = {
    "image_classification": dict(
        mode="train", model="resnet50", precision="amp_fp16", optimizer="sgd_momentum",
        batch_size=256, image_size=224, dataset=_IMAGENET, epochs=90.0,
    ),
    "detection_segmentation": dict(
        # COCO train2017: 118,287 images, "2017 Train images [118K/18GB]" (cocodataset.org).
        mode="train", model="faster-rcnn-r50-fpn", precision="amp_fp16",
        optimizer="sgd_momentum", batch_size=2, image_size=800,
        dataset=Dataset(samples=118_287, sample_bytes=152_000), epochs=12.0,
    ),
    "nlp_transformer": dict(
        # GLUE SST-2 train split: 67,349 sentences; stored pre-tokenized (4 bytes per token).
        mode="finetune", model="bert-base", precision="amp_fp16", optimizer="adamw",
        batch_size=32, seq_len=128, dataset=Dataset(samples=67_349, sample_bytes=512),
        epochs=3.0,
    ),
    "llm_finetune_full": dict(
        # Alpaca: 52,002 instruction examples, stored pre-tokenized (4 bytes per token).
        mode="finetune", model="llama-2-7b", precision="amp_bf16", optimizer="adamw",
        batch_size=1, seq_len=2048, gradient_checkpointing=True, strategy="zero3",
        gpus_per_node=8, dataset=Dataset(samples=52_002, sample_bytes=8_192), epochs=3.0,
    ),
    "llm_finetune_lora": dict(
        mode="finetune", model="llama-2-7b", precision="amp_bf16", optimizer="adamw",
        batch_size=4, seq_len=2048, gradient_checkpointing=True, lora_rank=16,
        dataset=Dataset(samples=52_002, sample_bytes=8_192), epochs=3.0,
    ),
    "llm_inference": dict(
        mode="infer", model="llama-3-8b", precision="bf16", optimizer="adamw", batch_size=1,
        seq_len=4096, dataset=Dataset(samples=0, sample_bytes=0), epochs=1.0,
    ),
    "image_generation": dict(
        # Fine-tuning Stable Diffusion 1.5 at 512 px as diffusers' train_text_to_image.py does
        # (AMP, gradient checkpointing, AdamW), on BK-SDM's 212,776 LAION-Aesthetics V2 6.5+
        # image-text pairs (nota-ai/bk-sdm model cards); ~110 KB per JPEG (ImageNet's mean).
        mode="finetune", model="sd-1.5", precision="amp_fp16", optimizer="adamw",
        batch_size=8, image_size=512, gradient_checkpointing=True,
        dataset=Dataset(samples=212_776, sample_bytes=110_000), epochs=1.0,
    ),
    "reinforcement_learning": dict(
        # PPO on Atari (Schulman et al. 2017): 10M environment steps (40M frames at frame
        # skip 4); minibatch 8 envs x 128 steps / 4.
        mode="train", model="nature-cnn", precision="fp32", optimizer="adamw", batch_size=256,
        image_size=84, dataset=Dataset(samples=10_000_000, sample_bytes=0), epochs=1.0,
    ),
}


def default_workload(task: str) -> Workload:
    """A sensible, realistic workload for ``task`` (the wizard's starting point)."""
    if task not in _DEFAULTS:
        raise InputError(f"unknown task {task!r}: use one of {', '.join(TASKS)}")
    return Workload(task=task, **_DEFAULTS[task]).validate()


# --- building from user input -----------------------------------------------------------------

_OPTION_KEYS = {
    "batch_size": "batch", "gradient_checkpointing": "checkpointing",
    "gpus_per_node": "gpus", "dataset.samples": "dataset_samples",
    "dataset.sample_bytes": "sample_bytes", "kv_cache_dtype": "kv_dtype",
}


def workload_from_options(**options: Any) -> Workload:
    """Build a workload from the CLI's option names (None = the task's default).

    Accepted: the workload's fields by the CLI's names (batch, checkpointing, gpus,
    dataset_samples, sample_bytes, kv_dtype; the rest as the fields), and cache_in_ram and
    decoded_bytes. Error messages name the option as given."""
    keys = dict(_OPTION_KEYS)
    extra = {"cache_in_ram": "dataset.cache_in_ram", "decoded_bytes": "dataset.decoded_bytes"}
    flat: dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        internal = extra.get(key) or next((k for k, v in keys.items() if v == key), key)
        keys.setdefault(internal, key)
        flat[internal] = value
    if "task" not in flat:
        raise InputError("options: 'task' is required")
    return _build(flat, "options", keys)


def load_workload(path: str | Path) -> Workload:
    path = Path(path)
    return Workload.from_dict(load_versioned(path, WORKLOAD_FORMAT, WORKLOAD_VERSION), str(path))


def save_workload(workload: Workload, path: str | Path) -> None:
    """Validate, then write atomically (a crash never leaves half a file)."""
    workload.validate()
    atomic_write_json(Path(path), workload.to_dict())


def _build(flat: Mapping[str, Any], where: str, keys: Mapping[str, str]) -> Workload:
    """Read a flat document (``dataset.samples`` etc.) field by field through FIELDS, then
    hold the result to the rules of :func:`_check`, as saving does."""

    def error(name: str, problem: str) -> InputError:
        return InputError(f"{where}: field '{keys.get(name, name)}' {problem}")

    known = set(field_names(Workload)) | {f"dataset.{name}" for name in field_names(Dataset)}
    unknown = sorted(k for k in flat if k not in known)
    if unknown:
        raise InputError(f"{where}: unknown field {keys.get(unknown[0], unknown[0])!r}")
    task = read_field(FIELD["task"], flat, "", error)
    if not task:
        raise error("task", f"is required (one of {', '.join(TASKS)})")
    base = default_workload(task)
    model = read_field(FIELD["model"], flat, base.model, error)
    try:
        preset = None if model == CUSTOM else get_preset(model)
    except InputError as exc:
        raise error("model", f"names {exc}") from None
    values = {"task": task, "model": model} | {
        f.name: read_field(f, flat, _default(f.name, base, preset, model != base.model), error)
        for f in FIELDS if f.name not in ("task", "model")}
    dataset = Dataset(**{name.removeprefix("dataset."): values.pop(name)
                         for name in list(values) if name.startswith("dataset.")})
    workload = Workload(dataset=dataset, **values)
    _check(workload, where, keys)
    return workload


def _default(name: str, base: Workload, preset: ModelPreset | None, new_model: bool) -> Any:
    """What a field left out takes: the task's default; but image size and sequence length
    take the new model's own (the smaller, where the task has one too) when the user picked
    another model (a BERT cannot take Llama's 2048 tokens)."""
    if name.startswith("dataset."):
        return getattr(base.dataset, name.removeprefix("dataset."))
    value = getattr(base, name)
    own = None
    if new_model and preset is not None and name == "image_size":
        own = preset.image_size
    elif new_model and preset is not None and name == "seq_len" and preset.arch is not None:
        own = preset.arch.max_positions or preset.seq_len
    if own is not None:
        value = own if value is None else min(value, own)
    return value


# --- the model a workload refers to ----------------------------------------------------------


@record
class ResolvedModel:
    """The workload's model with everything the planner needs filled in."""

    family: str  # cnn | vit | transformer | other
    params: int
    largest_layer_params: int | None
    buffer_bytes: int
    arch: TransformerArch | None
    preset: ModelPreset | None
    seq_len: int | None
    image_size: int | None
    channels: int
    notes: tuple[str, ...] = field(default_factory=tuple)


def model_head(w: Workload, style: str) -> str:
    """The output head (workload_fields.HEADS): the workload's (a config's ``architectures``),
    else BERT fine-tuned has a sequence classifier and everything else an LM head."""
    if w.head is not None:
        return w.head
    return "sequence_classification" if style == "bert" and w.mode == "finetune" else "lm"


def counted_head(w: Workload, style: str) -> str:
    """The head a transformer's parameter count includes: the workload's, else the one a
    preset's published count has (param_parts.PRESET_HEAD: BERT's pooler, the decoders' LM
    head)."""
    return w.head or PRESET_HEAD[style]


def resolve_model(w: Workload) -> ResolvedModel:
    """Preset facts, or the custom architecture given in the workload. A transformer's count
    includes the head a workload names (a preset's published count is corrected by the
    difference of the heads, :mod:`torchrig.planning.param_parts`)."""
    if w.model != CUSTOM:
        p = get_preset(w.model)
        params = p.params
        if p.arch is not None and w.head is not None:
            params += head_difference(p.arch, w.head, w.num_labels or 2)
        return ResolvedModel(
            family=p.family, params=params,
            largest_layer_params=p.largest_layer_params, buffer_bytes=p.buffer_bytes,
            arch=p.arch, preset=p, seq_len=w.seq_len if p.arch else None,
            image_size=w.image_size if p.family != "transformer" else None,
            channels=p.channels or 3,
        )
    arch = _custom_arch(w)
    if arch is not None:
        params = w.params or param_parts(arch, counted_head(w, arch.style),
                                         w.num_labels or 2).model
        return ResolvedModel(
            family="transformer", params=params, largest_layer_params=arch.largest_layer_params(),
            buffer_bytes=0, arch=arch, preset=None, seq_len=w.seq_len, image_size=None,
            channels=3,
        )
    assert w.params is not None  # _check requires it
    vision = w.task in VISION_TASKS
    return ResolvedModel(
        family="cnn" if vision else "other", params=w.params, largest_layer_params=None,
        buffer_bytes=0, arch=None, preset=None, seq_len=None if vision else w.seq_len,
        image_size=w.image_size if vision else None,
        channels=4 if w.task == "reinforcement_learning" else 3,
    )


def _custom_arch(w: Workload) -> TransformerArch | None:
    if w.layers is None or w.hidden is None or w.heads is None:
        return None
    style = w.style or ("bert" if w.task == "nlp_transformer" else "llama")
    return TransformerArch(
        style=style, layers=w.layers, hidden=w.hidden, heads=w.heads,
        kv_heads=w.kv_heads or w.heads, ffn=w.ffn or 4 * w.hidden,
        vocab=w.vocab or 32_000, max_positions=w.max_positions or max(w.seq_len or 0, 1),
        tied_embeddings=(style != "llama" if w.tied_embeddings is None
                         else w.tied_embeddings),
        explicit_head_dim=w.head_dim or 0, qkv_bias=bool(w.qkv_bias),
        activation=w.activation or "", experts=w.experts or 0,
        active_experts=w.active_experts or 0, expert_ffn=w.expert_ffn or 0,
        shared_expert_ffn=w.shared_expert_ffn or 0, dense_layers=w.dense_layers or 0,
        kv_lora_rank=w.kv_lora_rank or 0, q_lora_rank=w.q_lora_rank or 0,
        rope_head_dim=w.rope_head_dim or 0, v_head_dim=w.v_head_dim or 0,
        sliding_window=w.sliding_window or 0,
        sliding_layers=(w.layers if w.sliding_layers is None and w.sliding_window
                        else w.sliding_layers or 0),
    )


# --- the rules a finished workload must meet ---------------------------------------------------


class _Facts:
    """What the cross-field rules read: the workload, and the model it names, looked up only
    when a rule first asks. That is the point where the lookup can first succeed: a custom
    model resolves only once the rules before have made sure it has params or a shape, and
    an unknown preset is refused (by get_preset, in its words) after the per-field checks."""

    def __init__(self, w: Workload) -> None:
        self.w = w
        self.custom = w.model == CUSTOM
        # Plain attributes, not functools.cached_property: before Python 3.12 that holds one
        # lock for all instances, and the GUI validates on its thread and on workers at once.
        self._preset: ModelPreset | None = None
        self._model: ResolvedModel | None = None

    @property
    def preset(self) -> ModelPreset:
        if self._preset is None:
            self._preset = get_preset(self.w.model)
        return self._preset

    @property
    def model(self) -> ResolvedModel:
        if self._model is None:
            self._model = resolve_model(self.w)
        return self._model

    @property
    def arch(self) -> TransformerArch:
        """The model's transformer shape, for rules after one that refused a model without."""
        return _shape(self.model.arch)


def _shape(arch: TransformerArch | None) -> TransformerArch:
    assert arch is not None  # an earlier rule refused the workload otherwise
    return arch


def _missing_expert_field(name: str) -> Callable[[_Facts], bool]:
    return lambda c: getattr(c.w, name) is None and any(
        getattr(c.w, n) is not None for n in MOE_FIELDS)


def _more_than_layers(name: str) -> Callable[[_Facts], object]:
    return lambda c: c.w.layers is not None and (getattr(c.w, name) or 0) > c.w.layers


def _past_preset_positions(c: _Facts) -> object:
    arch = c.preset.arch
    return arch is not None and arch.max_positions and c.w.seq_len \
        and c.w.seq_len > arch.max_positions


def _serving_only(name: str) -> Callable[[_Facts], bool]:
    """A serving setting given (not None, not "auto") outside LLM inference."""
    return lambda c: c.w.task != "llm_inference" and getattr(c.w, name) not in (None, "auto")


def _rank_not_below_hidden(c: _Facts) -> bool:
    rank = c.w.lora_rank
    assert rank is not None  # the rule before refused a missing rank
    return rank >= c.arch.hidden


def _model_parallel(strategy: str, size: str, fits_model: _Rule) -> tuple[_Rule, ...]:
    """Tensor or pipeline parallelism: ``size`` ranks (at least 2) that divide the GPUs, on a
    transformer, where ``fits_model`` says whether the model splits that many ways."""

    def n(c: _Facts) -> Any:
        return getattr(c.w, size)

    return _group(
        lambda c: c.w.strategy == strategy,
        _Rule(size, lambda c: n(c) < 2, f"must be at least 2 for strategy {strategy}"),
        _Rule("strategy", lambda c: c.model.arch is None,
              f"{strategy} is modelled for transformers only"),
        _Rule(size, lambda c: c.w.total_gpus % n(c),
              lambda c: f"must divide the {c.w.total_gpus} GPUs (gpus x nodes)"),
        fits_model,
    )


_TRAINING_ONLY = "applies to training only"

# In order: the first broken rule is the one reported. The model's own rules come first (a
# preset, or a custom shape that must add up), then what the model family implies, then the
# task, then the parallel layout and the figures.
_RULES: tuple[_Rule, ...] = (
    *_group(
        lambda c: not c.custom,
        _Rule("model", lambda c: c.w.task not in c.preset.tasks,
              lambda c: f"{c.w.model} does not fit task {c.w.task} (it suits: "
                        f"{', '.join(c.preset.tasks)})"),
        # A preset brings its own size and shape; one given beside it would be silently
        # ignored (resolve_model reads the preset's).
        *(_Rule(n, _given(n), lambda c: f"is only for model 'custom' ({c.w.model} has its own)")
          for n in ("params", "style", *ARCH_FIELDS)),
        _Rule("seq_len", _past_preset_positions,
              lambda c: f"is {c.w.seq_len}, more than {c.w.model}'s "
                        f"{_shape(c.preset.arch).max_positions} positions"),
    ),
    *_group(
        lambda c: c.custom,
        _Rule("params", lambda c: c.w.params is None and (
                  c.w.layers is None or c.w.hidden is None or c.w.heads is None),
              "is required for a custom model (or give layers, hidden and heads for a "
              "transformer)"),
        _Rule("heads", lambda c: c.w.heads is not None and c.w.hidden is not None
                                 and c.w.hidden % c.w.heads and c.w.head_dim is None,
              lambda c: f"must divide hidden ({c.w.hidden} is not a multiple of {c.w.heads}; "
                        "give head_dim when the head size is not hidden / heads)"),
        _Rule("seq_len", lambda c: c.w.max_positions is not None and c.w.seq_len is not None
                                   and c.w.seq_len > c.w.max_positions,
              lambda c: f"is {c.w.seq_len}, more than the model's {c.w.max_positions} "
                        "positions"),
        # An expert layer is only defined by all three; the first one missing is named.
        *(_Rule(n, _missing_expert_field(n), "is required for a mixture of experts (give "
                "experts, active_experts and expert_ffn together)") for n in MOE_FIELDS),
        _Rule("active_experts", lambda c: c.w.experts is not None
                                          and c.w.active_experts is not None
                                          and c.w.active_experts > c.w.experts,
              lambda c: f"cannot exceed the {c.w.experts} experts"),
        *(_Rule(n, _more_than_layers(n), lambda c: f"cannot exceed the {c.w.layers} layers")
          for n in ("dense_layers", "sliding_layers")),
        _Rule("kv_lora_rank", lambda c: c.w.kv_lora_rank is not None and (
                  c.w.rope_head_dim is None or c.w.v_head_dim is None or c.w.head_dim is None),
              "latent attention also needs rope_head_dim, v_head_dim and head_dim (the "
              "non-rotary query/key head size)"),
        # Grouped-query attention: each key/value head serves a whole number of query heads.
        _Rule("kv_heads", lambda c: c.w.kv_heads is not None and c.w.heads is not None
                                    and c.w.heads % c.w.kv_heads,
              lambda c: f"must divide heads ({c.w.heads} is not a multiple of {c.w.kv_heads})"),
    ),
    *(_Rule(n, _given_without_arch(n), "applies to transformer models only")
      for n in CONFIG_FIELDS),
    _Rule("num_labels", lambda c: c.w.num_labels is not None and c.w.head not in (
              "sequence_classification", "token_classification"),
          "needs head sequence_classification or token_classification"),
    _Rule("seq_len", lambda c: c.model.family in ("cnn", "vit") and c.w.seq_len is not None,
          "is only for transformer models (give image_size)"),
    _Rule("image_size", lambda c: c.model.family == "transformer"
                                  and c.w.image_size is not None,
          "is only for image models (give seq_len)"),
    _Rule("image_size", lambda c: c.model.family in ("cnn", "vit") and c.w.image_size is None,
          "is required for an image model"),
    _Rule("seq_len", lambda c: c.model.arch is not None and c.w.seq_len is None,
          "is required for a transformer"),
    *_group(
        lambda c: c.model.family == "diffusion",
        _Rule("seq_len", lambda c: c.w.seq_len is not None,
              "is only for transformer language models (give image_size)"),
        _Rule("image_size", lambda c: c.w.image_size is None or c.w.image_size % 64,
              "must be a multiple of 64 pixels for a latent diffusion model (the VAE divides "
              "it by 8, the denoiser's levels again)"),
    ),
    _Rule("model", lambda c: c.model.family != "diffusion" and c.w.task == "image_generation"
                             and c.w.model == CUSTOM,
          "image generation needs one of the diffusion model presets"),
    *_group(lambda c: c.w.task != "image_generation",
            *(_Rule(n, _given(n), "applies to image generation only")
              for n in ("denoising_steps", "guidance"))),
    # Latents are precomputed in place of encoding images while training; inference
    # encodes no images at all.
    _Rule("precomputed_latents", lambda c: c.w.precomputed_latents and (
              c.w.task != "image_generation" or not c.w.is_training),
          "applies to image generation training only"),
    _Rule("ema", lambda c: c.w.ema and not c.w.is_training, _TRAINING_ONLY),
    _Rule("denoising_steps", lambda c: c.w.task == "image_generation" and c.w.is_training
                                       and c.w.denoising_steps is not None,
          "applies to inference only (training runs one denoiser step per sample)"),
    _Rule("guidance", lambda c: c.w.task == "image_generation" and c.w.is_training
                                and c.w.guidance is not None,
          "applies to inference only (training runs the denoiser once per sample)"),
    _Rule("mode", lambda c: c.w.task == "llm_inference" and c.w.mode != "infer",
          "must be 'infer' for task llm_inference"),
    _Rule("mode", lambda c: c.w.task in ("llm_finetune_full", "llm_finetune_lora")
                            and c.w.mode == "infer",
          lambda c: f"must be 'train' or 'finetune' for task {c.w.task}"),
    _Rule("precision", lambda c: c.w.precision in QUANTIZED and c.w.is_training
                                 and not c.w.is_lora,
          lambda c: f"{c.w.precision} is for inference only (or as the frozen base of LoRA "
                    "fine-tuning, QLoRA-style); training needs fp32, tf32, amp_fp16, amp_bf16 "
                    "or bf16"),
    # fp8 trains transformers as Transformer Engine runs it; fp4 only serves.
    _Rule("precision", lambda c: c.w.precision == "fp4" and c.w.task != "llm_inference",
          REFUSALS["fp4_outside_serving"]),
    *_group(lambda c: c.w.precision == "fp8" and c.w.task != "llm_inference", *(
        _Rule("precision", broken, REFUSALS[key]) for key, broken in (
            ("fp8_inference", lambda c: not c.w.is_training),
            ("fp8_not_transformer", lambda c: c.model.arch is None
                                              or c.model.family != "transformer"),
            ("fp8_lora", lambda c: c.w.is_lora), ("fp8_moe", lambda c: c.arch.is_moe)))),
    *(_Rule(n, _serving_only(n), "applies to task llm_inference only")
      for n in ("output_tokens", "kv_cache_dtype")),
    _Rule("lora_rank", lambda c: c.w.is_lora and c.w.task == "image_generation"
                                 and not c.w.is_training,
          "applies to training (LoRA fine-tuning) only"),
    *_group(
        lambda c: c.w.is_lora and c.w.task != "image_generation",
        _Rule("model", lambda c: c.model.arch is None, "LoRA needs a transformer model"),
        _Rule("lora_rank", lambda c: c.w.lora_rank is None, "is required for LoRA fine-tuning"),
        _Rule("lora_rank", _rank_not_below_hidden,
              lambda c: f"must be smaller than the hidden size {c.arch.hidden}"),
    ),
    _Rule("lora_rank", lambda c: not c.w.is_lora and c.w.lora_rank is not None
                                 and c.w.task not in ("llm_finetune_lora", "image_generation"),
          "only applies to tasks llm_finetune_lora and image_generation"),
    _Rule("tp_size", lambda c: c.w.tp_size > 1 and c.w.strategy != "tensor_parallel",
          "needs strategy tensor_parallel"),
    _Rule("pp_size", lambda c: c.w.pp_size > 1 and c.w.strategy != "pipeline_parallel",
          "needs strategy pipeline_parallel"),
    # Each tensor-parallel rank holds whole attention heads; each pipeline stage whole layers.
    *_model_parallel("tensor_parallel", "tp_size", _Rule(
        "tp_size", lambda c: c.arch.heads % c.w.tp_size,
        lambda c: f"must divide the {c.arch.heads} attention heads")),
    *_model_parallel("pipeline_parallel", "pp_size", _Rule(
        "pp_size", lambda c: c.w.pp_size > c.arch.layers,
        lambda c: f"cannot exceed the {c.arch.layers} layers")),
    *PIPELINE_RULES,
    _Rule("ep_size", lambda c: c.w.ep_size > 1 and c.w.strategy != "expert_parallel",
          "needs strategy expert_parallel"),
    *_group(
        lambda c: c.w.strategy == "expert_parallel",
        _Rule("strategy", lambda c: c.model.arch is None or not c.model.arch.is_moe,
              "expert_parallel needs a mixture-of-experts model"),
        _Rule("ep_size", lambda c: c.w.ep_size < 2,
              "must be at least 2 for strategy expert_parallel"),
        _Rule("ep_size", lambda c: c.w.total_gpus % c.w.ep_size,
              lambda c: f"must divide the {c.w.total_gpus} GPUs (gpus x nodes)"),
        # Each rank holds whole experts.
        _Rule("ep_size", lambda c: c.arch.experts % c.w.ep_size,
              lambda c: f"must divide the {c.arch.experts} experts"),
    ),
    # Offloading moves ZeRO's shards: optimizer state needs them partitioned (ZeRO-2 and up),
    # parameters need the parameters partitioned (ZeRO-3).
    _Rule("offload", lambda c: c.w.offload != "none" and c.w.strategy not in ("zero2", "zero3"),
          "needs strategy zero2 or zero3 (DeepSpeed ZeRO-Offload)"),
    _Rule("offload", lambda c: c.w.offload == "optimizer_and_params" and c.w.strategy != "zero3",
          "of parameters needs strategy zero3 (ZeRO-Infinity)"),
    _Rule("strategy", lambda c: not c.w.is_training and c.w.strategy in ("zero1", "zero2",
                                                                          "zero3"),
          "ZeRO shards training state; for inference use ddp (replicas) or tensor_parallel / "
          "pipeline_parallel"),
    _Rule("offload", lambda c: not c.w.is_training and c.w.offload != "none", _TRAINING_ONLY),
    _Rule("gradient_checkpointing", lambda c: c.w.gradient_checkpointing
                                              and not c.w.is_training, _TRAINING_ONLY),
    _Rule("grad_accumulation", lambda c: c.w.grad_accumulation > 1 and not c.w.is_training,
          _TRAINING_ONLY),
    _Rule("env_steps_per_s_per_core", lambda c: c.w.env_steps_per_s_per_core is not None
                                                and c.w.task != "reinforcement_learning",
          "applies to reinforcement learning only"),
    # The source travels with the measured figures into every plan that uses them.
    _Rule("figures_source", lambda c: c.w.figures_source is not None and (
              not isinstance(c.w.figures_source, str)
              or not 0 < len(c.w.figures_source) <= 500),
          "must be text of 1 to 500 characters"),
    _Rule("figures_source", lambda c: c.w.figures_source is not None
                                      and c.w.activation_bytes_per_sample is None
                                      and c.w.forward_flops_per_sample is None,
          "describes activation_bytes_per_sample or forward_flops_per_sample: give one of them"),
    *MEASUREMENT_RULES,
)


def _check(w: Workload, where: str, keys: Mapping[str, str]) -> None:
    """Hold a finished workload to every rule; the first one broken is raised.

    Both paths end here, reading a document (:func:`_build`) and saving
    (:meth:`Workload.validate`), so they refuse the same things with the same messages.
    Messages name the field as the user spelled it (``keys``: the CLI's option names)."""

    def error(name: str, problem: str) -> InputError:
        return InputError(f"{where}: field '{keys.get(name, name)}' {problem}")

    for f in SAVE_CHECKED:
        check_saved(f, _value(w, f.name), error)
    facts = _Facts(w)
    for rule in _RULES:
        if rule.broken(facts):
            raise error(rule.field, rule.text(facts))


def _value(w: Workload, name: str) -> Any:
    if name.startswith("dataset."):
        return getattr(w.dataset, name.removeprefix("dataset."))
    return getattr(w, name)
