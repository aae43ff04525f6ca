"""``torchrig export -o - --format text|md|bbcode|csv`` (issue 28): a build's name and line texts
reach a terminal with their control characters shown as escapes, as ``check`` and ``plan`` print
them (torchrig/terminal.py); ``-o FILE`` keeps the exact text, the user's document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.cli import main

HOSTILE_NAME = "\x1b[2J\x1b]0;pwned\x07"
"""Clear the screen, then retitle the terminal "pwned"."""
SHOWN_NAME = "\\x1b[2J\\x1b]0;pwned\\x07"
"""The same name with each control character written out (ESC = \\x1b, BEL = \\x07)."""
HOSTILE_LINE = "cable\x1b[31m red\rX"


def _build(tmp_path: Path) -> Path:
    path = tmp_path / "evil.json"
    path.write_text(json.dumps({
        "format": "torchrig.build", "version": 1, "name": HOSTILE_NAME,
        "line_items": [{"part_id": "nvidia-rtx-4090", "quantity": 1},
                       {"text": HOSTILE_LINE, "category": "other", "quantity": 2,
                        "unit_price": "10.00", "currency": "CNY"}]}), encoding="utf-8")
    return path


def _no_controls_but_line_ends(text: str) -> None:
    controls = {c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f}
    assert controls <= {"\r"}, sorted(controls)
    assert "\r" not in text.replace("\r\n", "")  # a CR only as the end of a CSV row


@pytest.mark.parametrize("fmt", ["text", "md", "bbcode", "csv"])
def test_stdout_shows_control_characters_as_escapes(tmp_path, capsys, fmt):
    code = main(["export", str(_build(tmp_path)), "-o", "-", "--format", fmt, "--lang", "en"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    _no_controls_but_line_ends(out)
    # BBCode writes "[" and "]" in a name as full-width brackets (report/markup.py) and
    # Markdown escapes them with a backslash; the escapes of the control characters stay.
    assert out.count("\\x1b") >= (1 if fmt == "csv" else 3)
    assert "cable\\x1b" in out  # a line's text too (its CR is made a space before this)
    if fmt == "text":
        assert out.splitlines()[0] == SHOWN_NAME
    if fmt != "csv":  # the CSV is the parts list only, without the build's name
        assert "pwned\\x07" in out


@pytest.mark.parametrize(("fmt", "suffix"), [("text", ".txt"), ("md", ".md"),
                                             ("bbcode", ".bbcode"), ("csv", ".csv")])
def test_a_file_keeps_the_exact_text(tmp_path, capsys, fmt, suffix):
    out = tmp_path / f"quote{suffix}"
    code = main(["export", str(_build(tmp_path)), "-o", str(out), "--lang", "en"])
    printed, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert printed.startswith(f"wrote {out} ({fmt}, ")
    written = out.read_bytes().decode("utf-8-sig" if fmt == "csv" else "utf-8")
    assert "\x1b" in written and "\\x1b" not in written
    if fmt == "text":
        assert written.splitlines()[0] == HOSTILE_NAME
    if fmt == "csv":
        assert "cable\x1b[31m red" in written  # the line's text, its ESC kept
