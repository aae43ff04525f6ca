"""Test-wide setup: offscreen Qt, isolated settings and data folders, no leaked threads."""

from __future__ import annotations

import importlib.util
import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_configure(config):
    """Where torchvision is installed, import it as verify does (without its compiled operators
    when its wheel was built for another torch, docs/verify.md): transformers imports torchvision
    whenever it is installed, and the tests that build transformers models as their independent
    oracle would otherwise fail on a torchvision that cannot load its operators."""
    if importlib.util.find_spec("torchvision") is not None:
        from torchrig.verify.library_models import torchvision_without_ops

        torchvision_without_ops()


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
