"""The Wizard's gradient-accumulation field (Training step): typed by the user, it sets the
micro-batches of each optimizer step, so a pipeline's stages idle less (1F1B,
docs/estimation.md sec. 6): a stage of a 2-stage pipeline is busy m / (m + 1)."""

from __future__ import annotations

from gui_gestures import button, choose, click, go_to

from torchrig.planning.workload import save_workload, workload_from_options


def test_typing_the_accumulation_replans_the_pipeline_bubble(window, qtbot, file_dialogs,
                                                            tmp_path):
    page = window.wizard_page
    go_to(qtbot, window, "wizard")
    path = tmp_path / "pipeline.json"
    save_workload(workload_from_options(task="llm_finetune_full", model="llama-2-7b",
                                        precision="amp_bf16", batch=1, gpus=2,
                                        strategy="pipeline_parallel", pp_size=2), path)
    file_dialogs[0].append(str(path))
    click(qtbot, button(page, "open_workload"))
    choose(page.subject_box, "tier:enterprise")  # a tier with GPUs: the speed is planned

    def busy_note() -> str:
        a = page.analysis
        item = a.requirements.throughput.get("samples_per_s_per_gpu") if a else None
        return item.note.en if item is not None else ""

    qtbot.waitUntil(lambda: "x 1 / (1 + 2 - 1) = 50% busy" in busy_note(), timeout=20_000)
    field = page.widgets["grad_accumulation"]
    page.tabs.setCurrentIndex(next(i for i in range(page.tabs.count())
                                   if page.tabs.widget(i).isAncestorOf(field)))
    assert field.text() == "1"
    field.selectAll()
    qtbot.keyClicks(field, "8")
    qtbot.waitUntil(lambda: page.workload.grad_accumulation == 8
                    and "x 8 / (8 + 2 - 1) = 89% busy" in busy_note(), timeout=20_000)
    # nonsense (no micro-batches): the field says why and the last good plan stays
    field.selectAll()
    qtbot.keyClicks(field, "0")
    qtbot.waitUntil(lambda: page.stale, timeout=5_000)
    assert page.workload.grad_accumulation == 8
