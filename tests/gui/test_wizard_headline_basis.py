"""The Wizard's throughput headline names what set the rate (issue 24 review): ResNet-50 AMP on
the Enterprise tier's A100 80GB SXM4 is timed by its memory traffic (2,039 GB/s; NVIDIA's 2,470
img/s per GPU), so the headline must not read "assumes 40% of 312.0 TFLOP/s" (the share of the
peak a transformer is timed at); a transformer keeps that wording. Driven through the
widgets, en and zh."""

from __future__ import annotations

import html
import re

from gui_gestures import go_to, pick_with_keys, window_at


def _headline(qtbot, page) -> str:
    qtbot.waitUntil(lambda: not page.planning and page.model.analysis is not None
                    and page.model.analysis.requirements.workload == page.workload,
                    timeout=60_000)
    return html.unescape(re.sub(r"<[^>]+>", " ", page.headline.text()))


def test_a_memory_bound_cnn_says_so_and_a_transformer_keeps_the_peak_share(qtbot, request):
    window = window_at(qtbot, request, "en")
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    pick_with_keys(qtbot, page.subject_box, "tier:enterprise")
    assert page.workload.task == "image_classification"  # the Wizard's default: ResNet-50
    text = _headline(qtbot, page)
    assert "memory-bound: bandwidth / traffic per image" in text
    assert "assumes 40%" not in text
    pick_with_keys(qtbot, page.widgets["task"], "llm_finetune_lora")
    text = _headline(qtbot, page)
    assert "(assumes 40% of 312.0 TFLOP/s)" in text  # the A100's dense 16-bit peak
    window.close()


def test_the_chinese_headline_names_the_memory_bound(qtbot, request):
    window = window_at(qtbot, request, "zh")
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    pick_with_keys(qtbot, page.subject_box, "tier:enterprise")
    text = _headline(qtbot, page)
    assert "内存带宽受限" in text and "假设达到" not in text
    window.close()
