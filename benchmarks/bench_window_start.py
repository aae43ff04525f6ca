"""The main window's start against a bare PySide6 window: time to first paint, idle memory.

Issue 27 asks the window to appear in at most 1.5x a bare ``QMainWindow``'s time and to idle
at no more than 1.5x its memory. One process per sample, started as ``torchrig`` starts the
GUI (``gui/app.py run_gui``: settings, language, theme, ``MainWindow(pages_later=True)``,
then the work queued after the first paint) or as the bare window; both on the offscreen
platform unless ``QT_QPA_PLATFORM`` says otherwise, with settings and data in a fresh
temporary folder. Each process prints, on one line:

- ``paint_s``: from the interpreter's start to a ``QTimer.singleShot(0)`` queued right after
  ``show()`` (it fires once the show's first paint has been handled);
- ``rss_mb``: the resident set after ``--idle`` seconds of the event loop (what the window
  holds once its start-up work is done: detection, anything queued after the paint);
- ``torch``: whether torch was imported by then (it must not be).

    python benchmarks/bench_window_start.py torchrig|bare [--idle 2] [--exit-after-paint]
    python benchmarks/bench_window_start.py --pairs 5 [--idle 2]

``--pairs N`` runs N pairs (torchrig, bare, torchrig, bare ...) in fresh interpreters and prints
the medians and the median per-pair ratios. Any whole-process timer can pair the two single
modes instead (``/usr/bin/time -v``, hyperfine); ``--exit-after-paint`` then ends each process
at its first paint so the process time is the start-up alone.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _process_start() -> float:
    """The interpreter's start on the monotonic clock (Linux: /proc; elsewhere: now)."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return time.monotonic() - (uptime - start_ticks / ticks)
    except (OSError, ValueError, IndexError):
        return time.monotonic()


def _rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # peak, not current


def one(kind: str, idle_s: float, exit_after_paint: bool) -> int:
    """Start one window of ``kind`` in this process and print its figures."""
    started = _process_start()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # Fresh settings and data, never the user's (a saved last page or language changes it).
    home = tempfile.mkdtemp(prefix="torchrig-window-")
    os.environ.setdefault("TORCHRIG_CONFIG_DIR", str(Path(home) / "config"))
    os.environ.setdefault("TORCHRIG_DATA_DIR", str(Path(home) / "data"))
    if kind == "bare":
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication, QMainWindow

        app = QApplication(sys.argv[:1])
        window = QMainWindow()
        window.setWindowTitle("bare")
        window.resize(1280, 820)
    else:
        sys.path.insert(0, str(ROOT / "app"))
        from torchrig.gui.app import create_app
        from torchrig.gui.i18n import apply_language, resolve_language
        from torchrig.gui.main_window import MainWindow
        from torchrig.gui.qt import QTimer
        from torchrig.gui.settings import Settings
        from torchrig.gui.theme import apply_theme

        app = create_app(sys.argv[:1])
        settings = Settings()
        lang = resolve_language(settings.language)
        apply_language(lang)
        apply_theme(settings.theme)
        window = MainWindow(lang=lang, settings=settings, pages_later=True)
        window.start_after_first_paint()
    figures: dict[str, float] = {}

    def painted() -> None:
        figures["paint_s"] = time.monotonic() - started
        if exit_after_paint:
            print(f"paint_s={figures['paint_s']:.4f}", flush=True)
            os._exit(0)
        QTimer.singleShot(int(idle_s * 1000), idle)

    def idle() -> None:
        print(f"paint_s={figures['paint_s']:.4f} rss_mb={_rss_mb():.1f} "
              f"torch={'torch' in sys.modules}", flush=True)
        app.quit()

    window.show()
    QTimer.singleShot(0, painted)
    app.exec()
    if kind != "bare":
        # Close as the app does (pages shut their worker threads down).
        window.close()
    shutil.rmtree(home, ignore_errors=True)
    return 0


def _sample(kind: str, idle_s: float) -> dict[str, str]:
    # With bytecode, as an installed TorchRig runs (PYTHONDONTWRITEBYTECODE in the shell
    # would time TorchRig's modules compiled from source against PySide6's installed bytecode).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, __file__, kind, "--idle", str(idle_s)],
                         capture_output=True, text=True, timeout=120, check=True, env=env)
    line = out.stdout.strip().splitlines()[-1]
    return dict(field.split("=", 1) for field in line.split())


def pairs(n: int, idle_s: float) -> int:
    _sample("torchrig", idle_s)  # warm the file and bytecode caches
    _sample("bare", idle_s)
    runs = [(_sample("torchrig", idle_s), _sample("bare", idle_s)) for _ in range(n)]
    for name, unit, scale in (("paint_s", "ms", 1000.0), ("rss_mb", "MB", 1.0)):
        a = [float(t[name]) for t, _ in runs]
        b = [float(r[name]) for _, r in runs]
        ratio = statistics.median(x / y for x, y in zip(a, b, strict=True))
        print(f"{name:8s} torchrig median {statistics.median(a) * scale:7.1f} {unit}   "
              f"bare median {statistics.median(b) * scale:7.1f} {unit}   "
              f"A/B {ratio:4.2f}x (goal <= 1.5x)")
    print(f"torch imported in any torchrig run: {any(t['torch'] == 'True' for t, _ in runs)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", nargs="?", choices=["torchrig", "bare"])
    parser.add_argument("--idle", type=float, default=2.0, help="seconds idle before RSS")
    parser.add_argument("--exit-after-paint", action="store_true")
    parser.add_argument("--pairs", type=int, default=0)
    args = parser.parse_args()
    if args.pairs:
        return pairs(args.pairs, args.idle)
    if args.kind is None:
        parser.error("give torchrig or bare, or --pairs N")
    return one(args.kind, args.idle, args.exit_after_paint)


if __name__ == "__main__":
    sys.exit(main())
