"""A price typed on a line rather than taken from the catalog: a build's line item (the user's
override, a supplier quote) or a tier's starter line (a sourced figure for something the catalog
cannot stock, such as a switch). Both file formats read it with this one validation, so a price
a tier may carry is exactly a price a build may carry.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from torchrig.catalog.fields import check_date, parse_money
from torchrig.catalog.model import CURRENCIES, PRICE_KINDS, LinePrice
from torchrig.errors import InputError

MAX_SOURCE = 2000
"""Longest price source (and, in builds, note)."""

PRICE_KEYS = frozenset({"unit_price", "currency", "price_source", "price_date", "price_kind",
                        "price_remark"})


def parse_line_price(raw: dict[str, Any], where: str) -> LinePrice:
    """The price fields of one line object; ``where`` names the line (``...line_items[2]``)."""
    price: Decimal | None = None
    currency = raw.get("currency")
    if raw.get("unit_price") is not None:
        price = parse_money(raw["unit_price"], f"{where}.unit_price")
        if price < 0:
            raise InputError(f"{where}.unit_price must not be negative")
        if currency not in CURRENCIES:
            raise InputError(f"{where}.currency must be CNY or USD when unit_price is set, "
                             f"got {currency!r}")
    else:
        # No price yet (a custom line may wait for a supplier quote): pricing flags it.
        currency = None
    price_date = raw.get("price_date", "")
    if price_date:
        check_date(price_date, f"{where}.price_date")
    price_source = raw.get("price_source", "")
    if not isinstance(price_source, str) or len(price_source) > MAX_SOURCE:
        raise InputError(f"{where}.price_source must be text (at most {MAX_SOURCE} characters)")
    price_kind = raw.get("price_kind", "")
    if price_kind and (price_kind not in PRICE_KINDS or price is None):
        raise InputError(f"{where}.price_kind must be one of {', '.join(PRICE_KINDS)} and come "
                         f"with a unit_price, got {price_kind!r}")
    price_remark = raw.get("price_remark", "")
    if not isinstance(price_remark, str) or len(price_remark) > MAX_SOURCE:
        raise InputError(f"{where}.price_remark must be text (at most {MAX_SOURCE} characters)")
    if price_remark and price is None:
        raise InputError(f"{where}.price_remark speaks of a price: it needs a unit_price")
    return LinePrice(unit_price=price, currency=currency, price_source=price_source,
                     price_date=price_date, price_kind=price_kind, price_remark=price_remark)


__all__ = ["MAX_SOURCE", "PRICE_KEYS", "parse_line_price"]
