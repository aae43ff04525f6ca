"""Crash recovery for unsaved build edits.

While a build has unsaved changes, the GUI keeps a copy in the user's data folder (written
atomically, so a crash mid-write leaves the previous copy). A clean save or a deliberate discard
removes it; on the next start a copy that is still there means the app did not close cleanly,
and the user is offered the unsaved build back.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from torchrig.builds.build import Build
from torchrig.errors import InputError
from torchrig.jsonio import atomic_write_json, load_versioned
from torchrig.paths import data_dir

RECOVERY_FORMAT = "torchrig.recovery"
RECOVERY_VERSION = 1


def recovery_path() -> Path:
    return data_dir() / "recovery" / "unsaved-build.json"


def save_recovery(build: Build, original: Path | None) -> None:
    """Keep a copy of unsaved edits; failures are ignored (recovery is a safety net, and a
    full or read-only disk must not interrupt editing)."""
    path = recovery_path()
    doc: dict[str, Any] = {"format": RECOVERY_FORMAT, "version": RECOVERY_VERSION,
                           "original": str(original) if original else None,
                           "build": build.to_dict()}
    with contextlib.suppress(OSError, InputError):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(path, doc)


def load_recovery() -> tuple[Build, Path | None] | None:
    """The unsaved build left by a crash, or None. A damaged copy is removed: it cannot be
    offered, and keeping it would ask again at every start."""
    path = recovery_path()
    if not path.exists():
        return None
    try:
        doc = load_versioned(path, RECOVERY_FORMAT, RECOVERY_VERSION)
        build = Build.from_dict(doc.get("build"), where=f"{path}: build")
    except InputError:
        clear_recovery()
        return None
    original = doc.get("original")
    return build, Path(original) if isinstance(original, str) and original else None


def clear_recovery() -> None:
    with contextlib.suppress(OSError):
        recovery_path().unlink()
