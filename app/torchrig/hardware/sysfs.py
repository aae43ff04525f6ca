"""Read small kernel files (procfs, sysfs, /etc) as "a value or a reason".

Probes read dozens of tiny files, any of which may be missing (old kernel, container, VM),
unreadable (root-only) or odd. Each read here returns either the text or a short reason that
ends up in a component's ``unknown`` mapping, so a probe never needs its own try/except per file.

The file-system roots live in :class:`FsRoots` so tests can point every probe at a fake tree
under ``tmp_path`` instead of the real ``/proc`` and ``/sys``.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from torchrig.i18n import Msg


@dataclass(frozen=True)
class FsRoots:
    """Where the probes look for kernel and OS files."""

    proc: Path = Path("/proc")
    sys: Path = Path("/sys")
    etc: Path = Path("/etc")
    root: Path = Path("/")  # for /.dockerenv and /run/.containerenv

    @classmethod
    def under(cls, base: Path) -> FsRoots:
        """A fake tree laid out like a real one below ``base`` (tests)."""
        return cls(proc=base / "proc", sys=base / "sys", etc=base / "etc", root=base)


LINUX_ROOTS = FsRoots()


@dataclass(frozen=True)
class Read:
    """The text of a file (stripped) or why it could not be read."""

    text: str | None
    reason: Msg | None = None

    @property
    def ok(self) -> bool:
        return self.text is not None


def read_text(path: Path, *, max_bytes: int = 1 << 20) -> Read:
    """Read a small text file; sysfs attributes are one line, /proc/cpuinfo a few hundred KB."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes)
    except OSError as exc:
        return Read(None, unreadable(path, exc))
    return Read(data.decode("utf-8", "replace").strip())


def unreadable(path: Path, exc: OSError) -> Msg:
    """Why ``path`` could not be opened."""
    if isinstance(exc, FileNotFoundError):
        return Msg(f"{path} not present", f"{path} 不存在")
    if isinstance(exc, PermissionError):
        return Msg(f"{path} not readable without root", f"{path} 需要 root 权限才能读取")
    # sysfs returns EINVAL/ENODEV/EIO for attributes a driver does not implement. The
    # system's error text is English; the Chinese text names the error code instead.
    code = errno.errorcode.get(exc.errno or 0, type(exc).__name__)
    return Msg(f"{path}: {exc.strerror or exc}", f"{path} 读取失败（{code}）")


def read_bytes(path: Path, *, max_bytes: int = 1 << 20) -> tuple[bytes | None, Msg | None]:
    """Binary variant (DMI tables); returns ``(data, None)`` or ``(None, reason)``."""
    try:
        with open(path, "rb") as handle:
            return handle.read(max_bytes), None
    except OSError as exc:
        return None, unreadable(path, exc)


def read_int(path: Path) -> tuple[int | None, Msg | None]:
    """An integer attribute such as ``queue/rotational`` or ``cpuinfo_max_freq``."""
    got = read_text(path)
    if got.text is None:
        return None, got.reason
    try:
        return int(got.text.split()[0]), None
    except (ValueError, IndexError):
        return None, Msg(f"{path}: unexpected content {got.text[:40]!r}",
                         f"{path}：内容不符合预期 {got.text[:40]!r}")


def parse_cpu_list(text: str) -> set[int]:
    """Kernel CPU list syntax: ``0-3,8,10-11`` (also ``0-7:2`` strides in newer kernels)."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        stride = 1
        if ":" in part:
            part, stride_text = part.split(":", 1)
            stride = max(1, int(stride_text))
        if "-" in part:
            low, high = part.split("-", 1)
            cpus.update(range(int(low), int(high) + 1, stride))
        else:
            cpus.add(int(part))
    return cpus


def parse_size(text: str) -> int | None:
    """Cache sizes as sysfs writes them: ``32K``, ``1024K``, ``32M``, or plain bytes."""
    text = text.strip().upper()
    if not text:
        return None
    factor = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(text[-1])
    digits = text[:-1] if factor else text
    try:
        return int(digits) * (factor or 1)
    except ValueError:
        return None


def list_dir(path: Path) -> list[str]:
    """Entry names, sorted; an absent or unreadable directory is simply empty."""
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def unescape_mount_field(text: str) -> str:
    """/proc mount tables escape space, tab, newline and backslash as octal (``\\040``)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        chunk = text[i : i + 4]
        if len(chunk) == 4 and chunk[0] == "\\" and chunk[1:].isdigit():
            out.append(chr(int(chunk[1:], 8)))
            i += 4
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
