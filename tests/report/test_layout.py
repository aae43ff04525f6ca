"""Page layout of the quote: what belongs together stays on one page.

Each test renders the sheet with the BOM grown line by line, so the section under test starts
at many different heights on the page - a layout rule that holds only by luck of position
fails for one of them.
"""

from __future__ import annotations

import io

import pypdf
import pytest

from torchrig.builds.targets import Status
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import SECTIONS, BenchRow, ComparisonRow, Sheet

from .conftest import bom_rows, full_sheet

BOM_SIZES = range(0, 34, 3)


def pages(sheet: Sheet) -> list[str]:
    pdf = render_sheet_bytes(sheet)
    return [p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages]


def _page_of(texts: list[str], needle: str) -> int:
    found = [i for i, text in enumerate(texts) if needle in text]
    assert found, needle
    return found[0]


def _bench_rows(n: int) -> tuple[BenchRow, ...]:
    """Rows as tall as real ones: a name and several lines saying how it was counted."""
    note = "\n".join(f"how it was counted, line {k}" for k in range(5))
    return tuple(BenchRow(f"Benchmark {i:02d}", 1e9 * (i + 1), "B/s",
                          note=f"{note}\nlast note of {i:02d}") for i in range(n))


@pytest.mark.parametrize("bom", BOM_SIZES)
def test_a_benchmark_row_is_never_cut_across_pages(bom: int) -> None:
    texts = pages(full_sheet(bom=bom_rows(bom), bench=_bench_rows(14)))
    for i in range(14):
        assert (_page_of(texts, f"Benchmark {i:02d}")
                == _page_of(texts, f"last note of {i:02d}")), (bom, i)


@pytest.mark.parametrize("bom", BOM_SIZES)
def test_no_heading_or_sentence_is_stranded(bom: int) -> None:
    texts = pages(full_sheet(bom=bom_rows(bom)))
    findings = full_sheet().findings
    # The Findings heading shares its page with the first finding...
    heading = next(i for i, text in enumerate(texts) if "\nFindings\n" in f"\n{text}\n")
    assert heading == _page_of(texts, findings[0].title.en), bom
    # ...the last page holds a finding, not one stranded sentence...
    assert findings[-1].title.en in texts[-1]
    # ...and the attachment note sits with the totals it follows.
    assert _page_of(texts, "attached to this PDF") == _page_of(texts, "Total")


def test_every_section_is_still_printed() -> None:
    text = "\n".join(pages(full_sheet()))
    for marker in ("Bill of materials", "Comparison with the target tier", "Workload "
                   "requirements", "Benchmark results", "Seed claims", "Multi-GPU scaling",
                   "Findings", "attached to this PDF"):
        assert marker in text, marker
    assert "attachment" in SECTIONS


@pytest.mark.parametrize("bom", BOM_SIZES)
def test_a_short_comparison_table_is_never_split(bom: int) -> None:
    # Seven rows with two-line cells, as the real tier comparison has.
    comparison = tuple(ComparisonRow(f"Dimension {i}", f"target {i}", f"value {i}",
                                     Status.MEETS) for i in range(7))
    texts = pages(full_sheet(bom=bom_rows(bom), comparison=comparison))
    page = texts[_page_of(texts, "Comparison with the target tier")]
    table = page[page.index("Comparison with the target tier"):]
    for row in comparison:
        assert row.dimension in table and row.target in table, (bom, row.dimension)
