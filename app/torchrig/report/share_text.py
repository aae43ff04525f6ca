"""The priced build as text to paste into a forum post or a chat, or as a CSV file.

Four formats share one layout - a title, one row per line (category, part, quantity, unit
price, line total, what the line still needs) and the totals - built from the same
:class:`~torchrig.builds.pricing.PricedBuild` the PDF prints, with the PDF's own column and
total names (:mod:`torchrig.report.strings`) and money formatting
(:func:`torchrig.report.values.fmt_money`), so every amount matches the PDF to the cent.

Each format escapes what its readers would otherwise take as markup:

* ``md`` - Markdown (GitHub, Discourse, Reddit): ``\\`` ``|`` ``*`` ``_`` `````` ``[`` ``]``
  ``<`` ``>`` ``#`` are backslash-escaped, newlines in a cell become spaces (a table row is
  one line).
* ``bbcode`` - forum BBCode (``[table]``, as Discuz and phpBB with the table extension draw
  it). BBCode has no escape character, so square brackets in user text become the full-width
  ``［`` ``］``: they read the same and can no longer open a tag.
* ``text`` - plain text for chats: columns padded by display width (a Chinese character is
  two columns wide), so the table lines up in a monospaced font.
* ``csv`` - one row per line, then the totals; amounts as plain decimals (``3787.00``) so a
  spreadsheet reads them as numbers, and a cell starting with ``=``, ``+``, ``-`` or ``@``
  gets a leading ``'`` so no spreadsheet runs it as a formula (CSV injection).
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Callable
from decimal import Decimal
from typing import Literal

from torchrig.builds.pricing import PricedBuild, PricedLine
from torchrig.errors import InputError
from torchrig.i18n import one_language
from torchrig.labels import CATEGORIES, label
from torchrig.report.strings import incomplete_note, text
from torchrig.report.values import fmt_money
from torchrig.units import fmt_percent_number

ShareFormat = Literal["md", "bbcode", "text", "csv"]
FORMATS: tuple[ShareFormat, ...] = ("md", "bbcode", "text", "csv")
SUFFIXES: dict[str, ShareFormat] = {".md": "md", ".markdown": "md", ".bbcode": "bbcode",
                                    ".txt": "text", ".csv": "csv"}
"""Output file suffix -> format, for ``torchrig export BUILD -o FILE``."""

_STATUS_KEYS = {"price needed": "bom.price_needed", "exchange rate needed": "share.rate_needed"}


class _Row:
    """One line of the build as the strings every format shows."""

    def __init__(self, line: PricedLine, lang: str) -> None:
        self.category = label(CATEGORIES, line.category, lang)
        self.part = one_language(line.label, lang)
        self.qty = str(line.quantity * line.multiplier)
        no_price = text("bom.no_price", lang)
        self.unit = fmt_money(line.unit_price, no_price)
        self.total = fmt_money(line.total, no_price)
        self.unit_plain = "" if line.unit_price is None else str(line.unit_price)
        self.total_plain = "" if line.total is None else str(line.total)
        notes = []
        if line.multiplier > 1:
            notes.append(text("bom.per_node", lang, qty=line.quantity, nodes=line.multiplier))
        if line.status in _STATUS_KEYS:
            notes.append(text(_STATUS_KEYS[line.status], lang))
        if line.is_estimate:
            notes.append(text("share.estimate", lang))
        self.note = "; ".join(notes)


def _headers(priced: PricedBuild, lang: str) -> list[str]:
    cur = f" ({priced.currency})"
    return [text("bom.category", lang), text("bom.part", lang), text("bom.qty", lang),
            text("bom.unit_price", lang) + cur, text("bom.line_total", lang) + cur,
            text("share.note", lang)]


def _totals(priced: PricedBuild, lang: str) -> list[tuple[str, Decimal, str]]:
    """(label, amount, shown amount) for subtotal, discount, tax and total - the PDF's lines."""
    cur = priced.currency
    rows = [(text("totals.subtotal", lang), priced.subtotal,
             f"{cur} {fmt_money(priced.subtotal)}")]
    if priced.discount:
        rows.append((text("totals.discount", lang), -priced.discount,
                     f"- {cur} {fmt_money(priced.discount)}"))
    if priced.tax_rate:
        rate = fmt_percent_number(priced.tax_rate * 100)
        rows.append((text("totals.tax_rate", lang, rate=rate), priced.tax,
                     f"{cur} {fmt_money(priced.tax)}"))
    rows.append((text("totals.total", lang), priced.total, f"{cur} {fmt_money(priced.total)}"))
    return rows


def _footnotes(priced: PricedBuild, lang: str) -> list[str]:
    notes = []
    if priced.incomplete:
        notes.append(incomplete_note(len(priced.missing_price_lines), lang))
    if priced.exchange_rate is not None:
        notes.append(text("totals.exchange", lang) + text("colon", lang) + text(
            "totals.exchange_value", lang, src="USD", rate=f"{priced.exchange_rate:f}",
            dst="CNY", date=priced.exchange_rate_date or text("totals.unknown", lang)))
    notes += [warning.get(lang) for warning in priced.warnings]
    return notes


def _one_line(value: str) -> str:
    return " ".join(value.split())


# --- Markdown ----------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def _md(value: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", _one_line(value))


def to_markdown(priced: PricedBuild, lang: str) -> str:
    rows = [_Row(line, lang) for line in priced.lines]
    out = [f"**{_md(one_language(priced.name, lang))}**", ""]
    out.append("| " + " | ".join(_md(h) for h in _headers(priced, lang)) + " |")
    out.append("| --- | --- | ---: | ---: | ---: | --- |")
    for row in rows:
        cells = (row.category, row.part, row.qty, row.unit, row.total, row.note)
        out.append("| " + " | ".join(_md(c) for c in cells) + " |")
    out.append("")
    totals = _totals(priced, lang)
    for i, (name, _, shown) in enumerate(totals):
        line = f"{_md(name)}{text('colon', lang)}{_md(shown)}"
        # Two trailing spaces: a Markdown line break, so each total keeps its own line.
        out.append((f"**{line}**" if i == len(totals) - 1 else line) + "  ")
    out += [f"*{_md(note)}*  " for note in _footnotes(priced, lang)]
    return "\n".join(out).rstrip() + "\n"


# --- BBCode ------------------------------------------------------------------------------------


def _bb(value: str) -> str:
    return _one_line(value).replace("[", "［").replace("]", "］")


def to_bbcode(priced: PricedBuild, lang: str) -> str:
    rows = [_Row(line, lang) for line in priced.lines]
    out = [f"[b]{_bb(one_language(priced.name, lang))}[/b]", "[table]"]
    out.append("[tr]" + "".join(f"[td][b]{_bb(h)}[/b][/td]" for h in _headers(priced, lang))
               + "[/tr]")
    for row in rows:
        cells = (row.category, row.part, row.qty, row.unit, row.total, row.note)
        out.append("[tr]" + "".join(f"[td]{_bb(c)}[/td]" for c in cells) + "[/tr]")
    out.append("[/table]")
    totals = _totals(priced, lang)
    for i, (name, _, shown) in enumerate(totals):
        line = f"{_bb(name)}{text('colon', lang)}{_bb(shown)}"
        out.append(f"[b]{line}[/b]" if i == len(totals) - 1 else line)
    out += [f"[i]{_bb(note)}[/i]" for note in _footnotes(priced, lang)]
    return "\n".join(out) + "\n"


# --- plain text --------------------------------------------------------------------------------


def _width(value: str) -> int:
    """Columns ``value`` takes in a monospaced font: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in value)


def _pad(value: str, width: int, right: bool = False) -> str:
    fill = " " * (width - _width(value))
    return fill + value if right else value + fill


def to_plain_text(priced: PricedBuild, lang: str) -> str:
    rows = [_Row(line, lang) for line in priced.lines]
    table = [_headers(priced, lang)] + [
        [_one_line(c) for c in (r.category, r.part, r.qty, r.unit, r.total, r.note)]
        for r in rows]
    widths = [max(_width(row[i]) for row in table) for i in range(len(table[0]))]
    right = (False, False, True, True, True, False)
    lines = [_one_line(one_language(priced.name, lang)), ""]
    for n, row in enumerate(table):
        cells = [_pad(c, w, r) for c, w, r in zip(row, widths, right, strict=True)]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    lines.append("")
    totals = _totals(priced, lang)
    label_w = max(_width(name) for name, _, _ in totals)
    value_w = max(_width(shown) for _, _, shown in totals)
    lines += [f"{_pad(name, label_w)}  {_pad(shown, value_w, True)}"
              for name, _, shown in totals]
    lines += _footnotes(priced, lang)
    return "\n".join(lines) + "\n"


# --- CSV ---------------------------------------------------------------------------------------


def _cell(value: str) -> str:
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def to_csv(priced: PricedBuild, lang: str) -> str:
    rows = [_Row(line, lang) for line in priced.lines]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([_cell(h) for h in _headers(priced, lang)])
    for row in rows:
        writer.writerow([_cell(row.category), _cell(row.part), row.qty, row.unit_plain,
                         row.total_plain, _cell(row.note)])
    writer.writerow([])
    for name, amount, _ in _totals(priced, lang):
        writer.writerow([_cell(name), "", "", "", str(amount), priced.currency])
    for note in _footnotes(priced, lang):
        writer.writerow([_cell(note)])
    return buf.getvalue()


RENDERERS: dict[ShareFormat, Callable[[PricedBuild, str], str]] = {
    "md": to_markdown, "bbcode": to_bbcode, "text": to_plain_text, "csv": to_csv,
}


def share_text(priced: PricedBuild, fmt: str, lang: str = "en") -> str:
    """``priced`` in ``fmt`` (one of :data:`FORMATS`) with headers in ``lang``."""
    if fmt not in RENDERERS:
        raise InputError(f"unknown text format {fmt!r}: use one of {', '.join(FORMATS)}")
    return RENDERERS[fmt](priced, lang)  # type: ignore[index]
