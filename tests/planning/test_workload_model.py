"""Workload: defaults, validation with clear messages, JSON round trip, sample files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from torchrig.errors import InputError
from torchrig.planning.workload import (
    TASKS,
    Workload,
    default_workload,
    load_workload,
    save_workload,
    workload_from_options,
)

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "workloads").glob("*.json"))


@pytest.mark.parametrize("task", TASKS)
def test_every_task_has_a_valid_default(task):
    w = default_workload(task)
    assert w.task == task
    assert w.validate() is w


def test_unknown_task():
    with pytest.raises(InputError, match="unknown task 'vision'"):
        default_workload("vision")


def test_json_round_trip(tmp_path):
    w = workload_from_options(task="llm_finetune_lora", model="llama-3-8b", batch=2, seq_len=4096,
                              gpus=2, epochs=1.5)
    path = tmp_path / "w.json"
    save_workload(w, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "torchrig.workload" and data["version"] == 1
    assert load_workload(path) == w
    assert Workload.from_dict(w.to_dict()) == w


def test_minimal_file_takes_the_task_defaults(tmp_path):
    path = tmp_path / "min.json"
    path.write_text('{"format": "torchrig.workload", "version": 1, "task": "llm_inference"}',
                    encoding="utf-8")
    assert load_workload(path) == default_workload("llm_inference")


def test_options_use_cli_names():
    w = workload_from_options(task="image_classification", model="resnet152", batch=64,
                              checkpointing=True, gpus=4, nodes=2, dataset_samples=1000,
                              sample_bytes=5000, precision="amp_bf16")
    assert (w.batch_size, w.gradient_checkpointing, w.gpus_per_node, w.nodes) == (64, True, 4, 2)
    assert (w.dataset.samples, w.dataset.sample_bytes) == (1000, 5000)
    assert w.total_gpus == 8


def test_changing_the_model_takes_its_sequence_limit():
    # Task default is 2048 tokens; GPT-2 has 1024 positions.
    w = workload_from_options(task="llm_finetune_lora", model="gpt2")
    assert w.seq_len == 1024


def test_custom_transformer():
    w = workload_from_options(task="llm_finetune_full", model="custom", layers=4, hidden=256,
                              heads=8, kv_heads=2, vocab=1000, seq_len=128)
    assert w.params is None and w.kv_heads == 2


@pytest.mark.parametrize("options,message", [
    (dict(batch=-3), "field 'batch' must be between 1 and 1e+06, got -3"),
    (dict(batch=10**9), "field 'batch' must be between 1 and 1e+06"),
    (dict(batch=2.5), "field 'batch' must be a whole number"),
    (dict(gpus=0), "field 'gpus' must be between 1 and 256, got 0"),
    (dict(model="custom", params=10**15), "field 'params' must be between 1000 and 1e+13"),
    (dict(precision="int4"), "field 'precision' int4 is for inference only"),
    (dict(precision="fp6"), "field 'precision' must be one of fp32, tf32"),
    (dict(model="llama-2-7b"), "field 'model' llama-2-7b does not fit task image_classification"),
    (dict(model="custom"), "field 'params' is required for a custom model"),
    (dict(seq_len=1024), "field 'seq_len' is only for transformer models"),
    (dict(model="custom", layers=2, hidden=64, heads=3), "field 'heads' must divide hidden"),
    (dict(layers=2), "field 'layers' is only for model 'custom'"),
    (dict(params=10**6), "field 'params' is only for model 'custom'"),
    (dict(epochs=0), "field 'epochs' must be between"),
    (dict(strategy="zero3", offload="optimizer_and_params", gpus=2), None),
    (dict(offload="optimizer"), "field 'offload' needs strategy zero2 or zero3"),
    (dict(strategy="tensor_parallel", gpus=2), "field 'tp_size' must be at least 2"),
    (dict(batch="8"), "field 'batch' must be a number"),
    (dict(checkpointing="yes"), "field 'checkpointing' must be true or false"),
    (dict(color="red"), "unknown field 'color'"),
])
def test_validation_names_the_field(options, message):
    kwargs = dict(task="image_classification")
    kwargs.update(options)
    if message is None:
        workload_from_options(**kwargs)
        return
    with pytest.raises(InputError) as info:
        workload_from_options(**kwargs)
    assert str(info.value).startswith("options: ")
    assert message in str(info.value)


def test_seq_len_above_the_model_positions():
    with pytest.raises(InputError, match="seq_len' is 4096, more than bert-base's 512"):
        workload_from_options(task="nlp_transformer", model="bert-base", seq_len=4096)


def test_tensor_parallel_must_divide_heads_and_gpus():
    with pytest.raises(InputError, match="tp_size' must divide the 12 attention heads"):
        workload_from_options(task="llm_inference", model="gpt2", gpus=8,
                              strategy="tensor_parallel", tp_size=8)
    with pytest.raises(InputError, match="tp_size' must divide the 6 GPUs"):
        workload_from_options(task="llm_inference", model="llama-2-7b", gpus=6,
                              strategy="tensor_parallel", tp_size=4)


def test_inference_refuses_training_only_settings():
    with pytest.raises(InputError, match="field 'strategy' ZeRO shards training state"):
        workload_from_options(task="llm_inference", strategy="zero3", gpus=2)
    with pytest.raises(InputError, match="mode' must be 'infer'"):
        workload_from_options(task="llm_inference", mode="train")


def test_qlora_accepts_int4():
    w = workload_from_options(task="llm_finetune_lora", precision="int4")
    assert w.precision == "int4" and w.is_lora


def test_file_errors_name_the_file_and_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "torchrig.workload", "version": 1,
                                "task": "nlp_transformer", "dataset": {"samples": -1}}),
                    encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.json: field 'dataset\.samples' must be between"):
        load_workload(path)
    path.write_text('{"format": "torchrig.build", "version": 1}', encoding="utf-8")
    with pytest.raises(InputError, match="field 'format' is 'torchrig.build'"):
        load_workload(path)
    path.write_text('{"format": "torchrig.workload", "version": 9, "task": "x"}',
                    encoding="utf-8")
    with pytest.raises(InputError, match="version 9 is newer"):
        load_workload(path)


def test_a_failed_save_leaves_the_old_file(tmp_path):
    path = tmp_path / "w.json"
    save_workload(default_workload("nlp_transformer"), path)
    before = path.read_bytes()
    broken = dataclasses.replace(default_workload("nlp_transformer"), batch_size=0)
    with pytest.raises(InputError):
        save_workload(broken, path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.json"]


def test_direct_construction_is_validated_on_use():
    bad = dataclasses.replace(default_workload("image_classification"), gpus_per_node=0)
    with pytest.raises(InputError, match="gpus_per_node"):
        bad.validate()


def test_there_are_a_dozen_sample_workloads():
    assert len(SAMPLES) >= 12


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_workloads_load(path):
    w = load_workload(path)
    assert w.name
    assert Workload.from_dict(w.to_dict(), str(path)) == w
