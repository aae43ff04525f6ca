"""Benchmark lists for the hard-budget tests (issue 27), imported by the child by name
(``run_isolated(registry="deadline_fakes:STUBBORN")``); tests/bench/conftest.py puts this folder
on the child's PYTHONPATH."""

from __future__ import annotations

import time
from collections.abc import Iterator

from bench_fakes import make, steps, value

from torchrig.bench.base import BenchContext, Event, Progress
from torchrig.i18n import Msg


def _never_stops(ctx: BenchContext) -> Iterator[Event]:
    """A native call that never returns: it sends a figure, then neither yields nor calls
    ctx.check() again, so no cooperative stop can reach it."""
    yield Progress("stubborn", 0, 1, Msg("working", "工作中"))
    yield value("stubborn", 5.0)
    while True:
        time.sleep(0.05)


def _stops_silently(ctx: BenchContext) -> Iterator[Event]:
    """The same without a figure first: a benchmark ended before it measured anything."""
    yield Progress("mute", 0, 1, Msg("working", "工作中"))
    while True:
        time.sleep(0.05)


def _reads_earlier(ctx: BenchContext) -> Iterator[Event]:
    """Reports what an earlier benchmark measured (as dataload reads train's), so a test sees
    that a fresh child still has the results of the child before it."""
    yield Progress("reader", 0, 1, Msg("reading", "读取"))
    earlier = ctx.results.get("first")
    yield value("reader", earlier.value("x") if earlier is not None else -1.0, "first_x")


# The stubborn ones get a tiny share of the budget (weight 0.001 of about 2, with a 120 s budget:
# 0.06 s + the 1 s grace), the others nearly all of it: the run's own deadline (120 + 9 s, + 10 %)
# stays far away however long the children take to start on a busy machine.
STUBBORN = [steps("first"), make("stubborn", _never_stops, weight=0.001),
            make("reader", _reads_earlier)]
MUTE = [make("mute", _stops_silently, weight=0.001), steps("after")]
