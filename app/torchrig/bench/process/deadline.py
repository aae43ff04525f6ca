"""The parent's deadlines for one benchmark run: the running benchmark's and the suite's.

The runner in the child stops a benchmark cooperatively: between the steps it yields and at
every ``ctx.check()``. A native call that runs for a minute (one training step of an emulated
16-bit type, a read from a stalled disk) never reaches either, so the child could not keep its
budget by itself. The parent therefore keeps its own clock from the child's ``begin`` lines and
ends the child (with everything it started) when

* the running benchmark is :data:`KILL_AFTER_S` past the hard limit the child announced for it
  (its budget plus the runner's grace): that benchmark keeps what it had sent and the next ones
  run in a fresh child (:mod:`torchrig.bench.process.isolated`);
* the whole run reaches its wall budget plus half of
  :data:`~torchrig.bench.settings.WALL_OVERRUN`: the benchmarks still to run are reported as
  not run for that reason, so the run ends within its budget + 20 %. Not for ``smoke``: it
  proves every code path works (tests, installation checks), where all of them running
  matters and a busy machine's start-up alone can take its 17 s.

Pure bookkeeping with an injectable clock: nothing here starts or kills a process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from torchrig.bench.settings import END_RESERVE_S, WALL_OVERRUN, BenchSettings
from torchrig.i18n import Msg

KILL_AFTER_S = 1.0
"""Past a benchmark's announced hard limit the child has this long to stop on its own (the
cooperative stop sends its result within a step) before the parent ends it."""


def process_started() -> float | None:
    """This process's start on the time.monotonic() clock (psutil's creation time, moved
    from the wall clock), or None where psutil cannot say. The command line counts its run
    from here, so its own start-up is inside the budget too."""
    try:
        import psutil

        created = psutil.Process().create_time()
    except Exception:  # noqa: BLE001 - no psutil, or an OS that refuses: count from now
        return None
    return time.monotonic() - max(0.0, time.time() - created)


FRESH_PROCESS_S = 9.0
"""A process that started at most this long (the CPU start-up allowance) before the command
was entered is the command's own: its start-up counts. An older one embeds the command (a
test, a host program): the command counts from its entry."""


def command_started(entered: float, process: float | None) -> float:
    """When the command's wall budget began: the process's start for a fresh process, else
    the moment the command was entered (both on the time.monotonic() clock)."""
    if process is not None and 0.0 <= entered - process <= FRESH_PROCESS_S:
        return process
    return entered


@dataclass(frozen=True)
class Stop:
    """Why the parent ended the child: ``"benchmark"`` (one benchmark past its limit; the run
    goes on in a fresh child) or ``"suite"`` (the run's own deadline; nothing more runs)."""

    kind: str
    bench_id: str | None
    message: Msg
    ran_s: float = 0.0
    budget_s: float = 0.0


@dataclass
class _Running:
    bench_id: str
    began: float
    budget_s: float
    hard_s: float


class Deadlines:
    """When to end the child. ``started`` is the run's start (time.monotonic() of the parent,
    sent to each child as ``wall_started``); ``device`` is updated once the child has resolved
    ``auto`` (the wall budget depends on the device kind)."""

    def __init__(self, settings: BenchSettings, started: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.started = started
        self.clock = clock
        self.device = settings.device
        self.running: _Running | None = None
        self.enforce_suite = settings.preset != "smoke"

    @property
    def suite_end(self) -> float:
        """The last moment the child may still run: the wall budget + half the overrun."""
        return self.started + self.settings.wall_budget_s(self.device) * (1 + WALL_OVERRUN / 2)

    def begin(self, bench_id: str, budget_s: float, hard_s: float) -> None:
        self.running = _Running(bench_id, self.clock(), float(budget_s), float(hard_s))

    def ended(self, bench_id: str) -> None:
        if self.running is not None and self.running.bench_id == bench_id:
            self.running = None

    def time_left(self) -> float:
        return self.suite_end - self.clock()

    def measuring_left(self) -> float:
        """Seconds until the benchmarks must have ended (the wall budget less the reserve;
        unlimited for smoke)."""
        if not self.enforce_suite:
            return float("inf")
        return (self.started + self.settings.wall_budget_s(self.device) - END_RESERVE_S
                - self.clock())

    def check(self) -> Stop | None:
        """The reason to end the child now, or None."""
        now = self.clock()
        run = self.running
        if self.enforce_suite and now >= self.suite_end:
            wall = self.settings.wall_budget_s(self.device)
            return Stop("suite", run.bench_id if run else None, Msg(
                f"stopped at the run's time limit ({now - self.started:.1f} s; its budget is "
                f"{wall:.0f} s)",
                f"在整套测试的时间上限处停止（{now - self.started:.1f} 秒；预算为 {wall:.0f} 秒）"),
                ran_s=now - run.began if run else 0.0, budget_s=run.budget_s if run else 0.0)
        if run is not None and now - run.began >= run.hard_s + KILL_AFTER_S:
            ran = now - run.began
            return Stop("benchmark", run.bench_id, Msg(
                f"stopped at its time limit after {ran:.1f} s (budget {run.budget_s:.1f} s): "
                "it did not stop on its own, so its process was ended",
                f"运行 {ran:.1f} 秒后在时间上限处停止（预算 {run.budget_s:.1f} 秒）："
                "它未自行停止，其进程已被结束"), ran_s=ran, budget_s=run.budget_s)
        return None
