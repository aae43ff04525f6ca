"""Throughput of the folder a dataset lives in: sequential write, then reads of one large file
and of many small files.

The seed (4.3) warns that HDDs and slow SSDs stretch data loading. The sequential write is
timed up to the end of its fsync, so it counts what reached the disk, not the page cache
(fio's ``end_fsync=1``), into blocks reserved beforehand as fio lays out its file (fallocate,
untimed). Reading files that were just written would measure RAM (the OS page
cache), so the reads go as fio's ``direct=1`` does, with O_DIRECT, where the filesystem
allows it; elsewhere each file's cached pages are dropped after its fsync
(posix_fadvise(POSIX_FADV_DONTNEED)) and checked gone with mincore before it is read
(:mod:`~torchrig.bench.benchmarks.storage_cache`); a file that stayed cached, or a system
without either, flags the result "cached", and a virtual machine's figure says that its host
may cache the disk image. The read conditions - how the cache was bypassed, the device's
read-ahead, the read size - are stated beside the read figure. The test files live in a fresh
sub-folder that is always removed, also on cancel and errors. :func:`storage_plan` tells the
user how much will be written before anything starts.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Failed, Progress
from torchrig.bench.benchmarks.cpufeatures import cpu_flags
from torchrig.bench.benchmarks.storage_cache import (
    EVICTED_BELOW,
    aligned_buffer,
    evict,
    host_may_cache,
    open_direct,
    preallocate,
    read_all,
    resident_share,
)
from torchrig.bench.report import Measurement, Reference
from torchrig.bench.settings import BenchSettings
from torchrig.i18n import Msg, counted
from torchrig.units import GB, MB, KiB, MiB, fmt_gb

CHUNK = 8 * MiB
SPACE_MARGIN = 256 * MiB
"""Free space left over after the test files, so the benchmark never fills a disk."""


@dataclass(frozen=True)
class StoragePlan:
    folder: Path
    sequential_bytes: int
    small_files: int
    small_file_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.sequential_bytes + self.small_files * self.small_file_bytes


# ~128 KiB small files are close to an ImageNet JPEG (~110 KB, docs/estimation.md sec. 4).
_PLANS = {
    "smoke": (8 * MiB, 16, 64 * KiB),
    "quick": (256 * MiB, 256, 128 * KiB),
    "full": (1024 * MiB, 2048, 128 * KiB),
}

# Typical sequential-read rates by drive class (docs/hardware-sources.md section 3).
_CLASS_REFS: dict[str, Reference] = {
    "hdd": Reference(kind="reference", label=Msg("7200 rpm HDD, sequential (outer tracks)",
                                                 "7200 转机械硬盘，顺序读（外圈）"),
                     source="docs/hardware-sources.md sec. 3 (Seagate BarraCuda; 7200 rpm "
                            "datasheet)",
                     low=160 * MB, high=275 * MB),
    "ssd": Reference(kind="reference", label=Msg("SATA SSD, sequential (Samsung 870 EVO)",
                                                 "SATA 固态硬盘，顺序读（三星 870 EVO）"),
                     source="docs/hardware-sources.md sec. 3", value=560 * MB),
    "nvme": Reference(kind="reference", label=Msg("NVMe x4, sequential: gen3 3.5, gen4 7, gen5 "
                                                  "up to 12.4 GB/s",
                                                  "NVMe x4 顺序读：gen3 3.5、gen4 7、gen5 最高 "
                                                  "12.4 GB/s"),
                      source="docs/hardware-sources.md sec. 3", low=3.5 * GB, high=12.4 * GB),
}


WORKDIR_PREFIX = "torchrig-bench-"
"""Test folders are ``torchrig-bench-<pid>-<random>``: the pid tells a later run whether the
run that made one is still going."""
STALE_WORKDIR_AGE_S = 24 * 3600
"""A test folder without a pid in its name (older TorchRig) counts as left behind after this
long: no storage benchmark runs for a day."""
_WORKDIR = re.compile(re.escape(WORKDIR_PREFIX) + r"(?:(\d+)-)?[A-Za-z0-9_]+")


def remove_stale_workdirs(folder: Path) -> tuple[int, int]:
    """Delete test folders that killed runs (SIGKILL, power loss) left in ``folder``; returns
    (folders removed, bytes freed). A folder is stale when the process named in it is gone;
    live runs' folders are kept. Problems are ignored: tidying up never stops a benchmark."""
    import psutil

    removed = freed = 0
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return 0, 0
    now = time.time()
    for entry in entries:
        match = _WORKDIR.fullmatch(entry.name)
        try:
            if match is None or not entry.is_dir(follow_symlinks=False):
                continue
            pid = match.group(1)
            if pid is not None:
                stale = int(pid) != os.getpid() and not psutil.pid_exists(int(pid))
            else:
                stale = now - entry.stat(follow_symlinks=False).st_mtime > STALE_WORKDIR_AGE_S
            if not stale:
                continue
            size = _tree_bytes(Path(entry.path))
            shutil.rmtree(entry.path)
        except (OSError, ValueError, psutil.Error):
            continue
        removed += 1
        freed += size
    return removed, freed


def _tree_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def storage_folder(settings: BenchSettings) -> Path:
    """The folder tested: the dataset folder the user chose, else the system temp folder."""
    if settings.dataset_dir is not None:
        return Path(settings.dataset_dir)
    return Path(tempfile.gettempdir())


def plan_for(settings: BenchSettings) -> StoragePlan:
    seq, count, size = _PLANS[settings.preset]
    return StoragePlan(storage_folder(settings), seq, count, size)


def storage_plan(settings: BenchSettings) -> int:
    """Bytes the storage benchmark will write (and remove) - show this before starting."""
    return plan_for(settings).total_bytes


def drive_class(size_bps: float) -> Msg:
    """Which drive class a sequential rate looks like, by the reference rates."""
    if size_bps < 300 * MB:
        return Msg("HDD level", "机械硬盘水平")
    if size_bps < 700 * MB:
        return Msg("SATA SSD level", "SATA 固态硬盘水平")
    if size_bps < 4.5 * GB:
        return Msg("NVMe gen3 level", "NVMe gen3 水平")
    if size_bps < 8 * GB:
        return Msg("NVMe gen4 level", "NVMe gen4 水平")
    return Msg("NVMe gen5 level (or cached)", "NVMe gen5 水平（或被缓存）")


def _mount_of(folder: Path) -> tuple[str | None, str | None]:
    """(mountpoint, filesystem type) holding ``folder``: the longest matching mountpoint."""
    try:
        import psutil

        parts = psutil.disk_partitions(all=True)
    except Exception:  # noqa: BLE001 - psutil raises various OS errors in containers
        return None, None
    target = str(folder.resolve())
    best = None
    for p in parts:
        mp = p.mountpoint.rstrip(os.sep) or os.sep
        if (target == mp or target.startswith(mp.rstrip(os.sep) + os.sep)) and (
            best is None or len(mp) > len(best.mountpoint)
        ):
            best = p
    return (best.mountpoint, best.fstype) if best is not None else (None, None)


def read_ahead_kb(folder: Path) -> int | None:
    """The kernel's read-ahead (KiB) of the block device holding ``folder`` (Linux), found
    through its device number; a partition's comes from its disk's queue."""
    try:
        dev = os.stat(folder).st_dev
        block = Path(os.path.realpath(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"))
        if (block / "partition").exists():
            block = block.parent
        return int((block / "queue" / "read_ahead_kb").read_text().strip())
    except (OSError, ValueError, AttributeError):
        return None


def _disk_kind(ctx: BenchContext, mountpoint: str | None) -> str:
    if ctx.profile is None or mountpoint is None:
        return "unknown"
    for disk in ctx.profile.disks:
        if disk.mountpoint == mountpoint:
            return disk.kind
    return "unknown"


def _payload(size: int, seed: int) -> bytes:
    """Incompressible bytes, so compressing filesystems (btrfs, ZFS) cannot shrink the test."""
    rng = random.Random(seed)
    return rng.randbytes(size)


def _drop_cache(fd: int) -> bool:
    """Flush and evict a file's pages; False where the OS offers no way to do it."""
    return evict(fd)


def _write_error(folder: Path, exc: OSError, need: int) -> Failed:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return Failed(Msg(f"disk full: not enough free space in {folder} for "
                          f"{fmt_gb(need)} of test files",
                          f"磁盘已满：{folder} 中没有足够空间写入 {fmt_gb(need)} 测试文件"))
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return Failed(Msg(f"folder {folder} is not writable ({exc.strerror})",
                          f"文件夹 {folder} 不可写（{exc.strerror}）"))
    return Failed(Msg(f"cannot write test files in {folder} ({exc.strerror})",
                      f"无法在 {folder} 中写入测试文件（{exc.strerror}）"))


@dataclass(frozen=True)
class SequentialWrite:
    bytes: int
    seconds: float  # from the first write to the end of the fsync
    preallocated: bool  # blocks reserved with fallocate before the clock
    evicted: bool  # its cached pages dropped after the fsync (storage_cache.evict)


PAGE = 4096
"""The unit a deduplicating store compares (filesystems and virtual disks dedupe by block)."""


def distinct_chunk(source: bytes | bytearray, chunk: int, index: int) -> memoryview:
    """The ``index``-th chunk to write: a ``chunk``-byte window of ``source`` (``chunk`` +
    :data:`PAGE` random bytes) starting ``8 * index`` bytes further in, modulo a page. Two
    chunks then share no page for 512 chunks (4 GiB of 8 MiB chunks), so a host that
    deduplicates by block cannot shrink the write, as fio's ``scramble_buffers`` (default
    true) ensures for its own (an 8-byte stamp per 8 MiB left 2047 of 2048 pages equal:
    the suite wrote 1.2-2.5x fio's rate on a virtual disk, issue 27). A window, not a copy:
    nothing is generated inside the timed loop."""
    off = (8 * index) % PAGE
    return memoryview(source)[off:off + chunk]


def write_sequential(path: Path, size: int, source: bytes | bytearray, chunk: int, *,
                     check: Callable[[], None],
                     stop: Callable[[int], bool]) -> SequentialWrite:
    """Write ``path`` with unbuffered writes of ``chunk`` bytes (:func:`distinct_chunk` of
    ``source``) up to ``size`` bytes, or fewer when ``stop(bytes so far)`` says the budget is
    spent, timed through the fsync (fio's ``end_fsync=1``). The file's blocks are reserved
    first, untimed, as fio lays out a write job's file (its default ``fallocate=native``);
    without that the figure is a different write path (ext4's delayed allocation)."""
    written = 0
    with open(path, "wb", buffering=0) as fh:
        preallocated = preallocate(fh.fileno(), size)
        started = time.perf_counter()
        index = 0
        while written < size:
            fh.write(distinct_chunk(source, chunk, index))
            written += chunk
            index += 1
            check()
            if written < size and stop(written):
                break
        if preallocated and written < size:
            # a cut file ends where the writing stopped: the reserved, unwritten rest would
            # read back as zeros without touching the disk
            fh.truncate(written)
        evicted = _drop_cache(fh.fileno())  # fsyncs first: part of the write time
    return SequentialWrite(written, time.perf_counter() - started, preallocated, evicted)


class _Reader:
    """Reads test files the way the first one allowed: O_DIRECT, else buffered after checking
    the file's pages were evicted. Remembers the worst residency it saw."""

    def __init__(self, ctx: BenchContext) -> None:
        self.ctx = ctx
        self.buf = aligned_buffer(CHUNK)
        self.plain = bytearray(CHUNK)  # for buffered reads, allocated once
        self.direct: bool | None = None
        self.resident_max: float | None = None

    def read(self, path: Path) -> int:
        if self.direct is not False:
            fd = open_direct(path)
            if fd is not None:
                try:
                    got = read_all(fd, self.buf, self.ctx.check)
                    self.direct = True
                    return got
                except OSError:
                    pass  # EINVAL on a filesystem that opens but cannot read O_DIRECT
                finally:
                    os.close(fd)
            self.direct = False
        share = resident_share(path)
        if share is not None:
            self.resident_max = max(self.resident_max or 0.0, share)
        return _read_file(path, self.plain, self.ctx)

    def close(self) -> None:
        self.buf.close()


def _read_file(path: Path, buf: bytearray, ctx: BenchContext) -> int:
    view = memoryview(buf)
    total = 0
    with open(path, "rb", buffering=0) as fh:
        fadvise = getattr(os, "posix_fadvise", None)
        if fadvise is not None:
            fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_SEQUENTIAL)
        while True:
            n = fh.readinto(view)
            if not n:
                return total
            total += n
            ctx.check()


def run(ctx: BenchContext) -> Iterator[Event]:
    plan = plan_for(ctx.settings)
    folder = plan.folder
    if not folder.is_dir():
        raise Failed(Msg(f"folder {folder} does not exist", f"文件夹 {folder} 不存在"))
    scale = min(1.0, ctx.scale)
    seq_bytes = max(CHUNK, int(plan.sequential_bytes * scale) // CHUNK * CHUNK)
    n_small = max(4, int(plan.small_files * scale))
    need = seq_bytes + n_small * plan.small_file_bytes
    free = shutil.disk_usage(folder).free
    if free < need + SPACE_MARGIN:
        raise Failed(Msg(
            f"disk full: {folder} has {fmt_gb(free)} free, the test needs {fmt_gb(need)} plus "
            f"{fmt_gb(SPACE_MARGIN)} to spare",
            f"磁盘空间不足：{folder} 剩余 {fmt_gb(free)}，测试需要 {fmt_gb(need)} 另加 "
            f"{fmt_gb(SPACE_MARGIN)} 余量"))
    removed, freed = remove_stale_workdirs(folder)
    if removed:
        ctx.note(Msg(f"removed {counted(removed, 'test folder', 'test folders')} "
                     f"({fmt_gb(freed)}) that earlier, killed "
                     f"runs left in {folder}",
                     f"已删除先前被终止的运行在 {folder} 中遗留的 {removed} 个测试文件夹"
                     f"（{fmt_gb(freed)}）"))
    mountpoint, fstype = _mount_of(folder)
    try:
        workdir = Path(tempfile.mkdtemp(prefix=f"{WORKDIR_PREFIX}{os.getpid()}-", dir=folder))
    except OSError as exc:
        raise _write_error(folder, exc, need) from None
    cache_ok = True
    try:
        steps = 4
        yield Progress("storage", 0, steps, Msg(f"writing {fmt_gb(need)} of test files in "
                                                f"{folder}",
                                                f"在 {folder} 写入 {fmt_gb(need)} 测试文件"))
        write_share = ctx.budget_s * 0.45
        seq_path = workdir / "sequential.bin"
        source = _payload(CHUNK + PAGE, 1)
        try:
            seq = write_sequential(
                seq_path, seq_bytes, source, CHUNK, check=ctx.check,
                stop=lambda done: ctx.elapsed() > write_share * 0.7 and done >= 4 * CHUNK)
            written, preallocated = seq.bytes, seq.preallocated
            cache_ok &= seq.evicted
            if written < seq_bytes:
                ctx.note_budget_stop(Msg(f"sequential file cut to {fmt_gb(written)}",
                                         f"顺序文件缩减为 {fmt_gb(written)}"))
            write_rate = written / seq.seconds
            yield Progress("storage", 1, steps, Msg("writing small files", "写入小文件"))
            small_paths: list[Path] = []
            payload = _payload(plan.small_file_bytes + PAGE, 2)
            for i in range(n_small):
                path = workdir / f"small-{i:05d}.bin"
                with open(path, "wb", buffering=0) as fh:
                    fh.write(distinct_chunk(payload, plan.small_file_bytes, i))
                    cache_ok &= _drop_cache(fh.fileno())
                small_paths.append(path)
                if i % 16 == 0:
                    ctx.check()
                if ctx.elapsed() > write_share and len(small_paths) >= 4:
                    ctx.note_budget_stop(Msg(f"{len(small_paths)} small files written",
                                             f"只写了 {len(small_paths)} 个小文件"))
                    break
        except OSError as exc:
            raise _write_error(folder, exc, need) from None

        cached_reason = None
        if fstype in ("tmpfs", "ramfs"):
            cached_reason = Msg(f"{folder} is on a memory-backed filesystem ({fstype})",
                                f"{folder} 位于内存文件系统（{fstype}）上")
        elif not cache_ok:
            cached_reason = Msg("the OS page cache could not be bypassed on this system "
                                "(no posix_fadvise)",
                                "此系统无法绕过操作系统页缓存（无 posix_fadvise）")
        reader = _Reader(ctx)

        yield Progress("storage", 2, steps, Msg("reading the large file", "读取大文件"))
        # mincore before the clock: asking costs a mapping, not part of the read
        seq_resident = resident_share(seq_path)
        t0 = time.perf_counter()
        got = reader.read(seq_path)
        seq_rate = got / (time.perf_counter() - t0)

        yield Progress("storage", 3, steps, Msg("reading small files", "读取小文件"))
        order = list(small_paths)
        random.Random(3).shuffle(order)
        t0 = time.perf_counter()
        small_total = 0
        for i, path in enumerate(order):
            small_total += reader.read(path)
            if i % 16 == 0:
                ctx.check()
        small_s = time.perf_counter() - t0
        small_rate = small_total / small_s
        reader.close()
        if not reader.direct and cached_reason is None:
            worst = max(seq_resident or 0.0, reader.resident_max or 0.0)
            if seq_resident is None:
                # evicted, but not checked: the figure must not claim mincore confirmed it
                cached_reason = Msg("the page cache was dropped but the eviction could not be "
                                    "checked (no mincore answer for the test file)",
                                    "已丢弃页缓存，但无法确认是否清空（mincore 未给出结果）")
            elif worst >= EVICTED_BELOW:
                cached_reason = Msg(
                    f"{worst:.0%} of a test file was still in the page cache after eviction "
                    "(mincore)",
                    f"丢弃缓存后仍有 {worst:.0%} 的测试文件留在页缓存中（mincore）")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    kind = _disk_kind(ctx, mountpoint)
    if cached_reason is not None:
        method = Msg(f"cached: {cached_reason.en}; the rate may be memory speed, not the disk",
                     f"已缓存：{cached_reason.zh}；速率可能是内存速度而非磁盘速度")
    elif reader.direct:
        method = Msg("read with O_DIRECT (fio's direct=1): the page cache is not used",
                     "以 O_DIRECT 读取（同 fio 的 direct=1）：不经过页缓存")
    else:
        method = Msg("O_DIRECT refused here: page cache dropped after fsync (posix_fadvise "
                     "POSIX_FADV_DONTNEED) and checked empty with mincore before reading",
                     "此处不支持 O_DIRECT：fsync 后丢弃页缓存（posix_fadvise "
                     "POSIX_FADV_DONTNEED），读取前用 mincore 确认已清空")
    host_note = None
    # The raw flags: the profile's ISA list leaves 'hypervisor' out, so a VM read as bare metal.
    if host_may_cache(cpu_flags()):
        host_note = Msg("this is a virtual machine: its host may cache the disk image, which "
                        "no guest setting bypasses; compare with fio on the host",
                        "这是虚拟机：宿主机可能缓存磁盘镜像，客户机无法绕过；请在宿主机上用 fio "
                        "对比")
    cls = drive_class(seq_rate)
    ahead = read_ahead_kb(folder)
    common: dict[str, Any] = {"folder": str(folder), "cached": cached_reason is not None,
                              "direct_io": bool(reader.direct), "resident_before_read":
                              seq_resident, "host_may_cache": host_note is not None,
                              "filesystem": fstype, "mountpoint": mountpoint, "disk_kind": kind,
                              "read_ahead_kb": ahead}
    ahead_en = f"device read-ahead {ahead} KiB" if ahead is not None else \
        "device read-ahead unknown"
    ahead_zh = f"设备预读 {ahead} KiB" if ahead is not None else "设备预读未知"
    if reader.direct:
        conditions = Msg(f"read conditions: O_DIRECT reads of {CHUNK // MiB} MiB, one thread, "
                         "queue depth 1 (fio: rw=read bs=8M direct=1 iodepth=1)",
                         f"读取条件：O_DIRECT 读取，每次 {CHUNK // MiB} MiB，单线程，队列深度 1"
                         "（fio：rw=read bs=8M direct=1 iodepth=1）")
    else:
        conditions = Msg(f"read conditions: {ahead_en}, POSIX_FADV_SEQUENTIAL hint (Linux "
                         f"doubles the read-ahead), unbuffered reads of {CHUNK // MiB} MiB, "
                         "one thread",
                         f"读取条件：{ahead_zh}，POSIX_FADV_SEQUENTIAL 提示（Linux 会将预读加倍），"
                         f"无缓冲读取，每次 {CHUNK // MiB} MiB，单线程")
    seed_note = Msg("seed 4.3: HDDs and slow SSDs stretch data loading; use NVMe",
                    "原文 4.3：机械硬盘与低速 SSD 会拖慢数据加载；建议使用 NVMe")
    ref = _CLASS_REFS.get(kind)
    notes = [method, conditions, Msg(f"measured rate is at {cls.en}", f"实测速率为{cls.zh}")]
    if host_note is not None:
        notes.append(host_note)
    if ref is None:
        notes.append(Msg("drive type unknown: compare with HDD 160-275 MB/s, SATA SSD ~560 MB/s, "
                         "NVMe gen3/4/5 3.5/7/12 GB/s",
                         "硬盘类型未知：可对照机械硬盘 160-275 MB/s、SATA SSD 约 560 MB/s、"
                         "NVMe gen3/4/5 3.5/7/12 GB/s"))
    if seq_rate < 700 * MB:
        notes.append(seed_note)
    yield Measurement(
        id="seq_write", label=Msg("Sequential write, one large file", "顺序写入（单个大文件）"),
        value=write_rate, unit="B/s",
        notes=(Msg(f"unbuffered writes of {CHUNK // MiB} MiB of incompressible data, timed "
                   "until fsync returned (what reached the disk, not the page cache)",
                   f"每次无缓冲写入 {CHUNK // MiB} MiB 不可压缩数据，计时至 fsync 返回"
                   "（落盘的数据，而非页缓存）"),
               Msg("blocks reserved with fallocate before the clock, as fio lays out its "
                   "file (fio: rw=write bs=8M end_fsync=1)" if preallocated else
                   "no block reservation here (fallocate refused), as fio goes on without "
                   "(fio: rw=write bs=8M end_fsync=1)",
                   "计时前用 fallocate 预留空间，同 fio 布置文件的方式（fio：rw=write bs=8M "
                   "end_fsync=1）" if preallocated else
                   "此处无法预留空间（fallocate 被拒绝），fio 同样不预留继续写入（fio：rw=write "
                   "bs=8M end_fsync=1）")),
        details={**common, "bytes": written, "chunk_bytes": CHUNK,
                 "preallocated": preallocated},
    )
    yield Measurement(
        id="seq_read", label=Msg("Sequential read, one large file", "顺序读取（单个大文件）"),
        value=seq_rate, unit="B/s", reference=ref, notes=tuple(notes),
        details={**common, "bytes": got, "chunk_bytes": CHUNK},
    )
    yield Measurement(
        id="small_read", label=Msg(f"Many small files ({plan.small_file_bytes // KiB} KiB each)",
                                   f"大量小文件（每个 {plan.small_file_bytes // KiB} KiB）"),
        value=small_rate, unit="B/s",
        notes=(method, Msg("random order, open + read + close per file",
                           "随机顺序，每个文件打开+读取+关闭")),
        details={**common, "files": len(order), "file_bytes": plan.small_file_bytes,
                 "files_per_s": len(order) / small_s},
    )
    yield Progress("storage", 4, 4, Msg("done, test files removed", "完成，测试文件已删除"))


BENCHMARK = Benchmark(
    id="storage",
    title=Msg("Storage throughput: sequential write, reads", "存储吞吐：顺序写入与读取"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    weight=3.0,
)
