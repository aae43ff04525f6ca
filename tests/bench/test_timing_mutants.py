"""bench/timing.py's rules with hand-computed expectations (mutation testing, issue 28).

The settle rule (docs/estimation.md sec. 5, timing.py's docstring): at least 5 repeats whose
interquartile range is within 2 % of their median. statistics.quantiles(n=4) uses the
"exclusive" method: for sorted x1..xn the quartile at p is at position p*(n+1), interpolated.
For the repeats below that is worked out by hand in each test.

time_calls is driven by a fake clock (each call of fn advances it by a fixed step), so no
assertion depends on how busy the machine is.
"""

from __future__ import annotations

import contextlib
import threading
from types import SimpleNamespace

import pytest

from torchrig.bench import timing
from torchrig.bench.base import BenchContext, Cancelled
from torchrig.bench.settings import BenchSettings
from torchrig.bench.timing import (
    SETTLE_MIN_REPS,
    SETTLE_SPREAD,
    is_out_of_memory,
    median,
    round_down,
    settled,
    spread,
    time_calls,
)


def test_settle_constants_are_the_documented_ones():
    # timing.py's docstring and docs/estimation.md sec. 5: 5 repeats, 2 % spread.
    assert SETTLE_MIN_REPS == 5
    assert SETTLE_SPREAD == 0.02


def test_five_equal_repeats_settle_but_four_do_not():
    assert settled([1.0] * 5) is True
    # 4 < 5 repeats: not settled however close they are.
    assert settled([1.0] * 4) is False


def test_min_reps_is_never_below_four_quartiles_need_four_points():
    # min_reps=2 asks for less, but quartiles of 3 points are not read: max(2, 4) = 4.
    assert settled([1.0, 1.0, 1.0], min_reps=2) is False
    assert settled([1.0, 1.0, 1.0, 1.0], min_reps=2) is True
    # and a larger min_reps is obeyed: 6 repeats needed, 5 given.
    assert settled([1.0] * 5, min_reps=6) is False
    assert settled([1.0] * 6, min_reps=6) is True


def test_spread_exactly_at_the_tolerance_settles_and_just_above_does_not():
    # [0.98, 0.99, 1, 1.01, 1.02]: n=5, q1 at position 1.5 = (0.98+0.99)/2 = 0.985,
    # q3 at position 4.5 = (1.01+1.02)/2 = 1.015; IQR = 0.03, median 1 -> 3 % > 2 %.
    assert settled([0.98, 0.99, 1.0, 1.01, 1.02]) is False
    # Same repeats with tolerance 0.03: 0.03/1 <= 0.03 -> settled (the bound is inclusive).
    # (1.015 - 0.985 is 0.03 up to float rounding; 0.0300001 keeps the test off that edge.)
    assert settled([0.98, 0.99, 1.0, 1.01, 1.02], tolerance=0.0300001) is True
    assert settled([0.98, 0.99, 1.0, 1.01, 1.02], tolerance=0.0299999) is False
    # Inclusive at exactly the bound, with binary-exact numbers: [1, 1, 2, 3, 3]:
    # q1 = (1+1)/2 = 1, q3 = (3+3)/2 = 3, IQR 2, median 2 -> ratio 1.0; tolerance 1.0 settles.
    assert settled([1.0, 1.0, 2.0, 3.0, 3.0], tolerance=1.0) is True
    assert settled([1.0, 1.0, 2.0, 3.0, 3.0], tolerance=0.999) is False


def test_an_outlier_outside_the_middle_half_does_not_unsettle():
    # [1, 1, 1, 1, 1, 1, 5]: n=7, q1 at position 2 = 1, q3 at position 6 = 1: IQR 0 -> settled.
    # A range-based rule (max-min = 4) would call this unsettled.
    assert settled([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 5.0]) is True


def test_quartiles_are_quarters_not_other_quantiles():
    # [1, 1, 1, 1, 1.1, 1.2, 1.3, 1.4]: n=8, quartile positions 0.25*9 = 2.25 and 0.75*9 = 6.75:
    # q1 = x2 + 0.25*(x3-x2) = 1, q3 = x6 + 0.75*(x7-x6) = 1.2 + 0.075 = 1.275;
    # median (x4+x5)/2 = 1.05 -> IQR/median = 0.275/1.05 (about 26 %).
    values = [1.0, 1.0, 1.0, 1.0, 1.1, 1.2, 1.3, 1.4]
    assert settled(values, tolerance=0.275 / 1.05 + 1e-9) is True
    assert settled(values, tolerance=0.275 / 1.05 - 1e-9) is False


def test_zero_or_negative_median_never_settles():
    assert settled([0.0] * 5) is False
    assert settled([-1.0] * 5) is False


def test_median_of_even_count_is_the_mean_of_the_middle_two():
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert isinstance(median([1, 2, 3]), float)


def test_spread_of_times():
    got = spread([0.3, 0.1, 0.2])
    assert got == {"median": 0.2, "min": 0.1, "max": 0.3, "repeats": 3}


def test_spread_of_rates_turns_the_slowest_repeat_into_the_min_rate():
    # work 6 over times 1, 2, 3 s -> rates 6, 3, 2 per s.
    got = spread([1.0, 2.0, 3.0], work=6.0)
    assert got == {"median": 3.0, "min": 2.0, "max": 6.0, "repeats": 3}


def test_spread_of_rates_guards_a_zero_time_with_one_picosecond():
    got = spread([0.0], work=1.0)
    assert got["max"] == pytest.approx(1e12)


def test_round_down_to_a_multiple_with_a_floor():
    assert round_down(1000.9, 128, 64) == 896  # int(1000.9)=1000, 1000//128 = 7, 7*128 = 896
    assert round_down(100.0, 128, 64) == 64  # 100//128 = 0 -> the floor 64
    assert round_down(256.0, 128, 64) == 256  # an exact multiple stays


def test_out_of_memory_recognised_from_its_kinds():
    assert is_out_of_memory(MemoryError()) is True
    assert is_out_of_memory(RuntimeError("CUDA Out Of Memory while allocating")) is True
    assert is_out_of_memory(RuntimeError("shape mismatch")) is False
    assert is_out_of_memory(ValueError("out of memory")) is False  # only RuntimeError text
    import torch

    assert is_out_of_memory(torch.cuda.OutOfMemoryError("x")) is True


class _Clock:
    """A perf_counter that moves only when the timed function runs."""

    def __init__(self, steps: list[float]) -> None:
        self.now = 100.0
        self.steps = list(steps)
        self.calls = 0

    def __call__(self) -> float:
        return self.now

    def work(self) -> None:
        self.now += self.steps[min(self.calls, len(self.steps) - 1)]
        self.calls += 1


def _ctx(preset: str = "quick", cancel: threading.Event | None = None) -> BenchContext:
    return BenchContext(settings=BenchSettings(preset=preset, device="cpu"), device="cpu",
                        cancel=cancel or threading.Event(), budget_s=60.0)


@pytest.fixture
def clock(monkeypatch):
    def install(steps: list[float]) -> _Clock:
        c = _Clock(steps)
        monkeypatch.setattr(timing.time, "perf_counter", c)
        return c
    return install


def test_time_calls_stops_once_settled(clock):
    c = clock([0.01])  # every call takes exactly 10 ms: settled as soon as 5 repeats exist
    samples = time_calls(c.work, _ctx(), min_reps=3, max_reps=50, max_s=1000.0)
    assert samples == pytest.approx([0.01] * 5)


def test_time_calls_keeps_going_while_unsettled_up_to_max_reps(clock):
    # Alternating 10 ms / 20 ms never settles (IQR 10 ms over a median of 10-20 ms); the
    # time limit is far away, so max_reps=9 ends it.
    c = clock([0.01, 0.02] * 20)
    samples = time_calls(c.work, _ctx(), min_reps=3, max_reps=9, max_s=1000.0)
    assert len(samples) == 9
    assert samples[:2] == pytest.approx([0.01, 0.02])


def test_time_calls_stops_at_the_time_limit_but_not_before_min_reps(clock):
    # Each call 0.4 s, limit 1.0 s, min_reps 2: after 2 repeats 0.8 s < 1.0 goes on, after 3
    # repeats 1.2 s >= 1.0 stops -> 3 repeats (equal repeats, but 3 < 5 cannot settle).
    c = clock([0.4])
    assert len(time_calls(c.work, _ctx(), min_reps=2, max_reps=50, max_s=1.0)) == 3
    # Exactly at the limit stops too (>=): 0.5 s calls, 2 repeats = 1.0 s.
    c = clock([0.5])
    assert len(time_calls(c.work, _ctx(), min_reps=2, max_reps=50, max_s=1.0)) == 2
    # The limit is passed after one call, but min_reps=4 repeats are still taken.
    c = clock([2.0])
    assert len(time_calls(c.work, _ctx(), min_reps=4, max_reps=50, max_s=1.0)) == 4


def test_time_calls_divides_by_inner_calls(clock):
    c = clock([0.03])
    samples = time_calls(c.work, _ctx(), min_reps=1, max_reps=1, inner=3, max_s=1000.0)
    assert c.calls == 3
    assert samples == pytest.approx([0.03])  # 3 calls x 30 ms / 3


def test_smoke_preset_takes_only_min_reps(clock):
    c = clock([0.01, 0.02])  # never settles
    assert len(time_calls(c.work, _ctx("smoke"), min_reps=3, max_reps=50, max_s=1000.0)) == 3


def test_time_calls_checks_cancel_before_each_repeat(clock):
    cancel = threading.Event()
    c = clock([0.01])
    cancel.set()
    with pytest.raises(Cancelled):
        time_calls(c.work, _ctx(cancel=cancel), min_reps=3)
    assert c.calls == 0


# --------------------------------------------------------------------------- device calls
# The CUDA and MPS branches with torch's device calls replaced by recorders, so they are
# checked on a CPU-only machine too (the real calls are exercised by the GPU benchmarks).


@pytest.fixture
def calls(monkeypatch):
    import torch

    seen: list[tuple[str, object]] = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda d=None: seen.append(("cuda.sync", d)))
    monkeypatch.setattr(torch.mps, "synchronize", lambda: seen.append(("mps.sync", None)))
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: seen.append(("cuda.empty", None)))
    monkeypatch.setattr(torch.mps, "empty_cache", lambda: seen.append(("mps.empty", None)))
    return seen


def test_synchronize_calls_the_device_kind(calls):
    timing.synchronize("cuda:1")
    timing.synchronize("mps")
    timing.synchronize("cpu")
    assert calls == [("cuda.sync", "cuda:1"), ("mps.sync", None)]


def test_release_device_memory_empties_the_device_cache(calls, monkeypatch):
    collected = []
    monkeypatch.setattr("gc.collect", lambda: collected.append(1))
    timing.release_device_memory("cuda:0")
    assert calls == [("cuda.empty", None)]
    timing.release_device_memory("mps")
    assert calls == [("cuda.empty", None), ("mps.empty", None)]
    timing.release_device_memory("cpu")  # nothing to empty on the CPU
    assert calls == [("cuda.empty", None), ("mps.empty", None)]
    assert collected == [1, 1, 1]  # host garbage first, on every device


def test_release_device_memory_ignores_a_runtime_error(monkeypatch):
    import torch

    def broken():
        raise RuntimeError("no CUDA")

    monkeypatch.setattr(torch.cuda, "empty_cache", broken)
    timing.release_device_memory("cuda")  # does not raise


def test_free_memory_is_free_vram_on_cuda_and_available_ram_otherwise(monkeypatch):
    import psutil
    import torch

    monkeypatch.setattr(torch.cuda, "mem_get_info",
                        lambda d: (123.0, 456.0) if d == "cuda:0" else (0.0, 0.0))
    monkeypatch.setattr(psutil, "virtual_memory", lambda: SimpleNamespace(available=789))
    assert timing.free_memory_bytes("cuda:0") == 123
    assert timing.free_memory_bytes("cpu") == 789
    assert timing.free_memory_bytes("mps") == 789  # MPS shares system memory


class _FakeEvent:
    """torch.cuda.Event stand-in: elapsed_time in ms, like CUDA events."""

    log: list[str] = []
    ms = 6.0

    def __init__(self, enable_timing: bool = False) -> None:
        assert enable_timing is True
        self.log.append("new")

    def record(self) -> None:
        self.log.append("record")

    def synchronize(self) -> None:
        self.log.append("sync")

    def elapsed_time(self, end: _FakeEvent) -> float:
        assert isinstance(end, _FakeEvent) and end is not self  # start.elapsed_time(end)
        return self.ms


def test_time_calls_on_cuda_uses_events_in_milliseconds(monkeypatch):
    import torch

    _FakeEvent.log = []
    monkeypatch.setattr(torch.cuda, "Event", _FakeEvent)
    # time_calls makes the measured GPU current around its events (issue 27); no GPU here.
    monkeypatch.setattr(torch.cuda, "device", lambda d: contextlib.nullcontext())
    ran = []
    ctx = BenchContext(settings=BenchSettings(preset="quick", device="cuda"), device="cuda:0",
                       cancel=threading.Event(), budget_s=60.0)
    samples = time_calls(lambda: ran.append(1), ctx, min_reps=1, max_reps=2, inner=3,
                         max_s=1000.0)
    # 6 ms for 3 inner calls = 2 ms = 0.002 s per call; two repeats (equal, but 2 < 5 repeats
    # cannot settle, so max_reps ends it)
    assert samples == pytest.approx([0.002, 0.002])
    assert len(ran) == 6
    assert _FakeEvent.log == ["new", "new", "record", "record", "sync"] * 2


def test_time_calls_on_cpu_synchronises_around_the_calls(monkeypatch, clock):
    c = clock([0.01])
    synced = []
    monkeypatch.setattr(timing, "synchronize", lambda d: synced.append(d))
    time_calls(c.work, _ctx(), min_reps=1, max_reps=1, max_s=1000.0, device="cpu")
    assert synced == ["cpu", "cpu"]  # before and after the timed calls


def test_time_calls_defaults(clock):
    # Defaults min_reps=3, max_reps=50, max_s=1.0 (timing.py's signature).
    # Binary-exact steps, so the sums are exact. Calls that never settle (alternating 0.25 /
    # 0.5 s): 0.25, 0.75, 1.0 s spent -> 3 repeats: the limit (>= 1.0 s) ends it.
    c = clock([0.25, 0.5] * 10)
    assert len(time_calls(c.work, _ctx())) == 3
    # 2 s calls: past the limit after one, but 3 repeats are always taken
    c = clock([2.0])
    assert len(time_calls(c.work, _ctx())) == 3
    # tiny calls that never settle: 50 repeats at most
    c = clock([1e-6, 2e-6] * 40)
    assert len(time_calls(c.work, _ctx())) == 50
    # 0.125 / 0.25 s calls: 0.125, 0.375, 0.5, 0.75, 0.875, 1.125 s -> 6 repeats
    c = clock([0.125, 0.25] * 10)
    assert len(time_calls(c.work, _ctx())) == 6
