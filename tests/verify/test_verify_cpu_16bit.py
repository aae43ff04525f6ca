"""verify refuses, with the figure, a CPU run that would compute its matmuls in bf16 in software
for minutes (the Llama-2-7B LoRA workload's pilot ran past two minutes on a CPU without native
bf16), and lets every other run through."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torchrig.verify import cpu_16bit  # noqa: E402 - after the torch check
from torchrig.verify.probe import ProbeSpec, precision_plan  # noqa: E402


def spec(precision: str, checkpointing: bool) -> ProbeSpec:
    return ProbeSpec(build=lambda _l: torch.nn.Linear(1, 1), inputs=lambda *a: None,
                     optimizer="adamw", precision=precision_plan(precision, "cpu"),
                     training=True, checkpoint_inputs=lambda _m: [],
                     checkpointing=checkpointing)


@pytest.fixture
def no_native_bf16(monkeypatch):
    monkeypatch.setattr(cpu_16bit, "native_16bit", lambda profile, dtype: False)
    monkeypatch.setattr(cpu_16bit, "bf16_matmul_flops_per_s", lambda: 1e9)  # 1 GFLOP/s


def test_only_exact_16bit_runs_on_a_cpu_without_bf16_are_software(no_native_bf16):
    assert cpu_16bit.software_16bit(spec("amp_bf16", True), "cpu")  # exact emulation
    assert cpu_16bit.software_16bit(spec("bf16", False), "cpu")  # a bf16 model
    assert not cpu_16bit.software_16bit(spec("amp_bf16", False), "cpu")  # fp32 compute
    assert not cpu_16bit.software_16bit(spec("fp32", True), "cpu")
    assert not cpu_16bit.software_16bit(spec("amp_bf16", True), "cuda")


def test_native_bf16_is_never_software(monkeypatch):
    monkeypatch.setattr(cpu_16bit, "native_16bit", lambda profile, dtype: True)
    assert not cpu_16bit.software_16bit(spec("amp_bf16", True), "cpu")


def test_a_pilot_past_two_minutes_is_refused_with_its_estimate(no_native_bf16):
    # 4 runs of a 100 GFLOP step at 1 GFLOP/s: 400 s, about 7 min (> 120 s)
    refused = cpu_16bit.too_slow(spec("amp_bf16", True), "cpu", 100e9, 4)
    assert refused is not None and "about 7 min here" in refused.en
    assert "约需 7 分钟" in refused.zh
    # 4 x 25 GFLOP at 1 GFLOP/s: 100 s, within the limit
    assert cpu_16bit.too_slow(spec("amp_bf16", True), "cpu", 25e9, 4) is None
    # unknown FLOPs (a custom model the planner cannot size): not refused on a guess
    assert cpu_16bit.too_slow(spec("amp_bf16", True), "cpu", None, 4) is None
    # fp32 compute: never refused here
    assert cpu_16bit.too_slow(spec("amp_bf16", False), "cpu", 1e15, 4) is None


def test_the_bf16_rate_is_a_real_timing():
    rate = cpu_16bit.bf16_matmul_flops_per_s()
    assert 1e6 < rate < 1e15  # a 256^3 product timed here, not a constant
