"""Assertions for real benchmark runs that hold on a loaded machine.

A benchmark on a busy machine may use its time budget up before it has measured everything;
it then says so ("partial", with the time budget as the reason). Tests of real runs therefore
check that every result is complete or honestly cut short, and that whatever was measured is a
finite figure - never that a run finished within its budget.
"""

from __future__ import annotations

import math

from torchrig.bench.report import BenchResult


def assert_complete_or_cut_by_budget(result: BenchResult) -> None:
    """``ok``, or ``partial`` with the time budget named as the reason in both languages
    and in the notes."""
    assert result.state in ("ok", "partial"), (result.id, result.status)
    if result.state == "partial":
        assert result.reason is not None, result.id
        assert "time budget" in result.reason.en and "时间预算" in result.reason.zh, \
            (result.id, result.reason)
        assert any("time budget" in n.en for n in result.notes), (result.id, result.notes)


def assert_figures_finite(result: BenchResult) -> None:
    """Every measurement it has carries a finite value."""
    for m in result.measurements:
        assert m.value is not None and math.isfinite(m.value), (result.id, m.id, m.value)


def measured_or_left_out(result: BenchResult, measurement_id: str,
                         left_out: str) -> float | None:
    """The figure, or None when the budget stop named ``left_out`` in the reason: a figure
    that is missing without the reason saying so fails."""
    value = result.value(measurement_id)
    if value is None:
        assert result.state == "partial" and result.reason is not None, \
            (result.id, measurement_id, result.status)
        assert left_out in result.reason.en, (result.id, measurement_id, result.reason.en)
    return value
