"""The one rule for an amount written as text: a price cell, a price-list column, a JSON string,
a picker bound, a Wizard money field.

Understood: plain ``1299`` / ``1299.00``, and thousands grouped with commas in the right places
(``12,999`` / ``1,299.00`` / ``1,000,000``). A point is always the decimal mark. A comma is only
ever a thousands separator, so a decimal comma is refused rather than guessed: ``1.299,00``
(European grouping), ``1,29`` and ``1299,00`` (decimal commas), ``1,2,3`` and ``12,99.0``
(commas not between groups of three) would each read as a different number to someone, and
stripping the commas - what the Build page once did - turned ``1.299,00`` into 1.299 without
a word. A refusal says how to write the amount.

Negative zero (``-0``, ``-0.00``) is zero: the sign means nothing and would print ``CNY -0.00``.
Whether a negative amount is allowed is the caller's rule (no price in a build or a price list
may be negative; see builds/build.py and catalog/line_price.py).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from torchrig.errors import InputError

PLAIN = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
"""An amount without grouping (the form files are written in)."""

GROUPED = re.compile(r"-?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")
"""Thousands grouped with commas: one to three digits, then groups of exactly three."""

GROUPED_NUMBER = re.compile(r"[-+]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?")
"""The same grouping in front of any number a float reads (a Wizard field may hold ``1e-4``)."""

LARGEST = Decimal("1e12")


def plain_message(where: str, value: object) -> str:
    return f"{where} must be an amount like \"12999.00\", got {value!r}"


def grouping_message(where: str, value: object) -> str:
    """For text with a comma that is not thousands grouping: how to write it instead."""
    return (f"{where} must be an amount like \"12999.00\" or \"12,999.00\" (a point before "
            f"the decimals; commas only between groups of three digits), got {value!r}")


def ungroup_number(text: str) -> str | None:
    """``text`` with its thousands commas removed; None when it has a comma that is not
    thousands grouping (``1,5`` is not fifteen). Text without a comma comes back as it is."""
    if "," not in text:
        return text
    if GROUPED_NUMBER.fullmatch(text.strip()):
        return text.replace(",", "")
    return None


def parse_amount_text(text: str, where: str) -> Decimal:
    """An amount written as text (see the module's rule); raises InputError naming ``where``
    with how to write it."""
    stripped = text.strip()
    if "," in stripped:
        if not GROUPED.fullmatch(stripped):
            raise InputError(grouping_message(where, text))
        stripped = stripped.replace(",", "")
    elif not PLAIN.fullmatch(stripped):
        # Decimal() would also take "1_000", "1e3" and non-ASCII digits; a price is digits.
        raise InputError(plain_message(where, text))
    try:
        amount = Decimal(stripped)
    except InvalidOperation:  # pragma: no cover - PLAIN and GROUPED only match decimals
        raise InputError(plain_message(where, text)) from None
    return checked_amount(amount, where, text)


def checked_amount(amount: Decimal, where: str, value: object) -> Decimal:
    """A finite amount below 1e12 with negative zero made zero."""
    if not amount.is_finite():
        raise InputError(f"{where} must be a finite amount, got {value!r}")
    if abs(amount) >= LARGEST:
        # A thousand-digit number would fill the terminal: its size says enough.
        raise InputError(f"{where} is implausibly large: {amount:.3e} (at most 1e12)")
    return amount.copy_abs() if amount.is_zero() else amount


__all__ = ["checked_amount", "grouping_message", "parse_amount_text", "plain_message",
           "ungroup_number"]
