"""scripts/gpu_check.py refuses clearly on a machine without CUDA (the CI machines)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_check.py"


@pytest.mark.slow  # a fresh interpreter importing torch: several seconds on 2 cores
def test_without_cuda_exits_2_with_a_message(tmp_path: Path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: run the script itself")
    out = subprocess.run([sys.executable, str(SCRIPT), "--json", str(tmp_path / "g.json")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr.startswith("gpu_check: no CUDA device")
    assert not (tmp_path / "g.json").exists()


# --- the checks themselves, on fake reports (no GPU needed) ------------------------------------

def _script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _m(mid: str, value: float, unit: str = "ratio", **details):
    from torchrig.bench.report import Measurement
    from torchrig.i18n import Msg

    return Measurement(id=mid, label=Msg(mid, mid), value=value, unit=unit, details=details)


def _gpu_report(**overrides):
    from torchrig.bench.report import BenchReport, BenchResult
    from torchrig.i18n import Msg

    results = {
        "matmul": [_m(d, 1e14, "FLOP/s") for d in ("fp32", "tf32", "fp16", "bf16")],
        "h2d": [_m("pinned_h2d", 2.5e10, "B/s", pcie_gen=5, pcie_width=16)]
        + [_m(c, 1e10, "B/s") for c in ("pinned_d2h", "pageable_h2d", "pageable_d2h")],
        "train": [_m("cnn_amp", 900.0, "samples/s", amp_dtype="fp16"),
                  _m("cnn_amp_speedup", 1.8, pairs=12, min=1.6, max=1.9)]
        + [_m(k, 1e9, "B") for k in ("cnn_fp32_peak_bytes", "cnn_amp_peak_bytes",
                                     "transformer_fp32_peak_bytes",
                                     "transformer_amp_peak_bytes")],
        "checkpointing": [_m("memory_saved", 0.6)],
    }
    results.update(overrides)
    return BenchReport(settings={}, started="2026-12-01T00:00:00+00:00", device="cuda:0",
                       results=[BenchResult(id=k, title=Msg(k, k), measurements=v)
                                for k, v in results.items()])


def test_path_checks_pass_on_a_complete_gpu_report_and_name_what_is_missing():
    gpu_check = _script()
    assert all(ok for _, ok, _ in gpu_check.path_checks(_gpu_report(), cc_major=9))
    broken = _gpu_report(train=[_m("cnn_amp", 900.0, "samples/s", amp_dtype="bf16"),
                                _m("cnn_amp_speedup", 1.8, pairs=0, min=1.6, max=1.9)],
                         matmul=[_m("fp32", 1e13, "FLOP/s")])
    failed = {name for name, ok, _ in gpu_check.path_checks(broken, cc_major=9) if not ok}
    assert {"AMP used fp16 + GradScaler on CUDA", "matmul bf16 measured",
            "AMP speed-up from interleaved FP32/AMP pairs, with its range",
            "peak memory stat cnn_fp32_peak_bytes"} <= failed
    # Before Ampere, TF32/BF16 are not expected.
    assert "matmul bf16 measured" not in {
        n for n, ok, _ in gpu_check.path_checks(broken, cc_major=7) if not ok}


def test_machine_state_checks_read_nvml_samples_made_with_the_fake_pynvml():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hardware"))
    from hwfakes import FakeNvml, nvml_gpu

    from torchrig.bench.machine_state import busy_warnings, merge_gpu_samples, nvml_snapshot

    gpu_check = _script()
    quiet = FakeNvml([nvml_gpu(0)])
    samples = [nvml_snapshot(quiet, own_pids=[]) for _ in range(3)]
    report = _gpu_report()
    report.machine_state = {"during": {"gpus": merge_gpu_samples(samples)}, "busy": False,
                            "warnings": []}
    checks = gpu_check.machine_state_checks(report, device_index=0)
    assert all(ok for _, ok, _ in checks), checks

    shared = FakeNvml([nvml_gpu(0, processes=[(999, 1 << 30)], throttle_mask=0x40)])
    merged = merge_gpu_samples([nvml_snapshot(shared, own_pids=[])])
    warnings = busy_warnings({"during": {"gpus": merged}})
    report.machine_state = {"during": {"gpus": merged}, "busy": True,
                            "warnings": [w.to_dict() for w in warnings]}
    failed = {n for n, ok, _ in gpu_check.machine_state_checks(report, 0) if not ok}
    assert failed == {"no other process on the GPU (the benchmark child is not counted)"}

    report.machine_state = {"during": {}, "gpu_error": "NVML unavailable (no driver)"}
    [(name, ok, detail)] = gpu_check.machine_state_checks(report, 0)
    assert not ok and "no driver" in detail


def test_crash_checks_want_the_figures_and_the_signal():
    from torchrig.i18n import Msg

    gpu_check = _script()
    report = _gpu_report()
    assert not all(ok for _, ok, _ in gpu_check.crash_checks(report))  # no interruption
    report.interrupted = Msg("the benchmark process was ended by SIGKILL (killed: ...)", "")
    assert all(ok for _, ok, _ in gpu_check.crash_checks(report))
