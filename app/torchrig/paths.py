"""Where TorchRig keeps the files it writes for the user (benchmark reports, history).

One function decides the folder so the GUI, the CLI and the benchmark runner always agree, and
so tests can redirect everything with one environment variable (``TORCHRIG_DATA_DIR``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DATA_DIR_ENV = "TORCHRIG_DATA_DIR"
"""Overrides the platform data folder (tests, portable installs, shared lab machines)."""


def data_dir() -> Path:
    """The per-user data folder; not created here (callers create what they write into).

    Linux follows the XDG base-directory spec (``$XDG_DATA_HOME`` or ``~/.local/share``),
    Windows uses the roaming ``%APPDATA%``, macOS ``~/Library/Application Support`` - the
    places each platform's backup and cleanup tools expect application data.
    """
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    home = Path.home()
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
