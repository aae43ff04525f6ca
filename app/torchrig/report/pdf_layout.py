"""Page geometry, colours and the layout pieces every section of the PDF sheet shares.

Kept apart from the renderer (:mod:`torchrig.report.pdf`) so that a section drawn elsewhere
(:mod:`torchrig.report.verify_section`) uses the same measures without importing the renderer
back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas

from torchrig.builds.targets import Status
from torchrig.findings import Severity
from torchrig.report import chart_style
from torchrig.report.markup import clean_text, needs_wide_font
from torchrig.report.platypus import (
    Flowable,
    HRFlowable,
    KeepTogether,
    ParaFrag,
    Paragraph,
    ParaParser,
    Table,
    cleanBlockQuotedText,
    textTransformFrags,
)

PAGE_W, PAGE_H = A4
MARGIN_X = 16 * mm
MARGIN_TOP = 18 * mm
MARGIN_BOTTOM = 18 * mm
CONTENT_W = PAGE_W - 2 * MARGIN_X
FRAME_PAD = 6
"""reportlab's default frame padding: the document margins are this much smaller, so the
frame's inside is exactly CONTENT_W wide and full-width tables line up with the running header
and footer instead of sticking out on the right."""
FRAME_H = PAGE_H - MARGIN_TOP - MARGIN_BOTTOM - 2 * FRAME_PAD
SHORT_SECTION_H = FRAME_H / 3
"""A section shorter than this moves to the next page whole rather than split."""

ACCENT = chart_style.ACCENT
INK = chart_style.INK
MUTED = chart_style.MUTED
RULE = chart_style.RULE
ZEBRA = colors.HexColor("#F4F6F9")

SEVERITY_COLORS: dict[Severity, colors.Color] = {
    Severity.BLOCKER: colors.HexColor("#C0392B"),
    Severity.BOTTLENECK: colors.HexColor("#E67E22"),
    Severity.WARNING: colors.HexColor("#D4A017"),
    Severity.OVERKILL: colors.HexColor("#8E44AD"),
    Severity.ADVICE: colors.HexColor("#2E86C1"),
}

STATUS_COLORS: dict[Status, str] = {
    Status.MEETS: "#1E8449",
    Status.SHORT: "#C0392B",
    # "Exceeds" is where money may be over-spent (seed 4.1): the overkill colour.
    Status.EXCEEDS: "#8E44AD",
    Status.UNKNOWN: "#7F8C8D",
}
NEUTRAL_STATUS = "#7F8C8D"
"""Grey for a status without a colour of its own (unknown, no target)."""


class CachedParagraph(Paragraph):
    """A Paragraph that lays its lines out once per width.

    A table measures every cell, then measures again for each page it is split over and
    once more to draw: seven line breaks of the same text at the same width per cell, which
    made the largest valid build (500 lines of long unbroken words) take minutes to export.
    The lines depend only on the width and the style, so the first result is kept.
    """

    _memo: tuple[float, Any, float] | None = None

    def __init__(self, text: str | None, style: Any = None, bulletText: Any = None,  # noqa: N803
                 frags: list[Any] | None = None, *args: Any, **kwargs: Any) -> None:
        # A cell of plain text (no tag, no entity) skips reportlab's markup parser, which was
        # a third of a 500-line quote's rendering (issue 27); the fragment is the one the
        # parser gives for such text (tests/report/test_plain_frags.py checks it against it).
        # A split (reportlab passes the lines' fragments) or a bullet goes reportlab's way.
        plain = None
        if (frags is None and bulletText is None and isinstance(text, str)
                and style is not None and getattr(style, "bulletText", None) is None):
            plain = plain_frags(text, style)
        if plain is None:
            super().__init__(text, style, bulletText, frags, *args, **kwargs)
        else:
            super().__init__(plain[0].text, style, None, plain, *args, **kwargs)

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        memo = self._memo
        if memo is not None and memo[0] == availWidth:
            self.width, self.blPara, self.height = memo
            return self.width, self.height
        size = super().wrap(availWidth, availHeight)
        if availWidth >= 1:  # reportlab answers "cannot fit" without laying anything out
            self._memo = (availWidth, self.blPara, self.height)
        return size


_FRAG_TEMPLATES: WeakKeyDictionary[Any, ParaFrag] = WeakKeyDictionary()
"""Per paragraph style, the fragment reportlab's parser makes of plain text in it."""


def plain_frags(text: str, style: Any) -> list[ParaFrag] | None:
    """The fragments reportlab's parser would give ``text`` in ``style``, without parsing,
    when ``text`` is plain: no tag or entity (``<``, ``&``) and not blank; else None (the
    caller parses). The text is cleaned as Paragraph cleans it (whitespace runs and line
    ends to one space)."""
    if "<" in text or "&" in text:
        return None
    cleaned = cleanBlockQuotedText(text)
    if not cleaned:
        return None
    template = _FRAG_TEMPLATES.get(style)
    if template is None:
        _style, parsed, _bullets = ParaParser().parse("x", style)
        if not parsed or len(parsed) != 1 or _style is not style:
            return None
        template = _FRAG_TEMPLATES[style] = parsed[0]
    frag = template.clone()
    frag.text = cleaned
    # clone() shares the template's lists: give each fragment its own, as the parser does.
    frag.link = []
    frag.us_lines = []
    frags = [frag]
    textTransformFrags(frags, style)
    return frags


CELL_PAD_X = 4
"""Left and right padding of a table cell (``_Renderer._table``)."""

NO_BREAK_SPACE = "\u00a0"
_BREAKING_WHITE_SPACE = re.compile(r"[^\S\u00a0]+")
"""White space a line may break at: every kind but the no-break space."""


def keep_last_word(name: str) -> str:
    """A part name whose last words are one or two characters ("RTX 4090 D", "RTX 5090 D V2",
    "4070 Ti") with those words bound to the word before them by no-break spaces, so a name
    that wraps never leaves "D" alone on its last line. reportlab's Paragraph does not break
    at a no-break space, and neither does :func:`string_cell_text`."""
    words = name.split(" ")
    if "" in words:
        return name  # runs of spaces: the cell is a Paragraph, which shows them as it likes
    keep = len(words)
    while keep > 2 and 0 < len(words[keep - 1]) <= 2:
        keep -= 1
    if keep == len(words):
        return name
    return " ".join(words[: keep - 1]) + " " + NO_BREAK_SPACE.join(words[keep - 1:])


def string_cell_text(text: str, style: Any, width: float,
                     wide_font: str | None) -> str | None:
    """``text`` as a plain string cell - drawn by the table itself with the column's
    :func:`text_column_style` - when a Paragraph in ``style`` would show it as plain lines in
    a column ``width`` wide: its lines joined by line breaks, broken where the Paragraph breaks
    them. None where the Paragraph is needed: markup to keep (a switch to ``wide_font`` for
    text beyond Latin-1), something Paragraph would change (runs of white space, line breaks,
    soft hyphens, characters it drops), a word wider than the column (Paragraph splits it),
    Chinese text under Chinese line breaking, or a line within a hair of the column's edge.

    A Paragraph cell costs its markup fragment, a line-breaking pass per width and a text
    object per draw: on a 500-line quote's parts list, most of its time (issue 27). The lines
    are broken as reportlab's ``Paragraph.breakLines`` breaks one plain fragment (words at
    spaces, a line full when its words and the spaces between them pass the cell's inside plus
    the style's ``spaceShrinkage`` of each space, summed in the same order). A Chinese sheet's
    Latin-only cell (a part number, a specification) is broken the same way, at spaces, as it
    is on an English sheet. The
    string is drawn where the Paragraph's lines were: the table puts a string's first baseline
    one font size below the cell's top padding (valign TOP) or its lines' leading above the
    bottom padding (BOTTOM) and the next ones a leading apart, as a Paragraph of that leading
    places them, and left/right alignment at the same padding."""
    words = [word for word in _BREAKING_WHITE_SPACE.split(text) if word]
    if not text or text != " ".join(words) or clean_text(text) != text or "\xad" in text:
        return None  # blank, white space runs or line breaks, or characters Paragraph changes
    wide = needs_wide_font(text)
    if wide and wide_font is not None:
        return None
    if style.alignment == TA_JUSTIFY:
        return None  # the table cannot stretch a string's spaces
    font, size = style.fontName, style.fontSize
    inside = width - 2 * CELL_PAD_X
    if wide and style.wordWrap == "CJK":
        # Chinese line breaking is the Paragraph's; one line that fits needs none
        return text if stringWidth(text, font, size) <= inside - 0.01 else None
    space = stringWidth(" ", font, size)
    shrink = (style.spaceShrinkage or 0) * space
    lines: list[str] = []
    line: list[str] = []
    current = -space  # as reportlab: no space before a line's first word
    for word in words:  # text is these words joined by single spaces (checked above)
        word_width = stringWidth(word, font, size)
        if word_width > inside:
            return None
        new = current + space + word_width
        # reportlab lets a line's spaces shrink by spaceShrinkage (5 % by default) each
        limit = inside + shrink * len(line)
        if abs(new - limit) < 0.01:
            return None  # at the very edge the Paragraph's own sums decide
        if new > limit and line:
            lines.append(" ".join(line))
            line, new = [word], word_width
        else:
            line.append(word)
        current = new
    lines.append(" ".join(line))
    return "\n".join(lines)


def text_column_style(styles: list[Any], first_row: int = 1) -> list[tuple[Any, ...]]:
    """Table style commands that draw the string cells of columns 0, 1, ... (from
    ``first_row`` down) as a Paragraph in ``styles[column]`` would: font, size, leading,
    colour, alignment. Paragraph cells ignore them. Neighbouring columns that agree share one
    command (the table applies each command to every cell it covers, twice with the probe:
    on a 500-line list, thousands of calls per command), and left alignment is the table's
    own default."""
    commands: list[tuple[Any, ...]] = []
    attributes = (("FONTNAME", lambda st: st.fontName), ("FONTSIZE", lambda st: st.fontSize),
                  ("LEADING", lambda st: st.leading), ("TEXTCOLOR", lambda st: st.textColor),
                  ("ALIGN", lambda st: {TA_RIGHT: "RIGHT", TA_CENTER: "CENTER"}.get(
                      st.alignment, "LEFT")))
    for command, value_of in attributes:
        values = [value_of(style) for style in styles]
        first = 0
        for column in range(1, len(values) + 1):
            if column == len(values) or values[column] != values[first]:
                if not (command == "ALIGN" and values[first] == "LEFT"):
                    commands.append((command, (first, first_row), (column - 1, -1),
                                     values[first]))
                first = column
    return commands


def numbered_canvas(footer: Callable[[Canvas, int, int], None]) -> type[Canvas]:
    """A canvas class that holds every page until the end, so the footer can say "of y"."""

    class NumberedCanvas(Canvas):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pages: list[dict[str, Any]] = []

        def showPage(self) -> None:  # noqa: N802 - reportlab's name
            self._pages.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._pages)
            for number, state in enumerate(self._pages, start=1):
                self.__dict__.update(state)
                footer(self, number, total)
                super().showPage()
            super().save()

    return NumberedCanvas


def lead_height(body: list[Flowable]) -> float:
    """Height of what has to share the page with a section heading: the first flowable, and
    with it each following one while the previous keeps with its next (a group heading and
    its first finding). A table splits by rows, so room for its first rows is enough."""
    total = 0.0
    for flowable in body:
        height = height_of(flowable)
        total += min(height, 30 * mm) if isinstance(flowable, Table) else height
        if not flowable.getKeepWithNext():
            break
    return total


def row_split(rows: list[list[Any]], widths: list[float], style: Any = None) -> int:
    """``splitInRow`` for a table: 0 (a row moves to the next page whole, so a benchmark or a
    part is never cut in two) unless a row is too tall to move - a pasted essay in a note -
    which may then break across pages rather than fail the export.

    ``style`` is the table's own: with its paddings the probe lays each cell out at the
    width the table will, so the table reuses those lines (``CachedParagraph``); with
    reportlab's default paddings every cell was laid out twice (issue 27)."""
    return table_layout(rows, widths, style)[0]


def table_layout(rows: list[list[Any]], widths: list[float],
                 style: Any = None) -> tuple[int, list[float] | None]:
    """``splitInRow`` as :func:`row_split` gives it, and the rows' heights the probe measured
    when no row may split (else None): given to the table, they spare it measuring every
    cell again on its first wrap (issue 27). A row that may split is measured by the table
    itself, as reportlab needs for the split."""
    probe = Table(rows, colWidths=widths, style=style)
    probe.wrap(CONTENT_W, FRAME_H)
    heights = list(probe._rowHeights)
    if max(heights, default=0) > FRAME_H / 2:
        return 1, None
    return 0, heights


def height_of(flowable: Flowable) -> float:
    """Height of a flowable laid out at full width (KeepTogether has no wrap of its own
    outside a document, so its parts are measured)."""
    if isinstance(flowable, KeepTogether):
        return sum(height_of(part) for part in flowable._content)
    return flowable.wrap(CONTENT_W, PAGE_H)[1]


def rule() -> Flowable:
    """The thin line under a section heading."""
    return HRFlowable(width="100%", thickness=0.6, color=RULE, spaceBefore=0, spaceAfter=5)


DRAFT_RED = colors.HexColor("#b3261e")


def draw_draft_stamp(canvas: Canvas, stamp: str, stamp_font: str, line: str,
                     line_font: str) -> None:
    """A draft's mark on one page: ``stamp`` (DRAFT / 草稿) large and faint across the page, so
    no page can pass for a final quote, and ``line`` (which lines have no price) in red at the
    top edge, above the running header. Drawn last, over the content, hence the transparency."""
    canvas.saveState()
    canvas.setFillColor(DRAFT_RED)
    canvas.setFillAlpha(0.10)
    canvas.translate(PAGE_W / 2, PAGE_H / 2)
    canvas.rotate(35)
    size = 110.0
    while size > 20 and canvas.stringWidth(stamp, stamp_font, size) > PAGE_H * 0.8:
        size -= 5
    canvas.setFont(stamp_font, size)
    canvas.drawCentredString(0, -size / 3, stamp)
    canvas.restoreState()
    canvas.saveState()
    canvas.setFillColor(DRAFT_RED)
    canvas.setFont(line_font, 8)
    canvas.drawString(MARGIN_X, PAGE_H - 7 * mm,
                      chart_style.fit_text(line, line_font, 8, CONTENT_W))
    canvas.restoreState()
