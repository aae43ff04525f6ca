"""Fonts for the build sheet: standard Helvetica for Latin text, a CJK font for the rest.

The default CJK font is reportlab's built-in CID font ``STSong-Light``: it needs no font file
and is not embedded (the viewer substitutes a local Song/Ming font), which keeps a sheet small
and works on every machine TorchRig runs on. A user who needs a fully portable file can give a
TrueType font (``.ttf``, or a ``.ttc`` whose first face is TrueType); it is then embedded
(subset) and used for all non-Latin text. CFF-flavoured OpenType fonts (most Noto CJK
``.otf``/``.ttc`` files) are refused by reportlab, and we say so instead of crashing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFError, TTFont

from torchrig.errors import InputError

CID_FONT = "STSong-Light"
LATIN = "Helvetica"
LATIN_BOLD = "Helvetica-Bold"


@dataclass(frozen=True)
class FontSet:
    """The font names one sheet uses.

    Attributes:
        body / bold: the paragraph fonts (Helvetica in English; the wide font in Chinese).
        wide: the font for text outside Latin-1 (CJK names in an English sheet).
        cjk_wrap: whether paragraphs need CJK line breaking (no spaces between words).
    """

    body: str
    bold: str
    wide: str
    cjk_wrap: bool

    def for_text(self, text: str, bold: bool = False) -> str:
        """The font to draw ``text`` with in charts, where there is no markup to switch."""
        if any(ord(ch) > 0xFF for ch in text):
            return self.wide
        return self.bold if bold else self.body


def _register_cid() -> str:
    if CID_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(CID_FONT))
        # Paragraph maps <b>/<i> through the family table; without an entry a bold run in a
        # CID font fails. Song has no bold face, so bold stays the same face.
        for bold in (0, 1):
            for italic in (0, 1):
                addMapping(CID_FONT, bold, italic, CID_FONT)
    return CID_FONT


def register_ttf(path: str | Path) -> str:
    """Register a user TrueType font once and return its reportlab name.

    The name is derived from the file content, so two different files never collide and the
    same file always gets the same name (byte-stable output).
    """
    font_path = Path(path).expanduser()
    try:
        data = font_path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{font_path}: font file not found") from None
    except OSError as exc:
        raise InputError(f"{font_path}: cannot read the font ({exc.strerror})") from None
    name = "TorchRigUser-" + hashlib.sha256(data).hexdigest()[:12]
    if name in pdfmetrics.getRegisteredFontNames():
        return name
    try:
        font = TTFont(name, str(font_path))
    except TTFError as exc:
        raise InputError(
            f"{font_path}: not a usable TrueType font ({exc}); reportlab embeds only "
            "TrueType-outline fonts (.ttf, or .ttc with TrueType faces), not CFF-based .otf "
            "such as the Noto CJK .otf/.ttc files"
        ) from None
    except Exception as exc:  # a corrupt font file raises many kinds of errors
        raise InputError(f"{font_path}: cannot read the font ({type(exc).__name__})") from None
    pdfmetrics.registerFont(font)
    for bold in (0, 1):
        for italic in (0, 1):
            addMapping(name, bold, italic, name)
    return name


def font_set(lang: str, ttf_path: str | Path | None = None) -> FontSet:
    """Fonts for a sheet in ``lang``; ``ttf_path`` replaces the CID font when given."""
    wide = register_ttf(ttf_path) if ttf_path else _register_cid()
    if lang == "zh":
        return FontSet(body=wide, bold=wide, wide=wide, cjk_wrap=True)
    return FontSet(body=LATIN, bold=LATIN_BOLD, wide=wide, cjk_wrap=False)
