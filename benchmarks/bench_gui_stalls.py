"""The longest GUI-thread stall while the window does its slow operations (issue 27).

A heartbeat ``QTimer`` (5 ms) on the GUI thread records the longest gap between its ticks while
each action runs, from the user's gesture until its result is shown. Goal: no stall over
50 ms. The actions, each started through the widget a user touches:

- ``detection``: This machine's Refresh button, until the profile is shown;
- ``wizard keys``: six edits typed into the Wizard's batch field (keystrokes, one after the
  other as fast as the event loop takes them), until the plan of the last one is shown;
- ``verify start``: the Wizard's "Measure on this machine" button, for the first second of the
  run (the child process starting; the run itself is then cancelled with Cancel);
- ``PDF preview``: the Report page's preview of a sample build, until the preview is shown;
- ``print``: the Report page's Print button, the print dialog answered OK with "Print to file"
  (a PDF at the 1200 dpi Qt gives a file printer, so pages are rasterised at 600 dpi), until
  the status says the pages were sent. The dialog itself is the user's time, not a stall: it
  is answered at once.

Each action is run ``--repeat`` times (default 3); the worst and the median worst are printed.
Before the first action the window is shown and left to settle (its first paint, the pages'
start-up work, the first plan): that is the window's start, which
``bench_window_start.py`` measures, not any action's stall.

``--code DIR`` runs the actions against the ``torchrig`` package in ``DIR`` (another
checkout's ``app`` folder) instead of this one's, for a paired before/after in one session.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_gui_stalls.py [--repeat 3] [--only NAME]
        [--code OTHER_CHECKOUT/app]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEARTBEAT_MS = 5


class Heartbeat:
    """The longest gap between ticks of a 5 ms timer on the GUI thread."""

    def __init__(self, app: object) -> None:
        from torchrig.gui.qt import QTimer

        self.app = app
        self.timer = QTimer()
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)
        self.last = time.perf_counter()
        self.worst = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, now - self.last)
        self.last = now

    def measure(self, start: Callable[[], None], done: Callable[[], bool],
                limit_s: float = 120.0) -> float:
        """Worst gap (s) from ``start()`` until ``done()``, and 50 ms beyond it."""
        self.worst, self.last = 0.0, time.perf_counter()
        self.timer.start()
        start()
        deadline = time.monotonic() + limit_s
        while not done() and time.monotonic() < deadline:
            self.app.processEvents()  # type: ignore[attr-defined]
            time.sleep(0.001)
        tail = time.monotonic() + 0.05
        while time.monotonic() < tail:
            self.app.processEvents()  # type: ignore[attr-defined]
            time.sleep(0.001)
        self.timer.stop()
        return self.worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", action="append",
                        choices=["detection", "wizard keys", "verify start", "PDF preview",
                                 "print"])
    parser.add_argument("--code", type=Path, default=ROOT / "app",
                        help="the folder holding the torchrig package to measure")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="torchrig-stalls-")
    os.environ.setdefault("TORCHRIG_CONFIG_DIR", str(Path(home) / "config"))
    os.environ.setdefault("TORCHRIG_DATA_DIR", str(Path(home) / "data"))
    sys.path.insert(0, str(args.code.resolve()))

    from PySide6.QtTest import QTest

    from torchrig.gui.app import create_app
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.qt import Qt
    from torchrig.planning.workload import load_workload

    app = create_app(sys.argv[:1])
    window = MainWindow()
    window.show()
    beat = Heartbeat(app)
    left = Qt.MouseButton.LeftButton
    machine = window.machine_page
    wizard = window.pages["wizard"]
    report = window.pages["report"]
    panel = wizard.verify_panel
    window.build_page.open_path(ROOT / "builds" / "professional.json")
    workload = load_workload(ROOT / "workloads" / "imagenet-resnet50-amp-8gpu.json")
    # Settle: the first paint and the work queued after it, then a quiet half second.
    began = time.monotonic()
    beat.measure(lambda: None, lambda: time.monotonic() > began + 0.5
                 and not machine.runner.running and not wizard.planning)

    def detection() -> float:
        seen: list[object] = []
        machine.profile_changed.connect(seen.append)
        try:
            return beat.measure(lambda: QTest.mouseClick(machine.refresh_button, left),
                                lambda: bool(seen) and not machine.runner.running)
        finally:
            machine.profile_changed.disconnect(seen.append)

    def wizard_keys() -> float:
        wizard.load_workload(workload)
        beat.measure(lambda: None, lambda: not wizard.planning)  # settle first
        field = wizard.widgets["batch_size"]
        window.show_page("wizard")

        def type_keys() -> None:
            field.setFocus()
            field.selectAll()
            for key in "12864":
                QTest.keyClicks(field, key)
                app.processEvents()
            QTest.keyClick(field, Qt.Key.Key_Backspace)

        return beat.measure(type_keys, lambda: not wizard.planning)

    def verify_start() -> float:
        wizard.load_workload(workload)
        beat.measure(lambda: None, lambda: not wizard.planning)
        began = [0.0]

        def click() -> None:
            began[0] = time.monotonic()
            QTest.mouseClick(panel.measure_button, left)

        worst = beat.measure(click, lambda: time.monotonic() > began[0] + 1.0)
        QTest.mouseClick(panel.cancel_button, left)
        beat.measure(lambda: None, lambda: not panel.runner.running)
        return worst

    def preview() -> float:
        report.model.pdf_bytes = b""
        window.show_page("report")
        # Settle: the page's first layout and paint are the page switch's, not the preview's.
        shown = time.monotonic()
        beat.measure(lambda: None, lambda: time.monotonic() > shown + 0.2)
        return beat.measure(lambda: QTest.mouseClick(report.preview_button, left),
                            lambda: not report.runner.running and bool(report.model.pdf_bytes))

    def print_run() -> float:
        from torchrig.gui.qt import QDialog, QPrintDialog, QPrinter

        def accept(dialog: object) -> object:
            printer = dialog.printer()  # type: ignore[attr-defined]
            printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
            printer.setOutputFileName(str(Path(home) / "printed.pdf"))
            return QDialog.DialogCode.Accepted

        QPrintDialog.exec = accept  # type: ignore[method-assign]
        window.show_page("report")
        report.status.setText("")
        shown = time.monotonic()
        beat.measure(lambda: None, lambda: time.monotonic() > shown + 0.2)
        return beat.measure(lambda: QTest.mouseClick(report.print_button, left),
                            lambda: report.status.text().startswith("Sent "))

    actions = {"detection": detection, "wizard keys": wizard_keys,
               "verify start": verify_start, "PDF preview": preview, "print": print_run}
    results: dict[str, list[float]] = {}
    for name, action in actions.items():
        if args.only and name not in args.only:
            continue
        results[name] = [action() for _ in range(args.repeat)]
    window.build_page.dirty = False
    window.close()
    for name, worst in results.items():
        print(f"{name:13s} worst stall {max(worst) * 1000:6.1f} ms   median of the runs' worst "
              f"{statistics.median(worst) * 1000:6.1f} ms   (goal <= 50 ms; runs: "
              f"{', '.join(f'{w * 1000:.0f}' for w in worst)} ms)")
    print(f"torch imported in the GUI process: {'torch' in sys.modules}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
