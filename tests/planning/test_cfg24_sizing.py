"""An imported model's defaults follow its size (docs/estimation.md sec. 2.6), through the CLI.

Hand figures behind the expectations: a full fine-tune with AdamW in mixed precision keeps
16 B of model states per parameter (ZeRO paper sec. 3.1): GPT-2's 124,439,808 parameters are
2.0 GB, far inside one 80 GB H100; Llama-2-7B's 6,738,415,616 are 107.8 GB, more than one
80 GB GPU holds, so its task defaults (8 GPUs, ZeRO-3, checkpointing) stay."""

from __future__ import annotations

import json
from pathlib import Path

from torchrig.cli import main

CONFIGS = Path(__file__).parent / "hf_configs"
SIZED = ["--gpus", "--strategy", "--checkpointing"]


def _plan(capsys, *argv):
    assert main(["plan", *argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    values = {a["option"]: a["value"] for a in data["assumed_settings"]}
    sized = [a["option"] for a in data["assumed_settings"] if a["basis"] == "sized"]
    return data, values, sized


def _layout(values):
    return values.get("--gpus"), values.get("--strategy"), values.get("--checkpointing")


def test_a_small_model_gets_one_gpu_without_sharding_or_checkpointing(capsys):
    assert 16 * 124_439_808 < 80e9 / 10  # states under a tenth of one 80 GB GPU
    data, values, sized = _plan(capsys, "--hf-config", str(CONFIGS / "gpt2"), "--task",
                                "llm_finetune_full")
    assert _layout(values) == (1, "ddp", False)
    assert sized == SIZED
    assert data["sized_to_model"]["fields"] == ["gpus_per_node", "strategy",
                                                "gradient_checkpointing"]
    assert "H100" in data["sized_to_model"]["text"]["en"]
    # the planned workload is the sized one: unsharded AdamW states, 8 B/param (fp32 m and v)
    assert data["workload"]["gpus_per_node"] == 1 and data["workload"]["strategy"] == "ddp"
    assert data["vram_per_gpu"]["optimizer_states"] == 8 * 124_439_808


def test_a_model_too_big_for_one_gpu_keeps_the_task_defaults_and_says_why(capsys):
    assert 16 * 6_738_415_616 > 80 * 2**30
    data, values, sized = _plan(capsys, "--hf-config", str(CONFIGS / "llama-2-7b"), "--task",
                                "llm_finetune_full")
    assert _layout(values) == (8, "zero3", True)
    assert sized == SIZED
    assert "do not fit" in data["sized_to_model"]["text"]["en"]


def test_checkpointing_is_the_second_step_before_the_task_defaults(capsys):
    # Qwen2-0.5B on a 16 GiB card: without checkpointing its 151,936-wide logits and 24
    # layers of activations at 2,048 tokens overflow; with checkpointing one GPU holds it.
    _, values, _ = _plan(capsys, "--hf-config", str(CONFIGS / "qwen2-0.5b"), "--task",
                         "llm_finetune_full", "--gpu", "nvidia-rtx-4060-ti-16gb")
    assert _layout(values) == (1, "ddp", True)
    _, values, _ = _plan(capsys, "--hf-config", str(CONFIGS / "qwen2-0.5b"), "--task",
                         "llm_finetune_full", "--gpu", "nvidia-rtx-4090")
    assert _layout(values) == (1, "ddp", False)


def test_what_the_user_gave_is_kept_and_only_the_rest_is_sized(capsys):
    _, values, sized = _plan(capsys, "--hf-config", str(CONFIGS / "gpt2"), "--task",
                             "llm_finetune_full", "--gpus", "2")
    assert "--gpus" not in values
    assert sized == ["--strategy", "--checkpointing"]
    assert (values["--strategy"], values["--checkpointing"]) == ("ddp", False)
    data, values, sized = _plan(capsys, "--hf-config", str(CONFIGS / "gpt2"), "--task",
                                "llm_finetune_full", "--gpus", "8", "--strategy", "zero3",
                                "--checkpointing", "on")
    assert sized == [] and data["sized_to_model"] is None


def test_the_task_default_model_inference_and_files_are_not_sized(capsys, tmp_path):
    data, values, sized = _plan(capsys, "--task", "llm_finetune_full")
    assert sized == [] and _layout(values) == (8, "zero3", True)
    data, _, sized = _plan(capsys, "--hf-config", str(CONFIGS / "gpt2"))
    assert sized == [] and data["sized_to_model"] is None  # llm_inference trains nothing
    data, _, sized = _plan(capsys, "--workload",
                           str(Path(__file__).parents[2] / "workloads" / "llama2-7b-lora.json"))
    assert data["sized_to_model"] is None and data["assumed_settings"] == []


def test_the_text_names_the_rule_in_both_languages(capsys):
    assert main(["plan", "--hf-config", str(CONFIGS / "gpt2"), "--task",
                 "llm_finetune_full"]) == 0
    lines = capsys.readouterr().out.splitlines()
    sized = next(x for x in lines if "sized to the model" in x)
    assert sized.startswith("Assumed (not given)") and "1 GPU per node" in sized
    assert "124.4M parameters" in sized and "--gpus --strategy --checkpointing" in sized
    assert main(["plan", "--hf-config", str(CONFIGS / "gpt2"), "--task", "llm_finetune_full",
                 "--lang", "zh"]) == 0
    assert "按模型规模" in capsys.readouterr().out
