"""The planner against the published reference table (issue 24; docs/published-reference.md).

Plans every row of ``tests/planning/published/reference_rows.py`` through the test harness and
prints, per row: the published figure, the planner's, their ratio, the tolerance, the row's
role and its status (pass, known miss, FAIL); then per kind (training throughput, memory,
serving) the median and worst |log(predicted / published)|, shown as an x-factor and as a
percentage error, separately for calibration rows, check rows and all rows. Rows with no
planned figure (nothing fits, or the planner gives none) are counted but not in the medians.

Usage: ``python benchmarks/published_reference.py [--json FILE] [--markdown]``
(``--markdown`` prints the tables as the note's Markdown, with the commit they were run at).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "app", ROOT / "tests" / "planning"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from published.harness import Result, Summary, evaluate_all, summarise  # noqa: E402
from published.reference_rows import KINDS  # noqa: E402

GROUPS = ("calibration", "check", "all")


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                             check=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def commit() -> str:
    """Where the figures come from: the commit run at, and the last commit that changed the
    planner's code or data (app/, resources/), with a warning when those are modified."""
    head = _git("rev-parse", "--short=12", "HEAD") or "unknown"
    planner = _git("log", "-1", "--format=%h", "--abbrev=12", "--", "app", "resources")
    dirty = _git("status", "--porcelain", "--", "app", "resources")
    text = f"{head} (planner code and data last changed at {planner or 'unknown'})"
    return text + (", with uncommitted changes to app/ or resources/" if dirty else "")


def _figure(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "B":
        return f"{value / 2**30:.3f} GiB"
    return f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"


def _ratio(r: Result) -> str:
    return "-" if r.ratio is None else f"{r.ratio:.3f}"


def _tolerance(r: Result) -> str:
    t = r.row.tolerance
    return f"<= +{t.rel:.0%}" if t.bound == "at_most" else f"±{t.rel:.0%}"


def _x(s: Summary, which: str) -> str:
    value = s.median_abs_log if which == "median" else s.worst_abs_log
    if value is None:
        return "-"
    return f"x{s.x_factor(value):.2f} ({s.percent(value):.1f} %)"


def row_table(results: list[Result]) -> list[list[str]]:
    return [[r.row.id, r.row.kind, r.row.role,
             f"{_figure(r.row.published, r.row.unit)} {'' if r.row.unit == 'B' else r.row.unit}"
             .strip(), _figure(r.predicted, r.row.unit), _ratio(r), _tolerance(r), r.status,
             r.mode] for r in results]


ROW_HEAD = ["row", "kind", "role", "published", "predicted", "ratio", "tolerance", "status",
            "figure"]
SUMMARY_HEAD = ["kind (role)", "rows", "with figure", "pass", "median error", "worst error",
                "worst row"]


def summaries(results: list[Result]) -> list[Summary]:
    return [summarise(results, kind, group) for kind in KINDS for group in GROUPS]


def summary_table(sums: list[Summary]) -> list[list[str]]:
    return [[f"{s.kind} ({s.role})", str(s.rows), str(s.with_figure), str(s.passing),
             _x(s, "median"), _x(s, "worst"), s.worst_id or "-"] for s in sums]


def plain(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    lines = ["  ".join(x.ljust(w) for x, w in zip(line, widths, strict=True)).rstrip()
             for line in [head, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(x.replace("|", "\\|") for x in line) + " |" for line in rows]
    return "\n".join(lines)


def known_misses(results: list[Result]) -> str:
    """The known misses grouped by their written cause, as a Markdown list."""
    causes: dict[str, list[str]] = {}
    for r in results:
        if r.row.known_miss:
            causes.setdefault(r.row.known_miss, []).append(f"`{r.row.id}`")
    return "\n".join(f"- {', '.join(ids)}: {cause}" for cause, ids in causes.items())


def document(results: list[Result], sums: list[Summary], at: str) -> dict[str, Any]:
    return {
        "commit": at,
        "rows": [{"id": r.row.id, "kind": r.row.kind, "role": r.row.role,
                  "published": r.row.published, "unit": r.row.unit,
                  "compared": r.row.compared, "predicted": r.predicted, "ratio": r.ratio,
                  "tolerance": r.row.tolerance.rel, "bound": r.row.tolerance.bound,
                  "status": r.status, "figure": r.mode, "note": r.note,
                  "known_miss": r.row.known_miss, "source": r.row.source.url}
                 for r in results],
        "summary": [{"kind": s.kind, "role": s.role, "rows": s.rows,
                     "with_figure": s.with_figure, "passing": s.passing,
                     "median_x": s.x_factor(s.median_abs_log),
                     "median_percent": s.percent(s.median_abs_log),
                     "worst_x": s.x_factor(s.worst_abs_log),
                     "worst_percent": s.percent(s.worst_abs_log), "worst_row": s.worst_id}
                    for s in sums],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args(argv)
    results = evaluate_all()
    sums = summaries(results)
    at = commit()
    table = plain if not args.markdown else markdown
    print(f"Published reference: {len(results)} rows, run at commit {at}\n")
    print(table(ROW_HEAD, row_table(results)))
    print()
    print(table(SUMMARY_HEAD, summary_table(sums)))
    if args.markdown:
        print("\nKnown misses, by cause:\n")
        print(known_misses(results))
    if args.json:
        Path(args.json).write_text(json.dumps(document(results, sums, at), indent=1) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
