"""Targets, Build and Wizard pages driven as a user would (offscreen)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from gui_gestures import (
    add_part,
    button,
    choose,
    click,
    click_cell,
    detect,
    go_to,
    menu_action,
    open_build,
    type_into_cell,
    type_text,
)

from torchrig.builds.build import load_build
from torchrig.gui.qt import QLabel, QMessageBox, Qt
from torchrig.planning.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def dialogs(monkeypatch):
    """Record message boxes instead of blocking on them."""
    shown: list[tuple[str, str]] = []

    def record(kind, answer=None):
        def show(parent, title, text, *args, **kwargs):
            shown.append((kind, text))
            return answer
        return show

    monkeypatch.setattr(QMessageBox, "warning", record("warning"))
    monkeypatch.setattr(QMessageBox, "information", record("information"))
    monkeypatch.setattr(QMessageBox, "question",
                        record("question", QMessageBox.StandardButton.Cancel))
    return shown


def test_targets_compare_this_machine_with_each_tier(window, qtbot):
    page = window.targets_page
    detect(qtbot, window)  # This machine's Refresh button, real detection
    assert page.table.rowCount() == 7
    assert page.table.horizontalHeaderItem(2).text() == "This machine"
    cores = page.table.item(0, 2).text()
    assert "cores" in cores and cores.split(" · ")[0] in {"short", "meets", "exceeds"}
    for index in range(page.tier_box.count()):
        page.tier_box.setCurrentIndex(index)
        assert page.table.rowCount() == 7
    page.tier_box.setCurrentIndex(page.tier_box.findData("entry"))
    # The seed's entry tier breaks its own rules: the contradictions are shown.
    assert "seed 1.1" in page.contradictions.toPlainText()


def test_a_long_build_name_in_the_targets_header_is_elided_with_the_whole_name_on_hover(
        window, qtbot, dialogs, file_dialogs):
    """At 1280x720 the build's column header showed "fessional: dual RTX 4090 / 专业级：双 RTX 4(",
    clipped on both sides."""
    answers, _ = file_dialogs
    window.resize(1280, 720)
    answers.append(str(ROOT / "builds" / "pro-dual-4090.json"))
    menu_action(window, "File", "Open…").trigger()
    assert window.current_page() == "build"
    page = window.targets_page
    detect(qtbot, window)
    head = page.table.horizontalHeaderItem(page.table.columnCount() - 1)
    assert head.toolTip() == head.text() and "dual RTX 4090" in head.text()
    assert page.table.horizontalHeader().textElideMode() == Qt.TextElideMode.ElideRight


def test_start_a_build_from_a_tier(window, qtbot, dialogs):
    choose(window.targets_page.tier_box, "professional")
    click(qtbot, window.targets_page.start_button)
    page = window.build_page
    assert window.current_page() == "build"
    assert page.build.tier == "professional"
    assert page.lines.rowCount() == len(page.build.line_items) > 3
    assert page.dirty


def test_build_page_prices_edits_and_checks_live(shown_window, dialogs, file_dialogs, tmp_path,
                                                qtbot):
    window, (answers, _) = shown_window, file_dialogs
    go_to(qtbot, window, "build")
    page = window.build_page
    picker = page.picker
    choose(picker.category_box, "gpu")
    qtbot.keyClicks(picker.search_edit, "4090")
    # The RTX 4090 and the China-market RTX 4090 D; the first row is the RTX 4090.
    assert [p.id for p in picker.visible_parts()] == ["nvidia-rtx-4090", "nvidia-rtx-4090d"]
    click_cell(qtbot, picker.parts_table, 0, 0)
    click(qtbot, picker.add_button)
    assert page.build.line_items[0].part_id == "nvidia-rtx-4090"
    assert page.priced.total > 0  # the catalog has a sourced CNY launch price for it
    # Edit the quantity and the unit price in the table, as a user would.
    type_into_cell(qtbot, page.lines, 0, 3, "2")
    type_into_cell(qtbot, page.lines, 0, 4, "13,500")
    assert page.build.line_items[0].quantity == 2
    assert str(page.priced.total) == "27000.00"  # 2 x 13,500
    # Nonsense input is refused with a message and changes nothing.
    type_into_cell(qtbot, page.lines, 0, 3, "-1")
    assert dialogs[-1][0] == "warning" and "Quantity" in dialogs[-1][1]
    assert page.build.line_items[0].quantity == 2
    type_into_cell(qtbot, page.lines, 0, 4, "abc")
    assert "must be an amount" in dialogs[-1][1]
    assert str(page.build.line_items[0].unit_price) == "13500"
    # A build without CPU, board or PSU says so.
    codes = {f.code for f in page.findings}
    assert any("cpu" in c for c in codes)
    # Save as, reopen, identical.
    target = tmp_path / "quote.json"
    answers.append(str(target))
    click(qtbot, page.buttons["save_as"])
    assert not page.dirty and page.path == target
    assert load_build(target).to_dict() == page.build.to_dict()


def test_opening_a_corrupt_build_warns_and_leaves_the_file_alone(window, qtbot, dialogs,
                                                                  file_dialogs, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "torchrig.build", "version": 1, "name": "x", '
                   '"line_items": [{"part_id": "nvidia-rtx-4090", "quantity": -3}]}',
                   encoding="utf-8")
    before = hashlib.sha256(bad.read_bytes()).hexdigest()
    before_build = window.build_page.build
    open_build(qtbot, window, file_dialogs[0], bad)
    assert dialogs and dialogs[-1][0] == "warning" and "quantity" in dialogs[-1][1]
    assert window.build_page.build == before_build and window.build_page.path is None
    assert hashlib.sha256(bad.read_bytes()).hexdigest() == before


def test_sample_builds_open_and_price(window, qtbot, dialogs, file_dialogs):
    paths = sorted((ROOT / "builds").glob("*.json"))
    assert len(paths) >= 2
    for path in paths:
        open_build(qtbot, window, file_dialogs[0], path)
        page = window.build_page
        assert page.path == path and page.build == load_build(path, window.catalog), path
        assert page.priced is not None and len(page.priced.lines) == len(page.build.line_items)
    assert not [d for d in dialogs if d[0] == "warning"]


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_the_window(window, dialogs, qtbot):
    window.show()
    add_part(qtbot, window.build_page, "nvidia-rtx-3060-12gb", "gpu")
    menu_action(window, "File", "Quit").trigger()
    assert dialogs[-1][0] == "question" and "unsaved changes" in dialogs[-1][1]
    assert window.isVisible() and window.build_page.dirty
    # (the fixture closes it answering Discard)


def test_wizard_plans_live_and_flags_bad_input_next_to_the_field(window, qtbot):
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=5_000)  # planned after paint
    batch = page.widgets["batch_size"]
    error = page.errors["batch_size"]
    type_text(qtbot, batch, "-5")
    qtbot.waitUntil(lambda: not error.isHidden(), timeout=5_000)
    assert "batch_size" in error.text()
    type_text(qtbot, batch, "abc")
    qtbot.waitUntil(lambda: "'abc' is not a number" in error.text(), timeout=5_000)
    type_text(qtbot, batch, "64")
    qtbot.waitUntil(lambda: error.isHidden(), timeout=5_000)
    assert page.workload.batch_size == 64
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.workload.batch_size == 64
    assert page.chart.bars and page.chart.bars[0].group == "vram"


def test_wizard_task_change_loads_that_tasks_defaults(window, qtbot):
    page = window.wizard_page
    combo = page.widgets["task"]
    combo.setCurrentIndex(combo.findData("llm_finetune_lora"))
    assert page.workload.task == "llm_finetune_lora"
    assert page.widgets["model"].currentData() == page.workload.model
    page.subject_box.setCurrentIndex(page.subject_box.findData("tier:enterprise"))
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.subject.kind == "tier"


def test_wizard_saves_and_opens_workloads(window, qtbot, tmp_path, dialogs, file_dialogs):
    answers, _ = file_dialogs
    page = window.wizard_page
    sample = ROOT / "workloads" / "cifar10-resnet18.json"
    answers.append(str(sample))
    click(qtbot, button(page, "open_workload"))
    assert page.workload == load_workload(sample) and page.workload.model == "resnet18"
    target = tmp_path / "w.json"
    answers.append(str(target))
    click(qtbot, button(page, "save_workload"))
    assert load_workload(target) == load_workload(sample)
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    answers.append(str(bad))
    click(qtbot, button(page, "open_workload"))
    assert dialogs[-1][0] == "warning" and "bad.json" in dialogs[-1][1]
    assert page.workload == load_workload(sample)  # the open workload is kept


# --- internals: the findings view's rendering, which no user input reaches with markup ------


def test_internals_findings_view_escapes_text(window):
    # A finding's text comes from the core's checks, never typed: set one with markup directly.
    from torchrig.findings import Finding, Severity
    from torchrig.i18n import Msg

    evil = Finding("x", Severity.ADVICE, Msg("<b>bold</b> & co", "<b>粗</b>"), Msg("d", "d"),
                   Msg("f", "f"), "src")
    window.build_page.findings_view.set_findings([evil])
    assert "<b>bold</b> & co" in window.build_page.findings_view.toPlainText()


def test_wizard_shows_the_solvers_changes_and_apply_updates_the_workload(window, qtbot,
                                                                         file_dialogs):
    """Llama-2-7B LoRA batch 4 on the professional tier's RTX 4090: tight, and the solver's
    first change (micro-batch 3 with accumulation) applied by its button makes it fit."""
    page = window.wizard_page
    choose(page.subject_box, "tier:professional")
    file_dialogs[0].append(str(ROOT / "workloads" / "llama2-7b-lora.json"))
    click(qtbot, button(page, "open_workload"))
    assert page.workload == load_workload(ROOT / "workloads" / "llama2-7b-lora.json")
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.vram_verdict == "tight"
    assert "tight" in page.headline.text()
    assert page.solver_box.isVisibleTo(page) and page.apply_buttons
    rows = [label.text() for label in page.solver_box.findChildren(QLabel)]
    assert any("micro-batch 3" in text for text in rows)
    click(qtbot, page.apply_buttons[0])
    assert (page.workload.batch_size, page.workload.grad_accumulation) == (3, 2)
    assert page.widgets["batch_size"].text() == "3"
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.vram_verdict == "fits"
    assert not page.solver_box.isVisibleTo(page)


def test_wizard_imports_a_hugging_face_config(window, qtbot, dialogs, file_dialogs, tmp_path):
    answers, _ = file_dialogs
    page = window.wizard_page
    config = ROOT / "tests" / "planning" / "hf_configs" / "qwen2-0.5b" / "config.json"
    answers.append(str(config))
    click(qtbot, page.import_button)
    w = page.workload
    assert (w.model, w.task, w.layers, w.hidden, w.kv_heads, w.tied_embeddings) == (
        "custom", "llm_inference", 24, 896, 2, True)
    assert page.widgets["model"].currentData() == "custom"
    assert page.widgets["layers"].text() == "24"
    # Back to a preset: the imported shape is dropped, not refused.
    choose(page.widgets["model"], "llama-3-8b")
    qtbot.waitUntil(lambda: page.workload.model == "llama-3-8b", timeout=5_000)
    assert page.workload.experts is None and page.workload.layers != 24
    bad = config.parent.parent / "missing.json"
    answers.append(str(bad))
    click(qtbot, page.import_button)
    assert dialogs[-1][0] == "warning" and "cannot read" in dialogs[-1][1]
    assert page.workload.model == "llama-3-8b"  # a failed import changes nothing
    # A diffusers U-Net config: said what it is and what to do, not "model_type is missing".
    unet = tmp_path / "config.json"
    unet.write_text('{"_class_name": "UNet2DConditionModel", "cross_attention_dim": 768}')
    answers.append(str(unet))
    click(qtbot, page.import_button)
    assert dialogs[-1][0] == "warning"
    assert "a diffusers model config (UNet2DConditionModel)" in dialogs[-1][1]
    assert "sd-1.5" in dialogs[-1][1] and "image_generation" in dialogs[-1][1]
    assert page.workload.model == "llama-3-8b"


def test_a_task_change_keeps_an_imported_model(window, qtbot, file_dialogs):
    # Issue 24: Qwen2 imported for inference silently became a llama-3-8b preset when the
    # task changed. The shape expected is the config file's own, read here.
    import json

    answers, _ = file_dialogs
    page = window.wizard_page
    config = ROOT / "tests" / "planning" / "hf_configs" / "qwen2-0.5b" / "config.json"
    raw = json.loads(config.read_text(encoding="utf-8"))
    answers.append(str(config))
    click(qtbot, page.import_button)
    assert page.workload.task == "llm_inference"
    choose(page.widgets["task"], "llm_finetune_lora")
    qtbot.waitUntil(lambda: page.workload.task == "llm_finetune_lora", timeout=5_000)
    w = page.workload
    assert (w.model, w.layers, w.hidden, w.heads, w.kv_heads, w.vocab) == (
        "custom", raw["num_hidden_layers"], raw["hidden_size"], raw["num_attention_heads"],
        raw["num_key_value_heads"], raw["vocab_size"])
    assert page.widgets["model"].currentData() == "custom"
    assert page.widgets["hidden"].text() == str(raw["hidden_size"])
    # A vision task cannot take a transformer config: it starts from its own defaults.
    choose(page.widgets["task"], "image_classification")
    qtbot.waitUntil(lambda: page.workload.task == "image_classification", timeout=5_000)
    assert page.workload.model != "custom"
