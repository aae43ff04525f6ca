"""Report page: preview of the real PDF, export, and clear messages for bad paths."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_preview_shows_the_pdf_that_export_writes(window, qtbot, tmp_path, warnings):
    assert window.build_page.open_path(ROOT / "builds" / "pro-dual-4090.json")
    page = window.report_page
    page.set_workload(load_workload(ROOT / "workloads" / "bert-base-finetune-sst2.json"))
    page.shop_edit.setText("Ada & <Lovelace> 电脑")
    assert page.render_preview()
    assert page.pdf_bytes.startswith(b"%PDF")
    if QPdfDocument is not None:
        qtbot.waitUntil(lambda: page.document.status() == QPdfDocument.Status.Ready,
                        timeout=5_000)
        assert page.document.pageCount() >= 2
    target = tmp_path / "quote.pdf"
    target.write_bytes(b"old")
    assert page.export_to(target)
    assert target.read_bytes() == page.pdf_bytes  # replaced whole, never half-written
    assert extract_build_json(target)["name"] == window.build_page.build.name
    assert page.open_button.isEnabled()
    assert window.settings.shop_name == "Ada & <Lovelace> 电脑"  # the header is remembered
    assert not warnings


def test_export_to_a_missing_folder_says_so_and_writes_nothing(window, tmp_path, warnings):
    window.build_page.open_path(ROOT / "builds" / "entry.json")
    assert not window.report_page.export_to(tmp_path / "nope" / "x.pdf")
    assert warnings and "does not exist" in warnings[-1]
    assert not (tmp_path / "nope").exists()


def test_a_missing_logo_is_a_clear_message(window, warnings):
    window.build_page.open_path(ROOT / "builds" / "entry.json")
    window.report_page.logo_edit.setText("/no/such/logo.png")
    assert not window.report_page.render_preview()
    assert "logo" in window.report_page.status.text()


def test_sections_can_be_left_out(window):
    window.build_page.open_path(ROOT / "builds" / "entry.json")
    page = window.report_page
    assert page.render_preview()
    full = len(page.pdf_bytes)
    for key, check in page.section_checks.items():
        check.setChecked(key in ("bom", "totals"))
    assert page.render_preview()
    assert len(page.pdf_bytes) < full


def test_preview_and_export_render_on_a_worker_thread(window, qtbot, tmp_path, warnings):
    assert window.build_page.open_path(ROOT / "builds" / "professional.json")
    page = window.report_page
    page.start_render()
    assert page.runner.running and not page.preview_button.isEnabled()
    qtbot.waitUntil(lambda: not page.runner.running, timeout=20_000)
    assert page.pdf_bytes.startswith(b"%PDF") and page.preview_button.isEnabled()
    target = tmp_path / "async.pdf"
    page.start_render(lambda pdf: page._write(target, pdf))
    qtbot.waitUntil(lambda: target.exists(), timeout=20_000)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=5_000)
    assert target.read_bytes() == page.pdf_bytes


def _pdf_text(pdf: bytes) -> str:
    import io

    import pypdf

    return "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def test_this_machine_column_only_when_internal_is_ticked(window, qtbot):
    from torchrig.gui.qt import Qt
    from torchrig.hardware.model import CpuInfo, SystemProfile

    assert window.build_page.open_path(ROOT / "builds" / "professional.json")
    page = window.report_page
    # Laid out as the user sees it: a click lands on the box's words, not on an unsized widget.
    window.show()
    qtbot.waitExposed(window)
    window.show_page("report")
    page.set_profile(SystemProfile(cpu=CpuInfo(physical_cores=2, logical_cpus=4)))
    page.lang_box.setCurrentIndex(page.lang_box.findData("en"))
    assert not page.internal_check.isChecked()  # a customer quote by default
    qtbot.mouseClick(page.preview_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.runner.running and bool(page.pdf_bytes), timeout=20_000)
    assert "This machine" not in _pdf_text(page.pdf_bytes)
    customer_pdf = page.pdf_bytes
    qtbot.mouseClick(page.internal_check, Qt.MouseButton.LeftButton)
    assert page.internal_check.isChecked()
    qtbot.mouseClick(page.preview_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.runner.running and page.pdf_bytes != customer_pdf,
                    timeout=20_000)
    text = _pdf_text(page.pdf_bytes)
    assert "This machine" in text and "2 cores" in text
