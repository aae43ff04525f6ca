"""Read a Hugging Face ``config.json`` into a custom transformer workload's fields.

Each family names its architecture in its own fields (GPT-2's ``n_layer`` vs Llama's
``num_hidden_layers``; Mixtral's ``num_local_experts`` vs DeepSeek's ``n_routed_experts``), and
each family's config class has its own defaults for fields a file may leave out (Llama does not
tie its embeddings, Gemma does). This module knows the families listed in :data:`FAMILIES`; a
config of any other ``model_type`` is refused with a message naming it - never read by guessing.

The result is a plain dict of workload fields (``model: custom`` plus the shape) that the CLI
(``torchrig plan --hf-config``) and the Wizard ("Import config.json…") apply with the same
validation as any workload.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.jsonio import parse_json_text, read_text_file
from torchrig.planning.workload import ACTIVATIONS

MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""A config.json is a few KiB; refuse anything that is clearly not one before parsing it."""

LLAMA_LIKE = ("llama", "mistral", "qwen2", "qwen3", "phi3", "gemma", "gemma2", "gemma3_text")
MOE = ("mixtral", "qwen2_moe", "qwen3_moe")
MLA = ("deepseek_v2", "deepseek_v3")
ENCODERS = ("bert", "roberta")
FAMILIES = (*LLAMA_LIKE, *MOE, *MLA, "gpt2", *ENCODERS)

_TIED_DEFAULT = {"gemma": True, "gemma2": True, "gemma3_text": True, "gpt2": True,
                 "bert": True, "roberta": True}
"""tie_word_embeddings when the file leaves it out: each config class's own default (Llama,
Mistral, Qwen, Phi-3, Mixtral and DeepSeek configs default to untied)."""


@dataclass(frozen=True)
class HfModel:
    """Attributes: fields (workload fields, ``model`` = "custom"), family (the config's
    model_type), task (the task a model of this kind suggests), notes (what was read that the
    planner does not model, e.g. dropout)."""

    fields: dict[str, Any]
    family: str
    task: str
    name: str
    notes: tuple[str, ...] = ()


def load_hf_config(path: str | Path) -> HfModel:
    """Read ``path`` (a config.json or a folder holding one)."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    try:
        # The guarded reader every user file goes through: a FIFO or a device is refused
        # before it is opened (reading one would block or never end), and the parser refuses
        # deep nesting (RecursionError), huge integers and a key given twice.
        data = parse_json_text(read_text_file(path, MAX_CONFIG_BYTES), str(path))
    except InputError as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        raise InputError(f"{path}: cannot read the Hugging Face config: {reason}") from None
    return parse_hf_config(data, str(path))


def parse_hf_config(data: Any, where: str = "config.json") -> HfModel:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object")
    family = data.get("model_type")
    if family == "gemma3" and isinstance(data.get("text_config"), dict):
        # Gemma 3 4B and larger: a vision tower around a gemma3_text language model.
        data = {"model_type": "gemma3_text", **data["text_config"]}
        family = "gemma3_text"
    if not isinstance(family, str) or not family:
        raise InputError(f"{where}: field 'model_type' is missing: TorchRig reads configs of "
                         f"{', '.join(FAMILIES)}")
    if family not in FAMILIES:
        raise InputError(
            f"{where}: model_type {family!r} is not a family TorchRig knows ({', '.join(FAMILIES)})"
            "; describe it with --model custom --layers --hidden --heads --kv-heads --ffn "
            "--vocab instead")
    r = _Fields(data, where, family)
    if family == "gpt2":
        fields = _gpt2(r)
    elif family in ENCODERS:
        fields = _encoder(r)
    else:
        fields = _decoder(r, family)
    notes = []
    for key in ("attention_dropout", "attn_pdrop", "resid_pdrop", "hidden_dropout_prob",
                "attention_probs_dropout_prob"):
        value = data.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            notes.append(f"{key} = {value:g} (the calibration of this block style fixes its own "
                         "dropout: GPT-2 and BERT 0.1, Llama-style none)")
    hidden_act = next((data[k] for k in ("hidden_act", "hidden_activation", "activation_function")
                       if isinstance(data.get(k), str)), None)
    if isinstance(hidden_act, str) and hidden_act in ACTIVATIONS:
        fields["activation"] = hidden_act
    task = "nlp_transformer" if family in ENCODERS else "llm_inference"
    name = data.get("_name_or_path") if isinstance(data.get("_name_or_path"), str) else ""
    return HfModel(fields, family, task, name or family, tuple(notes))


class _Fields:
    """Typed reads naming the config field (and the family) in every message."""

    def __init__(self, data: Mapping[str, Any], where: str, family: str) -> None:
        self.data, self.where, self.family = data, where, family

    def whole(self, *keys: str, default: int | None = None, what: str = "") -> int:
        value = self.optional(*keys)
        if value is None:
            if default is not None:
                return default
            raise InputError(f"{self.where}: field '{keys[0]}' is missing ({what or 'needed'} "
                             f"for a {self.family} model)")
        return value

    def optional(self, *keys: str) -> int | None:
        for key in keys:
            value = self.data.get(key)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{self.where}: field '{key}' must be a whole number, got "
                                 f"{value!r}")
            return value
        return None

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise InputError(f"{self.where}: field '{key}' must be true or false, got {value!r}")
        return value


def _shape(r: _Fields) -> dict[str, Any]:
    return {
        "model": "custom",
        "max_positions": r.whole("max_position_embeddings", what="the context length"),
        "layers": r.whole("num_hidden_layers", what="the number of layers"),
        "hidden": r.whole("hidden_size", what="the hidden size"),
        "heads": r.whole("num_attention_heads", what="the number of attention heads"),
        "vocab": r.whole("vocab_size", what="the vocabulary size"),
    }


def _decoder(r: _Fields, family: str) -> dict[str, Any]:
    f = _shape(r)
    f["style"] = "llama"
    f["kv_heads"] = r.whole("num_key_value_heads", default=f["heads"])
    f["ffn"] = r.whole("intermediate_size", what="the MLP width")
    f["tied_embeddings"] = r.flag("tie_word_embeddings", _TIED_DEFAULT.get(family, False))
    head_dim = r.optional("head_dim")
    if head_dim is not None and head_dim * f["heads"] != f["hidden"]:
        f["head_dim"] = head_dim
    if family == "qwen2" or family == "qwen2_moe":
        f["qkv_bias"] = True  # Qwen2's q/k/v projections carry biases (config has no flag)
    window = r.optional("sliding_window")
    uses_window = family in ("mistral", "phi3", "gemma2", "gemma3_text") or r.flag(
        "use_sliding_window", False)
    if window and uses_window:
        f["sliding_window"] = window
        layers = f["layers"]
        if family == "gemma2":
            f["sliding_layers"] = layers // 2  # local and global attention alternate
        elif family == "gemma3_text":
            pattern = r.whole("sliding_window_pattern", default=6)
            f["sliding_layers"] = layers - layers // pattern  # one global layer in `pattern`
        else:
            f["sliding_layers"] = layers
    if family == "mixtral":
        f["experts"] = r.whole("num_local_experts", what="the number of experts")
        f["active_experts"] = r.whole("num_experts_per_tok", what="experts per token")
        f["expert_ffn"] = f["ffn"]
    elif family in ("qwen2_moe", "qwen3_moe"):
        f["experts"] = r.whole("num_experts", what="the number of experts")
        f["active_experts"] = r.whole("num_experts_per_tok", what="experts per token")
        f["expert_ffn"] = r.whole("moe_intermediate_size", what="the expert width")
        shared = r.optional("shared_expert_intermediate_size")
        if shared:
            f["shared_expert_ffn"] = shared
        sparse_step = r.whole("decoder_sparse_step", default=1)
        if sparse_step != 1 or r.data.get("mlp_only_layers"):
            raise InputError(f"{r.where}: decoder_sparse_step / mlp_only_layers (dense layers "
                             f"between the {family} MoE layers) are not modelled")
    elif family in MLA:
        f["experts"] = r.whole("n_routed_experts", what="the number of routed experts")
        f["active_experts"] = r.whole("num_experts_per_tok", what="experts per token")
        f["expert_ffn"] = r.whole("moe_intermediate_size", what="the expert width")
        shared = r.whole("n_shared_experts", default=0)
        if shared:
            f["shared_expert_ffn"] = shared * f["expert_ffn"]
        dense = r.whole("first_k_dense_replace", default=0)
        if dense:
            f["dense_layers"] = dense
        f["kv_lora_rank"] = r.whole("kv_lora_rank", what="the latent attention rank")
        q_rank = r.optional("q_lora_rank")
        if q_rank:
            f["q_lora_rank"] = q_rank
        f["rope_head_dim"] = r.whole("qk_rope_head_dim", what="the rotary key size")
        f["head_dim"] = r.whole("qk_nope_head_dim", what="the non-rotary query/key size")
        f["v_head_dim"] = r.whole("v_head_dim", what="the value head size")
    return f


def _gpt2(r: _Fields) -> dict[str, Any]:
    hidden = r.whole("n_embd", what="the hidden size")
    return {
        "model": "custom", "style": "gpt",
        "layers": r.whole("n_layer", what="the number of layers"),
        "hidden": hidden,
        "heads": r.whole("n_head", what="the number of attention heads"),
        "vocab": r.whole("vocab_size", what="the vocabulary size"),
        "ffn": r.whole("n_inner", default=4 * hidden),
        "max_positions": r.whole("n_positions", "n_ctx", what="the context length"),
        "tied_embeddings": r.flag("tie_word_embeddings", True),
    }


def _encoder(r: _Fields) -> dict[str, Any]:
    f = _shape(r)
    f["style"] = "bert"
    f["ffn"] = r.whole("intermediate_size", what="the MLP width")
    return f


def hf_workload_fields(model: HfModel, task: str | None) -> dict[str, Any]:
    """The workload fields for ``model`` under ``task`` (None = the model's own suggestion);
    the task's default sequence length is cut to the model's context length."""
    from torchrig.planning.workload import default_workload

    task = task or model.task
    fields: dict[str, Any] = {"task": task, "name": model.name, **model.fields}
    default_seq = default_workload(task).seq_len
    if default_seq is not None and default_seq > fields["max_positions"]:
        fields["seq_len"] = fields["max_positions"]
    return fields


__all__ = ["FAMILIES", "HfModel", "hf_workload_fields", "load_hf_config", "parse_hf_config"]
