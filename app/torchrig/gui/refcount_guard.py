"""Workaround: PySide6 6.12 on Python 3.11 returns None, True and False without a reference.

PySide6 6.12.0's wheels return ``None`` from every void method (``setText``, ``setValue``,
``processEvents`` ...) and ``True`` from ``Signal.emit`` without taking a reference - harmless
on Python >= 3.12, where these objects are immortal, fatal on 3.11: each call lowers the
object's reference count by one, and after a few thousand widget updates (None starts near
5,000 once Qt is loaded) the interpreter aborts with "none_dealloc: deallocating None" or
"bool_dealloc". A benchmark run's progress updates and the GUI stall meter reached it within
seconds.

:func:`install` measures the leak once (ten void calls on a QObject, ten emits) and, only
where it is real, gives the three objects the effectively endless reference count CPython 3.12
gives them (PEP 683 immortality), so the leak can never reach zero. Remove this module once
PySide6 6.12 on Python 3.11 is no longer supported (pin PySide6 != 6.12.* or require 3.12).
"""

from __future__ import annotations

import ctypes
import sys

IMMORTAL = 1 << 40
"""Far more references than any session can leak (CPython 3.12 uses a similar magnitude)."""

_installed = False


def _leaks() -> bool:
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        ping = Signal()

    probe = _Probe()
    none, true = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(10):
        probe.setObjectName("probe")
        probe.ping.emit()
    return sys.getrefcount(None) < none - 5 or sys.getrefcount(True) < true - 5


def install() -> bool:
    """Apply the workaround where needed; True if it was applied (now or before)."""
    global _installed
    if _installed:
        return True
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython" or not _leaks():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += IMMORTAL
    _installed = True
    return True
