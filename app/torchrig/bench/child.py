"""``python -m torchrig.bench.child``: the benchmark suite in a process of its own.

The parent (:func:`torchrig.bench.isolated.run_isolated`, used by the GUI's worker thread and
by ``torchrig bench``) writes one JSON request line to this process's stdin and reads JSON
lines back from its stdout: ``start`` (the report's header and the selected benchmarks),
``progress``, ``measurement``, ``result``, then ``report`` (the whole report) or
``input_error``. A line ``cancel`` on stdin, or stdin closing because the parent went away,
sets the suite's cancel token. The pipe is read with os.read from a private descriptor, never
through sys.stdin (see :func:`_private_stdin`).

The protocol gets a private copy of the stdout descriptor and fd 1 is pointed at stderr, so
a stray ``print`` in a benchmark or a C library writing to stdout cannot corrupt it. The
process ends with ``os._exit`` once the report is out: tearing torch's thread pools down
adds nothing and can hang after a failed kernel.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import IO, Any

from torchrig.bench.base import Benchmark, Progress
from torchrig.bench.isolated import (
    CANCEL_LINE,
    progress_to_dict,
    read_request,
    settings_from_dict,
)
from torchrig.bench.report import BenchReport, BenchResult, Measurement
from torchrig.errors import InputError


def load_registry(spec: str | None) -> list[Benchmark] | None:
    """``"module:attribute"`` naming a sequence of benchmarks (tests, or a site's own suite);
    None: the built-in suite."""
    if spec is None:
        return None
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise InputError(f"benchmark registry {spec!r}: expected module:attribute")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"benchmark registry {spec!r}: {exc}") from None
    return list(found)


class _Channel:
    """Writes protocol lines; one lock so the machine-state thread and the runner never
    interleave half lines."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def send(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"type": kind, **fields}, ensure_ascii=True)
        with self.lock:
            self.stream.write(line + "\n")
            self.stream.flush()


def _read_line(fd: int) -> str | None:
    """One line from ``fd`` with os.read: no Python file object, so no lock that a fork
    (DataLoader workers) could copy while held. None at end of file."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            return None if not data else data.decode("utf-8", "replace")
        data += chunk
    return data.decode("utf-8", "replace")


def _watch_stdin(fd: int, cancel: threading.Event) -> None:
    while True:
        line = _read_line(fd)
        if line is None or line.strip() == CANCEL_LINE:
            break
    cancel.set()  # "cancel", or the parent closed the pipe (it went away): stop either way


def _private_stdin() -> int:
    """Move the parent's pipe off fd 0 and leave an unlocked /dev/null as sys.stdin: a thread
    blocked reading sys.stdin holds its buffer lock, and a DataLoader worker forked meanwhile
    deadlocks when multiprocessing closes sys.stdin in the new process."""
    fd = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return fd


def _protocol_stream() -> IO[str]:
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return stream


def run(request: dict[str, Any], channel: _Channel, cancel: threading.Event) -> int:
    from torchrig.bench.runner import run_suite

    try:
        registry = load_registry(request.get("registry"))
        settings = settings_from_dict(request["settings"])
        profile = None
        if request.get("profile") is not None:
            from torchrig.hardware.model import SystemProfile

            profile = SystemProfile.from_dict(request["profile"])
        peaks_lookup = None
        if request.get("catalog_peaks"):
            from torchrig.bench.spec_compare import peaks_lookup as make_lookup
            from torchrig.catalog import load_catalog

            peaks_lookup = make_lookup(load_catalog())

        def started(report: BenchReport, selected: Sequence[Benchmark]) -> None:
            channel.send("start", report=report.to_dict(),
                         selected=[{"id": b.id, "title": b.title.to_dict()} for b in selected])

        def measured(m: Measurement) -> None:
            channel.send("measurement", measurement=m.to_dict())

        def finished(r: BenchResult) -> None:
            channel.send("result", result=r.to_dict())

        def progressed(p: Progress) -> None:
            channel.send("progress", progress=progress_to_dict(p))

        report = run_suite(settings, cancel=cancel, on_progress=progressed,
                           on_measurement=measured, on_result=finished, on_start=started,
                           profile=profile, detect=bool(request.get("detect", True)),
                           registry=registry, peaks_lookup=peaks_lookup)
    except InputError as exc:
        channel.send("input_error", message=str(exc))
        return 2
    channel.send("report", report=report.to_dict())
    return 0


def main() -> None:
    # Ctrl-C in a terminal reaches the whole foreground group; the parent decides what a
    # Ctrl-C means and tells this process through stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    channel = _Channel(_protocol_stream())
    control = _private_stdin()
    try:
        request = read_request(_read_line(control) or "")
    except InputError as exc:
        channel.send("input_error", message=str(exc))
        code = 2
    else:
        cancel = threading.Event()
        threading.Thread(target=_watch_stdin, args=(control, cancel),
                         name="torchrig-bench-stdin", daemon=True).start()
        code = run(request, channel, cancel)
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
