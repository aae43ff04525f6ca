"""Targets, Build and Wizard pages driven as a user would (offscreen)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from torchrig.builds.build import load_build
from torchrig.gui.qt import QMessageBox, Qt
from torchrig.hardware import detect

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


def test_targets_compare_this_machine_with_each_tier(window):
    page = window.targets_page
    page.set_profile(detect())
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
        window, dialogs):
    """At 1280x720 the build's column header showed "fessional: dual RTX 4090 / 专业级：双 RTX 4(",
    clipped on both sides."""
    window.resize(1280, 720)
    assert window.open_file(ROOT / "builds" / "pro-dual-4090.json")
    page = window.targets_page
    page.set_profile(detect())
    head = page.table.horizontalHeaderItem(page.table.columnCount() - 1)
    assert head.toolTip() == head.text() and "dual RTX 4090" in head.text()
    assert page.table.horizontalHeader().textElideMode() == Qt.TextElideMode.ElideRight


def test_start_a_build_from_a_tier(window, dialogs):
    window.targets_page.tier_box.setCurrentIndex(
        window.targets_page.tier_box.findData("professional"))
    window.targets_page.start_button.click()
    page = window.build_page
    assert window.current_page() == "build"
    assert page.build.tier == "professional"
    assert page.lines.rowCount() == len(page.build.line_items) > 3
    assert page.dirty


def test_build_page_prices_edits_and_checks_live(window, dialogs, tmp_path, qtbot):
    page = window.build_page
    picker = page.picker
    picker.category_box.setCurrentIndex(picker.category_box.findData("gpu"))
    qtbot.keyClicks(picker.search_edit, "4090")
    assert [p.id for p in picker.visible_parts()] == ["nvidia-rtx-4090"]
    picker.parts_table.setCurrentCell(0, 0)
    qtbot.mouseClick(picker.add_button, Qt.MouseButton.LeftButton)
    assert page.build.line_items[0].part_id == "nvidia-rtx-4090"
    assert page.priced.total > 0  # the catalog has a sourced CNY launch price for it
    # Edit the quantity and the unit price in the table, as a user would.
    page.lines.item(0, 3).setText("2")
    page.lines.item(0, 4).setText("13,500")
    assert page.build.line_items[0].quantity == 2
    assert str(page.priced.total) == "27000.00"
    # Nonsense input is refused with a message and changes nothing.
    page.lines.item(0, 3).setText("-1")
    assert dialogs[-1][0] == "warning" and "Quantity" in dialogs[-1][1]
    assert page.build.line_items[0].quantity == 2
    page.lines.item(0, 4).setText("abc")
    assert "must be an amount" in dialogs[-1][1]
    # A build without CPU, board or PSU says so.
    codes = {f.code for f in page.findings}
    assert any("cpu" in c for c in codes)
    # Save, reopen, identical.
    target = tmp_path / "quote.json"
    assert page._write(target)
    assert not page.dirty
    assert load_build(target).to_dict() == page.build.to_dict()


def test_opening_a_corrupt_build_warns_and_leaves_the_file_alone(window, dialogs, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "torchrig.build", "version": 1, "name": "x", '
                   '"line_items": [{"part_id": "nvidia-rtx-4090", "quantity": -3}]}',
                   encoding="utf-8")
    before = hashlib.sha256(bad.read_bytes()).hexdigest()
    assert not window.build_page.open_path(bad)
    assert dialogs and dialogs[-1][0] == "warning" and "quantity" in dialogs[-1][1]
    assert hashlib.sha256(bad.read_bytes()).hexdigest() == before


def test_sample_builds_open_and_price(window, dialogs):
    for path in sorted((ROOT / "builds").glob("*.json")):
        assert window.build_page.open_path(path), path
        assert window.build_page.priced is not None


def test_closing_with_unsaved_changes_asks_and_cancel_keeps_the_window(window, dialogs, qtbot):
    window.show()
    window.build_page.add_part("nvidia-rtx-3060-12gb")
    window.close()
    assert dialogs[-1][0] == "question"
    assert window.isVisible()
    window.build_page.dirty = False  # let the fixture close it


def test_wizard_plans_live_and_flags_bad_input_next_to_the_field(window, qtbot):
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=5_000)  # planned after paint
    batch = page.widgets["batch_size"]
    batch.setText("-5")
    batch.textEdited.emit("-5")
    page.replan()
    assert not page.errors["batch_size"].isHidden()
    assert "batch_size" in page.errors["batch_size"].text()
    batch.setText("abc")
    batch.textEdited.emit("abc")
    page.replan()
    assert "not a number" in page.errors["batch_size"].text()
    batch.setText("64")
    batch.textEdited.emit("64")
    page.replan()
    assert page.errors["batch_size"].isHidden()
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


def test_wizard_saves_and_opens_workloads(window, tmp_path, dialogs, monkeypatch):
    page = window.wizard_page
    assert page.open_path(ROOT / "workloads" / "cifar10-resnet18.json")
    assert page.workload.model == "resnet18"
    from torchrig.gui.qt import QFileDialog

    target = tmp_path / "w.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    page.save_dialog()
    assert target.exists()
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    assert not page.open_path(bad)
    assert dialogs[-1][0] == "warning"


def test_findings_view_escapes_text(window):
    from torchrig.findings import Finding, Severity
    from torchrig.i18n import Msg

    evil = Finding("x", Severity.ADVICE, Msg("<b>bold</b> & co", "<b>粗</b>"), Msg("d", "d"),
                   Msg("f", "f"), "src")
    window.build_page.findings_view.set_findings([evil])
    assert "<b>bold</b> & co" in window.build_page.findings_view.toPlainText()


def test_wizard_shows_the_solvers_changes_and_apply_updates_the_workload(window, qtbot):
    """Llama-2-7B LoRA batch 4 on the professional tier's RTX 4090: tight, and the solver's
    first change (micro-batch 3 with accumulation) applied by its button makes it fit."""
    from torchrig.gui.qt import Qt

    page = window.wizard_page
    page.subject_box.setCurrentIndex(page.subject_box.findData("tier:professional"))
    assert page.open_path(ROOT / "workloads" / "llama2-7b-lora.json")
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.vram_verdict == "tight"
    assert "tight" in page.headline.text()
    assert page.solver_box.isVisibleTo(page) and page.apply_buttons
    rows = [label.text() for label in page.solver_box.findChildren(type(page.headline))]
    assert any("micro-batch 3" in text for text in rows)
    qtbot.mouseClick(page.apply_buttons[0], Qt.MouseButton.LeftButton)
    assert (page.workload.batch_size, page.workload.grad_accumulation) == (3, 2)
    assert page.widgets["batch_size"].text() == "3"
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.vram_verdict == "fits"
    assert not page.solver_box.isVisibleTo(page)


def test_wizard_imports_a_hugging_face_config(window, qtbot, dialogs, monkeypatch):
    from torchrig.gui.qt import QFileDialog, Qt

    page = window.wizard_page
    config = ROOT / "tests" / "planning" / "hf_configs" / "qwen2-0.5b" / "config.json"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(config), ""))
    qtbot.mouseClick(page.import_button, Qt.MouseButton.LeftButton)
    w = page.workload
    assert (w.model, w.task, w.layers, w.hidden, w.kv_heads, w.tied_embeddings) == (
        "custom", "llm_inference", 24, 896, 2, True)
    assert page.widgets["model"].currentData() == "custom"
    assert page.widgets["layers"].text() == "24"
    # Back to a preset: the imported shape is dropped, not refused.
    combo = page.widgets["model"]
    combo.setCurrentIndex(combo.findData("llama-3-8b"))
    page.replan()
    assert page.workload.model == "llama-3-8b" and page.workload.experts is None
    bad = config.parent.parent / "missing.json"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(bad), ""))
    qtbot.mouseClick(page.import_button, Qt.MouseButton.LeftButton)
    assert dialogs[-1][0] == "warning" and "cannot read" in dialogs[-1][1]
