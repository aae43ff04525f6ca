"""A quote with unpriced lines is a draft: stamped DRAFT / 草稿 on every page with those lines
named, and ``torchrig export`` refuses it (exit 3, nothing written) unless ``--draft``."""

from __future__ import annotations

import argparse
import io
import json
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from torchrig.builds.build import Build, LineItem, save_build
from torchrig.catalog import load_catalog
from torchrig.report.assemble import assemble_sheet
from torchrig.report.cli_export import EXIT_DRAFT, run_export_cli
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, SheetOptions


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _line(text: str, price: str | None) -> LineItem:
    return LineItem(text=text, category="other", quantity=1,
                    unit_price=Decimal(price) if price is not None else None,
                    currency="CNY" if price is not None else None)


def _pages(pdf: bytes) -> list[str]:
    return [" ".join(page.extract_text().split())
            for page in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def _sheet(build: Build, catalog, lang: str = "en"):
    return assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                          lang=lang, options=SheetOptions(invariant=True))


# 60 priced lines run the parts table over more than one page.
PRICED = [_line(f"Cable set {i:02d}", "19.90") for i in range(60)]


@pytest.mark.parametrize(("lang", "mark"), [
    ("en", "DRAFT - no price yet for: Vendor quote pending; Rack rails"),
    ("zh", "草稿：以下部件尚无价格：Vendor quote pending；Rack rails")])
def test_every_page_is_stamped_with_the_unpriced_lines(catalog, lang, mark) -> None:
    build = Build(name="Big order", line_items=[
        *PRICED, _line("Vendor quote pending", None), _line("Rack rails", None)])
    sheet = _sheet(build, catalog, lang)
    assert sheet.draft_lines == ("Vendor quote pending", "Rack rails")
    pages = _pages(render_sheet_bytes(sheet))
    assert len(pages) >= 2
    stamp = "DRAFT" if lang == "en" else "草稿"
    for text in pages:
        assert mark in text
        assert text.count(stamp) >= 2  # the faint word across the page and the named line


def test_one_unpriced_line_is_named_alone(catalog) -> None:
    sheet = _sheet(Build(name="Small", line_items=[_line("Case", "399"),
                                                   _line("Vendor quote pending", None)]),
                   catalog)
    assert sheet.draft_lines == ("Vendor quote pending",)
    (page,) = _pages(render_sheet_bytes(sheet))
    assert "DRAFT - no price yet for: Vendor quote pending" in page


def test_a_fully_priced_quote_is_no_draft(catalog) -> None:
    sheet = _sheet(Build(name="Priced", line_items=PRICED), catalog)
    assert not sheet.is_draft
    for text in _pages(render_sheet_bytes(sheet)):
        assert "DRAFT" not in text


def _args(build: Path, out: Path, **kw: object) -> argparse.Namespace:
    values: dict[str, object] = {"build": str(build), "output": str(out), "workload": None,
                                 "bench": None, "lang": "en", "tier": None, "invariant": True,
                                 "internal": False, "draft": False}
    values.update(kw)
    return argparse.Namespace(**values)


@pytest.mark.parametrize("suffix", [".pdf", ".xlsx"])
def test_cli_refuses_a_draft_without_the_flag(tmp_path: Path, suffix: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.json"
    save_build(Build(name="Half priced", line_items=[_line("Case", "399"),
                                                     _line("Vendor quote pending", None)]),
               path)
    out = tmp_path / f"quote{suffix}"
    assert run_export_cli(_args(path, out)) == EXIT_DRAFT == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Vendor quote pending" in err and "--draft" in err
    assert not out.exists()  # nothing written
    assert run_export_cli(_args(path, out, draft=True)) == 0
    assert out.stat().st_size > 0


def test_cli_writes_a_priced_quote_without_the_flag(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"format": "torchrig.build", "version": 2, "name": "Priced",
                                "line_items": [{"text": "Case", "category": "case",
                                                "quantity": 1, "unit_price": "399",
                                                "currency": "CNY"}]}), encoding="utf-8")
    out = tmp_path / "quote.pdf"
    assert run_export_cli(_args(path, out)) == 0
    assert "DRAFT" not in " ".join(_pages(out.read_bytes()))
