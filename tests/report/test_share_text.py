"""The priced build as Markdown, BBCode, plain text and CSV: the PDF's amounts, each format's
escaping, both languages, and the ``export`` command that writes them."""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import unicodedata
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem, build_from_tier, load_build
from torchrig.builds.pricing import PricedBuild, price_build
from torchrig.catalog import load_catalog
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.report.assemble import assemble_sheet
from torchrig.report.cli_export import run_export_cli
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.share_text import FORMATS, share_text
from torchrig.report.sheet import Header, SheetOptions
from torchrig.report.values import fmt_money

from .test_assemble import _priced_build, _text

ROOT = Path(__file__).resolve().parents[2]
BUILDS = sorted((ROOT / "builds").glob("*.json"))
HOSTILE = "A | B *bold* _u_ [url](x) <i> #1 \\ `code` [b]x[/b]"
FORMULA = "=HYPERLINK(\"http://x\",\"y\")"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _hostile_build(catalog: Catalog) -> Build:
    build = _priced_build(catalog)
    lines = [*build.line_items,
             LineItem(text=HOSTILE, category="other", quantity=2, unit_price=Decimal("10.50"),
                      currency="CNY"),
             LineItem(text=FORMULA, category="service", quantity=1,
                      unit_price=Decimal("1.00"), currency="CNY"),
             LineItem(text="张三的\n机箱", category="case", quantity=1,
                      unit_price=Decimal("399.00"), currency="CNY")]
    return replace(build, name="Quote | [b]ACME[/b] *", line_items=lines)


def _shown_totals(priced: PricedBuild) -> list[str]:
    cur = priced.currency
    return [f"{cur} {fmt_money(priced.subtotal)}", f"- {cur} {fmt_money(priced.discount)}",
            f"{cur} {fmt_money(priced.tax)}", f"{cur} {fmt_money(priced.total)}"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_format_shows_the_pdf_totals_to_the_cent(catalog: Catalog, lang: str) -> None:
    build = _hostile_build(catalog)
    priced = price_build(build, catalog)
    assert priced.discount and priced.tax and priced.exchange_rate is not None
    sheet = assemble_sheet(build, catalog, header=Header(date="2025-03-01"), lang=lang,
                           options=SheetOptions(invariant=True))
    pdf = _text(render_sheet_bytes(sheet))
    for shown in _shown_totals(priced):
        assert shown in pdf
        for fmt in ("md", "bbcode", "text"):
            assert shown in share_text(priced, fmt, lang), (fmt, shown)
    rows = list(csv.reader(io.StringIO(share_text(priced, "csv", lang))))
    amounts = [row[4] for row in rows if len(row) == 6 and row[5] == priced.currency]
    assert amounts == [str(priced.subtotal), str(-priced.discount), str(priced.tax),
                       str(priced.total)]
    for line in priced.lines:
        if line.total is not None:
            assert fmt_money(line.total) in pdf
            assert fmt_money(line.total) in share_text(priced, "md", lang)


@pytest.mark.parametrize("build_path", BUILDS, ids=lambda p: p.stem)
def test_every_sample_build_shares_in_every_format(catalog: Catalog, build_path: Path) -> None:
    priced = price_build(load_build(build_path, catalog), catalog)
    for fmt in FORMATS:
        for lang in ("en", "zh"):
            out = share_text(priced, fmt, lang)
            assert out.endswith("\n") and "None" not in out
            assert str(priced.total) in out or fmt_money(priced.total) in out


def _md_cells(row: str) -> list[str]:
    """Split a Markdown table row on the pipes that are not escaped."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]


def test_markdown_escapes_user_text(catalog: Catalog) -> None:
    priced = price_build(_hostile_build(catalog), catalog)
    md = share_text(priced, "md", "en")
    rows = [line for line in md.splitlines() if line.startswith("|")]
    assert all(len(_md_cells(row)) == 6 for row in rows)
    hostile = next(row for row in rows if "bold" in row)
    part = _md_cells(hostile)[1]
    assert part == re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", HOSTILE)
    assert "张三的 机箱" in md  # a newline would end the table row
    assert md.startswith("**Quote \\| \\[b\\]ACME\\[/b\\] \\***")


def test_bbcode_user_text_cannot_open_a_tag(catalog: Catalog) -> None:
    priced = price_build(_hostile_build(catalog), catalog)
    bb = share_text(priced, "bbcode", "en")
    assert "[b]x[/b]" not in bb and "[b]ACME" not in bb
    assert "［b］x［/b］" in bb and "Quote | ［b］ACME［/b］ *" in bb
    tags = re.findall(r"\[/?([a-z]+)\]", bb)
    assert set(tags) <= {"b", "i", "table", "tr", "td"}
    assert bb.count("[tr]") == bb.count("[/tr]") == len(priced.lines) + 1


def test_plain_text_columns_line_up_by_display_width(catalog: Catalog) -> None:
    priced = price_build(_hostile_build(catalog), catalog)
    for lang in ("en", "zh"):
        lines = share_text(priced, "text", lang).splitlines()
        table = lines[2:3 + len(priced.lines) + 1]

        def width(s: str) -> int:
            return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)

        # The line-total column ends at the same display column on every row.
        ends = {width(row[:row.rindex(fmt_money(line.total)) + len(fmt_money(line.total))])
                for row, line in zip(table[2:], priced.lines, strict=True) if line.total}
        assert len(ends) == 1, lang


def test_csv_neutralises_formulas_and_keeps_every_line(catalog: Catalog) -> None:
    priced = price_build(_hostile_build(catalog), catalog)
    rows = list(csv.reader(io.StringIO(share_text(priced, "csv", "en"))))
    parts = [row[1] for row in rows[1:1 + len(priced.lines)]]
    assert parts == [("'" + line.label if line.label.startswith("=") else line.label)
                     for line in priced.lines]
    assert "'" + FORMULA in parts and HOSTILE in parts and "张三的\n机箱" in parts
    assert all(not cell.startswith(("=", "+", "@")) for row in rows for cell in row)


def test_headers_are_in_the_chosen_language(catalog: Catalog) -> None:
    priced = price_build(build_from_tier("professional", catalog), catalog)
    en, zh = share_text(priced, "md", "en"), share_text(priced, "md", "zh")
    assert "Unit price" in en and "Total" in en and "单价" not in en
    assert "单价" in zh and "总计" in zh
    for word in ("Unit price", "Line total", "Category", "Subtotal", "Total"):
        assert word not in zh


def test_unknown_format_is_a_clear_error(catalog: Catalog) -> None:
    priced = price_build(build_from_tier("entry", catalog), catalog)
    with pytest.raises(InputError, match="md, bbcode, text, csv"):
        share_text(priced, "docx", "en")


# --- torchrig export ---------------------------------------------------------------------------


def _args(build: Path, out: str, **kw: object) -> argparse.Namespace:
    values: dict[str, object] = {"build": str(build), "output": out, "workload": None,
                                 "bench": None, "lang": "en", "tier": None, "invariant": True,
                                 "internal": False, "format": None}
    values.update(kw)
    return argparse.Namespace(**values)


# A small build whose every figure is worked out by hand below: 2 fans x CNY 10.50 = 21.00,
# one case 1,399.00; subtotal 21.00 + 1,399.00 = 1,420.00; tax 13 % x 1,420.00 = 184.60;
# total 1,420.00 + 184.60 = 1,604.60. No catalog part, so no price date or exchange rate.
SMALL_BUILD = {
    "format": "torchrig.build", "version": 1, "name": "Small box", "currency": "CNY",
    "tax_rate": "0.13", "nodes": 1,
    "line_items": [
        {"text": "Fan 120 mm", "category": "cooling", "quantity": 2, "unit_price": "10.50",
         "currency": "CNY"},
        {"text": "Case", "category": "case", "quantity": 1, "unit_price": "1399.00",
         "currency": "CNY"},
    ],
}

# The expected files, written out by hand: the column names and labels are the PDF's
# (resources' report strings, "bom.*" and "totals.*"), amounts as computed above. Markdown
# totals end in two spaces (a line break), except the last line of the file.
SMALL_MD_EN = """**Small box**

| Category | Part | Qty | Unit price (CNY) | Line total (CNY) | Note |
| --- | --- | ---: | ---: | ---: | --- |
| Cooling | Fan 120 mm | 2 | 10.50 | 21.00 |  |
| Case | Case | 1 | 1,399.00 | 1,399.00 |  |

""" + "Subtotal: CNY 1,420.00  \nTax (13%): CNY 184.60  \n**Total: CNY 1,604.60**\n"
SMALL_ZH = {
    "md": """**Small box**

| 类别 | 部件 | 数量 | 单价 (CNY) | 小计 (CNY) | 说明 |
| --- | --- | ---: | ---: | ---: | --- |
| 散热 | Fan 120 mm | 2 | 10.50 | 21.00 |  |
| 机箱 | Case | 1 | 1,399.00 | 1,399.00 |  |

""" + "小计：CNY 1,420.00  \n税费（13%）：CNY 184.60  \n**总计：CNY 1,604.60**\n",
    "bbcode": "[b]Small box[/b]\n[table]\n"
              "[tr][td][b]类别[/b][/td][td][b]部件[/b][/td][td][b]数量[/b][/td]"
              "[td][b]单价 (CNY)[/b][/td][td][b]小计 (CNY)[/b][/td][td][b]说明[/b][/td][/tr]\n"
              "[tr][td]散热[/td][td]Fan 120 mm[/td][td]2[/td][td]10.50[/td][td]21.00[/td]"
              "[td][/td][/tr]\n"
              "[tr][td]机箱[/td][td]Case[/td][td]1[/td][td]1,399.00[/td][td]1,399.00[/td]"
              "[td][/td][/tr]\n"
              "[/table]\n小计：CNY 1,420.00\n税费（13%）：CNY 184.60\n[b]总计：CNY 1,604.60[/b]\n",
    # Display widths: a Chinese character takes two columns, so "类别" is 4 wide, "数量" 4,
    # "单价 (CNY)" 10; the totals' labels pad to "税费（13%）" = 2+2+2+3+2 = 11 columns.
    "text": """Small box

类别  部件        数量  单价 (CNY)  小计 (CNY)  说明
----  ----------  ----  ----------  ----------  ----
散热  Fan 120 mm     2       10.50       21.00
机箱  Case           1    1,399.00    1,399.00

小计         CNY 1,420.00
税费（13%）    CNY 184.60
总计         CNY 1,604.60
""",
    # CSV: plain decimals (no thousands separator) so a spreadsheet reads numbers; CRLF rows.
    "csv": "类别,部件,数量,单价 (CNY),小计 (CNY),说明\r\n"
           "散热,Fan 120 mm,2,10.50,21.00,\r\n"
           "机箱,Case,1,1399.00,1399.00,\r\n"
           "\r\n"
           "小计,,,,1420.00,CNY\r\n"
           "税费（13%）,,,,184.60,CNY\r\n"
           "总计,,,,1604.60,CNY\r\n",
}


def _small_build(tmp_path: Path) -> Path:
    path = tmp_path / "in" / "small.json"
    path.parent.mkdir()
    path.write_text(json.dumps(SMALL_BUILD), encoding="utf-8")
    return path


@pytest.mark.parametrize(("suffix", "fmt"), [(".md", "md"), (".bbcode", "bbcode"),
                                             (".txt", "text"), (".csv", "csv")])
def test_export_picks_the_format_from_the_suffix(tmp_path: Path, suffix: str,
                                                 fmt: str) -> None:
    build = _small_build(tmp_path)
    out = tmp_path / f"quote{suffix}"
    assert run_export_cli(_args(build, str(out), lang="zh")) == 0
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == (fmt == "csv")  # Excel needs the BOM
    # newline="" semantics: compare the bytes as written, CRLF rows included.
    assert raw.decode("utf-8-sig") == SMALL_ZH[fmt]


def test_export_text_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_export_cli(_args(_small_build(tmp_path), "-", format="md")) == 0
    assert capsys.readouterr().out == SMALL_MD_EN


@pytest.mark.parametrize(("out", "kw", "message"), [
    ("quote.docx", {}, "cannot tell the format"),
    ("quote.md", {"workload": "w.json"}, "--workload only apply to the PDF"),
    ("quote.csv", {"internal": True}, "--internal only apply to the PDF"),
    ("-", {"format": "pdf"}, "cannot go to standard output"),
])
def test_export_text_refuses_bad_requests(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          out: str, kw: dict[str, object], message: str) -> None:
    target = out if out == "-" else str(tmp_path / out)
    assert run_export_cli(_args(ROOT / "builds" / "entry.json", target, **kw)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())
