"""Every transformer preset equals its published config.json (stored in hf_configs/, written
from the Hugging Face Hub files the presets' sources name), field by field, read through the
same config reader an imported model goes through."""

from __future__ import annotations

import pytest
from cfg24_hf_oracle import CONFIGS

from torchrig.planning.hf_config import hf_workload_fields, load_hf_config
from torchrig.planning.param_parts import PRESET_HEAD, param_parts
from torchrig.planning.presets import load_presets
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.dropout_masks import dropout_of
from torchrig.planning.workload import workload_from_options

PRESET_CONFIGS = {
    "bert-base": "bert-base-uncased", "bert-base-cased": "bert-base-cased",
    "bert-large": "bert-large-uncased", "gpt2": "gpt2", "llama-2-7b": "llama-2-7b",
    "llama-2-13b": "llama-2-13b", "llama-2-70b": "llama-2-70b", "llama-3-8b": "llama-3-8b",
    "llama-3-70b": "llama-3-70b",
    # OpenAI published no config.json for GPT-3: its preset comes from Brown et al. 2020,
    # Table 2.1, and is checked against that table in test_presets_data.py.
    "gpt-3-175b": None,
}
SHAPE = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "max_positions",
         "tied_embeddings", "activation")


def _transformers():
    return {pid: p for pid, p in load_presets().items() if p.family == "transformer"}


def test_every_transformer_preset_has_its_config_or_a_reason():
    assert set(_transformers()) == set(PRESET_CONFIGS)


@pytest.mark.parametrize("pid", [k for k, v in PRESET_CONFIGS.items() if v])
def test_preset_equals_its_published_config(pid):
    preset = load_presets()[pid]
    imported = load_hf_config(CONFIGS / PRESET_CONFIGS[pid])
    arch = preset.arch
    fields = imported.fields
    assert arch.style == fields["style"]
    for name in SHAPE:
        # kv_heads defaults to heads in the reader only when the config leaves it out;
        # a BERT config has none: the preset's equals its heads.
        expected = fields.get(name, fields["heads"] if name == "kv_heads" else None)
        assert (name, getattr(arch, name)) == (name, expected)
    # Dropout as the config sets it (GPT-2 and BERT 0.1 everywhere, Llama attention 0.0).
    task = preset.tasks[0]
    w = workload_from_options(task=task, model=pid)
    d = dropout_of(w, arch)
    assert d.hidden == fields.get("hidden_dropout", 0.0)
    assert d.attention == fields["attention_dropout"]
    assert d.embedding == fields.get("embedding_dropout", d.hidden)
    # The preset's published count is the config's model with the head PRESET_HEAD names.
    assert preset.params == param_parts(arch, PRESET_HEAD[arch.style]).model


@pytest.mark.parametrize("task", ["llm_finetune_full", "llm_inference"])
def test_the_gpt2_preset_plans_as_its_imported_config(task):
    # Before: the preset lacked gelu_new and planned 0.65x the activations of the real model
    # (and of its own config imported).
    preset = plan(workload_from_options(task=task, model="gpt2", gpus=1, strategy="ddp",
                                        checkpointing=False) if task != "llm_inference" else
                  workload_from_options(task=task, model="gpt2"))
    fields = hf_workload_fields(load_hf_config(CONFIGS / "gpt2"), task)
    fields.pop("name")
    extra = dict(gpus=1, strategy="ddp", checkpointing=False) if task != "llm_inference" else {}
    imported = plan(workload_from_options(**{**fields, **extra}))
    assert preset.vram_per_gpu["activations"].value == imported.vram_per_gpu["activations"].value
    assert preset.vram_per_gpu["activations"].value > 0
