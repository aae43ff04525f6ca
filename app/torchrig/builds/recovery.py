"""Crash recovery for unsaved build edits.

While a build has unsaved changes, the editor keeps a copy in the user's data folder (written
atomically, so a crash mid-write leaves the previous copy). Each editor has a file of its own,
``recovery/build-<pid>-<token>.json``, so one window saving, opening or discarding never
touches another window's copy. A clean save or a deliberate discard removes the editor's own
file; a file whose process is gone means that process did not close cleanly, and its build is
offered back on the next start.

A copy that cannot be read is never deleted: it is moved to ``recovery/unreadable/`` and
whatever of it still passes the build loader's checks is offered instead.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchrig.builds.build import BUILD_FORMAT, BUILD_VERSION, Build
from torchrig.errors import InputError
from torchrig.jsonio import (
    atomic_write_json,
    load_versioned,
    parse_json_text,
    read_text_file,
    unused_name,
)
from torchrig.paths import recovery_dir

RECOVERY_FORMAT = "torchrig.recovery"
RECOVERY_VERSION = 1

_OWNED = re.compile(r"build-(\d+)-[0-9a-f]+\.json")
LEGACY_NAME = "unsaved-build.json"
"""The single shared copy older versions kept (no owner recorded: always a leftover)."""


def recovery_folder() -> Path:
    return recovery_dir()


def new_recovery_path() -> Path:
    """A recovery file for one editor, named after this process so a later start can tell a
    crashed owner from a running one."""
    return recovery_folder() / f"build-{os.getpid()}-{secrets.token_hex(4)}.json"


def save_recovery(path: Path, build: Build, original: Path | None) -> None:
    """Keep a copy of unsaved edits; failures are ignored (recovery is a safety net, and a
    full or read-only disk must not interrupt editing)."""
    doc: dict[str, Any] = {"format": RECOVERY_FORMAT, "version": RECOVERY_VERSION,
                           "original": str(original) if original else None,
                           "build": build.to_dict()}
    with contextlib.suppress(OSError, InputError):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(path, doc)


def clear_recovery(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


@dataclass(frozen=True)
class Recovered:
    """A build left by an editor that did not close cleanly.

    ``path`` is the recovery file (remove it with :func:`clear_recovery` once the build is
    taken over or declined). When the copy was damaged, ``moved_to`` is where it now lies,
    ``problem`` why it could not be read, and ``build`` holds what could be read (None when
    nothing could); ``path`` is then the moved file, which is kept.
    """

    path: Path
    build: Build | None
    original: Path | None
    problem: str = ""
    moved_to: Path | None = None

    @property
    def damaged(self) -> bool:
        return self.moved_to is not None


def _owner_gone(path: Path) -> bool:
    import psutil

    if path.name == LEGACY_NAME:
        return True
    match = _OWNED.fullmatch(path.name)
    if match is None:
        return False
    pid = int(match.group(1))
    return pid != os.getpid() and not psutil.pid_exists(pid)


def find_recoveries() -> list[Recovered]:
    """The builds left by editors whose process is gone, oldest first. Damaged copies are
    moved aside (never deleted) and come back with what could be read of them."""
    folder = recovery_folder()
    try:
        paths = sorted((p for p in folder.iterdir() if p.is_file() and _owner_gone(p)),
                       key=lambda p: p.stat().st_mtime)
    except OSError:
        return []
    return [_read(path) for path in paths]


def _read(path: Path) -> Recovered:
    try:
        doc = load_versioned(path, RECOVERY_FORMAT, RECOVERY_VERSION)
        build = Build.from_dict(doc.get("build"), where=f"{path}: build")
    except InputError as exc:
        moved = _move_aside(path)
        return Recovered(moved or path, _salvage(moved or path), None, str(exc), moved or path)
    original = doc.get("original")
    return Recovered(path, build, Path(original) if isinstance(original, str) and original
                     else None)


def _move_aside(path: Path) -> Path | None:
    """Move a damaged copy into ``unreadable/`` under a name no earlier copy has."""
    target_dir = path.parent / "unreadable"
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        target = unused_name(target_dir / path.name)
        os.replace(path, target)
    except OSError:
        return None
    return target


def _salvage(path: Path) -> Build | None:
    """What of a damaged copy still passes the build loader: each header field and each line
    is kept if the build with it added still validates (the loader is the only judge)."""
    try:
        doc = parse_json_text(read_text_file(path), str(path))
    except InputError:
        return None
    raw = doc.get("build") if isinstance(doc, dict) else None
    if not isinstance(raw, dict):
        return None
    # The copy's own build version (an older TorchRig wrote 1), so the loader upgrades only what
    # needs it: read as version 1, a version-2 build whose notes begin with its tier's note
    # lost that text to the upgrade (issue 28's mutation tests). Anything else: the current.
    version = raw.get("version")
    if type(version) is not int or not 1 <= version <= BUILD_VERSION:
        version = BUILD_VERSION
    base: dict[str, Any] = {"format": BUILD_FORMAT, "version": version,
                            "name": "Recovered build"}
    for key, value in raw.items():
        if key in ("format", "version", "line_items"):
            continue
        if _valid({**base, key: value}):
            base[key] = value
    lines: list[Any] = []
    raw_lines = raw.get("line_items")
    for line in raw_lines if isinstance(raw_lines, list) else []:
        if _valid({**base, "line_items": [*lines, line]}):
            lines.append(line)
    base["line_items"] = lines
    return Build.from_dict(base)


def _valid(doc: dict[str, Any]) -> bool:
    try:
        Build.from_dict(doc)
    except InputError:
        return False
    return True
