"""The export-control check follows ECCN 3A090.a.1 from the catalog's figures (issue 25).

The rule (BIS interim final rule, Federal Register document 2023-23055, published 2023-10-25,
https://www.federalregister.gov/d/2023-23055): 3A090.a.1 covers chips with a 'total processing
performance' (TPP) of 4800 or more; TPP = 2 x MacTOPS x bit length, i.e. a dense datasheet
TFLOPS/TOPS figure times its bit length, the highest over the chip's operations, sparsity not
counted. Every TPP below is worked out by hand from the vendor figure written beside it, not
read from the code.
"""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.compat import check_build
from torchrig.builds.export_tpp import TPP_THRESHOLD, gpu_tpp
from torchrig.catalog import load_catalog
from torchrig.catalog.loader import default_resources_dir
from torchrig.findings import Severity

ROOT = default_resources_dir().parent


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _export(catalog, part_id: str, currency: str = "CNY") -> list:
    build = Build(name="t", currency=currency, line_items=[LineItem(part_id=part_id)])
    return [f for f in check_build(build, catalog) if f.code == "export.us_controls"]


def test_the_threshold_is_the_rules() -> None:
    assert TPP_THRESHOLD == 4800


def test_h100_sxm(catalog) -> None:
    # NVIDIA H100 SXM datasheet (HPCTECH copy): FP8 Tensor Core 3,958 TFLOPS "shown with
    # sparsity" -> 1,979 dense; 1,979 x 8 = 15,832. (FP16 1,979* -> 989.5 x 16 = 15,832 too.)
    tpp = gpu_tpp(catalog.get("nvidia-h100-sxm"))
    assert tpp is not None and tpp.low == pytest.approx(15_832)
    assert tpp.high == tpp.low and tpp.status == "over"
    [finding] = _export(catalog, "nvidia-h100-sxm")
    assert "15,832" in finding.detail.en and finding.numbers["tpp"] == pytest.approx(15_832)


def test_b200_is_found_without_a_list_entry(catalog) -> None:
    # NVIDIA Blackwell datasheet (BW-DS): FP4 18 PFLOPS and FP8 9 PFLOPS, "all Tensor Core
    # numbers except FP64 with sparsity" -> 9,000 and 4,500 dense; 9,000 x 4 = 4,500 x 8
    # = 36,000 >= 4,800. The shipped list does not name the B200.
    tpp = gpu_tpp(catalog.get("nvidia-b200-sxm"))
    assert tpp is not None and tpp.low == pytest.approx(36_000) and tpp.status == "over"
    [finding] = _export(catalog, "nvidia-b200-sxm")
    assert finding.severity is Severity.WARNING
    assert finding.title.en == "NVIDIA B200 SXM6 180GB (HGX) is under US export controls for China"
    assert "36,000" in finding.detail.en and "36,000" in finding.detail.zh
    assert "3A090.a.1" in finding.detail.en and "2023-23055" in finding.source.en
    assert "https://www.federalregister.gov/d/2023-23055" in finding.source.zh
    # A datacenter part: the list's China-market datacenter cards.
    assert finding.fix.en == ("Quote a China-market alternative instead: NVIDIA L20 48GB PCIe, "
                              "NVIDIA L2 24GB PCIe.")


def test_the_hgx_b200_sample_quoted_in_cny_is_told(catalog) -> None:
    # The case: builds/hgx-b200.json switched to CNY reported no problem.
    build = load_build(ROOT / "builds" / "hgx-b200.json")
    build.currency = "CNY"
    codes = [(f.code, f.title.en) for f in check_build(build, catalog)]
    assert ("export.us_controls",
            "NVIDIA B200 SXM6 180GB (HGX) is under US export controls for China") in codes


def test_rtx_4090_is_decided_by_the_list(catalog) -> None:
    # Ada whitepaper (ADA-WP): FP16 tensor 165.2 TFLOPS with FP32 accumulate (the catalog's
    # figure), twice that with FP16 accumulate. root.cz (2023-12-29): 1,321 dense INT4 TOPS x 4
    # = 5,284; PC Gamer: 5,286. The catalog's own figures give 165.2 x 16 = 2,643.2, at most
    # 2 x 2,643.2 = 5,286.4: 4,800 lies between, so the shipped list names it.
    tpp = gpu_tpp(catalog.get("nvidia-rtx-4090"))
    assert tpp is not None and tpp.half_rate
    assert (tpp.low, tpp.high) == (pytest.approx(2_643.2), pytest.approx(5_286.4))
    assert tpp.status == "undecided" and tpp.low < 5_284 <= tpp.high
    [finding] = _export(catalog, "nvidia-rtx-4090")
    assert finding.title.en == "NVIDIA GeForce RTX 4090 is under US export controls for China"
    assert "5,286" in finding.detail.en            # the list's note
    assert "RTX 4090 D" in finding.fix.en


def test_rtx_4090d_is_not_flagged(catalog) -> None:
    # hmc-tech.com (TechPowerUp's figures for the RTX 4090 D): INT8 588.35 TOPS Tensor, dense,
    # = FP8 with FP16 accumulate; 588.35 x 8 = 4,706.8 < 4,800: NVIDIA cut it to 114 SMs to stay
    # under. The catalog's FP8 with FP32 accumulate is 294.2: 294.2 x 8 = 2,353.6, at most
    # 2 x 2,353.6 = 4,707.2, under 4,800 either way.
    tpp = gpu_tpp(catalog.get("nvidia-rtx-4090d"))
    assert tpp is not None and tpp.high == pytest.approx(4_707.2)
    assert tpp.high == pytest.approx(4_706.8, abs=1) and tpp.status == "under"
    assert _export(catalog, "nvidia-rtx-4090d") == []


def test_rtx_5090d_is_not_flagged(catalog) -> None:
    # 2,375 "AI TOPS" (FP4 with sparsity) -> 1,187.5 dense FP4 x 4 = 4,750 (znews.vn: TPP 4,750).
    tpp = gpu_tpp(catalog.get("nvidia-rtx-5090d"))
    assert tpp is not None and tpp.low == pytest.approx(4_750) and tpp.status == "under"
    assert _export(catalog, "nvidia-rtx-5090d") == []


def test_a_card_clearly_below(catalog) -> None:
    # RTX 4060 Ti 16GB: NVIDIA's 353 AI TOPS (FP8 with sparsity and FP16 accumulate, NVIDIA's
    # compare page) -> 176.5 dense; 176.5 x 8 = 1,412, under even the 1,600 of 3A090.a.2.
    tpp = gpu_tpp(catalog.get("nvidia-rtx-4060-ti-16gb"))
    assert tpp is not None and tpp.high == pytest.approx(1_412) and tpp.status == "under"
    assert _export(catalog, "nvidia-rtx-4060-ti-16gb") == []


def test_a_usd_build_is_not_checked(catalog) -> None:
    assert _export(catalog, "nvidia-b200-sxm", currency="USD") == []


def test_a_part_without_a_dense_figure_has_no_tpp(catalog) -> None:
    # The H200 NVL's tensor figures are unknown in the catalog (the list names it); a CPU is
    # no GPU.
    assert gpu_tpp(catalog.get("nvidia-h200-nvl")) is None
    assert gpu_tpp(catalog.get("intel-core-i9-13900k")) is None


# Which catalog GPUs a CNY build is warned about, each with its reason worked out by hand:
# TPP = dense figure x bits >= 4,800 (3A090.a.1), or the shipped list names it.
FLAGGED = {
    "nvidia-a100-40gb-pcie": "FP16 312 x 16 = 4,992",
    "nvidia-a100-80gb-sxm": "FP16 312 x 16 = 4,992",
    "nvidia-h100-pcie": "FP8 3,026* / 2 = 1,513 x 8 = 12,104",
    "nvidia-h100-sxm": "FP8 1,979 x 8 = 15,832",
    "nvidia-h100-nvl": "FP8 1,671 x 8 = 13,368",
    "nvidia-h200-sxm": "FP8 1,979 x 8 = 15,832",
    "nvidia-h200-nvl": "listed (January 2026 H200 rule); no tensor figure in the catalog",
    "nvidia-b200-sxm": "FP4 9,000 x 4 = 36,000",
    "nvidia-l40s": "FP8 733 x 8 = 5,864",
    "nvidia-l4": "listed: TPP 1,936 but performance density 6.6 >= 5.92 (3A090.a.2)",
    "nvidia-h20": "listed (April 2025 licence requirement); TPP 296 x 8 = 2,368",
    "nvidia-rtx-4090": "listed: TPP 5,286 at the FP16-accumulate rate the catalog lacks",
    "nvidia-rtx-5090": "FP4 1,676 x 4 = 6,704",
    "nvidia-rtx-6000-ada": "FP8 1,457* / 2 = 728.5 x 8 = 5,828",
    "nvidia-rtx-pro-6000-blackwell": "FP4 4,000* / 2 = 2,000 x 4 = 8,000",
    "nvidia-rtx-pro-6000-blackwell-max-q": "FP4 1,761.6 x 4 = 7,046.4",
    "amd-instinct-mi250x": "FP16 383 x 16 = 6,128",
    "amd-instinct-mi300x": "FP8 2,614.9 x 8 = 20,919.2",
    "amd-instinct-mi325x": "FP8 2,614.9 x 8 = 20,919.2",
}


def test_exactly_these_catalog_gpus_are_flagged_in_a_cny_build(catalog) -> None:
    gpus = sorted(pid for pid, p in catalog.parts.items() if p.category == "gpu")
    flagged = {pid for pid in gpus if _export(catalog, pid)}
    assert flagged == set(FLAGGED)


def test_no_shipped_gpu_is_left_undecided(catalog) -> None:
    # Every GPU whose catalog figures cannot decide 3A090.a.1 is named by the shipped list, so
    # a CNY quote never gets the "may be" warning for a shipped part.
    for pid, part in catalog.parts.items():
        found = _export(catalog, pid) if part.category == "gpu" else []
        assert all("may be" not in f.title.en for f in found), pid


def test_the_china_market_alternatives_are_under_the_threshold(catalog) -> None:
    for pid in ("nvidia-rtx-4090d", "nvidia-rtx-5090d-v2", "nvidia-l20", "nvidia-l2"):
        tpp = gpu_tpp(catalog.get(pid))
        assert tpp is not None and tpp.status == "under", pid
        assert tpp.high < TPP_THRESHOLD, pid
