"""gpu_check.py's timing checks: bench/timing.py's CUDA branches against timers of this module.

``time_calls`` times CUDA work with CUDA events; here the same work is timed a second way that
shares nothing with it but the work: ``time.perf_counter`` read after ``torch.cuda.synchronize``
around N calls (the GPU has finished all N when the clock is read). Three checks:

1. **inner division**: a matmul timed with ``inner`` calls per repeat must come out as seconds
   per *call*. A lost division makes the time ``inner`` times too high (FLOP/s ``inner`` times
   low: "matmul up to 50x low"); a double one ``inner`` times too low.
2. **settle rule**: a series ``time_calls`` stopped because it had :func:`settled` (5 repeats
   whose interquartile range is within 2 % of the median) must give the median a long run of
   the same work gives (the early stop must not land on a figure the GPU does not hold to).
3. **events on a non-current device**: timing ``cuda:1`` while ``cuda:0`` is the process's
   current device. Events recorded on the current device's stream would bracket nothing of the
   work (the time comes out near zero). Needs two GPUs; with one, the check is *skipped* with
   that reason, never passed.

Each check keeps its figures (ours, independent, their ratio, the tolerance) for the printout
and the JSON. The functions take the work as a callable, so the tests drive them with a fake
GPU (tests/bench/cuda_fakes.py) on machines without one. docs/estimation.md sec. 5.4 says why
the tolerance is what it is.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TOLERANCE = 0.10
"""The two timers may differ by 10 % either way (ratio within 1/1.1 .. 1.1). Run-to-run spread
of the same matmul on the project's H200s was 769-798 TFLOP/s (3.7 %, gpu_check.py's
calibration note); the settle rule itself lets repeats spread 2 %. The errors these checks exist
for are far outside: a lost or doubled division by INNER is a factor of 20, events on an idle
device give a time near zero."""

INNER = 20
"""Calls per timed repeat in the inner-division check: a wrong division is then 20x off."""

WARMUP_CALLS = 50
"""Untimed calls before each check (~70 ms of the matmul): kernel selection, and the GPU's
clocks up from idle, so that neither timer pays them."""

REPS = 5
"""Repeats of the inner-division and other-device checks (the settle rule's minimum)."""

LONG_RUN_S = 2.0
LONG_RUN_CALLS = (100, 20000)
"""The settle check's long run: about 2 s of calls, at least 100 and at most 20 000 of them
(a settled series of 5 repeats of a ~1.4 ms matmul is ~7 ms: the long run is ~300x longer)."""

SETTLE_MAX_REPS = 100
SETTLE_MAX_S = 10.0
"""As matmul.py times its figure (max_reps 100), with a generous slice so that a series that
does not settle shows as such instead of stopping on the clock."""

MATMUL_N = 8192
"""Square fp16 matmul of the checks: ~1.4 ms a call on an H100/H200 (matmul.py's GPU_MAX_N),
long next to a kernel launch (a few us) and the event resolution (~0.5 us); 384 MiB."""


@dataclass(frozen=True)
class TimingCheck:
    """One check's figures: seconds per call by time_calls (ours) and by this module's timer
    (independent). ``problem``: why it failed before any comparison (did not settle, no
    figure); ``skipped``: why it could not be run here (then it is neither passed nor failed)."""

    name: str
    ours_s: float | None = None
    independent_s: float | None = None
    tolerance: float = TOLERANCE
    note: str = ""
    problem: str | None = None
    skipped: str | None = None

    @property
    def ratio(self) -> float | None:
        if self.ours_s is None or not self.independent_s or self.independent_s <= 0:
            return None
        return self.ours_s / self.independent_s

    @property
    def status(self) -> str:
        """"skipped", "pass" or "fail"."""
        if self.skipped is not None:
            return "skipped"
        ratio = self.ratio
        if self.problem is not None or ratio is None or ratio <= 0:
            return "fail"
        return "pass" if max(ratio, 1 / ratio) <= 1 + self.tolerance else "fail"

    def detail(self) -> str:
        if self.skipped is not None:
            return self.skipped
        parts = []
        if self.ours_s is not None:
            parts.append(f"ours {self.ours_s * 1e3:.4g} ms/call")
        if self.independent_s is not None:
            parts.append(f"independent {self.independent_s * 1e3:.4g} ms/call")
        if self.ratio is not None:
            parts.append(f"ratio {self.ratio:.3f} (tolerance {1 / (1 + self.tolerance):.3f}"
                         f"..{1 + self.tolerance:.2f})")
        parts += [p for p in (self.note, self.problem) if p]
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"ours_s": self.ours_s, "independent_s": self.independent_s, "ratio": self.ratio,
                "tolerance": self.tolerance, "status": self.status, "note": self.note,
                "problem": self.problem, "skipped": self.skipped}


def wall_seconds_per_call(work: Callable[[], object], calls: int, sync: Callable[[], object],
                          clock: Callable[[], float] = time.perf_counter) -> float:
    """The independent timer: synchronise, read the clock, make ``calls`` calls, synchronise,
    read it again. The GPU has finished every call when the second reading is taken; one
    launch and one synchronisation (tens of us) are spread over all the calls."""
    sync()
    t0 = clock()
    for _ in range(calls):
        work()
    sync()
    return (clock() - t0) / calls


def _context(device: str) -> Any:
    from torchrig.bench.base import BenchContext
    from torchrig.bench.settings import BenchSettings

    return BenchContext(settings=BenchSettings(preset="quick", device=device), device=device,
                        cancel=threading.Event(), budget_s=60.0)


def _synchronizer(device: str) -> Callable[[], None]:
    import torch

    return lambda: torch.cuda.synchronize(device)


def _warm_up(work: Callable[[], object], sync: Callable[[], object]) -> None:
    for _ in range(WARMUP_CALLS):
        work()
    sync()


def inner_division_check(work: Callable[[], object], device: str, *,
                         clock: Callable[[], float] = time.perf_counter) -> TimingCheck:
    """time_calls with INNER calls per repeat vs perf_counter around INNER x REPS calls."""
    from torchrig.bench.timing import median, time_calls

    sync = _synchronizer(device)
    _warm_up(work, sync)
    samples = time_calls(work, _context(device), min_reps=REPS, max_reps=REPS, max_s=math.inf,
                         inner=INNER, device=device)
    independent = wall_seconds_per_call(work, INNER * REPS, sync, clock)
    return TimingCheck("time_calls divides CUDA-event time by inner",
                       ours_s=median(samples), independent_s=independent,
                       note=f"{REPS} repeats of {INNER} calls vs {INNER * REPS} calls timed "
                            "with perf_counter + cuda.synchronize")


def settle_check(work: Callable[[], object], device: str, *,
                 clock: Callable[[], float] = time.perf_counter) -> TimingCheck:
    """A series stopped by the settle rule: its median vs a long perf_counter run."""
    from torchrig.bench.timing import median, settled, time_calls

    sync = _synchronizer(device)
    _warm_up(work, sync)
    samples = time_calls(work, _context(device), min_reps=3, max_reps=SETTLE_MAX_REPS,
                         max_s=SETTLE_MAX_S, device=device)
    ours = median(samples)
    name = "a settled series' median agrees with a long run"
    if len(samples) >= 4:
        q1, _, q3 = statistics.quantiles(samples, n=4)
        note = f"{len(samples)} repeats, interquartile range {(q3 - q1) / ours:.2%} of the median"
    else:
        note = f"{len(samples)} repeats"
    if not settled(samples):
        return TimingCheck(name, ours_s=ours, note=note,
                           problem=f"the series did not settle within {SETTLE_MAX_REPS} "
                                   f"repeats or {SETTLE_MAX_S:g} s")
    low, high = LONG_RUN_CALLS
    calls = int(min(high, max(low, math.ceil(LONG_RUN_S / max(ours, 1e-9)))))
    independent = wall_seconds_per_call(work, calls, sync, clock)
    return TimingCheck(name, ours_s=ours, independent_s=independent,
                       note=f"{note}; long run {calls} calls")


def other_device_check(make_work: Callable[[str], Callable[[], object]], device: str, *,
                       clock: Callable[[], float] = time.perf_counter) -> TimingCheck:
    """Time work on another GPU while ``device`` is current; with one GPU, skipped."""
    import torch

    from torchrig.bench.timing import median, time_calls

    name = "CUDA events time a GPU that is not the current device"
    index = int(device.split(":")[1])
    count = torch.cuda.device_count()
    other = 1 if index != 1 else 0
    if count < 2:
        # Ask torch anyway: the reason then says what it answered, not what we assumed.
        try:
            torch.cuda.set_device(other)
        except Exception as exc:  # noqa: BLE001 - the answer is the reason, whatever it is
            # First line only: CUDA errors go on with advice about CUDA_LAUNCH_BLOCKING.
            first = (str(exc).splitlines() or [""])[0]
            answer = f"torch.cuda.set_device({other}) raised {type(exc).__name__}: {first}"
        else:
            answer = f"torch.cuda.set_device({other}) was accepted"
        finally:
            torch.cuda.set_device(index)
        return TimingCheck(name, skipped=f"not testable with one GPU ({count} CUDA device(s); "
                                         f"{answer})")
    torch.cuda.set_device(index)
    target = f"cuda:{other}"
    work = make_work(target)
    sync = _synchronizer(target)
    _warm_up(work, sync)
    samples = time_calls(work, _context(device), min_reps=REPS, max_reps=REPS, max_s=math.inf,
                         device=target)
    current_after = torch.cuda.current_device()
    independent = wall_seconds_per_call(work, REPS * 10, sync, clock)
    problem = None if current_after == index else (
        f"the current device changed to cuda:{current_after} while timing")
    return TimingCheck(name, ours_s=median(samples), independent_s=independent,
                       note=f"work on {target} with cuda:{index} current", problem=problem)


def matmul_work(device: str, n: int = MATMUL_N) -> Callable[[], object]:
    """An fp16 n x n matmul on ``device`` (every CUDA GPU has fp16 matmul)."""
    import torch

    a = torch.randn(n, n, device=device, dtype=torch.float16)
    b = torch.randn(n, n, device=device, dtype=torch.float16)
    c = torch.empty(n, n, device=device, dtype=torch.float16)
    return lambda: torch.matmul(a, b, out=c)


def timing_checks(device: str, make_work: Callable[[str], Callable[[], object]] = matmul_work,
                  clock: Callable[[], float] = time.perf_counter) -> list[TimingCheck]:
    """The three checks on ``device`` (the script's --device), one failure not hiding the
    others: an exception becomes that check's problem."""
    out = []
    runs: list[tuple[str, Callable[[], TimingCheck]]] = [
        ("time_calls divides CUDA-event time by inner",
         lambda: inner_division_check(make_work(device), device, clock=clock)),
        ("a settled series' median agrees with a long run",
         lambda: settle_check(make_work(device), device, clock=clock)),
        ("CUDA events time a GPU that is not the current device",
         lambda: other_device_check(make_work, device, clock=clock)),
    ]
    for name, run in runs:
        try:
            out.append(run())
        except Exception as exc:  # noqa: BLE001 - reported like every other check
            out.append(TimingCheck(name, problem=f"{type(exc).__name__}: {exc}"))
    return out
