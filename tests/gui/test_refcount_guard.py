"""The guard in gui/qt.py against PySide6 6.12 on Python 3.11, which returns None and True
from every void call and emit without taking a reference: a few thousand widget updates drive
None's reference count to zero and the interpreter aborts ("none_dealloc"). The loops run in a
child Python, so the abort the guard prevents fails this test instead of killing the run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from torchrig.gui import qt

LEAK_PROBE = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QObject
    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(100):  # few: None starts near 1,000 with only QtCore loaded
        probe.setObjectName("probe")
    print(before - sys.getrefcount(None))
""")
"""PySide6 alone, without TorchRig's code: how many references to None 100 void calls lose
(0 where the bindings are sound, about 100 where they leak)."""

MANY_CALLS = textwrap.dedent("""
    import sys
    from torchrig.gui import qt  # every GUI module imports it: the guard is in place
    from torchrig.gui.qt import QApplication, QLabel, QObject, Signal

    class Source(QObject):
        ping = Signal(object)

    app = QApplication(sys.argv[:1])
    label, source = QLabel(), Source()
    true_before = sys.getrefcount(True)
    for _ in range(100_000):  # 20 times None's whole reference count at start-up
        label.setText("x")
        source.ping.emit(1)
    print(qt.refcount_guard_installed, true_before - sys.getrefcount(True))
""")


def _child(code: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)


def test_many_void_calls_and_emits_cannot_deallocate_none():
    probe = _child(LEAK_PROBE)
    assert probe.returncode == 0, probe.stderr
    lost = int(probe.stdout)
    run = _child(MANY_CALLS)
    # Without the guard on leaking bindings the child aborts (SIGABRT: "bool_dealloc" or
    # "none_dealloc").
    assert run.returncode == 0, f"the child died ({run.returncode}): {run.stderr[-500:]}"
    installed, true_lost = run.stdout.split()
    if lost > 50:  # these bindings leak: the guard must be in place, and it held
        assert installed == "True"
        # The leak was real in the loop too: each emit lost a True (far more than True's
        # whole count without the guard).
        assert int(true_lost) >= 99_000
    else:  # sound bindings (Python 3.12+, a fixed PySide6): nothing to guard
        assert installed == "False" and abs(int(true_lost)) < 500


def test_the_guard_leaves_sound_bindings_alone(monkeypatch):
    """Where void calls keep their references, installing the guard changes no count."""
    monkeypatch.setattr(qt, "refcount_guard_installed", False)
    monkeypatch.setattr(qt, "_qt_leaks_references", lambda: False)
    before = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
    assert qt.install_refcount_guard() is False
    after = sys.getrefcount(None), sys.getrefcount(True), sys.getrefcount(False)
    assert all(abs(a - b) < 50 for a, b in zip(after, before, strict=True)), (before, after)
    assert qt.refcount_guard_installed is False
