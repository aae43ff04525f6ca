"""Storage benchmark: plan shown first, files always removed, clear reasons on failure."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest
from honest import assert_complete_or_cut_by_budget, assert_figures_finite

from torchrig.bench.base import Progress
from torchrig.bench.benchmarks import storage
from torchrig.bench.runner import run_suite
from torchrig.bench.settings import BenchSettings
from torchrig.units import KiB, MiB


def _run(folder: Path, *, on_progress=None, cancel=None):
    # A 120 s suite budget gives storage about 19 s (weight 3 of the registry's 18.5): far
    # more than smoke's 9 MiB need on any machine, so no test depends on the load (issue 27).
    report = run_suite(BenchSettings(preset="smoke", dataset_dir=folder, only=("storage",),
                                     budget_s=120.0),
                       cancel=cancel or threading.Event(), on_progress=on_progress,
                       detect=False)
    return report.results[0]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_plan_is_known_before_starting(tmp_path: Path):
    settings = BenchSettings(preset="smoke", dataset_dir=tmp_path)
    assert storage.storage_plan(settings) == 8 * MiB + 16 * 64 * KiB
    assert storage.plan_for(settings).folder == tmp_path
    quick = storage.storage_plan(BenchSettings(preset="quick"))
    assert quick == 256 * MiB + 256 * 128 * KiB
    assert storage.plan_for(BenchSettings()).folder.is_dir()  # default: the temp folder


def test_success_removes_files(tmp_path: Path):
    """The smoke plan is 8 MiB sequential + 16 small files (test_plan_is_known_before_starting);
    a loaded machine may write fewer small files for the time budget, and the reason then
    says how many."""
    result = _run(tmp_path)
    assert_complete_or_cut_by_budget(result)
    assert_figures_finite(result)
    reason = result.reason.en if result.reason is not None else ""
    # The three figures come out together at the end, so "partial" still has all three.
    write, seq, small = (result.measurement(m) for m in ("seq_write", "seq_read", "small_read"))
    assert write.value > 0 and write.unit == "B/s"
    # Never cut at smoke size: the sequential file is one 8 MiB chunk, and the budget cut
    # keeps at least four.
    assert 8 * MiB == storage.CHUNK and write.details["bytes"] == 8 * MiB
    assert seq.value > 0
    assert seq.details["bytes"] == write.details["bytes"]  # reads back the file written
    # The read figure states its conditions: O_DIRECT where the filesystem allows it (as
    # fio's direct=1), else the cache eviction checked with mincore, read-ahead, access hint.
    conditions = " ".join(n.en for n in seq.notes)
    if seq.details["direct_io"]:
        assert "O_DIRECT" in conditions and "direct=1" in conditions
    else:
        assert "read-ahead" in conditions and "POSIX_FADV_SEQUENTIAL" in conditions
        assert "mincore" in conditions or seq.details["cached"]
    assert "read_ahead_kb" in seq.details
    written = 16
    if "small files written" in reason:  # "left out for the time budget: 5 small files ..."
        written = int(reason.split(" small files written")[0].rsplit(" ", 1)[-1])
        assert 4 <= written < 16
    assert small.value > 0 and small.details["files"] == written
    assert "fsync" in write.notes[0].en
    assert _leftovers(tmp_path) == []


def test_cancel_removes_files(tmp_path: Path):
    cancel = threading.Event()

    def on_progress(p: Progress) -> None:
        if p.step == 2:  # files written, about to read
            cancel.set()

    result = _run(tmp_path, on_progress=on_progress, cancel=cancel)
    assert result.status == "cancelled"
    assert _leftovers(tmp_path) == []


def test_error_while_reading_removes_files(tmp_path: Path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(storage, "_read_file", broken)
    monkeypatch.setattr(storage, "read_all", broken)  # the O_DIRECT path too
    result = _run(tmp_path)
    assert result.status.startswith("error: ")
    assert "Input/output error" in result.status
    assert _leftovers(tmp_path) == []


def test_unwritable_folder_is_reported(tmp_path: Path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(storage.tempfile, "mkdtemp", refuse)
    result = _run(tmp_path)
    assert result.status == f"error: folder {tmp_path} is not writable (Permission denied)"
    assert result.reason.zh.startswith("文件夹")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root can write into a read-only folder")
def test_really_read_only_folder(tmp_path: Path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        assert _run(folder).status.startswith(f"error: folder {folder} is not writable")
    finally:
        folder.chmod(0o700)


def test_disk_full_before_writing(tmp_path: Path, monkeypatch):
    real = storage.shutil.disk_usage

    def tiny(path):
        usage = real(path)
        return type(usage)(usage.total, usage.total - MiB, MiB)

    monkeypatch.setattr(storage.shutil, "disk_usage", tiny)
    result = _run(tmp_path)
    assert result.status.startswith("error: disk full")
    assert _leftovers(tmp_path) == []


def test_disk_full_while_writing_removes_files(tmp_path: Path, monkeypatch):
    calls = {"n": 0}
    real = storage._drop_cache

    def full(fd: int) -> bool:
        calls["n"] += 1
        if calls["n"] > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(storage, "_drop_cache", full)
    result = _run(tmp_path)
    assert result.status.startswith("error: disk full")
    assert _leftovers(tmp_path) == []


def test_memory_backed_filesystem_is_flagged_cached(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(storage, "_mount_of", lambda folder: ("/tmp", "tmpfs"))
    result = _run(tmp_path)
    seq = result.measurement("seq_read")
    assert seq.details["cached"] is True
    assert any(n.en.startswith("cached:") for n in seq.notes)


def test_drive_class_bands():
    assert storage.drive_class(200e6).en == "HDD level"
    assert storage.drive_class(550e6).en == "SATA SSD level"
    assert storage.drive_class(3.4e9).en == "NVMe gen3 level"
    assert storage.drive_class(7e9).en == "NVMe gen4 level"


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_files_a_killed_run_left_behind_are_removed_and_counted(tmp_path: Path):
    """SIGKILL skips every finally: the test files stayed for ever (545 MB for --quick)."""
    dead = tmp_path / f"torchrig-bench-{_dead_pid()}-k1ll3d"
    dead.mkdir()
    (dead / "sequential.bin").write_bytes(b"\0" * (3 * MiB))
    live = tmp_path / "torchrig-bench-1-running"  # pid 1 is always alive
    live.mkdir()
    (live / "sequential.bin").write_bytes(b"\0" * 1024)
    unrelated = tmp_path / "torchrig-benchmarks"
    unrelated.mkdir()
    result = _run(tmp_path)
    assert result.ok, result.status
    assert not dead.exists()
    assert live.exists() and unrelated.exists()
    notes = " ".join(n.en for n in result.notes)
    assert "removed 1 test folder " in notes
    assert storage.remove_stale_workdirs(tmp_path) == (0, 0)


def test_stale_folder_count_and_size(tmp_path: Path):
    dead = tmp_path / f"torchrig-bench-{_dead_pid()}-x"
    (dead / "sub").mkdir(parents=True)
    (dead / "a.bin").write_bytes(b"1" * 1000)
    (dead / "sub" / "b.bin").write_bytes(b"2" * 24)
    mine = tmp_path / f"torchrig-bench-{os.getpid()}-mine"
    mine.mkdir()
    assert storage.remove_stale_workdirs(tmp_path) == (1, 1024)
    assert mine.exists()
