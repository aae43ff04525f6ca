"""Test-wide setup: offscreen Qt, isolated settings and data folders, no leaked threads."""

from __future__ import annotations

import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    """Point settings, data and cache folders at a temp dir so tests never touch the real ones."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("TORCHRIG_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("TORCHRIG_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    yield


@pytest.fixture(autouse=True)
def _no_leaked_threads():
    """Fail any test that leaves a Python thread running (QThreads are checked in the GUI
    conftest): a thread outliving its test can crash a later one."""
    before = set(threading.enumerate())
    yield
    leaked = [
        t for t in threading.enumerate()
        if t not in before and t.is_alive() and not t.daemon
    ]
    for thread in leaked:
        thread.join(timeout=5)
    still = [t.name for t in leaked if t.is_alive()]
    assert not still, f"test left threads running: {still}"
