"""The quote as an Excel workbook: live formulas that give the PDF's totals to the cent.

The workbook's formulas are evaluated here by a small evaluator written for the few shapes the
exporter writes (a product of cells, SUM over a column, ROUND of a product, a difference and a
sum), with Decimal arithmetic; the totals are then compared with a hand computation written in
each test and with the totals printed in the PDF (read back with pypdf).
"""

from __future__ import annotations

import argparse
import io
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import openpyxl
import pypdf
import pytest

from torchrig.builds.build import Build, Discount, LineItem
from torchrig.catalog import load_catalog
from torchrig.report.assemble import assemble_sheet
from torchrig.report.cli_export import run_export_cli
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, SheetOptions
from torchrig.report.xlsx import render_sheet_xlsx

CELL = r"\$?([A-Z]+)\$?(\d+)"


def evaluate(ws, ref: str, depth: int = 0) -> Decimal | None:
    """The value of cell ``ref`` (``G7``): a number, or a formula of the shapes the exporter
    writes, evaluated recursively. Text (``no price``) and empty cells are None."""
    assert depth < 20, "formula cycle"
    value = ws[ref].value
    if value is None or (isinstance(value, str) and not value.startswith("=")):
        return None
    if not isinstance(value, str):
        return Decimal(str(value))
    return _expression(ws, value[1:], depth)


def _expression(ws, expr: str, depth: int) -> Decimal:
    expr = expr.strip()
    if m := re.fullmatch(r"SUM\(([A-Z]+)(\d+):([A-Z]+)(\d+)\)", expr):
        column, first, last = m.group(1), int(m.group(2)), int(m.group(4))
        values = (evaluate(ws, f"{column}{r}", depth + 1) for r in range(first, last + 1))
        return sum((v for v in values if v is not None), Decimal(0))  # SUM skips text
    if m := re.fullmatch(r"ROUND\((.+),2\)", expr):
        return _expression(ws, m.group(1), depth).quantize(Decimal("0.01"), ROUND_HALF_UP)
    if m := re.fullmatch(r"\((.+)\)(.*)", expr):
        inner = _expression(ws, m.group(1), depth)
        return _apply(ws, inner, m.group(2), depth) if m.group(2) else inner
    # a chain of + - * / over cells and numbers, left to right, * and / first
    tokens = re.findall(r"[A-Z]+\d+|\d+(?:\.\d+)?|[-+*/]", expr)
    assert "".join(tokens) == expr.replace(" ", ""), f"unexpected formula {expr!r}"
    terms: list[Decimal] = []
    signs: list[str] = []
    pending: str | None = None
    for token in tokens:
        if token in "+-":
            signs.append(token)
        elif token in "*/":
            pending = token
        else:
            number = _operand(ws, token, depth)
            if pending is None:
                terms.append(number)
            else:
                terms[-1] = terms[-1] * number if pending == "*" else terms[-1] / number
                pending = None
    total = terms[0]
    for sign, term in zip(signs, terms[1:], strict=True):
        total = total + term if sign == "+" else total - term
    return total


def _apply(ws, left: Decimal, rest: str, depth: int) -> Decimal:
    m = re.fullmatch(r"([*/])(.+)", rest)
    assert m, rest
    right = _expression(ws, m.group(2), depth)
    return left * right if m.group(1) == "*" else left / right


def _operand(ws, token: str, depth: int) -> Decimal:
    if re.fullmatch(r"[A-Z]+\d+", token):
        value = evaluate(ws, token, depth + 1)
        return value if value is not None else Decimal(0)
    return Decimal(token)


def _money_cells(ws) -> dict[str, Decimal | None]:
    """Column F label -> evaluated column G, for the money rows under the parts table (the
    parts' own rows have a number in F, the table's head has text in G)."""
    out = {}
    for label, value in ws.iter_rows(min_col=6, max_col=7):
        formula = isinstance(value.value, str) and value.value.startswith("=")
        if isinstance(label.value, str) and (formula or isinstance(value.value, (int, float))):
            out[label.value] = evaluate(ws, value.coordinate)
    return out


def _pdf_amounts(pdf: bytes, currency: str = "CNY") -> list[Decimal]:
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    return [Decimal(m.replace(",", "")) for m in re.findall(rf"{currency} ([\d,]+\.\d\d)", text)]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _custom(text: str, price: str | None, qty: int = 1, scope: str = "node") -> LineItem:
    return LineItem(text=text, category="other", quantity=qty, scope=scope,  # type: ignore[arg-type]
                    unit_price=Decimal(price) if price is not None else None,
                    currency="CNY" if price is not None else None,
                    price_source="shop list" if price is not None else "")


def _workbook(sheet):
    return openpyxl.load_workbook(io.BytesIO(render_sheet_xlsx(sheet))).active


def test_percent_discount_tax_and_nodes_to_the_cent(catalog) -> None:
    build = Build(name="Lab pair", nodes=2, tax_rate=Decimal("0.13"),
                  discount=Discount("percent", Decimal("10")), line_items=[
                      _custom("GPU server board", "1000.50", qty=2),
                      _custom("Switch", "3000", scope="cluster"),
                  ])
    sheet = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                           lang="en", options=SheetOptions(invariant=True))
    ws = _workbook(sheet)
    # By hand: 1000.50 x 2 per node x 2 nodes = 4002.00; the switch once, 3000.00;
    # subtotal 7002.00; 10 % = 700.20; tax 13 % of 6301.80 = 819.234 -> 819.23;
    # total 6301.80 + 819.23 = 7121.03.
    money = _money_cells(ws)
    assert money == {"Subtotal": Decimal("7002.00"), "Discount (10%)": Decimal("700.20"),
                     "Tax (13%)": Decimal("819.23"), "Total": Decimal("7121.03")}
    # The line totals are formulas of the row's own cells: unit x qty per node x nodes.
    rows = [r for r in ws.iter_rows(min_row=1) if r[1].value in ("GPU server board", "Switch")]
    assert [r[6].value for r in rows] == [f"=F{r[0].row}*D{r[0].row}*E{r[0].row}"
                                          for r in rows]
    assert [evaluate(ws, r[6].coordinate) for r in rows] == [Decimal("4002.00"),
                                                              Decimal("3000.00")]
    assert [(r[3].value, r[4].value) for r in rows] == [(2, 2), (1, 1)]
    # The same totals as the PDF and the priced sheet.
    totals = sheet.totals
    assert (totals.subtotal, totals.discount, totals.tax, totals.total) == (
        money["Subtotal"], money["Discount (10%)"], money["Tax (13%)"], money["Total"])
    printed = _pdf_amounts(render_sheet_bytes(sheet))
    for amount in money.values():
        assert amount in printed


def test_amount_discount_without_tax_and_an_unpriced_line(catalog) -> None:
    """The second branch: a fixed discount (a number, not a formula), no tax line, and a line
    without a price that the sum skips - the PDF's total covers the priced lines only too."""
    build = Build(name="Desk box", discount=Discount("amount", Decimal("99.99")), line_items=[
        _custom("Workstation", "12345.67"),
        _custom("Monitor arm", "88.10", qty=3),
        _custom("Vendor quote pending", None),
    ])
    sheet = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                           lang="zh", options=SheetOptions(invariant=True))
    ws = _workbook(sheet)
    # By hand: 12345.67 + 3 x 88.10 = 12609.97; minus 99.99 = 12509.98; no tax.
    money = _money_cells(ws)
    assert money == {"小计": Decimal("12609.97"), "折扣": Decimal("99.99"),
                     "总计": Decimal("12509.98")}
    assert sheet.totals.total == Decimal("12509.98")
    printed = _pdf_amounts(render_sheet_bytes(sheet))
    assert Decimal("12609.97") in printed and Decimal("12509.98") in printed
    texts = [str(c.value) for row in ws.iter_rows() for c in row if c.value is not None]
    pending = next(r for r in ws.iter_rows() if r[1].value == "Vendor quote pending")
    assert pending[5].value == "无价格" and pending[6].value == "无价格"  # no formula, no 0
    assert any("草稿" in t and "Vendor quote pending" in t for t in texts)  # a draft says so


def test_cli_writes_the_workbook(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = Path(__file__).resolve().parents[2] / "builds" / "pro-dual-4090.json"
    out = tmp_path / "quote.xlsx"
    args = argparse.Namespace(build=str(build), output=str(out), workload=None, bench=None,
                              lang="en", tier=None, invariant=True, internal=False, draft=True)
    assert run_export_cli(args) == 0
    assert "wrote" in capsys.readouterr().out
    ws = openpyxl.load_workbook(out).active
    assert ws["A1"].value in ("Quote", "Build sheet")
    assert any(isinstance(c.value, str) and c.value.startswith("=SUM(G")
               for row in ws.iter_rows() for c in row)


def test_user_text_that_looks_like_a_formula_stays_text(catalog) -> None:
    build = Build(name="=HYPERLINK(\"http://x\")", customer="=1+1", line_items=[
        _custom("=cmd|' /C calc'!A0", "10")])
    sheet = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01",
                                                         customer="=1+1"),
                           lang="en", options=SheetOptions(invariant=True))
    ws = _workbook(sheet)
    formulas = {c.coordinate for row in ws.iter_rows() for c in row if c.data_type == "f"}
    assert formulas and all(ref.startswith("G") for ref in formulas)
    texts = {c.value for row in ws.iter_rows() for c in row if c.data_type == "s"}
    assert {"=HYPERLINK(\"http://x\")", "=1+1", "=cmd|' /C calc'!A0"} <= texts
