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
  "not run" - and says so in ``report.interrupted``.

The process plumbing (starting, cancelling, killing, reading lines) is
:mod:`torchrig.bench.process.channel`'s, shared with the plan check's child; the messages are
encoded by :mod:`torchrig.bench.process.protocol`. The parent never imports torch. Nothing here
knows about Qt.
"""

from __future__ import annotations

import threading
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
from torchrig.bench.process.protocol import (
    load_registry,
    progress_from_dict,
    settings_to_dict,
)
from torchrig.bench.process.watchdog import SILENCE_TIMEOUT_S
from torchrig.bench.report import BenchReport, BenchResult, Measurement
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError
from torchrig.i18n import Msg

CHILD_MODULE = "torchrig.bench.process.child"


class _Follower:
    """What has arrived from the child so far, enough to rebuild the report after a crash."""

    def __init__(self, on_progress: Callable[[Progress], None] | None,
                 on_measurement: Callable[[Measurement], None] | None,
                 on_result: Callable[[BenchResult], None] | None) -> None:
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

    def handle(self, line: str) -> None:
        message = parse_line(line)
        if message is None:
            return
        kind = message["type"]
        if kind == "start":
            self.header = BenchReport.from_dict(message["report"], "benchmark child")
            self.selected = [(s["id"], Msg(s["title"]["en"], s["title"]["zh"]))
                             for s in message["selected"]]
        elif kind == "progress":
            p = progress_from_dict(message["progress"])
            if self.current is not None and p.bench_id != self.current:
                self.current_measurements = []
            self.current = p.bench_id
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
            if self.on_result is not None:
                self.on_result(r)
        elif kind == "report":
            self.report = BenchReport.from_dict(message["report"], "benchmark child")
        elif kind == "input_error":
            self.input_error = str(message.get("message", "bad input"))

    def rebuild(self, ended: Msg, cancelled: bool) -> BenchReport:
        """The report from what had arrived when the child ended without sending it."""
        assert self.header is not None
        report = replace(self.header, results=[])
        # Measurements carry no benchmark id: they belong to the one running, which is the
        # first without a result when it died before its first progress line.
        running = self.current or self._next_id()
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
                reason = Msg("not run: the benchmark process had ended",
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

    Raises:
        InputError: bad settings (the child's message).
        BenchProcessError: the child ended before it had started measuring.
    """
    request = {"settings": settings_to_dict(settings), "profile": profile, "detect": detect,
               "catalog_peaks": catalog_peaks, "registry": registry}
    follower = _Follower(on_progress, on_measurement, on_result)

    def on_line(line: str) -> bool:
        follower.handle(line)
        return follower.report is not None or follower.input_error is not None

    end = run_child(CHILD_MODULE, request, cancel=cancel, on_line=on_line, env=env,
                    python=python, silence_s=silence_s)
    if follower.input_error is not None:
        raise InputError(follower.input_error)
    if follower.report is not None:
        return follower.report
    ended = end.silent or describe_exit(end.returncode)
    if follower.header is None:
        last = end.last_words()
        raise BenchProcessError(f"{ended.en} before measuring anything"
                                + (f": {last[:300]}" if last else ""), "\n".join(end.stderr_tail))
    return follower.rebuild(ended, cancelled=end.killed_for_cancel or cancel.is_set())


def registry_ids(registry: str | None) -> Sequence[str]:
    """Benchmark ids of the suite the child will run (for validating settings up front)."""
    from torchrig.bench.runner import list_benchmarks

    benches = load_registry(registry)
    return [b.id for b in (benches if benches is not None else list_benchmarks())]
