"""The "does not fit in GPU memory" Blocker names the plan's own largest terms, so an inference
plan never speaks of gradients or ZeRO (issue 24)."""

from __future__ import annotations

from pathlib import Path

from torchrig.builds.capabilities import from_profile
from torchrig.catalog import load_catalog
from torchrig.hardware.model import CpuInfo, GpuInfo, MemoryInfo, SystemProfile
from torchrig.planning.analysis import analyze
from torchrig.planning.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]
GiB = 1024**3


def _four_24gb_gpus(catalog):
    profile = SystemProfile(
        cpu=CpuInfo(model_name="x", physical_cores=32, logical_cpus=64),
        memory=MemoryInfo(total_bytes=512 * GiB),
        gpus=[GpuInfo(index=i, name="NVIDIA GeForce RTX 4090", vendor="NVIDIA",
                      vram_total_bytes=24 * GiB, compute_capability="8.9") for i in range(4)])
    return from_profile(profile, catalog)


def _blocker(workload_file: str):
    catalog = load_catalog()
    w = load_workload(ROOT / "workloads" / workload_file)
    found = {f.code: f for f in analyze(w, _four_24gb_gpus(catalog), catalog).findings}
    return found["analysis.vram"]


def test_an_inference_blocker_names_weights_and_kv_cache_not_gradients():
    f = _blocker("llama2-70b-inference-bf16-tp4.json")
    # Llama 2 70B, 68,976,648,192 parameters (the published checkpoint's count) in bf16 over
    # tensor parallelism 4: 68,976,648,192 x 2 B / 4 = 34,488,324,096 B = 32.1 GiB per GPU.
    assert "largest: weights 32.1 GiB, KV cache" in f.detail.en
    assert "最大的几项：权重 32.1 GiB，KV 缓存" in f.detail.zh
    for word in ("gradient", "optimizer"):
        assert word not in f.detail.en.lower()
    assert "ZeRO" not in str(f.source) and "PagedAttention (arXiv 2309.06180)" in str(f.source)


def test_a_training_blocker_still_cites_zero():
    f = _blocker("gpt3-175b-finetune-2x8.json")
    assert "ZeRO" in str(f.source)
    assert "largest:" in f.detail.en
