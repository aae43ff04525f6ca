#!/usr/bin/env python3
"""Check the suite's CPU figures against independent measurements.

The suite times its own loops; this measures the same operations with a different harness -
torch.utils.benchmark.Timer(...).blocked_autorange(min_run_time=5), which sizes its own blocks
and reports the median - and prints both side by side:

* CPU matmul: the suite's cpu_matmul (all usable threads) vs Timer at the same matrix size and
  thread count (Timer's default is ONE thread, so num_threads is set explicitly);
* memory bandwidth: the suite's membw copy vs Timer around torch's copy_ with the same buffer
  and threads, and vs a long single-threaded numpy copy (np.copyto) for scale.

    python benchmarks/bench_suite_verify.py [--min-run-time 5]

Agreement within ~15 % on a quiet machine means the suite's timing is sound; a shared or busy
machine shows up as disagreement, so run it when nothing else is running.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-run-time", type=float, default=5.0,
                        help="seconds per independent measurement (default 5)")
    args = parser.parse_args(argv)

    import numpy as np
    import torch
    from torch.utils.benchmark import Timer

    from torchrig.bench.runner import run_suite
    from torchrig.bench.settings import BenchSettings

    threads = _usable_cpus()
    print(f"torch {torch.__version__}, {threads} usable CPUs, "
          f"load average {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}")
    t0 = time.perf_counter()
    report = run_suite(BenchSettings(preset="quick", device="cpu",
                                     only=("membw", "cpu_matmul")),
                       cancel=threading.Event())
    print(f"suite (membw + cpu_matmul, quick) took {time.perf_counter() - t0:.1f} s")
    rows: list[tuple[str, float | None, float, str]] = []

    cpu = report.result("cpu_matmul")
    for dtype_name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        m = cpu.measurement(dtype_name) if cpu else None
        if m is None or m.value is None:
            continue
        n = int(m.details["n"])
        a = torch.randn(n, n, dtype=dtype)
        b = torch.randn(n, n, dtype=dtype)
        c = torch.empty(n, n, dtype=dtype)
        timer = Timer("torch.matmul(a, b, out=c)", globals={"torch": torch, "a": a, "b": b,
                                                          "c": c}, num_threads=threads)
        t = timer.blocked_autorange(min_run_time=args.min_run_time).median
        rows.append((f"CPU {dtype_name} matmul {n}^3, {threads} threads (FLOP/s)", m.value,
                     2 * n**3 / t, "Timer.blocked_autorange"))

    membw = report.result("membw")
    m = membw.measurement("copy_rw") if membw else None
    if m is not None and m.value is not None:
        size = int(m.details["buffer_bytes"])
        src = torch.ones(size, dtype=torch.uint8)
        dst = torch.zeros(size, dtype=torch.uint8)
        timer = Timer("dst.copy_(src)", globals={"src": src, "dst": dst}, num_threads=threads)
        t = timer.blocked_autorange(min_run_time=args.min_run_time).median
        rows.append((f"copy {size >> 20} MiB, read + write, {threads} threads (B/s)", m.value,
                     2 * size / t, "Timer around torch copy_"))
        a_np = np.ones(size, dtype=np.uint8)
        b_np = np.zeros(size, dtype=np.uint8)
        np.copyto(b_np, a_np)
        times = []
        deadline = time.perf_counter() + args.min_run_time
        while time.perf_counter() < deadline or len(times) < 3:
            s = time.perf_counter()
            np.copyto(b_np, a_np)
            times.append(time.perf_counter() - s)
        times.sort()
        rows.append((f"copy {size >> 20} MiB, read + write, numpy 1 thread (B/s)", m.value,
                     2 * size / times[len(times) // 2], "np.copyto median (single thread)"))

    print()
    print(f"{'figure':58} {'suite':>12} {'independent':>12} {'suite/indep':>11}  method")
    for name, suite, indep, method in rows:
        ratio = suite / indep if suite else float("nan")
        print(f"{name:58} {suite:12.4g} {indep:12.4g} {ratio:11.2f}  {method}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
