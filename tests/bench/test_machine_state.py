"""Machine state beside the figures: other processes' CPU use, steal, NVML, and the verdict."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench_fakes import steps

from torchrig.bench import machine_state
from torchrig.bench.machine_state import (
    CpuSample,
    MachineMonitor,
    busy_warnings,
    merge_gpu_samples,
    nvml_snapshot,
    other_load,
    throttle_names,
)
from torchrig.bench.report import BenchReport
from torchrig.bench.runner import run_suite
from torchrig.bench.settings import BenchSettings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hardware"))
from hwfakes import FakeNvml, nvml_gpu  # noqa: E402


def _sample(wall: float, busy: float, own: float, steal: float = 0.0,
            total: float | None = None) -> CpuSample:
    return CpuSample(wall=wall, busy_s=busy, steal_s=steal,
                     total_s=total if total is not None else 2 * wall, own_s=own)


def test_other_load_subtracts_this_process_tree_and_steal():
    a = _sample(0.0, 0.0, 0.0)
    b = _sample(2.0, busy=3.0, own=1.8, steal=0.2, total=4.0)
    # 3 busy core-seconds in 2 s: 1.8 ours, 0.2 stolen, 1.0 someone else's -> 0.5 cores.
    assert other_load(a, b) == {"seconds": 2.0, "other_cpu_cores": 0.5, "steal_share": 0.05}
    assert other_load(a, _sample(0.01, 0.0, 0.0)) is None  # too short to say anything


def test_quiet_state_has_no_warning():
    state = {"before": {"load_average_1min": 0.3, "usable_cpus": 2, "other_cpu_cores": 0.1},
             "during": {"other_cpu_cores": 0.2, "steal_share": 0.0}}
    assert busy_warnings(state) == []


@pytest.mark.parametrize(("state", "words"), [
    ({"before": {"load_average_1min": 2.1, "usable_cpus": 2}}, "load average 2.1"),
    ({"before": {"usable_cpus": 2}, "during": {"other_cpu_cores": 1.6}},
     "Other processes used 1.6 of 2 CPU cores during the run"),
    ({"before": {"usable_cpus": 2}, "during": {"steal_share": 0.2}}, "took 20% of the CPU"),
])
def test_each_kind_of_busy_is_named_with_what_to_do(state, words):
    [warning] = busy_warnings(state)
    assert words in warning.en
    assert "run" in warning.en.lower() and "重新运行" in warning.zh


def test_nvml_snapshot_reads_clocks_throttling_and_other_processes():
    gpu = nvml_gpu(0, sm_clock=1410, throttle_mask=0x4 | 0x40, temperature=88,
                   processes=[(4242, 2 * 1024**3), (111, 1024)])
    nvml = FakeNvml([gpu, nvml_gpu(1, sm_clock="NVMLError_NotSupported")])
    snap = nvml_snapshot(nvml, own_pids=[111])
    first, second = snap
    assert first["sm_clock_mhz"] == 1410 and first["sm_clock_max_mhz"] == 2520
    assert first["temperature_c"] == 88 and first["power_limit_w"] == 450.0
    assert first["throttle_reasons"] == ["sw_power_cap", "hw_thermal_slowdown"]
    assert first["other_processes"] == [{"pid": 4242, "used_bytes": 2 * 1024**3}]
    assert "sm_clock_mhz" not in second  # NotSupported: left out, nothing raised
    assert nvml_snapshot(FakeNvml([gpu], fail_all=True), own_pids=[]) == []


def test_gpu_warnings_from_merged_samples():
    hot = {"index": 0, "name": "NVIDIA Test GPU 0", "sm_clock_mhz": 1200,
           "throttle_reasons": ["gpu_idle", "hw_thermal_slowdown"], "temperature_c": 91,
           "other_processes": [{"pid": 77, "used_bytes": None}]}
    cool = {"index": 0, "sm_clock_mhz": 2500, "throttle_reasons": [], "temperature_c": 60,
            "other_processes": []}
    [merged] = merge_gpu_samples([[cool], [hot]])
    assert merged["sm_clock_mhz_min"] == 1200 and merged["temperature_c_max"] == 91
    warnings = busy_warnings({"before": {"usable_cpus": 8}, "during": {"gpus": [merged]}})
    text = " ".join(w.en for w in warnings)
    assert "1 other process(es) used the GPU" in text and "PID 77" in text
    assert "hardware thermal slowdown, up to 91 °C" in text
    assert "gpu idle" not in text.lower()  # normal reasons are not warnings
    assert throttle_names(0x1 | 0x2) == ["gpu_idle", "applications_clocks_setting"]


def test_a_run_records_machine_state_and_flags_a_busy_machine(monkeypatch):
    """Scripted CPU samples: other processes take 1.5 of 2 cores during the run."""
    script = iter([_sample(0.0, 0.0, 0.0), _sample(1.0, 1.0, 0.9),
                   *(_sample(1.0 + t, 1.0 + 2.0 * t, 0.9 + 0.5 * t) for t in range(1, 200))])
    monkeypatch.setattr(machine_state, "cpu_sample", lambda pid=None: next(script))
    monkeypatch.setattr(machine_state, "load_average", lambda: 0.2)
    monkeypatch.setattr(machine_state.MachineMonitor, "__init__",
                        _monitor_init(MachineMonitor.__init__), raising=True)
    report = run_suite(BenchSettings(preset="smoke", device="cpu"),
                       cancel=__import__("threading").Event(), detect=False,
                       registry=[steps("a")])
    state = report.machine_state
    assert state is not None and state["busy"] is True
    assert state["during"]["other_cpu_cores"] == pytest.approx(1.5)
    assert any("Other processes used 1.5 of" in w.en for w in report.busy_warnings)
    again = BenchReport.from_dict(report.to_dict())
    assert again.busy_warnings == report.busy_warnings


def _monitor_init(original):
    def init(self, usable_cpus, interval_s=0.5, nvml=True, **kwargs):
        original(self, usable_cpus=2, interval_s=3600.0, nvml=False, **kwargs)
    return init
