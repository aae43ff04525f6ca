"""The collective launcher's watchdog: a tree whose output stops while a process is stopped,
or while every process is idle, is ended with a sentence naming the stopped processes; a busy
silent tree is left to finish.

The limits are about a second; nothing asserts how long anything took (the hard time limit
of each run, far longer, is only a safety net against a wedged test)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import psutil
import pytest

from torchrig.bench.collective.launch import (
    COLLECTIVE_SILENCE_S,
    CollectiveLaunchError,
    ProcessOutcome,
    describe_hang,
    launch_local,
    run_process_tree,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGSTOP and sessions")

SAFETY_NET_S = 120.0

# Like torchrun's workers: a grandchild in a session of its own, which writes a file when
# SIGTERM reaches it (a stopped process only gets it once SIGCONT has resumed it).
STOPPABLE = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", '''
import os, pathlib, signal, sys, time
def bye(*_):
    pathlib.Path(sys.argv[1]).write_text("terminated")
    os._exit(0)
signal.signal(signal.SIGTERM, bye)
print("child", os.getpid(), flush=True)
time.sleep(600)
''', sys.argv[1]], start_new_session=True)
child.wait()
"""


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _run(code: str, *args: str, stop_child: bool, silence_s: float = 1.0,
         ) -> tuple[ProcessOutcome, list[int]]:
    pids: list[int] = []

    def on_line(line: str) -> None:
        if line.startswith("child"):
            pids.append(int(line.split()[1]))
            if stop_child:
                os.kill(pids[0], signal.SIGSTOP)

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    try:
        outcome = run_process_tree([sys.executable, "-c", code, *args], env=None,
                                   timeout_s=SAFETY_NET_S, on_line=on_line,
                                   silence_s=silence_s)
    finally:
        for pid in pids:  # a failed watchdog must not leave a stopped process behind
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
    left = [p for p in psutil.Process().children(recursive=True)
            if p.pid not in before and not _gone(p.pid)]
    assert not left, f"processes left behind: {[p.cmdline() for p in left]}"
    return outcome, pids


def test_a_stopped_process_in_its_own_session_is_named_resumed_and_terminated(tmp_path):
    flag = tmp_path / "got-sigterm"
    outcome, [pid] = _run(STOPPABLE, str(flag), stop_child=True)
    assert outcome.silent == "stopped" and outcome.stopped_pids == (pid,)
    assert not outcome.timed_out and not outcome.cancelled
    assert _gone(pid)
    assert flag.read_text() == "terminated"  # SIGCONT let the SIGTERM in: no SIGKILL needed
    assert describe_hang(outcome, 1.0) == (
        f"collective benchmark sent nothing for 1 s: process {pid} was stopped (SIGSTOP or "
        "a debugger); it was ended with all its processes")


def test_an_idle_silent_tree_is_ended_as_stopped_or_hung(tmp_path):
    outcome, [pid] = _run(STOPPABLE, str(tmp_path / "flag"), stop_child=False)
    assert outcome.silent == "hung" and outcome.stopped_pids == ()
    assert _gone(pid)
    assert describe_hang(outcome, 1.0) == (
        "collective benchmark sent nothing for 1 s: it was stopped or hung; it was ended "
        "with all its processes")


@pytest.mark.slow
def test_a_busy_silent_tree_is_left_to_finish():
    busy = ("import time\nstarted = time.monotonic()\n"
            "while time.monotonic() - started < 3: pass\nprint('computed', flush=True)\n")
    outcome, _ = _run(busy, stop_child=False, silence_s=1.0)
    assert outcome.silent is None and outcome.returncode == 0
    assert "computed" in outcome.output_tail


def test_the_sentence_lists_every_stopped_process():
    outcome = ProcessOutcome(returncode=None, output_tail="", timed_out=False, cancelled=False,
                             elapsed_s=0.0, silent="stopped", stopped_pids=(11, 12))
    assert describe_hang(outcome, 240.0) == (
        "collective benchmark sent nothing for 240 s: processes 11, 12 were stopped (SIGSTOP "
        "or a debugger); it was ended with all its processes")


def test_the_default_limit_outlasts_the_workers_own_timeout():
    """A lost rank should be reported by the workers (which rank, which operation) before the
    watchdog steps in: the default silence is at least twice their process-group timeout."""
    from torchrig.bench.collective.options import DEFAULT_TIMEOUT_S

    assert COLLECTIVE_SILENCE_S >= 2 * DEFAULT_TIMEOUT_S


@pytest.mark.slow
def test_a_stopped_rank_ends_a_real_local_run_with_a_clear_message(tmp_path: Path):
    pytest.importorskip("torch")
    stopped: list[int] = []

    def stop_rank_1(line: str) -> None:
        if stopped or "progress" not in line:
            return
        for process in psutil.Process().children(recursive=True):
            try:
                if process.environ().get("RANK") == "1":
                    process.send_signal(signal.SIGSTOP)
                    stopped.append(process.pid)
            except psutil.Error:
                continue

    error: dict[str, BaseException] = {}

    def run() -> None:
        try:
            launch_local(2, "gloo", ["--sizes", "8..64K", "--iters", "200"], SAFETY_NET_S,
                         json_path=tmp_path / "r.json", on_line=stop_rank_1, silence_s=2.0)
        except BaseException as exc:  # noqa: BLE001 - examined below
            error["raised"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(SAFETY_NET_S + 30)
    assert not thread.is_alive()
    raised = error.get("raised")
    assert isinstance(raised, CollectiveLaunchError), raised
    [pid] = stopped
    assert raised.reason == "hung"
    assert str(raised) == (f"collective benchmark sent nothing for 2 s: process {pid} was "
                           "stopped (SIGSTOP or a debugger); it was ended with all its "
                           "processes")
    assert _gone(pid) and not (tmp_path / "r.json").exists()
