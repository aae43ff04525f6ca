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
    timer.timeout.connect(_collect)
    timer.start()
    return timer


_state = {"frozen": False, "thawed": False}


def _collect() -> None:
    """A full collection looks at every object the program holds - about 70,000 once the
    window is built: 75-105 ms on the GUI thread (measured with benchmarks/bench_gui_stalls.py,
    a stall in whatever the user was doing 5 s after the start). So the first tick does not
    collect: it freezes what the program holds by then (modules, the catalog, the window:
    they live as long as the program; a full collection at that point found about 240
    unreachable objects of 70,000, which stay), and the later ticks only look at what was
    made since. After :func:`thaw` (old pages to free) the tick collects in full first."""
    if not _state["frozen"]:
        if _state["thawed"]:
            gc.collect()
            _state["thawed"] = False
        gc.freeze()
        _state["frozen"] = True
        return
    gc.collect()


def thaw() -> None:
    """Make the frozen objects collectable again, and collect and freeze afresh at the next
    tick: called when the window rebuilds its pages (a language switch), whose old widgets
    would otherwise stay frozen for ever."""
    gc.unfreeze()
    _state["frozen"] = False
    _state["thawed"] = True
