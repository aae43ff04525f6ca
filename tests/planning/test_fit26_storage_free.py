"""`check this --workload`: a dataset larger than this machine's free disk space (issue 26).
The total a workload needs is the planner's (dataset + model file + checkpoints); the free
space is what the disk probe reports for the local drives."""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchrig.builds.capabilities import from_profile
from torchrig.catalog import load_catalog
from torchrig.findings import Severity
from torchrig.hardware.model import CpuInfo, DiskInfo, GpuInfo, MemoryInfo, SystemProfile
from torchrig.planning.analysis import analyze
from torchrig.planning.workload import default_workload
from torchrig.units import TB, GiB


def _this(*disks: DiskInfo):  # type: ignore[no-untyped-def]
    profile = SystemProfile(
        cpu=CpuInfo(model_name="Test CPU", physical_cores=16, logical_cpus=32),
        memory=MemoryInfo(total_bytes=64 * GiB, swap_total_bytes=8 * GiB),
        gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vendor="NVIDIA",
                      vram_total_bytes=24 * GiB, compute_capability="8.9", pcie_gen_max=4,
                      pcie_width_max=16)],
        disks=list(disks))
    return from_profile(profile, load_catalog())


def _workload():  # type: ignore[no-untyped-def]
    w = default_workload("image_classification")
    # 20 million samples of 100 kB: a 2 TB dataset (2e7 x 1e5 B = 2e12 B).
    return replace(w, dataset=replace(w.dataset, samples=20_000_000, sample_bytes=100_000))


def _found(caps):  # type: ignore[no-untyped-def]
    return {f.code: f for f in analyze(_workload(), caps, load_catalog()).findings}


def test_a_dataset_larger_than_the_free_space() -> None:
    caps = _this(DiskInfo(mountpoint="/data", kind="nvme", total_bytes=4 * TB,
                          free_bytes=1 * TB))
    assert caps.storage_free_bytes == 1 * TB
    finding = _found(caps)["analysis.storage_free"]
    assert finding.severity is Severity.WARNING
    assert finding.numbers["storage_free"] == 1 * TB
    # The dataset alone is 2e12 B; the model file and checkpoints come on top.
    assert finding.numbers["storage_needed"] > 2e12
    assert "has 1.0 TB free on its local drives" in finding.detail.en


def test_enough_free_space_or_free_space_unknown() -> None:
    roomy = _this(DiskInfo(mountpoint="/data", kind="nvme", total_bytes=4 * TB,
                           free_bytes=3 * TB))
    assert "analysis.storage_free" not in _found(roomy)
    # Two drives: their free space adds up (1.5 + 1.5 TB = 3 TB > the 2 TB dataset).
    two = _this(DiskInfo(mountpoint="/a", kind="nvme", total_bytes=2 * TB, free_bytes=1.5 * TB),
                DiskInfo(mountpoint="/b", kind="sata-ssd", total_bytes=2 * TB,
                         free_bytes=1.5 * TB))
    assert two.storage_free_bytes == 3 * TB
    assert "analysis.storage_free" not in _found(two)
    # A drive whose free space the probe could not read: not judged.
    unknown = _this(DiskInfo(mountpoint="/data", kind="nvme", total_bytes=4 * TB))
    assert unknown.storage_free_bytes is None
    assert "analysis.storage_free" not in _found(unknown)


@pytest.mark.parametrize("total", [1 * TB])
def test_too_small_a_drive_stays_the_blocker(total: float) -> None:
    caps = _this(DiskInfo(mountpoint="/data", kind="nvme", total_bytes=int(total),
                          free_bytes=int(total)))
    found = _found(caps)
    assert found["analysis.storage_size"].severity is Severity.BLOCKER
    assert "analysis.storage_free" not in found  # one finding, the stronger one
