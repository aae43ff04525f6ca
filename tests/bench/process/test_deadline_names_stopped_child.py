"""A benchmark child stopped with SIGSTOP is ended by the benchmark's deadline before the
silence watchdog's 30 s pass (issue 28; found by scripts/hostile_inputs.py): the sentence then
said only "it did not stop on its own, so its process was ended". It now names the stopped
process and says it had been stopped, as the watchdog's own sentence does.

The real half stops the child from inside the parent's own line handler (``on_progress`` runs
on the thread that also asks the deadline), so the child is stopped before the deadline is
next asked: no race, and nothing asserts how long anything took.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

import psutil
import pytest

from torchrig.bench.base import Progress
from torchrig.bench.process.isolated import run_isolated
from torchrig.bench.process.watchdog import with_stopped
from torchrig.bench.report import Measurement
from torchrig.bench.settings import BenchSettings
from torchrig.i18n import Msg

WHY = Msg("stopped at its time limit after 3.5 s (budget 1.5 s): it did not stop on its own, "
          "so its process was ended",
          "运行 3.5 秒后在时间上限处停止（预算 1.5 秒）：它未自行停止，其进程已被结束")
WHAT = Msg("the benchmark process", "基准测试进程")


def test_nothing_stopped_leaves_the_sentence_as_it_was():
    assert with_stopped(WHY, WHAT, 42, []) == WHY


def test_the_stopped_child_itself_is_named_with_its_pid():
    said = with_stopped(WHY, WHAT, 42, [42, 43])
    assert said.en == (WHY.en + "; the benchmark process (pid 42) had been stopped (SIGSTOP or "
                       "a debugger)")
    assert said.zh == WHY.zh + "；基准测试进程（pid 42）此前已被暂停（SIGSTOP 或调试器）"


def test_stopped_descendants_only_are_listed_by_pid():
    said = with_stopped(WHY, WHAT, 42, [43, 44])
    assert said.en == (WHY.en + "; processes of the benchmark process (pid 42) had been stopped "
                       "(SIGSTOP or a debugger): pid 43, 44")
    assert said.zh.endswith("（pid 42）的子进程此前已被暂停（SIGSTOP 或调试器）：pid 43, 44")


def _bench_child() -> psutil.Process:
    found = [c for c in psutil.Process().children(recursive=True)
             if "torchrig.bench.process.child" in " ".join(c.cmdline())]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.slow  # three child processes
@pytest.mark.skipif(os.name != "posix", reason="SIGSTOP")
def test_a_stopped_child_ended_at_its_deadline_is_named_and_gone():
    """deadline_fakes:STUBBORN: its second benchmark sends a figure, then never yields; its
    child is SIGSTOPped once that figure has arrived, so its deadline ends a stopped
    process (the silence limit, an hour, cannot fire first)."""
    stopped: list[int] = []
    began: list[str] = []

    def note(progress: Progress) -> None:
        began.append(progress.bench_id)

    def stop_after_the_stubborn_figure(_measurement: Measurement) -> None:
        if began and began[-1] == "stubborn" and not stopped:
            child = _bench_child()
            os.kill(child.pid, signal.SIGSTOP)
            stopped.append(child.pid)
            # Delivered asynchronously: wait for the state the parent will read.
            for _ in range(400):
                if child.status() == psutil.STATUS_STOPPED:
                    break
                threading.Event().wait(0.01)

    try:
        report = run_isolated(BenchSettings(preset="smoke", budget_s=120.0),
                              cancel=threading.Event(), detect=False,
                              registry="deadline_fakes:STUBBORN", silence_s=3600.0,
                              on_progress=note,
                              on_measurement=stop_after_the_stubborn_figure)
    finally:
        for pid in stopped:  # a failed end must not leave a stopped process behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert len(stopped) == 1
    pid = stopped[0]
    first, stubborn, reader = report.results
    assert first.status == "ok"
    assert stubborn.state == "partial" and stubborn.value("x") == 5.0  # its figure is kept
    assert stubborn.reason is not None
    assert "it did not stop on its own, so its process was ended; the benchmark process " \
           f"(pid {pid}) had been stopped (SIGSTOP or a debugger); the figures shown were " \
           "measured before" in stubborn.reason.en
    assert f"（pid {pid}）此前已被暂停" in stubborn.reason.zh
    assert reader.status == "ok"  # the rest ran in a fresh child
    with contextlib.suppress(psutil.NoSuchProcess):
        assert psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
