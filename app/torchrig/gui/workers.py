"""Run core work on a QThread and turn its callbacks into Qt signals.

Core code knows nothing of Qt: it takes a cancel token (``threading.Event``) and a plain
``progress(record)`` callback. :class:`TaskRunner` runs such a function on its own QThread and
re-emits progress, result and failure as signals, which Qt delivers on the GUI thread (queued
connections), so worker code never touches a widget.
"""

from __future__ import annotations

import importlib
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from torchrig.errors import InputError
from torchrig.gui.qt import QObject, QThread, Signal, Slot

TaskFn = Callable[[threading.Event, Callable[[Any], None]], Any]


class _Worker(QObject):
    """Lives on the worker thread; calls the task once.

    Signals:
        progress(object): a progress record from the core.
        succeeded(object): the task's return value.
        failed(str, str): a message for the user and the technical details.
        cancelled(): the task stopped because cancel was requested.
        done(): always emitted last, whatever the outcome.
    """

    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    done = Signal()

    def __init__(self, fn: TaskFn, cancel: threading.Event) -> None:
        super().__init__()
        self._fn = fn
        self._cancel = cancel

    @Slot()
    def run(self) -> None:
        try:
            result = self._fn(self._cancel, self.progress.emit)
        except InputError as exc:
            self.failed.emit(str(exc), "")
        except Exception as exc:  # a crash in core work must not take the window down
            self.failed.emit(f"{type(exc).__name__}: {exc}", traceback.format_exc())
        else:
            if self._cancel.is_set():
                self.cancelled.emit()
            self.succeeded.emit(result)
        finally:
            self.done.emit()


class TaskRunner(QObject):
    """Owns one worker thread at a time: start, cancel, and a clean shutdown on close.

    Signals:
        progress(object), succeeded(object), failed(str, str), cancelled(), finished():
        forwarded from the current task; ``finished`` comes after the thread has stopped.
    Attributes:
        running: whether a task is in flight.
    """

    progress = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    finished = Signal()

    _running_threads: set[QThread] = set()
    """Every worker thread started and not yet finished, app-wide (tests assert it is empty)."""

    @classmethod
    def running_threads(cls) -> int:
        return len(cls._running_threads)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        self._cancel = threading.Event()

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self, fn: TaskFn) -> None:
        if self._thread is not None:
            raise RuntimeError("a task is already running")
        self._cancel = threading.Event()
        thread = QThread()
        worker = _Worker(fn, self._cancel)
        worker.moveToThread(thread)
        thread.started.connect(worker.run)
        worker.progress.connect(self.progress)
        worker.succeeded.connect(self.succeeded)
        worker.failed.connect(self.failed)
        worker.cancelled.connect(self.cancelled)
        worker.done.connect(thread.quit)
        thread.finished.connect(self._on_thread_finished)
        self._thread, self._worker = thread, worker
        TaskRunner._running_threads.add(thread)
        thread.start()

    def cancel(self) -> None:
        """Ask the task to stop at its next step; returns at once."""
        self._cancel.set()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Cancel and wait for the thread (closeEvent). Returns False if it did not stop."""
        thread = self._thread
        if thread is None:
            return True
        self._cancel.set()
        thread.quit()
        stopped = thread.wait(timeout_ms)
        if stopped:
            self._on_thread_finished()
        return bool(stopped)

    @Slot()
    def _on_thread_finished(self) -> None:
        if self._thread is None:
            return
        thread, worker = self._thread, self._worker
        self._thread, self._worker = None, None
        TaskRunner._running_threads.discard(thread)
        if worker is not None:
            worker.deleteLater()
        if thread is not None:
            thread.deleteLater()
        self.finished.emit()


class Preload(QObject):
    """Import ``modules`` on a worker thread, then call ``then()`` on the GUI thread.

    A first import on the GUI thread holds it for as long as the import takes (the benchmark
    package: about 90 ms, more under load), and one the GUI thread starts while a worker is
    importing the same module waits on that module's import lock for the whole of it. A page
    whose first fill needs such a module imports it here first. ``then`` is called once the
    thread has stopped, whether the imports worked or not (a module that fails to import fails
    again, visibly, where ``then`` uses it); never after :meth:`shutdown`.
    """

    def __init__(self, modules: tuple[str, ...], then: Callable[[], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._then: Callable[[], None] | None = then
        self.runner = TaskRunner(self)
        self.runner.finished.connect(self._finished)
        missing = tuple(name for name in modules if name not in sys.modules)

        def work(cancel: threading.Event, progress: Callable[[Any], None]) -> None:
            for name in missing:
                if cancel.is_set():
                    return
                importlib.import_module(name)

        self.runner.start(work)

    @property
    def done(self) -> bool:
        return self._then is None and not self.runner.running

    @Slot()
    def _finished(self) -> None:
        then, self._then = self._then, None
        if then is not None:
            then()

    def shutdown(self) -> bool:
        self._then = None
        return self.runner.shutdown()
