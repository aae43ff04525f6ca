"""Detected device names map to catalog parts, and near-misses do not."""

from __future__ import annotations

import pytest

from torchrig.catalog import load_catalog
from torchrig.catalog.matching import match_cpu, match_gpu, normalize_name
from torchrig.units import GiB


@pytest.mark.parametrize(("detected", "expected"), [
    ("NVIDIA GeForce RTX 4090", "nvidia-rtx-4090"),
    ("NVIDIA GeForce GTX 1660 SUPER", "nvidia-gtx-1660-super"),
    ("NVIDIA A100-SXM4-80GB", "nvidia-a100-80gb-sxm"),
    ("NVIDIA A100-PCIE-40GB", "nvidia-a100-40gb-pcie"),
    ("NVIDIA H100 80GB HBM3", "nvidia-h100-sxm"),
    ("NVIDIA H100 PCIe", "nvidia-h100-pcie"),
    ("NVIDIA RTX 6000 Ada Generation", "nvidia-rtx-6000-ada"),
    ("NVIDIA RTX A6000", "nvidia-rtx-a6000"),
    ("AMD Instinct MI300X", "amd-instinct-mi300x"),
    ("NVIDIA H100 NVL", "nvidia-h100-nvl"),
    ("NVIDIA H200 NVL", "nvidia-h200-nvl"),
    ("Tesla V100-PCIE-32GB", "nvidia-v100-32gb-pcie"),
    # The China-market card is its own part now, no longer a near miss of the RTX 4090.
    ("NVIDIA GeForce RTX 4090 D", "nvidia-rtx-4090d"),
])
def test_match_gpu(detected: str, expected: str) -> None:
    part = match_gpu(load_catalog(), detected)
    assert part is not None and part.id == expected


@pytest.mark.parametrize("detected", [
    "NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA H800 PCIe", "",
    "Some Unknown GPU",
])
def test_near_misses_do_not_match(detected: str) -> None:
    assert match_gpu(load_catalog(), detected) is None


def test_vram_tells_same_named_models_apart() -> None:
    cat = load_catalog()
    assert match_gpu(cat, "NVIDIA GeForce RTX 3060", vram_bytes=int(11.7 * GiB)) is not None
    assert match_gpu(cat, "NVIDIA GeForce RTX 3060", vram_bytes=8 * GiB) is None


@pytest.mark.parametrize(("detected", "expected"), [
    ("13th Gen Intel(R) Core(TM) i9-13900K", "intel-core-i9-13900k"),
    ("12th Gen Intel(R) Core(TM) i5-12400F", "intel-core-i5-12400f"),
    ("AMD Ryzen 9 7950X 16-Core Processor", "amd-ryzen-9-7950x"),
    ("AMD Ryzen 5 5600X 6-Core Processor", "amd-ryzen-5-5600x"),
    ("AMD EPYC 9554 64-Core Processor", "amd-epyc-9554"),
    ("Intel(R) Xeon(R) w9-3495X", "intel-xeon-w9-3495x"),
    ("Intel(R) Core(TM) Ultra 9 285K", "intel-core-ultra-9-285k"),
])
def test_match_cpu(detected: str, expected: str) -> None:
    part = match_cpu(load_catalog(), detected)
    assert part is not None and part.id == expected


def test_match_cpu_rejects_other_models() -> None:
    cat = load_catalog()
    assert match_cpu(cat, "13th Gen Intel(R) Core(TM) i9-13900KS") is None
    assert match_cpu(cat, "Intel(R) Core(TM) i5-12400") is None


def test_normalize_name() -> None:
    detected = "13th Gen Intel(R) Core(TM) i9-13900K @ 3.00GHz"
    assert normalize_name(detected) == "intel core i9 13900k"
