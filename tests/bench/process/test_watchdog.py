"""The child watchdog: a stopped or hung child is ended and named, a busy one is not.

The timing-free half drives :class:`Silence` with a hand-moved clock and a fake process
state. The other half starts real small children (the fake suites of
``tests/bench/child_fakes.py``) with a limit of about a second; nothing asserts how long
anything took: a wedged parent is caught by :func:`finishes` (a generous safety net that only
turns a hang into a failure), and "not killed" is checked on children that compute for
several limits, which a loaded machine only makes longer.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from torchrig.bench.process.channel import child_env, run_child
from torchrig.bench.process.isolated import run_isolated
from torchrig.bench.process.protocol import settings_to_dict
from torchrig.bench.process.watchdog import (
    HEARTBEAT_S,
    SILENCE_TIMEOUT_S,
    Silence,
    describe_silence,
    heartbeat_interval,
    interval_from_env,
)
from torchrig.bench.report import BenchReport
from torchrig.bench.settings import BenchSettings
from torchrig.i18n import Msg

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGSTOP and process groups")

SAFETY_NET_S = 120.0
"""Only a parent that never returns gets near this; it is not a measure of speed."""

NO_BUDGET_STOP = BenchSettings(preset="smoke", budget_s=3600)
"""The suite's budget at its maximum: a loaded machine must not turn "ok" into "partial"
here, where the question is only whether the watchdog ends the child."""

WHAT = Msg("the benchmark process", "基准测试进程")


# --- Silence, with a hand-moved clock --------------------------------------------------------


class FakeChild:
    """The clock and the process state a Silence reads, moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0
        self.stopped = False
        self.cpu = 5.0
        self.gone = False

    def clock(self) -> float:
        return self.now

    def state(self, _pid: int) -> tuple[bool, float] | None:
        return None if self.gone else (self.stopped, self.cpu)


def silence(child: FakeChild, silence_s: float = 10.0, startup_s: float = 60.0) -> Silence:
    return Silence(42, silence_s, startup_s, clock=child.clock, state=child.state)


def test_an_idle_silent_child_is_hung_once_the_limit_has_passed():
    child = FakeChild()
    watch = silence(child)
    watch.heard()
    for elapsed in (1.0, 4.9, 5.0, 9.9):
        child.now = 100.0 + elapsed
        assert watch.verdict() is None, elapsed
    child.now = 110.0
    assert watch.verdict() == "hung"


def test_every_line_restarts_the_window():
    child = FakeChild()
    watch = silence(child)
    watch.heard()
    child.now = 109.0
    assert watch.verdict() is None
    watch.heard()  # a heartbeat at 109 s
    child.now = 118.0
    assert watch.verdict() is None
    child.now = 119.0
    assert watch.verdict() == "hung"


def test_a_stopped_child_is_named_stopped_even_if_it_burnt_cpu_before():
    child = FakeChild()
    watch = silence(child)
    watch.heard()
    child.now = 105.0
    assert watch.verdict() is None  # the CPU baseline is taken here
    child.cpu += 4.0  # its DataLoader workers still ran for a while
    child.stopped = True
    child.now = 109.0
    assert watch.verdict() is None  # stopped, but the limit has not passed
    child.now = 110.0
    assert watch.verdict() == "stopped"


def test_a_busy_child_in_a_native_call_gets_a_new_window_not_killed():
    child = FakeChild()
    watch = silence(child)
    watch.heard()
    child.now = 105.0
    assert watch.verdict() is None  # baseline: 5.0 CPU seconds at 105 s
    child.now = 110.0
    child.cpu += 5.0 * 0.9  # 90 % of a core for the 5 s since
    assert watch.verdict() is None
    # Idle from now on: a whole new limit passes before it counts as hung.
    child.now = 119.9
    assert watch.verdict() is None
    child.now = 120.0
    assert watch.verdict() == "hung"


def test_a_trickle_of_cpu_below_the_busy_share_is_still_hung():
    child = FakeChild()
    watch = silence(child)
    watch.heard()
    child.now = 105.0
    assert watch.verdict() is None
    child.now = 110.0
    child.cpu += 0.2  # 0.2 s in 5 s = 4 % of a core, under BUSY_CPU_SHARE (5 %)
    assert watch.verdict() == "hung"


def test_before_the_first_line_the_startup_limit_applies():
    child = FakeChild()
    watch = silence(child, silence_s=10.0, startup_s=60.0)
    assert watch.limit_s == 60.0
    child.now = 159.9
    assert watch.verdict() is None
    child.now = 160.0
    assert watch.verdict() == "hung"
    watch.heard()
    assert watch.limit_s == 10.0


def test_the_startup_limit_is_never_shorter_than_the_silence_limit():
    assert silence(FakeChild(), silence_s=200.0, startup_s=60.0).limit_s == 200.0


def test_a_child_that_is_gone_is_left_to_its_end_of_file():
    child = FakeChild()
    watch = silence(child)
    child.gone = True
    child.now = 1000.0
    assert watch.verdict() is None


def test_a_limit_that_is_not_positive_is_refused():
    with pytest.raises(ValueError, match="positive"):
        Silence(1, 0.0)


def test_the_heartbeat_is_five_times_per_limit_and_at_most_once_a_second():
    assert heartbeat_interval(SILENCE_TIMEOUT_S) == HEARTBEAT_S == 1.0
    assert heartbeat_interval(1.0) == pytest.approx(0.2)  # 1 s / 5 beats
    assert interval_from_env({"TORCHRIG_HEARTBEAT_S": "0.25"}) == 0.25
    for bad in ("", "soon", "0", "-1"):
        assert interval_from_env({"TORCHRIG_HEARTBEAT_S": bad}) == HEARTBEAT_S, bad


def test_the_message_names_the_process_its_pid_the_time_and_the_end():
    hung = describe_silence(WHAT, 1234, 30.0, "hung")
    assert hung.en == ("the benchmark process (pid 1234) sent nothing for 30 s: it was "
                       "stopped or hung; it was ended")
    assert hung.zh == "基准测试进程（pid 1234）30 s内没有任何消息：它已被暂停或卡死；已将其结束"
    stopped = describe_silence(WHAT, 7, 1.5, "stopped")
    assert "(pid 7) sent nothing for 1.5 s: it was stopped (SIGSTOP" in stopped.en
    assert "暂停" in stopped.zh and "pid 7" in stopped.zh


# --- real children ---------------------------------------------------------------------------


def finishes(call: Callable[[], Any]) -> Any:
    """``call()``'s value; fails (instead of hanging the suite) if it never returns."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(SAFETY_NET_S)
    assert not thread.is_alive(), "the parent never returned: the watchdog did not fire"
    if "error" in box:
        raise box["error"]
    return box["value"]


def _run_fake(registry: str, tmp_path: Path, silence_s: float,
              extra_env: dict[str, str] | None = None,
              stop_with: int | None = None) -> tuple[BenchReport, int | None]:
    marker = tmp_path / "child.pid"
    env = {"TORCHRIG_TEST_MARKER": str(marker), **(extra_env or {})}
    pid: list[int] = []
    stopper: threading.Thread | None = None
    done = threading.Event()

    if stop_with is not None:
        def stop_when_marked() -> None:
            while not done.is_set():
                if marker.exists() and marker.read_text() != "":
                    pid.append(int(marker.read_text()))
                    os.kill(pid[0], stop_with)
                    return
                done.wait(0.02)

        stopper = threading.Thread(target=stop_when_marked, daemon=True)
        stopper.start()
    try:
        report = finishes(lambda: run_isolated(
            NO_BUDGET_STOP, cancel=threading.Event(), detect=False, registry=registry,
            env=env, silence_s=silence_s))
    finally:
        done.set()
        if stopper is not None:
            stopper.join(5)
        for found in pid:  # a failed watchdog must not leave a stopped process behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(found, signal.SIGKILL)
    return report, (pid[0] if pid else None)


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
def test_a_sigstopped_child_is_ended_named_and_its_figures_kept(tmp_path):
    report, pid = _run_fake("child_fakes:CANCEL_WAIT", tmp_path, 1.0, stop_with=signal.SIGSTOP)
    assert pid is not None and _gone(pid)
    assert [r.state for r in report.results] == ["ok", "error", "skipped"]
    assert report.value("done_first", "x") == 3.0  # finished before the stop
    assert report.value("slow", "x") == 7.0  # measured by the stopped one before it stopped
    assert report.interrupted is not None
    assert (f"the benchmark process (pid {pid}) sent nothing for 1 s: it was stopped "
            "(SIGSTOP") in report.interrupted.en
    assert "it was ended" in report.interrupted.en
    assert f"pid {pid}" in report.interrupted.zh and "暂停" in report.interrupted.zh
    slow = report.results[1]
    assert slow.reason is not None and "sent nothing for 1 s" in slow.reason.en


@pytest.mark.slow
def test_a_child_hung_without_cpu_is_ended_as_stopped_or_hung(tmp_path):
    report, _ = _run_fake("child_fakes:HANG", tmp_path, 1.0)
    assert [r.state for r in report.results] == ["ok", "error", "skipped"]
    assert report.value("hang", "x") == 3.0
    assert report.interrupted is not None
    assert "sent nothing for 1 s: it was stopped or hung; it was ended" \
        in report.interrupted.en


@pytest.mark.slow
def test_a_child_that_beats_while_it_computes_for_several_limits_is_not_killed(tmp_path):
    report, _ = _run_fake("child_fakes:LONG_COMPUTE", tmp_path, 1.0,
                          extra_env={"TORCHRIG_TEST_COMPUTE_S": "3"})
    assert [r.status for r in report.results] == ["ok", "ok", "ok"]
    assert report.interrupted is None
    # The child itself says it computed 3 s of wall time without a protocol line.
    assert report.value("long", "computed_s") >= 3.0


@pytest.mark.slow
def test_a_native_call_that_blocks_the_heartbeat_while_busy_is_not_killed(tmp_path):
    report, _ = _run_fake("child_fakes:NATIVE_CALL", tmp_path, 0.3,
                          extra_env={"TORCHRIG_TEST_SUM_N": str(10**8)})
    assert [r.status for r in report.results] == ["ok", "ok"]
    assert report.interrupted is None
    # The call held the interpreter lock (no heartbeat) for more than twice the limit: the
    # CPU it used is what kept it alive.
    assert report.value("native", "held_s") >= 2 * 0.3


@pytest.mark.slow
def test_the_child_beats_between_its_lines():
    """Read the child's raw stdout (no run_child): heartbeat lines arrive while a benchmark
    sleeps 0.3 s per step, at the interval the environment asks for."""
    request = {"settings": settings_to_dict(NO_BUDGET_STOP), "detect": False,
               "registry": "child_fakes:BEATING"}
    proc = subprocess.Popen([sys.executable, "-m", "torchrig.bench.process.child"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL,
                            env=child_env({"TORCHRIG_HEARTBEAT_S": "0.05"}))
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def talk() -> list[str]:
        # stdin stays open until the report: its closing would read as "cancel".
        stdin.write((json.dumps(request) + "\n").encode())
        stdin.flush()
        kinds: list[str] = []
        for line in iter(stdout.readline, b""):
            kinds.append(json.loads(line)["type"])
            if kinds[-1] == "report":
                stdin.close()
        proc.wait()
        return kinds

    try:
        kinds = finishes(talk)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        stdout.close()
    assert kinds[0] in ("heartbeat", "start") and kinds[-1] == "report"
    between = kinds[kinds.index("start"):kinds.index("report")]
    assert between.count("heartbeat") >= 1  # 0.9 s of sleeping, a beat every 0.05 s
    assert [k for k in kinds if k != "heartbeat"] == (
        # "begin" announces the benchmark's budget for the parent's deadline (issue 27)
        ["start", "begin"] + ["progress"] * 3 + ["measurement", "result", "report"])


@pytest.mark.slow
def test_a_normal_run_is_unchanged_and_heartbeats_never_reach_the_caller():
    seen: list[str] = []
    report = finishes(lambda: run_isolated(
        NO_BUDGET_STOP, cancel=threading.Event(), detect=False,
        registry="child_fakes:BEATING", silence_s=1.0,
        on_progress=lambda p: seen.append(f"p:{p.bench_id}"),
        on_measurement=lambda m: seen.append(f"m:{m.id}"),
        on_result=lambda r: seen.append(f"r:{r.id}")))
    assert [r.status for r in report.results] == ["ok"]
    assert seen == ["p:a"] * 3 + ["m:x", "r:a"]
    assert report.interrupted is None
    assert report.value("a", "x") == 3.0


@pytest.mark.slow
def test_a_child_silent_from_the_start_is_ended_after_the_startup_limit():
    lines: list[str] = []
    end = finishes(lambda: run_child("silent_child", {"settings": {}},
                                     cancel=threading.Event(), on_line=lambda s: bool(
                                         lines.append(s)), silence_s=0.5, startup_s=1.0))
    assert lines == []
    assert end.silent is not None
    assert "sent nothing for 1 s: it was stopped or hung; it was ended" in end.silent.en
    assert end.returncode == -signal.SIGTERM  # SIGTERM was enough: no SIGKILL needed
