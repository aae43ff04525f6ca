"""The Wizard's virtual-pipeline field (Scale step, issue 24): typed by the user, it gives each
pipeline GPU v model chunks (Megatron's interleaved 1F1B, docs/estimation.md sec. 6), so a
stage of a 2-stage pipeline over m = 2 micro-batches is busy 2 / (2 + (2 - 1) / v): 2/3 with
v = 1, 2 / 2.5 = 80 % with v = 2."""

from __future__ import annotations

from wizard_pipeline import open_pipeline, show_field


def test_typing_virtual_stages_replans_the_smaller_bubble(window, qtbot, file_dialogs,
                                                          tmp_path):
    page = window.wizard_page
    busy_note = open_pipeline(window, qtbot, file_dialogs, tmp_path, grad_accumulation=2)

    # 1F1B: 2 / (2 + 2 - 1) = 67 %
    qtbot.waitUntil(lambda: "x 2 / (2 + 2 - 1) = 67% busy" in busy_note(), timeout=20_000)
    field = show_field(page, "vp_size")
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
