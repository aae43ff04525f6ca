"""The Wizard's gradient-accumulation field (Training step): typed by the user, it sets the
micro-batches of each optimizer step, so a pipeline's stages idle less (1F1B,
docs/estimation.md sec. 6): a stage of a 2-stage pipeline is busy m / (m + 1)."""

from __future__ import annotations

from wizard_pipeline import open_pipeline, show_field


def test_typing_the_accumulation_replans_the_pipeline_bubble(window, qtbot, file_dialogs,
                                                            tmp_path):
    page = window.wizard_page
    busy_note = open_pipeline(window, qtbot, file_dialogs, tmp_path)

    qtbot.waitUntil(lambda: "x 1 / (1 + 2 - 1) = 50% busy" in busy_note(), timeout=20_000)
    field = show_field(page, "grad_accumulation")
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
