"""Formatting of the sheet's numbers: money exactly as priced, measurements with their unit.

The unit formatters themselves live in :mod:`torchrig.units`; this module only picks the
right one for a benchmark unit and prints money without losing a digit.
"""

from __future__ import annotations

from decimal import Decimal

from torchrig.builds.pricing import CENT, MONEY_CONTEXT


def fmt_money(amount: Decimal | None, unknown: str = "unknown") -> str:
    """``12,999.00``: two decimals when the amount is whole cents (the normal case), every
    digit otherwise - the sheet shows what pricing computed and never rounds it."""
    if amount is None:
        return unknown
    cents = amount.quantize(CENT, context=MONEY_CONTEXT)
    if amount == cents:
        return f"{cents:,.2f}"
    return f"{amount:,f}"


def fmt_measure(value: float | None, unit: str, measure_id: str = "",
                unknown: str = "unknown") -> str:
    """A benchmark figure in its SI unit, worded as the CLI and GUI word it
    (:func:`torchrig.bench.format.format_value`): ``82.1 TFLOP/s``, ``1.35x``, ``42%``."""
    if value is None:
        return unknown
    from torchrig.bench.format import format_value

    return format_value(value, unit, measure_id)


def fmt_percent(percent: float | None, unknown: str = "-") -> str:
    if percent is None:
        return unknown
    return f"{percent:.0f}%" if percent >= 10 else f"{percent:.1f}%"


def fmt_amount(value: float, unit: str, display_unit: str, lang: str = "en") -> str:
    """A requirement amount: bytes in ``display_unit`` (GiB or GB), or a core count."""
    if unit == "cores":
        from torchrig.report.strings import text

        return text("unit.cores", lang, n=f"{value:.3g}")
    divisor = 1000**3 if display_unit == "GB" else 1024**3
    scaled = value / divisor
    digits = 0 if scaled >= 100 else 1 if scaled >= 1 else 2
    return f"{scaled:,.{digits}f} {display_unit}"
