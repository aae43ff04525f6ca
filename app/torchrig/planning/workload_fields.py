"""A workload's per-field rules: each field's type and its choices or range, stated once.

:data:`FIELDS` has one row per field of :class:`~torchrig.planning.workload.Workload` (the
dataset's fields as ``dataset.samples`` and so on, as a flat document names them). Reading a
document goes through :func:`read_field`; checking a finished workload before it is saved goes
through :func:`check_saved` with the rows in :data:`SAVE_CHECKED`. The cross-field rules, and
the loop that ends both paths, are in workload.py.

This module is the lower of the two: it imports nothing from workload.py, so the enumerations
the table names are defined here (workload.py re-exports them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from torchrig.errors import InputError
from torchrig.planning.presets import STYLES
from torchrig.records import record

TASKS = (
    "image_classification", "detection_segmentation", "nlp_transformer", "llm_finetune_full",
    "llm_finetune_lora", "llm_inference", "reinforcement_learning", "image_generation",
)
MODES = ("train", "finetune", "infer")
PRECISIONS = ("fp32", "tf32", "amp_fp16", "amp_bf16", "bf16", "fp8", "fp4", "int8", "int4")
KV_CACHE_DTYPES = ("auto", "fp16", "bf16", "fp8")
OPTIMIZERS = ("sgd", "sgd_momentum", "adamw", "adam_8bit")
STRATEGIES = ("ddp", "zero1", "zero2", "zero3", "tensor_parallel", "pipeline_parallel",
              "expert_parallel")
OFFLOADS = ("none", "optimizer", "optimizer_and_params")
NETWORKS = ("eth_10g", "eth_25g", "eth_100g", "ib_hdr", "ib_ndr")
"""The links between nodes a workload may name (``network``): planning/links.py's inter-node
entries (Ethernet, InfiniBand) with their sourced bandwidths, spelled out here so that reading
a workload does not load the link table (a plan without a GPU never does); a test holds the two
equal."""
MAX_NICS_PER_NODE = 64
"""The most network ports per node a workload may give: a DGX H100 has 8 compute ports (one
per GPU), an AWS p5 node 32 EFA cards; 64 leaves room without taking a typo."""
ATTENTIONS = ("sdpa", "eager")
MEASURED_DEVICES = ("cpu", "cuda", "mps")
"""The device kinds ``torchrig verify`` measures on (``measured_device``)."""
MEASURED_ATTENTIONS = ("sdpa", "sdpa_math", "eager")
"""The attention a measurement actually ran (``measured_attention``): sdpa's fused kernels
(flash / memory-efficient on CUDA, the flash kernel on the CPU), sdpa's math path (taken off
CUDA when the attention probabilities have dropout: it keeps the tokens x tokens
probabilities, as eager attention does), or eager attention."""
ACTIVATIONS = ("gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swiglu", "geglu")
HEADS = ("lm", "sequence_classification", "token_classification", "question_answering", "base")
"""The output head a Hugging Face ``architectures`` entry names: ``...ForCausalLM`` /
``...ForMaskedLM`` / ``LMHeadModel`` (logits over the vocabulary), ``...ForSequenceClassification``
(pooled, ``num_labels`` logits per sequence), ``...ForTokenClassification`` (``num_labels`` per
token), ``...ForQuestionAnswering`` (a start and an end logit per token), or the bare model."""

Error = Callable[[str, str], InputError]
"""Builds the refusal for (field, problem); the caller knows the document and its spelling."""

# The kinds of field. A kind decides the type check and its message; the row adds the rest.
TEXT = "text"  # a string, one of `choices` when there are any
MEMBER = "member"  # one of `choices`, whatever its type (a non-text value is "not one of them")
FLAG = "flag"  # true or false
NUMBER = "number"  # finite, within `limits`
WHOLE = "whole"  # a NUMBER that is an integer (read as int)
LABEL = "label"  # text of at most limits[1] characters; null is refused, not defaulted
FREE = "free"  # read as given; its rule is a cross-field one (see workload._RULES)


@record
class Field:
    name: str
    kind: str
    choices: tuple[str, ...] = ()
    limits: tuple[float, float] = (0, 0)
    """(minimum, maximum): "absurd" inputs are refused with the range in the message."""


def _text(name: str, choices: tuple[str, ...] = ()) -> Field:
    return Field(name, TEXT, choices)


def _flag(name: str) -> Field:
    return Field(name, FLAG)


def _whole(name: str, low: float, high: float) -> Field:
    return Field(name, WHOLE, limits=(low, high))


def _real(name: str, low: float, high: float) -> Field:
    return Field(name, NUMBER, limits=(low, high))


# Rows are in the order a document is read, so a document's first wrong field in this order
# is the one reported. task and model come first: the other fields default from the task's
# default workload and, for image_size and seq_len, from the model.
FIELDS: tuple[Field, ...] = (
    _text("task", TASKS),
    _text("model"),  # any text here; workload.py looks the preset up
    _whole("dataset.samples", 0, 1e13),
    _real("dataset.sample_bytes", 0, 1e11),
    _real("dataset.decoded_bytes", 0, 1e12),
    _flag("dataset.cache_in_ram"),
    Field("style", MEMBER, STYLES),
    Field("name", LABEL, limits=(0, 200)),
    _text("mode", MODES),
    _text("precision", PRECISIONS),
    _text("optimizer", OPTIMIZERS),
    _whole("batch_size", 1, 1_000_000),
    _whole("grad_accumulation", 1, 1_000_000),
    _whole("seq_len", 1, 4_194_304),
    _whole("output_tokens", 1, 4_194_304),
    _text("kv_cache_dtype", KV_CACHE_DTYPES),
    _whole("image_size", 8, 16_384),
    _flag("gradient_checkpointing"),
    _whole("lora_rank", 1, 65_536),
    _text("attention", ATTENTIONS),
    _whole("params", 1_000, 1e13),
    _whole("layers", 1, 10_000),
    _whole("hidden", 1, 1_048_576),
    _whole("heads", 1, 16_384),
    _whole("kv_heads", 1, 16_384),
    _whole("vocab", 1, 16_777_216),
    _whole("ffn", 1, 16_777_216),
    _whole("head_dim", 1, 65_536),
    _whole("max_positions", 1, 100_000_000),
    _flag("tied_embeddings"),
    _flag("qkv_bias"),
    _text("activation", ACTIVATIONS),
    _whole("experts", 1, 65_536),
    _whole("active_experts", 1, 65_536),
    _whole("expert_ffn", 1, 16_777_216),
    _whole("shared_expert_ffn", 1, 16_777_216),
    _whole("dense_layers", 0, 10_000),
    _whole("kv_lora_rank", 1, 1_048_576),
    _whole("q_lora_rank", 1, 1_048_576),
    _whole("rope_head_dim", 1, 65_536),
    _whole("v_head_dim", 1, 65_536),
    _whole("sliding_window", 1, 4_194_304),
    _whole("sliding_layers", 0, 10_000),
    _real("activation_bytes_per_sample", 0, 1e13),
    _real("forward_flops_per_sample", 1, 1e18),  # a divisor in the throughput estimate
    Field("figures_source", FREE),  # text only with the figures it describes: a cross rule
    # The measurement the two figures come from (torchrig verify --apply): its checks are
    # cross rules (workload._RULES), so reading and saving refuse the same things.
    Field("measured_device", FREE),
    Field("measured_attention", FREE),
    Field("measured_precision", FREE),
    _whole("measured_batch", 1, 1_000_000),
    _whole("measured_seq_len", 1, 4_194_304),
    _whole("measured_image_size", 1, 65_536),
    Field("measured_checkpointing", FREE),
    Field("measured_date", FREE),
    _whole("gpus_per_node", 1, 256),
    _whole("nodes", 1, 100_000),
    _text("network", NETWORKS),
    _whole("nics_per_node", 1, MAX_NICS_PER_NODE),
    _text("strategy", STRATEGIES),
    _whole("tp_size", 1, 4_096),
    _whole("pp_size", 1, 4_096),
    _whole("vp_size", 1, 4_096),
    _whole("ep_size", 1, 4_096),
    _text("offload", OFFLOADS),
    _real("epochs", 0.001, 100_000),
    _whole("num_workers", 0, 1_024),
    _whole("checkpoints_kept", 0, 1_000),
    _real("target_samples_per_s", 0, 1e9),
    _real("env_steps_per_s_per_core", 0.001, 1e9),
    _whole("denoising_steps", 1, 10_000),
    _flag("guidance"),
    _flag("precomputed_latents"),
    _flag("ema"),
    _real("hidden_dropout", 0, 1),
    _real("attention_dropout", 0, 1),
    _real("embedding_dropout", 0, 1),
    _text("head", HEADS),
    _whole("num_labels", 1, 1_000_000),
)
FIELD: dict[str, Field] = {f.name: f for f in FIELDS}
OPTIONAL_TEXT = ("network",)
"""Enumerations whose None means "not given" (the network: the device's own, if it has one)."""

# What Workload.validate() checks field by field, in its order: the eight enumerations, then
# every number. A workload built in code is checked for no more than that (its flags, style,
# activation and name are taken as given), and in this order rather than the reading order,
# because that is what validate() has always reported; the rows' rules are the same ones.
SAVE_CHECKED: tuple[Field, ...] = tuple(FIELD[name] for name in (
    "task", "mode", "precision", "optimizer", "strategy", "offload", "attention",
    "kv_cache_dtype", "network", "nics_per_node", "batch_size", "seq_len", "output_tokens",
    "image_size", "params",
    "layers", "hidden", "heads", "kv_heads",
    "vocab", "ffn", "head_dim", "max_positions", "experts", "active_experts", "expert_ffn",
    "shared_expert_ffn", "dense_layers", "kv_lora_rank", "q_lora_rank", "rope_head_dim",
    "v_head_dim", "sliding_window", "sliding_layers", "grad_accumulation", "denoising_steps",
    "env_steps_per_s_per_core", "lora_rank", "activation_bytes_per_sample",
    "forward_flops_per_sample", "measured_batch", "measured_seq_len", "measured_image_size",
    "gpus_per_node",
    "nodes", "tp_size", "pp_size", "vp_size", "ep_size",
    "epochs", "num_workers", "checkpoints_kept", "target_samples_per_s", "dataset.samples",
    "dataset.sample_bytes", "dataset.decoded_bytes", "hidden_dropout", "attention_dropout",
    "embedding_dropout", "num_labels",
))


def read_field(f: Field, data: Mapping[str, Any], default: Any, error: Error) -> Any:
    """The value ``data`` gives for ``f``, checked; ``default`` when it is absent or null.
    Numbers given come back as int (WHOLE) or float (NUMBER); a default is taken as it is."""
    if f.kind in (NUMBER, WHOLE):
        value = data.get(f.name)
        return default if value is None else _number(f, value, error)
    # Any other field left out is checked as if its default were given. Defaults pass, except
    # task's "": a document without a task reads "must be one of ...; got ''", while
    # "task": null takes the default unchecked and reads "is required" (see workload._build).
    value = data.get(f.name, default)
    if f.kind == LABEL:
        if not isinstance(value, str) or len(value) > f.limits[1]:
            raise error(f.name, f"must be text of at most {f.limits[1]:g} characters")
        return value
    if value is None:
        return default
    return _READ[f.kind](f, value, error)


def check_saved(f: Field, value: Any, error: Error) -> None:
    """validate()'s check of one field of a finished workload (a row of SAVE_CHECKED): an
    enumeration holds one of its choices; a number, when there is one, is in range."""
    if f.kind == TEXT:
        if value is not None or f.name not in OPTIONAL_TEXT:
            _one_of(f, value, error)
    elif value is not None:
        _number(f, value, error)


def _text_value(f: Field, value: Any, error: Error) -> Any:
    if not isinstance(value, str):
        raise error(f.name, f"must be text, got {value!r}")
    return _one_of(f, value, error)


def _one_of(f: Field, value: Any, error: Error) -> Any:
    if f.choices and value not in f.choices:
        raise error(f.name, f"must be one of {', '.join(f.choices)}; got {value!r}")
    return value


def _flag_value(f: Field, value: Any, error: Error) -> Any:
    if not isinstance(value, bool):
        raise error(f.name, f"must be true or false, got {value!r}")
    return value


def _number(f: Field, value: Any, error: Error) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise error(f.name, f"must be a number, got {value!r}")
    if not math.isfinite(value):
        raise error(f.name, f"must be a finite number, got {value!r}")
    low, high = f.limits
    whole = f.kind == WHOLE
    if whole and not float(value).is_integer():
        raise error(f.name, f"must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise error(f.name, f"must be between {low:g} and {high:g}, got {value:g}")
    return int(value) if whole else float(value)


_READ: dict[str, Callable[[Field, Any, Error], Any]] = {
    TEXT: _text_value, MEMBER: _one_of, FLAG: _flag_value, FREE: lambda f, value, error: value,
}
