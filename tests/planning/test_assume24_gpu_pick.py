"""Issue 24, "recommendations a buyer can act on": a GPU picked without a price is not called
best value, in the text and the JSON (the Wizard: tests/gui/test_assume24_wizard_pick.py).

Hand figures: a 13B full fine-tune with ZeRO-3 on 2 GPUs fits only 141 GB+ GPUs; the SXM ones
come on 4- or 8-GPU baseboards, so the one a 2-GPU node can take is the H200 NVL PCIe card,
which the catalog neither prices nor gives a tensor peak for ("smallest"). A 7B one on 2 GPUs
within 10 hours: the H100 NVL (8.9 h) and H100 PCIe (9.4 h) fit and meet it, neither priced;
the priced RTX PRO 6000 takes 13 h ("fastest"). The LoRA task's Llama 2 7B on one GPU: priced
cards fit ("price").
"""

from __future__ import annotations

import pytest
from plan_cli import plan_json as _json
from plan_cli import plan_text as _text


@pytest.mark.parametrize(("argv", "gpu", "basis", "said"), [
    (["--model", "llama-2-13b", "--gpus", "2", "--strategy", "zero3"], "nvidia-h200-nvl",
     "smallest", "smallest that fits; no price or speed in the catalog"),
    (["--model", "llama-2-7b", "--gpus", "2", "--strategy", "zero3", "--time-target-hours",
      "10"], "nvidia-h100-nvl", "fastest", "fastest that fits; no price in the catalog"),
])
def test_an_unpriced_pick_says_what_it_is(capsys, argv, gpu, basis, said):
    data = _json(capsys, "--task", "llm_finetune_full", *argv, "--recommend")["recommendation"]
    assert (data["best_value_gpu"], data["best_value_basis"]) == (gpu, basis)
    assert data["best_value_text"]["en"] == said
    text = _text(capsys, "--task", "llm_finetune_full", *argv, "--recommend")
    line = next(x for x in text.splitlines() if x.startswith("  catalog GPU"))
    assert line.startswith(f"  catalog GPU ({said}): ")
    assert "best value" not in text.split("each GPU model")[0]


def test_a_priced_pick_is_still_best_value(capsys):
    data = _json(capsys, "--task", "llm_finetune_lora", "--recommend")["recommendation"]
    assert (data["best_value_gpu"], data["best_value_basis"]) == ("nvidia-rtx-5090", "price")
    text = _text(capsys, "--task", "llm_finetune_lora", "--recommend", "--lang", "zh")
    assert "目录 GPU（性价比最高：装得下且单位工作量价格最低）：GeForce RTX 5090" in text
