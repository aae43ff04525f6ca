"""Plain-text cells skip reportlab's markup parser (issue 27): the fragments, the lines and
the rows' heights must be what reportlab's own parser and table measuring give."""

from __future__ import annotations

import pytest
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, Table, TableStyle
from reportlab.platypus.paragraph import cleanBlockQuotedText
from reportlab.platypus.paraparser import ParaParser

from torchrig.report.pdf_layout import CachedParagraph, plain_frags, table_layout

STYLES = [
    ParagraphStyle("latin", fontName="Helvetica", fontSize=8, leading=10),
    ParagraphStyle("cjk", fontName="Helvetica-Bold", fontSize=6.8, leading=8.4,
                   wordWrap="CJK", splitLongWords=1, alignment=2),
]
PLAIN = ["RTX 4090 24 GB", "  two  spaces\n and a line end ", "1,234.00", "x\xa0y",
         "a-very-long-unbroken-word-" * 6, "中文 测试 ≤ 1"]


@pytest.mark.parametrize("style", STYLES, ids=lambda s: s.name)
@pytest.mark.parametrize("text", PLAIN)
def test_fragments_are_the_parsers(style: ParagraphStyle, text: str) -> None:
    frags = plain_frags(text, style)
    parsed_style, parsed, _ = ParaParser().parse(cleanBlockQuotedText(text), style)
    assert parsed_style is style
    assert frags is not None
    assert [f.__dict__ for f in frags] == [f.__dict__ for f in parsed]
    # each fragment has lists of its own (the template's are not shared)
    assert frags[0].link is not plain_frags(text, style)[0].link  # type: ignore[index]


@pytest.mark.parametrize("text", ["a &amp; b", "<b>bold</b>", "x < y", "   ", ""])
def test_markup_and_blank_text_are_parsed(text: str) -> None:
    assert plain_frags(text, STYLES[0]) is None


@pytest.mark.parametrize("style", STYLES, ids=lambda s: s.name)
@pytest.mark.parametrize("text", PLAIN)
def test_lines_match_a_parsed_paragraph(style: ParagraphStyle, text: str) -> None:
    ours, theirs = CachedParagraph(text, style), Paragraph(text, style)
    assert ours.wrap(60, 1000) == theirs.wrap(60, 1000)
    assert ours.text == theirs.text
    assert [line.__dict__ if hasattr(line, "__dict__") else line
            for line in ours.blPara.lines] == [
        line.__dict__ if hasattr(line, "__dict__") else line for line in theirs.blPara.lines]


def test_split_paragraph_keeps_working() -> None:
    # reportlab splits a paragraph by building new ones from fragments, with bulletText
    para = CachedParagraph("word " * 200, STYLES[0])
    para.wrap(100, 1000)
    parts = para.split(100, 50)
    assert len(parts) == 2
    assert all(isinstance(p, CachedParagraph) for p in parts)


def test_table_layout_heights_are_the_tables() -> None:
    rows = [[Paragraph(t, STYLES[0]) for t in ("a", "b " * 30)],
            [Paragraph(t, STYLES[0]) for t in ("c " * 50, "d")]]
    style = TableStyle([("TOPPADDING", (0, 0), (-1, -1), 3)])
    split, heights = table_layout(rows, [100, 100], style)
    fresh = Table([[Paragraph(c.text, STYLES[0]) for c in row] for row in rows],
                  colWidths=[100, 100], style=style)
    fresh.wrap(500, 800)
    assert split == 0
    assert heights == list(fresh._rowHeights)


def test_table_layout_leaves_a_tall_row_to_the_table() -> None:
    rows = [[Paragraph("word " * 3000, STYLES[0])]]
    assert table_layout(rows, [100]) == (1, None)
