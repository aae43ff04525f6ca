"""Where TorchRig keeps the files it writes for the user (benchmark reports, history).

One function decides the folder so the GUI, the CLI and the benchmark runner always agree, and
so tests can redirect everything with one environment variable (``TORCHRIG_DATA_DIR``).
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from pathlib import Path

DATA_DIR_ENV = "TORCHRIG_DATA_DIR"
"""Overrides the platform data folder (tests, portable installs, shared lab machines)."""


def home_dir() -> Path | None:
    """The user's home folder, or None when there is none to find: HOME unset and a uid with
    no passwd entry (batch schedulers, containers run with an arbitrary uid), where
    ``Path.home()`` raises instead."""
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):
        return None
    return home if str(home) not in ("", "~") else None


@functools.cache
def fallback_dir() -> Path:
    """Where TorchRig keeps its files when the home folder is unknown: a private folder
    (mode 0700, random name) made once per process in the system temp folder. A fixed name
    there could be claimed first by another user (a symlink to their folder)."""
    return Path(tempfile.mkdtemp(prefix="torchrig-"))


def fallback_notice() -> str:
    """A sentence for the user when files go to :func:`fallback_dir` ("" otherwise)."""
    if os.environ.get(DATA_DIR_ENV) or home_dir() is not None:
        return ""
    return (f"the home folder is unknown (HOME is not set and this user has no passwd entry): "
            f"TorchRig keeps its files in {fallback_dir()}; set {DATA_DIR_ENV} to choose "
            "another folder")


def data_dir() -> Path:
    """The per-user data folder; not created here (callers create what they write into).

    Linux follows the XDG base-directory spec (``$XDG_DATA_HOME`` or ``~/.local/share``),
    Windows uses the roaming ``%APPDATA%``, macOS ``~/Library/Application Support`` - the
    places each platform's backup and cleanup tools expect application data.
    """
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    home = home_dir()
    if home is None:
        return fallback_dir() / "data"
    if sys.platform.startswith("win"):
        appdata = os.environ.get("APPDATA")
        base = Path(appdata) if appdata else home / "AppData" / "Roaming"
        return base / "TorchRig"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "TorchRig"
    xdg = os.environ.get("XDG_DATA_HOME")
    # The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".local" / "share"
    return base / "torchrig"


def recovery_dir() -> Path:
    """Where editors keep copies of unsaved builds (``builds/recovery.py`` writes and reads
    them). Here, below the builder, so the window can ask whether a crash left anything behind
    without importing the builder and the catalog."""
    return data_dir() / "recovery"
