"""The heartbeat and the watchdog every TorchRig child process runs under.

A child stopped with SIGSTOP, frozen by a debugger or deadlocked sends nothing and never
exits, so a parent that waits for its lines waits for ever. So:

* the child (:func:`torchrig.bench.process.channel.serve`) sends a ``heartbeat`` line every
  :func:`heartbeat_interval` seconds from a thread of its own, which keeps beating while the
  work computes (torch releases the interpreter lock in its kernels, and Python code gives it
  up every few milliseconds);
* the parent (:func:`torchrig.bench.process.channel.run_child`, and the collective launcher
  for its process tree) keeps a :class:`Silence`: every line it reads is a sign of life; when
  there has been none for the stated time, the child is ended (:func:`wake_and_terminate`,
  then SIGKILL) and :func:`describe_silence` says so, naming the process, its pid and the
  time, while what was measured before is kept.

A native call that holds the interpreter lock (a long dlopen while torch loads its CUDA
libraries, a driver initialising) stops the heartbeat too without the child being hung: a
child whose processes used CPU time in the second half of the silent window is taken as busy,
not hung, and waited for. A stopped child uses no CPU and is ended whatever else holds.

Nothing here imports torch or Qt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable

import psutil

from torchrig.i18n import Msg

SILENCE_TIMEOUT_S = 30.0
"""How long a running child may send nothing (no heartbeat, no progress) before it is ended:
many heartbeats long, so a loaded machine that delays a few does not end a healthy child."""
STARTUP_TIMEOUT_S = 120.0
"""How long a child may take to send its first line: starting Python and importing TorchRig
can take long on a cold, slow disk; the silence limit applies from the first line on."""
HEARTBEAT_S = 1.0
"""The child's heartbeat interval, at most; shorter when the parent's limit is short."""
BEATS_PER_LIMIT = 5
"""Heartbeats the child sends within one silence limit."""
TERM_GRACE_S = 2.0
"""After SIGTERM, how long an ended child has to exit before SIGKILL."""
HEARTBEAT_ENV = "TORCHRIG_HEARTBEAT_S"
"""The parent tells the child its heartbeat interval through this environment variable."""
HEARTBEAT = "heartbeat"
"""The protocol line's ``type``."""
BUSY_CPU_SHARE = 0.05
"""A silent child whose processes used at least this share of one core in the second half of
the window is busy (a native call holding the interpreter lock), not hung."""


def heartbeat_interval(silence_s: float) -> float:
    """The child's interval for a parent that ends it after ``silence_s`` of silence."""
    return min(HEARTBEAT_S, silence_s / BEATS_PER_LIMIT)


def start_heartbeat(beat: Callable[[], None], interval_s: float) -> threading.Event:
    """Call ``beat`` every ``interval_s`` on a daemon thread until the returned event is set
    (or the process ends: the child exits with ``os._exit``, which no thread holds up). A beat
    that fails (the parent closed the pipe) ends the thread."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval_s):
            try:
                beat()
            except (OSError, ValueError):  # the pipe is gone: the parent went away
                return

    threading.Thread(target=loop, name="torchrig-child-heartbeat", daemon=True).start()
    return stop


def interval_from_env(environ: dict[str, str] | None = None) -> float:
    """The interval the parent asked for, else :data:`HEARTBEAT_S` (a child started by
    hand); a value that is not a positive number falls back too."""
    raw = (environ if environ is not None else os.environ).get(HEARTBEAT_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return HEARTBEAT_S
    return value if value > 0 else HEARTBEAT_S


def tree_state(pid: int, whole_tree: bool = False) -> tuple[bool, float] | None:
    """(whether the process ``pid`` is stopped - with ``whole_tree``, whether any process of
    its tree is -, CPU seconds used by it and its descendants), or None when it is gone or
    cannot be read."""
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
        stopped = False
        cpu = 0.0
        for process in family:
            with contextlib.suppress(psutil.Error):
                if (process is root or whole_tree) and _is_stopped(process):
                    stopped = True
                times = process.cpu_times()
                cpu += times.user + times.system
    except (psutil.Error, OSError):
        return None
    return stopped, cpu


def stopped_in_tree(pid: int) -> list[int]:
    """The pids of the stopped processes among ``pid`` and its descendants."""
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except (psutil.Error, OSError):
        return []
    found = []
    for process in family:
        with contextlib.suppress(psutil.Error):
            if _is_stopped(process):
                found.append(process.pid)
    return found


def _is_stopped(process: psutil.Process) -> bool:
    return process.status() in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)


class Silence:
    """The parent's side: whether a child has been silent too long.

    Call :meth:`heard` for every line and :meth:`verdict` as often as convenient (the parents
    poll every 0.05-0.1 s). Before the first line the limit is ``startup_s``, after it
    ``silence_s``.
    """

    def __init__(self, pid: int, silence_s: float = SILENCE_TIMEOUT_S,
                 startup_s: float = STARTUP_TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic,
                 state: Callable[[int], tuple[bool, float] | None] = tree_state) -> None:
        if not silence_s > 0:
            raise ValueError(f"silence limit must be positive, got {silence_s!r}")
        self.pid = pid
        self.silence_s = silence_s
        self.startup_s = max(startup_s, silence_s)
        self._clock = clock
        self._state = state
        self._last = clock()
        self._started = False
        self._baseline: tuple[float, float] | None = None  # (when, CPU seconds then)

    @property
    def limit_s(self) -> float:
        return self.silence_s if self._started else self.startup_s

    def heard(self) -> None:
        self._last = self._clock()
        self._started = True
        self._baseline = None

    def verdict(self) -> str | None:
        """None while the child counts as alive; ``"stopped"`` (its state says so) or
        ``"hung"`` (silent, and idle since half the limit) once it must be ended."""
        now = self._clock()
        quiet, limit = now - self._last, self.limit_s
        if quiet < limit / 2:
            return None
        if self._baseline is None:
            state = self._state(self.pid)
            if state is None:
                return None  # gone: its end of file tells the parent how it ended
            self._baseline = (now, state[1])
        if quiet < limit:
            return None
        state = self._state(self.pid)
        if state is None:
            return None
        stopped, cpu = state
        if stopped:
            return "stopped"
        since, cpu_then = self._baseline
        if cpu - cpu_then >= BUSY_CPU_SHARE * (now - since):
            # Busy in a native call that keeps the heartbeat from running (or this parent
            # was not scheduled to look): a new window before any verdict.
            self._last, self._baseline = now, None
            return None
        return "hung"


def describe_silence(what: Msg, pid: int, silence_s: float, verdict: str) -> Msg:
    """The sentence for people: which process, its pid, how long it said nothing, what it
    was, and that it was ended."""
    seconds = f"{silence_s:g} s"
    if verdict == "stopped":
        en, zh = "it was stopped (SIGSTOP or a debugger)", "它已被暂停（SIGSTOP 或调试器）"
    else:
        en, zh = "it was stopped or hung", "它已被暂停或卡死"
    return Msg(f"{what.en} (pid {pid}) sent nothing for {seconds}: {en}; it was ended",
               f"{what.zh}（pid {pid}）{seconds}内没有任何消息：{zh}；已将其结束")


def with_stopped(why: Msg, what: Msg, pid: int, stopped: list[int]) -> Msg:
    """``why`` (the sentence of a deadline that ended the child) naming the processes of the
    child that were stopped then (:func:`stopped_in_tree`): a stopped child cannot stop on its
    own, and "it did not stop on its own" alone would hide that someone stopped it."""
    if not stopped:
        return why
    if pid in stopped:
        return Msg(f"{why.en}; {what.en} (pid {pid}) had been stopped (SIGSTOP or a debugger)",
                   f"{why.zh}；{what.zh}（pid {pid}）此前已被暂停（SIGSTOP 或调试器）")
    listed = ", ".join(str(p) for p in stopped)
    return Msg(f"{why.en}; processes of {what.en} (pid {pid}) had been stopped (SIGSTOP or a "
               f"debugger): pid {listed}",
               f"{why.zh}；{what.zh}（pid {pid}）的子进程此前已被暂停（SIGSTOP 或调试器）：pid "
               f"{listed}")


def wake_and_terminate(proc: subprocess.Popen[bytes], grace_s: float = TERM_GRACE_S) -> bool:
    """SIGTERM ``proc``'s process group and SIGCONT it, so a stopped child gets the SIGTERM
    (a stopped process keeps every signal but SIGKILL and SIGCONT pending); True when it
    exited within ``grace_s``. SIGTERM goes first so that the resumed child has no moment to
    run on. The caller SIGKILLs what is left."""
    for sig in (signal.SIGTERM, getattr(signal, "SIGCONT", None)):
        if sig is None:
            continue
        if os.name == "posix":
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, sig)
        else:
            with contextlib.suppress(OSError):
                proc.send_signal(sig)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        return False
    return True
