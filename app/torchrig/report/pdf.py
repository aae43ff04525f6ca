"""Draw a :class:`~torchrig.report.sheet.Sheet` as an A4 PDF.

Layout: a header block (sender, title, number, dates, customer), then the sections the sheet
asks for, each a heading over a table or chart; every page ends with "page x of y" and the
TorchRig version. Tables use one Paragraph per cell so text wraps (long words are split), and
repeat their header row when they run over a page. Page measures, colours and the shared
layout pieces are in :mod:`torchrig.report.pdf_layout`; the attached build file and the logo
in :mod:`torchrig.report.pdf_files`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from torchrig import jsonio
from torchrig.builds.targets import Status
from torchrig.errors import InputError
from torchrig.findings import Finding, Severity, sort_findings
from torchrig.labels import CATEGORIES, PRICE_KINDS, citation, label
from torchrig.report import chart_style
from torchrig.report.fonts import FontSet, font_set
from torchrig.report.markup import clean_text, escape_text, user_markup
from torchrig.report.pdf_files import LOGO_BOX, MAX_LOGO_BYTES, embed_file, small_logo
from torchrig.report.pdf_layout import (
    ACCENT,
    CONTENT_W,
    FRAME_PAD,
    INK,
    MARGIN_BOTTOM,
    MARGIN_TOP,
    MARGIN_X,
    MUTED,
    NEUTRAL_STATUS,
    PAGE_H,
    PAGE_W,
    RULE,
    SEVERITY_COLORS,
    SHORT_SECTION_H,
    STATUS_COLORS,
    ZEBRA,
    CachedParagraph,
    draw_draft_stamp,
    height_of,
    keep_last_word,
    lead_height,
    numbered_canvas,
    row_split,
    rule,
    string_cell_text,
    table_layout,
    text_column_style,
)
from torchrig.report.platypus import (
    CondPageBreak,
    Flowable,
    Image,
    KeepTogether,
    LongTable,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)
from torchrig.report.sheet import ATTACHMENT_NAME, BomRow, Sheet
from torchrig.report.strings import incomplete_note, text
from torchrig.report.values import fmt_measure, fmt_money, fmt_percent
from torchrig.units import fmt_percent_number

rl_config.useA85 = 0
"""Page content streams are stored zlib-compressed only: reportlab's default also encodes
them as ASCII85 text, a quarter larger, for 7-bit mail transports no PDF passes through today
(the font files and the attachment were binary already). reportlab's setting is per process;
TorchRig writes PDFs only here."""

CELL_TEXT_LIMIT = 200
"""Characters of a line's price source or note shown in the parts table."""

_WEB_ADDRESS = re.compile(r"(https?://[^\s()\[\]<>，。；（）]*[^\s()\[\]<>，。；（）.,;:'\"])")
"""A web address quoted in a price source, without the punctuation around it."""


def _site(address: str) -> str | None:
    """``example.com`` for ``https://www.example.com/a/b``; None when it is not a web address."""
    parsed = urlsplit(address.strip())
    if parsed.scheme not in ("http", "https") or not parsed.netloc or " " in address.strip():
        return None
    return parsed.netloc.removeprefix("www.")


def render_sheet(sheet: Sheet, out: str | Path | IO[bytes]) -> None:
    """Write ``sheet`` as a PDF to a path (atomically) or to an open binary file."""
    payload = render_sheet_bytes(sheet)
    if isinstance(out, (str, Path)):
        jsonio.atomic_write_bytes(Path(out), payload)
    else:
        out.write(payload)


def render_sheet_bytes(sheet: Sheet) -> bytes:
    """The PDF for ``sheet`` as bytes (same sheet + ``invariant`` -> same bytes)."""
    payload = None
    if sheet.build_json is not None and sheet.shows("attachment"):
        payload = jsonio.dumps(sheet.build_json).encode("utf-8")
    return _Renderer(sheet).build(payload)


class _Renderer:
    """Turns one sheet into flowables; holds the fonts and styles for its language."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.lang = sheet.options.lang
        self.fonts: FontSet = font_set(self.lang, sheet.options.ttf_path)
        self._styles()

    # --- text helpers ---------------------------------------------------------------------

    def t(self, key: str, **values: object) -> str:
        """A fixed string, escaped for Paragraph markup."""
        return escape_text(text(key, self.lang, **values))

    def u(self, value: str) -> str:
        """A user (or data) string, escaped, in a font that can show it."""
        wide = None if self.fonts.body == self.fonts.wide else self.fonts.wide
        return user_markup(value, wide)

    def _style(self, name: str, **kw: Any) -> ParagraphStyle:
        base: dict[str, Any] = {
            "fontName": self.fonts.body, "fontSize": 8.5, "leading": 11, "textColor": INK,
            "wordWrap": "CJK" if self.fonts.cjk_wrap else None, "splitLongWords": 1,
        }
        base.update(kw)
        return ParagraphStyle(name, **base)

    def _styles(self) -> None:
        f = self.fonts
        self.body = self._style("body")
        self.small = self._style("small", fontSize=7, leading=9, textColor=MUTED)
        self.small_right = self._style("small_right", fontSize=7, leading=9, textColor=MUTED,
                                       alignment=TA_RIGHT)
        self.cell = self._style("cell", fontSize=8, leading=10)
        self.cell_small = self._style("cell_small", fontSize=6.8, leading=8.4, textColor=MUTED)
        self.cell_right = self._style("cell_right", fontSize=8, leading=10, alignment=TA_RIGHT)
        self.cell_bold_right = self._style("cell_bold_right", fontName=f.bold, fontSize=9,
                                           leading=11, alignment=TA_RIGHT)
        self.cell_bold = self._style("cell_bold", fontName=f.bold, fontSize=9, leading=11)
        self.head = self._style("head", fontName=f.bold, fontSize=8, leading=10,
                                textColor=colors.white)
        self.head_right = self._style("head_right", fontName=f.bold, fontSize=8, leading=10,
                                      textColor=colors.white, alignment=TA_RIGHT)
        self.title = self._style("title", fontName=f.bold, fontSize=20, leading=24,
                                 textColor=ACCENT)
        self.shop = self._style("shop", fontName=f.bold, fontSize=11, leading=14)
        self.subtitle = self._style("subtitle", fontSize=10, leading=13, textColor=MUTED)
        self.h2 = self._style("h2", fontName=f.bold, fontSize=12, leading=15, textColor=ACCENT,
                              spaceBefore=12, spaceAfter=5, keepWithNext=1)
        self.h3 = self._style("h3", fontName=f.bold, fontSize=9.5, leading=12, spaceBefore=6,
                              spaceAfter=3, keepWithNext=1)
        self.finding_title = self._style("finding_title", fontName=f.bold, fontSize=9,
                                         leading=11.5)

    def p(self, markup: str, style: ParagraphStyle | None = None) -> Paragraph:
        return CachedParagraph(markup, style or self.cell)

    # --- document -------------------------------------------------------------------------

    def build(self, attachment: bytes | None = None) -> bytes:
        """The PDF, with ``attachment`` as the attached build file when given."""
        sheet = self.sheet
        buf = io.BytesIO()
        title = self._title_text()
        doc = SimpleDocTemplate(
            buf, pagesize=A4, leftMargin=MARGIN_X - FRAME_PAD, rightMargin=MARGIN_X - FRAME_PAD,
            topMargin=MARGIN_TOP, bottomMargin=MARGIN_BOTTOM,
            title=" ".join(x for x in (title, sheet.header.number) if x),
            author=sheet.header.shop or "TorchRig",
            subject=sheet.build_name,
            creator=f"TorchRig {sheet.generator}",
            invariant=1 if sheet.options.invariant else 0,
            pageCompression=1,
            lang="zh-CN" if self.lang == "zh" else "en",
        )
        story = self._story()
        # The first page carries the full header block; later pages a one-line running header.
        def first_page(canvas: Canvas, _doc: object) -> None:
            if attachment is not None:
                embed_file(canvas, ATTACHMENT_NAME, attachment)

        doc.build(story, onFirstPage=first_page, onLaterPages=self._running_header,
                  canvasmaker=numbered_canvas(self._footer))
        return buf.getvalue()

    def _title_text(self) -> str:
        header = self.sheet.header
        return header.title or text(f"title.{header.kind}", self.lang)

    def _running_header(self, canvas: Canvas, _doc: Any) -> None:
        header = self.sheet.header
        parts = [x for x in (header.shop, self._title_text(), header.number,
                             self.sheet.build_name) if x]
        line = clean_text(" - ".join(parts)).replace("\n", " ")
        font = self.fonts.for_text(line)
        line = chart_style.fit_text(line, font, 7.5, CONTENT_W)
        canvas.saveState()
        canvas.setFont(font, 7.5)
        canvas.setFillColor(MUTED)
        canvas.drawString(MARGIN_X, PAGE_H - 11 * mm, line)
        canvas.setStrokeColor(RULE)
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN_X, PAGE_H - 12.5 * mm, PAGE_W - MARGIN_X, PAGE_H - 12.5 * mm)
        canvas.restoreState()

    def _footer(self, canvas: Canvas, page: int, pages: int) -> None:
        left = text("footer.generated", self.lang, version=self.sheet.generator)
        right = text("footer.page", self.lang, page=page, pages=pages)
        canvas.saveState()
        canvas.setStrokeColor(RULE)
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN_X, 13 * mm, PAGE_W - MARGIN_X, 13 * mm)
        canvas.setFillColor(MUTED)
        canvas.setFont(self.fonts.for_text(left), 7.5)
        canvas.drawString(MARGIN_X, 9 * mm, left)
        canvas.setFont(self.fonts.for_text(right), 7.5)
        canvas.drawRightString(PAGE_W - MARGIN_X, 9 * mm, right)
        canvas.restoreState()
        if self.sheet.is_draft:
            stamp = text("draft.stamp", self.lang)
            names = text("draft.list_sep", self.lang).join(
                clean_text(name).replace("\n", " ") for name in self.sheet.draft_lines)
            line = text("draft.lines", self.lang, lines=names)
            draw_draft_stamp(canvas, stamp, self.fonts.bold if stamp.isascii()
                             else self.fonts.for_text(stamp), line, self.fonts.for_text(line))

    def _story(self) -> list[Flowable]:
        sheet = self.sheet
        story: list[Flowable] = [*self._header_block()]
        sections: list[tuple[str, Callable[[], list[Flowable]]]] = [
            ("bom", self._bom),
            ("totals", self._totals),
            ("comparison", self._comparison),
            ("requirements", self._requirements),
            ("verify", self._verify),
            ("bench", self._bench),
            ("claims", self._claims),
            ("scaling", self._scaling),
            ("findings", self._findings),
        ]
        for section, make in sections:
            if sheet.shows(section):
                story.extend(make())
            if section == "requirements":
                story.extend(self._recommendation())
        return story

    def _recommendation(self) -> list[Flowable]:
        """A plan sheet's recommendation (the lowest tier, the best-value GPU)."""
        return self._section("section.recommendation", [
            self.p(self.u(paragraph), self.body) for paragraph in self.sheet.recommendation])

    def _section(self, key: str, body: list[Flowable]) -> list[Flowable]:
        """A heading over ``body``. The page must have room for the heading and the start of
        the body (all of a chart, the first rows of a table): a heading alone at the bottom
        of a page, its chart on the next, reads as a mistake."""
        if not body:
            return []
        heading = [Paragraph(self.t(key), self.h2), rule()]
        if sum(height_of(flowable) for flowable in body) < SHORT_SECTION_H:
            # A short section (the tier comparison, a few findings) reads as one piece:
            # splitting it leaves a row or two stranded at the top of the next page.
            return [KeepTogether([*heading, *body])]
        need = 14 * mm + lead_height(body)
        return [CondPageBreak(need), *heading, *body]

    def _table(self, rows: list[list[Any]], widths: list[float], header: bool = True,
               extra: list[tuple[Any, ...]] | None = None) -> Table:
        style: list[tuple[Any, ...]] = [
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (-1, -1), 4),
            ("RIGHTPADDING", (0, 0), (-1, -1), 4),
            ("TOPPADDING", (0, 0), (-1, -1), 3),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
        ]
        if header:
            style += [
                ("BACKGROUND", (0, 0), (-1, 0), ACCENT),
                ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, ZEBRA]),
            ]
        style += extra or []
        table_style = TableStyle(style)
        split_in_row, heights = table_layout(rows, widths, table_style)
        return LongTable(rows, colWidths=widths, rowHeights=heights,
                         repeatRows=1 if header else 0, style=table_style,
                         splitInRow=split_in_row, hAlign="LEFT")

    # --- header ---------------------------------------------------------------------------

    def _logo(self) -> Flowable | None:
        path_text = self.sheet.header.logo_path
        if not path_text:
            return None
        path = Path(path_text).expanduser()
        try:
            if path.stat().st_size > MAX_LOGO_BYTES:
                raise InputError(f"{path}: logo is larger than {MAX_LOGO_BYTES // 2**20} MB")
            data, width, height = small_logo(path, jsonio.read_file_bytes(path, MAX_LOGO_BYTES))
        except InputError:
            raise
        except FileNotFoundError:
            raise InputError(f"{path}: logo image not found") from None
        except Exception:  # PIL raises many error types for a broken image
            raise InputError(f"{path}: cannot read the logo (use a PNG or JPEG image)") from None
        scale = min(LOGO_BOX[0] / width, LOGO_BOX[1] / height)
        image = Image(io.BytesIO(data), width=width * scale, height=height * scale)
        image.hAlign = "RIGHT"
        return image

    def _header_block(self) -> list[Flowable]:
        sheet, header = self.sheet, self.sheet.header
        left: list[Flowable] = []
        if header.shop:
            left.append(self.p(self.u(header.shop), self.shop))
        left.append(self.p(self.u(self._title_text()), self.title))
        if sheet.build_name:
            left.append(self.p(self.u(sheet.build_name), self.subtitle))

        facts: list[tuple[str, str]] = []
        if header.number:
            facts.append((self.t("header.number"), self.u(header.number)))
        if header.date:
            facts.append((self.t("header.date"), self.u(header.date)))
        if header.validity_days is not None:
            until = header.valid_until() or "-"
            facts.append((self.t("header.valid"),
                          self.t("header.valid_days", days=header.validity_days, until=until)))
        if header.customer:
            facts.append((self.t("header.customer"), self.u(header.customer)))
        if header.project:
            facts.append((self.t("header.project"), self.u(header.project)))
        if sheet.tier_name:
            facts.append((self.t("header.tier"), self.u(sheet.tier_name)))
        if sheet.workload_name:
            facts.append((self.t("header.workload"), self.u(sheet.workload_name)))
        right: list[Flowable] = []
        logo = self._logo()
        if logo is not None:
            right.append(logo)
            right.append(Spacer(1, 3))
        if facts:
            key_w = 24 * mm
            fact_rows = [[self.p(k, self.cell_small), self.p(v, self.cell)] for k, v in facts]
            right.append(Table(fact_rows, colWidths=[key_w, CONTENT_W * 0.42 - key_w],
                               style=TableStyle([
                                   ("VALIGN", (0, 0), (-1, -1), "TOP"),
                                   ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 2),
                                   ("TOPPADDING", (0, 0), (-1, -1), 1),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                               ]), splitInRow=1, hAlign="RIGHT"))
        block = Table([[left, right]], colWidths=[CONTENT_W * 0.58, CONTENT_W * 0.42],
                      style=TableStyle([
                          ("VALIGN", (0, 0), (-1, -1), "TOP"),
                          ("LEFTPADDING", (0, 0), (-1, -1), 0),
                          ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                          ("LINEBELOW", (0, 0), (-1, -1), 1.2, ACCENT),
                          ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
                      ]), splitInRow=1)
        return [block, Spacer(1, 4)]

    # --- bill of materials ----------------------------------------------------------------

    def _category(self, category: str) -> str:
        return self.u(label(CATEGORIES, category, self.lang))

    def _price_source(self, row: BomRow) -> str:
        bits = []
        if row.price_kind:
            bits.append(self.u(label(PRICE_KINDS, row.price_kind, self.lang)))
        if row.price_date:
            bits.append(self.u(row.price_date))
        first = ", ".join(bits)
        lines = [x for x in (first, self._source(row.price_source, row.price_source_url),
                             self._clipped(row.note), self._clipped(row.price_remark)) if x]
        return "<br/>".join(lines)

    def _source(self, text: str, url: str | None) -> str:
        """A price's source for the narrow column, linked to its page: a named source by its
        name, a web address by its site's name (a 120-character URL filled a dozen lines of
        the customer's quote), also where the text quotes one ("estimate: a cost sheet,
        https://…")."""
        address = (url or "").strip()
        if _site(address) is not None:
            shown = text if text.strip() != address else _site(address) or text
            return self._link(address, self._clipped(shown))
        out, left = [], CELL_TEXT_LIMIT
        pieces = _WEB_ADDRESS.split(text)
        for i, piece in enumerate(pieces):  # words, address, words, address, …
            site = _site(piece) if i % 2 else None
            shown = site if site is not None else piece
            if len(shown) > left:
                out.append(self.u(shown[:left]))
                rest = len(shown) - left + sum(
                    len(_site(x) or x) if j % 2 else len(x)
                    for j, x in enumerate(pieces[i + 1:], start=i + 1))
                return "".join(out) + self._clip_mark(rest)
            left -= len(shown)
            out.append(self._link(piece, self.u(shown)) if site is not None else self.u(shown))
        return "".join(out)

    @staticmethod
    def _link(address: str, shown: str) -> str:
        href = address.replace("&", "&amp;").replace('"', "%22").replace("<", "%3C")
        return f'<a href="{href}" color="#1f5f99">{shown}</a>'

    def _clipped(self, value: str) -> str:
        """A price source or note for a table cell, shortened past :data:`CELL_TEXT_LIMIT`:
        the build file allows 2,000 characters each, and 500 rows of those in a 30 mm column
        made thousands of pages that took minutes to lay out; the file keeps every character."""
        if len(value) <= CELL_TEXT_LIMIT:
            return self.u(value)
        return self.u(value[:CELL_TEXT_LIMIT]) + self._clip_mark(len(value) - CELL_TEXT_LIMIT)

    def _clip_mark(self, left: int) -> str:
        """What ends a shortened text: how much the file still holds on the internal sheet; on
        a customer copy only "…" (the build file is the shop's)."""
        if self.sheet.options.internal:
            return self.t("bom.clipped", n=f"{left:,}")
        return "…"

    def _bom(self) -> list[Flowable]:
        sheet = self.sheet
        if not sheet.bom:
            return self._section("section.bom", [self.p(self.t("bom.empty"), self.body)])
        currency = sheet.totals.currency if sheet.totals else ""
        cur = f" ({escape_text(currency)})" if currency else ""
        head = [
            self.p(self.t("bom.category"), self.head),
            self.p(self.t("bom.part"), self.head),
            self.p(self.t("bom.spec"), self.head),
            self.p(self.t("bom.qty"), self.head_right),
            self.p(self.t("bom.unit_price") + cur, self.head_right),
            self.p(self.t("bom.line_total") + cur, self.head_right),
            self.p(self.t("bom.price_source"), self.head),
        ]
        no_price = text("bom.no_price", self.lang)
        widths = [22 * mm, 38 * mm, 38 * mm, 10 * mm, 21 * mm, 23 * mm]
        widths.append(CONTENT_W - sum(widths))
        rows = [head]
        styles = [self.cell, self.cell, self.cell_small, *[self.cell_right] * 3]
        wide = None if self.fonts.body == self.fonts.wide else self.fonts.wide

        def cell(column: int, value: str) -> Any:
            # A cell of plain lines is a string the table draws (pdf_layout.string_cell_text).
            style = styles[column]
            plain = string_cell_text(value, style, widths[column], wide)
            return plain if plain is not None else self.p(self.u(value), style)

        for row in sheet.bom:
            rows.append([
                cell(0, label(CATEGORIES, row.category, self.lang)),
                cell(1, keep_last_word(row.part)),
                cell(2, row.key_spec),
                cell(3, str(row.qty)),
                cell(4, fmt_money(row.unit_price, no_price)),
                cell(5, fmt_money(row.line_total, no_price)),
                self.p(self._price_source(row), self.cell_small),
            ])
        out: list[Flowable] = [self._table(rows, widths, extra=text_column_style(styles))]
        if any("*" in row.key_spec for row in sheet.bom):
            out += [Spacer(1, 2), self.p(self.t("bom.derived_note"), self.small)]
        return self._section("section.bom", out)

    def _totals(self) -> list[Flowable]:
        totals = self.sheet.totals
        if totals is None:
            return []
        unknown = text("totals.unknown", self.lang)
        cur = totals.currency

        def money(amount: Any) -> str:
            return escape_text(f"{cur} {fmt_money(amount, unknown)}")

        rows: list[list[Any]] = [[self.p(self.t("totals.subtotal"), self.cell_right),
                                  self.p(money(totals.subtotal), self.cell_right)]]
        if totals.discount is not None:
            rows.append([self.p(self.t("totals.discount"), self.cell_right),
                         self.p(escape_text(f"- {cur} {fmt_money(totals.discount, unknown)}"),
                                self.cell_right)])
        if totals.tax is not None:
            label = (self.t("totals.tax_rate", rate=fmt_percent_number(totals.tax_rate_percent))
                     if totals.tax_rate_percent is not None else self.t("totals.tax"))
            rows.append([self.p(label, self.cell_right), self.p(money(totals.tax),
                                                                self.cell_right)])
        rows.append([self.p(self.t("totals.total"), self.cell_bold_right),
                     self.p(money(totals.total), self.cell_bold_right)])
        table = Table(rows, colWidths=[45 * mm, 45 * mm], hAlign="RIGHT", style=TableStyle([
            ("LEFTPADDING", (0, 0), (-1, -1), 4),
            ("RIGHTPADDING", (0, 0), (-1, -1), 4),
            ("TOPPADDING", (0, 0), (-1, -1), 2),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ("LINEABOVE", (0, -1), (-1, -1), 1, ACCENT),
            ("LINEBELOW", (0, -1), (-1, -1), 1, ACCENT),
        ]))
        out: list[Flowable] = [Spacer(1, 6), table]
        notes = []
        if totals.missing_prices:
            notes.append(f'<font color="{STATUS_COLORS[Status.SHORT]}">'
                         f'{escape_text(incomplete_note(totals.missing_prices, self.lang))}</font>')
        if totals.exchange_rate is not None and totals.exchange_from:
            notes.append(self.t("totals.exchange") + self.t("colon") + self.t(
                "totals.exchange_value", src=totals.exchange_from,
                rate=f"{totals.exchange_rate:f}", dst=totals.exchange_to or cur,
                date=totals.exchange_date or unknown)
                + (self.t("totals.exchange_origin", origin=totals.exchange_origin)
                   if totals.exchange_origin else ""))
        notes += [self.u(note) for note in totals.notes]
        if self.sheet.build_json is not None and self.sheet.shows("attachment"):
            # A line under the money, not a section: as the last section it was often one
            # stranded sentence on a page of its own.
            notes.append(self.t("attach.note", name=ATTACHMENT_NAME))
        # The money and what qualifies it (incomplete, rate, rounding) read as one block.
        out = [KeepTogether([*out, *(self.p(note, self.small_right) for note in notes)])]
        if self.sheet.notes.strip():
            out += [Spacer(1, 6),
                    self.p(f"<b>{self.t('notes')}{self.t('colon')}</b>"
                           + self.u(self.sheet.notes.strip()),
                           self.body)]
        return out

    # --- comparison -----------------------------------------------------------------------

    def _status(self, status: Status) -> str:
        color = STATUS_COLORS.get(status, NEUTRAL_STATUS)
        return f'<font color="{color}">{escape_text(status.label.get(self.lang))}</font>'

    def _comparison(self) -> list[Flowable]:
        sheet = self.sheet
        if not sheet.comparison:
            return []
        out: list[Flowable] = []
        if sheet.comparison_tier:
            out.append(self.p(self.t("header.tier") + self.t("colon")
                              + self.u(sheet.comparison_tier),
                              self.body))
            out.append(Spacer(1, 3))
        with_machine = any(row.machine is not None for row in sheet.comparison)
        head = [self.p(self.t("cmp.dimension"), self.head),
                self.p(self.t("cmp.target"), self.head),
                self.p(self.t("cmp.build"), self.head)]
        if with_machine:
            head.append(self.p(self.t("cmp.machine"), self.head))
        rows = [head]
        for row in sheet.comparison:
            cells = [self.p(self.u(row.dimension)), self.p(self.u(row.target)),
                     self.p(self.u(row.build) + "<br/>" + self._status(row.build_status))]
            if with_machine:
                machine = row.machine if row.machine is not None else text("unknown", self.lang)
                status = row.machine_status or Status.UNKNOWN
                cells.append(self.p(self.u(machine) + "<br/>" + self._status(status)))
            rows.append(cells)
        if with_machine:
            widths = [45 * mm, 40 * mm]
            rest = (CONTENT_W - sum(widths)) / 2
            widths += [rest, rest]
        else:
            widths = [55 * mm, 55 * mm]
            widths.append(CONTENT_W - sum(widths))
        out.append(self._table(rows, widths))
        return self._section("section.comparison", out)

    # --- requirements ---------------------------------------------------------------------

    def _requirements(self) -> list[Flowable]:
        sheet = self.sheet
        if not sheet.requirements and not sheet.requirement_notes:
            return []
        from torchrig.report import charts  # only a sheet with charts imports reportlab.graphics

        out: list[Flowable] = []
        for group in sheet.requirements:
            block: list[Flowable] = [charts.breakdown_chart(group, self.fonts, self.lang,
                                                            CONTENT_W)]
            if group.note:
                block.append(self.p(self.u(group.note), self.small))
            block.append(Spacer(1, 6))
            out.append(KeepTogether(block))
        # What the bars assume, as footnotes under them.
        out += [self.p(self.u(note), self.small) for note in sheet.requirement_notes]
        return self._section("section.requirements", out)

    # --- benchmarks -----------------------------------------------------------------------

    def _bench(self) -> list[Flowable]:
        sheet = self.sheet
        if not sheet.bench:
            return []
        out: list[Flowable] = []
        if sheet.bench_context:
            out += [self.p(self.u(sheet.bench_context), self.small), Spacer(1, 3)]
        unknown = text("bench.not_measured", self.lang)
        rows = [[self.p(self.t("bench.name"), self.head),
                 self.p(self.t("bench.measured"), self.head_right),
                 self.p(self.t("bench.reference"), self.head),
                 self.p(self.t("bench.percent"), self.head_right)]]
        for row in sheet.bench:
            ref_lines = []
            if row.reference is not None:
                ref_lines.append(escape_text(fmt_measure(row.reference, row.unit,
                                                         row.measure_id)))
            if row.reference_label:
                ref_lines.append(f'<font size="6.8" color="#666666">'
                                 f"{self.u(row.reference_label)}</font>")
            if row.source:
                ref_lines.append(f'<font size="6.8" color="#666666">'
                                 f'{self.u(citation(row.source, self.lang))}</font>')
            name = self.u(row.name)
            if row.note:
                name += f'<br/><font size="6.8" color="#666666">{self.u(row.note)}</font>'
            rows.append([
                self.p(name),
                self.p(escape_text(fmt_measure(row.measured, row.unit, row.measure_id, unknown)),
                       self.cell_right),
                self.p("<br/>".join(ref_lines) or "-"),
                self.p(escape_text(fmt_percent(row.percent)), self.cell_right),
            ])
        # The name carries how each figure was counted: the widest column.
        widths = [76 * mm, 28 * mm, 0.0, 18 * mm]
        widths[2] = CONTENT_W - sum(widths)
        out.append(self._table(rows, widths))
        from torchrig.report import charts  # only a sheet with charts imports reportlab.graphics

        if any(row.reference and row.measured is not None for row in sheet.bench):
            out += [Spacer(1, 8), charts.bench_chart(sheet.bench, self.fonts, self.lang,
                                                     CONTENT_W)]
        if sheet.throughput:
            out += [Spacer(1, 8), charts.throughput_chart(sheet.throughput, self.fonts,
                                                          self.lang, CONTENT_W)]
        return self._section("section.bench", out)

    def _verify(self) -> list[Flowable]:
        if self.sheet.verify is None:
            return []
        from torchrig.report.verify_section import verify_flowables

        return self._section("section.verify", verify_flowables(self, self.sheet.verify))

    def _claims(self) -> list[Flowable]:
        sheet = self.sheet
        if not sheet.claims:
            return []
        unknown = text("bench.not_measured", self.lang)
        verdict_colors = {"holds": Status.MEETS, "below": Status.SHORT,
                          "above": Status.EXCEEDS, "unknown": Status.UNKNOWN}
        rows = [[self.p(self.t("claim.claim"), self.head),
                 self.p(self.t("claim.seed"), self.head),
                 self.p(self.t("claim.measured"), self.head_right),
                 self.p(self.t("claim.verdict"), self.head)]]
        for row in sheet.claims:
            seed = self.u(row.seed)
            if row.source:
                seed += (f'<br/><font size="6.8" color="#666666">'
                         f'{self.u(citation(row.source, self.lang))}</font>')
            color = STATUS_COLORS[verdict_colors[row.verdict]]
            rows.append([
                self.p(self.u(row.claim)),
                self.p(seed),
                self.p(escape_text(fmt_measure(row.measured, row.unit, row.measure_id, unknown)),
                       self.cell_right),
                self.p(f'<font color="{color}">{self.t("verdict." + row.verdict)}</font>'),
            ])
        widths = [45 * mm, 0.0, 30 * mm, 28 * mm]
        widths[1] = CONTENT_W - sum(widths)
        return self._section("section.claims", [self._table(rows, widths)])

    def _scaling(self) -> list[Flowable]:
        sheet = self.sheet
        if not any(s.points for s in sheet.scaling):
            return []
        from torchrig.report import charts  # only a sheet with charts imports reportlab.graphics

        return self._section("section.scaling", [
            charts.scaling_chart(sheet.scaling, self.fonts, self.lang, CONTENT_W)])

    # --- findings -------------------------------------------------------------------------

    def _finding(self, finding: Finding) -> Table:
        color = SEVERITY_COLORS[finding.severity]
        content: list[Flowable] = [
            self.p(self.u(finding.title.get(self.lang)), self.finding_title)]
        detail = finding.detail.get(self.lang)
        if detail:
            content.append(self.p(self.u(detail), self.cell))
        fix = finding.fix.get(self.lang)
        if fix:
            content.append(self.p(f"<b>{self.t('findings.fix')}{self.t('colon')}</b>"
                                  + self.u(fix), self.cell))
        if finding.source:
            content.append(self.p(self.t("findings.source") + self.t("colon")
                                  + self.u(citation(finding.source, self.lang)),
                                  self.cell_small))
        rows: list[list[Any]] = [["", content]]
        widths = [3, CONTENT_W - 3]
        style = TableStyle([
            ("BACKGROUND", (0, 0), (0, -1), color),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LEFTPADDING", (0, 0), (0, -1), 0),
            ("RIGHTPADDING", (0, 0), (0, -1), 0),
            ("LEFTPADDING", (1, 0), (1, -1), 6),
            ("TOPPADDING", (0, 0), (-1, -1), 3),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ])
        return Table(rows, colWidths=widths, splitInRow=row_split(rows, widths, style),
                     hAlign="LEFT", style=style)

    def _findings(self) -> list[Flowable]:
        sheet = self.sheet
        if not sheet.findings:
            return self._section("section.findings", [self.p(self.t("findings.none"), self.body)])
        out: list[Flowable] = []
        ordered = sort_findings(sheet.findings)
        for severity in Severity:
            group = [f for f in ordered if f.severity is severity]
            if not group:
                continue
            color = SEVERITY_COLORS[severity].hexval().replace("0x", "#")
            heading = (f'<font color="{color}">{escape_text(severity.label.get(self.lang))}'
                       f"</font> ({len(group)})")
            out.append(Paragraph(heading, self.h3))
            for finding in group:
                out.append(self._finding(finding))
                out.append(Spacer(1, 4))
        return self._section("section.findings", out)



