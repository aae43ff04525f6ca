"""Long fuzz run over every file TorchRig reads (docs/reliability.md, "Random damage").

    .venv/bin/python scripts/fuzz_files.py N [--target NAME ...] [--seed S]

Tries N damaged files per target (build, workload, bench report, collective report, price
list, each catalog file and tiers.json) with the same mutations and the same contract as
tests/reliability/test_hostile_files.py, which runs 50 per target in CI. A failure prints
hypothesis's smallest failing example and the run carries on with the next target; the exit
status is 1 if any target failed. The summary table is what docs/reliability.md records.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The targets and mutations live with the tests so both always fuzz the same thing.
sys.path.insert(0, str(REPO / "tests" / "reliability"))
sys.path.insert(0, str(REPO / "app"))

import fuzz_targets  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def fuzz_target(name: str, cases: int, run_seed: int, folder: Path) -> tuple[Counter[str], str]:
    """Run ``cases`` examples against one target; returns outcome counts and a failure text."""
    target = fuzz_targets.TARGETS[name]
    path = fuzz_targets.target_path(target, folder)
    counts: Counter[str] = Counter()
    longest = [0]

    @seed(run_seed)
    @settings(max_examples=cases, database=None, deadline=None,
              # Mutations draw from large samples (a 33 KB catalog file); generation is slow by
              # design, not a sign of a bad strategy.
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.data())
    def run(data: st.DataObject) -> None:
        outcome = fuzz_targets.attempt(target, path, fuzz_targets.hostile_payload(data, target))
        counts["accepted" if outcome.accepted else "refused"] += 1
        longest[0] = max(longest[0], len(outcome.message))

    try:
        run()
    except Exception as exc:  # report and go on: one broken loader must not hide the others
        counts["longest_message"] = longest[0]
        return counts, "".join(traceback.format_exception(exc))
    counts["longest_message"] = longest[0]
    return counts, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", type=int, help="damaged files to try per target")
    parser.add_argument("--target", action="append", choices=sorted(fuzz_targets.TARGETS),
                        help="only these targets (repeatable); default: all")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    names = args.target or sorted(fuzz_targets.TARGETS)
    failures: dict[str, str] = {}
    total = 0
    print(f"{'target':<34} {'tried':>7} {'accepted':>9} {'refused':>8} {'longest msg':>12} "
          f"{'seconds':>8}")
    for name in names:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="torchrig-fuzz-") as folder:
            counts, failure = fuzz_target(name, args.cases, args.seed, Path(folder))
        tried = counts["accepted"] + counts["refused"]
        total += tried
        print(f"{name:<34} {tried:>7} {counts['accepted']:>9} {counts['refused']:>8} "
              f"{counts['longest_message']:>12} {time.perf_counter() - started:>8.1f}"
              + ("  FAILED" if failure else ""), flush=True)
        if failure:
            failures[name] = failure
    print(f"total: {total} files tried, {len(failures)} target(s) failed")
    for name, failure in failures.items():
        print(f"\n{name}: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
