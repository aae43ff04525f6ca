"""A CNY build without a rate of its own is priced in the PDF and the workbook exactly as
`check` prices it: at the shipped reference rate (issue 25). Before, the Build page and check
used the reference while export called the same build a DRAFT ("exchange rate needed").

The expected figure is computed here from the raw files: the part's USD price and the rate, as
written in resources/catalog/, converted and rounded half-up to cents (the quote's rule)."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import openpyxl
import pytest

ROOT = Path(__file__).resolve().parents[2]
PART = "seasonic-focus-gx-850-v4"


def _raw_usd_price() -> Decimal:
    parts = json.loads((ROOT / "resources/catalog/psus.json").read_text("utf-8"))["parts"]
    (part,) = [p for p in parts if p["id"] == PART]
    currencies = {price["currency"] for price in part["prices"]}
    assert currencies == {"USD"}, "the test needs a part priced in USD only"
    return Decimal(part["prices"][0]["amount"])


def _raw_rate() -> Decimal:
    doc = json.loads((ROOT / "resources/catalog/exchange_rates.json").read_text("utf-8"))
    return Decimal(doc["rates"][0]["rate"])


def _build(tmp_path: Path) -> Path:
    path = tmp_path / "no-rate.json"
    path.write_text(json.dumps({
        "format": "torchrig.build", "version": 1, "name": "No rate", "currency": "CNY",
        "line_items": [{"part_id": PART, "quantity": 2}]}), encoding="utf-8")
    return path


def _export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "torchrig", "export", *args],
                          capture_output=True, text=True, timeout=300)


def test_the_workbook_prices_a_usd_part_at_the_shipped_rate(tmp_path: Path) -> None:
    unit = (_raw_usd_price() * _raw_rate()).quantize(Decimal("0.01"), ROUND_HALF_UP)
    out = tmp_path / "quote.xlsx"
    done = _export(str(_build(tmp_path)), "-o", str(out), "--lang", "zh")
    # Not refused as a draft: every line has a price.
    assert done.returncode == 0, done.stderr
    cells = [c.value for row in openpyxl.load_workbook(out).active.iter_rows() for c in row]
    assert float(unit) in cells or unit in [Decimal(str(c)) for c in cells
                                            if isinstance(c, (int, float))]


@pytest.mark.parametrize(("lang", "kind"), [("en", "PBOC central parity"),
                                             ("zh", "中国人民银行人民币汇率中间价")])
def test_the_pdf_prints_the_same_unit_price_and_the_rate(tmp_path: Path, lang: str,
                                                          kind: str) -> None:
    import pypdf

    unit = (_raw_usd_price() * _raw_rate()).quantize(Decimal("0.01"), ROUND_HALF_UP)
    out = tmp_path / "quote.pdf"
    done = _export(str(_build(tmp_path)), "-o", str(out), "--lang", lang)
    assert done.returncode == 0, done.stderr
    text = "".join(p.extract_text() for p in pypdf.PdfReader(out).pages)
    assert f"{unit:,.2f}" in text
    # The rate the quote was priced with is printed, with where it comes from.
    flat = text.replace("\n", "")
    assert str(_raw_rate()) in flat and kind in flat


def test_the_share_text_uses_the_same_rate(tmp_path: Path) -> None:
    unit = (_raw_usd_price() * _raw_rate()).quantize(Decimal("0.01"), ROUND_HALF_UP)
    done = _export(str(_build(tmp_path)), "-o", "-", "--format", "md")
    assert done.returncode == 0, done.stderr
    assert f"| {unit:,.2f} | {unit * 2:,.2f} |" in done.stdout
    assert str(_raw_rate()) in done.stdout
