"""How fast is hardware detection without torch?

The design promises detection "in a few hundred ms" so ``torchrig detect`` and the machine page
feel instant; the target here is under 0.5 s wall for a fresh ``python -c`` that imports and
runs ``detect()`` on a 2-core machine. This script prints:

- ``detect()`` in-process, median (and min/max) of N calls after one warm-up call;
- a fresh interpreter running ``from torchrig.hardware import detect; detect()``;
- a fresh ``python -m torchrig.hardware`` (detection + JSON on stdout);
- a bare ``python -c pass`` for the interpreter's own share of the start-up;

and fails (exit 1) if detection imported torch, or with ``--check-target`` if the fresh-process
median is over the target.

Usage: ``python benchmarks/bench_detect.py [-n 20] [-m 7] [--check-target]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

APP_DIR = Path(__file__).resolve().parent.parent / "app"
TARGET_S = 0.5


def _env() -> dict[str, str]:
    """Let the child interpreters import torchrig from this checkout, installed or not."""
    existing = os.environ.get("PYTHONPATH")
    path = str(APP_DIR) + (os.pathsep + existing if existing else "")
    return dict(os.environ, PYTHONPATH=path)


def in_process(n: int) -> list[float]:
    if str(APP_DIR) not in sys.path:
        sys.path.insert(0, str(APP_DIR))
    from torchrig.hardware import detect

    detect()  # warm-up: module imports and the page cache are paid once
    times = []
    for _ in range(n):
        start = time.perf_counter()
        detect()
        times.append(time.perf_counter() - start)
    if "torch" in sys.modules:
        raise SystemExit("FAIL: detect(use_torch=False) imported torch")
    return times


def fresh_process(args: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, *args], env=_env(), capture_output=True, text=True, timeout=120
        )
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"FAIL: {args} exited {done.returncode}: {done.stderr.strip()}")
        if "TORCH-LOADED" in done.stdout:
            raise SystemExit(f"FAIL: {args} imported torch")
    return times


def _line(label: str, times: list[float]) -> str:
    median = statistics.median(times)
    return (
        f"{label:<44} median {median * 1000:7.1f} ms   "
        f"min {min(times) * 1000:7.1f}   max {max(times) * 1000:7.1f}   (n={len(times)})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20, help="in-process calls (default 20)")
    parser.add_argument("-m", type=int, default=7, help="fresh-process runs (default 7)")
    parser.add_argument(
        "--check-target", action="store_true", help=f"exit 1 if over {TARGET_S} s"
    )
    args = parser.parse_args(argv)

    probe = (
        "import sys; from torchrig.hardware import detect; detect(); "
        "print('TORCH-LOADED' if 'torch' in sys.modules else 'ok')"
    )
    rows = [
        ("detect() in-process", in_process(args.n)),
        ("python -c 'import ...; detect()'", fresh_process(["-c", probe], args.m)),
        ("python -m torchrig.hardware (JSON out)", fresh_process(["-m", "torchrig.hardware"],
                                                                 args.m)),
        ("python -c pass (interpreter alone)", fresh_process(["-c", "pass"], args.m)),
    ]  # fmt: skip
    print(f"CPUs: {os.cpu_count()}  Python {sys.version.split()[0]}  target < {TARGET_S} s")
    for label, times in rows:
        print(_line(label, times))
    print("torch imported by detect(use_torch=False): no")

    fresh_median = statistics.median(rows[1][1])
    verdict = "within" if fresh_median < TARGET_S else "OVER"
    print(f"fresh-process detection {fresh_median * 1000:.0f} ms: {verdict} the target")
    if args.check_target and fresh_median >= TARGET_S:
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
