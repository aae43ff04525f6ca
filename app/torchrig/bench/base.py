"""The contract between the runner and each benchmark.

A benchmark is a record (:class:`Benchmark`) whose ``run(ctx)`` is a generator. It yields
:class:`Progress` records between steps and :class:`~torchrig.bench.report.Measurement` records
as figures become available; the runner forwards both to the caller's callbacks. Keeping
benchmarks as generators (superqt's GeneratorWorker pattern) gives the runner a point between
every step to honour cancel and the time budget, and keeps all threading out of the benchmarks.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from torchrig.bench.report import BenchResult, Measurement
from torchrig.bench.settings import BenchSettings, device_kind
from torchrig.i18n import Msg

if TYPE_CHECKING:
    from torchrig.hardware.model import SystemProfile


@dataclass(frozen=True)
class Progress:
    """One step of one benchmark.

    ``bench_index``/``bench_count`` (position in the suite) are filled in by the runner, so a
    benchmark only needs to know its own steps.
    """

    bench_id: str
    step: int
    steps_total: int
    message: Msg
    bench_index: int = 0
    bench_count: int = 0

    @property
    def suite_fraction(self) -> float:
        """Overall completion in [0, 1] for a single progress bar."""
        if self.bench_count <= 0:
            return 0.0
        within = min(self.step, self.steps_total) / self.steps_total if self.steps_total else 0.0
        return min(1.0, (self.bench_index + within) / self.bench_count)


Event = Progress | Measurement
RunFn = Callable[["BenchContext"], Iterator[Event]]


class Skip(Exception):  # noqa: N818 - it is a signal, not an error
    """Raised by a benchmark that does not apply here (h2d on a CPU, fp16 AMP on a CPU)."""

    def __init__(self, reason: Msg) -> None:
        super().__init__(reason.en)
        self.reason = reason


class Failed(Exception):  # noqa: N818 - mirrors Skip
    """Raised for a failure with a message meant for the user (unwritable folder, disk full);
    the runner records ``error: <reason>`` without a traceback."""

    def __init__(self, reason: Msg) -> None:
        super().__init__(reason.en)
        self.reason = reason


class Cancelled(Exception):  # noqa: N818 - it is a signal, not an error
    """Raised by :meth:`BenchContext.check` once the user asked to stop."""


class OutOfTime(Exception):  # noqa: N818 - it is a signal, not an error
    """Raised by :meth:`BenchContext.check` once the benchmark is past its hard time limit,
    so a loop that never yields (a training phase) stops at the next check; the runner keeps
    what it had measured and marks the result partial."""


@dataclass(frozen=True)
class Benchmark:
    """A registered benchmark.

    Attributes:
        id: stable id used on the command line and in JSON.
        title: shown in the GUI list and the PDF.
        devices: device kinds it applies to ("cpu", "cuda", "mps").
        run: the generator function.
        weight: its share of the suite's time budget, relative to the others.
        not_applicable: reason per device kind it does not apply to.
        prepare: run once before the suite's clock starts (outside every budget), for
            one-off costs that are not the benchmark's: the first optimizer imports
            torch._dynamo (1 s on a quiet 2-core machine, 11 s at load 20).
    """

    id: str
    title: Msg
    devices: tuple[str, ...]
    run: RunFn
    weight: float = 1.0
    not_applicable: Mapping[str, Msg] = field(default_factory=dict)
    prepare: Callable[[], None] | None = None

    def skip_reason(self, kind: str) -> Msg | None:
        if kind in self.devices:
            return None
        return self.not_applicable.get(
            kind, Msg(f"does not apply to {kind} devices", f"不适用于 {kind} 设备")
        )


@dataclass
class BenchContext:
    """Everything a running benchmark may use.

    Attributes:
        settings: the validated suite settings.
        device: resolved torch device string ("cpu", "cuda:0", "mps").
        cancel: set by the caller to stop; checked by :meth:`check`.
        budget_s / started: this benchmark's time share and when it started (monotonic).
        profile: the detected machine, or None when detection is unavailable.
        results: results of the benchmarks that ran before this one (dataload reads train's).
        scale: memory scale of the problem; the runner lowers it to retry after out-of-memory.
        notes: benchmark-level notes; they end up in the report.
        budget_stopped: set when the benchmark (or the runner) cut it short for time.
        left_out: what was not measured because of the time budget (the result then reads
            "partial" with these as the reason).
        hard_limit_s: seconds after ``started`` at which :meth:`check` raises
            :class:`OutOfTime` (None: never; the runner sets its budget plus grace).
    """

    settings: BenchSettings
    device: str
    cancel: threading.Event
    budget_s: float
    profile: SystemProfile | None = None
    results: Mapping[str, BenchResult] = field(default_factory=dict)
    scale: float = 1.0
    started: float = field(default_factory=time.monotonic)
    notes: list[Msg] = field(default_factory=list)
    budget_stopped: bool = False
    left_out: list[Msg] = field(default_factory=list)
    hard_limit_s: float | None = None

    @property
    def kind(self) -> str:
        return device_kind(self.device)

    @property
    def preset(self) -> str:
        return self.settings.preset

    def check(self) -> None:
        """Call inside every loop that can run longer than ~0.2 s."""
        if self.cancel.is_set():
            raise Cancelled()
        if self.hard_limit_s is not None and self.elapsed() > self.hard_limit_s:
            raise OutOfTime()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def time_left(self) -> float:
        return self.budget_s - self.elapsed()

    def out_of_time(self, reserve_s: float = 0.0) -> bool:
        return self.time_left() <= reserve_s

    def note(self, msg: Msg) -> None:
        if msg not in self.notes:
            self.notes.append(msg)

    def note_budget_stop(self, what: Msg) -> None:
        self.budget_stopped = True
        self.left_out.append(what)
        self.note(Msg(f"stopped early to stay within the time budget: {what.en}",
                      f"为不超出时间预算而提前停止：{what.zh}"))

    def usable_cpus(self) -> int:
        """CPUs this process may actually use (affinity / container quota) - the profile's
        figure when present because detection also reads the cgroup quota."""
        if self.profile is not None and self.profile.cpu.usable_cpus:
            return int(self.profile.cpu.usable_cpus)
        return usable_cpus()


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)
