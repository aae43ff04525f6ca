"""Fonts for the build sheet: standard Helvetica for Latin text, an embedded CJK font for the rest.

Chinese text needs a font the PDF carries with it: reportlab's built-in CID font
``STSong-Light`` is not embedded, so the reader substitutes whatever it has - Latin letters in
a Chinese sheet come out mis-spaced ("V iT-B/16") and a reader without a Song font shows
nothing. So the sheet embeds (as a subset: only the glyphs it uses) a TrueType-outline CJK
font, found by :func:`find_cjk_font`:

1. WenQuanYi Micro Hei from the ``paperang-p2-fonts-cjk`` wheel, a dependency of TorchRig, so
   ``pip install`` / ``./dev`` bring it (Apache-2.0 or GPL-3 with the font exception, which
   allows embedding; the file is byte-identical to Debian's ``fonts-wqy-microhei``);
2. the same family installed by the system (``fonts-wqy-microhei`` / ``fonts-wqy-zenhei``).

A user may give any TrueType font instead (``.ttf``, or a ``.ttc`` whose first face is
TrueType). CFF-flavoured OpenType fonts (most Noto CJK ``.otf``/``.ttc`` files) are refused by
reportlab, and we say so instead of crashing. Only when no font is found does the sheet fall
back to STSong-Light, and :data:`MISSING_CJK_FONT` says what to install.
"""

from __future__ import annotations

import hashlib
import importlib.util
import mmap
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.records import record
from torchrig.report.cid_font import EmbeddedTTFont
from torchrig.report.font_metrics import FontBytes

PACKAGED_CJK_FONT = ("paperang_p2_fonts_cjk", "fonts/wqy-microhei.ttc")
"""(package, file inside it) of the CJK font that TorchRig's dependencies install."""

SYSTEM_CJK_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",  # Debian/Ubuntu fonts-wqy-microhei
    "/usr/share/fonts/wqy-microhei/wqy-microhei.ttc",  # Fedora wqy-microhei-fonts
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",  # Debian/Ubuntu fonts-wqy-zenhei
)
"""TrueType CJK fonts a Linux system may have, tried when the packaged one is missing."""

MISSING_CJK_FONT = Msg(
    "No embeddable Chinese font found: Chinese text uses STSong-Light, which is not embedded "
    "(the reader's fonts draw it). Install the paperang-p2-fonts-cjk package (a TorchRig "
    "dependency) or fonts-wqy-microhei.",
    "未找到可嵌入的中文字体：中文使用未嵌入的 STSong-Light（由阅读器的字体显示）。请安装 "
    "paperang-p2-fonts-cjk 包（TorchRig 的依赖）或 fonts-wqy-microhei。",
)

CID_FONT = "STSong-Light"
LATIN = "Helvetica"
LATIN_BOLD = "Helvetica-Bold"


@record
class FontSet:
    """The font names one sheet uses.

    Attributes:
        body / bold: the paragraph fonts (Helvetica in English; the wide font in Chinese).
        wide: the font for text outside Latin-1 (CJK names in an English sheet).
        cjk_wrap: whether paragraphs need CJK line breaking (no spaces between words).
        embedded: whether ``wide`` is embedded in the PDF (False only for STSong-Light).
    """

    body: str
    bold: str
    wide: str
    cjk_wrap: bool
    embedded: bool = True

    def for_text(self, text: str, bold: bool = False) -> str:
        """The font to draw ``text`` with in charts, where there is no markup to switch."""
        if any(ord(ch) > 0xFF for ch in text):
            return self.wide
        return self.bold if bold else self.body


def _register_cid() -> str:
    if CID_FONT not in pdfmetrics.getRegisteredFontNames():
        # Only without an embeddable font: not imported on every export.
        from reportlab.pdfbase.cidfonts import UnicodeCIDFont

        pdfmetrics.registerFont(UnicodeCIDFont(CID_FONT))
        # Paragraph maps <b>/<i> through the family table; without an entry a bold run in a
        # CID font fails. Song has no bold face, so bold stays the same face.
        for bold in (0, 1):
            for italic in (0, 1):
                addMapping(CID_FONT, bold, italic, CID_FONT)
    return CID_FONT


def register_ttf(path: str | Path) -> str:
    """Register a TrueType font once and return its reportlab name.

    The name is derived from the file's resolved path, size and modification time, so two
    different files never collide and the same file always gets the same name. The name is
    reportlab's key for the font only: the PDF names the font by its PostScript name, so the
    output does not depend on where the file is. (It was the file's SHA-256, 3 ms of every
    export for 5 MB nothing else needs to read whole; issue 27.)
    """
    font_path = Path(path).expanduser()
    key = _file_key(font_path)
    if key is not None and key in _REGISTERED:
        # Same file, unchanged since it was registered: no second read on every export.
        return _REGISTERED[key]
    if key is None:
        _read_font(font_path)  # says why the file cannot be read
        raise InputError(f"{font_path}: cannot read the font")
    name = "TorchRigFont-" + hashlib.sha256(repr(key).encode()).hexdigest()[:12]
    if name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(_load_font(name, font_path))
        for bold in (0, 1):
            for italic in (0, 1):
                addMapping(name, bold, italic, name)
    _REGISTERED[key] = name
    return name


def _load_font(name: str, font_path: Path) -> EmbeddedTTFont:
    data = _read_font(font_path)
    try:
        return EmbeddedTTFont(name, str(font_path), data=data)
    except TTFError as exc:
        raise InputError(
            f"{font_path}: not a usable TrueType font ({exc}); reportlab embeds only "
            "TrueType-outline fonts (.ttf, or .ttc with TrueType faces), not CFF-based .otf "
            "such as the Noto CJK .otf/.ttc files"
        ) from None
    except Exception as exc:  # a corrupt font file raises many kinds of errors
        raise InputError(f"{font_path}: cannot read the font ({type(exc).__name__})") from None


def _read_font(font_path: Path) -> FontBytes:
    """The font file's bytes, mapped rather than read where the system allows.

    A sheet touches a few hundred kB of a 5 MB CJK font (its header tables, the character
    map and metrics entries it looks up, the outlines it embeds): mapping the file leaves the
    rest unread (the read was 5 ms of every export; issue 27). The map is read-only and
    lives as long as the registered font, that is the process. A font file replaced the
    usual way (a package upgrade renames a new file in) leaves the map on the old file; a
    changed file has a new key (size, time) and is mapped again (:func:`register_ttf`). On
    Windows a mapped file cannot be deleted while the process runs. An empty file cannot be
    mapped: it is read, and then refused as a font."""
    try:
        with font_path.open("rb") as fh:
            try:
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):
                return fh.read()
    except FileNotFoundError:
        raise InputError(f"{font_path}: font file not found") from None
    except OSError as exc:
        raise InputError(f"{font_path}: cannot read the font ({exc.strerror})") from None


_REGISTERED: dict[tuple[str, int, int], str] = {}
"""(resolved path, size, modification time in ns) -> the name it was registered under."""


def _file_key(path: Path) -> tuple[str, int, int] | None:
    try:
        st = path.stat()
        return (str(path.resolve()), st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def find_cjk_font() -> Path | None:
    """The TrueType CJK font to embed: the packaged one, else a system one, else None."""
    package, name = PACKAGED_CJK_FONT
    candidates: list[Path] = []
    # find_spec, not importlib.resources: the same folder of an installed wheel without
    # importing the resources machinery (zipfile and more) on every export. A package
    # inside a zip has no file reportlab could read anyway.
    spec = importlib.util.find_spec(package)  # None: the wheel is missing, try the system's
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidates.append(Path(folder) / name)
    candidates += [Path(p) for p in SYSTEM_CJK_FONTS]
    return next((p for p in candidates if p.is_file()), None)


def font_set(lang: str, ttf_path: str | Path | None = None) -> FontSet:
    """Fonts for a sheet in ``lang``; ``ttf_path`` replaces the CJK font found otherwise."""
    path = ttf_path or find_cjk_font()
    wide = register_ttf(path) if path else _register_cid()
    embedded = path is not None
    if lang == "zh":
        return FontSet(body=wide, bold=wide, wide=wide, cjk_wrap=True, embedded=embedded)
    return FontSet(body=LATIN, bold=LATIN_BOLD, wide=wide, cjk_wrap=False, embedded=embedded)
