"""Run the benchmark suite in a child process and follow it through JSON lines.

A benchmark can take its process down: a segfault in a kernel, a driver crash, the kernel's
out-of-memory killer. Run in the GUI's process that would close the window and lose every
figure; torch's import would also hold the GUI's interpreter lock for a quarter of a second.
So both faces run the suite with :func:`run_isolated`, which starts
``python -m torchrig.bench.child`` (see that module for the protocol) and

* forwards progress, measurements and results to the caller's callbacks as they arrive;
* on cancel, asks the child to stop and, if it has not ended within
  :data:`CANCEL_GRACE_S`, kills it and everything it started - Cancel always takes effect
  within a second;
* when the child dies without its final report, builds the report from what had arrived:
  finished benchmarks as they were, the one running marked with what ended it, the rest
  "not run" - and says so in ``report.interrupted``.

The parent never imports torch. Nothing here knows about Qt.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from torchrig.bench.base import Progress
from torchrig.bench.report import BenchReport, BenchResult, Measurement
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError
from torchrig.i18n import Msg

CHILD_MODULE = "torchrig.bench.child"
CANCEL_LINE = "cancel"
CANCEL_GRACE_S = 0.6
"""After asking the child to stop, how long to wait before killing it: a benchmark checks
cancel at least every ~0.2 s, and the child still has to write its report."""
EXIT_WAIT_S = 3.0
"""How long a child that sent its report may take to exit before it is killed."""
_STDERR_LINES = 200


# --- protocol helpers (shared with the child) ------------------------------------------------


def progress_to_dict(p: Progress) -> dict[str, Any]:
    return {"bench_id": p.bench_id, "step": p.step, "steps_total": p.steps_total,
            "message": p.message.to_dict(), "bench_index": p.bench_index,
            "bench_count": p.bench_count}


def progress_from_dict(d: Mapping[str, Any]) -> Progress:
    message = d["message"]
    return Progress(str(d["bench_id"]), int(d["step"]), int(d["steps_total"]),
                    Msg(str(message["en"]), str(message["zh"])), int(d["bench_index"]),
                    int(d["bench_count"]))


def settings_to_dict(settings: BenchSettings) -> dict[str, Any]:
    return {"preset": settings.preset, "device": settings.device,
            "only": list(settings.only) if settings.only is not None else None,
            "dataset_dir": str(settings.dataset_dir) if settings.dataset_dir else None,
            "peaks": dict(settings.peaks) if settings.peaks else None,
            "budget_s": settings.budget_s}


def settings_from_dict(d: Mapping[str, Any]) -> BenchSettings:
    return BenchSettings(
        preset=d["preset"], device=d["device"],
        only=tuple(d["only"]) if d.get("only") is not None else None,
        dataset_dir=Path(d["dataset_dir"]) if d.get("dataset_dir") else None,
        peaks=d.get("peaks"), budget_s=d.get("budget_s"))


def read_request(line: str) -> dict[str, Any]:
    try:
        request = json.loads(line)
    except ValueError:
        raise InputError("benchmark child: the request is not JSON") from None
    if not isinstance(request, dict) or not isinstance(request.get("settings"), dict):
        raise InputError("benchmark child: the request has no settings")
    return request


# --- the parent --------------------------------------------------------------------------------


class BenchProcessError(InputError):
    """The child ended before it had told anything (it could not start, or crashed while
    importing); ``details`` holds the end of its stderr."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment, with this copy of torchrig first on the child's path."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def describe_exit(returncode: int | None) -> Msg:
    """How the child ended, for people: a signal by name, else the exit code."""
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint_en = hint_zh = ""
        if -returncode == getattr(signal, "SIGKILL", 9):
            hint_en = " (killed: the system's out-of-memory killer, or another program)"
            hint_zh = "（被强制结束：系统内存不足时的 OOM killer 或其他程序）"
        elif -returncode in (getattr(signal, "SIGSEGV", 11), getattr(signal, "SIGBUS", 7)):
            hint_en = " (a crash in native code: a kernel, a driver or a library)"
            hint_zh = "（本地代码崩溃：内核函数、驱动或库）"
        return Msg(f"the benchmark process was ended by {name}{hint_en}",
                   f"基准测试进程被 {name} 结束{hint_zh}")
    return Msg(f"the benchmark process exited with code {returncode}",
               f"基准测试进程以退出码 {returncode} 结束")


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
        try:
            message = json.loads(line)
            kind = message["type"]
        except (ValueError, KeyError, TypeError):
            return  # not a protocol line (the child's stdout is private; this is defensive)
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


def _read_lines(stream: IO[bytes], sink: queue.Queue[str | None]) -> None:
    for raw in stream:
        sink.put(raw.decode("utf-8", "replace"))
    sink.put(None)


def _keep_tail(stream: IO[bytes], tail: collections.deque[str]) -> None:
    for raw in stream:
        tail.append(raw.decode("utf-8", "replace").rstrip("\n"))


def kill_child(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child and everything it started (DataLoader workers, helpers): the child
    leads its own process group; descendants that left it are found through psutil."""
    try:
        import psutil

        family = psutil.Process(proc.pid).children(recursive=True)
    except Exception:  # noqa: BLE001 - already gone, or no psutil: the group kill still runs
        family = []
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    for child in family:
        with contextlib.suppress(Exception):
            child.kill()
    proc.wait()


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
) -> BenchReport:
    """Run the suite in ``python -m torchrig.bench.child`` and return its report.

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

    Raises:
        InputError: bad settings (the child's message).
        BenchProcessError: the child ended before it had started measuring.
    """
    request = {"settings": settings_to_dict(settings), "profile": profile, "detect": detect,
               "catalog_peaks": catalog_peaks, "registry": registry}
    try:
        proc = subprocess.Popen(
            [python or sys.executable, "-m", CHILD_MODULE], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(env),
            start_new_session=os.name == "posix")
    except OSError as exc:
        raise BenchProcessError(f"could not start the benchmark process ({exc})") from None
    lines: queue.Queue[str | None] = queue.Queue()
    tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
    readers = [threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True,
                                name="torchrig-bench-stdout"),
               threading.Thread(target=_keep_tail, args=(proc.stderr, tail), daemon=True,
                                name="torchrig-bench-stderr")]
    for reader in readers:
        reader.start()
    follower = _Follower(on_progress, on_measurement, on_result)
    asked_at: float | None = None
    killed_for_cancel = False
    assert proc.stdin is not None
    try:
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
            proc.stdin.flush()
        except OSError:
            pass  # it died at once: reported below from its exit status and stderr
        reported_at: float | None = None
        while True:
            if cancel.is_set() and asked_at is None:
                asked_at = time.monotonic()
                with contextlib.suppress(OSError):
                    proc.stdin.write(f"{CANCEL_LINE}\n".encode())
                    proc.stdin.flush()
            now = time.monotonic()
            if asked_at is not None and follower.report is None and \
                    now - asked_at > CANCEL_GRACE_S and proc.poll() is None:
                kill_child(proc)
                killed_for_cancel = True
            if reported_at is not None and now - reported_at > EXIT_WAIT_S and \
                    proc.poll() is None:
                kill_child(proc)
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                continue
            if line is None:
                break
            follower.handle(line)
            if follower.report is not None and reported_at is None:
                reported_at = time.monotonic()
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        if proc.poll() is None:
            try:
                proc.wait(timeout=EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                kill_child(proc)
        for reader in readers:
            reader.join(timeout=2)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    if follower.input_error is not None:
        raise InputError(follower.input_error)
    if follower.report is not None:
        return follower.report
    details = "\n".join(tail)
    ended = describe_exit(proc.returncode)
    if follower.header is None:
        last = next((t for t in reversed(tail) if t.strip()), "")
        raise BenchProcessError(f"{ended.en} before measuring anything"
                                + (f": {last.strip()[:300]}" if last else ""), details)
    return follower.rebuild(ended, cancelled=killed_for_cancel or cancel.is_set())


def registry_ids(registry: str | None) -> Sequence[str]:
    """Benchmark ids of the suite the child will run (for validating settings up front)."""
    from torchrig.bench.child import load_registry
    from torchrig.bench.runner import list_benchmarks

    benches = load_registry(registry)
    return [b.id for b in (benches if benches is not None else list_benchmarks())]
