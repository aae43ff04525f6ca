"""A TrueType font for reportlab whose character map and metrics are looked up when asked.

reportlab's ``TTFontFile.extractInfo`` reads the whole character map, every advance width and
every glyph location into Python dicts and lists, two bytes at a time: for the 49,531 glyphs
and 34,600 characters of the CJK font a sheet embeds that is about 0.1 s of every export
process (issue 27). Reading the same tables in bulk still built those 35,000-entry dicts and
50,000-entry lists, about 30 ms, and loading them back from a file (``marshal``) took 25 ms:
building the objects is the cost, not parsing. A quote draws a few hundred characters, so
:class:`FastFace` builds nothing up front. ``charToGlyph``, ``charWidths``, ``hmetrics`` and
``glyphPos`` are views of the font's own tables (the file's bytes, already in memory for the
subset): a character is found by a binary search over the character map's segments, a width
or a glyph location by one ``struct.unpack_from``, and each answer is kept. They hold the
same values reportlab's reader would, so reportlab measures, subsets and embeds exactly as
before; iterating one (nothing does while a sheet is drawn) reads the whole table once. The
small header tables (name, head, OS/2, post, hhea, maxp) are still read by reportlab itself.
A character map in a format other than 4 or 12 (rare: symbol and legacy fonts), or one whose
segments are out of order, goes through reportlab's own reader.

``tests/report/test_pdf27_font_metrics.py`` compares every attribute with reportlab's reader,
entry by entry through the lookups.
"""

from __future__ import annotations

import mmap
import struct
from bisect import bisect_left, bisect_right
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from typing import Any, TypeAlias, overload

from reportlab.pdfbase.ttfonts import TTFError, TTFontFace

FontBytes: TypeAlias = bytes | mmap.mmap
"""The font file: its bytes, or the file mapped into memory (report/fonts.py)."""

_MISSING: Any = object()
_UNSEEN: Any = object()


class FastFace(TTFontFace):
    """``TTFontFace`` with the character map, ``hmtx`` and ``loca`` read on demand."""

    _glyph_to_char: dict[int, list[int]] | None = None

    def __init__(self, filename: str, validate: int = 0, subfontIndex: int = 0,  # noqa: N803
                 data: FontBytes | None = None) -> None:
        if data is not None:
            # The caller has read the file already: reportlab's reader keeps bytes it is
            # given instead of reading the file again.
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
        if cmap is None:  # a format or layout this module does not read: reportlab's reader
            TTFontFace.extractInfo(self, charInfo=1)
            return
        metrics = _Metrics(self, data)
        self.hmetrics = metrics
        self.defaultWidth = metrics.width(0)
        self.glyphPos = _Locations(self, data, index_to_loc_format)
        # reportlab's own last step: a no-break space is drawn as a space (and the other way
        # round when the font maps only the no-break space).
        self._cmap_spaces = {code: cmap.get(code) for code in (0x20, 0xA0)}
        space, nbsp = self._cmap_spaces[0x20], self._cmap_spaces[0xA0]
        if space is not None:
            cmap.override(0xA0, space)
        elif nbsp is not None:
            cmap.override(0x20, nbsp)
        self.charToGlyph = cmap
        self.charWidths = _Widths(cmap, metrics)
        self._glyph_to_char = None  # built when asked for: reportlab itself never reads it

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


class _LookupMap(Mapping[int, Any]):
    """A read-only mapping whose entries are worked out one key at a time and kept; the
    whole table is built only to iterate it. Equal to a dict with the same entries."""

    def __init__(self) -> None:
        self._seen: dict[int, Any] = {}
        self._all: dict[int, Any] | None = None

    def _lookup(self, key: int) -> Any:  # _MISSING when the key is not in the table
        raise NotImplementedError

    def _everything(self) -> dict[int, Any]:
        raise NotImplementedError

    def get(self, key: int, default: Any = None) -> Any:  # type: ignore[override]
        value = self._seen.get(key, _UNSEEN)
        if value is _UNSEEN:  # misses are kept too (_MISSING)
            value = self._seen[key] = self._lookup(key)
        return default if value is _MISSING else value

    def __getitem__(self, key: int) -> Any:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, int) and self.get(key, _MISSING) is not _MISSING

    def _table(self) -> dict[int, Any]:
        if self._all is None:
            self._all = self._everything()
        return self._all

    def __iter__(self) -> Iterator[int]:
        return iter(self._table())

    def keys(self) -> KeysView[int]:
        return self._table().keys()

    def items(self) -> ItemsView[int, Any]:
        return self._table().items()

    def values(self) -> ValuesView[Any]:
        return self._table().values()

    def __len__(self) -> int:
        return len(self._table())

    def __eq__(self, other: object) -> bool:
        # Entry by entry through the lookups, so a comparison with reportlab's dict checks
        # the path a sheet takes; equal lengths and every other key found: the same keys.
        if not isinstance(other, Mapping):
            return NotImplemented
        return len(self) == len(other) and all(
            self.get(key, _MISSING) == value for key, value in other.items())

    __hash__ = None  # type: ignore[assignment]


class _CharMap(_LookupMap):
    """character -> glyph of a format 4 or 12 subtable, by a binary search over its
    segments (sorted and disjoint, as the TrueType spec requires and this class checks)."""

    def __init__(self, find: Callable[[int], int | None], everything: Callable[[], dict[int, int]]
                 ) -> None:
        super().__init__()
        self._find = find
        self._build = everything
        self._overrides: dict[int, int] = {}

    def override(self, char: int, glyph: int) -> None:
        self._overrides[char] = glyph
        self._seen[char] = glyph

    def _lookup(self, key: int) -> Any:
        glyph = self._find(key)
        return _MISSING if glyph is None else glyph

    def _everything(self) -> dict[int, int]:
        table = self._build()
        table.update(self._overrides)
        return table


class _Widths(_LookupMap):
    """character -> advance width in 1/1000 em, for the characters whose glyph has a metric."""

    def __init__(self, cmap: _CharMap, metrics: _Metrics) -> None:
        super().__init__()
        self._cmap = cmap
        self._metrics = metrics

    def _lookup(self, key: int) -> Any:
        glyph = self._cmap.get(key)
        if glyph is None or glyph >= self._metrics.covered:
            return _MISSING
        return self._metrics.width(glyph)

    def _everything(self) -> dict[int, float]:
        return {char: self._metrics.width(glyph) for char, glyph in self._cmap.items()
                if glyph < self._metrics.covered}


class _Table(Sequence[Any]):
    """A list-like view of a per-glyph table; equal to a list with the same items."""

    def __init__(self, length: int) -> None:
        self._length = length

    def item(self, index: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self.item(i) for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self.item(index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(
            self.item(i) == value for i, value in enumerate(other))

    __hash__ = None  # type: ignore[assignment]


class _Metrics(_Table):
    """``hmetrics``: glyph -> (advance, left side bearing), read from ``hmtx``."""

    def __init__(self, face: TTFontFace, data: FontBytes) -> None:
        hhea = face.get_table_pos("hhea")[0]
        (self._full,) = struct.unpack_from(">H", data, hhea + 34)
        super().__init__(max(face.numGlyphs, self._full))
        self._data = data
        self._hmtx = face.get_table_pos("hmtx")[0]
        self._scale = face._pdfScale
        self._scaled: dict[int, float] = {}
        self.covered = self._length
        """Glyphs with a metric; a character whose glyph is past them has no width entry."""

    def width(self, glyph: int) -> float:
        """The glyph's advance in 1/1000 em (glyphs past the last full metric share its
        advance)."""
        at = self._hmtx + 4 * min(glyph, self._full - 1)
        (advance,) = struct.unpack_from(">H", self._data, at)
        scaled = self._scaled.get(advance)
        if scaled is None:
            scaled = self._scaled[advance] = self._scale(advance)
        return scaled

    def item(self, index: int) -> tuple[float, int]:
        if index < self._full:
            advance, bearing = struct.unpack_from(">HH", self._data, self._hmtx + 4 * index)
            return advance, bearing
        # Past the last full metric only a side bearing is listed. reportlab stores the
        # advance already scaled to 1/1000 em here (its loop variable was rescaled): kept as
        # is, so subsets come out byte-identical.
        (bearing,) = struct.unpack_from(">H", self._data,
                                        self._hmtx + 4 * self._full + 2 * (index - self._full))
        return self.width(index), bearing


class _Locations(_Table):
    """``glyphPos``: glyph -> offset of its outline in ``glyf``, read from ``loca``."""

    def __init__(self, face: TTFontFace, data: FontBytes, index_to_loc_format: int) -> None:
        if "loca" not in face.table:
            raise TTFError("missing location table")
        if index_to_loc_format not in (0, 1):
            raise TTFError(f"Unknown location table format ({index_to_loc_format})")
        super().__init__(face.numGlyphs + 1)
        self._data = data
        self._loca = face.get_table_pos("loca")[0]
        self._short = index_to_loc_format == 0

    def item(self, index: int) -> int:
        if self._short:
            return int(struct.unpack_from(">H", self._data, self._loca + 2 * index)[0]) << 1
        return int(struct.unpack_from(">L", self._data, self._loca + 4 * index)[0])


def _unicode_cmap(face: TTFontFace, data: FontBytes) -> _CharMap | None:
    """The character -> glyph map of the subtable reportlab would pick (formats 4 and 12);
    None for any other format, or segments out of order."""
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
        find = _format4_lookup(data, start)
        return None if find is None else _CharMap(find, lambda: _cmap_format4(data, start))
    if fmt == 12:
        find = _format12_lookup(data, start)
        return None if find is None else _CharMap(find, lambda: _cmap_format12(data, start))
    return None


def _disjoint(firsts: Sequence[int], lasts: Sequence[int]) -> bool:
    return all(lasts[n] < firsts[n + 1] for n in range(len(firsts) - 1))


def _format4_arrays(data: FontBytes, start: int) -> tuple[
        int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...], int, tuple[int, ...]]:
    """A cmap format 4 subtable's parts at ``start``: (end of the subtable, segment count,
    end codes, start codes, deltas, where the range offsets begin, range offsets)."""
    length, _lang, seg_x2 = struct.unpack_from(">HHH", data, start + 2)
    segs = seg_x2 // 2
    ends = struct.unpack_from(f">{segs}H", data, start + 14)
    starts = struct.unpack_from(f">{segs}H", data, start + 16 + 2 * segs)
    deltas = struct.unpack_from(f">{segs}h", data, start + 16 + 4 * segs)
    range_base = start + 16 + 6 * segs
    range_offsets = struct.unpack_from(f">{segs}H", data, range_base)
    return start + length, segs, ends, starts, deltas, range_base, range_offsets


def _format4_lookup(data: FontBytes, start: int) -> Callable[[int], int | None] | None:
    limit, segs, ends, starts, deltas, range_base, range_offsets = _format4_arrays(data, start)
    # Empty segments (end before start) map nothing: left out of the search.
    kept = [n for n in range(segs) if ends[n] >= starts[n]]
    firsts = [starts[n] for n in kept]
    lasts = [ends[n] for n in kept]
    if not _disjoint(firsts, lasts):
        return None

    def find(char: int) -> int | None:
        i = bisect_left(lasts, char)
        if i == len(lasts) or firsts[i] > char:
            return None
        n = kept[i]
        delta, range_offset = deltas[n], range_offsets[n]
        if range_offset == 0:
            return (char + delta) & 0xFFFF
        # The glyph id is in the glyph id array, at this offset from the range offset; one
        # past the subtable's end reads as glyph 0, as reportlab reads it.
        at = range_base + 2 * n + range_offset + 2 * (char - firsts[i])
        if at + 2 > limit + 1:
            return 0
        (glyph,) = struct.unpack_from(">H", data, at)
        return (glyph + delta) & 0xFFFF if glyph else 0

    return find


def _format12_lookup(data: FontBytes, start: int) -> Callable[[int], int | None] | None:
    (groups,) = struct.unpack_from(">L", data, start + 12)
    flat = struct.unpack_from(f">{3 * groups}L", data, start + 16)
    firsts, lasts, glyphs = flat[0::3], flat[1::3], flat[2::3]
    if any(lasts[n] < firsts[n] for n in range(groups)) or not _disjoint(firsts, lasts):
        return None

    def find(char: int) -> int | None:
        i = bisect_right(firsts, char) - 1
        if i < 0 or char > lasts[i]:
            return None
        return int(glyphs[i] + char - firsts[i])

    return find


def _cmap_format4(data: FontBytes, start: int) -> dict[int, int]:
    """The whole format 4 subtable as a dict (to iterate the map; a sheet never does)."""
    limit, segs, ends, starts, deltas, range_base, range_offsets = _format4_arrays(data, start)
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


def _cmap_format12(data: FontBytes, start: int) -> dict[int, int]:
    """The whole format 12 subtable as a dict (to iterate the map; a sheet never does)."""
    (groups,) = struct.unpack_from(">L", data, start + 12)
    out: dict[int, int] = {}
    for first, last, glyph in struct.iter_unpack(">LLL", data[start + 16:start + 16 + 12 * groups]):
        chars = range(first, last + 1)
        out.update(zip(chars, range(glyph, glyph + len(chars)), strict=True))
    return out
