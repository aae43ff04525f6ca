"""Warnings that go with a part's price: a price too old to quote, a part out of production.

The picker, the build table and the quote all call :func:`price_alerts`, so the rule (six
months; the maker's end-of-life date) lives in one place.
"""

from __future__ import annotations

import datetime

from torchrig.catalog.model import Part, Price
from torchrig.i18n import Msg
from torchrig.records import record

STALE_AFTER_MONTHS = 6
"""A price older than this no longer says what the part costs today."""


@record
class Alert:
    """One warning: ``code`` is ``"price.stale"`` or ``"part.eol"``."""

    code: str
    text: Msg


def months_between(date: str, today: datetime.date) -> int:
    """Whole months from a ``YYYY-MM[-DD]`` date to ``today`` (a month date counts from its
    first day); negative for a date in the future."""
    year, month = int(date[:4]), int(date[5:7])
    day = int(date[8:10]) if len(date) >= 10 else 1
    months = (today.year - year) * 12 + (today.month - month)
    return months - 1 if today.day < day else months


def price_alerts(part: Part | None, price: Price | None, today: datetime.date | None = None,
                 price_date: str | None = None) -> list[Alert]:
    """Alerts for quoting ``part`` at ``price`` (either may be None). ``price_date`` stands in
    for a price typed into a build (an override with its own date)."""
    today = today or datetime.date.today()
    out: list[Alert] = []
    date = price_date or (price.date if price else None)
    if date:
        age = months_between(date, today)
        if age > STALE_AFTER_MONTHS:
            out.append(Alert("price.stale", Msg(
                f"price from {date} is {age} months old: check the current price",
                f"价格日期 {date}，已 {age} 个月：请核实当前价格")))
    if part is not None and part.end_of_life is not None:
        eol = part.end_of_life.date
        out.append(Alert("part.eol", Msg(
            f"out of production since {eol}: stock is scarce and may cost more than at launch",
            f"自 {eol} 起已停产：货源少，价格可能高于首发价")))
    return out
