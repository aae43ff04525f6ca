"""Benchmark lists for tests that run the suite in a real child process.

The child imports them by name (``run_isolated(registry="child_fakes:AB")``); the bench
conftest puts this folder on the child's PYTHONPATH. Benchmarks that must reach a point
before the test acts touch the file named by ``$TORCHRIG_TEST_MARKER``, so tests wait for a
state, never for a time.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from bench_fakes import make, steps, value

from torchrig.bench.base import BenchContext, Event, Progress
from torchrig.i18n import Msg

MARKER_ENV = "TORCHRIG_TEST_MARKER"


def _touch_marker() -> None:
    """Write this process's id: a test may kill it from outside, as the OOM killer would."""
    Path(os.environ[MARKER_ENV]).write_text(str(os.getpid()), encoding="utf-8")


def _wait_for_cancel(ctx: BenchContext) -> Iterator[Event]:
    yield Progress("slow", 0, 1, Msg("working", "工作中"))
    yield value("slow", 7.0)
    _touch_marker()
    while True:  # until the parent's cancel arrives; ctx.check raises then
        ctx.check()
        time.sleep(0.01)
        yield Progress("slow", 0, 1, Msg("still working", "仍在工作"))


def _ignore_cancel(ctx: BenchContext) -> Iterator[Event]:
    yield Progress("stubborn", 0, 1, Msg("working", "工作中"))
    yield value("stubborn", 5.0)
    _touch_marker()
    while True:  # a kernel that never returns: never checks cancel, never yields
        time.sleep(0.05)


def _compute_silently(ctx: BenchContext) -> Iterator[Event]:
    """Computes for ``$TORCHRIG_TEST_COMPUTE_S`` of wall time without a protocol line (pure
    Python, which lets the heartbeat thread run) and reports how long it computed."""
    yield Progress("long", 0, 1, Msg("computing", "计算中"))
    want = float(os.environ["TORCHRIG_TEST_COMPUTE_S"])
    started = time.monotonic()
    while time.monotonic() - started < want:
        pass
    yield value("long", time.monotonic() - started, "computed_s")


def _hold_the_interpreter_lock(ctx: BenchContext) -> Iterator[Event]:
    """One native call that never lets the heartbeat thread run (``sum`` over a range runs in
    C without releasing the interpreter lock), as a long dlopen or driver call would; reports
    how long the call held the lock."""
    yield Progress("native", 0, 1, Msg("in a native call", "本地调用中"))
    started = time.monotonic()
    sum(range(int(os.environ["TORCHRIG_TEST_SUM_N"])))
    yield value("native", time.monotonic() - started, "held_s")


def _hang_idle(ctx: BenchContext) -> Iterator[Event]:
    """Hangs as a deadlock does: blocked, using no CPU, and holding the interpreter lock
    (``pause()`` called through ``ctypes.PyDLL``, which keeps the lock), so no heartbeat."""
    yield Progress("hang", 0, 1, Msg("working", "工作中"))
    yield value("hang", 3.0)
    _touch_marker()
    ctypes.PyDLL(None).pause()
    yield value("hang", 4.0, "never")


def _sigkill_self(ctx: BenchContext) -> Iterator[Event]:
    yield Progress("crash", 0, 2, Msg("working", "工作中"))
    yield value("crash", 4.0)
    os.kill(os.getpid(), signal.SIGKILL)
    yield value("crash", 5.0, "never")


AB = [steps("a"), steps("b")]
STORAGE = [make("storage", lambda ctx: iter([value("storage")]))]
CANCEL_WAIT = [steps("done_first"), make("slow", _wait_for_cancel), steps("never_ran")]
STUBBORN = [steps("done_first"), make("stubborn", _ignore_cancel), steps("never_ran")]
LONG_COMPUTE = [steps("a"), make("long", _compute_silently), steps("c")]
NATIVE_CALL = [make("native", _hold_the_interpreter_lock), steps("c")]
BEATING = [steps("a", n=3, sleep_s=0.3)]
HANG = [steps("done_first"), make("hang", _hang_idle), steps("never_ran")]
CRASH = [steps("a"), make("crash", _sigkill_self), steps("c")]
