"""The Type 0 font's widths after ``/W`` lists only the codes not of ``/DW`` (issue 27): every
character a Chinese quote draws must still have, as a PDF reader works it out from ``/W`` and
``/DW`` (PDF 1.7 sec. 9.7.4.3), the width reportlab's own TrueType reader gives it."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pypdf
import pytest
from reportlab.pdfbase.ttfonts import TTFont

from torchrig.cli import main
from torchrig.report.cid_font import width_runs
from torchrig.report.fonts import find_cjk_font

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "builds" / "pro-dual-4090.json"


def test_width_runs_by_hand() -> None:
    # codes 0..6, default 1000: 1 and 2 form a run, 5 one of its own; 0, 3, 4, 6 left out
    assert width_runs([1000, 500, 600, 1000, 1000, 250, 1000], 1000) == [
        (1, [500, 600]), (5, [250])]
    assert width_runs([1000, 1000], 1000) == []
    assert width_runs([], 1000) == []


def _widths(cid_font: pypdf.generic.DictionaryObject) -> tuple[float, dict[int, float]]:
    """(DW, code -> width) read as a PDF reader reads them, both forms of /W entry."""
    default = float(cid_font.get("/DW", 1000))
    listed: dict[int, float] = {}
    w = list(cid_font.get("/W", []))
    i = 0
    while i < len(w):
        first = int(w[i])
        if isinstance(w[i + 1], list):
            for k, width in enumerate(w[i + 1]):
                listed[first + k] = float(width)
            i += 2
        else:
            for code in range(first, int(w[i + 1]) + 1):
                listed[code] = float(w[i + 2])
            i += 3
    return default, listed


@pytest.mark.skipif(find_cjk_font() is None, reason="no CJK font installed")
def test_every_drawn_character_has_reportlabs_width(tmp_path: Path) -> None:
    build = json.loads(SAMPLE.read_text(encoding="utf-8"))
    lines = build["line_items"]
    build["line_items"] = [lines[i % len(lines)] for i in range(10)]
    path = tmp_path / "ten.json"
    path.write_text(json.dumps(build, ensure_ascii=False), encoding="utf-8")
    pdf = tmp_path / "quote.pdf"
    assert main(["export", str(path), "-o", str(pdf), "--lang", "zh", "--invariant"]) == 0
    reader = pypdf.PdfReader(io.BytesIO(pdf.read_bytes()))
    fonts = [ref.get_object() for page in reader.pages
             for ref in page["/Resources"]["/Font"].values()]
    type0 = [f for f in fonts if f["/Subtype"] == "/Type0"][0]
    cid_font = type0["/DescendantFonts"][0].get_object()
    default, listed = _widths(cid_font)
    cmap = type0["/ToUnicode"].get_object().get_data().decode("ascii")
    codes = {int(code, 16): bytes.fromhex(char).decode("utf-16-be")
             for code, char in re.findall(r"<([0-9A-F]{4})> <([0-9A-F]+)>", cmap)}
    font_path = find_cjk_font()
    assert font_path is not None
    reference = TTFont("reference-cjk", str(font_path))  # reportlab's own reader
    assert len(codes) > 300  # the quote draws a few hundred characters
    assert len(listed) < len(codes)  # most are of the default width and left out
    for code, char in codes.items():
        expected = reference.face.getCharWidth(ord(char))
        assert listed.get(code, default) == pytest.approx(expected, abs=1e-3), char
