"""The embedded TrueType font as one font file per document: a Type 0 font (PDF 1.7 sec. 9.7).

reportlab embeds a TrueType font as simple fonts of at most 256 characters each, every one a
font file of its own with its own copy of the font's tables (name, hinting programs: about
6 kB before compression) and its own widths and ToUnicode map: a Chinese quote of about 390
characters carried two (issue 27). A Type 0 font with two-byte character codes holds any
number of glyphs in one file. The codes are the glyphs' numbers in the subset
(``CIDToGIDMap /Identity``): glyph 0 is .notdef and each character drawn takes the next
number, in the order it is first drawn, so the same document gives the same bytes. Two
characters drawn with the same glyph (a space and a no-break space) share a number; the
ToUnicode map names each number's character, so text stays selectable and searchable.

The glyph outlines come from reportlab's own subsetting (``makeSubset``), and the widths from
the same metrics reportlab lays the text out with, so what is drawn does not change.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from reportlab.pdfbase import pdfdoc
from reportlab.pdfbase.ttfonts import SUBSETN, TTEncoding, TTFont

from torchrig.report.font_metrics import FastFace, FontBytes

_NOTDEF = -1
"""The character put in slot 0 of the subset: one no font maps, so slot 0 is glyph 0."""


class _DocumentGlyphs:
    """The glyphs one document has drawn with the font, numbered as they come."""

    def __init__(self) -> None:
        self.codes: list[int] = [_NOTDEF]  # number -> character (slot 0: .notdef)
        self.by_char: dict[int, int] = {}
        self.by_glyph: dict[int, int] = {0: 0}
        self.encoded: dict[str, bytes] = {}  # character -> its two-byte code
        self.internal_name: str | None = None


class EmbeddedTTFont(TTFont):
    """A TrueType font reportlab draws with and embeds as one Type 0 font per document.

    Metrics come from :class:`~torchrig.report.font_metrics.FastFace`. Only the glyphs drawn
    are embedded: reportlab's option to put the whole printable ASCII range into every
    subset ("asciiReadable") does not apply, so an English sheet that needs the CJK font for
    one "≤" embeds that and the characters drawn with it.
    """

    def __init__(self, name: str, filename: str, subfont_index: int = 0,
                 data: FontBytes | None = None) -> None:
        # TTFont.__init__ without its face and its subset state (reportlab 4 and 5).
        self.fontName = name
        self.face = FastFace(filename, validate=0, subfontIndex=subfont_index, data=data)
        self.encoding = TTEncoding()
        self.state: Any = WeakKeyDictionary()
        self._asciiReadable = 0
        # Shaping (uharfbuzz) is for scripts whose glyphs change with their neighbours;
        # Chinese and Latin text need none, and TorchRig does not install it.
        self.shapable = False
        self._widths: dict[int, float] = {}

    def stringWidth(self, text: str | bytes, size: float,  # noqa: N802 - reportlab's name
                    encoding: str = "utf8") -> float:
        """The width of ``text`` at ``size``, as reportlab's ``instanceStringWidthTTF`` sums
        it (the same widths in the same order), from a plain dict of the characters seen so
        far: the font's width table is looked up once per character, not once per character
        drawn (a sheet measures its text thousands of times; issue 27)."""
        if isinstance(text, bytes):
            text = text.decode(encoding or "utf8")
        widths = self._widths
        try:
            return 0.001 * size * sum(map(widths.__getitem__, map(ord, text)))
        except KeyError:
            get, default = self.face.charWidths.get, self.face.defaultWidth
            for char in set(map(ord, text)) - widths.keys():
                widths[char] = get(char, default)
            return 0.001 * size * sum(map(widths.__getitem__, map(ord, text)))

    def _glyphs(self, doc: Any) -> _DocumentGlyphs:
        glyphs = self.state.get(doc)
        if glyphs is None:
            glyphs = self.state[doc] = _DocumentGlyphs()
        return glyphs

    def splitString(self, text: str | bytes, doc: Any,  # noqa: N802 - reportlab's name
                    encoding: str = "utf-8") -> list[tuple[int, bytes]]:
        """``text`` as two-byte codes of the one subset (reportlab asks for (subset, bytes)
        runs)."""
        if isinstance(text, bytes):
            text = text.decode(encoding)
        glyphs = self._glyphs(doc)
        encoded = glyphs.encoded
        try:  # the common case: every character already has its code (a join in C)
            return [(0, b"".join(map(encoded.__getitem__, text)))]
        except KeyError:
            pass
        by_char, by_glyph, codes = glyphs.by_char, glyphs.by_glyph, glyphs.codes
        char_to_glyph = self.face.charToGlyph
        # New characters numbered in the order they come, as the document draws them: the
        # subset's glyph order, and so the PDF's bytes, stay what they were.
        for text_char in dict.fromkeys(text):
            if text_char in encoded:
                continue
            char = ord(text_char)
            number = by_char.get(char)
            if number is None:
                glyph = char_to_glyph.get(char, 0)
                number = by_glyph.get(glyph)
                if number is None:
                    number = by_glyph[glyph] = len(codes)
                    codes.append(char)
                by_char[char] = number
            encoded[text_char] = number.to_bytes(2, "big")
        return [(0, b"".join(map(encoded.__getitem__, text)))]

    def getSubsetInternalName(self, subset: int, doc: Any) -> str:  # noqa: N802
        """The PDF name of the font; there is one subset, number 0."""
        if subset != 0:
            raise IndexError(f"Subset {subset} does not exist in font {self.fontName}")
        glyphs = self._glyphs(doc)
        if glyphs.internal_name is None:
            glyphs.internal_name = f"F{len(doc.fontMapping) + 1}+0"
            doc.fontMapping[self.fontName] = "/" + glyphs.internal_name
            doc.delayedFonts.append(self)
        return "/" + glyphs.internal_name

    def addObjects(self, doc: Any) -> None:  # noqa: N802 - reportlab's name
        """Write the font: the Type 0 font, its CIDFontType2 descendant with widths, the
        descriptor with the subset's font file, and the ToUnicode map."""
        glyphs = self._glyphs(doc)
        internal_name = self.getSubsetInternalName(0, doc)[1:]
        face = self.face
        base_name = b"".join((SUBSETN(0), b"+", face.name, face.subfontNameX)).decode("pdfdoc")
        codes = glyphs.codes
        descriptor = face.addSubsetObjects(doc, base_name, codes)
        widths = [face.getCharWidth(char) for char in codes]
        cid_font = pdfdoc.PDFDictionary({
            "Type": pdfdoc.PDFName("Font"),
            "Subtype": pdfdoc.PDFName("CIDFontType2"),
            "BaseFont": pdfdoc.PDFName(base_name),
            "CIDSystemInfo": pdfdoc.PDFDictionary({
                "Registry": pdfdoc.PDFString("Adobe"),
                "Ordering": pdfdoc.PDFString("Identity"),
                "Supplement": 0}),
            "FontDescriptor": descriptor,
            "DW": face.defaultWidth,
            "W": pdfdoc.PDFArray(_width_runs(widths, face.defaultWidth)),
            "CIDToGIDMap": pdfdoc.PDFName("Identity"),
        })
        to_unicode = pdfdoc.PDFStream(content=_to_unicode_cmap(codes))
        if doc.compression:
            to_unicode.filters = [pdfdoc.PDFZCompress]
        font = pdfdoc.PDFDictionary({
            "Type": pdfdoc.PDFName("Font"),
            "Subtype": pdfdoc.PDFName("Type0"),
            "BaseFont": pdfdoc.PDFName(base_name),
            "Encoding": pdfdoc.PDFName("Identity-H"),
            "DescendantFonts": pdfdoc.PDFArray([doc.Reference(cid_font)]),
            "ToUnicode": doc.Reference(to_unicode),
        })
        doc.idToObject["BasicFonts"].dict[internal_name] = doc.Reference(font, internal_name)
        del self.state[doc]


def _width_runs(widths: list[float], default: float) -> list[Any]:
    """The ``/W`` array (PDF 1.7 sec. 9.7.4.3): runs ``first [w ...]`` of the codes whose
    width is not ``/DW``. A code left out has the default width, which most CJK glyphs have
    (309 of the 383 codes of the 10-line Chinese quote), so they need not be listed (issue
    27: the array was written uncompressed, every code's width)."""
    return [item for first, run in width_runs(widths, default)
            for item in (first, pdfdoc.PDFArray(run))]


def width_runs(widths: list[float], default: float) -> list[tuple[int, list[float]]]:
    """(first code, widths) for each run of consecutive codes not of the default width."""
    runs: list[tuple[int, list[float]]] = []
    last = -2
    for code, width in enumerate(widths):
        if width == default:
            continue
        if code == last + 1:
            runs[-1][1].append(width)
        else:
            runs.append((code, [width]))
        last = code
    return runs


def _to_unicode_cmap(codes: list[int]) -> bytes:
    """The ToUnicode CMap (PDF 1.7 sec. 9.10.3): two-byte code -> the character it draws."""
    entries = [f"<{number:04X}> <{_utf16_hex(char)}>"
               for number, char in enumerate(codes) if char >= 0]
    lines = ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
             "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
             "/CMapName /Adobe-Identity-UCS def", "/CMapType 2 def",
             "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange"]
    for start in range(0, len(entries), 100):  # at most 100 entries per block
        block = entries[start:start + 100]
        lines += [f"{len(block)} beginbfchar", *block, "endbfchar"]
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    return "\n".join(lines).encode("ascii")


def _utf16_hex(char: int) -> str:
    return chr(char).encode("utf-16-be").hex().upper()
