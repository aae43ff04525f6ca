"""The CJK font is read and registered once per process (issue 27): a second export reuses the
registered name without reading the file again; a changed file is read again. The file is
mapped, not read whole, and the sheet looks up only the characters it draws."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torchrig.errors import InputError
from torchrig.report import fonts


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    reads: list[Path] = []
    original = fonts._read_font
    monkeypatch.setattr(fonts, "_read_font", lambda path: reads.append(path) or original(path))
    return reads


def test_the_same_font_file_is_read_once(monkeypatch):
    path = fonts.find_cjk_font()
    if path is None:
        pytest.skip("no TrueType CJK font installed")
    first = fonts.register_ttf(path)
    reads = _count_reads(monkeypatch)
    assert fonts.register_ttf(path) == first
    assert fonts.font_set("zh").body == first
    assert reads == []  # neither call read the megabytes again


def test_a_changed_file_is_read_again(tmp_path, monkeypatch):
    path = fonts.find_cjk_font()
    if path is None:
        pytest.skip("no TrueType CJK font installed")
    copy = tmp_path / "font.ttc"
    copy.write_bytes(path.read_bytes())
    name = fonts.register_ttf(copy)
    st = copy.stat()
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # touched: new key
    reads = _count_reads(monkeypatch)
    # The name follows the file's path, size and time, not its bytes: a touched file is a
    # new font to reportlab, read again.
    assert fonts.register_ttf(copy) != name
    assert reads == [copy]


def test_the_font_file_is_mapped_not_read(tmp_path):
    path = fonts.find_cjk_font()
    if path is None:
        pytest.skip("no TrueType CJK font installed")
    data = fonts._read_font(path)
    assert not isinstance(data, bytes)  # an mmap: pages the sheet never touches stay unread
    assert data[:4] == path.read_bytes()[:4]


def test_an_empty_font_file_is_refused_in_one_line(tmp_path):
    empty = tmp_path / "empty.ttf"
    empty.write_bytes(b"")  # cannot be mapped: read, then refused as a font
    with pytest.raises(InputError, match="empty.ttf: .*font"):
        fonts.register_ttf(empty)
    with pytest.raises(InputError, match="font file not found"):
        fonts.register_ttf(tmp_path / "missing.ttf")


def test_a_sheet_builds_none_of_the_fonts_tables():
    """Drawing a Chinese sheet looks characters up one by one: the 35,000-entry character
    map and width table and the 50,000-entry metric and location tables are never built
    whole (building them was 30 ms of every export)."""
    path = fonts.find_cjk_font()
    if path is None:
        pytest.skip("no TrueType CJK font installed")
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfgen.canvas import Canvas

    name = fonts.register_ttf(path)
    face = pdfmetrics.getFont(name).face
    canvas = Canvas(None)
    canvas.setFont(name, 10)
    canvas.drawString(10, 10, "整机报价单 GPU ≤ 450 mm")
    canvas.getpdfdata()  # embeds the subset: outlines, metrics and locations of those glyphs
    assert face.charToGlyph._all is None
    assert face.charWidths._all is None
    assert face.charWidths.get(ord("整")) == 1000.0  # a full-width CJK glyph: 1 em
