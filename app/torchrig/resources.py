"""Where TorchRig's read-only resources live (catalog, tiers, presets, icons, translations).

The same code runs from three layouts, and each puts ``resources/`` somewhere else:

- a source checkout: ``app/torchrig/../../resources``;
- a PyInstaller bundle: ``sys._MEIPASS/resources`` (``packaging/torchrig.spec`` puts it there);
- an installed wheel: ``<prefix>/share/torchrig/resources``, shipped as wheel data files and
  found through the wheel's own file list, so any prefix works (venv, ``--user``, ``/usr``).

``$TORCHRIG_RESOURCES`` overrides them all (tests, a catalog edited by hand, distro packages
that keep data elsewhere). The built-in layouts cannot change while the program runs, so the
folder found among them is remembered (a planner run asked 78 times per call, half of its
time); the variable is read on every call, so a test that changes it sees the change.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from torchrig.errors import InputError

RESOURCES_ENV = "TORCHRIG_RESOURCES"
"""Overrides every built-in location; taken as given (the loader names it if it is wrong)."""

DIST_NAME = "torchrig"
INSTALLED_SUBDIR = Path("share") / "torchrig" / "resources"
"""Where a wheel's data files put the resources, relative to the install prefix."""

MARKER = Path("catalog") / "sources.json"
"""A file every complete resources folder has; a folder without it is not ours."""

APP_ICON_NAME = "torchrig.svg"


def resource_candidates() -> Iterator[tuple[str, Path]]:
    """(layout, folder) pairs in the order they are tried; the folder may not exist.

    The installed-wheel location is asked for last and lazily: it reads the distribution's
    metadata, which is wasted work in a checkout or a bundle.
    """
    meipass = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and meipass:
        yield "bundle", Path(meipass) / "resources"
    yield "checkout", Path(__file__).resolve().parents[2] / "resources"
    installed = _installed_resources_dir()
    if installed is not None:
        yield "installed", installed


def resources_dir() -> Path:
    """The resources folder for this run: ``$TORCHRIG_RESOURCES``, else the first layout in
    :func:`resource_candidates` that holds a catalog.

    Raises :class:`InputError` listing every place looked at, so a broken install says where
    the files were expected instead of failing later on a missing catalog file.
    """
    override = os.environ.get(RESOURCES_ENV)
    if override:
        return Path(override).expanduser()
    return _built_in_resources_dir()


def forget_resources_dir() -> None:
    """Look the built-in layouts up again on the next call (tests that rearrange them)."""
    _built_in_resources_dir.cache_clear()


@functools.cache
def _built_in_resources_dir() -> Path:
    """The first built-in layout holding a catalog; cached (a failure is not: it raises)."""
    looked: list[str] = []
    for layout, folder in resource_candidates():
        if (folder / MARKER).is_file():
            return folder
        looked.append(f"{folder} ({layout})")
    raise InputError(
        "TorchRig's resources (catalog, tiers) were not found; looked in "
        + "; ".join(looked)
        + f". Reinstall TorchRig or set {RESOURCES_ENV} to the resources folder."
    )


def app_icon_path() -> Path | None:
    """The scalable application icon, or None when the resources cannot be found (a missing
    window icon must never stop the app from starting)."""
    try:
        path = resources_dir() / "icons" / APP_ICON_NAME
    except InputError:
        return None
    return path if path.is_file() else None


def _installed_resources_dir() -> Path | None:
    """The wheel's data-file copy of the resources, located through the distribution's RECORD.

    Asking the RECORD rather than ``sys.prefix`` finds the files wherever pip put them
    (a venv, ``--user``, ``--prefix``); None when torchrig is not installed as a distribution
    or was installed without the data files.
    """
    from importlib import metadata

    try:
        dist = metadata.distribution(DIST_NAME)
    except metadata.PackageNotFoundError:
        return None
    marker = (INSTALLED_SUBDIR / MARKER).as_posix()
    for file in dist.files or ():
        if file.as_posix().endswith(marker):
            located = Path(str(dist.locate_file(file))).resolve()
            # parents[1]: up from catalog/sources.json to the resources folder.
            return located.parents[1]
    return None
