"""Spec peaks for the benchmark and the measured-vs-spec chart data."""

from __future__ import annotations

import pytest

from torchrig.bench.report import BenchReport, BenchResult, Measurement, Reference
from torchrig.bench.spec_compare import catalog_peaks, matmul_bars, peaks_lookup
from torchrig.catalog import load_catalog
from torchrig.hardware.model import GpuInfo, SystemProfile
from torchrig.i18n import Msg


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_peaks_of_a_detected_4090_come_from_the_catalog_and_the_link(catalog):
    profile = SystemProfile(gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 4090",
                                          vram_total_bytes=24 * 2**30, torch_device="cuda:0",
                                          pcie_gen_max=4, pcie_width_max=16)])
    peaks = peaks_lookup(catalog)("cuda:0", profile)
    part = catalog.get("nvidia-rtx-4090").gpu
    assert peaks["bf16"] == part.bf16_tensor_flops == pytest.approx(165.2e12)
    assert peaks["mem_bw"] == part.memory_bandwidth
    assert peaks["pcie_bps"] == pytest.approx(31.5e9, rel=0.001)
    assert peaks_lookup(catalog)("cpu", profile) is None


def test_an_unknown_gpu_has_only_its_link_peak():
    assert catalog_peaks(None, (3, 8)) == {"pcie_bps": pytest.approx(7.88e9)}
    assert catalog_peaks(None, (None, None)) is None


def test_matmul_bars_put_the_measurement_beside_spec_and_tier_gpus(catalog):
    measured = Measurement("bf16", Msg("BF16 matmul", "BF16"), 700e12, "FLOP/s",
                           Reference("spec_peak", Msg("H200 dense BF16", "H200"), "catalog",
                                     989.5e12))
    report = BenchReport(settings={}, started="2026-01-01T00:00:00+00:00", device="cuda:0",
                         device_name="NVIDIA H200",
                         results=[BenchResult(id="matmul", title=Msg("m", "m"),
                                              measurements=[measured])])
    bars = matmul_bars(report, catalog)
    kinds = [b.kind for b in bars]
    assert kinds[:2] == ["measured", "spec"] and kinds.count("tier") == 3
    assert bars[0].flops == 700e12 and bars[1].flops == 989.5e12
    entry = next(b for b in bars if b.kind == "tier" and "1660" in b.label.en)
    assert "no TC" in entry.label.en  # the seed's entry GPU has no tensor cores
