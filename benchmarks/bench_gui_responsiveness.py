"""Worst event-loop stall while the GUI does its long operations (issue 5 / issue 9).

A 5 ms QTimer records the longest gap between its ticks while, in turn: detection runs, the
Wizard re-plans on typed edits, the Report page renders the PDF preview, and the real quick
benchmark suite runs on its worker thread. Goal: no stall over ~50 ms.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gui_responsiveness.py [--no-bench]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]


class StallMeter:
    def __init__(self, app) -> None:
        from torchrig.gui.qt import QTimer

        self.app = app
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.last = time.perf_counter()
        self.worst = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def measure(self, start, done, limit_s: float = 300.0) -> float:
        self.worst, self.last = 0.0, time.perf_counter()
        self.timer.start()
        start()
        began = time.monotonic()
        deadline = began + limit_s
        # Keep ticking a little after a synchronous operation so its gap is counted.
        while (not done() or time.monotonic() < began + 0.05) and time.monotonic() < deadline:
            self.app.processEvents()
            time.sleep(0.001)
        self.timer.stop()
        return self.worst


def main() -> int:
    from torchrig.gui.app import create_app
    from torchrig.gui.main_window import MainWindow
    from torchrig.planning.workload import load_workload

    app = create_app(sys.argv[:1])
    window = MainWindow()
    window.show()
    meter = StallMeter(app)
    results: dict[str, float] = {}

    got = []
    window.machine_page.profile_changed.connect(got.append)
    results["detection"] = meter.measure(window.machine_page.refresh, lambda: bool(got))

    wizard = window.pages["wizard"]
    wizard.load_workload(load_workload(ROOT / "workloads" / "imagenet-resnet50-amp-8gpu.json"))
    edits = iter(["1", "12", "128", "1", "16", "64"])
    state = {"done": False}

    def type_next() -> None:
        try:
            text = next(edits)
        except StopIteration:
            state["done"] = True
            return
        field = wizard.widgets["batch_size"]
        field.setText(text)
        field.textEdited.emit(text)
        app.processEvents()
        type_next()

    results["wizard (6 edits)"] = meter.measure(type_next, lambda: state["done"])

    build_page = window.pages["build"]
    build_page.open_path(ROOT / "builds" / "professional.json")
    report = window.pages["report"]
    results["PDF preview"] = meter.measure(
        report.start_render, lambda: not report.runner.running and bool(report.pdf_bytes))

    if "--no-bench" not in sys.argv:
        bench = window.pages["bench"]
        # The first run imports torch on the worker; its C initialisation holds the GIL for
        # a moment, once per session. The second run shows the steady state.
        for name in ("benchmark (1st run)", "benchmark (2nd run)"):
            bench.report = None
            results[name] = meter.measure(
                bench.start, lambda: not bench.runner.running and bench.report is not None)
    window.build_page.dirty = False
    window.close()
    for name, worst in results.items():
        print(f"{name:20s} worst stall {worst * 1000:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
