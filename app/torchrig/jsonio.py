"""Versioned JSON files the user owns: safe loading and atomic saving.

Every user file (build, workload, bench report, collective report) is a JSON object with
``"format"`` (what kind of file) and ``"version"`` (schema version). Loading refuses oversized,
non-UTF-8, malformed, too deeply nested or non-finite input with one clear message, and never
modifies the file. Saving writes a temporary file in the same folder, fsyncs it and renames it
over the target, so a crash leaves either the old or the new file, never half of one.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from torchrig.errors import InputError

MAX_FILE_BYTES = 16 * 1024 * 1024
"""User files are small; anything larger is refused before it is read into memory."""

MAX_DEPTH = 64
"""Deeper nesting than any of our schemas use; refusing it avoids RecursionError."""

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _read_umask() -> int:
    """The process umask, read once at import: os.umask can only be read by setting it, and
    doing that per save would race with files other threads create meanwhile."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


MAX_INT_DIGITS = 19
"""Integers beyond the 64-bit range no field needs; refusing them at parse time means no
reader ever meets an integer too large to turn into a float (OverflowError)."""

_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _parse_int(text: str) -> int:
    if len(text) <= 18:
        # 18 characters or fewer: |value| < 10**18 < 2**63. Called for every integer of every
        # file (a catalog load parses thousands), so the common case is one comparison.
        return int(text)
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS or not -(2**63) <= int(text) < 2**63:
        raise ValueError(f"integer {text[:24]}{'...' if len(text) > 24 else ''} is outside "
                         "the 64-bit range")
    return int(text)


def _parse_float(text: str) -> float:
    """``1e400`` would silently become infinity, which JSON cannot even express."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:24]} is too large for a 64-bit float")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``{"tax_rate": "0.13", "tax_rate": "0"}`` silently became 0: a key given twice is
    ambiguous (other tools keep the first), so it is refused, naming the key."""
    out: dict[str, Any] = dict(pairs)
    if len(out) == len(pairs):
        return out  # no key twice: the common case, built in C (called for every object)
    out = {}
    for key, value in pairs:
        if key in out:
            # Quoted once: a key with a line break reads 'a\nb', not "'a\\nb'".
            shown = repr(key if key.isprintable() and len(key) <= 80 else key[:80])
            raise ValueError(f"the key {shown} appears twice in one object")
        out[key] = value
    return out


def _has_lone_surrogate(value: Any) -> bool:
    """A ``\\ud800`` escape without its pair decodes to text that cannot be written back as
    UTF-8 (saving, printing or exporting it would fail far from the file that caused it).
    Recursive: ``parse_json_text`` checks the nesting depth (at most MAX_DEPTH) first."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _depth(value: Any, limit: int) -> int:
    """Nesting depth (a value inside a container is one level below it), computed iteratively
    so hostile input cannot overflow the stack; past ``limit`` it stops at ``limit + 1``.

    Only containers go on the stack: a catalog load checks thousands of numbers and strings,
    and a tuple per scalar was most of that check's time."""
    if not isinstance(value, (dict, list)):
        return 1
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return depth
        deepest = max(deepest, depth)
        inner = depth + 1
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, (dict, list)):
                stack.append((child, inner))
            elif inner > deepest:
                if inner > limit:
                    return inner
                deepest = inner
    return deepest


def parse_json_text(text: str, where: str) -> Any:
    """Parse JSON text, refusing NaN/Infinity and absurd nesting, with errors naming ``where``."""
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int,
                           parse_float=_parse_float, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"{where}: not valid JSON ({exc})") from None
    if _depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise InputError(f"{where}: JSON nested deeper than {MAX_DEPTH} levels")
    if _LONE_SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(value):
        raise InputError(f"{where}: text contains a \\u escape of half a UTF-16 surrogate "
                         "pair, which is not a character")
    return value


def read_text_file(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """Read a small UTF-8 text file the user gave us, with a clear error for every failure."""
    raw = read_file_bytes(path, max_bytes)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (bad byte at offset {exc.start})") from None


def read_file_bytes(path: Path, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` the user gave us; a FIFO, a device
    (/dev/zero, /dev/urandom), a folder or a larger file is refused before reading."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        # A FIFO would block forever and /dev/zero would never end: neither is a user file.
        raise InputError(f"{path}: is not a regular file (a device, pipe or socket)")
    if info.st_size > max_bytes:
        raise InputError(_too_large(path, info.st_size, max_bytes))
    try:
        with open(path, "rb") as handle:
            # Bounded even here: the file may have grown since stat().
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if len(raw) > max_bytes:
        raise InputError(_too_large(path, len(raw), max_bytes, at_least=True))
    return raw


def _too_large(path: Path, size: int, limit: int, at_least: bool = False) -> str:
    return (f"{path}: file is {'over ' if at_least else ''}{size / 1e6:.1f} MB, larger than the "
            f"{limit / 1e6:.0f} MB limit for this kind of file")


def load_versioned(
    path: Path,
    fmt: str,
    current_version: int,
    migrations: Mapping[int, Migration] | None = None,
) -> dict[str, Any]:
    """Load a versioned JSON object of format ``fmt`` and bring it to ``current_version``.

    ``migrations[v]`` turns a version-``v`` document into version ``v + 1``. A newer version
    than we know is refused with a message naming both versions.
    """
    data = parse_json_text(read_text_file(path), str(path))
    return upgrade_document(data, fmt, current_version, migrations, where=str(path))


def upgrade_document(
    data: Any,
    fmt: str,
    current_version: int,
    migrations: Mapping[int, Migration] | None = None,
    where: str = "document",
) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object, found {type(data).__name__}")
    found_fmt = data.get("format")
    if found_fmt != fmt:
        raise InputError(f"{where}: field 'format' is {found_fmt!r}, expected {fmt!r}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(f"{where}: field 'version' must be a positive integer, got {version!r}")
    if version > current_version:
        raise InputError(
            f"{where}: {fmt} version {version} is newer than this TorchRig understands "
            f"(version {current_version}); update TorchRig to open it"
        )
    migrations = migrations or {}
    while version < current_version:
        step = migrations.get(version)
        if step is None:
            raise InputError(f"{where}: {fmt} version {version} can no longer be read")
        data = step(dict(data))
        version += 1
        data["version"] = version
    return data


def dumps(data: Any) -> str:
    """Canonical JSON text for user files: sorted keys would reorder lists of meaning, so keep
    insertion order; refuse NaN so we never write a file we would refuse to read."""
    return json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def atomic_write_bytes(path: Path, payload: bytes) -> None:
    """Replace ``path`` with ``payload`` atomically (temp file + fsync + rename).

    Raises InputError with a clear message when the folder is missing or not writable, or
    when ``path`` is read-only or not a regular file (a FIFO, a device); the existing file is
    left untouched in every failure. A symbolic link is written through, as editors do: its
    target is replaced atomically and the link stays.

    The temporary file is ``.<name>.<pid>.<random>.tmp`` next to ``path``. A process killed
    mid-write leaves it behind; the next successful save of the same file removes it (see
    :func:`remove_stale_temp_files`). Loading never deletes anything.
    """
    shown = Path(path)
    path = _write_target(shown)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"{shown}: folder {folder} does not exist")
    import tempfile  # here: the many processes that only read files never need it

    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                                        dir=folder)
    except OSError as exc:
        raise InputError(f"{shown}: cannot write in {folder} ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            # Keep the permissions the user gave the file they are replacing.
            os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp_name, 0o666 & ~_UMASK)
        os.replace(tmp_name, path)
    except OSError as exc:
        _remove_quietly(tmp_name)
        raise InputError(f"{shown}: could not be written ({exc.strerror})") from None
    except BaseException:
        _remove_quietly(tmp_name)
        raise
    _fsync_folder(folder)
    remove_stale_temp_files(path)


def _write_target(path: Path) -> Path:
    """The file a save of ``path`` replaces: the final target of a symlink chain (replacing
    the link itself would cut it from the file it stood for). Existing targets must be
    regular, writable files: an export onto a FIFO or a device cannot be meant, and silently
    replacing a file the user made read-only defeats the point of making it so."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        info = target.stat()
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: is not a regular file (a device, pipe or socket); choose "
                         "a file name")
    # The mode bits, not os.access: root may write anything, yet a file nobody may write is
    # read-only to everyone who means it.
    if info.st_mode & 0o222 == 0 or not os.access(target, os.W_OK):
        raise InputError(f"{path}: the file is read-only; make it writable or choose another "
                         "name")
    return target


STALE_TEMP_AGE_S = 24 * 3600
"""A temp file this old is stale even if its pid is alive (a reused pid, or a writer on another
machine sharing the folder: no save takes a day)."""


def remove_stale_temp_files(path: Path) -> list[Path]:
    """Delete the temp files that killed saves of ``path`` left behind; returns them.

    A temp file is stale when the process named in it is gone, or when it is older than
    :data:`STALE_TEMP_AGE_S`. Temp files of live processes (a save in progress in another
    process or thread) are kept. Problems are ignored: tidying up never fails a save.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    pattern = re.compile(re.escape(f".{path.name}.") + r"(\d+)\.[a-z0-9_]+\.tmp")
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    now = time.time()
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        temp = folder / name
        # Only when a temp file is there: psutil's import (about 20 ms of CPU) is a
        # noticeable part of a short export process, and almost every save finds none.
        import psutil

        try:
            age = now - temp.lstat().st_mtime
            gone = int(match.group(1)) != os.getpid() and not psutil.pid_exists(
                int(match.group(1)))
            if gone or age > STALE_TEMP_AGE_S:
                temp.unlink()
                removed.append(temp)
        except (OSError, psutil.Error):
            continue
    return removed


def unused_name(path: Path) -> Path:
    """``path`` if nothing is there, else ``stem-2.suffix``, ``stem-3.suffix``, ...: for files
    set aside, so a later one never replaces an earlier one."""
    candidate, n = path, 1
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
    return candidate


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_bytes(Path(path), dumps(data).encode("utf-8"))


def _remove_quietly(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable where the OS allows opening a folder (POSIX)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- small typed field readers used by every loader, so messages look the same everywhere ---


def check_keys(doc: Mapping[str, Any], allowed: set[str], where: str) -> None:
    """Refuse a top-level field the loader does not read: a misspelt one ("part" for "parts")
    would otherwise be ignored without a word."""
    unknown = sorted(set(doc) - allowed)
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r}")


def req(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise InputError(f"{where}: missing field '{key}'")
    return obj[key]


def get_str(obj: Mapping[str, Any], key: str, where: str, default: str | None = None,
            max_len: int = 10_000) -> str:
    if key not in obj or obj[key] is None:
        if default is None:
            raise InputError(f"{where}: missing field '{key}'")
        return default
    value = obj[key]
    if not isinstance(value, str):
        raise InputError(f"{where}: field '{key}' must be text, got {type(value).__name__}")
    if len(value) > max_len:
        raise InputError(f"{where}: field '{key}' is longer than {max_len} characters")
    return value


def get_num(obj: Mapping[str, Any], key: str, where: str, *, default: float | None = None,
            minimum: float | None = None, maximum: float | None = None,
            optional: bool = False, integer: bool = False) -> Any:
    """Read a finite number in [minimum, maximum]; ``optional`` allows a missing/null field."""
    if key not in obj or obj[key] is None:
        if default is not None:
            return default
        if optional:
            return None
        raise InputError(f"{where}: missing field '{key}'")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: field '{key}' must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InputError(f"{where}: field '{key}' must be a finite number, got {value!r}")
    if integer and not float(value).is_integer():
        raise InputError(f"{where}: field '{key}' must be a whole number, got {value!r}")
    if minimum is not None and value < minimum:
        raise InputError(f"{where}: field '{key}' must be at least {minimum:g}, got {value!r}")
    if maximum is not None and value > maximum:
        raise InputError(f"{where}: field '{key}' must be at most {maximum:g}, got {value!r}")
    return int(value) if integer else value
