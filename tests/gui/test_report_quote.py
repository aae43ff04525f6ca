"""The Report page's quote options, driven through its widgets (issue 25): the Wizard's
workload only when attached, a plan sheet with no build, export as PDF or Excel, the
internal sheet's remarks, and the Build page's title in one language."""

from __future__ import annotations

import io
import json
from pathlib import Path

import openpyxl
import pypdf
import pytest
from gui_gestures import go_to, open_from_menu

from torchrig.gui.qt import QFileDialog, QMessageBox, Qt

ROOT = Path(__file__).resolve().parents[2]
PRO_NAME = next(t["name"] for t in json.loads((ROOT / "resources" / "tiers.json")
                                              .read_text(encoding="utf-8"))["tiers"]
                if t["id"] == "professional")


@pytest.fixture
def warnings(monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda parent, title, text, *a, **k: shown.append(text))
    return shown


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split())
                    for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def _report(window, qtbot):
    """The Report page as the user sees it, in English."""
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "report")
    page = window.report_page
    page.lang_box.setCurrentIndex(page.lang_box.findData("en"))
    return page


def _preview(page, qtbot) -> str:
    before = page.pdf_bytes
    qtbot.mouseClick(page.preview_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.runner.running and page.pdf_bytes != before,
                    timeout=30_000)
    return _text(page.pdf_bytes)


def test_the_wizards_workload_is_printed_only_when_attached(window, qtbot):
    open_from_menu(window, ROOT / "builds" / "pro-dual-4090.json")
    page = _report(window, qtbot)
    assert page.workload is not None  # the Wizard's default workload is there...
    assert not page.attach_check.isChecked()
    text = _preview(page, qtbot)
    assert "Workload requirements" not in text and "Multi-GPU scaling" not in text
    qtbot.mouseClick(page.attach_check, Qt.MouseButton.LeftButton)  # ...until attached
    assert page.attach_check.isChecked()
    text = _preview(page, qtbot)
    assert "Workload requirements" in text and "Workload" in text


def test_no_build_exports_a_plan_sheet(window, qtbot, tmp_path, monkeypatch, warnings):
    page = _report(window, qtbot)
    assert not window.build_page.build.line_items  # the Build page's empty "New build"
    assert not page.export_button.isEnabled()  # nothing to print yet
    qtbot.mouseClick(page.attach_check, Qt.MouseButton.LeftButton)
    assert page.export_button.isEnabled()
    target = tmp_path / "plan.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(target), "PDF document (*.pdf)"))
    qtbot.mouseClick(page.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(target.exists, timeout=30_000)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=5_000)
    text = _text(target.read_bytes())
    assert text.startswith("Plan") and "Recommendation" in text and "Findings" in text
    assert "Bill of materials" not in text and "CNY 0.00" not in text
    assert not warnings


def test_the_export_button_writes_an_excel_workbook(window, qtbot, tmp_path, monkeypatch,
                                                    warnings):
    open_from_menu(window, ROOT / "builds" / "pro-dual-4090.json")
    page = _report(window, qtbot)
    chosen = tmp_path / "quote"  # the dialog's filter decides the suffix
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(chosen), "Excel workbook (*.xlsx)"))
    qtbot.mouseClick(page.export_button, Qt.MouseButton.LeftButton)
    target = tmp_path / "quote.xlsx"
    assert target.exists() and not warnings
    ws = openpyxl.load_workbook(target).active
    priced = [row for row in ws.iter_rows() if isinstance(row[5].value, (int, float))]
    assert priced  # the sample has priced lines
    for row in priced:  # each priced line's total is a formula of its own cells
        r = row[0].row
        assert row[6].value == f"=F{r}*D{r}*E{r}"
    assert any(isinstance(c.value, str) and c.value.startswith("=SUM(G")
               for row in ws.iter_rows() for c in row)
    assert "Exported" in page.status.text()


def test_the_internal_box_keeps_the_shops_remarks(window, qtbot):
    open_from_menu(window, ROOT / "builds" / "professional.json")
    page = _report(window, qtbot)
    customer = _preview(page, qtbot)
    assert "months old" not in customer
    qtbot.mouseClick(page.internal_check, Qt.MouseButton.LeftButton)
    assert "months old" in _preview(page, qtbot)


def test_the_build_page_title_is_in_the_windows_language(window):
    open_from_menu(window, ROOT / "builds" / "professional.json")
    title = window.build_page.title.text()
    assert title.startswith(f"{PRO_NAME['en']} — ") and PRO_NAME["zh"] not in title
    # the name field keeps the stored name whole: it is what the file holds
    assert window.build_page.name_edit.text() == f"{PRO_NAME['en']} / {PRO_NAME['zh']}"
