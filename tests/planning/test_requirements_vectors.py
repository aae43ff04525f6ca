"""The worked examples the sources print (docs/estimation.md), reproduced by the planner's
formulas."""

from __future__ import annotations

import pytest

from torchrig.planning.presets import get_preset
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.activations import korthikanti_layer_bytes
from torchrig.planning.requirements.estimators import (
    accelerate_estimate,
    deepspeed_zero2_estimate,
    deepspeed_zero3_estimate,
)
from torchrig.planning.requirements.model_states import model_state_bytes
from torchrig.planning.workload import workload_from_options
from torchrig.units import GB, GiB, fmt_gib


def _states(strategy: str, params: float = 7.5e9, n: int = 64) -> float:
    s = model_state_bytes(params, "amp_fp16", "adamw", strategy, n)
    return s.weights + s.gradients + s.optimizer_states


def test_zero_paper_figure_1():
    # ZeRO paper Fig. 1: 7.5B parameters, 64 GPUs, mixed-precision Adam (K = 12); DeepSpeed's
    # code and estimators also hold each rank's fp32 gradient shard: + 4 x 7.5e9 / 64 B for
    # ZeRO-1/2; ZeRO-3 as its estimator counts, 18 B per parameter per rank (+ 2 x 7.5e9 / 64).
    fp32_grads = 4 * 7.5e9 / 64
    assert _states("ddp") == pytest.approx(120 * GB)
    assert _states("zero1") == pytest.approx(31.4 * GB + fp32_grads, abs=0.01 * GB)
    assert _states("zero2") == pytest.approx(16.6 * GB + fp32_grads, abs=0.05 * GB)
    assert _states("zero3") == pytest.approx(1.875 * GB + 2 * 7.5e9 / 64)
    assert _states("zero3") == pytest.approx(18 * 7.5e9 / 64)


def test_zero_paper_gpt2_1_5b_needs_24_gb():
    assert _states("ddp", 1.5e9, 1) == pytest.approx(24 * GB)


def test_bytes_per_parameter_per_scheme():
    def per_param(precision: str, optimizer: str) -> float:
        s = model_state_bytes(1.0, precision, optimizer, "ddp", 1)
        return s.weights + s.gradients + s.optimizer_states

    assert per_param("fp32", "adamw") == 16
    assert per_param("fp32", "sgd_momentum") == 12
    assert per_param("fp32", "sgd") == 8
    assert per_param("fp32", "adam_8bit") == 10  # 8-bit Adam: 2 bytes of states
    assert per_param("bf16", "adamw") == 8  # pure bf16: states in bf16 too
    zero = model_state_bytes(1.0, "amp_bf16", "adamw", "zero1", 1)
    # + DeepSpeed's fp32 gradient shard (4 B) on one rank
    assert (zero.weights, zero.gradients, zero.optimizer_states) == (2, 2 + 4, 12)


# DeepSpeed estimator vectors: P = 2851e6, largest layer 32e6, 8 GPUs on one node, printed as
# bytes / 2**30 with two decimals.
P, LL = 2851e6, 32e6


def _gib(value: float) -> float:
    return round(value / 2**30, 2)


def test_deepspeed_zero2_vectors():
    cpu, gpu = deepspeed_zero2_estimate(P, 8, 1, cpu_offload=True)
    assert (_gib(cpu), _gib(gpu)) == (127.45, 5.31)
    assert _gib(deepspeed_zero2_estimate(P, 8, 1, cpu_offload=False)[1]) == 11.28


def test_deepspeed_zero3_vectors():
    assert _gib(deepspeed_zero3_estimate(P, LL, 8, 1, True, True)[1]) == 0.12
    assert _gib(deepspeed_zero3_estimate(P, LL, 8, 1, True, False)[1]) == 0.78
    assert _gib(deepspeed_zero3_estimate(P, LL, 8, 1, False, False)[1]) == 6.09


def test_accelerate_vectors_for_bert_base_cased():
    preset = get_preset("bert-base-cased")
    total = preset.params * 4 + preset.buffer_bytes
    assert total == 433_249_280
    model, training = accelerate_estimate(total, "fp32")
    assert (model, training) == (433_249_280, 4 * 433_249_280)
    model, training = accelerate_estimate(total, "amp_fp16")
    assert (model, training) == (216_624_640, 866_498_560)
    assert fmt_gib(433_249_280, 2) == "413.18 MiB"  # accelerate's "413.18 MB" is 1024-based


def test_accelerate_vector_for_resnet50():
    preset = get_preset("resnet50")
    assert preset.params * 4 + preset.buffer_bytes == 102_441_032


def test_plan_reports_the_accelerate_figure():
    w = workload_from_options(task="nlp_transformer", model="bert-base-cased", mode="infer",
                              precision="fp32")
    assert plan(w).references["accelerate_model_bytes"].value == 433_249_280


def test_korthikanti_gpt3_layer():
    s, b, h, a = 2048, 1, 12288, 96
    assert korthikanti_layer_bytes(s, b, h, a) / GB == pytest.approx(2.869, abs=0.0005)
    assert korthikanti_layer_bytes(s, b, h, a, tp=8) / GB == pytest.approx(0.579, abs=0.0005)
    assert korthikanti_layer_bytes(s, b, h, a, tp=8, sequence_parallel=True) / GB == \
        pytest.approx(0.359, abs=0.0005)
    assert korthikanti_layer_bytes(s, b, h, a, tp=8, recompute="selective") / GB == \
        pytest.approx(0.107, abs=0.0005)
    assert korthikanti_layer_bytes(s, b, h, a, recompute="full") / GB == \
        pytest.approx(0.0503, abs=0.00005)


def test_kv_cache_in_the_plan():
    w = workload_from_options(task="llm_inference", model="llama-2-7b", seq_len=2048, batch=1)
    assert plan(w).vram_per_gpu["kv_cache"].value == 524_288 * 2048 == 1 * GiB
    w8 = workload_from_options(task="llm_inference", model="llama-3-8b", seq_len=8192, batch=4)
    assert plan(w8).vram_per_gpu["kv_cache"].value == 131_072 * 8192 * 4


def test_dataset_in_ram_vector():
    # seed 1.2: 100,000 RGB 224x224 images, uint8 = 15.05 GB.
    w = workload_from_options(task="image_classification", dataset_samples=100_000,
                              cache_in_ram=True)
    req = plan(w)
    assert req.system_ram["dataset_cache"].value == 100_000 * 150_528 == 15_052_800_000
    claim = next(c for c in req.seed_claims if c.section == "seed 1.2")
    assert claim.computed == 15_052_800_000
    assert claim.seed_value == "~15 GB"
