"""The Wizard's recommendation says what its GPU pick is (issue 24, "recommendations a buyer
can act on"): "best value" only when the pick was priced. Driven through its widgets.

Hand figures (as in tests/planning/test_assume24_gpu_pick.py): the LoRA task's Llama 2 7B on
one GPU fits priced cards; a 13B full fine-tune with ZeRO-3 on 2 GPUs fits only the H200 NVL
among the cards a 2-GPU node can take, and the catalog has no price for it.
"""

from __future__ import annotations

from gui_gestures import choose, go_to, show_tab_of, type_text


def _settled(qtbot, page, ready) -> None:
    qtbot.waitUntil(lambda: not page.planning and page.analysis is not None and ready(),
                    timeout=30_000)


def _task(qtbot, page, task: str) -> None:
    show_tab_of(qtbot, page.tabs, page.widgets["task"])
    choose(page.widgets["task"], task)
    qtbot.waitUntil(lambda: page.workload.task == task, timeout=10_000)


def test_an_unpriced_pick_is_not_called_best_value(window, qtbot):
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    _task(qtbot, page, "llm_finetune_lora")  # Llama 2 7B on one GPU: priced cards fit
    _settled(qtbot, page, lambda: page.analysis.requirements.workload.task == "llm_finetune_lora")
    qtbot.waitUntil(lambda: "Recommended:" in page.recommendation.text(), timeout=30_000)
    assert ("catalog GPU (best value: lowest price per unit of work that fits): GeForce RTX "
            "5090" in page.recommendation.text())
    _task(qtbot, page, "llm_finetune_full")
    choose(page.widgets["model"], "llama-2-13b")
    gpus = page.widgets["gpus_per_node"]
    show_tab_of(qtbot, page.tabs, gpus)
    type_text(qtbot, gpus, "2")
    qtbot.waitUntil(lambda: page.workload.gpus_per_node == 2
                    and page.workload.model == "llama-2-13b", timeout=10_000)
    assert page.workload.strategy == "zero3"
    _settled(qtbot, page, lambda: page.analysis.requirements.workload.gpus_per_node == 2)
    qtbot.waitUntil(lambda: "H200 NVL" in page.recommendation.text(), timeout=30_000)
    text = page.recommendation.text()
    assert ("catalog GPU (smallest that fits; no price or speed in the catalog): H200 NVL "
            "141GB (PCIe)") in text
    assert "best value" not in text
