"""The Wizard's virtual-pipeline field (Scale step, issue 24): typed by the user, it gives each
pipeline GPU v model chunks (Megatron's interleaved 1F1B, docs/estimation.md sec. 6), so a
stage of a 2-stage pipeline over m = 2 micro-batches is busy 2 / (2 + (2 - 1) / v): 2/3 with
v = 1, 2 / 2.5 = 80 % with v = 2."""

from __future__ import annotations

from gui_gestures import button, choose, click, go_to

from torchrig.planning.workload import save_workload, workload_from_options


def test_typing_virtual_stages_replans_the_smaller_bubble(window, qtbot, file_dialogs,
                                                          tmp_path):
    page = window.wizard_page
    go_to(qtbot, window, "wizard")
    path = tmp_path / "pipeline.json"
    save_workload(workload_from_options(task="llm_finetune_full", model="llama-2-7b",
                                        precision="amp_bf16", batch=1, gpus=2,
                                        strategy="pipeline_parallel", pp_size=2,
                                        grad_accumulation=2), path)
    file_dialogs[0].append(str(path))
    click(qtbot, button(page, "open_workload"))
    choose(page.subject_box, "tier:enterprise")  # a tier with GPUs: the speed is planned

    def busy_note() -> str:
        a = page.analysis
        item = a.requirements.throughput.get("samples_per_s_per_gpu") if a else None
        return item.note.en if item is not None else ""

    # 1F1B: 2 / (2 + 2 - 1) = 67 %
    qtbot.waitUntil(lambda: "x 2 / (2 + 2 - 1) = 67% busy" in busy_note(), timeout=20_000)
    field = page.widgets["vp_size"]
    page.tabs.setCurrentIndex(next(i for i in range(page.tabs.count())
                                   if page.tabs.widget(i).isAncestorOf(field)))
    assert field.text() == "1"
    field.selectAll()
    qtbot.keyClicks(field, "2")
    qtbot.waitUntil(lambda: page.workload.vp_size == 2
                    and "x 2 / (2 + (2 - 1) / 2) = 80% busy" in busy_note(), timeout=20_000)
    # 3 chunks per GPU of Llama-2-7B's 32 layers over 2 stages (6 chunks) is refused, said
    # with the numbers, and the last good plan stays
    field.selectAll()
    qtbot.keyClicks(field, "3")
    qtbot.waitUntil(lambda: page.stale, timeout=5_000)
    assert page.errors["vp_size"].text() == (
        "field 'vp_size' is 3: the 32 layers do not split into 2 pipeline stages x 3 chunks = "
        "6 equal chunks (32 is not a multiple of 6)")
    assert page.workload.vp_size == 2
    assert "80% busy" in busy_note()
