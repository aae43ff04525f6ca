"""Run the benchmark suite in a child process and follow it through JSON lines.

A benchmark can take its process down: a segfault in a kernel, a driver crash, the kernel's
out-of-memory killer. Run in the GUI's process that would close the window and lose every
figure; torch's import would also hold the GUI's interpreter lock for a quarter of a second.
So both faces run the suite with :func:`run_isolated`, which starts
``python -m torchrig.bench.process.child`` (see that module for the protocol) and

* forwards progress, measurements and results to the caller's callbacks as they arrive;
* on cancel, asks the child to stop and, if it has not ended within
  :data:`~torchrig.bench.process.channel.CANCEL_GRACE_S`, kills it and everything it started -
  Cancel always takes effect within a second;
* when the child has sent nothing, not even its heartbeat, for ``silence_s`` (stopped with
  SIGSTOP, frozen, deadlocked), ends it (:mod:`torchrig.bench.process.watchdog`) and says so;
* when the child dies without its final report, builds the report from what had arrived:
  finished benchmarks as they were, the one running marked with what ended it, the rest
  "not run" - and says so in ``report.interrupted``;
* keeps the run's deadlines (:mod:`torchrig.bench.process.deadline`): a benchmark that runs
  past its hard limit without stopping is ended with its process, keeps the figures it had
  sent and is marked partial (or skipped when it had sent none), and the benchmarks after it
  run in a fresh child with what is left of the run's budget; at the run's own deadline the
  child is ended and the benchmarks not yet run are reported as such.

The process plumbing (starting, cancelling, killing, reading lines) is
:mod:`torchrig.bench.process.channel`'s, shared with the plan check's child; the messages are
encoded by :mod:`torchrig.bench.process.protocol`. The parent never imports torch. Nothing here
knows about Qt.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from torchrig.bench.base import Progress
from torchrig.bench.process.channel import (
    BenchProcessError,
    describe_exit,
    parse_line,
    run_child,
)
from torchrig.bench.process.deadline import Deadlines, Stop
from torchrig.bench.process.protocol import (
    load_registry,
    progress_from_dict,
    settings_to_dict,
)
from torchrig.bench.process.watchdog import SILENCE_TIMEOUT_S
from torchrig.bench.report import BenchReport, BenchResult, Measurement
from torchrig.bench.runner import MIN_START_S
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError
from torchrig.i18n import Msg

CHILD_MODULE = "torchrig.bench.process.child"

SUITE_BUDGET_USED = Msg("not run: the suite's time budget was used up",
                        "未运行：整套测试的时间预算已用完")


class _Follower:
    """What has arrived from the child so far, enough to rebuild the report after a crash."""

    def __init__(self, on_progress: Callable[[Progress], None] | None,
                 on_measurement: Callable[[Measurement], None] | None,
                 on_result: Callable[[BenchResult], None] | None,
                 deadlines: Deadlines | None = None) -> None:
        self.deadlines = deadlines
        self.on_progress = on_progress
        self.on_measurement = on_measurement
        self.on_result = on_result
        self.header: BenchReport | None = None
        self.selected: list[tuple[str, Msg]] = []
        self.results: dict[str, BenchResult] = {}
        self.current: str | None = None
        self.current_measurements: list[Measurement] = []
        self.report: BenchReport | None = None
        self.input_error: str | None = None
        self.first_begin_at: float | None = None  # when the first child began measuring

    def handle(self, line: str) -> None:
        message = parse_line(line)
        if message is None:
            return
        kind = message["type"]
        if kind == "start":
            header = BenchReport.from_dict(message["report"], "benchmark child")
            if self.header is None:  # a later child (after a stop) runs the rest of this run
                self.header = header
                self.selected = [(s["id"], Msg(s["title"]["en"], s["title"]["zh"]))
                                 for s in message["selected"]]
            if self.deadlines is not None:
                self.deadlines.device = header.device
        elif kind == "begin":
            self.current, self.current_measurements = str(message["id"]), []
            if self.deadlines is not None and self.first_begin_at is None:
                self.first_begin_at = self.deadlines.clock()
            if self.deadlines is not None:
                self.deadlines.begin(self.current, float(message["budget_s"]),
                                     float(message["hard_limit_s"]))
        elif kind == "progress":
            p = progress_from_dict(message["progress"])
            if self.current is not None and p.bench_id != self.current:
                self.current_measurements = []
            self.current = p.bench_id
            ids = [bench_id for bench_id, _ in self.selected]
            if p.bench_id in ids:  # the position in the whole run, not in a later child's
                p = replace(p, bench_index=ids.index(p.bench_id), bench_count=len(ids))
            if self.on_progress is not None:
                self.on_progress(p)
        elif kind == "measurement":
            m = Measurement.from_dict(message["measurement"], "benchmark child")
            self.current_measurements.append(m)
            if self.on_measurement is not None:
                self.on_measurement(m)
        elif kind == "result":
            r = BenchResult.from_dict(message["result"], "benchmark child")
            self.results[r.id] = r
            self.current, self.current_measurements = None, []
            if self.deadlines is not None:
                self.deadlines.ended(r.id)
            if self.on_result is not None:
                self.on_result(r)
        elif kind == "report":
            self.report = BenchReport.from_dict(message["report"], "benchmark child")
        elif kind == "input_error":
            self.input_error = str(message.get("message", "bad input"))

    def stopped(self, stop: Stop) -> None:
        """The benchmark the parent ended at its deadline, with the figures it had sent."""
        bench_id = self.current or stop.bench_id
        if self.deadlines is not None and bench_id is not None:
            self.deadlines.ended(bench_id)
        if bench_id is None or bench_id in self.results:
            return  # between benchmarks (a fresh child starting): nothing was running
        title = dict(self.selected).get(bench_id, Msg(bench_id, bench_id))
        result = BenchResult(id=bench_id, title=title,
                             measurements=list(self.current_measurements),
                             notes=[stop.message], seconds=stop.ran_s, budget_s=stop.budget_s)
        if result.measurements:
            result.reason = Msg(f"{stop.message.en}; the figures shown were measured before",
                                f"{stop.message.zh}；所示数据是在此之前测得的")
            result.status = f"partial: {result.reason.en}"
        else:
            result.reason = stop.message
            result.status = f"skipped: {stop.message.en} before a figure was measured"
        self.results[bench_id] = result
        self.current, self.current_measurements = None, []
        if self.on_result is not None:
            self.on_result(result)

    def remaining(self) -> list[str]:
        return [bench_id for bench_id, _ in self.selected if bench_id not in self.results]

    def merged(self, last: BenchReport) -> BenchReport:
        """The last child's report with every child's results, in the run's order."""
        assert self.header is not None
        results = [self.results[b] for b, _ in self.selected if b in self.results]
        return replace(last, started=self.header.started, environment=self.header.environment,
                       profile=self.header.profile, profile_error=self.header.profile_error,
                       settings=self.header.settings, results=results,
                       cancelled=any(r.state == "cancelled" for r in results))

    def rebuild(self, ended: Msg, cancelled: bool,
                not_run: Msg | None = None) -> BenchReport:
        """The report from what had arrived when the child ended without sending it;
        ``not_run`` is the reason given to the benchmarks that had not started."""
        assert self.header is not None
        report = replace(self.header, results=[])
        # Measurements carry no benchmark id: they belong to the one running, which is the
        # first without a result when it died before its first progress line.
        running = self.current or (self._next_id() if not_run is None else None)
        for bench_id, title in self.selected:
            if bench_id in self.results:
                result = self.results[bench_id]
            elif bench_id == running:
                result = BenchResult(id=bench_id, title=title,
                                     measurements=list(self.current_measurements))
                if cancelled:
                    result.status = "cancelled"
                else:
                    result.reason = ended
                    result.status = f"error: {ended.en}"
            elif cancelled:
                result = BenchResult(id=bench_id, title=title, status="cancelled")
            else:
                reason = not_run or Msg("not run: the benchmark process had ended",
                                        "未运行：基准测试进程已结束")
                result = BenchResult(id=bench_id, title=title, status=f"skipped: {reason.en}",
                                     reason=reason)
            report.results.append(result)
            if bench_id not in self.results and self.on_result is not None:
                self.on_result(result)
        report.cancelled = any(r.state == "cancelled" for r in report.results)
        if not cancelled:
            report.interrupted = Msg(f"{ended.en}; the figures shown were measured before it "
                                     "ended",
                                     f"{ended.zh}；所示数据是在此之前测得的")
        return report

    def _next_id(self) -> str | None:
        """The first selected benchmark without a result."""
        for bench_id, _ in self.selected:
            if bench_id not in self.results:
                return bench_id
        return None


def run_isolated(
    settings: BenchSettings,
    *,
    cancel: threading.Event,
    on_progress: Callable[[Progress], None] | None = None,
    on_measurement: Callable[[Measurement], None] | None = None,
    on_result: Callable[[BenchResult], None] | None = None,
    profile: Mapping[str, Any] | None = None,
    detect: bool = True,
    catalog_peaks: bool = False,
    registry: str | None = None,
    env: Mapping[str, str] | None = None,
    python: str | None = None,
    silence_s: float = SILENCE_TIMEOUT_S,
    clock: Callable[[], float] = time.monotonic,
    started: float | None = None,
) -> BenchReport:
    """Run the suite in ``python -m torchrig.bench.process.child`` and return its report.

    Args:
        settings: validated by the child (an InputError comes back as one).
        cancel: set from any thread; the child is asked to stop and killed after
            CANCEL_GRACE_S if it has not.
        on_progress / on_measurement / on_result: called on this thread as lines arrive.
        profile: ``SystemProfile.to_dict()`` the caller already has; else the child detects
            when ``detect``.
        catalog_peaks: the child looks the device's spec peaks up in the catalog.
        registry: ``"module:attribute"`` of another benchmark list (tests).
        env: extra environment variables for the child.
        python: the interpreter (default: this one).
        silence_s: a child that sends nothing for this long is ended as stopped or hung;
            the report keeps what it had measured and ``report.interrupted`` says why.
        clock: the parent's clock for the deadlines (tests pass a fake one).
        started: when the run's wall budget began on that clock (default: now); the command
            line passes its process's start (deadline.process_started).

    Raises:
        InputError: bad settings (the child's message).
        BenchProcessError: the child ended before it had started measuring.
    """
    deadlines = Deadlines(settings, started if started is not None else clock(), clock)
    request: dict[str, Any] = {
        "settings": settings_to_dict(settings), "profile": profile, "detect": detect,
        "catalog_peaks": catalog_peaks, "registry": registry,
        "wall_started": deadlines.started if deadlines.enforce_suite else None}
    follower = _Follower(on_progress, on_measurement, on_result, deadlines)
    stops: list[Stop] = []

    def on_line(line: str) -> bool:
        follower.handle(line)
        return follower.report is not None or follower.input_error is not None

    def stop_check() -> Msg | None:
        stop = deadlines.check()
        if stop is not None:
            stops.append(stop)
            return stop.message
        return None

    spawned = clock()
    while True:
        follower.report = None
        end = run_child(CHILD_MODULE, request, cancel=cancel, on_line=on_line, env=env,
                        python=python, silence_s=silence_s, stop_check=stop_check)
        if follower.input_error is not None:
            raise InputError(follower.input_error)
        if follower.report is not None:
            return follower.merged(follower.report) if len(stops) else follower.report
        if end.stopped is not None and follower.header is not None:
            # end.stopped is the deadline's sentence, naming the child if it had been stopped.
            stop = replace(stops[-1], message=end.stopped)
            follower.stopped(stop)
            rest = follower.remaining()
            # A fresh child needs what the first took to start measuring (torch's import,
            # preparations); with less than that left it would only use up the rest.
            start_up = (follower.first_begin_at - spawned
                        if follower.first_begin_at is not None else 0.0)
            if stop.kind == "benchmark" and rest and not cancel.is_set() and \
                    deadlines.measuring_left() > start_up + MIN_START_S:
                request = _next_request(request, settings, follower, rest, catalog_peaks)
                continue
            return follower.rebuild(stop.message, cancelled=cancel.is_set(),
                                    not_run=SUITE_BUDGET_USED)
        ended = end.stopped or end.silent or describe_exit(end.returncode)
        if follower.header is None:
            last = end.last_words()
            raise BenchProcessError(f"{ended.en} before measuring anything"
                                    + (f": {last[:300]}" if last else ""),
                                    "\n".join(end.stderr_tail))
        return follower.rebuild(ended, cancelled=end.killed_for_cancel or cancel.is_set())


def _next_request(request: dict[str, Any], settings: BenchSettings, follower: _Follower,
                  rest: list[str], catalog_peaks: bool) -> dict[str, Any]:
    """The request for the child that runs what is left after a stop: the rest of the
    benchmarks, the profile and peaks the first child found (no second detection or catalog
    read), the results so far (dataload reads train's) and the same wall-clock start."""
    assert follower.header is not None
    peaks = follower.header.settings.get("peaks") if catalog_peaks else settings.peaks
    rest_settings = replace(settings, only=tuple(rest), peaks=peaks or None)
    return {**request, "settings": settings_to_dict(rest_settings),
            "profile": follower.header.profile or request.get("profile"), "detect": False,
            "catalog_peaks": False,
            "earlier": [r.to_dict() for r in follower.results.values()]}


def registry_ids(registry: str | None) -> Sequence[str]:
    """Benchmark ids of the suite the child will run (for validating settings up front)."""
    from torchrig.bench.runner import list_benchmarks

    benches = load_registry(registry)
    return [b.id for b in (benches if benches is not None else list_benchmarks())]
