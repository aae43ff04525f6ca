"""The Wizard offers fp8 and fp4 (issue 24) through the shared PRECISIONS, with labels in both
languages; picking fp8 re-plans LLM serving, and on a GPU without fp8 tensor cores the plan
says so (a Blocker) instead of computing at the 16-bit peak."""

from __future__ import annotations

from gui_gestures import choose, go_to, show_tab_of

from torchrig.findings import Severity
from torchrig.planning.workload import PRECISIONS


def _wizard(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    choose(page.widgets["task"], "llm_inference")  # Llama 3 8B in bf16, one GPU
    qtbot.waitUntil(lambda: page.workload.task == "llm_inference", timeout=10_000)
    qtbot.waitUntil(lambda: not page.planning and page.analysis is not None, timeout=20_000)
    return page


def _subject(qtbot, page, data):
    box = page.subject_box
    choose(box, data)
    qtbot.waitUntil(lambda: not page.planning and page.analysis is not None
                    and page.analysis.subject.gpu_part is not None, timeout=20_000)


def test_picking_fp8_in_the_wizard_replans_serving_on_an_ada_card(window, qtbot):
    page = _wizard(window, qtbot)
    combo = page.widgets["precision"]
    codes = [combo.itemData(i) for i in range(combo.count())]
    assert codes == list(PRECISIONS) and "fp8" in codes and "fp4" in codes
    assert combo.itemText(combo.findData("fp8")).startswith("FP8 (LLM inference; "
                                                             "transformer training")
    _subject(qtbot, page, "tier:professional")  # the RTX 4090: Ada, 330.3 TFLOP/s fp8
    assert page.analysis.subject.gpu_part.id == "nvidia-rtx-4090"
    before = page.analysis.requirements
    show_tab_of(qtbot, page.tabs, combo)
    choose(combo, "fp8")
    qtbot.waitUntil(lambda: page.workload.precision == "fp8", timeout=10_000)
    qtbot.waitUntil(lambda: not page.planning
                    and page.analysis.requirements.workload.precision == "fp8", timeout=20_000)
    after = page.analysis.requirements
    # Llama 3 8B: 6,979,321,856 linear-layer weights go from 2 B to 1 B; the other
    # 1,050,939,392 parameters (embeddings, LM head, norms) stay 2 B.
    weights = after.vram_per_gpu["weights"].value
    assert weights == 6_979_321_856 * 1 + 1_050_939_392 * 2
    assert before.vram_per_gpu["weights"].value == 8_030_261_248 * 2
    # Prefill computes at the fp8 peak, twice the bf16 one: the first token comes sooner.
    assert (after.throughput["time_to_first_token_s"].value
            < before.throughput["time_to_first_token_s"].value)
    assert not [f for f in page.analysis.findings if f.code == "analysis.tensor_format"]


def test_fp8_on_the_a100_tier_is_a_blocker_not_a_16_bit_peak(window, qtbot):
    page = _wizard(window, qtbot)
    _subject(qtbot, page, "tier:enterprise")  # the A100 80GB SXM4: Ampere
    combo = page.widgets["precision"]
    show_tab_of(qtbot, page.tabs, combo)
    choose(combo, "fp8")
    qtbot.waitUntil(lambda: not page.planning and page.analysis is not None
                    and page.analysis.requirements.workload.precision == "fp8", timeout=20_000)
    found = {f.code: f for f in page.analysis.findings}
    blocker = found["analysis.tensor_format"]
    assert blocker.severity is Severity.BLOCKER
    assert "has no fp8 tensor cores" in blocker.detail.en
    assert page.analysis.requirements.throughput["time_to_first_token_s"].value is None


def test_the_chinese_wizard_names_fp8_and_fp4(qtbot, zh):
    from torchrig.gui.main_window import MainWindow

    window = MainWindow(lang="zh")
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    combo = window.wizard_page.widgets["precision"]
    assert combo.itemText(combo.findData("fp8")).startswith(
        "FP8（大模型推理；用 Transformer Engine 训练")
    assert combo.itemText(combo.findData("fp4")).startswith("FP4（NVFP4）权重与激活")
    window.close()


def test_the_kv_cache_type_and_the_output_length_are_wizard_fields(window, qtbot):
    from gui_gestures import type_text

    page = _wizard(window, qtbot)  # Llama 3 8B, one request of 4,096 tokens, 16-bit cache
    kv = page.widgets["kv_cache_dtype"]
    assert [kv.itemData(i) for i in range(kv.count())] == ["auto", "fp16", "bf16", "fp8"]
    assert kv.itemText(kv.findData("fp8")) == "FP8 (half the bytes)"
    cache = page.analysis.requirements.vram_per_gpu["kv_cache"].value
    assert cache == 2 * 32 * 8 * 128 * 2 * 4096  # 131,072 B per token (vLLM paper sec. 3)
    show_tab_of(qtbot, page.tabs, kv)
    choose(kv, "fp8")
    qtbot.waitUntil(lambda: page.workload.kv_cache_dtype == "fp8", timeout=10_000)
    qtbot.waitUntil(lambda: not page.planning and page.analysis.requirements.workload
                    .kv_cache_dtype == "fp8", timeout=20_000)
    assert page.analysis.requirements.vram_per_gpu["kv_cache"].value == cache / 2
    out = page.widgets["output_tokens"]
    show_tab_of(qtbot, page.tabs, out)
    type_text(qtbot, out, "1024")
    qtbot.waitUntil(lambda: page.workload.output_tokens == 1024, timeout=10_000)
    qtbot.waitUntil(lambda: not page.planning and page.analysis.requirements.workload
                    .output_tokens == 1024, timeout=20_000)
    # the cache now holds 4,096 prompt + 1,024 generated tokens at 1 B an element
    assert page.analysis.requirements.vram_per_gpu["kv_cache"].value == (
        2 * 32 * 8 * 128 * 1 * 5120)


def test_the_precision_list_greys_out_what_the_planner_refuses(window, qtbot):
    # The workload's rules (docs/estimation.md): fp4 only serves; fp8 trains transformers but
    # not a CNN; int8 / int4 weights are for inference (or a LoRA base).
    page = _wizard(window, qtbot)
    combo = page.widgets["precision"]

    def offered() -> set[str]:
        items = combo.model()
        return {combo.itemData(i) for i in range(combo.count()) if items.item(i).isEnabled()}
    assert {"fp8", "fp4", "int8", "int4", "bf16"} <= offered()
    show_tab_of(qtbot, page.tabs, page.widgets["task"])
    choose(page.widgets["task"], "image_classification")
    qtbot.waitUntil(lambda: page.workload.task == "image_classification", timeout=10_000)
    qtbot.waitUntil(lambda: "fp8" not in offered(), timeout=10_000)
    assert "fp4" not in offered() and "int4" not in offered()
    assert {"fp32", "amp_bf16"} <= offered()
    choose(page.widgets["task"], "llm_finetune_full")
    qtbot.waitUntil(lambda: page.workload.task == "llm_finetune_full", timeout=10_000)
    qtbot.waitUntil(lambda: "fp8" in offered(), timeout=10_000)
    assert "fp4" not in offered()
