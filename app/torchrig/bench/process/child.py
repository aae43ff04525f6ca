"""``python -m torchrig.bench.process.child``: the benchmark suite in a process of its own.

The parent (:func:`torchrig.bench.process.isolated.run_isolated`, used by the GUI's worker
thread and by ``torchrig bench``) writes one JSON request line to this process's stdin and
reads JSON lines back from its stdout: ``start`` (the report's header and the selected
benchmarks), ``progress``, ``measurement``, ``result``, then ``report`` (the whole report) or
``input_error``; ``begin`` (id, budget and hard limit in seconds) just before each benchmark
runs, so the parent can stop one that overruns. A line ``cancel`` on stdin, or stdin
closing because the parent went away, sets the suite's cancel token. The pipe is read with
os.read from a private descriptor, never through sys.stdin (see
:mod:`torchrig.bench.process.channel`, which both TorchRig child processes share).

The protocol gets a private copy of the stdout descriptor and fd 1 is pointed at stderr, so
a stray ``print`` in a benchmark or a C library writing to stdout cannot corrupt it. The
process ends with ``os._exit`` once the report is out: tearing torch's thread pools down
adds nothing and can hang after a failed kernel.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from torchrig.bench.base import Benchmark, Progress
from torchrig.bench.process.channel import Channel, serve
from torchrig.bench.process.protocol import (
    load_registry,
    progress_to_dict,
    read_request,
    settings_from_dict,
)
from torchrig.bench.report import BenchReport, BenchResult, Measurement
from torchrig.errors import InputError


def run(request: dict[str, Any], channel: Channel, cancel: threading.Event) -> int:
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

        def began(bench_id: str, budget_s: float, hard_s: float) -> None:
            channel.send("begin", id=bench_id, budget_s=budget_s, hard_limit_s=hard_s)

        earlier = {r.id: r for r in (BenchResult.from_dict(d, "benchmark request")
                                     for d in request.get("earlier") or ())}
        wall_started = request.get("wall_started")

        report = run_suite(settings, cancel=cancel, on_progress=progressed,
                           on_measurement=measured, on_result=finished, on_start=started,
                           profile=profile, detect=bool(request.get("detect", True)),
                           registry=registry, peaks_lookup=peaks_lookup, on_begin=began,
                           earlier=earlier,
                           wall_started=float(wall_started) if isinstance(
                               wall_started, (int, float)) else None)
    except InputError as exc:
        channel.send("input_error", message=str(exc))
        return 2
    channel.send("report", report=report.to_dict())
    return 0


def main() -> None:
    serve(read_request, run)


if __name__ == "__main__":
    main()
