"""The hard time budget (issue 27): the parent's deadlines with a fake clock, the runner's
stop at ctx.check(), and a real child that ignores the cooperative stop.

No assertion reads the wall clock: the deadline logic runs on a fake clock, and the tests with
a real child check what the report says (which benchmark was stopped, what it kept, what ran
after it), not how long it took.
"""

from __future__ import annotations

import threading
import time

import pytest
from bench_fakes import make, steps, value

from torchrig.bench.base import BenchContext, OutOfTime, Progress
from torchrig.bench.process.deadline import KILL_AFTER_S, Deadlines
from torchrig.bench.process.isolated import run_isolated
from torchrig.bench.report import BenchResult, Measurement
from torchrig.bench.runner import grace_s, run_suite
from torchrig.bench.settings import BenchSettings
from torchrig.i18n import Msg


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# --------------------------------------------------------------------------- wall budget


def test_wall_budget_is_the_benchmarks_budget_plus_the_start_up_allowance():
    # settings.py: quick 21 s (CPU) / 14 s (GPU) for the benchmarks, + 9 s / 6 s start-up:
    # the 30 s and 20 s the presets promise for a whole run.
    assert BenchSettings(preset="quick").wall_budget_s("cpu") == 30.0
    assert BenchSettings(preset="quick").wall_budget_s("cuda:0") == 20.0
    assert BenchSettings(preset="full").wall_budget_s("cpu") == 159.0
    # an explicit budget replaces the preset's benchmark budget, the allowance stays
    assert BenchSettings(budget_s=5.0).wall_budget_s("cpu") == 14.0


# --------------------------------------------------------------------------- deadlines


def test_a_benchmark_is_stopped_only_past_its_hard_limit_plus_the_kill_delay():
    clock = FakeClock()
    d = Deadlines(BenchSettings(preset="quick", device="cpu"), started=clock(), clock=clock)
    d.begin("train", budget_s=5.0, hard_s=6.25)
    clock.now += 6.25 + KILL_AFTER_S - 0.01
    assert d.check() is None  # still inside: the cooperative stop may yet arrive
    clock.now += 0.01
    stop = d.check()
    assert stop is not None and stop.kind == "benchmark" and stop.bench_id == "train"
    assert stop.budget_s == 5.0 and stop.ran_s == pytest.approx(7.25)
    assert "7.2 s (budget 5.0 s)" in stop.message.en and "7.2 秒" in stop.message.zh


def test_a_benchmark_that_ended_is_no_longer_timed():
    clock = FakeClock()
    d = Deadlines(BenchSettings(device="cpu"), started=clock(), clock=clock)
    d.begin("a", 1.0, 1.0)
    d.ended("other")  # another id leaves the running one alone
    assert d.running is not None
    d.ended("a")
    clock.now += 10.0
    assert d.check() is None


def test_the_suite_ends_at_its_wall_budget_plus_ten_percent():
    # quick on a CPU: wall 30 s; the child is ended at 30 * 1.1 = 33 s after the start.
    clock = FakeClock()
    d = Deadlines(BenchSettings(preset="quick", device="cpu"), started=clock(), clock=clock)
    assert d.suite_end == pytest.approx(1033.0)
    clock.now = 1032.99
    assert d.check() is None
    clock.now = 1033.0
    stop = d.check()
    assert stop is not None and stop.kind == "suite" and stop.bench_id is None
    # the device the child resolved ("auto" -> a GPU) sets the budget: 20 s * 1.1 = 22 s
    d.device = "cuda:0"
    assert d.suite_end == pytest.approx(1022.0)


def test_the_suite_deadline_wins_over_a_benchmarks_own():
    clock = FakeClock()
    d = Deadlines(BenchSettings(preset="quick", device="cpu"), started=clock(), clock=clock)
    d.begin("long", budget_s=100.0, hard_s=125.0)
    clock.now += (21.0 + 9.0) * 1.1  # quick: 21 s + 9 s start-up, + 10 %
    stop = d.check()
    assert stop is not None and stop.kind == "suite" and stop.bench_id == "long"


def test_smoke_has_no_suite_deadline_only_the_benchmarks_own():
    # smoke proves every code path runs: a busy machine's start-up must not cut it off
    clock = FakeClock()
    d = Deadlines(BenchSettings(preset="smoke", device="cpu"), started=clock(), clock=clock)
    clock.now += 1e4
    assert d.check() is None and d.measuring_left() == float("inf")
    d.begin("long", budget_s=1.0, hard_s=2.0)
    clock.now += 2.0 + KILL_AFTER_S
    stop = d.check()
    assert stop is not None and stop.kind == "benchmark"


# --------------------------------------------------------------------------- runner


def test_check_raises_out_of_time_past_the_hard_limit_only():
    ctx = BenchContext(settings=BenchSettings(), device="cpu", cancel=threading.Event(),
                       budget_s=1.0, started=time.monotonic() - 5.0, hard_limit_s=6.0)
    ctx.check()  # 5 s in, limit 6 s
    ctx.hard_limit_s = 4.0
    with pytest.raises(OutOfTime):
        ctx.check()
    ctx.hard_limit_s = None  # no limit: never
    ctx.check()


def test_grace_is_a_quarter_of_the_budget_and_at_least_a_second():
    assert grace_s(2.0) == 1.0  # 0.5 < 1
    assert grace_s(8.0) == 2.0


def _run(registry, **kw):
    begun: list[tuple[str, float, float]] = []
    report = run_suite(BenchSettings(preset="quick", device="cpu", budget_s=kw.pop("budget_s", 4)),
                       cancel=threading.Event(), detect=False, registry=registry,
                       watch_machine=False, on_begin=lambda *a: begun.append(a), **kw)
    return report, begun


def test_a_loop_that_only_calls_check_is_stopped_and_keeps_its_figure():
    def loops(ctx: BenchContext):
        yield value("loop", 3.0)
        while True:  # never yields again: only ctx.check() can end it
            ctx.check()
            time.sleep(0.01)

    report, begun = _run([make("loop", loops), steps("next")], budget_s=0.2)
    loop = report.result("loop")
    assert loop.state == "partial" and loop.value("x") == 3.0
    assert any("stopped by the runner" in n.en for n in loop.notes)
    assert report.result("next").status == "ok"
    # each benchmark is announced with its budget and hard limit = budget + grace
    assert [b[0] for b in begun] == ["loop", "next"]
    for _, budget, hard in begun:
        assert hard == pytest.approx(budget + grace_s(budget))


def test_past_the_suite_deadline_nothing_more_is_started():
    # The run "began" 1000 s ago: its 4 + 9 s wall budget is long gone.
    report, begun = _run([steps("a"), steps("b")], wall_started=time.monotonic() - 1000.0)
    assert begun == []
    for r in report.results:
        assert r.status == "skipped: not run: the suite's time budget was used up"
        assert r.reason is not None and "时间预算" in r.reason.zh


def test_results_of_an_earlier_child_reach_later_benchmarks():
    seen: list[object] = []

    def reads(ctx: BenchContext):
        seen.append(ctx.results["first"].value("x"))
        yield value("reader", 1.0)

    first = BenchResult(id="first", title=Msg("f", "f"), measurements=[Measurement(
        id="x", label=Msg("x", "x"), value=42.0, unit="ratio")])
    report, _ = _run([make("reader", reads)], earlier={"first": first})
    assert seen == [42.0]
    assert [r.id for r in report.results] == ["reader"]  # earlier results are not repeated


# --------------------------------------------------------------------------- a real child


def test_a_child_that_ignores_the_stop_is_ended_and_the_rest_run_in_a_fresh_one():
    """The stubborn benchmark sends a figure, then never yields nor checks: the parent ends
    its process past budget + grace + KILL_AFTER_S; its figure is kept, the benchmark after it
    runs in a new child and still sees the first benchmark's result."""
    results: list[str] = []
    progress: list[Progress] = []
    report = run_isolated(BenchSettings(preset="smoke", budget_s=120.0),
                          cancel=threading.Event(),
                          detect=False, registry="deadline_fakes:STUBBORN",
                          on_result=lambda r: results.append(r.id),
                          on_progress=progress.append)
    assert [r.id for r in report.results] == ["first", "stubborn", "reader"]
    first, stubborn, reader = report.results
    assert first.status == "ok"
    assert stubborn.state == "partial" and stubborn.value("x") == 5.0
    assert stubborn.reason is not None and "did not stop on its own" in stubborn.reason.en
    assert "所示数据" in stubborn.reason.zh
    assert reader.status == "ok" and reader.value("first_x") == 3.0  # steps() reports n = 3
    assert results == ["first", "stubborn", "reader"]  # every result reached the caller once
    # the fresh child's progress keeps the run's numbering: reader is the 3rd of 3
    reader_progress = [p for p in progress if p.bench_id == "reader"]
    assert reader_progress and {(p.bench_index, p.bench_count) for p in reader_progress} == {
        (2, 3)}
    assert report.interrupted is None


def test_a_benchmark_ended_before_any_figure_is_skipped_saying_so():
    report = run_isolated(BenchSettings(preset="smoke", budget_s=120.0),
                          cancel=threading.Event(),
                          detect=False, registry="deadline_fakes:MUTE")
    mute, after = report.results
    assert mute.status.startswith("skipped: stopped at its time limit")
    assert mute.status.endswith("before a figure was measured")
    assert after.status == "ok"


def test_at_the_suite_deadline_the_child_is_ended_and_the_rest_are_not_run():
    """A clock that jumps past the run's deadline once the stubborn benchmark has sent its
    figure:
    the parent ends the child, keeps the stubborn figure and reports the rest as not run."""

    class Jumping:
        offset = 0.0

        def __call__(self) -> float:
            return time.monotonic() + self.offset

    clock = Jumping()

    def jump(m: Measurement) -> None:
        if m.value == 5.0:  # the stubborn benchmark's figure
            clock.offset = 1e4

    report = run_isolated(BenchSettings(preset="quick", budget_s=120.0),
                          cancel=threading.Event(), detect=False,
                          registry="deadline_fakes:STUBBORN", clock=clock,
                          on_measurement=jump)
    first, stubborn, reader = report.results
    assert first.status == "ok"
    assert stubborn.state == "partial" and stubborn.value("x") == 5.0
    assert "the run's time limit" in stubborn.reason.en
    assert reader.status == "skipped: not run: the suite's time budget was used up"
    assert report.interrupted is not None and "time limit" in report.interrupted.en


def test_prepare_runs_before_the_clock_and_only_for_benchmarks_that_apply():
    from dataclasses import replace

    order: list[str] = []

    def run(ctx: BenchContext):
        order.append("run")
        yield value("a", 1.0)

    prepared = replace(make("a", run), prepare=lambda: order.append("prepare a"))
    gpu_only = replace(make("g", run, devices=("cuda",)),
                       prepare=lambda: order.append("prepare g"))

    def broken() -> None:
        raise RuntimeError("no optimizer")

    failing = replace(make("b", run), prepare=broken)
    report, begun = _run([prepared, gpu_only, failing])
    # both preparations before the first benchmark began; the CUDA-only one not on a CPU
    assert order == ["prepare a", "run", "run"]
    assert [b[0] for b in begun] == ["a", "b"]
    assert report.result("b").status == "ok"  # a failed preparation is not the run's error


def test_an_out_of_memory_retry_is_a_new_attempt_with_its_own_limit():
    from bench_fakes import raising

    calls: list[float] = []
    report, begun = _run([raising("oom", lambda ctx: MemoryError() if ctx.scale == 1.0
                                  else None, calls)], budget_s=4)
    assert calls == [1.0, 0.25]
    assert report.results[0].status == "ok"
    # announced twice: the first attempt, then the retry with its own budget and hard limit
    # (what is left of the share, at least half of it; + grace), so the parent's clock
    # restarts with the retry instead of ending it
    assert [b[0] for b in begun] == ["oom", "oom"]
    (_, first_budget, _), (_, retry_budget, retry_hard) = begun
    assert first_budget * 0.5 <= retry_budget <= first_budget
    assert retry_hard == pytest.approx(retry_budget + grace_s(retry_budget))


def test_the_process_start_moves_from_the_wall_clock_to_the_monotonic_one(monkeypatch):
    import psutil

    from torchrig.bench.process.deadline import process_started

    # a process created 5 s ago (wall clock) started 5 s ago on the monotonic clock too
    class Created:
        def create_time(self) -> float:
            return time.time() - 5.0

    monkeypatch.setattr(psutil, "Process", Created)
    assert time.monotonic() - process_started() == pytest.approx(5.0, abs=0.5)

    def refuses() -> None:
        raise psutil.Error("no access")

    monkeypatch.setattr(psutil, "Process", refuses)
    assert process_started() is None  # then run_isolated counts from its own start


def test_no_fresh_child_when_what_is_left_would_not_cover_its_start_up():
    """After the stop, the clock reads 5 s before the run's deadline, past the end of the
    benchmarks' time: a fresh child could only spend it starting up, so the rest is reported
    as not run at once."""
    settings = BenchSettings(preset="quick", budget_s=120.0)
    started = time.monotonic()
    suite_end = started + settings.wall_budget_s("cpu") * 1.1  # 129 s x 1.1

    class Jumping:
        offset = 0.0

        def __call__(self) -> float:
            return time.monotonic() + self.offset

    clock = Jumping()

    def jump(m: Measurement) -> None:
        if m.value == 5.0:
            clock.offset = (suite_end - 5.0) - time.monotonic()

    report = run_isolated(settings, cancel=threading.Event(), detect=False,
                          registry="deadline_fakes:STUBBORN", clock=clock, started=started,
                          on_measurement=jump)
    first, stubborn, reader = report.results
    assert first.status == "ok"
    assert stubborn.state == "partial" and "did not stop on its own" in stubborn.reason.en
    assert reader.status == "skipped: not run: the suite's time budget was used up"


def test_a_fresh_process_counts_its_start_up_an_embedding_one_does_not():
    from torchrig.bench.process.deadline import FRESH_PROCESS_S, command_started

    # entered 2 s after the process started: a fresh `torchrig bench`, its start-up counts
    assert command_started(entered=100.0, process=98.0) == 98.0
    assert command_started(entered=100.0, process=100.0 - FRESH_PROCESS_S) == 91.0
    # a test or host program that has run for minutes: from the command's entry
    assert command_started(entered=100.0, process=100.0 - FRESH_PROCESS_S - 0.1) == 100.0
    assert command_started(entered=100.0, process=None) == 100.0
    assert command_started(entered=100.0, process=101.0) == 100.0  # clock skew: entry
