"""Workload: what the user wants to run, as a validated, versioned, JSON-serialisable value.

A workload says which task, model, precision, optimizer, batch, data and parallel layout the
user has in mind; :func:`torchrig.planning.requirements.plan` turns it into hardware
requirements. Every constructor that takes user input (:meth:`Workload.from_dict`,
:func:`workload_from_options`, :func:`load_workload`) validates it and raises
:class:`~torchrig.errors.InputError` naming the field, so the planner never sees nonsense.

Fields left out of a file or a command line take the task's defaults
(:func:`default_workload`), so ``{"format": "torchrig.workload", "version": 1, "task":
"llm_inference"}`` is a complete workload.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.jsonio import atomic_write_json, load_versioned, upgrade_document
from torchrig.planning.presets import STYLES, ModelPreset, TransformerArch, get_preset

WORKLOAD_FORMAT = "torchrig.workload"
WORKLOAD_VERSION = 1

TASKS = (
    "image_classification", "detection_segmentation", "nlp_transformer", "llm_finetune_full",
    "llm_finetune_lora", "llm_inference", "reinforcement_learning", "image_generation",
)
MODES = ("train", "finetune", "infer")
PRECISIONS = ("fp32", "tf32", "amp_fp16", "amp_bf16", "bf16", "int8", "int4")
OPTIMIZERS = ("sgd", "sgd_momentum", "adamw", "adam_8bit")
STRATEGIES = ("ddp", "zero1", "zero2", "zero3", "tensor_parallel", "pipeline_parallel",
              "expert_parallel")
OFFLOADS = ("none", "optimizer", "optimizer_and_params")
ATTENTIONS = ("sdpa", "eager")
CUSTOM = "custom"

VISION_TASKS = ("image_classification", "detection_segmentation", "reinforcement_learning")
TEXT_TASKS = ("nlp_transformer", "llm_finetune_full", "llm_finetune_lora", "llm_inference")
QUANTIZED = ("int8", "int4")

# (minimum, maximum) for every number; "absurd" inputs are refused with the range in the message.
LIMITS: dict[str, tuple[float, float]] = {
    "batch_size": (1, 1_000_000),
    "seq_len": (1, 4_194_304),
    "image_size": (8, 16_384),
    "params": (1_000, 1e13),
    "layers": (1, 10_000),
    "hidden": (1, 1_048_576),
    "heads": (1, 16_384),
    "kv_heads": (1, 16_384),
    "vocab": (1, 16_777_216),
    "ffn": (1, 16_777_216),
    "head_dim": (1, 65_536),
    "max_positions": (1, 100_000_000),
    "experts": (1, 65_536),
    "active_experts": (1, 65_536),
    "expert_ffn": (1, 16_777_216),
    "shared_expert_ffn": (1, 16_777_216),
    "dense_layers": (0, 10_000),
    "kv_lora_rank": (1, 1_048_576),
    "q_lora_rank": (1, 1_048_576),
    "rope_head_dim": (1, 65_536),
    "v_head_dim": (1, 65_536),
    "sliding_window": (1, 4_194_304),
    "sliding_layers": (0, 10_000),
    "grad_accumulation": (1, 1_000_000),
    "denoising_steps": (1, 10_000),
    "env_steps_per_s_per_core": (0.001, 1e9),
    "lora_rank": (1, 65_536),
    "activation_bytes_per_sample": (0, 1e13),
    "forward_flops_per_sample": (1, 1e18),  # a divisor in the throughput estimate
    "gpus_per_node": (1, 256),
    "nodes": (1, 100_000),
    "tp_size": (1, 4_096),
    "pp_size": (1, 4_096),
    "ep_size": (1, 4_096),
    "epochs": (0.001, 100_000),
    "num_workers": (0, 1_024),
    "checkpoints_kept": (0, 1_000),
    "target_samples_per_s": (0, 1e9),
    "dataset.samples": (0, 1e13),
    "dataset.sample_bytes": (0, 1e11),
    "dataset.decoded_bytes": (0, 1e12),
}
INTEGER_FIELDS = {
    "batch_size", "seq_len", "image_size", "params", "layers", "hidden", "heads", "kv_heads",
    "vocab", "ffn", "lora_rank", "gpus_per_node", "nodes", "tp_size", "pp_size", "ep_size",
    "num_workers",
    "checkpoints_kept", "dataset.samples", "head_dim", "experts", "active_experts", "expert_ffn",
    "shared_expert_ffn", "dense_layers", "kv_lora_rank", "q_lora_rank", "rope_head_dim",
    "v_head_dim", "sliding_window", "sliding_layers", "grad_accumulation", "max_positions",
    "denoising_steps",
}
ARCH_FIELDS = ("layers", "hidden", "heads", "kv_heads", "vocab", "ffn", "head_dim",
               "tied_embeddings", "qkv_bias", "activation", "experts", "active_experts",
               "expert_ffn", "shared_expert_ffn", "dense_layers", "kv_lora_rank", "q_lora_rank",
               "rope_head_dim", "v_head_dim", "sliding_window", "sliding_layers",
               "max_positions")
"""A custom transformer's shape (``--model custom``; what ``--hf-config`` fills in)."""
MOE_FIELDS = ("experts", "active_experts", "expert_ffn")
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swiglu", "geglu")


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    gpus_per_node: int = 1
    nodes: int = 1
    strategy: str = "ddp"
    tp_size: int = 1
    pp_size: int = 1
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
        for f in dataclasses.fields(self):
            if f.name == "name":
                continue
            value = getattr(self, f.name)
            if f.name == "dataset":
                value = dataclasses.asdict(value)
            out[f.name] = value
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
"""ImageNet-1k train split: 1,281,167 images; mean JPEG ~110 KB (estimation.md sec. 4)."""

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
    "dataset.sample_bytes": "sample_bytes",
}


def workload_from_options(**options: Any) -> Workload:
    """Build a workload from the CLI's option names (None = the task's default).

    Accepted: task, model, mode, precision, optimizer, batch, seq_len, image_size,
    checkpointing, gpus, nodes, strategy, dataset_samples, sample_bytes, params, layers, hidden,
    heads, kv_heads, vocab, epochs; and also lora_rank, attention, tp_size, pp_size, offload,
    num_workers, cache_in_ram, decoded_bytes. Error messages name the option as given.
    """
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


class _Reader:
    """Typed reads from a flat dict with messages naming the field as the user spelled it."""

    def __init__(self, data: Mapping[str, Any], where: str, keys: Mapping[str, str]) -> None:
        self.data, self.where, self.keys = data, where, keys

    def label(self, name: str) -> str:
        return self.keys.get(name, name)

    def error(self, name: str, problem: str) -> InputError:
        return InputError(f"{self.where}: field '{self.label(name)}' {problem}")

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def text(self, name: str, choices: tuple[str, ...], default: str) -> str:
        value = self.data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(name, f"must be text, got {value!r}")
        if choices and value not in choices:
            raise self.error(name, f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def flag(self, name: str, default: Any) -> Any:
        value = self.data.get(name, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.error(name, f"must be true or false, got {value!r}")
        return value

    def number(self, name: str, default: Any) -> Any:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(name, f"must be a number, got {value!r}")
        return _in_range(value, name, self.error)


def _in_range(value: float, name: str, error: Any) -> Any:
    if not math.isfinite(value):
        raise error(name, f"must be a finite number, got {value!r}")
    low, high = LIMITS[name]
    integer = name in INTEGER_FIELDS
    if integer and not float(value).is_integer():
        raise error(name, f"must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise error(name, f"must be between {low:g} and {high:g}, got {value:g}")
    return int(value) if integer else float(value)


def _build(flat: Mapping[str, Any], where: str, keys: Mapping[str, str]) -> Workload:
    r = _Reader(flat, where, keys)
    known = {f.name for f in dataclasses.fields(Workload)} | {
        f"dataset.{f.name}" for f in dataclasses.fields(Dataset)}
    unknown = sorted(k for k in flat if k not in known)
    if unknown:
        raise InputError(f"{where}: unknown field {r.label(unknown[0])!r}")
    task = r.text("task", TASKS, "")
    if not task:
        raise r.error("task", f"is required (one of {', '.join(TASKS)})")
    base = default_workload(task)
    model = r.text("model", (), base.model)
    try:
        preset = None if model == CUSTOM else get_preset(model)
    except InputError as exc:
        raise r.error("model", f"names {exc}") from None
    changed_model = model != base.model

    def sized(name: str, preset_value: int | None) -> int | None:
        """Image size / sequence length: the task default, or the new model's own default when
        the user picked another model (a BERT cannot take Llama's 2048 tokens)."""
        base_value = getattr(base, name)
        if changed_model and preset_value is not None:
            base_value = preset_value if base_value is None else min(base_value, preset_value)
        return r.number(name, base_value)

    preset_seq = None
    if preset is not None and preset.arch is not None:
        preset_seq = preset.arch.max_positions or preset.seq_len
    ds = base.dataset
    dataset = Dataset(
        samples=r.number("dataset.samples", ds.samples),
        sample_bytes=r.number("dataset.sample_bytes", ds.sample_bytes),
        decoded_bytes=r.number("dataset.decoded_bytes", ds.decoded_bytes),
        cache_in_ram=r.flag("dataset.cache_in_ram", ds.cache_in_ram),
    )
    style = flat.get("style")
    if style is not None and style not in STYLES:
        raise r.error("style", f"must be one of {', '.join(STYLES)}; got {style!r}")
    name = flat.get("name", "")
    if not isinstance(name, str) or len(name) > 200:
        raise r.error("name", "must be text of at most 200 characters")
    workload = Workload(
        task=task,
        mode=r.text("mode", MODES, base.mode),
        model=model,
        precision=r.text("precision", PRECISIONS, base.precision),
        optimizer=r.text("optimizer", OPTIMIZERS, base.optimizer),
        batch_size=r.number("batch_size", base.batch_size),
        dataset=dataset,
        grad_accumulation=r.number("grad_accumulation", base.grad_accumulation),
        seq_len=sized("seq_len", preset_seq),
        image_size=sized("image_size", preset.image_size if preset else None),
        gradient_checkpointing=r.flag("gradient_checkpointing", base.gradient_checkpointing),
        lora_rank=r.number("lora_rank", base.lora_rank),
        attention=r.text("attention", ATTENTIONS, base.attention),
        params=r.number("params", None),
        layers=r.number("layers", None),
        hidden=r.number("hidden", None),
        heads=r.number("heads", None),
        kv_heads=r.number("kv_heads", None),
        vocab=r.number("vocab", None),
        ffn=r.number("ffn", None),
        head_dim=r.number("head_dim", None),
        max_positions=r.number("max_positions", None),
        tied_embeddings=r.flag("tied_embeddings", None),
        qkv_bias=r.flag("qkv_bias", None),
        activation=(r.text("activation", ACTIVATIONS, "") if r.has("activation")
                    else None),
        experts=r.number("experts", None),
        active_experts=r.number("active_experts", None),
        expert_ffn=r.number("expert_ffn", None),
        shared_expert_ffn=r.number("shared_expert_ffn", None),
        dense_layers=r.number("dense_layers", None),
        kv_lora_rank=r.number("kv_lora_rank", None),
        q_lora_rank=r.number("q_lora_rank", None),
        rope_head_dim=r.number("rope_head_dim", None),
        v_head_dim=r.number("v_head_dim", None),
        sliding_window=r.number("sliding_window", None),
        sliding_layers=r.number("sliding_layers", None),
        style=style,
        activation_bytes_per_sample=r.number("activation_bytes_per_sample", None),
        forward_flops_per_sample=r.number("forward_flops_per_sample", None),
        figures_source=flat.get("figures_source"),
        gpus_per_node=r.number("gpus_per_node", base.gpus_per_node),
        nodes=r.number("nodes", base.nodes),
        strategy=r.text("strategy", STRATEGIES, base.strategy),
        tp_size=r.number("tp_size", base.tp_size),
        pp_size=r.number("pp_size", base.pp_size),
        ep_size=r.number("ep_size", base.ep_size),
        offload=r.text("offload", OFFLOADS, base.offload),
        epochs=r.number("epochs", base.epochs),
        num_workers=r.number("num_workers", base.num_workers),
        checkpoints_kept=r.number("checkpoints_kept", base.checkpoints_kept),
        target_samples_per_s=r.number("target_samples_per_s", base.target_samples_per_s),
        env_steps_per_s_per_core=r.number("env_steps_per_s_per_core",
                                          base.env_steps_per_s_per_core),
        denoising_steps=r.number("denoising_steps", base.denoising_steps),
        guidance=r.flag("guidance", base.guidance),
        precomputed_latents=r.flag("precomputed_latents", base.precomputed_latents),
        ema=r.flag("ema", base.ema),
        name=name,
    )
    _check(workload, where, keys)
    return workload


# --- the model a workload refers to ----------------------------------------------------------


@dataclass(frozen=True)
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


def resolve_model(w: Workload) -> ResolvedModel:
    """Preset facts, or the custom architecture given in the workload."""
    if w.model != CUSTOM:
        p = get_preset(w.model)
        return ResolvedModel(
            family=p.family, params=p.params,
            largest_layer_params=p.largest_layer_params, buffer_bytes=p.buffer_bytes,
            arch=p.arch, preset=p, seq_len=w.seq_len if p.arch else None,
            image_size=w.image_size if p.family != "transformer" else None,
            channels=p.channels or 3,
        )
    arch = _custom_arch(w)
    if arch is not None:
        params = w.params or arch.param_count()
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


def _check(w: Workload, where: str, keys: Mapping[str, str]) -> None:
    """Cross-field rules. Messages name the field the user can change."""

    def err(name: str, problem: str) -> InputError:
        return InputError(f"{where}: field '{keys.get(name, name)}' {problem}")

    def choice(name: str, choices: tuple[str, ...]) -> None:
        if getattr(w, name) not in choices:
            raise err(name, f"must be one of {', '.join(choices)}; got {getattr(w, name)!r}")

    for name, choices in (("task", TASKS), ("mode", MODES), ("precision", PRECISIONS),
                          ("optimizer", OPTIMIZERS), ("strategy", STRATEGIES),
                          ("offload", OFFLOADS), ("attention", ATTENTIONS)):
        choice(name, choices)
    for name in LIMITS:
        value = (getattr(w.dataset, name.split(".")[1]) if name.startswith("dataset.")
                 else getattr(w, name))
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise err(name, f"must be a number, got {value!r}")
            _in_range(value, name, err)

    if w.model != CUSTOM:
        preset = get_preset(w.model)
        if w.task not in preset.tasks:
            raise err("model", f"{w.model} does not fit task {w.task} (it suits: "
                      f"{', '.join(preset.tasks)})")
        given = [n for n in ("params", "style", *ARCH_FIELDS) if getattr(w, n) is not None]
        if given:
            raise err(given[0], f"is only for model 'custom' ({w.model} has its own)")
        if preset.arch is not None and preset.arch.max_positions and w.seq_len \
                and w.seq_len > preset.arch.max_positions:
            raise err("seq_len", f"is {w.seq_len}, more than {w.model}'s "
                      f"{preset.arch.max_positions} positions")
    else:
        if w.params is None and (w.layers is None or w.hidden is None or w.heads is None):
            raise err("params", "is required for a custom model (or give layers, hidden and "
                      "heads for a transformer)")
        if w.heads is not None and w.hidden is not None and w.hidden % w.heads \
                and w.head_dim is None:
            raise err("heads", f"must divide hidden ({w.hidden} is not a multiple of {w.heads}; "
                      "give head_dim when the head size is not hidden / heads)")
        if w.max_positions is not None and w.seq_len is not None \
                and w.seq_len > w.max_positions:
            raise err("seq_len", f"is {w.seq_len}, more than the model's {w.max_positions} "
                      "positions")
        moe = [n for n in MOE_FIELDS if getattr(w, n) is not None]
        if moe and len(moe) < len(MOE_FIELDS):
            missing = next(n for n in MOE_FIELDS if getattr(w, n) is None)
            raise err(missing, "is required for a mixture of experts (give experts, "
                      "active_experts and expert_ffn together)")
        if w.experts is not None and w.active_experts is not None \
                and w.active_experts > w.experts:
            raise err("active_experts", f"cannot exceed the {w.experts} experts")
        if w.layers is not None:
            for n in ("dense_layers", "sliding_layers"):
                if (getattr(w, n) or 0) > w.layers:
                    raise err(n, f"cannot exceed the {w.layers} layers")
        if w.kv_lora_rank is not None and (w.rope_head_dim is None or w.v_head_dim is None
                                           or w.head_dim is None):
            raise err("kv_lora_rank", "latent attention also needs rope_head_dim, v_head_dim "
                      "and head_dim (the non-rotary query/key head size)")
        if w.kv_heads is not None and w.heads is not None and w.heads % w.kv_heads:
            raise err("kv_heads", f"must divide heads ({w.heads} is not a multiple of "
                      f"{w.kv_heads})")

    model = resolve_model(w)
    if model.family in ("cnn", "vit") and w.seq_len is not None:
        raise err("seq_len", "is only for transformer models (give image_size)")
    if model.family == "transformer" and w.image_size is not None:
        raise err("image_size", "is only for image models (give seq_len)")
    if model.family in ("cnn", "vit") and w.image_size is None:
        raise err("image_size", "is required for an image model")
    if model.arch is not None and w.seq_len is None:
        raise err("seq_len", "is required for a transformer")
    if model.family == "diffusion":
        if w.seq_len is not None:
            raise err("seq_len", "is only for transformer language models (give image_size)")
        if w.image_size is None or w.image_size % 64:
            raise err("image_size", "must be a multiple of 64 pixels for a latent diffusion "
                      "model (the VAE divides it by 8, the denoiser's levels again)")
    elif w.task == "image_generation" and w.model == CUSTOM:
        raise err("model", "image generation needs one of the diffusion model presets")
    if w.task != "image_generation":
        for n in ("denoising_steps", "guidance"):
            if getattr(w, n) is not None:
                raise err(n, "applies to image generation only")
    if w.precomputed_latents and (w.task != "image_generation" or not w.is_training):
        raise err("precomputed_latents", "applies to image generation training only")
    if w.ema and not w.is_training:
        raise err("ema", "applies to training only")
    if w.task == "image_generation" and w.is_training and w.denoising_steps is not None:
        raise err("denoising_steps", "applies to inference only (training runs one denoiser "
                  "step per sample)")
    if w.task == "image_generation" and w.is_training and w.guidance is not None:
        raise err("guidance", "applies to inference only (training runs the denoiser once "
                  "per sample)")

    if w.task == "llm_inference" and w.mode != "infer":
        raise err("mode", "must be 'infer' for task llm_inference")
    if w.task in ("llm_finetune_full", "llm_finetune_lora") and w.mode == "infer":
        raise err("mode", f"must be 'train' or 'finetune' for task {w.task}")
    if w.precision in QUANTIZED and w.is_training and not w.is_lora:
        raise err("precision", f"{w.precision} is for inference only (or as the frozen base of "
                  "LoRA fine-tuning, QLoRA-style); training needs fp32, tf32, amp_fp16, "
                  "amp_bf16 or bf16")
    if w.is_lora and w.task == "image_generation":
        if not w.is_training:
            raise err("lora_rank", "applies to training (LoRA fine-tuning) only")
    elif w.is_lora:
        if model.arch is None:
            raise err("model", "LoRA needs a transformer model")
        if w.lora_rank is None:
            raise err("lora_rank", "is required for LoRA fine-tuning")
        if w.lora_rank >= model.arch.hidden:
            raise err("lora_rank", f"must be smaller than the hidden size {model.arch.hidden}")
    elif w.lora_rank is not None and w.task not in ("llm_finetune_lora", "image_generation"):
        raise err("lora_rank", "only applies to tasks llm_finetune_lora and image_generation")

    if w.tp_size > 1 and w.strategy != "tensor_parallel":
        raise err("tp_size", "needs strategy tensor_parallel")
    if w.pp_size > 1 and w.strategy != "pipeline_parallel":
        raise err("pp_size", "needs strategy pipeline_parallel")
    if w.strategy in ("tensor_parallel", "pipeline_parallel"):
        size_name = "tp_size" if w.strategy == "tensor_parallel" else "pp_size"
        size = getattr(w, size_name)
        if size < 2:
            raise err(size_name, f"must be at least 2 for strategy {w.strategy}")
        if model.arch is None:
            raise err("strategy", f"{w.strategy} is modelled for transformers only")
        if w.total_gpus % size:
            raise err(size_name, f"must divide the {w.total_gpus} GPUs (gpus x nodes)")
        if size_name == "tp_size" and model.arch.heads % size:
            raise err("tp_size", f"must divide the {model.arch.heads} attention heads")
        if size_name == "pp_size" and size > model.arch.layers:
            raise err("pp_size", f"cannot exceed the {model.arch.layers} layers")
    if w.ep_size > 1 and w.strategy != "expert_parallel":
        raise err("ep_size", "needs strategy expert_parallel")
    if w.strategy == "expert_parallel":
        if model.arch is None or not model.arch.is_moe:
            raise err("strategy", "expert_parallel needs a mixture-of-experts model")
        if w.ep_size < 2:
            raise err("ep_size", "must be at least 2 for strategy expert_parallel")
        if w.total_gpus % w.ep_size:
            raise err("ep_size", f"must divide the {w.total_gpus} GPUs (gpus x nodes)")
        if model.arch.experts % w.ep_size:
            raise err("ep_size", f"must divide the {model.arch.experts} experts")
    if w.offload != "none":
        if w.strategy not in ("zero2", "zero3"):
            raise err("offload", "needs strategy zero2 or zero3 (DeepSpeed ZeRO-Offload)")
        if w.offload == "optimizer_and_params" and w.strategy != "zero3":
            raise err("offload", "of parameters needs strategy zero3 (ZeRO-Infinity)")
    if not w.is_training and w.strategy in ("zero1", "zero2", "zero3"):
        raise err("strategy", "ZeRO shards training state; for inference use ddp (replicas) "
                  "or tensor_parallel / pipeline_parallel")
    if not w.is_training and w.offload != "none":
        raise err("offload", "applies to training only")
    if w.gradient_checkpointing and not w.is_training:
        raise err("gradient_checkpointing", "applies to training only")
    if w.grad_accumulation > 1 and not w.is_training:
        raise err("grad_accumulation", "applies to training only")
    if w.env_steps_per_s_per_core is not None and w.task != "reinforcement_learning":
        raise err("env_steps_per_s_per_core", "applies to reinforcement learning only")
    if w.figures_source is not None:
        if not isinstance(w.figures_source, str) or not 0 < len(w.figures_source) <= 500:
            raise err("figures_source", "must be text of 1 to 500 characters")
        if w.activation_bytes_per_sample is None and w.forward_flops_per_sample is None:
            raise err("figures_source", "describes activation_bytes_per_sample or "
                      "forward_flops_per_sample: give one of them")
