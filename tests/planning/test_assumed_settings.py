"""Settings the user did not choose are said out loud (issue 24, "no silent defaults"), and the
plan JSON carries the parameter count.

Expected values: the GPT-2 count is the figure transformers reports for ``gpt2`` (124,439,808,
tied embeddings); the LoRA adapter count is worked out by hand below.
"""

from __future__ import annotations

import json
from pathlib import Path

from torchrig.cli import main

ROOT = Path(__file__).resolve().parents[2]
GPT2 = str(ROOT / "tests" / "planning" / "hf_configs" / "gpt2" / "config.json")
EVERY_OPTION = ["--gpus", "--nodes", "--strategy", "--checkpointing", "--precision",
                "--optimizer", "--batch", "--grad-accumulation", "--seq-len", "--epochs",
                "--dataset-samples", "--sample-bytes"]
"""What a config (the model: no --model) and a training task leave to the task's defaults."""


def _plan_json(capsys, *argv: str) -> dict:
    assert main(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_config_and_a_task_alone_name_every_default_they_took(capsys):
    data = _plan_json(capsys, "--hf-config", GPT2, "--task", "llm_finetune_full")
    assumed = {a["option"]: a["value"] for a in data["assumed_settings"]}
    assert list(assumed) == EVERY_OPTION
    # The full fine-tune task's defaults (8 GPUs, ZeRO-3, checkpointing) are for its 7B model;
    # GPT-2's layout is sized to its 124M parameters (docs/estimation.md sec. 2.6): one GPU,
    # DDP, no checkpointing, and said to be so.
    assert (assumed["--gpus"], assumed["--strategy"], assumed["--checkpointing"]) == (
        1, "ddp", False)
    basis = {a["option"]: a["basis"] for a in data["assumed_settings"]}
    assert [o for o, b in basis.items() if b == "sized"] == ["--gpus", "--strategy",
                                                             "--checkpointing"]
    assert main(["plan", "--hf-config", GPT2, "--task", "llm_finetune_full"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("Assumed"))
    assert "1 GPU per node" in line and "DDP" in line and "--gpus" in line
    assert "sized to the model" in line
    assert main(["plan", "--hf-config", GPT2, "--task", "llm_finetune_full", "--lang",
                 "zh"]) == 0
    assert "假设（任务默认值，未指定）" in capsys.readouterr().out


def test_what_the_user_gave_is_not_an_assumption(capsys):
    data = _plan_json(capsys, "--hf-config", GPT2, "--task", "llm_finetune_full", "--gpus", "1",
                      "--strategy", "ddp", "--checkpointing", "off")
    options = [a["option"] for a in data["assumed_settings"]]
    assert options == ["--nodes", "--precision", "--optimizer", "--batch",
                       "--grad-accumulation", "--seq-len", "--epochs", "--dataset-samples",
                       "--sample-bytes"]
    # Inference has no optimizer and no checkpointing to assume.
    data = _plan_json(capsys, "--task", "llm_inference")
    options = [a["option"] for a in data["assumed_settings"]]
    assert "--optimizer" not in options and "--checkpointing" not in options
    assert main(["plan", "--hf-config", GPT2, "--task", "llm_finetune_full", "--gpus", "1",
                 "--strategy", "ddp", "--checkpointing", "off", "--nodes", "1", "--precision",
                 "amp_bf16", "--optimizer", "adamw", "--batch", "2", "--seq-len", "512",
                 "--grad-accumulation", "1", "--epochs", "1", "--dataset-samples", "1000",
                 "--sample-bytes", "4096"]) == 0
    assert "Assumed" not in capsys.readouterr().out


def test_a_workload_file_assumes_nothing(capsys):
    data = _plan_json(capsys, "--workload", str(ROOT / "workloads" / "llama2-7b-lora.json"))
    assert data["assumed_settings"] == []


def test_the_plan_json_counts_the_parameters_and_those_that_train(capsys):
    full = _plan_json(capsys, "--hf-config", GPT2, "--task", "llm_finetune_full")
    assert (full["parameters"]["total"], full["parameters"]["trainable"]) == (
        124_439_808, 124_439_808)
    lora = _plan_json(capsys, "--hf-config", GPT2, "--task", "llm_finetune_lora",
                      "--lora-rank", "16")
    # LoRA on every linear layer of a block, rank 16, A (r x in) + B (out x r) per layer:
    # GPT-2's packed attention c_attn 16 x (768 + 2,304) = 49,152 and c_proj
    # 16 x (768 + 768) = 24,576; MLP up and down: 2 x 16 x (768 + 3,072) = 122,880;
    # 12 layers: 12 x 196,608 = 2,359,296 (peft's count: tests/planning/test_cfg24_params.py).
    # The total counts the adapters with the model, as peft's "all params" does.
    assert (lora["parameters"]["total"], lora["parameters"]["trainable"]) == (
        124_439_808 + 2_359_296, 2_359_296)
    serve = _plan_json(capsys, "--hf-config", GPT2, "--task", "llm_inference")
    assert serve["parameters"]["trainable"] == 0
