"""report.font_metrics reads a TrueType font's character map, advances and glyph locations in
bulk (issue 27); the second, independent method is reportlab's own reader, which must give
every attribute the same value.

The fonts cover each branch: the CJK font a sheet embeds (a .ttc; the cmap reportlab picks is
format 12; long glyph locations; fewer full metrics than glyphs), reportlab's Vera fonts (format
4 with glyph-id-array segments, short locations), its hb-test font (1000 units per em: no
scaling) and, for reportlab's own reader as the fallback, Vera with its Windows cmap record
hidden so that the Macintosh format-0 table is the one chosen.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import reportlab
from reportlab.pdfbase.ttfonts import TTFontFace

from torchrig.report.cid_font import EmbeddedTTFont
from torchrig.report.font_metrics import FastFace, _cmap_format12
from torchrig.report.fonts import find_cjk_font

REPORTLAB_FONTS = Path(reportlab.__file__).parent / "fonts"
ATTRIBUTES = ("charToGlyph", "glyphToChar", "charWidths", "defaultWidth", "hmetrics",
              "glyphPos", "name", "numGlyphs", "unitsPerEm", "ascent", "descent", "bbox",
              "flags", "stemV", "italicAngle", "capHeight")


def _same_as_reportlab(path: Path) -> None:
    theirs = TTFontFace(str(path))
    ours = FastFace(str(path))
    for attribute in ATTRIBUTES:
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute


def test_the_packaged_cjk_font_reads_as_reportlab_reads_it():
    path = find_cjk_font()
    if path is None:
        pytest.skip("no CJK font installed (the paperang-p2-fonts-cjk dependency is missing)")
    _same_as_reportlab(path)


@pytest.mark.parametrize("name", ["Vera.ttf", "VeraBd.ttf", "hb-test.ttf"])
def test_reportlabs_own_fonts_read_the_same(name):
    _same_as_reportlab(REPORTLAB_FONTS / name)


def test_a_cmap_format_it_does_not_read_goes_through_reportlabs_reader(tmp_path):
    data = bytearray((REPORTLAB_FONTS / "Vera.ttf").read_bytes())
    tables, = struct.unpack_from(">H", data, 4)
    cmap = next(struct.unpack_from(">L", data, 12 + 16 * i + 8)[0] for i in range(tables)
                if data[12 + 16 * i:16 + 16 * i] == b"cmap")
    count, = struct.unpack_from(">H", data, cmap + 2)
    records = [struct.unpack_from(">HHL", data, cmap + 4 + 8 * i) for i in range(count)]
    assert (3, 1) in [(p, e) for p, e, _ in records]  # Vera's Windows Unicode table ...
    for i, (platform, _encoding, _offset) in enumerate(records):
        if platform == 3:  # ... becomes platform 2 (ISO), which neither reader takes
            struct.pack_into(">H", data, cmap + 4 + 8 * i, 2)
    path = tmp_path / "vera-mac-cmap.ttf"
    path.write_bytes(bytes(data))
    ours = FastFace(str(path))
    assert max(ours.charToGlyph) < 256  # the format-0 (Macintosh Roman) table was used
    _same_as_reportlab(path)


def test_format_12_groups_map_consecutive_characters_to_consecutive_glyphs():
    # Two groups, by hand: U+4E00..U+4E02 -> glyphs 10, 11, 12 and U+1F600 -> glyph 7.
    table = struct.pack(">HHLLL", 12, 0, 16 + 24, 0, 2)
    table += struct.pack(">LLL", 0x4E00, 0x4E02, 10) + struct.pack(">LLL", 0x1F600, 0x1F600, 7)
    assert _cmap_format12(b"pad" + table, 3) == {0x4E00: 10, 0x4E01: 11, 0x4E02: 12,
                                                 0x1F600: 7}


def test_the_font_numbers_only_the_glyphs_drawn_in_the_order_drawn():
    font = EmbeddedTTFont("pdf27-test-vera", str(REPORTLAB_FONTS / "Vera.ttf"))
    doc = type("Doc", (), {})()
    # Two-byte codes: .notdef is 0, then each new glyph the next number; "B" again and the
    # no-break space (drawn with the space's glyph) reuse theirs; U+4E00 is not in Vera: 0.
    assert font.splitString("AB B\u00a0\u4e00", doc) == [
        (0, bytes([0, 1, 0, 2, 0, 3, 0, 2, 0, 3, 0, 0]))]
    glyphs = font.state[doc]
    assert glyphs.codes == [-1, ord("A"), ord("B"), ord(" ")]  # nothing else of the font


def test_bytes_already_read_are_not_read_from_the_file_again(monkeypatch):
    path = REPORTLAB_FONTS / "Vera.ttf"
    data = path.read_bytes()
    opened: list[object] = []
    import builtins

    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda *a, **k: opened.append(a[0]) or real_open(*a, **k))
    face = FastFace(str(path), data=data)
    monkeypatch.undo()
    assert opened == []
    assert face.filename == str(path)
    theirs = TTFontFace(str(path))
    for attribute in ATTRIBUTES:
        assert getattr(face, attribute) == getattr(theirs, attribute), attribute


@pytest.mark.parametrize("name", ["Vera.ttf", "cjk"])
def test_string_widths_are_reportlabs(name):
    """EmbeddedTTFont.stringWidth keeps the widths it has seen in a dict: the sums must be
    reportlab's own TTFont's, to the bit, for characters seen and unseen and ones the font
    lacks (the default width)."""
    from reportlab.pdfbase.ttfonts import TTFont

    path = find_cjk_font() if name == "cjk" else REPORTLAB_FONTS / name
    if path is None:
        pytest.skip("no CJK font installed (the paperang-p2-fonts-cjk dependency is missing)")
    ours = EmbeddedTTFont(f"pdf27-widths-{name}", str(path))
    theirs = TTFont(f"pdf27-widths-rl-{name}", str(path))
    for text in ("Qty 1,599.00", "整机报价单 GPU ≤ 450 mm", "Qty 整机 \U0001f600\u00a0", b"bytes"):
        assert ours.stringWidth(text, 8.5) == theirs.stringWidth(text, 8.5), text
