"""The library model ``verify`` runs for a preset when the user names none (torch-free).

A preset is a published model, so verify runs the published model: transformers built from
the preset's Hugging Face config, torchvision's model of the same name, diffusers from the
denoiser's config (:mod:`torchrig.verify.diffusion_configs`). TorchRig's reference copies
(:mod:`torchrig.verify.reference_models`) are what the planner was calibrated on, so measuring
them beside the plan agrees by construction; they run only where no library model of the
preset exists, or its library is not installed, and the result says which and why.

The configs below are the architecture keys of the Hugging Face Hub ``config.json`` files
named in :data:`CONFIG_SOURCES`, as the repositories publish them (keys a config leaves out take
the transformers config class's defaults, as ``from_pretrained`` would). The planner's presets
are checked against the same files field by field (tests/planning/test_cfg24_presets.py).
"""

from __future__ import annotations

from typing import Any

from torchrig.i18n import Msg
from torchrig.planning.presets import get_preset
from torchrig.planning.workload import CUSTOM, Workload, model_head
from torchrig.verify.sources import ModelSource

_BERT_BASE = {
    "model_type": "bert", "hidden_size": 768, "intermediate_size": 3072,
    "num_hidden_layers": 12, "num_attention_heads": 12, "max_position_embeddings": 512,
    "type_vocab_size": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "attention_probs_dropout_prob": 0.1,
}
_LLAMA = {"model_type": "llama", "hidden_act": "silu", "rms_norm_eps": 1e-05,
          "attention_dropout": 0.0, "tie_word_embeddings": False}

TRANSFORMER_CONFIGS: dict[str, dict[str, Any]] = {
    "bert-base": {**_BERT_BASE, "vocab_size": 30522},
    "bert-base-cased": {**_BERT_BASE, "vocab_size": 28996},
    "bert-large": {**_BERT_BASE, "hidden_size": 1024, "intermediate_size": 4096,
                   "num_hidden_layers": 24, "num_attention_heads": 16, "vocab_size": 30522},
    "gpt2": {"model_type": "gpt2", "activation_function": "gelu_new", "n_ctx": 1024,
             "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
             "vocab_size": 50257, "attn_pdrop": 0.1, "embd_pdrop": 0.1, "resid_pdrop": 0.1,
             "layer_norm_epsilon": 1e-05},
    "llama-2-7b": {**_LLAMA, "hidden_size": 4096, "intermediate_size": 11008,
                   "num_hidden_layers": 32, "num_attention_heads": 32,
                   "num_key_value_heads": 32, "vocab_size": 32000,
                   "max_position_embeddings": 4096, "rope_theta": 10000.0},
    "llama-2-13b": {**_LLAMA, "hidden_size": 5120, "intermediate_size": 13824,
                    "num_hidden_layers": 40, "num_attention_heads": 40,
                    "num_key_value_heads": 40, "vocab_size": 32000,
                    "max_position_embeddings": 4096, "rope_theta": 10000.0},
    "llama-2-70b": {**_LLAMA, "hidden_size": 8192, "intermediate_size": 28672,
                    "num_hidden_layers": 80, "num_attention_heads": 64,
                    "num_key_value_heads": 8, "vocab_size": 32000,
                    "max_position_embeddings": 4096, "rope_theta": 10000.0},
    "llama-3-8b": {**_LLAMA, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_hidden_layers": 32, "num_attention_heads": 32,
                   "num_key_value_heads": 8, "vocab_size": 128256,
                   "max_position_embeddings": 8192, "rope_theta": 500000.0},
    "llama-3-70b": {**_LLAMA, "hidden_size": 8192, "intermediate_size": 28672,
                    "num_hidden_layers": 80, "num_attention_heads": 64,
                    "num_key_value_heads": 8, "vocab_size": 128256,
                    "max_position_embeddings": 8192, "rope_theta": 500000.0},
}
"""Preset id -> the architecture keys of its published config.json."""

CONFIG_SOURCES = {
    "bert-base": "google-bert/bert-base-uncased", "bert-base-cased": "google-bert/bert-base-cased",
    "bert-large": "google-bert/bert-large-uncased", "gpt2": "openai-community/gpt2",
    "llama-2-7b": "meta-llama/Llama-2-7b-hf", "llama-2-13b": "meta-llama/Llama-2-13b-hf",
    "llama-2-70b": "meta-llama/Llama-2-70b-hf", "llama-3-8b": "meta-llama/Meta-Llama-3-8B",
    "llama-3-70b": "meta-llama/Meta-Llama-3-70B",
}
"""Preset id -> the Hugging Face Hub repository whose config.json the keys come from."""

_CLASS_PREFIX = {"bert": "Bert", "gpt": "GPT2", "llama": "Llama"}
_LM_CLASS = {"bert": "BertForMaskedLM", "gpt": "GPT2LMHeadModel", "llama": "LlamaForCausalLM"}
_HEAD_SUFFIX = {"sequence_classification": "ForSequenceClassification",
                "token_classification": "ForTokenClassification",
                "question_answering": "ForQuestionAnswering", "base": "Model"}

_DROPOUT_KEYS = {
    "bert": (("hidden_dropout", "hidden_dropout_prob"),
             ("attention_dropout", "attention_probs_dropout_prob")),
    "gpt": (("hidden_dropout", "resid_pdrop"), ("attention_dropout", "attn_pdrop"),
            ("embedding_dropout", "embd_pdrop")),
    "llama": (("attention_dropout", "attention_dropout"),),
}
"""The workload's dropout fields -> the config key the library reads for them. HF BERT has one
probability for its embeddings and its residual branches (``hidden_dropout_prob``)."""

TORCHVISION_MODELS = {"resnet18": "resnet18", "resnet50": "resnet50",
                      "resnet152": "resnet152", "vit-b-16": "vit_b_16"}
"""Vision presets -> the torchvision classifier of the same architecture (the presets' counts
are torchvision's: 11,689,512 / 25,557,032 / 60,192,808 / 86,567,656 parameters)."""

NO_LIBRARY_MODEL = {
    "gpt-3-175b": Msg(
        "OpenAI published no Hugging Face config of GPT-3: its shape is Brown et al. 2020, "
        "Table 2.1",
        "OpenAI 未发布 GPT-3 的 Hugging Face 配置：其结构取自 Brown 等 2020 年论文表 2.1"),
    "nature-cnn": Msg("the Nature DQN network is defined in its paper, not in a library",
                      "Nature DQN 网络定义于论文，不在任何库中"),
    "yolov8n": Msg("YOLOv8 is Ultralytics' library, not a TorchRig dependency",
                   "YOLOv8 属于 Ultralytics 库，不是 TorchRig 的依赖"),
}
NO_LIBRARY_MODEL["yolov8s"] = NO_LIBRARY_MODEL["yolov8m"] = NO_LIBRARY_MODEL["yolov8n"]


def head_class(style: str, head: str) -> str:
    """The transformers class of a style with a head (workload_fields.HEADS)."""
    if head == "lm":
        return _LM_CLASS[style]
    return _CLASS_PREFIX[style] + _HEAD_SUFFIX[head]


def preset_config(w: Workload) -> dict[str, Any]:
    """The preset's published config with what the workload changes in it: the class of the
    head it plans, its label count, and its dropout probabilities."""
    preset = get_preset(w.model)
    assert preset.arch is not None
    style = preset.arch.style
    config = dict(TRANSFORMER_CONFIGS[w.model])
    config["architectures"] = [head_class(style, model_head(w, style))]
    if w.num_labels is not None:
        config["num_labels"] = w.num_labels
    if config["architectures"][0].endswith("ForSequenceClassification") and style != "bert":
        # GPT-2 and Llama pool the last token that is not padding, and refuse a batch over 1
        # without a pad token; none of verify's random ids is this one.
        config["pad_token_id"] = config["vocab_size"] - 1
    for field_name, key in _DROPOUT_KEYS[style]:
        value = getattr(w, field_name)
        if value is not None:
            config[key] = value
    return config


def preset_model_source(w: Workload) -> ModelSource:
    """The library model of ``w``'s preset, or the reference model with the reason none
    runs. Diffusion presets are :func:`torchrig.verify.sources.preset_source`'s."""
    if w.model == CUSTOM:
        return ModelSource("reference", fallback=Msg(
            "an architecture given by its shape names no library model: give --hf-config, "
            "--model torchvision:/timm: or --model-factory to run your own",
            "按结构参数给出的架构没有对应的库模型：请用 --hf-config、--model torchvision:/timm: "
            "或 --model-factory 运行你自己的模型"))
    if w.model in TRANSFORMER_CONFIGS:
        config = preset_config(w)
        return ModelSource("transformers", name=config["architectures"][0], config=config)
    if w.model in TORCHVISION_MODELS and w.task == "image_classification":
        return ModelSource("torchvision", name=TORCHVISION_MODELS[w.model])
    why = NO_LIBRARY_MODEL.get(w.model) or Msg(
        f"no library model stands for the {w.model} preset in a {w.task} workload",
        f"{w.task} 工作负载中的 {w.model} 预设没有对应的库模型")
    return ModelSource("reference", fallback=why)
