"""GUI tests: fail any test that leaves a worker QThread running (napari's rule: a thread
outliving its test can segfault a later one)."""

from __future__ import annotations

import pytest

from torchrig.gui.workers import TaskRunner


@pytest.fixture(autouse=True)
def _no_running_qthreads(qtbot):
    yield
    qtbot.waitUntil(lambda: TaskRunner.running_threads() == 0, timeout=10_000)


@pytest.fixture
def window(qtbot):
    from torchrig.gui.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    yield win
    win.close()
