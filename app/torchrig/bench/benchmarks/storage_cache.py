"""Reading test files from the disk, not from memory: O_DIRECT where the filesystem allows it,
else the page cache evicted and checked evicted before the read (issue 27).

fio reads with ``direct=1`` (O_DIRECT): the kernel moves the data from the device into the
caller's buffer and the page cache is never consulted. Where O_DIRECT is refused (tmpfs,
some network and FUSE filesystems, macOS, Windows) the file's cached pages are dropped with
posix_fadvise(POSIX_FADV_DONTNEED) and :func:`resident_share` asks the kernel (mincore(2) on
a mapping of the file, through ctypes) how much of it is still in memory; a file that stayed
cached is read anyway but its figure says so. Neither reaches a virtual machine's host: its
own cache of the disk image can still serve the reads, which :func:`host_may_cache` flags.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import mmap
import os
import sys
from collections.abc import Callable
from pathlib import Path

EVICTED_BELOW = 0.05
"""A file with less than 5 % of its pages resident after eviction is read from the disk."""


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name, use_errno=True) if name else None
    except OSError:
        return None


def resident_share(path: Path) -> float | None:
    """Share of ``path``'s pages in the page cache (mincore), or None where it cannot be
    asked (no mincore, an empty file, a filesystem that refuses mmap)."""
    if not hasattr(os, "posix_fadvise"):  # not Linux/BSD: no mincore either in practice
        return None
    libc = _libc()
    if libc is None or not hasattr(libc, "mincore"):
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return None
        # A private writable mapping only to take its address (ctypes needs a writable
        # buffer); nothing is touched, so no page is faulted in by asking.
        mapped = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE,
                           prot=mmap.PROT_READ | mmap.PROT_WRITE)
    except (OSError, ValueError):
        os.close(fd)
        return None
    try:
        page = mmap.PAGESIZE
        pages = (size + page - 1) // page
        vec = (ctypes.c_ubyte * pages)()
        anchor = ctypes.c_char.from_buffer(mapped)
        try:
            libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
            rc = libc.mincore(ctypes.addressof(anchor), ctypes.c_size_t(size), vec)
        finally:
            del anchor
        if rc != 0:
            return None
        return sum(v & 1 for v in vec) / pages
    finally:
        mapped.close()
        os.close(fd)


def evict(fd: int) -> bool:
    """Write a file's dirty pages and drop its cached ones; False where the OS offers no
    way (no posix_fadvise)."""
    os.fsync(fd)
    fadvise = getattr(os, "posix_fadvise", None)
    if fadvise is None:
        return False
    try:
        fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        return False
    return True


def preallocate(fd: int, size: int) -> bool:
    """Reserve ``size`` bytes of blocks for ``fd`` before its timed write, as fio does when it
    lays out a write job's file (its default ``fallocate=native``: Linux fallocate(2), mode 0,
    blocks allocated but unwritten); False where the OS or filesystem refuses, and the write
    then goes ahead without, as fio's does ("fall back to none"). Not posix_fallocate: glibc
    emulates that by writing every block, which would turn the timed write into an
    overwrite."""
    if not sys.platform.startswith("linux"):
        return False
    libc = _libc()
    if libc is None or not hasattr(libc, "fallocate"):
        return False
    libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    libc.fallocate.restype = ctypes.c_int
    return bool(libc.fallocate(fd, 0, 0, size) == 0)


def open_direct(path: Path) -> int | None:
    """A descriptor reading ``path`` with O_DIRECT, or None where the OS or filesystem
    refuses it."""
    flag = getattr(os, "O_DIRECT", None)
    if flag is None:
        return None
    try:
        return os.open(path, os.O_RDONLY | flag)
    except OSError:
        return None


def aligned_buffer(size: int) -> mmap.mmap:
    """A private anonymous mapping: page-aligned, as O_DIRECT reads require, and the kind of
    memory fio reads into (its default ``iomem=malloc``: glibc serves an 8 MiB malloc with a
    private anonymous mmap, which fio aligns to a page). Python's plain ``mmap(-1, n)`` is a
    shared one (shmem pages); how physically contiguous the buffer is decides how many
    requests an O_DIRECT read becomes on a virtual disk (docs/estimation.md sec. 5.6)."""
    private = getattr(mmap, "MAP_PRIVATE", None)
    anonymous = getattr(mmap, "MAP_ANONYMOUS", None)
    if private is None or anonymous is None:  # Windows: no flags, and no O_DIRECT either
        return mmap.mmap(-1, size)
    return mmap.mmap(-1, size, flags=private | anonymous)


def read_all(fd: int, buf: mmap.mmap, check: Callable[[], None]) -> int:
    """Read ``fd`` to its end into ``buf`` (readv: no copy, the buffer stays aligned)."""
    total = 0
    while True:
        n = os.readv(fd, [buf])
        if n <= 0:
            return total
        total += n
        check()


def host_may_cache(features: set[str]) -> bool:
    """True on a virtual machine (the CPU's ``hypervisor`` flag): the host can cache the
    disk image below everything the guest can bypass."""
    return "hypervisor" in features or (sys.platform.startswith("linux") and _dmi_vm())


def _dmi_vm() -> bool:
    with contextlib.suppress(OSError):
        vendor = Path("/sys/class/dmi/id/sys_vendor").read_text().strip().lower()
        return any(v in vendor for v in ("qemu", "kvm", "vmware", "microsoft", "xen",
                                          "amazon ec2", "google", "innotek"))
    return False
