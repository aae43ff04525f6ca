"""The quote as an Excel workbook (``.xlsx``), as shops exchange them: the parts list with live
formulas for each line total, the subtotal, discount, tax and total.

The rows, prices and totals are the PDF's: both are drawn from the same
:class:`~torchrig.report.sheet.Sheet`. Unit prices are written as pricing computed them (each
already rounded to cents); the formulas then redo pricing's arithmetic
(:mod:`torchrig.builds.pricing`: line total = unit price x quantity per node x nodes, subtotal =
the sum of the priced lines, a percentage discount and the tax each rounded to cents - Excel's
ROUND rounds halves away from zero, as pricing's half-up does for the positive amounts of a
quote), so a shop that changes a quantity in Excel gets totals that still add up. A line
without a price has no unit price and no total (the sum skips it, as pricing's does), and the
sheet says so: a draft is marked as one above the table.
"""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

from torchrig.labels import CATEGORIES, PRICE_KINDS, label
from torchrig.report.markup import clean_text
from torchrig.report.sheet import Sheet
from torchrig.report.strings import incomplete_note, text
from torchrig.units import fmt_percent_number

MONEY_FORMAT = "#,##0.00"
COLUMNS = ("bom.category", "bom.part", "bom.spec", "xlsx.qty", "xlsx.nodes", "bom.unit_price",
           "bom.line_total", "bom.price_source")
"""The parts table's columns: A category … H price source (the formulas name D to G)."""
WIDTHS = (14, 40, 36, 8, 8, 14, 16, 48)


def render_sheet_xlsx(sheet: Sheet) -> bytes:
    """The workbook for ``sheet`` as bytes (the parts list and the money; the other sections
    stay in the PDF)."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill

    lang = sheet.options.lang
    book = Workbook()
    ws = book.active
    assert ws is not None
    ws.title = text("xlsx.tab", lang)
    bold = Font(bold=True)
    header = sheet.header
    title = header.title or text(f"title.{header.kind}", lang)
    ws.append([title])
    ws["A1"].font = Font(bold=True, size=16)
    facts = [(text("header.number", lang), header.number), (text("header.date", lang),
                                                            header.date),
             (text("header.customer", lang), header.customer),
             (text("header.project", lang), header.project)]
    if sheet.build_name:
        ws.append([sheet.build_name])
    if header.shop:
        ws.append([clean_text(header.shop).replace("\n", "  ")])
    for key, value in facts:
        if value:
            ws.append([key, clean_text(value)])
    if header.validity_days is not None:
        ws.append([text("header.valid", lang), text("header.valid_days", lang,
                                                    days=header.validity_days,
                                                    until=header.valid_until() or "-")])
    if sheet.is_draft:
        names = text("draft.list_sep", lang).join(sheet.draft_lines)
        ws.append([text("draft.lines", lang, lines=names)])
        ws.cell(ws.max_row, 1).font = Font(bold=True, color="B3261E")
    ws.append([None])
    currency = sheet.totals.currency if sheet.totals else ""
    ws.append([text(key, lang) + (f" ({currency})" if key in ("bom.unit_price",
                                                               "bom.line_total") else "")
               for key in COLUMNS])
    head_row = ws.max_row
    for cell in ws[head_row]:
        cell.font = Font(bold=True, color="FFFFFF")
        cell.fill = PatternFill("solid", fgColor="1F4E79")
    first = head_row + 1
    for row in sheet.bom:
        r = ws.max_row + 1
        source = ", ".join(x for x in (label(PRICE_KINDS, row.price_kind, lang)
                                       if row.price_kind else "", row.price_date or "",
                                       row.price_source_url or row.price_source, row.note,
                                       row.price_remark)
                           if x)
        per_node = row.qty // row.nodes if row.nodes else row.qty
        ws.append([label(CATEGORIES, row.category, lang), clean_text(row.part),
                   clean_text(row.key_spec), per_node, row.nodes,
                   row.unit_price if row.unit_price is not None else text("bom.no_price", lang),
                   f"=F{r}*D{r}*E{r}" if row.unit_price is not None else
                   text("bom.no_price", lang),
                   clean_text(source)])
        for column in "FG":
            ws[f"{column}{r}"].number_format = MONEY_FORMAT
        ws[f"H{r}"].alignment = Alignment(wrap_text=True, vertical="top")
    last = ws.max_row
    if sheet.totals is not None:
        _totals(ws, sheet, first, last, bold)
    if sheet.notes.strip():
        ws.append([None])
        ws.append([text("notes", lang), clean_text(sheet.notes.strip())])
        ws.cell(ws.max_row, 1).font = bold
    for i, width in enumerate(WIDTHS):
        ws.column_dimensions[chr(ord("A") + i)].width = width
    _text_stays_text(ws)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _text_stays_text(ws: Any) -> None:
    """Only the money column holds formulas, and only the ones written here: a part name or a
    customer typed as "=HYPERLINK(...)" would otherwise be stored as a live formula (the
    spreadsheet form of CSV injection), so every other cell openpyxl took for one is text."""
    for row in ws.iter_rows():
        for cell in row:
            if cell.data_type == "f" and cell.column_letter != "G":
                cell.data_type = "s"


def _totals(ws: Any, sheet: Sheet, first: int, last: int, bold: Any) -> None:
    """Subtotal, discount, tax and total in column G under the parts, labels in column F."""
    totals = sheet.totals
    assert totals is not None
    lang = sheet.options.lang
    rows = iter(range(last + 2, last + 10))  # one blank row under the parts, then the money

    def put(label_key: str, formula: str | Decimal, label_text: str | None = None) -> int:
        r = next(rows)
        ws.cell(r, 6, label_text or text(label_key, lang))
        ws.cell(r, 7, formula).number_format = MONEY_FORMAT
        return r

    sub = put("totals.subtotal",
              f"=SUM(G{first}:G{last})" if last >= first else Decimal("0"))
    discount_ref = "0"
    if totals.discount is not None:
        if totals.discount_percent is not None:
            row = put("totals.discount", f"=ROUND(G{sub}*{totals.discount_percent}/100,2)",
                      f"{text('totals.discount', lang)} ({totals.discount_percent:g}%)")
        else:
            row = put("totals.discount", totals.discount)  # a fixed amount, as pricing capped it
        discount_ref = f"G{row}"
    tax_ref = "0"
    if totals.tax is not None and totals.tax_rate_percent is not None:
        row = put("totals.tax_rate",
                  f"=ROUND((G{sub}-{discount_ref})*{totals.tax_rate_percent}/100,2)",
                  text("totals.tax_rate", lang, rate=fmt_percent_number(totals.tax_rate_percent)))
        tax_ref = f"G{row}"
    total = put("totals.total", f"=G{sub}" + (f"-{discount_ref}" if discount_ref != "0" else "")
                + (f"+{tax_ref}" if tax_ref != "0" else ""))
    ws.cell(total, 6).font = bold
    ws.cell(total, 7).font = bold
    notes = []
    if totals.missing_prices:
        notes.append(incomplete_note(totals.missing_prices, lang))
    if totals.exchange_rate is not None and totals.exchange_from:
        notes.append(text("totals.exchange", lang) + text("colon", lang) + text(
            "totals.exchange_value", lang, src=totals.exchange_from,
            rate=f"{totals.exchange_rate:f}", dst=totals.exchange_to or totals.currency,
            date=totals.exchange_date or text("totals.unknown", lang))
            + (text("totals.exchange_origin", lang, origin=totals.exchange_origin)
               if totals.exchange_origin else ""))
    notes += totals.notes
    for note in notes:
        ws.append([clean_text(note)])
