"""The plan's fit line when a VRAM item is unknown (issue 24): a model given by its parameter
count has no activation figure, so the sum leaves it out and the line must not read as a plain
"fits". Hand check: the plan's per-GPU total and the card's 16 GiB (GeForce RTX 4080 16GB),
16 - total = the room left for the unknown activations."""

from __future__ import annotations

import re

from plan_cli import plan_json, plan_text

ARGS = ("--task", "llm_finetune_full", "--model", "custom", "--params", "2850000000",
        "--strategy", "zero2", "--gpus", "8", "--gpu", "nvidia-rtx-4080")


def test_unknown_activations_are_named_in_the_fit_line(capsys):
    doc = plan_json(capsys, *ARGS)
    assert "vram_per_gpu.activations" in doc["incomplete"]
    items = {k: v for k, v in doc["vram_per_gpu"].items() if k not in ("total", "notes")}
    assert items["activations"] is None
    known = sum(v for v in items.values() if v is not None)  # the items the sum can count
    assert known == doc["vram_per_gpu"]["total"]
    left = 16.0 - known / 2**30  # the card's 16 GiB less the known items
    assert 0 < left < 16
    text = plan_text(capsys, *ARGS)
    line = next(ln for ln in text.splitlines() if ln.startswith("  fits in"))
    assert line == (f"  fits in 16.0 GiB without the activations, which are unknown: "
                    f"{left:.1f} GiB left for them")
    zh = plan_text(capsys, *ARGS, "--lang", "zh")
    assert f"不计未知的激活可装入 16.0 GiB：为其剩余 {left:.1f} GiB" in zh


def test_a_complete_plan_keeps_the_plain_fit_line(capsys):
    text = plan_text(capsys, "--task", "llm_finetune_lora", "--model", "llama-2-7b", "--gpus",
                     "1", "--gpu", "nvidia-h100-sxm")
    assert re.search(r"^  fits in 80\.0 GiB \([\d.]+ GiB spare\)$", text, re.M)
    assert "which are unknown" not in text
