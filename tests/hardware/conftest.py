"""Fake /proc, /sys and /etc trees, and fixtures installing a fake pynvml module."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hwfakes import FakeNvml

from torchrig.hardware.sysfs import FsRoots


class FakeTree:
    """A directory laid out like the root of a Linux machine, written file by file."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.roots = FsRoots.under(base)

    def write(self, relative: str, text: str = "") -> Path:
        path = self.base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def write_bytes(self, relative: str, data: bytes) -> Path:
        path = self.base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def mkdir(self, relative: str) -> Path:
        path = self.base / relative
        path.mkdir(parents=True, exist_ok=True)
        return path

    def link(self, relative: str, target: str) -> Path:
        """Symlink ``relative`` -> ``target`` (both relative to the tree), as sysfs does."""
        path = self.base / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(self.base / target, path.parent), path)
        return path


@pytest.fixture
def tree(tmp_path: Path) -> FakeTree:
    return FakeTree(tmp_path / "root")


@pytest.fixture
def install_nvml(monkeypatch):
    """Put a FakeNvml in sys.modules as ``pynvml`` (or None: module missing)."""

    def install(module: FakeNvml | None) -> FakeNvml | None:
        monkeypatch.setitem(sys.modules, "pynvml", module)
        return module

    return install
