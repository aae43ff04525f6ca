"""Mutation testing of one TorchRig package (or module) against its own tests, with mutmut.

    ./dev mutate builds                 # every module of torchrig.builds vs tests/builds
    ./dev mutate builds.pricing         # one module, same tests
    ./dev mutate bench.timing --tests tests/bench/test_timing.py
    ./dev mutate planning --max-children 2 --show-survivors
    ./dev mutate builds.pricing --classify   # survivors sorted into text / logic / equivalent
    ./dev mutate builds.pricing --recheck before.json --tests tests/builds/test_pricing_mutants.py

mutmut (https://github.com/boxed/mutmut) changes the code one small edit at a time (``<`` for
``<=``, ``+ 1`` for ``+ 2``, a dropped argument...) and runs the tests that reach the changed
function; a mutant the tests still pass "survived". The score is killed / (killed + survived +
timeouts): a timeout counts against the tests, since it usually means a loop bound was changed
and no test noticed the answer being wrong - only noticed the time.

Why a workspace: mutmut finds the code to mutate only under ``./``, ``src/`` or ``source/``,
and TorchRig's code is under ``app/``. So the script builds ``.mutmut/<target>/`` with the
package at ``src/torchrig`` and the rest of the checkout (tests, resources, sample builds...)
beside it, writes mutmut's configuration there and runs mutmut inside it. Nothing in the checkout
is changed. The workspace is kept, so ``mutmut show NAME`` can be run there afterwards (the
script prints how), and a second run reuses mutmut's cache for unchanged functions.

Two scores are printed: the raw score over every mutant, and the logic score, which leaves out
the mutants that only change the words of a message for people (scripts/mutant_kinds.py says how
a mutant is sorted). Text survivors are never hidden: they stay in the raw score and are listed.
``--classify`` lists every survivor by kind with its change; a logic survivor that docs/testing.md
records as equivalent (with why) is listed as such, one whose row no longer matches as stale.

Memoised results (``functools`` caches such as the loaded catalog) are cleared at the start of
each mutant's test run: mutmut forks each run from a process that has already run the tests
once with the original code, and a cached catalog would hide every mutant of the loader from
every test that reads the shipped catalog.

``--recheck SUMMARY`` runs only the mutants an earlier run (its summary.json) did not kill and
keeps that run's verdict for the others: after tests were *added*, a mutant the old tests killed
is still killed (a test that fails still fails), so only the survivors need the new tests; and
since the earlier run's own tests let them through, ``--tests`` may name only the added tests
(much faster). It is refused when the mutated source differs from the earlier run's (the mutants
would not be the same); run in full then.

The summary (counts, scores, kinds, surviving mutants, run time) is printed and written to
``.mutmut/<target>/summary.json``; docs/testing.md records the project's figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import mutant_kinds

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_ROOT = ROOT / "app" / "torchrig"

DEFAULT_TESTS = {
    # Each package is judged by its own tests (the rule): a mutant in builds that only a
    # GUI test would catch is a gap in the builds tests.
    "builds": ["tests/builds"],
    "catalog": ["tests/catalog"],
    "planning": ["tests/planning"],
    "hardware": ["tests/hardware"],
    "bench": ["tests/bench"],
    "report": ["tests/report"],
    "verify": ["tests/verify"],
    "jsonio": ["tests/core"],
    "units": ["tests/core"],
    "collective_math": ["tests/core", "tests/bench/collective"],
}

# Everything a test may read besides the package itself.
COPY_BESIDE = ["tests", "resources", "builds", "workloads", "docs", "scripts", "benchmarks",
               "packaging", "pyproject.toml", "README.md", "CONTRIBUTING.md", "CHANGELOG.md",
               "dev", "LICENSE"]

DOC = ROOT / "docs" / "testing.md"

FRESH_CACHES = '''"""Written by scripts/mutate.py: each mutant's test run starts with empty caches.

mutmut forks every run from a process that already ran the tests with the original code, so a
functools cache (the loaded catalog) would hand the mutant the original's result.
"""

import sys


def pytest_sessionstart(session):
    for name, module in list(sys.modules.items()):
        if not name.startswith("torchrig") or module is None:
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
'''

# mutmut's words for a mutant's fate, grouped the way the score counts them.
KILLED = {"killed", "caught by type check"}
AGAINST = {"survived", "timeout", "suspicious"}
NOT_RUN = {"no tests", "skipped", "not checked", "segfault", "check was interrupted by user"}


def target_files(target: str) -> list[Path]:
    """The source files a dotted target names: a package folder or one module."""
    rel = Path(*target.split("."))
    folder, module = PACKAGE_ROOT / rel, (PACKAGE_ROOT / rel).with_suffix(".py")
    if folder.is_dir():
        return sorted(folder.rglob("*.py"))
    if module.is_file():
        return [module]
    raise SystemExit(f"mutate: no package or module torchrig.{target} under {PACKAGE_ROOT}")


def default_tests(target: str) -> list[str]:
    top = target.split(".")[0]
    if top not in DEFAULT_TESTS:
        raise SystemExit(f"mutate: no default tests for {target}; pass --tests PATH ...")
    return DEFAULT_TESTS[top]


def build_workspace(target: str, tests: list[str]) -> Path:
    ws = ROOT / ".mutmut" / target
    ws.mkdir(parents=True, exist_ok=True)
    src = ws / "src" / "torchrig"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(PACKAGE_ROOT, src, ignore=shutil.ignore_patterns("__pycache__"))
    for name in COPY_BESIDE:
        path, dest = ROOT / name, ws / name
        if dest.is_dir():
            shutil.rmtree(dest)
        if path.is_dir():
            shutil.copytree(path, dest, ignore=shutil.ignore_patterns("__pycache__"))
        elif path.is_file():
            shutil.copy2(path, dest)
    only = "\n    ".join(str(f.relative_to(PACKAGE_ROOT.parent.parent).as_posix())
                         .replace("app/", "src/", 1) for f in target_files(target))
    (ws / "conftest.py").write_text(FRESH_CACHES, encoding="utf-8")
    also = "\n    ".join([*(n for n in COPY_BESIDE if n not in ("tests", "pyproject.toml")),
                         "conftest.py"])
    (ws / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths=src/torchrig\n"
        f"only_mutate=\n    {only}\n"
        f"pytest_add_cli_args_test_selection=\n    " + "\n    ".join(tests) + "\n"
        # -x: one failing test is enough to call a mutant killed, and it saves minutes.
        "pytest_add_cli_args=\n    -x\n    -q\n    -p\n    no:cacheprovider\n"
        f"also_copy=\n    {also}\n",
        encoding="utf-8")
    return ws


def mutmut(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    # The editable install points at app/; the workspace's mutated copy must win.
    env.pop("PYTHONPATH", None)
    exe = Path(sys.executable).with_name("mutmut")
    return subprocess.run([str(exe), *args], cwd=ws, env=env, text=True, capture_output=True)


def source_hashes(ws: Path, target: str) -> dict[str, str]:
    """sha256 of each mutated file as the workspace holds it (the code the verdicts are for)."""
    out = {}
    for path in target_files(target):
        rel = path.relative_to(PACKAGE_ROOT.parent)
        out[rel.as_posix()] = hashlib.sha256((ws / "src" / rel).read_bytes()).hexdigest()
    return out


def statuses_of(ws: Path) -> dict[str, str]:
    out = mutmut(ws, "results", "--all", "true")
    statuses: dict[str, str] = {}
    for line in out.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and name:
            statuses[name] = status
    return statuses


def summarise(ws: Path, target: str, seconds: float | None = None,
              earlier: dict[str, str] | None = None) -> dict[str, object]:
    statuses = statuses_of(ws)
    rechecked = None
    if earlier is not None:
        # Verdicts of the earlier run stand for the mutants not run again (see module doc).
        rechecked = sorted(n for n, s in statuses.items() if s not in NOT_RUN)
        statuses = {n: (earlier.get(n, s) if s in NOT_RUN else s) for n, s in statuses.items()}
    kinds = mutant_kinds.all_mutants(ws / "mutants" / "src")
    survivors = sorted(n for n, s in statuses.items() if s in AGAINST)
    by_kind = mutant_kinds.sort_survivors(
        survivors, kinds, mutant_kinds.reviewed_equivalents(DOC))
    return {
        "target": f"torchrig.{target}",
        "mutants": len(statuses),
        "counts": _counts(statuses.values()),
        "score": _score(statuses.values()),
        # The same score over the mutants that change more than a message's words.
        "logic_mutants": sum(1 for n in statuses if _kind(kinds, n) == "logic"),
        "score_logic": _score(s for n, s in statuses.items() if _kind(kinds, n) == "logic"),
        "survivors": survivors,
        "survivors_by_kind": by_kind,
        "changes": {n: kinds[n].change for n in survivors if n in kinds},
        "seconds": None if seconds is None else round(seconds, 1),
        "sources": source_hashes(ws, target),
        "rechecked": rechecked,
        "statuses": statuses,
    }


def _kind(kinds: dict[str, mutant_kinds.Mutant], name: str) -> str:
    # A mutant the classifier cannot find is judged as logic: nothing is excused unseen.
    return kinds[name].kind if name in kinds else "logic"


def _counts(statuses: object) -> dict[str, int]:
    counts: dict[str, int] = {}
    for status in statuses:  # type: ignore[attr-defined]
        counts[status] = counts.get(status, 0) + 1
    return counts


def _score(statuses: object) -> float | None:
    """killed / (killed + survived + timeouts + suspicious); mutants not run do not count."""
    counts = _counts(statuses)
    killed = sum(counts.get(s, 0) for s in KILLED)
    judged = killed + sum(counts.get(s, 0) for s in AGAINST)
    return round(killed / judged, 4) if judged else None


def _pct(score: object) -> str:
    return f"{score:.1%}" if isinstance(score, float) else "n/a"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("target", help="package or module under torchrig, e.g. builds or "
                    "builds.pricing")
    ap.add_argument("--tests", nargs="+", help="test paths (default: the package's own)")
    ap.add_argument("--max-children", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--show-survivors", action="store_true",
                    help="print each surviving mutant's diff")
    ap.add_argument("--classify", action="store_true",
                    help="list the survivors by kind (message text, logic, equivalent as "
                    "recorded in docs/testing.md) with the mutated line")
    ap.add_argument("--recheck", type=Path, metavar="SUMMARY",
                    help="run only the mutants that the run summarised in SUMMARY (a "
                    "summary.json) did not kill; its other verdicts stand")
    ap.add_argument("--no-run", action="store_true",
                    help="summarise the workspace's last run again (after editing the "
                    "equivalents in docs/testing.md) without running mutmut")
    args = ap.parse_args(argv)
    if shutil.which("mutmut", path=str(Path(sys.executable).parent)) is None:
        print("mutate: mutmut is not installed in this environment (./dev setup installs it "
              "with the dev tools)", file=sys.stderr)
        return 2
    target_files(args.target)  # fails early on a bad name
    tests = args.tests or default_tests(args.target)
    earlier_summary: dict[str, object] | None = None
    earlier: dict[str, str] | None = None
    if args.recheck is not None:
        try:
            earlier_summary = json.loads(args.recheck.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"mutate: cannot read {args.recheck}: {exc}", file=sys.stderr)
            return 2
        found = earlier_summary.get("statuses") if isinstance(earlier_summary, dict) else None
        earlier = found if isinstance(found, dict) else None
        if not isinstance(earlier, dict) or not earlier:
            print(f"mutate: {args.recheck} has no per-mutant statuses", file=sys.stderr)
            return 2
    if args.no_run:
        ws = ROOT / ".mutmut" / args.target
        if not (ws / "mutants").is_dir():
            print(f"mutate: no earlier run in {ws}", file=sys.stderr)
            return 2
        last = (json.loads((ws / "summary.json").read_text(encoding="utf-8"))
                if (ws / "summary.json").is_file() else {})
        seconds = last.get("seconds")
        if last.get("rechecked") is not None and earlier is None:
            # The last run was a recheck: mutmut's own results hold only the mutants it ran.
            earlier = last.get("statuses")
    else:
        ws = build_workspace(args.target, tests)
        print(f"mutate: torchrig.{args.target} against {' '.join(tests)} in {ws}",
              file=sys.stderr)
        names: list[str] = []
        if earlier_summary is not None:
            if earlier_summary.get("sources") != source_hashes(ws, args.target):
                print(f"mutate: {args.recheck} is a run of other source code; run in full",
                      file=sys.stderr)
                return 2
            names = [n for n, s in earlier.items() if s not in KILLED]  # type: ignore[union-attr]
        started = time.monotonic()
        run = mutmut(ws, "run", "--max-children", str(args.max_children), *names)
        seconds = time.monotonic() - started
        if run.returncode != 0:
            tail = (run.stdout + run.stderr)[-3000:]
            print(f"mutate: mutmut run failed (exit {run.returncode}):\n{tail}",
                  file=sys.stderr)
            return 1
    summary = summarise(ws, args.target, seconds, earlier)
    (ws / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    by_kind: dict[str, list[str]] = summary["survivors_by_kind"]  # type: ignore[assignment]
    print(f"torchrig.{args.target}: {summary['mutants']} mutants, {summary['counts']}, "
          f"score {_pct(summary['score'])}, logic score {_pct(summary['score_logic'])} "
          f"({summary['logic_mutants']} logic mutants), "
          + (f"{seconds / 60:.1f} min" if seconds is not None else "run time not recorded"))
    print("survivors: " + ", ".join(f"{len(v)} {k}" for k, v in by_kind.items()))
    changes: dict[str, str] = summary["changes"]  # type: ignore[assignment]
    groups = by_kind.items() if args.classify else [("", summary["survivors"])]
    for kind, names in groups:  # type: ignore[assignment]
        if kind and names:
            print(f"{kind}:")
        for name in names:
            print(f"  survived: {name}" + (f"  | {changes.get(name, '?')}" if kind else ""))
            if args.show_survivors:
                print(mutmut(ws, "show", name).stdout)
    print(f"mutate: see one mutant with: cd {ws} && {Path(sys.executable).with_name('mutmut')} "
          "show NAME", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
