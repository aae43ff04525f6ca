"""The step-time fit (torchrig.verify.timefit): it recovers a known fixed + per-FLOP cost, says
how far it extrapolates, and beyond 10x gives a range instead of one figure."""

from __future__ import annotations

import pytest

from torchrig.verify.timefit import ESTIMATE_FACTOR, extrapolate_time, fit_time


def test_the_fit_recovers_a_known_linear_cost_exactly():
    # t = 0.3 s + 2e-11 s/FLOP, by hand at three sizes: 0.3 + 0.02, 0.3 + 0.04, 0.3 + 0.08
    points = [(1e9, 0.32), (2e9, 0.34), (4e9, 0.38)]
    fit = fit_time(points)
    assert fit is not None and fit.points == 3
    assert fit.fixed_s == pytest.approx(0.3) and fit.per_flop_s == pytest.approx(2e-11)
    assert fit.max_error == pytest.approx(0.0, abs=1e-12)
    # 8e9 FLOPs is 2x the largest run: a plain figure, 0.3 + 0.16
    est = extrapolate_time(points, 8e9)
    assert est.step_s == pytest.approx(0.46) and est.factor == pytest.approx(2.0)
    assert not est.is_estimate


def test_the_fit_error_is_the_largest_relative_residual():
    # Three points off any one line: the reported error is the worst point's |fit - t| / t.
    points = [(1.0, 2.0), (2.0, 3.3), (3.0, 4.0)]
    fit = fit_time(points)
    assert fit is not None
    worst = max(abs(fit.at(f) - t) / t for f, t in points)
    assert fit.max_error == pytest.approx(worst) and fit.max_error > 0.03


def test_whole_step_scaling_would_multiply_the_fixed_cost_the_fit_keeps_it_fixed():
    # bert-base's failure in issue 23: small probes are nearly all fixed cost (1 s), the
    # real per-FLOP cost is 1e-12 s. At 1e14 FLOPs the truth is 1 + 100 = 101 s; scaling the
    # largest run's whole step (1.002 s at 2e9) by the FLOP ratio gives ~50,100 s.
    points = [(1e9, 1.001), (2e9, 1.002)]
    est = extrapolate_time(points, 1e14)
    assert est.step_s == pytest.approx(101.0, rel=1e-6)
    assert est.factor == pytest.approx(5e4) and est.factor > ESTIMATE_FACTOR
    # Beyond 10x: an estimate whose range runs from the fit to the whole-step scaling.
    assert est.is_estimate
    assert est.low_s == pytest.approx(101.0, rel=1e-6)
    assert est.high_s == pytest.approx(1.002 * 5e4, rel=1e-6)


def test_at_a_measured_size_the_time_is_the_measurement():
    est = extrapolate_time([(1e9, 0.5), (2e9, 0.9)], 2e9)
    assert est.step_s == 0.9 and est.factor == 1.0 and not est.is_estimate


def test_noise_never_makes_time_fall_with_work_or_go_negative():
    falling = fit_time([(1e9, 1.0), (2e9, 0.8)])
    assert falling is not None and falling.per_flop_s == 0.0
    assert falling.fixed_s == pytest.approx(0.9)
    steep = fit_time([(1e9, 0.1), (2e9, 1.0)])  # the line crosses zero below 1e9 FLOPs
    assert steep is not None and steep.fixed_s == 0.0 and steep.per_flop_s > 0
    # refitted through the origin: sum(f t) / sum(f^2) = (1e8 + 2e9) / 5e18
    assert steep.per_flop_s == pytest.approx(2.1e9 / 5e18)


def test_one_size_is_not_a_fit():
    assert fit_time([(1e9, 1.0), (1e9, 1.1)]) is None
    est = extrapolate_time([(1e9, 1.0)], 5e9)
    assert est.fit is None and est.step_s == pytest.approx(5.0) and not est.is_estimate


def test_the_budget_scales_the_per_step_cost_with_the_layers():
    from torchrig.verify.timefit import budget_step_s

    # Pilots at one layer, batch 1 and 2: 0.30 s at 1 GFLOP, 0.40 s at 2 GFLOP, so 0.2 s a
    # step that does not grow with the samples and 0.1 ns per FLOP.
    pilots = [(1e9, 0.30), (2e9, 0.40)]
    # 7 layers at batch 1: 7 x the FLOPs and 7 x the parameters: 7 x 0.2 + 7 x 0.1 = 2.1 s
    # (a constant 0.2 s would give 0.9 s)
    assert budget_step_s(pilots, 7.0, 7.0) == pytest.approx(2.1)
    # reduced by the batch only (one layer, batch 4): 0.2 + 4 x 0.1 = 0.6 s
    assert budget_step_s(pilots, 4.0, 1.0) == pytest.approx(0.6)
    # one pilot: its step scaled by the FLOPs
    assert budget_step_s(pilots[:1], 7.0, 7.0) == pytest.approx(2.1)


def test_dit_xl_2s_pilots_no_longer_fit_the_whole_model_into_the_budget():
    """The run that showed it (tests/gui/test_verify_panel.py, 2026-12-07): DiT-XL/2's 1-block
    pilots took 0.31 s (batch 1) and 0.25 s (batch 2) a step; all 28 blocks, 7.9 s a step."""
    from torchrig.verify.timefit import budget_step_s

    flops = 1e9  # one block at batch 1; only ratios matter
    pilots = [(flops, 0.31), (2 * flops, 0.25)]
    # Time fell as the FLOPs doubled: no slope, the mean 0.28 s is the per-step cost; the
    # per-FLOP floor is half the larger pilot's 0.25 s / 2 GFLOP. At 28 blocks:
    # 0.28 x 28 + 0.5 x 0.25 / 2e9 x 28e9 = 7.84 + 1.75 = 9.59 s, at least the measured 7.9 s
    full = budget_step_s(pilots, 28.0, 28.0)
    assert full == pytest.approx(9.59)
    assert full >= 7.9
    # verify's rule, 25 s on a CPU for (steps + 1) = 4 step-times a run: the full model
    # (38 s) is out, 3 and 7 blocks (4 x (1.03 + 2.40) = 13.7 s) are in
    assert 4 * full > 25
    assert 4 * (budget_step_s(pilots, 3.0, 3.0) + budget_step_s(pilots, 7.0, 7.0)) < 25
