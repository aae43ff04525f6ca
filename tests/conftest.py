"""Test-wide setup: offscreen Qt, isolated settings and data folders, no leaked threads."""

from __future__ import annotations

import os
import sys
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _share_the_cores_between_workers() -> None:
    """One torch (OpenMP) thread pool per core share, not per core, under pytest-xdist.

    ``./dev test`` runs ``pytest -n 2`` on CI's 2 cores: each worker's torch (and every child
    it starts, which inherits the environment) would otherwise run one thread per core, four
    busy threads on two cores, and OpenMP's spinning threads then wait on each other. Measured
    on the 2-core machine (2026-12-07): two processes each verifying a 4-layer llama 3 times
    took 7.8-10.5 s with 2 threads each, 3.2-4.1 s with 1. A thread count the user set is kept;
    a run without xdist keeps torch's default."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if workers <= 1 or "OMP_NUM_THREADS" in os.environ:
        return
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    threads = max(1, (cpus or 1) // workers)
    os.environ["OMP_NUM_THREADS"] = str(threads)
    torch = sys.modules.get("torch")  # imported before this file: set it directly too
    if torch is not None:
        torch.set_num_threads(threads)


_share_the_cores_between_workers()


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
