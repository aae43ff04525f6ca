"""Reading from the disk, not the page cache (issue 27): O_DIRECT, eviction checked with
mincore, the fallback when O_DIRECT is refused, and the virtual-machine note.

The residency figures are the kernel's own answers about a file this test wrote and evicted
(mincore after posix_fadvise DONTNEED), not timings, so they do not depend on the load.
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path
from types import SimpleNamespace

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


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
def test_the_read_buffer_is_private_anonymous_memory_as_fios_malloc(tmp_path):
    import ctypes

    buf = storage_cache.aligned_buffer(8 * MiB)
    anchor = ctypes.c_char.from_buffer(buf)
    try:
        address = ctypes.addressof(anchor)
        assert address % 4096 == 0  # page-aligned: O_DIRECT's requirement
        for line in Path("/proc/self/maps").read_text().splitlines():
            span, perms, *rest = line.split()
            low, high = (int(x, 16) for x in span.split("-"))
            if low <= address < high:
                # "rw-p" with no file: private anonymous (malloc's large blocks); a shared
                # one reads "rw-s /dev/zero (deleted)"
                assert perms == "rw-p", line
                assert len(rest) < 4 or not rest[3].startswith("/dev/zero"), line
                break
        else:
            pytest.fail("the buffer's mapping is not in /proc/self/maps")
    finally:
        del anchor
        buf.close()


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


def test_a_detected_profile_does_not_hide_the_virtual_machine(tmp_path, monkeypatch):
    # Detection keeps only torch's ISA features (hardware/cpu.py), never "hypervisor": a real
    # run - which has a profile - called every VM bare metal. The raw flags decide.
    from torchrig.hardware.model import SystemProfile

    profile = SystemProfile()
    profile.cpu.isa_features = ["avx2", "fma"]
    monkeypatch.setattr(storage, "cpu_flags", lambda: {"fpu", "avx2", "fma", "hypervisor"})
    monkeypatch.setattr(storage_cache, "_dmi_vm", lambda: False)
    report = run_suite(BenchSettings(preset="smoke", dataset_dir=tmp_path, only=("storage",),
                                     budget_s=120.0),
                       cancel=threading.Event(), profile=profile, detect=False,
                       watch_machine=False)
    seq = report.results[0].measurement("seq_read")
    assert seq.details["host_may_cache"] is True
    monkeypatch.setattr(storage, "cpu_flags", lambda: {"fpu", "avx2", "fma"})
    report = run_suite(BenchSettings(preset="smoke", dataset_dir=tmp_path, only=("storage",),
                                     budget_s=120.0),
                       cancel=threading.Event(), profile=profile, detect=False,
                       watch_machine=False)
    assert report.results[0].measurement("seq_read").details["host_may_cache"] is False


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


# --- fakes for what a filesystem or kernel may refuse or report (issue 27) -----------------


@linux_only
def test_o_direct_that_opens_but_refuses_to_read_falls_back_to_checked_eviction(tmp_path,
                                                                                monkeypatch):
    # Some filesystems accept O_DIRECT at open and fail the read with EINVAL (an alignment
    # they do not support): the reader must not give up, nor count what it read so far, but
    # read buffered after the mincore check.
    calls = []

    def einval(fd, buf, check):
        calls.append(fd)
        raise OSError(errno.EINVAL, "Invalid argument")

    monkeypatch.setattr(storage, "read_all", einval)
    seq = _storage(tmp_path).measurement("seq_read")
    assert calls, "the O_DIRECT path was tried"
    assert len(calls) == 1  # refused once: the other files are not tried O_DIRECT again
    assert seq.details["direct_io"] is False
    assert seq.details["bytes"] == seq.details["chunk_bytes"]  # the whole file, read once
    assert seq.details["resident_before_read"] == 0.0 and seq.details["cached"] is False
    assert any("O_DIRECT refused here" in n.en for n in seq.notes)
    assert any("此处不支持 O_DIRECT" in n.zh for n in seq.notes)


@linux_only
def test_mincore_showing_small_files_still_cached_flags_the_figures(tmp_path, monkeypatch):
    # The large file evicted, the small ones not (mincore's answer faked per file): the
    # worst file read decides, so the figure is flagged with that share.
    monkeypatch.setattr(storage, "open_direct", lambda path: None)
    monkeypatch.setattr(storage, "resident_share",
                        lambda path: 0.0 if path.name == "sequential.bin" else 0.3)
    result = _storage(tmp_path)
    seq, small = result.measurement("seq_read"), result.measurement("small_read")
    assert seq.details["resident_before_read"] == 0.0
    assert seq.details["cached"] is True and small.details["cached"] is True
    assert any("30% of a test file was still in the page cache" in n.en for n in seq.notes)
    assert any(n.en.startswith("cached:") for n in small.notes)


@linux_only
def test_mincore_below_the_threshold_counts_as_evicted(tmp_path, monkeypatch):
    # 4 % resident is under EVICTED_BELOW (5 %): a few pages the kernel keeps (a page the
    # filesystem's metadata shares) do not make the whole figure memory speed.
    monkeypatch.setattr(storage, "open_direct", lambda path: None)
    monkeypatch.setattr(storage, "resident_share", lambda path: 0.04)
    assert storage_cache.EVICTED_BELOW == 0.05
    seq = _storage(tmp_path).measurement("seq_read")
    assert seq.details["cached"] is False
    assert seq.details["resident_before_read"] == 0.04


@linux_only
def test_mincore_unavailable_is_not_taken_for_evicted(tmp_path, monkeypatch):
    # No mincore answer (None) and no O_DIRECT: the eviction cannot be checked, so the
    # figure must not claim "checked empty with mincore".
    monkeypatch.setattr(storage, "open_direct", lambda path: None)
    monkeypatch.setattr(storage, "resident_share", lambda path: None)
    seq = _storage(tmp_path).measurement("seq_read")
    assert seq.details["resident_before_read"] is None
    assert seq.details["cached"] is True
    assert any("could not be checked" in n.en for n in seq.notes)


CH = 64 * 1024


def _source() -> bytes:
    return os.urandom(CH + storage.PAGE)


@linux_only
def test_the_sequential_file_is_reserved_before_its_timed_write_as_fio_lays_it_out(tmp_path):
    # fio's default fallocate=native reserves a write job's blocks before its clock starts;
    # the suite does the same, so the timed writes land in allocated, unwritten extents.
    path = tmp_path / "seq.bin"
    seen = []

    def check():
        # during the writes the whole size is already allocated (st_blocks counts 512 B)
        seen.append(os.stat(path).st_blocks * 512)

    result = storage.write_sequential(path, 8 * CH, _source(), CH, check=check,
                                      stop=lambda done: False)
    assert result.bytes == 8 * CH == path.stat().st_size
    if not result.preallocated:
        pytest.skip("this filesystem refuses fallocate")
    assert min(seen) >= 8 * CH
    assert result.evicted is True and storage_cache.resident_share(path) == 0.0


@linux_only
def test_a_cut_sequential_file_ends_where_the_writing_stopped(tmp_path):
    # Stopped by the budget after 3 of 8 blocks: the reserved rest must not stay in the
    # file, or the read would count unwritten extents (zeros, no disk access) as read speed.
    path = tmp_path / "seq.bin"
    source = _source()
    result = storage.write_sequential(path, 8 * CH, source, CH, check=lambda: None,
                                      stop=lambda done: done >= 3 * CH)
    assert result.bytes == 3 * CH == path.stat().st_size
    data = path.read_bytes()
    # chunk i is the window of the source starting 8 * i bytes in
    assert data == source[0:CH] + source[8:8 + CH] + source[16:16 + CH]


def test_no_two_pages_written_are_alike(tmp_path):
    # A deduplicating or compressing store (a virtual disk's host, ZFS, btrfs) compares
    # blocks: the file must not repeat a 4 KiB page, as fio's scrambled buffers do not. The
    # old 8-byte stamp per chunk left every page but the first repeated in every chunk.
    path = tmp_path / "seq.bin"
    storage.write_sequential(path, 16 * CH, _source(), CH, check=lambda: None,
                             stop=lambda done: False)
    data = path.read_bytes()
    pages = [data[i:i + storage.PAGE] for i in range(0, len(data), storage.PAGE)]
    assert len(pages) == 16 * CH // 4096 and len(set(pages)) == len(pages)
    # and the whole suite's files: the small files share no page either
    payload = os.urandom(128 * 1024 + storage.PAGE)
    small = [bytes(storage.distinct_chunk(payload, 128 * 1024, i)) for i in range(64)]
    small_pages = [f[i:i + 4096] for f in small for i in range(0, len(f), 4096)]
    assert len(set(small_pages)) == len(small_pages)


def test_fallocate_refused_writes_without_reserving(tmp_path, monkeypatch):
    # A filesystem without fallocate (EOPNOTSUPP): fio goes on without ("fall back to none"),
    # so does the suite, and the figure says so.
    monkeypatch.setattr(storage, "preallocate", lambda fd, size: False)
    path = tmp_path / "seq.bin"
    result = storage.write_sequential(path, 4 * CH, _source(), CH, check=lambda: None,
                                      stop=lambda done: done >= 2 * CH)
    assert result.preallocated is False
    assert result.bytes == 2 * CH == path.stat().st_size
    write = _storage(tmp_path).measurement("seq_write")
    assert write.details["preallocated"] is False
    assert any("fallocate refused" in n.en for n in write.notes)


def test_preallocate_reports_a_refusing_libc(monkeypatch, tmp_path):
    calls = []

    def fallocate(*args):
        calls.append(args)
        return -1  # EOPNOTSUPP: errno set, -1 returned

    monkeypatch.setattr(storage_cache, "_libc", lambda: SimpleNamespace(fallocate=fallocate))
    monkeypatch.setattr(storage_cache.sys, "platform", "linux")
    fd = os.open(tmp_path / "f", os.O_CREAT | os.O_WRONLY)
    try:
        assert storage_cache.preallocate(fd, MiB) is False
        assert calls == [(fd, 0, 0, MiB)]  # fallocate(fd, mode 0, offset 0, length)
        assert os.fstat(fd).st_size == 0
    finally:
        os.close(fd)
    monkeypatch.setattr(storage_cache.sys, "platform", "darwin")
    assert storage_cache.preallocate(0, MiB) is False  # not Linux: never tried
    assert len(calls) == 1


@linux_only
def test_the_write_figure_names_the_reservation(tmp_path):
    write = _storage(tmp_path).measurement("seq_write")
    if write.details["preallocated"]:
        assert any("blocks reserved with fallocate before the clock" in n.en
                   for n in write.notes)
        assert any("fallocate 预留空间" in n.zh for n in write.notes)
    assert any("end_fsync=1" in n.en for n in write.notes)
