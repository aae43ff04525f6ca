"""The window used as a person uses it: every action under test is a click, typed text, a key
or a menu action; state is read afterwards. (The Benchmark page's Run button was dead for a
release because its tests called ``start()`` directly: issue #12.)

File dialogs are native windows a test cannot click into, so the static ``QFileDialog``
functions are answered by the ``file_dialogs`` fixture (conftest.py); Qt dialogs of our own
(Compare, Settings, About) are answered through their buttons. The gestures are in
gui_gestures.py.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from gui_gestures import (
    LEFT,
    answer_modal,
    button,
    click,
    click_cell,
    go_to,
    menu_action,
    open_from_menu,
    pick_with_keys,
    type_into_cell,
)

from torchrig.builds.build import load_build
from torchrig.gui.qt import (
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QKeySequence,
    QMessageBox,
    QMimeData,
    QPointF,
    Qt,
    QUrl,
)
from torchrig.planning.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def window(window, qtbot):
    """The main window on screen: hidden widgets take no clicks or keys."""
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def warnings_shown(monkeypatch):
    shown: list[str] = []

    def warn(parent, title, text, *args, **kwargs):
        shown.append(text)
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", warn)
    return shown


# --- Build: a PC shop quoting a build ------------------------------------------------------------


def test_a_build_started_from_a_tier_lists_one_line_per_row(window, qtbot):
    """Wrapped key specs made rows 40-100 px tall; each row is one line of text, the long
    texts elided with the whole text in the cell's tooltip."""
    window.resize(1280, 720)
    window.show()
    targets = window.targets_page
    targets.tier_box.setCurrentIndex(targets.tier_box.findData("enterprise"))
    click(qtbot, targets.start_button)
    table = window.build_page.lines
    assert window.current_page() == "build" and table.rowCount() >= 5
    line = table.fontMetrics().height()
    heights = [table.rowHeight(r) for r in range(table.rowCount())]
    assert all(line < h <= line + 12 for h in heights), heights
    for col in (1, 2):  # item and key spec
        assert all(table.item(r, col).toolTip() == table.item(r, col).text()
                   for r in range(table.rowCount()))
    cut = [r for r in range(table.rowCount()) for col in (1, 2)
           if table.fontMetrics().horizontalAdvance(table.item(r, col).text())
           > table.columnWidth(col)]
    assert cut, "no text is wider than its column at 1280 px: the test proves nothing"


def test_shop_quotes_a_build_from_a_tier_with_the_mouse_and_keyboard(
        window, qtbot, tmp_path, file_dialogs, warnings_shown):
    answers, _asked = file_dialogs
    window.show()
    targets = window.targets_page
    targets.tier_box.setCurrentIndex(targets.tier_box.findData("professional"))
    click(qtbot, targets.start_button)
    page = window.build_page
    assert window.current_page() == "build" and page.build.tier == "professional"
    lines_before = len(page.build.line_items)

    # Pick a GPU in the catalog list: search, select, Add.
    picker = page.picker
    picker.category_box.setCurrentIndex(picker.category_box.findData("gpu"))
    if picker.compatible_box.isChecked():
        click(qtbot, picker.compatible_box)  # an A100 is not "compatible" with a 4090 build
    qtbot.keyClicks(picker.search_edit, "A100")
    assert picker.parts_table.rowCount() >= 1
    click_cell(qtbot, picker.parts_table, 0, 0)
    click(qtbot, picker.add_button)
    assert len(page.build.line_items) == lines_before + 1
    added = page.build.line_items[-1]
    assert added.part_id is not None and "a100" in added.part_id

    # Quantity and price typed into the table.
    last = len(page.build.line_items) - 1
    type_into_cell(qtbot, page.lines, last, 3, "2")
    assert page.build.line_items[-1].quantity == 2
    type_into_cell(qtbot, page.lines, last, 4, "65000")
    assert str(page.build.line_items[-1].unit_price) == "65000"
    # The shop's price as of today, not the published figure's kind or date.
    typed = page.build.line_items[-1]
    assert (typed.price_date, typed.price_kind) == (datetime.date.today().isoformat(), "")
    assert page.priced.lines[-1].total == page.build.line_items[-1].unit_price * 2

    # Undo the price with Ctrl+Z, redo it with Ctrl+Shift+Z (through the Edit menu's actions).
    undo = menu_action(window, "Edit", "Undo build edit")
    assert undo.text().endswith("Edit price")
    undo.trigger()
    assert page.build.line_items[-1].unit_price is None
    menu_action(window, "Edit", "Redo build edit").trigger()
    assert str(page.build.line_items[-1].unit_price) == "65000"

    # Remove it again with the button, then another line with the Delete key.
    click_cell(qtbot, page.lines, last, 1)
    click(qtbot, page.remove_button)
    assert len(page.build.line_items) == lines_before
    click_cell(qtbot, page.lines, 0, 1)
    qtbot.keyClick(page.lines, Qt.Key.Key_Delete)
    assert len(page.build.line_items) == lines_before - 1

    # Ctrl+C copies the selected line as tab-separated text.
    click_cell(qtbot, page.lines, 0, 1)
    qtbot.keyClick(page.lines, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = QApplication.clipboard().text().splitlines()
    assert copied[0].split("\t")[0] == "Category" and len(copied) == 2

    # "Copy as" Markdown: the whole priced list, with the total the page shows.
    copy_md = next(a for a in page.copy_button.menu().actions() if a.data() == "md")
    copy_md.trigger()
    markdown = QApplication.clipboard().text()
    assert markdown.count("|") > 10 and f"{page.priced.total:,.2f}" in markdown

    # Save as: the suggestion is a safe name in the builds folder; the file opens again.
    window.settings.build_folder = str(tmp_path)
    target = tmp_path / "quote.json"
    answers.append(str(target))
    click(qtbot, page.buttons["save_as"])
    _, asked = file_dialogs
    assert load_build(target, window.catalog) == page.build
    assert not page.dirty and page.path == target
    assert not warnings_shown


def test_a_build_marks_old_prices_and_parts_out_of_production(window, qtbot):
    # The tier starts now quote current parts (the professional tier the RTX 4090 D), so the
    # sample dual-4090 build stands for a build holding an out-of-production part.
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "build")
    page = window.build_page
    open_from_menu(window, ROOT / "builds" / "pro-dual-4090.json")
    row = next(i for i, item in enumerate(page.build.line_items)
               if item.part_id == "nvidia-rtx-4090")
    origin = page.lines.item(row, page.lines.columnCount() - 1)
    assert origin.text().startswith("⚠")
    assert "out of production since 2024-10" in origin.toolTip()
    assert "months old" in origin.toolTip()
    # A line whose price is the user's own, dated today, is not marked: type one over an
    # old catalog price of a part still in production.
    aged = next(i for i, item in enumerate(page.build.line_items)
                if "months old" in page.lines.item(i, page.lines.columnCount() - 1).toolTip()
                and window.catalog.get(item.part_id).end_of_life is None)
    type_into_cell(qtbot, page.lines, aged, 4, "100")
    assert not page.lines.item(aged, page.lines.columnCount() - 1).text().startswith("⚠")


def test_a_missing_exchange_rate_is_asked_for_and_typing_it_prices_the_lines(window, qtbot):
    window.show()
    window.settings.exchange_rate = 0.0  # no default rate: the build starts without one
    window.build_page.picker.reference = None  # nor a shipped reference rate to fall back to
    window.build_page.apply_settings()
    targets = window.targets_page
    targets.tier_box.setCurrentIndex(targets.tier_box.findData("professional"))
    click(qtbot, targets.start_button)
    page = window.build_page
    assert page.build.currency == "CNY" and page.build.exchange_rate is None
    waiting = [line for line in page.priced.lines if line.status == "exchange rate needed"]
    assert waiting
    assert "Enter the exchange rate (CNY per USD)" in page.totals.text()
    assert "border" in page.rate_spin.styleSheet()
    page.rate_spin.selectAll()
    qtbot.keyClicks(page.rate_spin, "7.1")
    page.rate_date.clear()
    qtbot.keyClicks(page.rate_date, "2026-11-30")
    qtbot.keyClick(page.rate_date, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.build.exchange_rate is not None, timeout=5_000)
    assert all(page.priced.lines[line.index].status == "ok" for line in waiting)
    assert "Enter the exchange rate" not in page.totals.text()
    assert page.rate_spin.styleSheet() == ""


def test_save_as_suggests_a_safe_name_in_the_builds_folder(window, qtbot, tmp_path, monkeypatch):
    window.settings.build_folder = str(tmp_path)
    window.targets_page.tier_box.setCurrentIndex(
        window.targets_page.tier_box.findData("professional"))
    click(qtbot, window.targets_page.start_button)
    suggested: list[str] = []

    def remember(parent, caption, start, *args, **kwargs):
        suggested.append(start)
        return ("", "")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", remember)
    click(qtbot, window.build_page.buttons["save_as"])
    name = window.build_page.build.name
    assert "/" in name  # "Professional research / 专业级研究环境"
    assert Path(suggested[0]).parent == tmp_path
    stem = Path(suggested[0]).name
    assert stem.endswith(".json") and not stem.startswith(" ")
    assert name.split(" / ")[0] in stem and name.split(" / ")[1] in stem


def test_open_save_and_recent_files_from_the_toolbar(window, qtbot, tmp_path, file_dialogs):
    answers, _ = file_dialogs
    page = window.build_page
    answers.append(str(ROOT / "builds" / "pro-dual-4090.json"))
    click(qtbot, page.buttons["open"])
    assert page.path == ROOT / "builds" / "pro-dual-4090.json"
    copy = tmp_path / "copy.json"
    answers.append(str(copy))
    click(qtbot, page.buttons["save_as"])
    assert copy.is_file()
    # Edit the name, save with the Save button (no dialog: the file is known).
    page.name_edit.clear()
    qtbot.keyClicks(page.name_edit, "Lab box")
    qtbot.keyClick(page.name_edit, Qt.Key.Key_Return)
    assert page.dirty
    click(qtbot, page.buttons["save"])
    assert load_build(copy, window.catalog).name == "Lab box"
    # New, then reopen through the recent-files box.
    click(qtbot, page.buttons["new"])
    assert page.path is None
    assert page.recent_box.findData(str(copy)) == 1  # the newest entry, below the prompt
    pick_with_keys(qtbot, page.recent_box, str(copy))
    assert page.path == copy and page.build.name == "Lab box"


def test_compare_dialog_adds_a_build_and_closes_with_its_button(
        window, qtbot, file_dialogs):
    answers, _ = file_dialogs

    def add_then_close(dialog):
        answers.append(str(ROOT / "builds" / "pro-dual-4090.json"))
        qtbot.mouseClick(dialog.add_button, LEFT)
        columns.append(dialog.table.columnCount())
        headers.append(dialog.table.horizontalHeaderItem(1).toolTip())
        close = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
        qtbot.mouseClick(close, LEFT)

    columns: list[int] = []
    headers: list[str] = []
    seen = answer_modal(qtbot, add_then_close)
    click(qtbot, window.build_page.buttons["compare"])
    assert seen == ["CompareDialog"] and columns == [2]
    assert headers[0] == load_build(ROOT / "builds" / "pro-dual-4090.json").name


def test_import_prices_from_the_toolbar(window, qtbot, tmp_path, file_dialogs, monkeypatch):
    answers, _ = file_dialogs
    page = window.build_page
    answers.append(str(ROOT / "builds" / "pro-dual-4090.json"))
    click(qtbot, page.buttons["open"])
    part = next(i.part_id for i in page.build.line_items if i.part_id)
    csv = tmp_path / "prices.csv"
    csv.write_text(f"part_id,price,currency,date\n{part},1234.50,CNY,2026-11-01\n",
                   encoding="utf-8")
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information",
                        lambda parent, title, text, *a, **k: told.append(text))
    answers.append(str(csv))
    click(qtbot, page.buttons["import"])
    line = next(i for i in page.build.line_items if i.part_id == part)
    assert str(line.unit_price) == "1234.50" and told and "1" in told[0]


# --- opening files: File → Open, the Build page, drag and drop ---------------------------------


def _export_pdf(window, qtbot, tmp_path, file_dialogs) -> Path:
    answers, _ = file_dialogs
    answers.append(str(ROOT / "builds" / "pro-dual-4090.json"))
    click(qtbot, window.build_page.buttons["open"])
    report = window.report_page
    pdf = tmp_path / "sheet.pdf"
    answers.append(str(pdf))
    click(qtbot, report.export_button)
    qtbot.waitUntil(lambda: pdf.is_file(), timeout=30_000)
    return pdf


def test_a_torchrig_pdf_opens_as_its_build_from_file_open(
        window, qtbot, tmp_path, file_dialogs, warnings_shown):
    answers, _ = file_dialogs
    pdf = _export_pdf(window, qtbot, tmp_path, file_dialogs)
    expected = window.build_page.build
    click(qtbot, window.build_page.buttons["new"])
    answers.append(str(pdf))
    menu_action(window, "File", "Open…").trigger()
    page = window.build_page
    assert not warnings_shown
    assert page.build.line_items == expected.line_items and page.build.name == expected.name
    assert page.path is None  # Save must not write JSON over the PDF
    # The Build page's own Open button takes it as well.
    click(qtbot, page.buttons["new"])
    answers.append(str(pdf))
    click(qtbot, page.buttons["open"])
    assert page.build.line_items == expected.line_items and not warnings_shown


def test_file_open_routes_a_workload_to_the_wizard(window, qtbot, file_dialogs):
    answers, _ = file_dialogs
    path = next(iter(sorted((ROOT / "workloads").glob("*.json"))))
    answers.append(str(path))
    action = menu_action(window, "File", "Open…")
    assert action.shortcut().matches(QKeySequence(QKeySequence.StandardKey.Open)) \
        == QKeySequence.SequenceMatch.ExactMatch
    action.trigger()
    assert window.current_page() == "wizard"
    assert window.wizard_page.workload == load_workload(path)


def test_file_open_refuses_other_json_with_a_message(
        window, qtbot, tmp_path, file_dialogs, warnings_shown):
    answers, _ = file_dialogs
    other = tmp_path / "package.json"
    other.write_text(json.dumps({"name": "x"}), encoding="utf-8")
    answers.append(str(other))
    menu_action(window, "File", "Open…").trigger()
    assert warnings_shown and "not a file TorchRig opens" in warnings_shown[0]


def _drop(window, paths: list[Path]) -> None:
    from torchrig.gui.qt import QDragEnterEvent, QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = QPointF(50, 50)
    action = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(pos, action, mime, LEFT, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(pos, action, mime, LEFT, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)


def test_drag_and_drop_opens_builds_pdfs_and_workloads(
        window, qtbot, tmp_path, file_dialogs, warnings_shown):
    pdf = _export_pdf(window, qtbot, tmp_path, file_dialogs)
    click(qtbot, window.build_page.buttons["new"])
    _drop(window, [pdf])
    qtbot.waitUntil(lambda: window.build_page.build.name != "New build")
    assert window.current_page() == "build"
    workload = next(iter(sorted((ROOT / "workloads").glob("*.json"))))
    _drop(window, [workload])
    qtbot.waitUntil(lambda: window.current_page() == "wizard")
    assert window.wizard_page.workload == load_workload(workload)
    assert not warnings_shown


# --- Wizard: a researcher sizing a job -----------------------------------------------------------


def test_wizard_next_and_back_through_every_step_and_check_against(window, qtbot, file_dialogs,
                                                                 tmp_path):
    answers, _ = file_dialogs
    page = window.wizard_page
    go_to(qtbot, window, "wizard")
    steps = page.tabs.count()
    for i in range(1, steps):
        click(qtbot, page.next_button)
        assert page.tabs.currentIndex() == i
    click(qtbot, page.next_button)
    assert page.tabs.currentIndex() == steps - 1
    for i in range(steps - 2, -1, -1):
        click(qtbot, page.back_button)
        assert page.tabs.currentIndex() == i
    for index in range(page.subject_box.count()):
        page.subject_box.setCurrentIndex(index)
        qtbot.waitUntil(lambda: page.headline.text() != "")
    # Save the workload through its button; it opens again as the same workload.
    target = tmp_path / "workload.json"
    answers.append(str(target))
    click(qtbot, button(page, "save_workload"))
    assert load_workload(target) == page.workload
    answers.append(str(target))
    click(qtbot, button(page, "open_workload"))
    assert page.workload == load_workload(target)


def test_wizard_fields_take_typed_values(window, qtbot):
    page = window.wizard_page
    go_to(qtbot, window, "wizard")
    field = page.widgets["batch_size"]
    page.tabs.setCurrentIndex(next(i for i in range(page.tabs.count())
                                   if page.tabs.widget(i).isAncestorOf(field)))
    field.selectAll()
    qtbot.keyClicks(field, "7")
    qtbot.waitUntil(lambda: page.workload.batch_size == 7, timeout=5000)
    # Nonsense: the field says why, and the old results are marked out of date.
    field.selectAll()
    qtbot.keyClicks(field, "-3")
    qtbot.waitUntil(lambda: page.stale, timeout=5000)
    assert "Out of date" in page.headline.text()
    assert page.workload.batch_size == 7
    field.selectAll()
    qtbot.keyClicks(field, "8")
    qtbot.waitUntil(lambda: not page.stale and page.workload.batch_size == 8, timeout=5000)


def test_wizard_plans_the_last_keystroke_on_a_worker_thread(window, qtbot, monkeypatch):
    import threading

    from torchrig.planning import wizard_model  # the plan the page runs on its worker

    planned: list[tuple[int, bool]] = []
    real = wizard_model.analyze

    def recording(workload, *args, **kwargs):  # the subject, the catalog, a measured link
        planned.append((workload.batch_size,
                        threading.current_thread() is threading.main_thread()))
        return real(workload, *args, **kwargs)

    monkeypatch.setattr(wizard_model, "analyze", recording)
    page = window.wizard_page
    go_to(qtbot, window, "wizard")
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    planned.clear()
    field = page.widgets["batch_size"]
    page.tabs.setCurrentIndex(next(i for i in range(page.tabs.count())
                                   if page.tabs.widget(i).isAncestorOf(field)))
    field.selectAll()
    qtbot.keyClicks(field, "123")
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.workload.batch_size == 123
    assert "Recommended:" in page.recommendation.text()
    # Never on the GUI thread; the last value typed is the one shown; at most one plan per
    # keystroke (fewer when keys arrive while a plan runs).
    assert planned and not any(on_gui for _, on_gui in planned)
    assert planned[-1][0] == 123 and len(planned) <= 3
    # A plan that ends after a newer edit is not shown: the newer one is.
    field.selectAll()
    qtbot.keyClicks(field, "9")
    field.selectAll()
    qtbot.keyClicks(field, "8")
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.workload.batch_size == 8


# --- Report, Settings, About, language ----------------------------------------------------------


def test_report_preview_sections_and_export(window, qtbot, tmp_path, file_dialogs):
    answers, _ = file_dialogs
    # A build with parts first: the empty "New build" is no quote (issue 25).
    answers.append(str(ROOT / "builds" / "pro-dual-4090.json"))
    click(qtbot, window.build_page.buttons["open"])
    report = window.report_page
    go_to(qtbot, window, "report")
    key, check = next(iter(report.section_checks.items()))
    was = check.isChecked()
    click(qtbot, check)
    assert check.isChecked() is not was
    click(qtbot, report.preview_button)
    qtbot.waitUntil(lambda: not report.runner.running and bool(report.pdf_bytes),
                    timeout=30_000)
    pdf = tmp_path / "out.pdf"
    answers.append(str(pdf))
    click(qtbot, report.export_button)
    qtbot.waitUntil(lambda: pdf.is_file(), timeout=30_000)
    assert pdf.read_bytes().startswith(b"%PDF-")


def test_settings_ok_applies_and_cancel_discards(window, qtbot):
    from torchrig.gui.qt import QAction

    before = window.settings.currency

    def change_then(button):
        def act(dialog):
            box = dialog.currency_box
            box.setCurrentIndex(1 - box.currentIndex())
            qtbot.mouseClick(dialog.buttons.button(button), LEFT)
        return act

    answer_modal(qtbot, change_then(QDialogButtonBox.StandardButton.Cancel))
    action: QAction = menu_action(window, "Settings", "Settings…")
    action.trigger()
    assert window.settings.currency == before
    answer_modal(qtbot, change_then(QDialogButtonBox.StandardButton.Ok))
    action.trigger()
    assert window.settings.currency != before


def test_about_dialog_opens_and_closes_with_its_button(window, qtbot):
    def close(dialog):
        box = dialog.findChild(QDialogButtonBox)
        qtbot.mouseClick(box.button(QDialogButtonBox.StandardButton.Close), LEFT)

    seen = answer_modal(qtbot, close)
    menu_action(window, "Help", "About TorchRig").trigger()
    assert seen == ["AboutDialog"]


def test_language_switch_from_the_menu_keeps_unsaved_work(window, qtbot, zh):
    page = window.build_page
    page.name_edit.clear()
    qtbot.keyClicks(page.name_edit, "Unsaved quote")
    qtbot.keyClick(page.name_edit, Qt.Key.Key_Return)
    menu_action(window, "Settings", "Language", "中文（简体）").trigger()
    assert window.lang == "zh"
    assert window.build_page.build.name == "Unsaved quote" and window.build_page.dirty
    assert window.menuBar().actions()[0].text().replace("&", "").startswith("文件")
