"""HGX B200 (SXM6) GPUs and the DGX B200 system: socket generations, whole-system power, the
sample build."""

from __future__ import annotations

import datetime
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.capabilities import from_build
from torchrig.builds.compat import check_build
from torchrig.builds.part_fit import compatible_parts
from torchrig.builds.pricing import price_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "builds" / "hgx-b200.json"

# The DGX B200 with its own CPUs, memory (one RDIMM per channel), drives and one NIC per GPU.
HOST = [("intel-xeon-platinum-8570", 2), ("samsung-96gb-ddr5-5600-rdimm-m321ryga0pb0-cwm", 16),
        ("samsung-pm9d3a-7-68tb-mzwl67t6hblc", 4), ("nvidia-connectx-7-ndr-osfp", 8)]


def _build(*lines: tuple[str, int]) -> Build:
    return Build(name="t", line_items=[LineItem(part_id=pid, quantity=q) for pid, q in lines])


def _dgx(gpu: str = "nvidia-b200-sxm", board: str = "nvidia-dgx-b200") -> Build:
    return _build((gpu, 8), (board, 1), *HOST)


def _variant(cat: Catalog, new_id: str, **board_changes: Any) -> Catalog:
    """The catalog plus a copy of the DGX B200 under ``new_id`` with some board fields changed."""
    base = cat.get("nvidia-dgx-b200")
    part = replace(base, id=new_id, specs=replace(base.motherboard, **board_changes))
    return Catalog(parts={**cat.parts, new_id: part}, tiers=cat.tiers,
                   seed_rules=cat.seed_rules, sources=cat.sources)


def _only(findings: list[Finding], code: str) -> Finding:
    matching = [f for f in findings if f.code == code]
    assert len(matching) == 1, [f.code for f in findings]
    return matching[0]


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


# What one DGX B200 ships with (NVIDIA DGX B200 user guide, "Component Descriptions"): catalog
# parts by id, the rest (memory and drives, whose models NVIDIA does not name) by their text.
DGX_CONTENTS = {"nvidia-b200-sxm": 8, "intel-xeon-platinum-8570": 2,
                "nvidia-connectx-7-ndr-osfp": 8, "nvidia-bluefield-3-b3240": 2,
                "2 TB in 32 DDR5 DIMMs": 32, "1.92 TB NVMe M.2": 2, "3.84 TB NVMe U.2": 8}
SYSTEM_PRICE = Decimal("515000")  # USD 515K, reported 2025-03-16 (see the build's system line)


def _content_key(item: LineItem) -> str:
    if item.part_id is not None:
        return item.part_id
    return next(key for key in DGX_CONTENTS if key in item.text)


def test_sample_build_is_clean(cat: Catalog) -> None:
    # No case, cooler or PSU is missing: the system ships with its chassis and six supplies.
    assert check_build(load_build(SAMPLE, cat), cat) == []


def test_sample_build_lists_what_the_system_ships_with(cat: Catalog) -> None:
    build = load_build(SAMPLE, cat)
    contents = {_content_key(item): item.quantity for item in build.line_items
                if item.part_id != "nvidia-dgx-b200"}
    assert contents == DGX_CONTENTS


def test_sample_build_is_priced_once_as_a_whole_system(cat: Catalog) -> None:
    build = load_build(SAMPLE, cat)
    priced = price_build(build, cat, today=datetime.date(2026, 11, 30))
    assert not priced.incomplete and priced.missing_price_lines == ()
    assert [line.status for line in priced.lines] == ["ok"] * len(build.line_items)
    system = next(item for item in build.line_items if item.part_id == "nvidia-dgx-b200")
    assert (system.unit_price, system.currency, system.price_date) == (SYSTEM_PRICE, "USD",
                                                                         "2025-03-16")
    assert system.price_source.startswith("reported figure: USD 515K")
    # Everything inside the system is listed at 0 and says so, so nothing is counted twice.
    for item in build.line_items:
        if item is not system:
            assert item.unit_price == 0 and item.currency == "USD", item
            assert item.price_source.startswith("included in the DGX B200 system price"), item
    assert priced.total == SYSTEM_PRICE
    # The figure is older than six months: the quote says so on the system line only.
    stale = [i for i, line in enumerate(priced.lines)
             if any(a.code == "price.stale" for a in line.alerts)]
    assert stale == [build.line_items.index(system)]


def test_b200_on_its_own_system_passes(cat: Catalog) -> None:
    # A build quoted in CNY (the default) also gets the export-control warning for the B200
    # (TPP 36,000, tests/builds/test_export_tpp.py); quoted in USD nothing is found.
    assert check_build(replace(_dgx(), currency="USD"), cat) == []
    assert [f.code for f in check_build(_dgx(), cat)] == ["export.us_controls"]


def test_b200_on_a_pcie_board_is_a_blocker(cat: Catalog) -> None:
    findings = check_build(_build(("nvidia-b200-sxm", 8), ("asrock-rack-4u8g-turin2", 1),
                                  ("amd-epyc-9554", 2)), cat)
    sxm = _only(findings, "compat.sxm")
    assert sxm.severity is Severity.BLOCKER
    assert sxm.numbers == {"gpus": 8.0, "sockets": 0.0}


def test_b200_on_an_sxm5_baseboard_is_a_blocker(cat: Catalog) -> None:
    test_cat = _variant(cat, "test-hgx-h100-board", sxm_gpu_form="sxm5")
    gen = _only(check_build(_dgx(board="test-hgx-h100-board"), test_cat),
                "compat.sxm_generation")
    assert gen.severity is Severity.BLOCKER
    assert "SXM6 module" in gen.detail.en and "SXM5 module" in gen.detail.en
    assert "SXM6 模组" in gen.detail.zh and "SXM5 模组" in gen.detail.zh
    assert gen.numbers == {"gpus": 8.0}


@pytest.mark.parametrize(("gpu", "label"), [("nvidia-h100-sxm", "SXM5 module"),
                                            ("nvidia-a100-80gb-sxm", "SXM4 module"),
                                            ("amd-instinct-mi300x", "OAM module")])
def test_other_socketed_gpus_on_the_sxm6_system_are_blockers(cat: Catalog, gpu: str,
                                                             label: str) -> None:
    gen = _only(check_build(_dgx(gpu=gpu), cat), "compat.sxm_generation")
    assert gen.severity is Severity.BLOCKER
    assert f"is an {label}" in gen.detail.en and "SXM6 module" in gen.detail.en


def test_a_baseboard_of_unknown_generation_is_not_guessed(cat: Catalog) -> None:
    test_cat = _variant(cat, "test-hgx-unknown-board", sxm_gpu_form=None)
    codes = {f.code for f in check_build(_dgx(gpu="nvidia-h100-sxm",
                                              board="test-hgx-unknown-board"), test_cat)}
    assert "compat.sxm_generation" not in codes and "compat.sxm" not in codes


def test_power_is_judged_by_the_redundant_rating(cat: Catalog) -> None:
    dgx = cat.get("nvidia-dgx-b200").motherboard
    assert (dgx.integrated_psu_w, dgx.redundant_psu_w) == (19800, 16500)  # 6 x 3.3 kW, 5+1
    # 8 x 1,000 W + 150 W for the rest (the 8570's power is unknown) = 8,150 W; x1.3 = 10,595 W.
    # All six supplies (19.8 kW) would cover it; with one failed, 10 kW would not.
    test_cat = _variant(cat, "test-dgx-10kw", redundant_psu_w=10_000)
    head = _only(check_build(_dgx(board="test-dgx-10kw"), test_cat), "compat.psu_headroom")
    assert head.numbers["psu_w"] == 10_000
    assert head.numbers["load_w"] == 8150 and head.numbers["gpu_w"] == 8000
    assert "(built-in, redundant)" in head.detail.en
    assert "Xeon Platinum 8570 is unknown and not counted" in head.detail.en
    short_cat = _variant(cat, "test-dgx-8kw", redundant_psu_w=8_000)
    short = _only(check_build(_dgx(board="test-dgx-8kw"), short_cat), "compat.psu")
    assert short.severity is Severity.BLOCKER and short.numbers["psu_w"] == 8_000


def test_picker_offers_only_sxm6_gpus_for_the_system(cat: Catalog) -> None:
    gpus = cat.by_category("gpu")
    fits = compatible_parts(gpus, load_build(SAMPLE, cat), cat)
    assert "nvidia-b200-sxm" in fits
    assert not fits & {"nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-a100-80gb-sxm",
                       "amd-instinct-mi300x", "nvidia-rtx-4090", "nvidia-l40s"}


def test_b200_build_is_an_nvlink_machine(cat: Catalog) -> None:
    caps = from_build(load_build(SAMPLE, cat), cat)
    assert caps.gpu_count == 8 and caps.gpu_interconnect == "nvlink"


def test_b200_dense_tensor_figures_are_marked_derived(cat: Catalog) -> None:
    b200 = cat.get("nvidia-b200-sxm")
    for field in ("fp16_tensor_flops", "bf16_tensor_flops", "tf32_tensor_flops", "fp32_flops"):
        assert b200.is_derived(field), field
    # NVIDIA's 36 PFLOPS* (with sparsity) for 8 GPUs: 4,500 sparse, 2,250 dense per GPU.
    assert b200.gpu.fp16_tensor_sparse_flops == pytest.approx(2 * b200.gpu.fp16_tensor_flops)
    assert "8x SXM6" in cat.get("nvidia-dgx-b200").key_spec("en")
