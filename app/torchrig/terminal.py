"""Text for a terminal: every CLI printer writes through here.

Names in files are the user's (or an attacker's) text. Printed raw, ``\\x1b]0;…\\x07`` retitles
the terminal, ``\\x1b[2J`` clears it, and a ``\\r`` or U+2028 in a file name splits a one-line
error so a script reading the first line gets half of it. Control characters are shown as
visible escapes instead (``\\x1b``, ``\\r``, ``\\u2028``); ordinary text, Chinese included, is
unchanged.
"""

from __future__ import annotations

import re
import sys
from typing import IO

# C0 controls (tab and newline handled per mode), DEL, C1 controls (0x9b is a one-byte CSI
# to some terminals), the Unicode line/paragraph separators, and the bidirectional
# overrides/isolates that can make a name read as something else ("Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LINE_BREAK = re.compile("[\t\n]")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    named = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
    if char in named:
        return named[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def safe_text(text: str, *, one_line: bool = False) -> str:
    """``text`` with control characters as visible escapes; ``one_line`` also escapes
    newlines and tabs (an error message must stay one line)."""
    text = _CONTROL.sub(_escape, text)
    return _LINE_BREAK.sub(_escape, text) if one_line else text


def write_lines(text: str, stream: IO[str] | None = None) -> None:
    """Print (multi-line) output; ``stream`` defaults to stdout. None, as sys.stdout is in a
    Windows GUI launch, prints nothing instead of crashing."""
    stream = sys.stdout if stream is None else stream
    if stream is not None:
        safe = safe_text(text)
        stream.write(safe if safe.endswith("\n") else safe + "\n")
        stream.flush()


def write_error(line: str, stream: IO[str] | None = None) -> None:
    """Print one error line on stderr (or ``stream``)."""
    stream = sys.stderr if stream is None else stream
    if stream is not None:
        stream.write(safe_text(line, one_line=True) + "\n")
        stream.flush()


def write_json(text: str, stream: IO[str] | None = None) -> None:
    """Print JSON text with control characters as JSON ``\\u`` escapes: still the same JSON
    to a program reading it, and nothing a terminal acts on."""
    stream = sys.stdout if stream is None else stream
    if stream is not None:
        safe = _CONTROL.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
        stream.write(safe if safe.endswith("\n") else safe + "\n")
        stream.flush()
