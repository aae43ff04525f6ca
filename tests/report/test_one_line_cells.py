"""A parts-list cell of plain lines is a string the table draws (issue 27: Paragraph cells
were most of a 500-line quote's rendering). The independent method is the Paragraph itself:
the same cells drawn both ways must put the same text at the same place, and its own line
breaking (``Paragraph.breakLines``) must break every catalog name and specification where the
string does; the choice of a string and its breaks are checked by hand-computed widths
(Helvetica's advance widths from its AFM: "0" and "1" 556, "." 278, space 278 per 1000 em)."""

from __future__ import annotations

import io

import pypdf
import pytest
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

from torchrig.report.pdf_layout import (
    CELL_PAD_X,
    keep_last_word,
    string_cell_text,
    text_column_style,
)

CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=8, leading=10)
RIGHT = ParagraphStyle("right", parent=CELL, alignment=TA_RIGHT, textColor="#555555")
CJK_WRAP = ParagraphStyle("cjk", parent=CELL, wordWrap="CJK")


def test_a_string_only_where_plain_lines_fit():
    # "100.00" in Helvetica 8: five digits and a point, (5 x 556 + 278) / 1000 x 8 = 24.464 pt
    inside = 24.464 + 2 * CELL_PAD_X
    assert string_cell_text("100.00", CELL, inside + 0.02, None) == "100.00"
    assert string_cell_text("100.00", CELL, inside - 0.02, None) is None  # Paragraph splits it
    assert string_cell_text("a  b", CELL, 100, None) is None  # Paragraph joins the spaces
    assert string_cell_text("a\nb", CELL, 100, None) is None  # a line break
    assert string_cell_text("a\x07b", CELL, 100, None) is None  # Paragraph drops the control
    assert string_cell_text("co\xadoler", CELL, 100, None) is None  # a soft hyphen
    assert string_cell_text("", CELL, 100, None) is None
    # Beyond Latin-1 in an English sheet: the markup switches to the wide font.
    assert string_cell_text("GPU ≤ 450 mm", CELL, 200, "SomeCJKFont") is None
    assert string_cell_text("GPU ≤ 450 mm", CELL, 200, None) == "GPU ≤ 450 mm"  # zh: one font
    # ... and under Chinese line breaking only as one line that fits: more lines are the
    # Paragraph's to break ("GPU 450 mm" alone is 8 x (778+667+722 + 278 + 3x556 + 278 +
    # 2x833) / 1000 = 48.456 pt, so twice that with the "≤"s cannot fit 52 pt inside)
    assert string_cell_text("GPU ≤ 450 mm", CJK_WRAP, 200, None) == "GPU ≤ 450 mm"
    assert string_cell_text("GPU ≤ 450 mm GPU ≤ 450 mm", CJK_WRAP, 60, None) is None
    assert string_cell_text("GPU 450 mm", CJK_WRAP, 200, None) == "GPU 450 mm"


def test_lines_break_where_the_words_and_spaces_pass_the_inside():
    # "100.00 100.00": 24.464 + 2.224 (a space, 278 / 1000 x 8) + 24.464 = 51.152 pt; a line
    # may pass the inside by 5 % of its spaces (reportlab's spaceShrinkage): 0.05 x 2.224 =
    # 0.1112 pt with one space, so two words fit from 51.152 - 0.1112 = 51.0408 pt inside
    two = "100.00 100.00"
    assert string_cell_text(two, CELL, 51.1 + 2 * CELL_PAD_X, None) == two
    assert string_cell_text(two, CELL, 51.0 + 2 * CELL_PAD_X, None) == "100.00\n100.00"
    # three words at 52 pt: two fit on the first line, the third would make 77.84 > 52.22
    assert (string_cell_text("100.00 100.00 100.00", CELL, 52 + 2 * CELL_PAD_X, None)
            == "100.00 100.00\n100.00")
    # within 0.01 pt of the edge the Paragraph decides
    assert string_cell_text(two, CELL, 51.045 + 2 * CELL_PAD_X, None) is None


def _positions(table: Table) -> list[tuple[str, float, float]]:
    buf = io.BytesIO()
    SimpleDocTemplate(buf).build([table])
    found: list[tuple[str, float, float]] = []

    def visit(text, cm, tm, _font, _size):
        if text.strip():
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            found.append((text.strip(), round(x, 2), round(y, 2)))

    pypdf.PdfReader(buf).pages[0].extract_text(visitor_text=visit)
    return sorted(found)


@pytest.mark.parametrize("valign", ["TOP", "BOTTOM"])
@pytest.mark.parametrize("texts", [
    [["Motherboard", "1,599.00"], ["GPU", "35.90"]],
    # lines broken in a 80 pt column: two and three lines, beside a two-line Paragraph
    [["Corsair Vengeance 64GB (2x32GB) DDR5-5600", "1,599.00"],
     ["Western Digital WD Black 4TB 7200 rpm HDD (WD4001FAEX)", "35.90"]],
])
def test_string_cells_draw_where_the_paragraphs_did(valign, texts):
    widths = [80.0, 60.0]
    base = [("VALIGN", (0, 0), (-1, -1), valign),
            ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
            ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
            ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3)]
    tall = Paragraph("a<br/>second line", CELL)  # rows taller than one line: valign matters
    paragraphs = Table([[Paragraph(a, CELL), Paragraph(b, RIGHT), tall] for a, b in texts],
                       colWidths=[*widths, 60], style=TableStyle(base))
    strings = [[string_cell_text(a, CELL, widths[0], None),
                string_cell_text(b, RIGHT, widths[1], None), tall] for a, b in texts]
    assert all(isinstance(row[0], str) and isinstance(row[1], str) for row in strings)
    styled = Table(strings, colWidths=[*widths, 60], style=TableStyle(
        base + text_column_style([CELL, RIGHT], 0)))
    assert _positions(styled) == _positions(paragraphs)


def test_neighbouring_columns_that_agree_share_a_command():
    small = ParagraphStyle("small", parent=CELL, fontSize=6.8, leading=8.4)
    commands = text_column_style([CELL, CELL, small, RIGHT, RIGHT], 1)
    assert ("FONTNAME", (0, 1), (4, -1), "Helvetica") in commands
    assert [c[1:] for c in commands if c[0] == "FONTSIZE"] == [
        ((0, 1), (1, -1), 8), ((2, 1), (2, -1), 6.8), ((3, 1), (4, -1), 8)]
    assert [c[1:] for c in commands if c[0] == "ALIGN"] == [((3, 1), (4, -1), "RIGHT")]
    # one font; size and leading 8 | 6.8 | 8; colour black (CELL and small) | grey (RIGHT)
    assert len(commands) == 1 + 3 + 3 + 2 + 1


def _catalog_texts() -> list[str]:
    """Every name and key specification the catalog gives a parts list, in both languages."""
    from torchrig.catalog.loader import load_catalog

    texts = set()
    for part in load_catalog().parts.values():
        texts.add(part.name)
        texts.add(keep_last_word(part.name))  # as the parts list shows it
        for lang in ("en", "zh"):
            texts.add(part.key_spec(lang))
    return sorted(t for t in texts if t)


@pytest.mark.parametrize("font", ["Helvetica", "cjk"])
def test_every_catalog_text_breaks_where_reportlabs_paragraph_breaks_it(font):
    """The parts list's columns (38 mm, pdf.py _bom) in its two cell styles, in Helvetica and
    in the embedded Chinese font with Chinese line breaking; the reference for a string is a
    Paragraph with the same font and size and reportlab's ordinary (space) line breaking."""
    from reportlab.lib.units import mm

    from torchrig.report.fonts import font_set

    name = font_set("zh").body if font == "cjk" else "Helvetica"
    width = 38 * mm
    strings = 0
    for size, leading in ((8, 10), (6.8, 8.4)):
        style = ParagraphStyle("s", fontName=name, fontSize=size, leading=leading,
                               wordWrap="CJK" if font == "cjk" else None)
        plain = ParagraphStyle("p", parent=style, wordWrap=None)
        for text in _catalog_texts():
            got = string_cell_text(text, style, width, None)
            if got is None:
                continue
            strings += 1
            lines = Paragraph(text, plain).breakLines(width - 2 * CELL_PAD_X).lines
            assert got.split("\n") == [" ".join(words) for _unused, words in lines], text
    # most of the catalog's texts are drawn as strings (the point of the change)
    assert strings > len(_catalog_texts())


@pytest.mark.parametrize(("name", "shown"), [
    ("NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 4090\u00a0D"),
    ("GeForce RTX 5090 D V2", "GeForce RTX 5090\u00a0D\u00a0V2"),
    ("Pro WS WRX90E-SAGE SE", "Pro WS WRX90E-SAGE\u00a0SE"),
    ("Intel Core i9-13900K", "Intel Core i9-13900K"),  # nothing short at the end
    ("RTX D", "RTX D"),  # a two-word name keeps its one space
    ("a  b", "a  b"),  # runs of spaces are left to the Paragraph
])
def test_a_short_last_word_is_bound_to_the_word_before(name, shown):
    assert keep_last_word(name) == shown


@pytest.mark.parametrize("font", ["Helvetica", "cjk"])
def test_a_wrapped_part_name_never_ends_on_a_lone_letter(font):
    """The parts list's name column (38 mm, 8 pt, pdf.py _bom): "NVIDIA GeForce RTX 4090 D"
    takes two lines, and "D" stays with "4090" - as string lines and as reportlab breaks the
    same text in a Paragraph."""
    from reportlab.lib.units import mm

    from torchrig.report.fonts import font_set

    name = font_set("zh").body if font == "cjk" else "Helvetica"
    style = ParagraphStyle("s", fontName=name, fontSize=8, leading=10)
    shown = keep_last_word("NVIDIA GeForce RTX 4090 D")
    lines = string_cell_text(shown, style, 38 * mm, None)
    assert lines is not None and lines.split("\n") == ["NVIDIA GeForce RTX",
                                                        "4090\u00a0D"]
    reference = Paragraph(shown, style).breakLines(38 * mm - 2 * CELL_PAD_X).lines
    assert [" ".join(words) for _unused, words in reference] == lines.split("\n")
    # and the plain name did leave it alone: the case this guards
    plain = string_cell_text("NVIDIA GeForce RTX 4090 D", style, 38 * mm, None)
    assert plain is not None and plain.split("\n")[-1] == "D"
