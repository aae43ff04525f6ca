"""Precision honest for the device and training threads left to free cores (issue 27).

AMP on a CPU only where bf16 is native (the rule cpu_matmul uses: cpufeatures.native_16bit);
otherwise train measures FP32 alone and says why, so it completes. The thread count for CPU
training comes from other processes' CPU use over a short window, here from fake samples.
"""

from __future__ import annotations

import threading

import pytest

from torchrig.bench.base import BenchContext
from torchrig.bench.benchmarks.free_cores import free_threads, threads_note
from torchrig.bench.benchmarks.trainloop import amp_skip_reason
from torchrig.bench.machine_state import CpuSample
from torchrig.bench.runner import run_suite
from torchrig.bench.settings import BenchSettings
from torchrig.hardware.model import CpuInfo, SystemProfile


def _profile(*flags: str, cpus: int = 2) -> SystemProfile:
    return SystemProfile(cpu=CpuInfo(usable_cpus=cpus, logical_cpus=cpus,
                                     isa_features=list(flags)))


def _ctx(device: str, profile: SystemProfile | None) -> BenchContext:
    return BenchContext(settings=BenchSettings(preset="smoke", device=device.split(":")[0]),
                        device=device, cancel=threading.Event(), budget_s=10.0,
                        profile=profile)


# --------------------------------------------------------------------------- AMP rule


def test_amp_on_a_cpu_needs_native_bf16():
    # The EPYC of issue 27: AVX2 and AVX-512F, no bf16 -> skipped with the reason
    reason = amp_skip_reason(_ctx("cpu", _profile("avx2", "avx512f")))
    assert reason is not None
    assert reason.en.startswith("AMP not measured: this CPU has no native bf16 instructions")
    assert "bf16" in reason.zh
    # AVX512_BF16, AMX-BF16 or Arm's BF16: measured
    for flag in ("avx512_bf16", "amx_bf16", "bf16"):
        assert amp_skip_reason(_ctx("cpu", _profile("avx2", flag))) is None


def test_amp_on_gpus_is_not_gated_by_cpu_flags():
    assert amp_skip_reason(_ctx("cuda:0", _profile("avx2"))) is None
    assert amp_skip_reason(_ctx("mps", _profile())) is None


def _run_train(profile: SystemProfile):
    # 40 s for the suite: train's share (weight 6 of the registry's) suffices on a busy machine
    report = run_suite(BenchSettings(preset="smoke", device="cpu", only=("train",),
                                     budget_s=40),
                       cancel=threading.Event(), profile=profile, detect=False,
                       watch_machine=False)
    [result] = report.results
    return result


@pytest.mark.slow
def test_train_without_native_bf16_completes_with_fp32_only_and_says_why():
    result = _run_train(_profile("avx2", "avx512f"))
    assert result.status == "ok", result.status
    ids = [m.id for m in result.measurements]
    assert ids == ["cnn_fp32", "transformer_fp32"]
    assert any(n.en.startswith("AMP not measured") for n in result.notes)
    for m in result.measurements:
        assert m.value > 0 and m.details["amp_dtype"] is None
        assert m.details["torch_threads"] >= 1


@pytest.mark.slow
def test_train_with_native_bf16_measures_amp_and_its_speed_up():
    result = _run_train(_profile("avx2", "avx512_bf16"))
    assert result.status == "ok", result.status
    ids = {m.id for m in result.measurements}
    assert {"cnn_fp32", "cnn_amp", "cnn_amp_speedup", "transformer_amp"} <= ids
    assert result.measurement("cnn_amp").details["amp_dtype"] == "bf16"
    assert not any(n.en.startswith("AMP not measured") for n in result.notes)


# --------------------------------------------------------------------------- free threads


def _samples(other_cores: float, wall: float = 1.0):
    """Two CPU samples ``wall`` seconds apart in which other processes used ``other_cores``
    cores' worth (busy time = other x wall, none of it this process's)."""
    first = CpuSample(wall=0.0, busy_s=0.0, steal_s=0.0, total_s=0.0, own_s=0.0)
    second = CpuSample(wall=wall, busy_s=other_cores * wall, steal_s=0.0, total_s=64 * wall,
                       own_s=0.0)
    it = iter([first, second])
    return lambda: next(it)


@pytest.mark.parametrize(("usable", "other", "threads"), [
    (2, 0.0, 2),  # quiet: every usable CPU
    (2, 0.5, 2),  # half a core is not taken (TAKEN_ABOVE): ceil(0.5 - 0.5) = 0
    (2, 0.6, 1),  # ceil(0.1) = 1 core taken -> 1 thread
    (2, 3.0, 1),  # more than all of them: still 1 thread
    (64, 2.0, 62),  # ceil(1.5) = 2 taken of 64
])
def test_threads_are_the_usable_cpus_less_the_cores_others_took(usable, other, threads):
    got, seen = free_threads(usable, sample=_samples(other), sleep=lambda s: None)
    assert got == threads
    assert seen == pytest.approx(other)


def test_without_cpu_times_every_usable_cpu_is_used():
    assert free_threads(8, sample=lambda: None, sleep=lambda s: None) == (8, None)


def test_the_note_says_when_threads_were_left_to_other_work():
    assert threads_note(2, 2, 0.1).en == "2 torch threads (the usable CPUs)"
    note = threads_note(1, 2, 1.6)
    assert note.en.startswith("1 torch threads of 2 usable CPUs: other processes kept 1.6 cores")
    assert "1.6" in note.zh
