"""A TrueType font for reportlab whose character map and metrics are read table by table.

reportlab's ``TTFontFile.extractInfo`` reads the character map, the advance widths and the
glyph locations two bytes at a time through a Python method call: for the 49,531 glyphs and
34,600 characters of the CJK font a sheet embeds that is about 100,000 calls and 0.1 s of
every export process - as much as the rest of the rendering (issue 27). :class:`FastTTFont`
reads the same tables with one ``struct.unpack_from`` each and fills the same attributes with
the same values (``charToGlyph``, ``glyphToChar``, ``charWidths``, ``defaultWidth``,
``hmetrics``, ``glyphPos``), so reportlab measures, subsets and embeds exactly as before. The
small header tables (name, head, OS/2, post, hhea, maxp) are still read by reportlab itself.
A character map in a format other than 4 or 12 (rare: symbol and legacy fonts) goes through
reportlab's own reader.

``tests/report/test_pdf27_font_metrics.py`` compares every attribute with reportlab's reader.
"""

from __future__ import annotations

import struct

from reportlab.pdfbase.ttfonts import TTFError, TTFontFace


class FastFace(TTFontFace):
    """``TTFontFace`` with the character map, ``hmtx`` and ``loca`` read in bulk."""

    _glyph_to_char: dict[int, list[int]] | None = None

    def __init__(self, filename: str, validate: int = 0, subfontIndex: int = 0,  # noqa: N803
                 data: bytes | None = None) -> None:
        if data is not None:
            # The caller has read the file already (to name the font by its content):
            # reportlab's reader keeps bytes it is given instead of reading the file again.
            self._ttf_data = data
            self.filename = filename
        super().__init__(filename, validate=validate, subfontIndex=subfontIndex)

    def extractInfo(self, charInfo: int = 1) -> None:  # noqa: N802 - reportlab's name
        # reportlab reads the header tables and stops before the character map.
        TTFontFace.extractInfo(self, charInfo=0)
        if not charInfo:
            return
        data = self._ttf_data
        head = self.get_table_pos("head")[0]
        index_to_loc_format, glyph_data_format = struct.unpack_from(">hh", data, head + 50)
        if glyph_data_format != 0:
            raise TTFError(f"Unknown glyph data format ({glyph_data_format})")
        cmap = _unicode_cmap(self, data)
        if cmap is None:  # a format this module does not read: reportlab's reader
            TTFontFace.extractInfo(self, charInfo=1)
            return
        self.charToGlyph = char_to_glyph = cmap
        self._glyph_to_char = None  # built when asked for: reportlab itself never reads it
        self._cmap_spaces = {code: cmap.get(code) for code in (0x20, 0xA0)}
        self._read_metrics(data, char_to_glyph)
        self._read_locations(data, index_to_loc_format)
        # reportlab's own last step: a no-break space is drawn as a space.
        if 0x20 in char_to_glyph:
            char_to_glyph[0xA0] = char_to_glyph[0x20]
            self.charWidths[0xA0] = self.charWidths[0x20]
        elif 0xA0 in char_to_glyph:
            char_to_glyph[0x20] = char_to_glyph[0xA0]
            self.charWidths[0x20] = self.charWidths[0xA0]

    @property
    def glyphToChar(self) -> dict[int, list[int]]:  # noqa: N802 - reportlab's name
        """glyph -> the characters mapped to it, as reportlab's reader leaves it."""
        if self._glyph_to_char is None:
            glyph_to_char: dict[int, list[int]] = {}
            for char, glyph in self.charToGlyph.items():
                if char in self._cmap_spaces:  # as the font maps it, before the space rule
                    original = self._cmap_spaces[char]
                    if original is None:
                        continue
                    glyph = original
                glyph_to_char.setdefault(glyph, []).append(char)
            self._glyph_to_char = glyph_to_char
        return self._glyph_to_char

    @glyphToChar.setter
    def glyphToChar(self, value: dict[int, list[int]]) -> None:  # noqa: N802
        self._glyph_to_char = value  # reportlab's own reader (other cmap formats) sets it

    def _read_metrics(self, data: bytes, char_to_glyph: dict[int, int]) -> None:
        hhea = self.get_table_pos("hhea")[0]
        (n_metrics,) = struct.unpack_from(">H", data, hhea + 34)
        num_glyphs = self.numGlyphs
        hmtx = self.get_table_pos("hmtx")[0]
        pairs = struct.unpack_from(f">{2 * n_metrics}H", data, hmtx)
        advances = pairs[0::2]
        scale = self._pdfScale
        self.hmetrics = hmetrics = list(zip(advances, pairs[1::2], strict=True))
        # A font has few distinct advances (a CJK font: one for most glyphs): scale each once.
        scaled = {aw: scale(aw) for aw in set(advances)}
        widths = list(map(scaled.__getitem__, advances))
        self.defaultWidth = widths[0]
        if num_glyphs > n_metrics:
            # Glyphs past the last full metric share its advance and list only a side
            # bearing. reportlab stores the advance already scaled to 1/1000 em here (its
            # loop variable was rescaled): kept as is, so subsets come out byte-identical.
            last = widths[-1]
            bearings = struct.unpack_from(f">{num_glyphs - n_metrics}H", data,
                                          hmtx + 4 * n_metrics)
            hmetrics += [(last, lsb) for lsb in bearings]
            widths += [last] * (num_glyphs - n_metrics)
        covered = len(widths)
        glyphs = char_to_glyph.values()
        if max(glyphs, default=0) < covered:  # every mapped glyph has a metric: no filter
            self.charWidths = dict(zip(char_to_glyph, map(widths.__getitem__, glyphs),
                                       strict=True))
        else:
            self.charWidths = {char: widths[glyph] for char, glyph in char_to_glyph.items()
                               if glyph < covered}

    def _read_locations(self, data: bytes, index_to_loc_format: int) -> None:
        if "loca" not in self.table:
            raise TTFError("missing location table")
        loca = self.get_table_pos("loca")[0]
        count = self.numGlyphs + 1
        if index_to_loc_format == 0:
            self.glyphPos = [half << 1 for half in struct.unpack_from(f">{count}H", data, loca)]
        elif index_to_loc_format == 1:
            self.glyphPos = list(struct.unpack_from(f">{count}L", data, loca))
        else:
            raise TTFError(f"Unknown location table format ({index_to_loc_format})")


def _unicode_cmap(face: TTFontFace, data: bytes) -> dict[int, int] | None:
    """The character -> glyph map of the subtable reportlab would pick (formats 4 and 12);
    None for any other format."""
    base = face.get_table_pos("cmap")[0]
    version, count = struct.unpack_from(">HH", data, base)
    if count == 0 and version != 0:
        count, version = version, count
    chosen = None
    enc = 0
    for n in range(count):  # the same choice as reportlab's, record by record
        platform, encoding, offset = struct.unpack_from(">HHL", data, base + 4 + 8 * n)
        if platform == 3 or (platform == 1 and encoding == 1) or (
                platform == 0 and encoding != 5):
            enc, chosen = 1, offset
        elif platform == 1 and encoding == 0 and enc != 1:
            enc, chosen = 2, offset
    if chosen is None:
        raise TTFError("could not find a suitable cmap encoding")
    start = base + chosen
    (fmt,) = struct.unpack_from(">H", data, start)
    if fmt == 4:
        return _cmap_format4(data, start)
    if fmt == 12:
        return _cmap_format12(data, start)
    return None


def _cmap_format4(data: bytes, start: int) -> dict[int, int]:
    length, _lang, seg_x2 = struct.unpack_from(">HHH", data, start + 2)
    limit = start + length
    segs = seg_x2 // 2
    ends = struct.unpack_from(f">{segs}H", data, start + 14)
    starts = struct.unpack_from(f">{segs}H", data, start + 16 + 2 * segs)
    deltas = struct.unpack_from(f">{segs}h", data, start + 16 + 4 * segs)
    range_base = start + 16 + 6 * segs
    range_offsets = struct.unpack_from(f">{segs}H", data, range_base)
    out: dict[int, int] = {}
    for n in range(segs):
        first, last, delta, range_offset = starts[n], ends[n], deltas[n], range_offsets[n]
        if last < first:
            continue
        chars = range(first, last + 1)
        if range_offset == 0:
            out.update(zip(chars, [(c + delta) & 0xFFFF for c in chars], strict=True))
            continue
        # The glyph ids are in the glyph id array, each at this offset from its range offset.
        at = range_base + 2 * n + range_offset
        inside = max(0, min(len(chars), (limit - at + 1) // 2))  # offsets below the limit
        ids = struct.unpack_from(f">{inside}H", data, at) if inside else ()
        glyphs = [(g + delta) & 0xFFFF if g else 0 for g in ids]
        glyphs += [0] * (len(chars) - inside)  # past the subtable: reportlab's glyph 0
        out.update(zip(chars, glyphs, strict=True))
    return out


def _cmap_format12(data: bytes, start: int) -> dict[int, int]:
    (groups,) = struct.unpack_from(">L", data, start + 12)
    out: dict[int, int] = {}
    for first, last, glyph in struct.iter_unpack(">LLL", data[start + 16:start + 16 + 12 * groups]):
        chars = range(first, last + 1)
        out.update(zip(chars, range(glyph, glyph + len(chars)), strict=True))
    return out
