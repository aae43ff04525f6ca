"""Human text for measurements, shared by the CLI and the GUI so both word figures alike.

Values stay in SI base units in the report; only here do they get prefixes, and every figure
keeps an explicit unit (GB/s decimal for rates, GiB binary for memory, as units.py explains).
"""

from __future__ import annotations

from torchrig.bench.report import Measurement, Reference
from torchrig.units import fmt_flops, fmt_gib, fmt_rate, fmt_seconds


def _is_multiplier(measurement_id: str) -> bool:
    """Speed-ups read as "1.35x"; other ratios (savings, fractions) read as percentages."""
    return measurement_id.endswith("speedup")


def format_value(value: float | None, unit: str, measurement_id: str = "") -> str:
    if value is None:
        return "not measured"
    if unit == "FLOP/s":
        return fmt_flops(value)
    if unit == "B/s":
        return fmt_rate(value, 2 if value >= 1e9 else 1)
    if unit == "B":
        return fmt_gib(value, 2)
    if unit == "s":
        return fmt_seconds(value)
    if unit == "samples/s":
        return f"{value:,.1f} samples/s"
    if unit == "count":
        return f"{value:.0f}"
    if unit == "ratio":
        return f"{value:.2f}x" if _is_multiplier(measurement_id) else f"{value:.0%}"
    return f"{value:g} {unit}"


def format_reference(ref: Reference, unit: str, measurement_id: str, lang: str = "en") -> str:
    label = ref.label.get(lang)
    if ref.value is not None:
        return f"{label}: {format_value(ref.value, unit, measurement_id)}"
    if ref.low is not None and ref.high is not None:
        if unit == "ratio" or ref.kind == "seed_claim":
            return label
        low = format_value(ref.low, unit, measurement_id)
        return f"{label}: {low} - {format_value(ref.high, unit, measurement_id)}"
    return label


def format_measurement(m: Measurement, lang: str = "en") -> str:
    """One line: label, value, and how it compares with its reference."""
    text = f"{m.label.get(lang)}: {format_value(m.value, m.unit, m.id)}"
    if m.reference is not None:
        ref = format_reference(m.reference, m.unit, m.id, lang)
        if m.ratio is not None and m.unit != "ratio":
            text += (f"  ({m.ratio:.0%} of {ref})" if lang != "zh"
                     else f"（为{ref}的 {m.ratio:.0%}）")
        else:
            text += f"  [{ref}]" if lang != "zh" else f"［{ref}］"
    return text
