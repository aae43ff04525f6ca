"""Time from launch to the main window visible, against a minimal PySide6 window.

Each sample is a fresh interpreter (imports included), measured from process start to the
first paint of the window, on the offscreen platform (or the real one with --platform xcb under
Xvfb). Goal (issue 2): under 1 s here and no more than 3x the minimal window.

    .venv/bin/python benchmarks/bench_startup.py [--runs 7] [--platform offscreen]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CHILD = r"""
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = sys.argv[2]
start = float(sys.argv[3])
kind = sys.argv[1]
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QLabel

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print(f"{time.time() - start:.4f} {'torch' in sys.modules}", flush=True)
            os._exit(0)  # measured; the app's own start-up work may still be running
        return False

if kind == "minimal":
    app = QApplication(sys.argv[:1])
    window = QLabel("hello")
else:
    from torchrig.gui.app import create_app
    from torchrig.gui.main_window import MainWindow
    app = create_app(sys.argv[:1])
    window = MainWindow(pages_later=True)  # as run_gui starts it
    window.start_after_first_paint()
watcher = FirstPaint()
app.installEventFilter(watcher)
window.show()
app.exec()
"""


def sample(kind: str, platform: str) -> tuple[float, bool]:
    out = subprocess.run([sys.executable, "-c", CHILD, kind, platform, repr(time.time())],
                         capture_output=True, text=True, timeout=120, check=True)
    seconds, torch_loaded = out.stdout.split()
    return float(seconds), torch_loaded == "True"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--platform", default="offscreen")
    args = parser.parse_args()
    results = {}
    for kind in ("minimal", "torchrig"):
        sample(kind, args.platform)  # warm the OS file cache once
        times = []
        for _ in range(args.runs):
            seconds, torch_loaded = sample(kind, args.platform)
            assert not torch_loaded, "torch was imported before the first paint"
            times.append(seconds)
        results[kind] = times
        print(f"{kind:9s} median {statistics.median(times) * 1000:7.1f} ms   "
              f"min {min(times) * 1000:7.1f} ms   max {max(times) * 1000:7.1f} ms")
    ratio = statistics.median(results["torchrig"]) / statistics.median(results["minimal"])
    print(f"ratio torchrig / minimal (medians): {ratio:.2f}x  (goal <= 3x, and < 1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
