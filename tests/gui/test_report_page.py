"""Report page: preview of the real PDF, export, and clear messages for bad paths - driven by
its buttons and fields, with the build and workload opened as a user opens them."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest
from gui_gestures import click, detect, go_to, menu_action, open_build, tick, type_text

from torchrig.gui.qt import QMessageBox, QPdfDocument
from torchrig.planning.workload import load_workload
from torchrig.report.pdf_files import extract_build_json

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def warnings(monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "warning",
                        lambda parent, title, text, *a, **k: shown.append(text))
    return shown


def _preview(qtbot, page) -> None:
    """Click Update preview and wait for the render to end."""
    click(qtbot, page.preview_button)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=30_000)


def _export(qtbot, page, answers: list[str], target: Path) -> None:
    """Click Export…, answer the dialog with ``target``, wait for the render to end."""
    answers.append(str(target))
    click(qtbot, page.export_button)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=30_000)


def test_preview_shows_the_pdf_that_export_writes(window, qtbot, tmp_path, warnings,
                                                  file_dialogs):
    answers, _ = file_dialogs
    open_build(qtbot, window, answers, ROOT / "builds" / "pro-dual-4090.json")
    workload = ROOT / "workloads" / "bert-base-finetune-sst2.json"
    answers.append(str(workload))
    menu_action(window, "File", "Open…").trigger()  # the Wizard takes it, the sheet follows
    page = window.report_page
    assert page.workload == load_workload(workload)
    type_text(qtbot, page.shop_edit, "Ada & <Lovelace> 电脑")
    _preview(qtbot, page)
    assert page.pdf_bytes.startswith(b"%PDF")
    if QPdfDocument is not None:
        # Every page of the PDF is drawn in the preview (pypdf counts them independently).
        pages = len(pypdf.PdfReader(io.BytesIO(page.pdf_bytes)).pages)
        assert page.pages_view.page_count() == pages >= 2
    target = tmp_path / "quote.pdf"
    target.write_bytes(b"old")
    assert not page.open_button.isEnabled()  # nothing exported yet
    _export(qtbot, page, answers, target)
    assert target.read_bytes() == page.pdf_bytes  # replaced whole, never half-written
    assert extract_build_json(target)["name"] == window.build_page.build.name
    assert page.open_button.isEnabled()
    assert window.settings.shop_name == "Ada & <Lovelace> 电脑"  # the header is remembered
    assert not warnings


def test_export_to_a_missing_folder_says_so_and_writes_nothing(window, qtbot, tmp_path,
                                                               warnings, file_dialogs):
    answers, _ = file_dialogs
    open_build(qtbot, window, answers, ROOT / "builds" / "entry.json")
    _export(qtbot, window.report_page, answers, tmp_path / "nope" / "x.pdf")
    assert warnings and "does not exist" in warnings[-1]
    assert not (tmp_path / "nope").exists()
    assert not window.report_page.open_button.isEnabled()


def test_a_missing_logo_is_a_clear_message(window, qtbot, warnings, file_dialogs):
    open_build(qtbot, window, file_dialogs[0], ROOT / "builds" / "entry.json")
    page = window.report_page
    type_text(qtbot, page.logo_edit, "/no/such/logo.png")
    _preview(qtbot, page)
    assert "logo" in page.status.text() and "/no/such/logo.png" in page.status.text()
    assert not page.pdf_bytes  # no sheet was made


def test_sections_can_be_left_out(shown_window, qtbot, file_dialogs):
    window = shown_window
    open_build(qtbot, window, file_dialogs[0], ROOT / "builds" / "entry.json")
    go_to(qtbot, window, "report")
    page = window.report_page
    _preview(qtbot, page)
    full = page.pdf_bytes
    assert full.startswith(b"%PDF")
    for key, check in page.section_checks.items():
        if check.isChecked() != (key in ("bom", "totals")):
            tick(qtbot, check)  # a key: the box may be scrolled out of view
    assert [k for k, c in page.section_checks.items() if c.isChecked()] == ["bom", "totals"]
    _preview(qtbot, page)
    assert page.pdf_bytes.startswith(b"%PDF") and len(page.pdf_bytes) < len(full)


def test_preview_and_export_render_on_a_worker_thread(window, qtbot, tmp_path, warnings,
                                                      file_dialogs):
    answers, _ = file_dialogs
    open_build(qtbot, window, answers, ROOT / "builds" / "professional.json")
    page = window.report_page
    click(qtbot, page.preview_button)
    # The click returned with the render still going: it runs on the page's worker thread,
    # and the page says it is busy.
    assert page.runner.running and not page.busy.isHidden()
    qtbot.waitUntil(lambda: not page.runner.running, timeout=20_000)
    assert page.pdf_bytes.startswith(b"%PDF") and page.preview_button.isEnabled()
    assert page.busy.isHidden()
    target = tmp_path / "async.pdf"
    answers.append(str(target))
    click(qtbot, page.export_button)
    assert page.runner.running and not page.export_button.isEnabled()
    qtbot.waitUntil(lambda: target.exists(), timeout=20_000)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=5_000)
    assert target.read_bytes() == page.pdf_bytes
    assert page.export_button.isEnabled() and not warnings


def _pdf_text(pdf: bytes) -> str:
    import io

    import pypdf

    return "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def test_this_machine_column_only_when_internal_is_ticked(window, qtbot, monkeypatch,
                                                          file_dialogs):
    from gui_gestures import choose

    from torchrig.hardware.model import CpuInfo, SystemProfile

    open_build(qtbot, window, file_dialogs[0], ROOT / "builds" / "professional.json")
    page = window.report_page
    detect(qtbot, window, monkeypatch, SystemProfile(cpu=CpuInfo(physical_cores=2,
                                                                 logical_cpus=4)))
    choose(page.lang_box, "en")
    assert not page.internal_check.isChecked()  # a customer quote by default
    _preview(qtbot, page)
    assert page.pdf_bytes and "This machine" not in _pdf_text(page.pdf_bytes)
    customer_pdf = page.pdf_bytes
    tick(qtbot, page.internal_check)  # its words are short: a centre click misses
    assert page.internal_check.isChecked()
    _preview(qtbot, page)
    assert page.pdf_bytes != customer_pdf
    text = _pdf_text(page.pdf_bytes)
    assert "This machine" in text and "2 cores" in text
