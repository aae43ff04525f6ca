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


def _diffusers_config(where: str, class_name: str) -> str:
    """What to do with a diffusers model config (its class in ``_class_name``)."""
    from torchrig.planning.presets import load_presets

    presets = [p.id for p in load_presets().values() if p.family == "diffusion"]
    return (f"{where}: a diffusers model config ({class_name[:80]}): the planner sizes "
            f"diffusion models from its measured presets ({', '.join(presets)}) - choose task "
            "image_generation and the preset; torchrig verify --hf-config builds this config "
            "and plans the preset of the same architecture")


def parse_hf_config(data: Any, where: str = "config.json") -> HfModel:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object")
    family = data.get("model_type")
    if family == "gemma3" and isinstance(data.get("text_config"), dict):
        # Gemma 3 4B and larger: a vision tower around a gemma3_text language model.
        data = {"model_type": "gemma3_text", **data["text_config"]}
        family = "gemma3_text"
    if not family and isinstance(data.get("_class_name"), str):
        raise InputError(_diffusers_config(where, data["_class_name"]))
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
    notes: list[str] = []
    fields.update(_dropout(r, family, notes))
    fields.update(_head(r, notes))
    hidden_act = next((data[k] for k in ("hidden_act", "hidden_activation", "activation_function")
                       if isinstance(data.get(k), str)), None)
    if isinstance(hidden_act, str) and hidden_act in ACTIVATIONS:
        fields["activation"] = hidden_act
    task = "nlp_transformer" if family in ENCODERS else "llm_inference"
    name = data.get("_name_or_path") if isinstance(data.get("_name_or_path"), str) else ""
    return HfModel(fields, family, task, name or family, tuple(notes))


_DROPOUT_KEYS: dict[str, tuple[tuple[str, str, float], ...]] = {
    "gpt2": (("hidden_dropout", "resid_pdrop", 0.1), ("attention_dropout", "attn_pdrop", 0.1),
             ("embedding_dropout", "embd_pdrop", 0.1)),
    "bert": (("hidden_dropout", "hidden_dropout_prob", 0.1),
             ("attention_dropout", "attention_probs_dropout_prob", 0.1)),
}
"""(workload field, config field, the config class's default) for each family's dropouts:
GPT2Config's resid/attn/embd_pdrop and BertConfig's (RobertaConfig's) hidden_dropout_prob
(residual branches and embeddings) and attention_probs_dropout_prob, all 0.1 by default; every
Llama-style config class has attention_dropout, 0.0 by default."""
_DROPOUT_KEYS["roberta"] = _DROPOUT_KEYS["bert"]
_LLAMA_DROPOUT = (("attention_dropout", "attention_dropout", 0.0),)
_UNMODELLED_DROPOUT = ("resid_pdrop", "embd_pdrop")  # Phi-3's, on Llama-style blocks

HEAD_SUFFIXES = (("ForCausalLM", "lm"), ("LMHeadModel", "lm"), ("ForMaskedLM", "lm"),
                 ("ForPreTraining", "lm"), ("ForConditionalGeneration", "lm"),
                 ("ForSequenceClassification", "sequence_classification"),
                 ("ForTokenClassification", "token_classification"),
                 ("ForQuestionAnswering", "question_answering"), ("Model", "base"))
"""The head a class name in ``architectures`` ends with (Hugging Face's naming: GPT2LMHeadModel,
LlamaForCausalLM, BertForMaskedLM, BertForPreTraining - the masked-LM head counted, its 2-way
next-sentence head left out - Gemma3ForConditionalGeneration's language model; a bare
``...Model`` has no head)."""


def _dropout(r: _Fields, family: str, notes: list[str]) -> dict[str, float]:
    keys = _DROPOUT_KEYS.get(family, _LLAMA_DROPOUT)
    out = {name: r.probability(key, default) for name, key, default in keys}
    if family not in _DROPOUT_KEYS:
        for key in _UNMODELLED_DROPOUT:
            if r.probability(key, 0.0) > 0:
                notes.append(f"{key} = {r.data[key]:g}: dropout outside attention is not "
                             f"modelled for {family} (its masks are not counted)")
    return out


def _head(r: _Fields, notes: list[str]) -> dict[str, Any]:
    """The head from ``architectures`` (its first entry) and, for a classifier, num_labels
    (the field, else the size of id2label, else PretrainedConfig's default 2)."""
    names = r.data.get("architectures")
    if not isinstance(names, list) or not names or not isinstance(names[0], str):
        return {}
    name = names[0]
    head = next((h for suffix, h in HEAD_SUFFIXES if name.endswith(suffix)), None)
    if head is None:
        notes.append(f"architectures {name}: a head TorchRig does not model; planned with the "
                     "task's usual head")
        return {}
    out: dict[str, Any] = {"head": head}
    if head in ("sequence_classification", "token_classification"):
        labels = r.optional("num_labels")
        id2label = r.data.get("id2label")
        if labels is None and isinstance(id2label, dict) and id2label:
            labels = len(id2label)
        out["num_labels"] = labels or 2
    return out


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

    def probability(self, key: str, default: float) -> float:
        value = self.data.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not 0 <= value <= 1:
            raise InputError(f"{self.where}: field '{key}' must be a probability from 0 to 1, "
                             f"got {value!r}")
        return float(value)

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
    # The masked-LM decoder shares the word embeddings (BertConfig's default).
    f["tied_embeddings"] = r.flag("tie_word_embeddings", True)
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
