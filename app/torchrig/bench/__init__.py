"""Benchmark suite: measure this machine with torch and compare with specs and the seed's claims.

Public API (none of it imports torch; benchmarks import it when they run):

* :func:`run_suite` / :class:`BenchSettings` - run the suite with progress, cancel and budget;
* :class:`BenchReport` with :func:`save_report`, :func:`load_report`, :func:`reports_dir`,
  :func:`save_to_history`, :func:`list_reports` - the versioned JSON report and its history;
* :func:`storage_plan` - bytes the storage benchmark will write, to show before starting;
* :func:`bench_findings` - what the measurements mean (findings with fixes and sources).
"""

from __future__ import annotations

from torchrig.bench.base import Progress
from torchrig.bench.benchmarks.storage import storage_plan
from torchrig.bench.findings import bench_findings
from torchrig.bench.report import (
    BenchReport,
    BenchResult,
    Measurement,
    Reference,
    list_reports,
    load_report,
    reports_dir,
    save_report,
    save_to_history,
)
from torchrig.bench.runner import list_benchmarks, run_suite
from torchrig.bench.settings import BenchSettings

__all__ = [
    "BenchReport",
    "BenchResult",
    "BenchSettings",
    "Measurement",
    "Progress",
    "Reference",
    "bench_findings",
    "list_benchmarks",
    "list_reports",
    "load_report",
    "reports_dir",
    "run_suite",
    "save_report",
    "save_to_history",
    "storage_plan",
]
