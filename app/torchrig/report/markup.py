"""The one door through which user text enters a reportlab Paragraph.

reportlab's Paragraph text is XML-like markup: a raw ``&`` or ``<`` in a customer name either
crashes the parser or injects tags (``<font name=x>`` would even select a font that does not
exist). So every user-supplied string - names, notes, sources, anything read from a file - goes
through :func:`user_markup`, and fixed strings that we write ourselves go through
:func:`escape_text` too (a "<" in "< 8 cores" is just as dangerous).
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""C0/C1 control characters: no font has glyphs for them and some confuse the parser."""

_SURROGATE = re.compile(r"[\ud800-\udfff]")
"""Lone surrogates (possible in Python text decoded with 'surrogateescape') cannot be encoded
into the PDF at all; they become U+FFFD."""


def clean_text(text: str) -> str:
    """Normalise line ends and drop what cannot be drawn, keeping every visible character."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    text = _SURROGATE.sub("\ufffd", text)
    return _CONTROL.sub("", text)


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities: ``xml.sax.saxutils.escape``'s rule, without its
    import, which brings urllib, http and email along (about 30 ms of CPU of every export
    process, issue 27)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def escape_text(text: str) -> str:
    """Plain text -> Paragraph markup that shows exactly that text (newlines become breaks)."""
    return escape(clean_text(text)).replace("\n", "<br/>")


def needs_wide_font(text: str) -> bool:
    """True when ``text`` has a character outside Latin-1, which the standard PDF fonts
    (Helvetica, WinAnsi encoding) cannot show: Chinese names, Cyrillic, emoji..."""
    return any(ord(ch) > 0xFF for ch in text)


def user_markup(text: str, wide_font: str | None) -> str:
    """Escaped markup for a user string; switches to ``wide_font`` when Latin-1 is not enough.

    ``wide_font`` is None when the whole paragraph already uses a wide font (a Chinese sheet),
    so no switch is needed.
    """
    body = escape_text(text)
    if wide_font is not None and needs_wide_font(text):
        return f'<font name="{wide_font}">{body}</font>'
    return body
