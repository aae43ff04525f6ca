"""The Wizard says what it assumed (issue 24, "no silent defaults"), driven through its
widgets, naming its own fields in both languages.

Hand figures (as in tests/planning/test_assume24_defaults.py): the LoRA task's defaults are
3 epochs of Alpaca's 52,002 examples; Llama-2-70B's 128.5 GiB of bf16 weights need two 80 GiB
GPUs with tensor parallelism to be served, and do not fit one GPU for LoRA (the task's one-GPU
default, kept).
"""

from __future__ import annotations

from pathlib import Path

from gui_gestures import button, choose, click, go_to, show_tab_of, type_text

CONFIGS = Path(__file__).resolve().parents[1] / "planning" / "hf_configs"


def _quoted(*labels: str) -> list[str]:
    """Field labels as the note quotes them: \u201clabel\u201d."""
    return [f"\u201c{label}\u201d" for label in labels]


def _task(qtbot, page, task: str) -> None:
    show_tab_of(qtbot, page.tabs, page.widgets["task"])
    choose(page.widgets["task"], task)
    qtbot.waitUntil(lambda: page.workload.task == task, timeout=10_000)


def _import(qtbot, page, answers, config: str) -> None:
    answers.append(str(CONFIGS / config / "config.json"))
    click(qtbot, page.import_button)
    qtbot.waitUntil(lambda: page.workload.model == "custom", timeout=10_000)


def test_the_run_length_and_the_data_are_named_with_the_wizards_fields(window, qtbot,
                                                                        file_dialogs):
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    _task(qtbot, page, "llm_finetune_lora")
    qtbot.waitUntil(lambda: "3 epochs" in page.assumed_label.text(), timeout=10_000)
    note = page.assumed_label.text()
    assert note.startswith("Assumed (the task's defaults, not given): model Llama 2 7B")
    assert "52,002 samples per epoch (Alpaca's instruction examples)" in note
    assert "1 micro-batch per optimizer step (gradient accumulation)" in note
    assert "\u201cEpochs\u201d" in note and "\u201cSamples per epoch\u201d" in note
    assert "--" not in note  # no command-line option in the window
    # A value the user types is theirs: it leaves the note.
    epochs = page.widgets["epochs"]
    show_tab_of(qtbot, page.tabs, epochs)
    type_text(qtbot, epochs, "1")
    qtbot.waitUntil(lambda: page.workload.epochs == 1.0, timeout=10_000)
    qtbot.waitUntil(lambda: "3 epochs" not in page.assumed_label.text()
                    and "\u201cEpochs\u201d" not in page.assumed_label.text(), timeout=10_000)
    assert "52,002 samples per epoch" in page.assumed_label.text()
    # Serving: the KV cache's type is the default that changes its figures.
    _task(qtbot, page, "llm_inference")
    qtbot.waitUntil(lambda: "KV cache in the model's activation type (2 B an element)"
                    in page.assumed_label.text(), timeout=10_000)
    assert "\u201cKV cache type (serving)\u201d" in page.assumed_label.text()
    assert "epoch" not in page.assumed_label.text()  # no dataset is served
    # A workload file is the user's choice of every setting: nothing is assumed.
    answers, _ = file_dialogs
    answers.append(str(Path(__file__).resolve().parents[2] / "workloads"
                       / "llama2-7b-lora.json"))
    click(qtbot, button(page, "open_workload"))
    qtbot.waitUntil(lambda: not page.assumed_label.isVisibleTo(page), timeout=10_000)


def test_an_imported_70b_model_is_served_on_two_gpus_and_its_lora_note_is_consistent(
        window, qtbot, file_dialogs):
    answers, _ = file_dialogs
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    _import(qtbot, page, answers, "llama-2-70b")
    assert page.workload.task == "llm_inference"
    assert page.widgets["gpus_per_node"].text() == "2"
    assert page.widgets["strategy"].currentData() == "tensor_parallel"
    assert page.widgets["tp_size"].text() == "2"
    qtbot.waitUntil(lambda: "sized to the model" in page.assumed_label.text(), timeout=10_000)
    note = page.assumed_label.text()
    assert "68.98B parameters need 2 x" in note and "with tensor parallelism" in note
    assert ", ".join(_quoted("GPUs per node", "Strategy", "Tensor-parallel size")) in note
    assert "model meta-llama" not in note  # the imported model is the user's
    assert "--" not in note
    _task(qtbot, page, "llm_finetune_lora")  # the import is kept; LoRA's default is 1 GPU
    assert page.widgets["gpus_per_node"].text() == "1"
    qtbot.waitUntil(lambda: "do not fit" in page.assumed_label.text(), timeout=10_000)
    note = page.assumed_label.text()
    assert "multi-GPU" not in note and "--gpus" not in note
    assert ("the task's defaults kept, though they do not fit either: 1 GPU per node, "
            "data parallel (DDP), gradient checkpointing on; change them in the fields "
            "\u201cGPUs per node\u201d, \u201cStrategy\u201d, \u201cGradient checkpointing\u201d"
            in note)


def test_the_chinese_wizard_names_its_own_fields(qtbot, zh, file_dialogs):
    from torchrig.gui.main_window import MainWindow

    answers, _ = file_dialogs
    window = MainWindow(lang="zh")
    qtbot.addWidget(window)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    _import(qtbot, page, answers, "llama-2-70b")
    qtbot.waitUntil(lambda: "按模型规模" in page.assumed_label.text(), timeout=10_000)
    note = page.assumed_label.text()
    fields = "、".join(_quoted("每节点 GPU 数", "并行策略", "张量并行规模"))
    assert f"可在字段{fields}中修改" in note
    assert "--" not in note
    _task(qtbot, page, "llm_finetune_lora")
    qtbot.waitUntil(lambda: "放不下" in page.assumed_label.text(), timeout=10_000)
    note = page.assumed_label.text()
    assert "保留任务默认值，但同样放不下：每节点 1 个 GPU" in note
    assert "多 GPU" not in note and "--gpus" not in note
    window.close()
