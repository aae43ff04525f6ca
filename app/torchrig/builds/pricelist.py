"""Import a supplier price list (CSV) as price overrides for a build.

Format: a header ``part_id,price,currency,date`` with an optional ``source`` column (each named
once), then one row per part; a price is written as catalog/money_text.py says (``1299.00`` or
``1,299.00``). The whole file is checked before anything is applied: the malformed rows are
counted and reported with their line numbers in one :class:`InputError` (as many as fit in
one message, then how many more), so a half-applied price list never happens.
Part ids the catalog does not know are not errors (a supplier lists more than we stock); they
come back as warnings. Files over 5 MB are refused before reading.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from torchrig.builds.build import Build, LineItem, validate_line
from torchrig.catalog.fields import check_date, parse_money
from torchrig.catalog.model import CURRENCIES, Catalog
from torchrig.errors import MAX_MESSAGE, InputError
from torchrig.jsonio import read_text_file

MAX_PRICE_LIST_BYTES = 5 * 1000 * 1000
REQUIRED_COLUMNS = ("part_id", "price", "currency", "date")
MORE_ROOM = len("; and 9999999 more bad row(s)")
"""What the count of the rows not shown needs (a 5 MB file has fewer than 10 million rows)."""


@dataclass(frozen=True)
class PriceOverride:
    part_id: str
    price: Decimal
    currency: str
    date: str
    source: str
    line: int


@dataclass(frozen=True)
class PriceList:
    """Overrides by part id (a later row for the same id wins), plus warnings with line
    numbers for rows that were skipped (unknown ids, repeated ids)."""

    path: str
    overrides: dict[str, PriceOverride]
    warnings: tuple[str, ...]

    def apply(self, build: Build) -> tuple[Build, int]:
        """A copy of ``build`` whose catalog lines use these prices; returns it and the number
        of lines changed. Lines without a matching override keep their own price."""
        changed = 0
        lines = []
        for item in build.line_items:
            ov = self.overrides.get(item.part_id) if item.part_id else None
            if ov is None:
                lines.append(item)
                continue
            changed += 1
            source = ov.source or f"price list {Path(self.path).name} line {ov.line}"
            lines.append(replace(item, unit_price=ov.price, currency=ov.currency,
                                 price_source=source, price_date=ov.date, price_kind="",
                                 price_remark=""))
        return replace(build, line_items=lines), changed


def load_price_list(path: str | Path, catalog: Catalog) -> PriceList:
    path = Path(path)
    text = read_text_file(path, max_bytes=MAX_PRICE_LIST_BYTES)
    return parse_price_list(text, catalog, where=str(path))


def parse_price_list(text: str, catalog: Catalog, where: str = "price list") -> PriceList:
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise InputError(f"{where}: not a valid CSV file ({exc})") from None
    if not rows:
        raise InputError(f"{where}: the file is empty; expected a header "
                         f"{','.join(REQUIRED_COLUMNS)}[,source]")
    header = [h.strip().lower() for h in rows[0]]
    repeated = next((name for i, name in enumerate(header) if name and name in header[:i]),
                    None)
    if repeated is not None:
        # Which of two "price" columns is the price? Taking either would be a guess.
        raise InputError(f"{where}: line 1: column {repeated!r} appears more than once in the "
                         "header; keep one")
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(f"{where}: line 1: header lacks column(s) {', '.join(missing)}; "
                         f"expected {','.join(REQUIRED_COLUMNS)}[,source]")
    col = {name: header.index(name) for name in (*REQUIRED_COLUMNS, "source") if name in header}
    errors: list[str] = []
    warnings: list[str] = []
    overrides: dict[str, PriceOverride] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            errors.append(f"line {number}: {len(row)} column(s), expected {len(header)}")
            continue
        cell = {name: row[i].strip() for name, i in col.items()}
        try:
            price = parse_money(cell["price"], f"line {number}: price")
            if price < 0:
                raise InputError(f"line {number}: price must not be negative")
            currency = cell["currency"].upper()
            if currency not in CURRENCIES:
                raise InputError(f"line {number}: currency must be CNY or USD, got "
                                 f"{cell['currency']!r}")
            date = check_date(cell["date"], f"line {number}: date")
            # The build's own line check: what the import writes into a build must load again.
            validate_line(LineItem(part_id=cell["part_id"] or "?", unit_price=price,
                                   currency=currency, price_source=cell.get("source", ""),
                                   price_date=date), f"line {number}: row")
        except InputError as exc:
            errors.append(str(exc))
            continue
        part_id = cell["part_id"]
        if part_id not in catalog.parts:
            warnings.append(f"line {number}: unknown part id {part_id!r} (skipped)")
            continue
        if part_id in overrides:
            warnings.append(f"line {number}: {part_id} listed again (line "
                            f"{overrides[part_id].line}); the later price is used")
        overrides[part_id] = PriceOverride(part_id, price, currency, date,
                                           cell.get("source", ""), number)
    if errors:
        # InputError cuts a message at MAX_MESSAGE characters. Rows are shown while the count
        # of the rest still fits, so that count is never what gets cut (a fixed 20 rows passed
        # the limit and cut it off: issue 28's mutation tests).
        head = f"{where}: {len(errors)} bad row(s): "
        shown = errors[:1]
        for error in errors[1:]:
            if len(head) + len("; ".join([*shown, error])) + MORE_ROOM > MAX_MESSAGE:
                break
            shown.append(error)
        more = (f"; and {len(errors) - len(shown)} more bad row(s)"
                if len(errors) > len(shown) else "")
        raise InputError(head + "; ".join(shown) + more)
    return PriceList(path=where, overrides=overrides, warnings=tuple(warnings))
