"""The Wizard says what it chose that the user did not (issue 24, "no silent defaults"): an
imported GPT-2 moved to full fine-tuning is laid out for its 124M parameters - one GPU, DDP,
no checkpointing, not the task's 8 GPUs with ZeRO-3 for a 7B model - and the page says so
until the user changes one of those fields."""

from __future__ import annotations

from pathlib import Path

from gui_gestures import choose, click, type_text

GPT2 = Path(__file__).resolve().parents[1] / "planning" / "hf_configs" / "gpt2" / "config.json"


def test_an_imported_small_model_is_sized_and_the_wizard_says_so(window, qtbot, file_dialogs):
    answers, _ = file_dialogs
    page = window.wizard_page
    answers.append(str(GPT2))
    click(qtbot, page.import_button)
    assert page.workload.task == "llm_inference"
    # Inference: GPT-2 fits the task's one GPU, so nothing is sized; the task's defaults are
    # still said.
    assert page.assumed_label.text().startswith("Assumed (the task's defaults, not given)")
    choose(page.widgets["task"], "llm_finetune_full")
    qtbot.waitUntil(lambda: page.workload.task == "llm_finetune_full", timeout=5_000)
    w = page.workload
    assert (w.model, w.layers, w.hidden) == ("custom", 12, 768)  # the import is kept
    assert (w.gpus_per_node, w.strategy, w.gradient_checkpointing) == (1, "ddp", False)
    assert page.widgets["gpus_per_node"].text() == "1"
    assert page.widgets["strategy"].currentData() == "ddp"
    assert not page.widgets["gradient_checkpointing"].isChecked()
    qtbot.waitUntil(lambda: page.assumed_label.isVisibleTo(page), timeout=5_000)
    note = page.assumed_label.text()
    assert note.startswith("Assumed (not given) - sized to the model")
    assert "1 GPU per node" in note and "124.4M parameters" in note
    assert "\u201cGPUs per node\u201d" in note and "--gpus" not in note  # the Wizard's fields
    # The user's own choice replaces the assumption: the sized line goes.
    type_text(qtbot, page.widgets["gpus_per_node"], "2")
    qtbot.waitUntil(lambda: page.workload.gpus_per_node == 2, timeout=5_000)
    qtbot.waitUntil(lambda: "sized to the model" not in page.assumed_label.text(),
                    timeout=5_000)
    assert "GPUs per node" not in page.assumed_label.text()
