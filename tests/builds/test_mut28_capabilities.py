"""Capabilities facts docs/testing.md sec. 7.5 listed as not covered yet (issue 28): a drive of
unknown capacity, the fastest drive among drives of one kind where one states no read rate, a
detected GPU whose name, compute capability or memory is not its catalog entry's, a tier whose
storage kinds are not in rank order, and a one-GPU tier that names PCIe.

Part figures are the shipped catalog's (vendor specifications, sourced in resources/catalog):
Samsung 990 PRO 1 TB 7,450 MB/s sequential read, 990 EVO Plus 2 TB no read rate stated, WD Black
4 TB HDD 154 MB/s; the RTX 4090's catalog name is "GeForce RTX 4090" with 24 GB (24 x 2^30 B)
and compute capability 8.9. The ranking is STORAGE_RANK's, seed 2.3: hdd < network < sata-ssd <
nvme.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from catalog_variants import catalog_with

from torchrig.builds.build import Build, LineItem
from torchrig.builds.capabilities import from_build, from_profile, from_tier
from torchrig.catalog import load_catalog
from torchrig.hardware.model import GpuInfo, SystemProfile
from torchrig.i18n import Msg

PRO_1TB, EVO_PLUS_2TB = "samsung-990-pro-1tb", "samsung-990-evo-plus-2tb"
WD_HDD_4TB = "western-digital-black-4tb-wd4001faex"
RTX_4090 = "nvidia-rtx-4090"
GiB = 1024**3


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def _build(cat, *lines: tuple[str, int]):
    return from_build(Build(name="b", line_items=[LineItem(part_id=p, quantity=q)
                                                  for p, q in lines]), cat)


# --- drives in a build -----------------------------------------------------------------------


def test_the_shipped_drive_figures_these_tests_rest_on(cat) -> None:
    assert (cat.get(PRO_1TB).storage.kind, cat.get(PRO_1TB).storage.seq_read) == ("nvme", 7.45e9)
    assert (cat.get(EVO_PLUS_2TB).storage.kind, cat.get(EVO_PLUS_2TB).storage.seq_read) == (
        "nvme", None)
    assert (cat.get(WD_HDD_4TB).storage.kind, cat.get(WD_HDD_4TB).storage.seq_read) == (
        "hdd", 1.54e8)


def test_a_drive_of_unknown_capacity_adds_nothing_to_the_storage() -> None:
    cat = catalog_with(sizeless=(PRO_1TB, {"capacity_bytes": None}))
    alone = _build(cat, ("sizeless", 2))
    assert alone.storage_kind == "nvme" and alone.storage_bytes is None  # 2 x unknown
    # Beside a 4 TB hard disk: 4 x 10^12 B exactly, the unknown drive counted as nothing.
    beside = _build(cat, ("sizeless", 1), (WD_HDD_4TB, 1))
    assert beside.storage_bytes == 4 * 10**12
    assert beside.storage_kind == "nvme" and beside.storage_read_bps == 7.45e9  # the 990 PRO's


def test_of_two_nvme_drives_the_one_with_a_read_rate_is_the_fastest(cat) -> None:
    # Same kind (rank 3); a rate that is not stated ranks as 0, below 7,450 MB/s.
    for lines in (((EVO_PLUS_2TB, 1), (PRO_1TB, 1)), ((PRO_1TB, 1), (EVO_PLUS_2TB, 1))):
        caps = _build(cat, *lines)
        assert caps.storage_kind == "nvme"
        assert caps.storage_read_bps == 7.45e9
        assert caps.storage_bytes == 2 * 10**12 + 10**12
        assert caps.storage_read_basis == Msg("catalog sequential read of the fastest drive",
                                              "目录中最快硬盘的顺序读速度")


def test_the_kind_ranks_before_the_rate(cat) -> None:
    # An NVMe drive without a stated rate beside a hard disk of 154 MB/s: NVMe is the faster
    # kind, so the figure is the NVMe drive's, unknown, not the hard disk's 154 MB/s.
    caps = _build(cat, (WD_HDD_4TB, 1), (EVO_PLUS_2TB, 1))
    assert caps.storage_kind == "nvme" and caps.storage_read_bps is None
    assert caps.storage_bytes == 4 * 10**12 + 2 * 10**12


# --- a detected GPU and its catalog entry ----------------------------------------------------


def _machine(cat, **gpu: object):
    return from_profile(SystemProfile(gpus=[GpuInfo(index=0, vendor="NVIDIA", **gpu)]), cat)


def test_the_detected_name_is_kept_not_the_catalog_name(cat) -> None:
    # NVML reports "NVIDIA GeForce RTX 4090"; the catalog calls the part "GeForce RTX 4090"
    # and lists the NVML string among its match names.
    part = cat.get(RTX_4090)
    assert part.name == "GeForce RTX 4090" and "NVIDIA GeForce RTX 4090" in part.match_names
    caps = _machine(cat, name="NVIDIA GeForce RTX 4090", vram_total_bytes=24 * GiB)
    assert caps.gpu_part == part
    assert caps.gpu_name == "NVIDIA GeForce RTX 4090"


def test_the_detected_compute_capability_wins_and_fills_in_for_the_catalog() -> None:
    # The catalog entry with no compute capability stated: the detected "8.9" is the figure.
    cat = catalog_with(**{RTX_4090: (RTX_4090, {"compute_capability": None})})
    caps = _machine(cat, name="NVIDIA GeForce RTX 4090", vram_total_bytes=24 * GiB,
                    compute_capability="8.9")
    assert caps.gpu_part is not None and caps.gpu_part.gpu.compute_capability is None
    assert caps.compute_capability == "8.9"


def test_a_card_whose_memory_is_not_the_catalog_models_is_not_matched(cat) -> None:
    # A 48 GB card reporting the RTX 4090's name (the re-worked 48 GB boards sold in China):
    # 48 GiB is 100 % over the 24 GiB nominal, beyond the 10 % tolerance (catalog/matching.py),
    # so it is a different card and no catalog peak is claimed for it.
    caps = _machine(cat, name="NVIDIA GeForce RTX 4090", vram_total_bytes=48 * GiB)
    assert caps.gpu_part is None and caps.tensor_flops is None
    assert caps.vram_per_gpu_bytes == 48 * GiB
    assert caps.unknown["tensor_flops"] == Msg(
        "NVIDIA GeForce RTX 4090 is not in the catalog: no sourced peak figures",
        "NVIDIA GeForce RTX 4090 不在目录中：没有有出处的峰值数据")
    # 23 GiB (reserved memory) is within 10 % of 24 GiB: the catalog model.
    near = _machine(cat, name="NVIDIA GeForce RTX 4090", vram_total_bytes=23 * GiB)
    assert near.gpu_part == cat.get(RTX_4090)


# --- tiers -----------------------------------------------------------------------------------


def _tier(cat, **requirements: object):
    tier = cat.tier("entry")
    return replace(tier, parts=(), requirements=replace(tier.requirements, **requirements))


@pytest.mark.parametrize("kinds", [("nvme", "sata-ssd"), ("sata-ssd", "nvme"),
                                   ("hdd", "network", "sata-ssd")])
def test_a_tiers_fastest_storage_kind_is_by_rank_not_by_name(cat, kinds) -> None:
    # "sata-ssd" sorts after "nvme" and "network" after "hdd" by name; by rank (seed 2.3)
    # nvme > sata-ssd > network > hdd.
    expected = "nvme" if "nvme" in kinds else "sata-ssd"
    assert from_tier(_tier(cat, storage_kinds=kinds), cat).storage_kind == expected


def test_a_one_gpu_tier_that_names_pcie_is_a_pcie_tier(cat) -> None:
    one = _tier(cat, gpus_per_node=(1, 1), interconnect=("pcie",))
    assert from_tier(one, cat).gpu_interconnect == "pcie"
    ib = _tier(cat, gpus_per_node=(1, 1), interconnect=("infiniband",))
    assert from_tier(ib, cat).gpu_interconnect is None


# --- found by the run of these tests (docs/testing.md sec. 13) ----------------------------------


def test_a_cpu_that_states_no_core_count_or_power() -> None:
    cat = catalog_with(**{"test-cpu": ("intel-core-i9-13900k", {"cores": None, "tdp_w": None})})
    caps = _build(cat, ("test-cpu", 2))
    assert caps.cpu_cores is None and caps.cpu_tdp_w is None  # unknown, not 0 or a guess
    assert caps.unknown["cpu_cores"] == Msg("no such part", "没有这类部件")
    # The shipped part: 24 cores and 125 W base each, two of them.
    i9 = load_catalog().get("intel-core-i9-13900k").cpu
    assert (i9.cores, i9.tdp_w) == (24, 125.0)
    two = _build(load_catalog(), ("intel-core-i9-13900k", 2))
    assert (two.cpu_cores, two.cpu_tdp_w) == (48, 250.0)


def test_free_space_is_the_sum_over_local_drives_only_when_each_is_known() -> None:
    from torchrig.hardware.model import DiskInfo

    known = from_profile(SystemProfile(disks=[
        DiskInfo("/", kind="nvme", total_bytes=10**12, free_bytes=3 * 10**11),
        DiskInfo("/data", kind="hdd", total_bytes=4 * 10**12, free_bytes=10**12),
        DiskInfo("/mnt", kind="virtual", total_bytes=10**9, free_bytes=5)]))
    assert known.storage_free_bytes == 3 * 10**11 + 10**12  # the virtual disk is not local
    one_unknown = from_profile(SystemProfile(disks=[
        DiskInfo("/", kind="nvme", total_bytes=10**12, free_bytes=3 * 10**11),
        DiskInfo("/data", kind="hdd", total_bytes=4 * 10**12, free_bytes=None)]))
    assert one_unknown.storage_free_bytes is None
    full = from_profile(SystemProfile(disks=[DiskInfo("/", kind="nvme", free_bytes=0)]))
    assert full.storage_free_bytes == 0
