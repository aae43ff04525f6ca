"""The runner with fake benchmarks: order, cancel, budget, errors, out-of-memory retries."""

from __future__ import annotations

import threading
import time

import pytest
from bench_fakes import forever, make, raising, steps, value

from torchrig.bench.base import Cancelled, Failed, Progress, Skip
from torchrig.bench.report import BenchResult
from torchrig.bench.runner import run_suite
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError
from torchrig.i18n import Msg


def _run(registry, *, budget_s=5.0, cancel=None, on_progress=None, **kw):
    events: list[object] = []

    def progressed(p: Progress) -> None:
        events.append(p)
        if on_progress is not None:
            on_progress(p)

    report = run_suite(
        BenchSettings(preset="quick", device="cpu", budget_s=budget_s, **kw),
        cancel=cancel or threading.Event(),
        on_progress=progressed, on_result=events.append, on_measurement=events.append,
        detect=False, registry=registry,
        watch_machine=False,  # machine state has its own tests (test_machine_state.py)
    )
    return report, events


def test_progress_and_results_arrive_in_order():
    report, events = _run([steps("a", 2), steps("b", 3)])
    trace = [
        (type(e).__name__, getattr(e, "bench_id", getattr(e, "id", None)), getattr(e, "step", None))
        for e in events
    ]
    assert trace == [
        ("Progress", "a", 0), ("Progress", "a", 1), ("Measurement", "x", None),
        ("BenchResult", "a", None),
        ("Progress", "b", 0), ("Progress", "b", 1), ("Progress", "b", 2),
        ("Measurement", "x", None), ("BenchResult", "b", None),
    ]
    progress = [e for e in events if isinstance(e, Progress)]
    assert [(p.bench_index, p.bench_count) for p in progress] == [(0, 2)] * 2 + [(1, 2)] * 3
    assert [r.status for r in report.results] == ["ok", "ok"]
    assert report.value("b", "x") == 3.0
    assert not report.cancelled and report.finished


def test_only_selects_and_keeps_registry_order():
    report, _ = _run([steps("a"), steps("b"), steps("c")], only=("c", "a"))
    assert [r.id for r in report.results] == ["a", "c"]


def test_unknown_id_and_bad_device_are_input_errors():
    with pytest.raises(InputError, match="unknown benchmark nope"):
        _run([steps("a")], only=("nope",))
    with pytest.raises(InputError, match="cuda:3"):
        run_suite(BenchSettings(device="cuda:3"), cancel=threading.Event(), detect=False,
                  registry=[steps("a")])


def test_cancel_between_steps_takes_effect_at_the_next_step():
    """Load-proof form of "within a second": count the steps the benchmark still took after
    the cancel, not the seconds (the runner checks cancel after every event)."""
    state: dict = {}
    cancel = threading.Event()
    after_cancel: list[int] = []

    def on_progress(p: Progress) -> None:
        if p.bench_id == "slow":
            if cancel.is_set():
                after_cancel.append(p.step)
            elif p.step == 5:
                cancel.set()

    report, _ = _run([steps("first"), forever("slow", sleep_s=0.05, state=state),
                      steps("after")], budget_s=60, cancel=cancel, on_progress=on_progress)
    assert after_cancel == []  # not one more step once cancel was set
    assert [r.status for r in report.results] == ["ok", "cancelled", "cancelled"]
    assert report.cancelled
    assert report.value("first", "x") == 3.0  # completed results survive a cancel
    assert report.result("slow").measurements  # so do the cancelled one's partial figures
    assert "closed" in state  # the generator's finally ran


def test_cancel_inside_a_long_loop_without_yields():
    cancel = threading.Event()
    outcome: list[str] = []

    def run(ctx):
        yield Progress("loop", 0, 1, Msg("loop", "循环"))
        deadline = time.monotonic() + 120  # a safety net, far beyond any machine's delay
        try:
            while time.monotonic() < deadline:
                ctx.check()
                time.sleep(0.01)
        except Cancelled:
            outcome.append("left through ctx.check")
            raise
        outcome.append("ran to the safety net")
        yield value("loop")

    timer = threading.Timer(0.2, cancel.set)
    timer.start()
    try:
        report, _ = _run([make("loop", run)], budget_s=600, cancel=cancel)
    finally:
        timer.join()
    assert outcome == ["left through ctx.check"]
    assert report.results[0].status == "cancelled"


def test_runner_stops_a_benchmark_that_ignores_its_budget():
    state: dict = {}
    seen_at: list[float] = []

    def on_progress(p: Progress) -> None:
        if p.bench_id == "greedy":
            seen_at.append(time.monotonic())

    report, _ = _run([forever("greedy", state=state), steps("next")], budget_s=0.4,
                     on_progress=on_progress)
    greedy = report.result("greedy")
    # The runner lets it run its budget plus the 1 s grace (max(1, budget / 4)), then stops
    # it at the next event: at most one step arrives after that limit, however slow the
    # machine. And not before its budget: a slow machine must not cut it early.
    grace = max(1.0, 0.25 * state["budget_s"])
    limit = state["started"] + state["budget_s"] + grace
    assert state["closed"] - state["started"] >= state["budget_s"]
    assert len([t for t in seen_at if t > limit]) <= 1
    # Cut short with a figure in hand: "partial", saying what was left out (issue 12).
    assert greedy.state == "partial" and greedy.ok and greedy.measurements
    assert greedy.reason is not None and "time budget" in greedy.reason.en
    assert any("stopped by the runner" in n.en for n in greedy.notes)
    assert report.result("next").status == "ok"


def test_cooperative_budget_stop_is_noted_and_time_is_shared_by_weight():
    seen: dict[str, float] = {}

    def recorder(bench_id):
        def run(ctx):
            seen[bench_id] = ctx.budget_s
            yield value(bench_id)
        return run

    _run([make("a", recorder("a"), weight=1), make("b", recorder("b"), weight=3)], budget_s=8)
    assert seen["a"] == pytest.approx(2.0, rel=0.05)
    # "a" returned at once, so "b" gets everything that is left, not only its 6 s share.
    assert seen["b"] == pytest.approx(8.0, rel=0.05)

    state: dict = {}
    report, _ = _run([forever("coop", cooperative=True, state=state)], budget_s=0.3)
    coop = report.result("coop")
    assert coop.status == "partial: left out for the time budget: fake loop"
    assert coop.reason is not None and coop.reason.zh == "因时间预算未测：假循环"
    assert any("time budget" in n.en for n in coop.notes)
    # It stopped itself (no "stopped by the runner" note): the runner never had to.
    assert not any("stopped by the runner" in n.en for n in coop.notes)


def test_budget_used_up_before_any_figure_is_a_skip():
    def run(ctx):
        ctx.note_budget_stop(Msg("everything", "全部"))
        return
        yield  # pragma: no cover - makes this a generator

    report, _ = _run([make("late", run)])
    assert report.results[0].status.startswith("skipped: time budget")


def test_one_benchmark_raising_keeps_the_others():
    report, _ = _run([steps("a"), raising("boom", lambda ctx: ValueError("kaput")),
                      steps("c")])
    assert [r.status for r in report.results] == ["ok", "error: ValueError: kaput", "ok"]
    assert report.value("c", "x") == 3.0


def test_skip_failed_and_not_applicable_statuses():
    reason = Msg("needs a GPU", "需要 GPU")
    report, _ = _run([
        raising("skip", lambda ctx: Skip(Msg("not here", "此处不适用"))),
        raising("fail", lambda ctx: Failed(Msg("folder /x is not writable", "不可写"))),
        make("gpu_only", lambda ctx: iter(()), devices=("cuda",),
             not_applicable={"cpu": reason}),
        raising("no_torch", lambda ctx: ModuleNotFoundError("No module named 'torch'",
                                                            name="torch")),
    ])
    statuses = {r.id: r.status for r in report.results}
    assert statuses == {
        "skip": "skipped: not here",
        "fail": "error: folder /x is not writable",
        "gpu_only": "skipped: needs a GPU",
        "no_torch": "skipped: torch is not installed",
    }
    assert report.result("gpu_only").reason == reason
    assert report.result("fail").reason.zh == "不可写"


@pytest.mark.parametrize("oom", [
    lambda: MemoryError(),
    lambda: RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"),
])
def test_out_of_memory_shrinks_and_retries_once(oom):
    calls: list[float] = []
    report, _ = _run([raising("shrinks", lambda ctx: oom() if ctx.scale == 1.0 else None,
                              calls)])
    result = report.results[0]
    assert calls == [1.0, 0.25]
    assert result.status == "ok"
    assert result.value("x") == 0.25  # only the retry's figures are kept
    assert any("out of memory" in n.en for n in result.notes)

    calls.clear()
    report, _ = _run([raising("never_fits", lambda ctx: oom(), calls), steps("next")])
    assert calls == [1.0, 0.25]
    assert report.results[0].status == "skipped: out of memory"
    assert report.results[0].measurements == []
    assert report.results[1].status == "ok"


def test_torch_cuda_out_of_memory_error_is_recognised():
    torch = pytest.importorskip("torch")
    calls: list[float] = []
    report, _ = _run([raising("cuda_oom", lambda ctx: torch.cuda.OutOfMemoryError("boom"),
                              calls)])
    assert calls == [1.0, 0.25]
    assert report.results[0].status == "skipped: out of memory"


def test_later_benchmarks_see_earlier_results():
    seen: list[BenchResult | None] = []

    def reader(ctx):
        seen.append(ctx.results.get("first"))
        yield value("reader")

    _run([steps("first", 1), make("reader", reader)])
    assert seen[0] is not None and seen[0].value("x") == 1.0


def test_detection_failure_is_recorded_not_raised(monkeypatch):
    import torchrig.bench.runner as runner

    monkeypatch.setattr(runner, "detect_profile", lambda: (None, "detection exploded"))
    report = run_suite(BenchSettings(budget_s=2), cancel=threading.Event(),
                       registry=[steps("a", 1)])
    assert report.profile is None and report.profile_error == "detection exploded"
    assert report.results[0].ok
