"""The timing branches issue 27 named, with fakes: time_calls' inner loops on CUDA and MPS, the
settle rule's relative spread, and the busy check's thresholds scaled by the CPU count.

Expected values are worked out by hand in each test; no test reads a real clock or a real GPU.
"""

from __future__ import annotations

import contextlib
import threading

import pytest

from torchrig.bench import timing
from torchrig.bench.base import BenchContext
from torchrig.bench.findings import bench_findings
from torchrig.bench.machine_state import busy_warnings
from torchrig.bench.report import BenchReport
from torchrig.bench.settings import BenchSettings
from torchrig.bench.timing import settled, time_calls


def _ctx(device: str) -> BenchContext:
    kind = device.split(":")[0]
    return BenchContext(settings=BenchSettings(preset="quick", device=kind), device=device,
                        cancel=threading.Event(), budget_s=60.0)


# --------------------------------------------------------------------------- CUDA / MPS inner


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.current: list[str] = ["cuda:0"]


def _fake_cuda(monkeypatch, log: _Log, ms: float):
    import torch

    class Event:
        def __init__(self, enable_timing: bool = False) -> None:
            assert enable_timing
            log.events.append(f"event on {log.current[-1]}")

        def record(self) -> None:
            log.events.append(f"record on {log.current[-1]}")

        def synchronize(self) -> None:
            log.events.append("sync")

        def elapsed_time(self, end: Event) -> float:
            return ms

    @contextlib.contextmanager
    def device(d):
        log.current.append(str(d))
        try:
            yield
        finally:
            log.current.pop()

    monkeypatch.setattr(torch.cuda, "Event", Event)
    monkeypatch.setattr(torch.cuda, "device", device)


@pytest.mark.parametrize(("inner", "ms", "per_call_s"), [
    (1, 10.0, 0.010),  # 10 ms for one call
    (5, 10.0, 0.002),  # 10 ms for five calls = 2 ms each
    (50, 100.0, 0.002),  # 100 ms / 50 = 2 ms: not 50x low (issue 27's "matmul up to 50x low")
])
def test_cuda_repeats_are_seconds_per_call_divided_by_inner(monkeypatch, inner, ms, per_call_s):
    log = _Log()
    _fake_cuda(monkeypatch, log, ms)
    calls = []
    samples = time_calls(lambda: calls.append(1), _ctx("cuda:0"), min_reps=2, max_reps=2,
                         inner=inner, max_s=1e9)
    assert samples == pytest.approx([per_call_s, per_call_s])
    assert len(calls) == 2 * inner


def test_cuda_events_record_on_the_measured_gpu_not_the_current_one(monkeypatch):
    log = _Log()  # the process's current GPU is cuda:0
    _fake_cuda(monkeypatch, log, 4.0)
    seen_on = []
    time_calls(lambda: seen_on.append(log.current[-1]), _ctx("cuda:1"), min_reps=1,
               max_reps=1, max_s=1e9)
    assert log.events == ["event on cuda:1", "event on cuda:1", "record on cuda:1",
                          "record on cuda:1", "sync"]
    assert seen_on == ["cuda:1"]  # the work ran with cuda:1 current too


class _Clock:
    def __init__(self, step: float) -> None:
        self.now, self.step = 50.0, step

    def __call__(self) -> float:
        return self.now

    def work(self) -> None:
        self.now += self.step


@pytest.mark.parametrize("inner", [1, 4, 25])
def test_mps_repeats_are_divided_by_inner_and_synchronised(monkeypatch, inner):
    # Each call advances the fake clock 0.04 s: inner calls take inner * 0.04 s, per call 0.04 s
    clock = _Clock(0.04)
    monkeypatch.setattr(timing.time, "perf_counter", clock)
    synced = []
    monkeypatch.setattr(timing, "synchronize", synced.append)
    samples = time_calls(clock.work, _ctx("mps"), min_reps=3, max_reps=3, inner=inner,
                         max_s=1e9)
    assert samples == pytest.approx([0.04] * 3)
    assert synced == ["mps"] * 6  # before and after each of the 3 repeats


# --------------------------------------------------------------------------- settle rule


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3])
def test_the_settle_rule_is_relative_so_it_reads_the_same_at_any_scale(scale):
    # [0.995, 0.998, 1, 1.002, 1.005]: q1 = (0.995+0.998)/2 = 0.9965, q3 = (1.002+1.005)/2 =
    # 1.0035; IQR 0.007 over median 1 = 0.7 % <= 2 %: settled, whatever the unit.
    tight = [0.995, 0.998, 1.0, 1.002, 1.005]
    assert settled([v * scale for v in tight]) is True
    # [0.98, 0.99, 1, 1.01, 1.02]: IQR (1.015 - 0.985) = 0.03 over 1 = 3 % > 2 %: not settled.
    loose = [0.98, 0.99, 1.0, 1.01, 1.02]
    assert settled([v * scale for v in loose]) is False


def test_microsecond_repeats_that_differ_by_half_do_not_settle():
    # An absolute rule (IQR <= 0.02 s) would call these settled: IQR of [1, 1, 1.5, 2, 2] us:
    # q1 = 1, q3 = 2 -> 1 us, 0.000001 s < 0.02; relative to the median 1.5 us it is 67 %.
    assert settled([1e-6, 1e-6, 1.5e-6, 2e-6, 2e-6]) is False
    # and kilosecond repeats within 0.7 % settle though their IQR is 7 s (not < 0.02)
    assert settled([995.0, 998.0, 1000.0, 1002.0, 1005.0]) is True


def test_time_calls_keeps_repeating_microsecond_calls_that_have_not_settled(monkeypatch):
    # 1 us / 2 us calls alternate: never settled, the time limit (1 s) far away -> max_reps 40.
    steps = iter([1e-6, 2e-6] * 100)
    now = [0.0]
    monkeypatch.setattr(timing.time, "perf_counter", lambda: now[0])

    def work() -> None:
        now[0] += next(steps)

    assert len(time_calls(work, _ctx("cpu"), min_reps=3, max_reps=40)) == 40


# --------------------------------------------------------------------------- busy threshold


def _load_warning(load: float, cpus: object) -> bool:
    return any("1-minute load" in w.en for w in busy_warnings(
        {"before": {"load_average_1min": load, "usable_cpus": cpus}}))


def test_a_64_core_machine_at_load_2_is_not_busy_but_a_2_core_one_is():
    # BUSY_LOAD_PER_CPU 0.5: busy above 0.5 x CPUs -> 32 on 64 CPUs, 1 on 2 CPUs.
    assert _load_warning(2.0, 64) is False
    assert _load_warning(2.0, 2) is True
    assert _load_warning(32.0, 64) is False  # at the threshold: not above it
    assert _load_warning(32.5, 64) is True


def test_other_processes_are_judged_per_cpu_too():
    # BUSY_OTHER_CPU_SHARE 0.25: busy above max(0.5, 0.25 x CPUs) cores -> 16 on 64 CPUs.
    def warned(other: float, cpus: int) -> bool:
        return any("Other processes" in w.en for w in busy_warnings(
            {"before": {"usable_cpus": cpus}, "during": {"other_cpu_cores": other}}))

    assert warned(15.9, 64) is False
    assert warned(16.1, 64) is True
    assert warned(0.6, 2) is True  # max(0.5, 0.5) = 0.5 on 2 CPUs


def test_without_a_cpu_count_the_cpu_checks_say_nothing():
    # Unknown is not "one CPU": a 64-core machine's old report must not read as busy.
    assert _load_warning(2.0, None) is False
    assert _load_warning(2.0, True) is False  # a bool is not a count
    assert busy_warnings({"before": {"usable_cpus": None},
                          "during": {"other_cpu_cores": 3.0}}) == []


def test_an_old_report_takes_the_cpu_count_from_its_profile():
    def report(cpus: int) -> BenchReport:
        return BenchReport(settings={"preset": "quick"}, started="t", device="cpu",
                           environment={"load_average_1min": 2.0},
                           profile={"cpu": {"usable_cpus": cpus, "logical_cpus": 128}})

    assert bench_findings(report(64)) == []  # 2.0 <= 32
    assert {f.code for f in bench_findings(report(2))} == {"bench.busy_machine"}  # 2.0 > 1
    # no usable count: the logical one (128 -> threshold 64)
    old = BenchReport(settings={"preset": "quick"}, started="t", device="cpu",
                      environment={"load_average_1min": 2.0},
                      profile={"cpu": {"usable_cpus": None, "logical_cpus": 3}})
    assert {f.code for f in bench_findings(old)} == {"bench.busy_machine"}  # 2.0 > 1.5
