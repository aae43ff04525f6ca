"""The shared field readers at their edges (scripts/mutate.py catalog.fields): money as plain
ASCII digits below 1e12, dates from 1990 to 2100 with real months and days, non-empty texts
and two-language messages. The limits are the module's (1e12, 1990-2100); the calendar is
the Gregorian one (2024 is a leap year, 2023 is not).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from torchrig.catalog.fields import check_date, msg_field, parse_money, text_field
from torchrig.errors import InputError
from torchrig.i18n import Msg


@pytest.mark.parametrize(("value", "amount"), [
    ("12999.00", Decimal("12999.00")),
    (" 12.5 ", Decimal("12.5")),  # edge spaces are not part of the amount
    ("-0.5", Decimal("-0.5")),  # the sign is the caller's to judge (discounts, prices)
    (7, Decimal("7")),
    (1e3, Decimal("1000.0")),
    ("999999999999.99", Decimal("999999999999.99")),  # just below 1e12
    ("-999999999999", Decimal("-999999999999")),
])
def test_money_accepted(value: object, amount: Decimal) -> None:
    got = parse_money(value, "price")
    assert got == amount and str(got) == str(amount)


@pytest.mark.parametrize(("value", "fragment"), [
    ("1_000", "must be an amount like"),
    ("１２", "must be an amount like"),  # full-width digits
    ("1e3", "must be an amount like"),
    (".5", "must be an amount like"),
    ("5.", "must be an amount like"),
    ("", "must be an amount like"),
    (True, "must be an amount like"),
    (None, "must be an amount like"),
    ([1], "must be an amount like"),
    (float("nan"), "must be a finite amount"),
    (float("inf"), "must be a finite amount"),
    ("1000000000000", "implausibly large: 1.000e+12 (at most 1e12)"),
    (1e12, "implausibly large"),
    ("-1000000000000", "implausibly large"),
])
def test_money_refused(value: object, fragment: str) -> None:
    with pytest.raises(InputError) as info:
        parse_money(value, "line_items[1].unit_price")
    assert str(info.value).startswith("line_items[1].unit_price ")
    assert fragment in str(info.value)
    if "implausibly" not in fragment:
        assert str(info.value).endswith(f", got {value!r}")  # the value as given


@pytest.mark.parametrize("value", ["1990-01", "2100-12", "2024-02-29", "2023-12-31",
                                   "2024-10", "2000-01-01"])
def test_dates_accepted(value: str) -> None:
    assert check_date(value, "date") == value


@pytest.mark.parametrize("value", ["1989-12", "2101-01", "2024-00", "2024-13", "2023-02-29",
                                   "2024-04-31", "2024-01-00", "2024-1-01", "24-01",
                                   "2024-01\n", "2024-01-01x", " 2024-01", "2024/01", "",
                                   None, 202401])
def test_dates_refused(value: object) -> None:
    with pytest.raises(InputError, match="date must be a date YYYY-MM or YYYY-MM-DD, got "):
        check_date(value, "date")


def test_text_field() -> None:
    assert text_field({"k": " x "}, "k", "w") == " x "
    for bad in ({"k": "  "}, {"k": ""}, {}, {"k": 3}):
        with pytest.raises(InputError, match="w: field 'k' must be non-empty text"):
            text_field(bad, "k", "w")


def test_msg_field() -> None:
    assert msg_field({"k": {"en": "a", "zh": "甲"}}, "k", "w") == Msg("a", "甲")
    for bad in ({"k": {"en": "a"}}, {"k": {"zh": "甲"}}, {"k": {"en": "a", "zh": 1}},
                {"k": {"en": 1, "zh": "甲"}}, {"k": "a"}, {}):
        with pytest.raises(InputError, match="w: field 'k' must be an object with 'en' and "
                           "'zh' texts"):
            msg_field(bad, "k", "w")
