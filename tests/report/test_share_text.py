"""The priced build as Markdown, BBCode, plain text and CSV: the PDF's amounts, each format's
escaping, both languages, and the ``export`` command that writes them."""

from __future__ import annotations

import argparse
import csv
import io
import re
import unicodedata
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem, build_from_tier, load_build
from torchrig.builds.pricing import DefaultRate, PricedBuild, price_build
from torchrig.catalog import load_catalog
from torchrig.catalog.exchange_rates import reference_rate
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


def _priced_as_the_cli(build: Path, catalog: Catalog) -> PricedBuild:
    """The build priced as export prices a CNY build without a rate of its own: with the
    shipped reference rate (resources/catalog/exchange_rates.json)."""
    reference = reference_rate(catalog.root)
    assert reference is not None
    return price_build(load_build(build, catalog), catalog,
                       default_rate=DefaultRate.from_reference(reference))


@pytest.mark.parametrize(("suffix", "fmt"), [(".md", "md"), (".bbcode", "bbcode"),
                                             (".txt", "text"), (".csv", "csv")])
def test_export_picks_the_format_from_the_suffix(catalog: Catalog, tmp_path: Path, suffix: str,
                                                 fmt: str) -> None:
    build = ROOT / "builds" / "professional.json"
    out = tmp_path / f"quote{suffix}"
    assert run_export_cli(_args(build, str(out), lang="zh")) == 0
    expected = share_text(_priced_as_the_cli(build, catalog), fmt, "zh")
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == (fmt == "csv")  # Excel needs the BOM
    assert raw.decode("utf-8-sig") == expected


def test_export_text_to_stdout(catalog: Catalog, capsys: pytest.CaptureFixture[str]) -> None:
    build = ROOT / "builds" / "entry.json"
    assert run_export_cli(_args(build, "-", format="md")) == 0
    assert capsys.readouterr().out == share_text(_priced_as_the_cli(build, catalog), "md", "en")


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
