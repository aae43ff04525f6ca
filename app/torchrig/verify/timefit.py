"""Step time at a size that was not run: a fixed cost per step plus a cost per FLOP, fitted to
the measured runs (torch-free).

A small probe spends most of its step on what does not grow with the model - Python and
dispatch overhead, kernel launches, the optimizer's loop over tensors - so scaling a whole small
step by the FLOP ratio (what ``verify`` once did) multiplies that overhead too: bert-base came
out at hours per step where a real step takes half a minute. Fitting ``t = fixed + per_flop x
FLOPs`` by least squares through two or more runs keeps the fixed part fixed.

The fit says how well it explains the runs it was made from (the largest relative residual)
and how far the target lies beyond the largest run (the extrapolation factor, in FLOPs). Beyond
:data:`ESTIMATE_FACTOR` the time is an estimate with a range: from the fit's line to the largest
run's own seconds per FLOP (the two ways small runs can mislead - less efficient than a large
run, or more), each widened by the fit's error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ESTIMATE_FACTOR = 10.0
"""A time extrapolated further than this beyond the largest measured size is an estimate with a
range (the issue's rule; the planner's own MFU guess is no better than that)."""


@dataclass(frozen=True)
class TimeFit:
    """``seconds = fixed_s + per_flop_s x flops`` through the measured (flops, seconds)
    points; ``max_error`` is the largest |fit - measured| / measured at those points."""

    fixed_s: float
    per_flop_s: float
    max_error: float
    points: int

    def at(self, flops: float) -> float:
        return self.fixed_s + self.per_flop_s * flops


@dataclass(frozen=True)
class TimeEstimate:
    """The step time at the target, how it was found, and its range when it is an estimate."""

    step_s: float
    low_s: float | None  # None: measured at the target, or within ESTIMATE_FACTOR
    high_s: float | None
    factor: float  # target FLOPs / largest measured FLOPs (1.0: measured at the target)
    fit: TimeFit | None

    @property
    def is_estimate(self) -> bool:
        return self.low_s is not None


def fit_time(points: Sequence[tuple[float, float]]) -> TimeFit | None:
    """Least squares through (flops, seconds); None with fewer than two distinct FLOP counts.

    A negative fixed cost (noise on near-equal runs) is clamped to zero and the per-FLOP cost
    refitted through the origin; a negative per-FLOP cost likewise leaves only the fixed cost
    (the mean): time never falls as the work grows.
    """
    pts = [(float(f), float(t)) for f, t in points if f > 0 and t > 0]
    if len({f for f, _ in pts}) < 2:
        return None
    n = len(pts)
    mean_f = sum(f for f, _ in pts) / n
    mean_t = sum(t for _, t in pts) / n
    sxx = sum((f - mean_f) ** 2 for f, _ in pts)
    sxy = sum((f - mean_f) * (t - mean_t) for f, t in pts)
    slope = sxy / sxx
    fixed = mean_t - slope * mean_f
    if slope < 0:
        slope, fixed = 0.0, mean_t
    elif fixed < 0:
        fixed = 0.0
        slope = sum(f * t for f, t in pts) / sum(f * f for f, _ in pts)
    error = max(abs(fixed + slope * f - t) / t for f, t in pts)
    return TimeFit(fixed, slope, error, n)


def extrapolate_time(points: Sequence[tuple[float, float]], target_flops: float
                     ) -> TimeEstimate:
    """The step time at ``target_flops`` from the measured (flops, seconds) points."""
    if not points:
        raise ValueError("no measured step time")
    largest_f, largest_t = max(points)
    exact = [t for f, t in points if f == target_flops]
    if exact:
        return TimeEstimate(exact[-1], None, None, 1.0, fit_time(points))
    factor = target_flops / largest_f if largest_f > 0 else 1.0
    proportional = largest_t * factor
    fit = fit_time(points)
    if fit is None:
        # One size only: its seconds per FLOP is all there is.
        step = proportional
        return TimeEstimate(step, step if factor > ESTIMATE_FACTOR else None,
                            step if factor > ESTIMATE_FACTOR else None, factor, None)
    step = fit.at(target_flops)
    if factor <= ESTIMATE_FACTOR:
        return TimeEstimate(step, None, None, factor, fit)
    low = min(step, proportional) * (1.0 - min(fit.max_error, 0.9))
    high = max(step, proportional) * (1.0 + fit.max_error)
    return TimeEstimate(step, low, high, factor, fit)


def budget_step_s(pilots: Sequence[tuple[float, float]], flop_ratio: float,
                  layer_ratio: float) -> float:
    """Seconds per step at a size ``flop_ratio`` times the first pilot's FLOPs and
    ``layer_ratio`` times its layers, for choosing the sizes that fit verify's time budget;
    ``pilots`` are the pilot runs' (forward FLOPs, seconds per step), the smallest first.

    The pilots (one layer, batch 1 and 2) fit a cost per step that does not grow with the
    samples and one per FLOP. The part that does not grow with the samples grows with the
    layers: the optimizer's update, the gradients' zeroing and the weights' reads are per
    parameter. Counted once, as a constant, it put DiT-XL/2's 28 blocks at about 8 s a run
    from 1-block pilots of 0.31 and 0.25 s a step, and the run took 49 s at 7.9 s a step
    (AdamW over 750M parameters on a CPU; issue 27). So it is scaled by the layers; where it
    is only Python's overhead this over-estimates, and the check picks a smaller size than
    needed, never one that blows the budget.

    Two small pilots a few hundred ms apart can also show any slope on a busy machine (a DiT
    block at batch 1 and 2: 0.92 and 0.89 s, so "no cost per FLOP"): the cost per FLOP is at
    least half the larger pilot's own seconds per FLOP. With one pilot, its step scaled by
    the FLOPs."""
    fit = fit_time(pilots)
    first_flops, first_s = pilots[0]
    if fit is None:
        return first_s * flop_ratio
    largest_flops, largest_s = max(pilots)
    floor = 0.5 * largest_s / largest_flops if largest_flops else 0.0
    per_flop = max(fit.per_flop_s, floor)
    return fit.fixed_s * layer_ratio + per_flop * first_flops * flop_ratio
