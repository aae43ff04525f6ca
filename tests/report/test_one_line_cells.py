"""A parts-list cell of one line is a plain string the table draws (issue 27: Paragraph cells
were most of a 500-line quote's rendering). The independent method is the Paragraph itself:
the same cells drawn both ways must put the same text at the same place; and the choice of a
string is checked by hand-computed widths (Helvetica's advance widths from its AFM: "0" and
"1" 556, "." 278 per 1000 em)."""

from __future__ import annotations

import io

import pypdf
import pytest
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

from torchrig.report.pdf_layout import CELL_PAD_X, one_line_text, text_column_style

CELL = ParagraphStyle("cell", fontName="Helvetica", fontSize=8, leading=10)
RIGHT = ParagraphStyle("right", parent=CELL, alignment=TA_RIGHT, textColor="#555555")


def test_a_string_only_where_one_plain_line_fits():
    # "100.00" in Helvetica 8: five digits and a point, (5 x 556 + 278) / 1000 x 8 = 24.464 pt
    inside = 24.464 + 2 * CELL_PAD_X
    assert one_line_text("100.00", CELL, inside + 0.02, None) == "100.00"
    assert one_line_text("100.00", CELL, inside - 0.02, None) is None  # would wrap
    assert one_line_text("a  b", CELL, 100, None) is None  # Paragraph joins the spaces
    assert one_line_text("a\nb", CELL, 100, None) is None  # a line break
    assert one_line_text("a\x07b", CELL, 100, None) is None  # Paragraph drops the control
    assert one_line_text("", CELL, 100, None) is None
    # Beyond Latin-1 in an English sheet: the markup switches to the wide font.
    assert one_line_text("GPU ≤ 450 mm", CELL, 200, "SomeCJKFont") is None
    assert one_line_text("GPU ≤ 450 mm", CELL, 200, None) == "GPU ≤ 450 mm"  # zh: one font


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
def test_string_cells_draw_where_the_paragraphs_did(valign):
    texts = [["Motherboard", "1,599.00"], ["GPU", "35.90"]]
    widths = [80.0, 60.0]
    base = [("VALIGN", (0, 0), (-1, -1), valign),
            ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
            ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD_X),
            ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3)]
    tall = Paragraph("a<br/>second line", CELL)  # rows taller than one line: valign matters
    paragraphs = Table([[Paragraph(a, CELL), Paragraph(b, RIGHT), tall] for a, b in texts],
                       colWidths=[*widths, 60], style=TableStyle(base))
    strings = [[one_line_text(a, CELL, widths[0], None), one_line_text(b, RIGHT, widths[1], None),
                tall] for a, b in texts]
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
