"""PySide6 6.12 on Python 3.11 must not be able to drive None's reference count to zero."""

from __future__ import annotations

import sys

from torchrig.gui import qt
from torchrig.gui.qt import QLabel, QObject, Signal


class _Src(QObject):
    ping = Signal(object)


def test_many_void_calls_and_emits_cannot_deallocate_none(qapp):
    """200,000 setText calls and emits: with the leak and no guard, None (about 5,000
    references) and True would be deallocated and the interpreter would abort."""
    label, src = QLabel(), _Src()
    for _ in range(100_000):
        label.setText("x")
        src.ping.emit(1)
    assert sys.getrefcount(None) > 0 and sys.getrefcount(True) > 0
    if sys.version_info < (3, 12) and qt.refcount_guard_installed:
        assert sys.getrefcount(None) > qt.REFCOUNT_IMMORTAL // 2
