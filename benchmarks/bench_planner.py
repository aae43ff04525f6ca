#!/usr/bin/env python3
"""Time ``plan()`` over the sample workloads: the GUI re-plans on every keystroke, so one
evaluation must stay well under a frame (target: < 5 ms typical).

Run from the repository root:  ``.venv/bin/python benchmarks/bench_planner.py [--repeat N]``
Prints, per workload, the median and maximum time of one evaluation (with and without a GPU,
so the throughput path is included) and the overall median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "app"))

from torchrig.planning.device import DeviceSpec  # noqa: E402
from torchrig.planning.plan_output import format_plan_text  # noqa: E402
from torchrig.planning.requirements import plan  # noqa: E402
from torchrig.planning.workload import load_workload  # noqa: E402
from torchrig.units import GiB  # noqa: E402

# A100 80GB SXM4 dense peaks and bandwidth from docs/hardware-sources.md sec. 1.
A100 = DeviceSpec("A100 80GB SXM4", 80 * GiB, {"fp32": 19.5e12, "tf32": 156e12,
                                               "fp16": 312e12, "bf16": 312e12}, 2039e9, True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="evaluations per workload")
    args = parser.parse_args(argv)
    paths = sorted((REPO / "workloads").glob("*.json"))
    workloads = [(p.stem, load_workload(p)) for p in paths]
    plan(workloads[0][1], A100)  # load and cache the presets once, as the app does
    print(f"plan() over {len(workloads)} sample workloads, {args.repeat} evaluations each")
    print(f"{'workload':34s} {'median':>9s} {'max':>9s} {'+text':>9s}")
    medians = []
    for name, w in workloads:
        times = []
        for i in range(args.repeat):
            gpu = A100 if i % 2 else None
            start = time.perf_counter()
            plan(w, gpu)
            times.append(time.perf_counter() - start)
        start = time.perf_counter()
        format_plan_text(w, plan(w, A100), "zh")
        text = time.perf_counter() - start
        medians.append(statistics.median(times))
        print(f"{name:34s} {statistics.median(times) * 1e3:7.3f}ms {max(times) * 1e3:7.3f}ms "
              f"{text * 1e3:7.3f}ms")
    print(f"overall median {statistics.median(medians) * 1e3:.3f} ms per plan() "
          f"(target < 5 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
