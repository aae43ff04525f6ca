"""How a command-line process ends once its work is on disk: without tearing the interpreter
down.

Python's normal exit, after ``atexit``, frees every module and object one by one: for an
export, with reportlab, the catalog and the sheet loaded, that is about 25 ms of CPU, a tenth of
a 10-line quote's process (issue 27) and of no use to anyone - the kernel takes the memory back
at once. :func:`end_process` skips it, and only it: the output is written and flushed, standard
output and standard error are flushed, and the ``atexit`` handlers run as they would (logging's
flush, ``weakref.finalize`` cleanups such as temporary folders). What is skipped is object
finalisation, where a file object still open for writing would flush its buffer. So the short
way is taken only when a command has said its output is complete (:func:`mark_output_done`, the
PDF/workbook export after its atomic write, which fsyncs and closes the file) and the process
has opened no file descriptor for writing that is still open: the descriptors open for writing
at the end (read from ``/proc/self``) are those it inherited, listed when this module is
imported, at the process's start (``torchrig.cli`` and ``torchrig.__main__`` import it first).
A descriptor inherited from the parent (a pipe of the shell that started it) has no buffer in
this process to lose. Where there is no ``/proc`` the normal exit runs; so it does when
flushing fails (a closed pipe), and while another thread runs (the normal exit waits for it).

Only the processes' entry points call :func:`end_process` (``python -m torchrig``,
``python -m torchrig.cli`` and the installed scripts), never ``cli.main``: tests and other
callers that run a command in-process get its exit code back as before.
"""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn

_OUTPUT_DONE = False


def mark_output_done() -> None:
    """The command's output file is written, flushed, fsynced and closed."""
    global _OUTPUT_DONE
    _OUTPUT_DONE = True


def end_process(code: int) -> NoReturn:
    """Exit with ``code``: the short way when :func:`can_end_early`, else ``sys.exit``."""
    if can_end_early():
        try:
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except (OSError, ValueError):
            sys.exit(code)  # let the normal exit report or ignore it as it always has
        atexit._run_exitfuncs()
        os._exit(code)
    sys.exit(code)


def can_end_early() -> bool:
    """Whether the output is marked done, no other thread is running (the normal exit waits
    for them) and every descriptor this process opened for writing is closed."""
    if not _OUTPUT_DONE or _INHERITED is None:
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    now = open_for_writing()
    return now is not None and not set(now) - set(_INHERITED)


def open_for_writing() -> list[int] | None:
    """File descriptors above 2 open for writing (or reading and writing); None when the
    system cannot say (no ``/proc/self/fdinfo``), which counts as "maybe"."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    found: list[int] = []
    for name in names:
        fd = int(name)
        if fd <= 2:
            continue
        try:
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as info:
                flags_line = next(line for line in info if line.startswith("flags:"))
        except (OSError, StopIteration):
            continue  # gone since listed (the listing's own descriptor): not open
        if int(flags_line.split()[1], 8) & (os.O_WRONLY | os.O_RDWR):
            found.append(fd)
    return found


_INHERITED = open_for_writing()
"""What the process had open for writing when it started (see the module's doc)."""
