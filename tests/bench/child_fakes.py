"""Benchmark lists for tests that run the suite in a real child process.

The child imports them by name (``run_isolated(registry="child_fakes:AB")``); the bench
conftest puts this folder on the child's PYTHONPATH. Benchmarks that must reach a point
before the test acts touch the file named by ``$TORCHRIG_TEST_MARKER``, so tests wait for a
state, never for a time.
"""

from __future__ import annotations

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


def _sigkill_self(ctx: BenchContext) -> Iterator[Event]:
    yield Progress("crash", 0, 2, Msg("working", "工作中"))
    yield value("crash", 4.0)
    os.kill(os.getpid(), signal.SIGKILL)
    yield value("crash", 5.0, "never")


AB = [steps("a"), steps("b")]
STORAGE = [make("storage", lambda ctx: iter([value("storage")]))]
CANCEL_WAIT = [steps("done_first"), make("slow", _wait_for_cancel), steps("never_ran")]
STUBBORN = [steps("done_first"), make("stubborn", _ignore_cancel), steps("never_ran")]
CRASH = [steps("a"), make("crash", _sigkill_self), steps("c")]
