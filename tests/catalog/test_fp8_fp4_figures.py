"""Dense fp8 / fp4 (and the 16-bit / TF32 figures added with them) for the catalog GPUs that have
the tensor format (issue 24; docs/hardware-sources.md sec. 1 "fp8 and fp4" and notes 5.10, 5.11).

Every expected value below is the source's number, or the hand arithmetic from it written here;
none is read back from the catalog. "Dense" is without 2:4 sparsity; NVIDIA figures are with
FP32 accumulate (the catalog's conventions)."""

from __future__ import annotations

import pytest

from torchrig.catalog import load_catalog

TOMS = ("https://www.tomshardware.com/pc-components/gpus/new-nvidia-ai-gpus-designed-to-get-"
        "around-us-export-bans-come-to-china-h20-l20-and-l2-to-fill-void-left-by-restricted-models")
TOPCPU = ("https://www.topcpu.net/es/news/nvidia-launches-96gb-rtx-5090-model-with-a-whopping-"
          "price-tag-of-10000")
T = 1e12


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


# Figures the source prints dense (no arithmetic, so not marked derived):
# - Tom's Hardware's H20/L20/L2 table (the Vipera listings): "INT8 I FP8 Tensor 296 I 296 TFLOPS
#   | 239 I 239 TFLOPS | 193 I 193 TFLOPS", in the same table as the dense BF16/FP16 148 /
#   119.5 / 96.5 the catalog already holds (FP8 = 2 x FP16, so dense too).
# - AMD MI300X: the ROCm MI300 page's peak table (ROCM-MI300), "Matrix FP8 | 4096 | 2614.9" (FLOPS
#   per clock per CU, peak TFLOPS), beside its dense "Matrix FP16 | 2048 | 1307.4".
# - AMD MI325X: "FP8 Performance 2,614.9 TFLOPS", "FP8 with Sparsity 5,229.8 TFLOPS"
#   (awesomeagents.ai/hardware/amd-mi325x): 5,229.8 / 2 = 2,614.9, the same dense figure.
QUOTED_DENSE_FP8 = {
    "nvidia-h20": (296, TOMS),
    "nvidia-l20": (239, TOMS),
    "nvidia-l2": (193, TOMS),
    "amd-instinct-mi300x": (2614.9, "ROCM-MI300"),
    "amd-instinct-mi325x": (5229.8 / 2, "awesomeagents.ai/hardware/amd-mi325x"),
}


@pytest.mark.parametrize("pid", sorted(QUOTED_DENSE_FP8))
def test_fp8_printed_dense_by_the_source(cat, pid):
    value, source = QUOTED_DENSE_FP8[pid]
    part = cat.get(pid)
    assert part.gpu.fp8_tensor_flops == pytest.approx(value * T)
    assert source in part.field_sources["fp8_tensor_flops"]
    assert not part.is_derived("fp8_tensor_flops")


def test_l4_dense_figures(cat):
    """EPOCH (Epoch AI's dataset, citing NVIDIA's L4 datasheet): Tensor-FP16/BF16 121, TF32 60,
    INT8 242 dense. yobitel.com/knowledge-base/nvidia-l4: "121 TFLOPS BF16 (242 sparse), 242
    TFLOPS FP8 (485 sparse)"; store.sourcecode.com's listing: "TF32 Tensor Core 120 TFLOPS |
    Sparsity" -> 120 / 2 = 60, the same. FP8 = 2 x FP16, so FP32 accumulate is full rate (as on
    the L40S datasheet)."""
    part = cat.get("nvidia-l4")
    g = part.gpu
    assert part.field_sources["fp16_tensor_flops"] == part.field_sources["tf32_tensor_flops"] \
        == "EPOCH"
    assert not any(part.is_derived(a) for a in ("fp8_tensor_flops", "fp16_tensor_flops"))
    assert (g.fp8_tensor_flops, g.fp16_tensor_flops, g.bf16_tensor_flops) == (
        pytest.approx(242 * T), pytest.approx(121 * T), pytest.approx(121 * T))
    assert g.tf32_tensor_flops == pytest.approx(120 / 2 * T)
    assert g.fp16_tensor_sparse_flops == pytest.approx(2 * 121 * T)
    assert g.tensor_accumulate == "fp32"


def test_ada_cards_scaled_from_the_4090_by_tensor_cores_and_clock(cat):
    """Note 5.10: the RTX 4090's whitepaper FP8 with FP32 accumulate, 330.3 TFLOPS on 512 tensor
    cores at 2.520 GHz (ADA-WP), scaled by tensor cores x boost clock. RTX 4090 D: 456 cores at
    the same 2.52 GHz (guru3d) -> 330.3 x 456 / 512 = 294.17; RTX 4070 Ti: 240 at 2.610 GHz,
    RTX 4070: 184 at 2.475 GHz (club386's table)."""
    assert round(330.3 * 456 / 512, 1) == 294.2
    assert round(330.3 * 240 * 2.610 / (512 * 2.520), 1) == 160.4
    assert round(330.3 * 184 * 2.475 / (512 * 2.520), 1) == 116.6
    for pid, fp8 in (("nvidia-rtx-4090d", 294.2), ("nvidia-rtx-4070-ti", 160.4),
                     ("nvidia-rtx-4070", 116.6)):
        part = cat.get(pid)
        assert part.gpu.fp8_tensor_flops == pytest.approx(fp8 * T), pid
        assert part.is_derived("fp8_tensor_flops"), pid
        assert part.gpu.fp4_tensor_flops is None, pid  # Ada has no fp4 tensor format
    # A second route for the 4070: Epoch's dense INT8 for it, 233 TOPS (from TechPowerUp), is the
    # Ada FP8/INT8 rate with FP16 accumulate, twice the FP32-accumulate rate: 233 / 2 = 116.5.
    assert cat.get("nvidia-rtx-4070").gpu.fp8_tensor_flops == pytest.approx(233 / 2 * T,
                                                                            abs=0.15 * T)


def test_blackwell_geforce_from_ai_tops(cat):
    """Note 5.1 / 5.10: NVIDIA's AI TOPS (FP4 with sparsity) / 8 = FP8 with FP32 accumulate and
    / 2 = dense FP4, / 16 = FP16; checked on the RTX 5090: 3,352 / 8 = 419, 3,352 / 2 = 1,676,
    3,352 / 16 = 209.5 (RTX Blackwell whitepaper). RTX 5060: "614 AI TOPS" (pcguia.pt, quoting
    NVIDIA); RTX 5090 D and D V2: 2,375 AI TOPS (Tom's Hardware)."""
    assert (3352 / 8, 3352 / 2, 3352 / 16) == (419, 1676, 209.5)
    g = cat.get("nvidia-rtx-5060").gpu
    assert (g.fp8_tensor_flops, g.fp4_tensor_flops) == (pytest.approx(614 / 8 * T),
                                                        pytest.approx(614 / 2 * T))
    # 614 / 16 = 38.375, stored to one decimal like the other RTX 50 cards.
    assert g.fp16_tensor_flops == g.bf16_tensor_flops == pytest.approx(38.4 * T)
    assert g.tensor_accumulate == "fp32"
    for pid in ("nvidia-rtx-5090d", "nvidia-rtx-5090d-v2"):
        g = cat.get(pid).gpu
        # 2,375 / 8 = 296.875, stored 296.88 as the RTX 5080's 1,801 / 8 is stored 225.12.
        assert g.fp8_tensor_flops == pytest.approx(2375 / 8 * T, abs=0.01 * T), pid
        assert g.fp4_tensor_flops == pytest.approx(2375 / 2 * T), pid


def test_rtx_pro_6000_from_nvidias_4000_ai_tops(cat):
    """Note 5.11: NVIDIA's "4.000 TOPS (basado en precisión de FP4)" for the RTX PRO 6000
    (topcpu.net) is FP4 with sparsity: dense FP4 4,000 / 2 = 2,000, FP8 4,000 / 4 = 1,000,
    FP16/BF16 4,000 / 8 = 500, TF32 250, with FP32 accumulate at full rate on this professional
    card. Checked against TechPowerUp's figures on hmc-tech.com (2.02 PFLOPS FP4, 1.01 PFLOPS
    FP8 and 503.8 TFLOPS FP16 "Tensor (FP32 Accumulate)", 251.9 TF32), within 2 %."""
    part = cat.get("nvidia-rtx-pro-6000-blackwell")
    g = part.gpu
    assert (g.fp4_tensor_flops, g.fp8_tensor_flops, g.fp16_tensor_flops, g.bf16_tensor_flops,
            g.tf32_tensor_flops) == (pytest.approx(4000 / 2 * T), pytest.approx(4000 / 4 * T),
                                     pytest.approx(4000 / 8 * T), pytest.approx(4000 / 8 * T),
                                     pytest.approx(4000 / 16 * T))
    for mine, tpu in ((g.fp4_tensor_flops, 2020), (g.fp8_tensor_flops, 1010),
                      (g.fp16_tensor_flops, 503.8), (g.tf32_tensor_flops, 251.9)):
        assert mine == pytest.approx(tpu * T, rel=0.02)
    assert g.tensor_accumulate == "fp32"
    assert TOPCPU in part.field_sources["fp8_tensor_flops"]
    assert all(part.is_derived(a) for a in ("fp4_tensor_flops", "fp8_tensor_flops"))


# Note 5.11: the other desktop RTX PRO Blackwell cards scale the PRO 6000's figures by FP32 (the
# same 4 tensor cores per 128 CUDA cores on GB202 and GB203): FP32 110.1 (Max-Q), 54.94 (4500),
# 46.9 (4000) -- the catalog's FP32 from technical.city -- and 66.94 (5000, TechPowerUp:
# 14,080 x 2 x 2.377 GHz) against the PRO 6000's 125.
PRO_FP32 = {"nvidia-rtx-pro-6000-blackwell-max-q": 110.1, "nvidia-rtx-pro-4500-blackwell": 54.94,
            "nvidia-rtx-pro-4000-blackwell": 46.9, "nvidia-rtx-pro-5000-blackwell": 66.94}


@pytest.mark.parametrize("pid", sorted(PRO_FP32))
def test_rtx_pro_cards_scaled_by_fp32(cat, pid):
    r = PRO_FP32[pid] / 125
    part = cat.get(pid)
    g = part.gpu
    assert g.fp32_flops == pytest.approx(PRO_FP32[pid] * T)
    # Stored to one decimal, so compare within 0.05 TFLOPS.
    for attr, base in (("fp4_tensor_flops", 2000), ("fp8_tensor_flops", 1000),
                       ("fp16_tensor_flops", 500), ("bf16_tensor_flops", 500),
                       ("tf32_tensor_flops", 250)):
        assert getattr(g, attr) == pytest.approx(base * r * T, abs=0.05 * T), attr
        assert part.is_derived(attr), attr
    assert g.tensor_accumulate == "fp32"


def test_rtx_pro_4500_fp4_matches_techpowerup(cat):
    """hmc-tech.com (TechPowerUp's figures) gives the PRO 4500 "Tensor FP4 879 TFLOPS": the
    scaling gives 2,000 x 54.94 / 125 = 879.04. (Its FP8 with FP32 accumulate, 219.7, is half
    the FP16-accumulate 439.5 on that page; note 5.11 records the conflict.)"""
    assert round(2000 * 54.94 / 125, 1) == 879.0
    assert cat.get("nvidia-rtx-pro-4500-blackwell").gpu.fp4_tensor_flops == pytest.approx(879 * T)


def test_h100_nvl_fp8_and_tf32_from_its_fp16(cat):
    """The H100 NVL's dense FP16 835.5 (Epoch, citing NVIDIA PB-11773) x 2 for FP8 and / 2 for
    TF32: the Hopper ratios of the H100 SXM datasheet (FP8 3,958, FP16 1,979, TF32 989, all with
    sparsity; HPCTECH): 3,958 / 1,979 = 2 and 989 / 1,979 = 0.4997."""
    assert 3958 / 1979 == 2 and round(989 / 1979, 3) == 0.5
    part = cat.get("nvidia-h100-nvl")
    assert part.gpu.fp8_tensor_flops == pytest.approx(2 * 835.5 * T)
    assert part.gpu.tf32_tensor_flops == pytest.approx(835.5 / 2 * T)
    assert part.is_derived("fp8_tensor_flops") and part.is_derived("tf32_tensor_flops")


def test_unfound_figures_say_what_was_searched(cat):
    """No value is guessed: where no source gives the figure, the catalog says why."""
    part = cat.get("nvidia-h200-nvl")
    assert part.gpu.fp8_tensor_flops is None
    assert "searched" in part.unknown_fields["fp8_tensor_flops"]


FP8_ARCHITECTURES = ("Ada Lovelace", "Hopper", "Blackwell", "CDNA 3")


def test_every_gpu_with_the_format_has_a_figure_or_a_reason(cat):
    """Issue 24: every catalog GPU whose architecture computes fp8 on its tensor/matrix cores
    (Ada, Hopper, Blackwell; AMD CDNA 3) has a dense fp8 figure or a written reason it is
    unknown, and every Blackwell GPU the same for fp4 (NVFP4). Architectures without the format
    (Turing, Volta, Ampere, CDNA 2, RDNA 3) have neither: the catalog has no "not supported"
    value, and 0 would read as a figure."""
    missing = []
    for part in cat.by_category("gpu"):
        g = part.gpu
        if g.architecture in FP8_ARCHITECTURES:
            if g.fp8_tensor_flops is None and "fp8_tensor_flops" not in part.unknown_fields:
                missing.append((part.id, "fp8"))
        else:
            assert g.fp8_tensor_flops is None, part.id
        if g.architecture == "Blackwell":
            if g.fp4_tensor_flops is None and "fp4_tensor_flops" not in part.unknown_fields:
                missing.append((part.id, "fp4"))
        else:
            assert g.fp4_tensor_flops is None, part.id
    assert not missing


def test_fp8_is_twice_the_16_bit_rate_and_fp4_follows_the_accumulate_rule(cat):
    """A check by a second route: wherever both dense figures are present, FP8 = 2 x FP16/BF16
    (with FP32 accumulate; within rounding), as every datasheet in the catalog shows (H100
    3,958 / 1,979, L40S 733 / 362.05, RTX 4090 330.3 / 165.2, B200 4,500 / 2,250). On Blackwell,
    FP4 = 2 x FP8 where FP32 accumulate runs at full rate (B200, RTX PRO) and 4 x FP8 on
    GeForce, whose FP8 with FP32 accumulate runs at half rate (RTX 5090: 1,676 = 4 x 419)."""
    for part in cat.by_category("gpu"):
        g = part.gpu
        if g.fp8_tensor_flops is None or g.fp16_tensor_flops is None:
            continue
        assert g.fp8_tensor_flops == pytest.approx(2 * g.fp16_tensor_flops, rel=0.015), part.id
        if g.fp4_tensor_flops is not None:
            geforce = part.name.startswith("GeForce")
            assert g.fp4_tensor_flops == pytest.approx((4 if geforce else 2)
                                                       * g.fp8_tensor_flops, rel=0.01), part.id
