"""Field readers the catalog, the tiers and build files share: money, dates, texts.

One rule per kind of value, used by every file that holds one: a price in the catalog, a tier
starter line, a build's line or exchange rate and an imported price list are read by the same
:func:`parse_money` and :func:`check_date`, so the files agree on what they accept; amounts
typed as text follow the same rule (:mod:`torchrig.catalog.money_text`).
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from torchrig.catalog.money_text import checked_amount, parse_amount_text, plain_message
from torchrig.errors import InputError
from torchrig.i18n import Msg

CATALOG_VERSION = 1
"""The version of every shipped catalog document (parts, sources, tiers)."""

DATE_RE = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")


def parse_money(value: Any, where: str) -> Decimal:
    """A money amount from JSON: a decimal string ("12999.00", or grouped "12,999.00": the
    one text rule of :mod:`torchrig.catalog.money_text`) or a number; never NaN/inf."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(plain_message(where, value))
    if isinstance(value, str):
        return parse_amount_text(value, where)
    try:
        amount = Decimal(str(value))
    except InvalidOperation:
        raise InputError(plain_message(where, value)) from None
    return checked_amount(amount, where, value)


def check_date(value: Any, where: str) -> str:
    """``YYYY-MM`` or ``YYYY-MM-DD`` with a real month/day; returned unchanged."""
    # fullmatch: DATE_RE's "$" also matches before a final line break, which let
    # "2024-01\n" through unchanged.
    m = DATE_RE.fullmatch(value) if isinstance(value, str) else None
    ok = m is not None and 1990 <= int(m.group(1)) <= 2100 and 1 <= int(m.group(2)) <= 12
    if ok and m is not None and m.group(3):
        try:
            datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            ok = False
    if not ok:
        raise InputError(f"{where} must be a date YYYY-MM or YYYY-MM-DD, got {value!r}")
    return value


def text_field(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: field '{key}' must be non-empty text, got {value!r}")
    return value


def msg_field(obj: dict[str, Any], key: str, where: str) -> Msg:
    value = obj.get(key)
    if (not isinstance(value, dict) or not isinstance(value.get("en"), str)
            or not isinstance(value.get("zh"), str)):
        raise InputError(f"{where}: field '{key}' must be an object with 'en' and 'zh' texts")
    return Msg(en=value["en"], zh=value["zh"])
