"""What a PDF quote costs as a user meets it: one ``torchrig export`` process, against a plain
reportlab table of the same rows (``benchmarks/plain_reportlab_table.py``).

Issue 27's goals: a 10-line quote takes at most 1.5x the reference's CPU time, 500 lines at
most 1 s, and a 10-line quote is at most 30 kB. The build has the lines of
``builds/pro-dual-4090.json`` repeated up to ``--lines`` (10 and 500 by default), written to a
temporary folder; each case is exported in English and in Chinese (``--lang``).

Each round runs the export (A) and the reference (B) one after the other, A B A B ..., after
one warm-up pair, and the ratio A/B is taken pair by pair, so a machine whose speed drifts
(other jobs on it) moves both sides of a ratio alike. The time is the CPU time (user + system)
of the finished child process as the kernel counts it (``os.wait4``), from its start to the
file written; wall time is printed too but is the first figure load distorts. Medians, with
min and max. The same figures come from public tools: ``/usr/bin/time -f '%U %S'`` on each
command.

Usage: ``python benchmarks/bench_export_quote.py [-n 5] [--lines 10 500] [--lang en zh]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "builds" / "pro-dual-4090.json"
REFERENCE = ROOT / "benchmarks" / "plain_reportlab_table.py"

RATIO_GOAL = 1.5
"""A 10-line quote's CPU time over the reference's (issue 27)."""
LARGE_GOAL_S = 1.0
"""A 500-line quote's CPU time, seconds (issue 27)."""
SMALL_GOAL_BYTES = 30_000
"""A 10-line quote's size (issue 27)."""


def build_with_lines(lines: int, folder: Path) -> Path:
    """The sample build with its lines repeated up to ``lines``, as a build file."""
    build = json.loads(SAMPLE.read_text(encoding="utf-8"))
    sample = build["line_items"]
    build["line_items"] = [sample[i % len(sample)] for i in range(lines)]
    path = folder / f"quote-{lines}-lines.json"
    path.write_text(json.dumps(build, ensure_ascii=False), encoding="utf-8")
    return path


def run_child(command: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process run to its end.

    The children may write and reuse bytecode (``PYTHONDONTWRITEBYTECODE`` removed), as an
    installed TorchRig runs (pip compiles it on install) and as reportlab's own installed
    bytecode serves the reference: otherwise every export would compile its hundred
    modules from source, and the ratio would measure that."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "app"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    stderr = child.stderr.read().decode(errors="replace") if child.stderr else ""
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}: {stderr.strip()}")
    return usage.ru_utime + usage.ru_stime, wall


def spread(values: list[float], unit: str = "", scale: float = 1.0, digits: int = 3) -> str:
    return (f"{statistics.median(values) * scale:.{digits}f}{unit} "
            f"(min {min(values) * scale:.{digits}f}, max {max(values) * scale:.{digits}f})")


@dataclass
class Case:
    """One case's figures, one entry per pair."""

    export_cpu: list[float]
    reference_cpu: list[float]
    export_wall: list[float]
    ratio: list[float]
    bytes: int
    reference_bytes: int


def measure(lines: int, lang: str, runs: int, folder: Path) -> Case:
    build = build_with_lines(lines, folder)
    out = folder / f"quote-{lines}-{lang}.pdf"
    ref_out = folder / f"reference-{lines}.pdf"
    export = [sys.executable, "-m", "torchrig.cli", "export", str(build), "-o", str(out),
              "--lang", lang, "--invariant"]
    reference = [sys.executable, str(REFERENCE), str(build), str(ref_out)]
    run_child(export)  # warm-up pair: compiled bytecode, the file cache
    run_child(reference)
    a_cpu: list[float] = []
    b_cpu: list[float] = []
    a_wall: list[float] = []
    ratios: list[float] = []
    for _ in range(runs):
        cpu_a, wall_a = run_child(export)
        cpu_b, _wall_b = run_child(reference)
        a_cpu.append(cpu_a)
        b_cpu.append(cpu_b)
        a_wall.append(wall_a)
        ratios.append(cpu_a / cpu_b)
    return Case(a_cpu, b_cpu, a_wall, ratios, out.stat().st_size, ref_out.stat().st_size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=5, help="pairs per case")
    parser.add_argument("--lines", type=int, nargs="+", default=[10, 500])
    parser.add_argument("--lang", nargs="+", default=["en", "zh"], choices=["en", "zh"])
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; {args.n} pairs per case")
    with tempfile.TemporaryDirectory(prefix="torchrig-quote-bench-") as tmp:
        for lines in args.lines:
            for lang in args.lang:
                case = measure(lines, lang, args.n, Path(tmp))
                print(f"{lines} lines, --lang {lang}: export CPU {spread(case.export_cpu, ' s')}"
                      f"; reference CPU {spread(case.reference_cpu, ' s')}; export/reference "
                      f"{spread(case.ratio, 'x', digits=2)}; export wall "
                      f"{spread(case.export_wall, ' s')}; {case.bytes / 1000:.1f} kB "
                      f"(reference {case.reference_bytes / 1000:.1f} kB)", flush=True)
    print(f"goals: 10 lines <= {RATIO_GOAL}x the reference's CPU and <= "
          f"{SMALL_GOAL_BYTES // 1000} kB; 500 lines <= {LARGE_GOAL_S:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
