"""The CJK font is read and registered once per process (issue 27): a second export reuses the
registered name without reading the file again; a changed file is read again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from torchrig.report import fonts


def test_the_same_font_file_is_read_once(monkeypatch):
    path = fonts.find_cjk_font()
    if path is None:
        pytest.skip("no TrueType CJK font installed")
    first = fonts.register_ttf(path)
    reads: list[Path] = []
    original = Path.read_bytes

    def counting(self: Path) -> bytes:
        reads.append(self)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counting)
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
    reads: list[Path] = []
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self) or original(self))
    # same bytes -> the same content-derived name, but found by reading the file again
    assert fonts.register_ttf(copy) == name
    assert reads == [copy]
