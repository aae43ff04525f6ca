"""scripts/gpu_timing_checks.py (gpu_check.py's timing checks) on a fake GPU (cuda_fakes.py).

Each check passes on a right fake and fails on a wrong one: events off by the ``inner`` factor,
a GPU whose first repeats are faster than its long run, events recorded on the current device
instead of the measured one (time_calls before issue 27's fix). With one GPU the non-current
device check is skipped with its reason, never passed. Expected figures are worked out by hand;
nothing reads a real clock's figures or a real GPU.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from pathlib import Path

import pytest
from cuda_fakes import FakeGpus

pytest.importorskip("torch")

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # gpu_check.py imports gpu_timing_checks by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def checks(monkeypatch):
    module = _load("gpu_timing_checks")
    monkeypatch.setitem(sys.modules, "gpu_timing_checks", module)
    return module


# --------------------------------------------------------------------------- inner division


def test_inner_check_passes_when_events_time_the_calls_right(monkeypatch, checks):
    gpus = FakeGpus(event_scale=1.0).install(monkeypatch)
    result = checks.inner_division_check(gpus.work("cuda:0", 0.002), "cuda:0", clock=gpus.clock)
    # Events: 20 calls x 2 ms = 40 ms a repeat, / 20 = 2 ms. Independent: 100 calls x 2 ms
    # between two synchronisations = 0.2 s, / 100 = 2 ms. Ratio 1.
    assert result.ours_s == pytest.approx(0.002)
    assert result.independent_s == pytest.approx(0.002)
    assert result.status == "pass"
    assert "ours 2 ms/call; independent 2 ms/call; ratio 1.000" in result.detail()
    assert gpus.launches == [50 + 5 * 20 + 100]  # warm-up, 5 repeats of 20, the 100 timed


@pytest.mark.parametrize(("event_scale", "ratio"), [
    (20.0, 20.0),  # the division by inner lost: 40 ms a "call", FLOP/s 20x low
    (1 / 20, 0.05),  # divided twice: 0.1 ms a call
])
def test_inner_check_fails_when_the_event_figure_is_off_by_inner(monkeypatch, checks,
                                                                  event_scale, ratio):
    gpus = FakeGpus(event_scale=event_scale).install(monkeypatch)
    result = checks.inner_division_check(gpus.work("cuda:0", 0.002), "cuda:0", clock=gpus.clock)
    assert result.independent_s == pytest.approx(0.002)  # the independent timer is not fooled
    assert result.ratio == pytest.approx(ratio)
    assert result.status == "fail"


@pytest.mark.parametrize(("event_scale", "status"), [
    (1.09, "pass"), (1 / 1.09, "pass"),  # within 10 % either way (1/1.1 .. 1.1)
    (1.12, "fail"), (1 / 1.12, "fail"),
])
def test_the_tolerance_is_ten_percent_either_way(monkeypatch, checks, event_scale, status):
    gpus = FakeGpus(event_scale=event_scale).install(monkeypatch)
    result = checks.inner_division_check(gpus.work("cuda:0", 0.002), "cuda:0", clock=gpus.clock)
    assert result.ratio == pytest.approx(event_scale)
    assert result.status == status


# --------------------------------------------------------------------------- settle rule


def test_settle_check_passes_on_a_steady_gpu(monkeypatch, checks):
    gpus = FakeGpus().install(monkeypatch)
    result = checks.settle_check(gpus.work("cuda:0", 0.002), "cuda:0", clock=gpus.clock)
    # 5 equal repeats of 2 ms settle (IQR 0); long run ceil(2 s / 2 ms) = 1000 calls of 2 ms.
    assert result.status == "pass"
    assert result.ours_s == pytest.approx(0.002)
    assert result.independent_s == pytest.approx(0.002)
    assert "5 repeats, interquartile range 0.00% of the median; long run 1000 calls" in (
        result.note)


def test_settle_check_fails_when_the_series_settled_on_a_figure_the_gpu_does_not_hold(
        monkeypatch, checks):
    # The first 60 calls take 1 ms, then 2 ms (a GPU that drops its clock after a burst).
    # Calls 0-49 are the warm-up, calls 50-54 the repeats: 5 x 1 ms settle, median 1 ms. The
    # long run is ceil(2 s / 1 ms) = 2000 calls: calls 55-59 at 1 ms, 1995 at 2 ms ->
    # (5 x 0.001 + 1995 x 0.002) / 2000 = 0.0019975 s; ratio 0.001 / 0.0019975 = 0.50063.
    gpus = FakeGpus().install(monkeypatch)
    work = gpus.work("cuda:0", lambda n: 0.001 if n < 60 else 0.002)
    result = checks.settle_check(work, "cuda:0", clock=gpus.clock)
    assert result.ours_s == pytest.approx(0.001)
    assert result.independent_s == pytest.approx(0.0019975)
    assert result.ratio == pytest.approx(0.50063, rel=1e-4)
    assert result.status == "fail"


def test_settle_check_fails_on_a_series_that_never_settles(monkeypatch, checks):
    # 1 ms and 3 ms alternate: quartiles 1 ms and 3 ms around a median of 1 or 3 ms, never
    # within 2 %: time_calls stops at max_reps 100, and there is no settled median to compare.
    gpus = FakeGpus().install(monkeypatch)
    work = gpus.work("cuda:0", lambda n: 0.001 if n % 2 else 0.003)
    result = checks.settle_check(work, "cuda:0", clock=gpus.clock)
    assert result.status == "fail"
    assert result.independent_s is None
    assert result.problem == "the series did not settle within 100 repeats or 10 s"
    assert result.note.startswith("100 repeats")


# --------------------------------------------------------------------------- non-current device


@pytest.mark.parametrize(("device", "other"), [("cuda:0", 1), ("cuda:1", 0)])
def test_other_device_check_passes_with_two_gpus(monkeypatch, checks, device, other):
    gpus = FakeGpus(count=2).install(monkeypatch)
    made = []

    def make_work(d: str):
        made.append(d)
        return gpus.work(d, 0.002)

    result = checks.other_device_check(make_work, device, clock=gpus.clock)
    # Events on the measured GPU's stream: 2 ms each; independent 50 calls x 2 ms / 50.
    assert made == [f"cuda:{other}"]
    assert result.status == "pass", result.detail()
    assert result.ours_s == pytest.approx(0.002)
    assert result.independent_s == pytest.approx(0.002)
    assert gpus.current == int(device[-1])  # the script's device is current again


def test_other_device_check_fails_when_events_record_on_the_current_device(monkeypatch, checks):
    # time_calls before issue 27's fix: no torch.cuda.device(device) around the events, so they
    # record on cuda:0's stream, which has no work: each repeat reads 0 ms.
    import torch

    gpus = FakeGpus(count=2).install(monkeypatch)
    monkeypatch.setattr(torch.cuda, "device", lambda d: contextlib.nullcontext())
    result = checks.other_device_check(lambda d: gpus.work(d, 0.002), "cuda:0",
                                       clock=gpus.clock)
    assert result.ours_s == 0.0
    assert result.independent_s == pytest.approx(0.002)
    assert result.status == "fail"


def test_other_device_check_is_skipped_with_its_reason_on_one_gpu(monkeypatch, checks):
    gpus = FakeGpus(count=1).install(monkeypatch)
    result = checks.other_device_check(lambda d: gpus.work(d, 0.002), "cuda:0",
                                       clock=gpus.clock)
    assert result.status == "skipped"
    assert result.skipped == ("not testable with one GPU (1 CUDA device(s); "
                              "torch.cuda.set_device(1) raised RuntimeError: "
                              "CUDA error: invalid device ordinal)")
    assert result.ours_s is None and gpus.launches == [0]  # nothing timed
    assert gpus.current == 0


# --------------------------------------------------------------------------- in gpu_check.py


def test_the_three_checks_reach_the_json_entries_and_the_summary(monkeypatch, checks, capsys):
    gpus = FakeGpus(count=1).install(monkeypatch)
    results = checks.timing_checks("cuda:0", lambda d: gpus.work(d, 0.002), clock=gpus.clock)
    gpu_check = _load("gpu_check")
    entries = gpu_check.timing_entries(results)
    assert [(e["status"], e["ok"]) for e in entries] == [
        ("pass", True), ("pass", True), ("skipped", None)]
    assert entries[0]["figures"]["ratio"] == pytest.approx(1.0)
    assert entries[0]["figures"]["tolerance"] == 0.10
    assert gpu_check.summarise(entries) == 0
    out = capsys.readouterr().out
    assert "all checks passed (2 passed, 1 skipped)" in out
    assert "skipped, not passed: CUDA events time a GPU that is not the current device " \
           "(not testable with one GPU (1 CUDA device(s)" in out

    wrong = FakeGpus(count=1, event_scale=20.0).install(monkeypatch)
    entries = gpu_check.timing_entries(
        checks.timing_checks("cuda:0", lambda d: wrong.work(d, 0.002), clock=wrong.clock))
    # Every figure time_calls gives comes from the events: 20x high in both timed checks.
    assert [e["status"] for e in entries] == ["fail", "fail", "skipped"]
    assert [e["figures"]["ratio"] for e in entries[:2]] == pytest.approx([20.0, 20.0])
    assert entries[0]["ok"] is False
    assert gpu_check.summarise(entries) == 1


def test_an_exception_in_one_check_is_its_failure_not_the_others(monkeypatch, checks):
    gpus = FakeGpus(count=1).install(monkeypatch)

    def make_work(d: str):
        raise RuntimeError("CUDA out of memory")

    results = checks.timing_checks("cuda:0", make_work, clock=gpus.clock)
    assert [r.status for r in results] == ["fail", "fail", "skipped"]
    assert results[0].problem == "RuntimeError: CUDA out of memory"
