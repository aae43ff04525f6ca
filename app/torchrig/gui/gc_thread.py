"""Garbage collection only on the GUI thread.

Python's cyclic collector runs in whichever thread happens to allocate when a threshold is
crossed. When that is a worker thread (the PDF render, detection), it can free the last
reference to a Qt object that belongs to the GUI thread and delete it there: a segfault, seen
in the tests while a PDF rendered. Anki and other PySide/PyQt applications avoid it the same
way: automatic collection is switched off, and the GUI thread collects on a timer.
Reference counting still frees everything that is not in a cycle at once.
"""

from __future__ import annotations

import gc
from typing import Any

INTERVAL_MS = 5_000
"""Often enough that cycles (reportlab's, mostly) do not pile up between collections."""


def collect_on_gui_thread(app: Any) -> Any:
    """Disable automatic collection and collect every :data:`INTERVAL_MS` on ``app``'s thread.

    Returns the timer (parented to ``app``, so it lives as long as the application)."""
    from torchrig.gui.qt import QTimer

    gc.disable()
    timer = QTimer(app)
    timer.setInterval(INTERVAL_MS)
    timer.timeout.connect(lambda: gc.collect())
    timer.start()
    return timer
