"""The workload's validation tables: one row per field, and load and save held to one set of
rules (the same refusal, word for word, for a document and for a workload about to be saved)."""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.errors import InputError
from torchrig.planning.workload import _RULES, Dataset, Workload, default_workload
from torchrig.planning.workload_fields import FIELDS, NUMBER, SAVE_CHECKED, TEXT, WHOLE


def _field_names() -> list[str]:
    names = [f.name for f in dataclasses.fields(Workload) if f.name != "dataset"]
    return names + [f"dataset.{f.name}" for f in dataclasses.fields(Dataset)]


def test_every_field_has_exactly_one_row():
    rows = [f.name for f in FIELDS]
    assert len(rows) == len(set(rows))
    assert sorted(rows) == sorted(_field_names())


def test_save_checks_each_enumeration_and_number_once():
    names = [f.name for f in SAVE_CHECKED]
    assert len(names) == len(set(names))
    assert {f.name for f in SAVE_CHECKED if f.kind == TEXT} == {
        "task", "mode", "precision", "optimizer", "strategy", "offload", "attention",
        "kv_cache_dtype", "network"}
    assert {f.name for f in SAVE_CHECKED if f.kind != TEXT} == {
        f.name for f in FIELDS if f.kind in (NUMBER, WHOLE)}


def test_every_cross_field_rule_names_a_field_the_user_can_change():
    names = set(_field_names())
    assert all(rule.field in names for rule in _RULES)


# (task, changes, the refusal). Each breaks one rule; the last one breaks two and the
# earlier rule in the table is the one reported.
CASES = [
    ("llm_inference", dict(batch_size=0),
     "field 'batch_size' must be between 1 and 1e+06, got 0"),
    ("llm_inference", dict(layers=2),
     "field 'layers' is only for model 'custom' (llama-3-8b has its own)"),
    ("llm_inference", dict(model="custom", layers=2, hidden=256, heads=4, experts=8,
                           active_experts=2),
     "field 'expert_ffn' is required for a mixture of experts (give experts, active_experts "
     "and expert_ffn together)"),
    ("image_classification", dict(seq_len=128),
     "field 'seq_len' is only for transformer models (give image_size)"),
    ("image_generation", dict(image_size=500),
     "field 'image_size' must be a multiple of 64 pixels for a latent diffusion model (the VAE "
     "divides it by 8, the denoiser's levels again)"),
    ("image_generation", dict(denoising_steps=30),
     "field 'denoising_steps' applies to inference only (training runs one denoiser step per "
     "sample)"),
    ("llm_finetune_full", dict(mode="infer"),
     "field 'mode' must be 'train' or 'finetune' for task llm_finetune_full"),
    ("llm_finetune_lora", dict(lora_rank=4096),
     "field 'lora_rank' must be smaller than the hidden size 4096"),
    ("llm_inference", dict(strategy="tensor_parallel", tp_size=3, gpus_per_node=3),
     "field 'tp_size' must divide the 32 attention heads"),
    ("llm_inference", dict(figures_source="measured"),
     "field 'figures_source' describes activation_bytes_per_sample or "
     "forward_flops_per_sample: give one of them"),
    ("llm_inference", dict(tp_size=2, pp_size=2),
     "field 'tp_size' needs strategy tensor_parallel"),
]


@pytest.mark.parametrize("task,changes,message", CASES)
def test_load_and_save_refuse_alike(task, changes, message):
    base = default_workload(task)
    with pytest.raises(InputError) as loading:
        Workload.from_dict({**base.to_dict(), **changes})
    with pytest.raises(InputError) as saving:
        dataclasses.replace(base, **changes).validate()
    assert str(loading.value) == f"workload: {message}"
    assert str(saving.value) == f"workload: {message}"
