"""Assertions for real benchmark runs that hold on a loaded machine.

A benchmark on a busy machine may use its time budget up before it has measured everything;
it then says so ("partial", with the time budget as the reason). Tests of real runs therefore
check that every result is complete or honestly cut short, and that whatever was measured is a
finite figure - never that a run finished within its budget.
"""

from __future__ import annotations

import math

from torchrig.bench.report import BenchResult

RUNNER_CUT = "the rest of this benchmark"
"""What the runner's hard stop (budget + grace) names as left out."""
NOTHING_MEASURED = "time budget used up before a figure was measured"


def assert_complete_or_cut_by_budget(result: BenchResult, *, allow_skip: bool = False) -> None:
    """``ok``, or ``partial`` with the time budget named as the reason in both languages
    and in the notes; with ``allow_skip``, also ``skipped`` because the budget ran out before
    the first figure (a heavily loaded machine)."""
    states = ("ok", "partial", "skipped") if allow_skip else ("ok", "partial")
    assert result.state in states, (result.id, result.status)
    if result.state == "skipped":
        assert result.reason is not None and result.reason.en == NOTHING_MEASURED, \
            (result.id, result.status)
        assert "时间预算" in result.reason.zh and not result.measurements
    if result.state != "ok":
        assert result.reason is not None, result.id
        assert "time budget" in result.reason.en and "时间预算" in result.reason.zh, \
            (result.id, result.reason)
        assert any("time budget" in n.en for n in result.notes), (result.id, result.notes)


def assert_figures_finite(result: BenchResult) -> None:
    """Every measurement it has carries a finite value."""
    for m in result.measurements:
        assert m.value is not None and math.isfinite(m.value), (result.id, m.id, m.value)


def measured_or_left_out(result: BenchResult, measurement_id: str,
                         left_out: str = RUNNER_CUT) -> float | None:
    """The figure, or None when the result says the budget left it out: skipped for the
    budget, or partial with ``left_out`` (or the runner's cut) in the reason. A figure that
    is missing without the result saying why fails."""
    value = result.value(measurement_id)
    if value is None and result.state != "skipped":
        assert result.state == "partial" and result.reason is not None, \
            (result.id, measurement_id, result.status)
        assert left_out in result.reason.en or RUNNER_CUT in result.reason.en, \
            (result.id, measurement_id, result.reason.en)
    return value
