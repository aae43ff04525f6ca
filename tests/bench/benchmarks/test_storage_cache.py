"""Reading from the disk, not the page cache (issue 27): O_DIRECT, eviction checked with
mincore, the fallback when O_DIRECT is refused, and the virtual-machine note.

The residency figures are the kernel's own answers about a file this test wrote and evicted
(mincore after posix_fadvise DONTNEED), not timings, so they do not depend on the load.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from torchrig.bench.benchmarks import storage, storage_cache
from torchrig.bench.runner import run_suite
from torchrig.bench.settings import BenchSettings
from torchrig.units import MiB

linux_only = pytest.mark.skipif(not hasattr(os, "posix_fadvise"), reason="needs posix_fadvise")


def _file(tmp_path: Path, size: int = 2 * MiB) -> Path:
    path = tmp_path / "f.bin"
    path.write_bytes(os.urandom(size))
    return path


@linux_only
def test_a_written_file_is_resident_and_evicted_after_dontneed(tmp_path):
    path = _file(tmp_path)
    assert storage_cache.resident_share(path) == 1.0  # just written: every page in memory
    fd = os.open(path, os.O_RDONLY)
    try:
        assert storage_cache.evict(fd) is True
    finally:
        os.close(fd)
    assert storage_cache.resident_share(path) == 0.0
    # asking does not fault pages in
    assert storage_cache.resident_share(path) == 0.0
    path.read_bytes()  # a buffered read brings them back
    assert storage_cache.resident_share(path) == 1.0


@linux_only
def test_an_empty_or_missing_file_has_no_residency(tmp_path):
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert storage_cache.resident_share(empty) is None
    assert storage_cache.resident_share(tmp_path / "missing") is None


def test_direct_reads_fill_an_aligned_buffer_and_leave_the_cache_alone(tmp_path):
    path = _file(tmp_path, 3 * MiB)
    fd0 = os.open(path, os.O_RDONLY)
    storage_cache.evict(fd0)
    os.close(fd0)
    fd = storage_cache.open_direct(path)
    if fd is None:
        pytest.skip("O_DIRECT refused by this filesystem")
    buf = storage_cache.aligned_buffer(MiB)
    checks = []
    try:
        assert storage_cache.read_all(fd, buf, lambda: checks.append(1)) == 3 * MiB
    finally:
        os.close(fd)
        buf.close()
    assert len(checks) == 3  # one check per 1 MiB read
    assert storage_cache.resident_share(path) == 0.0  # O_DIRECT did not fill the cache


def test_vm_detection_reads_the_hypervisor_flag():
    assert storage_cache.host_may_cache({"hypervisor", "avx2"}) is True


def _storage(tmp_path: Path):
    report = run_suite(BenchSettings(preset="smoke", dataset_dir=tmp_path, only=("storage",),
                                     budget_s=120.0),
                       cancel=threading.Event(), detect=False, watch_machine=False)
    return report.results[0]


@linux_only
def test_where_o_direct_is_refused_the_eviction_is_checked_before_reading(tmp_path,
                                                                         monkeypatch):
    monkeypatch.setattr(storage, "open_direct", lambda path: None)
    result = _storage(tmp_path)
    seq = result.measurement("seq_read")
    assert seq.details["direct_io"] is False
    assert seq.details["resident_before_read"] == 0.0  # evicted, and the kernel confirms it
    assert seq.details["cached"] is False
    assert any("checked empty with mincore" in n.en for n in seq.notes)


@linux_only
def test_a_file_that_stays_cached_is_flagged(tmp_path, monkeypatch):
    # eviction that does nothing (a filesystem ignoring DONTNEED): mincore sees every page
    monkeypatch.setattr(storage, "open_direct", lambda path: None)
    monkeypatch.setattr(storage, "_drop_cache", lambda fd: (os.fsync(fd), True)[1])
    result = _storage(tmp_path)
    seq = result.measurement("seq_read")
    assert seq.details["cached"] is True
    assert seq.details["resident_before_read"] == 1.0
    assert any("100% of a test file was still in the page cache" in n.en for n in seq.notes)


def test_a_virtual_machine_says_its_host_may_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(storage, "host_may_cache", lambda features: True)
    result = _storage(tmp_path)
    seq = result.measurement("seq_read")
    assert seq.details["host_may_cache"] is True
    assert any("its host may cache the disk image" in n.en for n in seq.notes)
    monkeypatch.setattr(storage, "host_may_cache", lambda features: False)
    seq = _storage(tmp_path).measurement("seq_read")
    assert seq.details["host_may_cache"] is False
    assert not any("host may cache" in n.en for n in seq.notes)
