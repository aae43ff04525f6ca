"""Fake benchmarks (plain generators) for testing the runner and the CLI without torch work."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress
from torchrig.bench.report import Measurement
from torchrig.i18n import Msg


def make(bench_id: str, run: Callable[[BenchContext], Iterator[Event]], *,
         weight: float = 1.0, devices: tuple[str, ...] = ("cpu", "cuda", "mps"),
         not_applicable: dict[str, Msg] | None = None) -> Benchmark:
    return Benchmark(id=bench_id, title=Msg(f"Fake {bench_id}", f"假 {bench_id}"),
                     devices=devices, run=run, weight=weight,
                     not_applicable=not_applicable or {})


def value(bench_id: str, v: float = 1.0, mid: str = "x") -> Measurement:
    return Measurement(id=mid, label=Msg(f"{bench_id} {mid}", f"{bench_id} {mid}"), value=v,
                       unit="ratio")


def steps(bench_id: str, n: int = 3, sleep_s: float = 0.0) -> Benchmark:
    """Yields n progress steps and one measurement."""

    def run(ctx: BenchContext) -> Iterator[Event]:
        for i in range(n):
            if sleep_s:
                time.sleep(sleep_s)
            yield Progress(bench_id, i, n, Msg(f"step {i}", f"步骤 {i}"))
        yield value(bench_id, float(n))

    return make(bench_id, run)


def forever(bench_id: str, *, sleep_s: float = 0.02, cooperative: bool = False,
            state: dict[str, Any] | None = None) -> Benchmark:
    """Yields steps until stopped; records in ``state`` whether its finally block ran."""
    state = state if state is not None else {}

    def run(ctx: BenchContext) -> Iterator[Event]:
        state["started"] = time.monotonic()
        state["budget_s"] = ctx.budget_s
        try:
            i = 0
            yield value(bench_id, 1.0)
            while True:
                if cooperative and ctx.out_of_time():
                    ctx.note_budget_stop(Msg("fake loop", "假循环"))
                    return
                time.sleep(sleep_s)
                yield Progress(bench_id, i, 0, Msg("looping", "循环"))
                i += 1
        finally:
            state["closed"] = time.monotonic()

    return make(bench_id, run)


def raising(bench_id: str, exc_factory: Callable[[BenchContext], BaseException],
            calls: list[float] | None = None) -> Benchmark:
    """Raises ``exc_factory(ctx)`` (None: succeed) after one step; records each ctx.scale."""
    calls = calls if calls is not None else []

    def run(ctx: BenchContext) -> Iterator[Event]:
        calls.append(ctx.scale)
        yield Progress(bench_id, 0, 1, Msg("start", "开始"))
        exc = exc_factory(ctx)
        if exc is not None:
            raise exc
        yield value(bench_id, ctx.scale)

    return make(bench_id, run)
