"""How fast is a full PDF build sheet, and how big?

Target: under 1 s and under 500 KB for a full sheet (bill of materials, findings, the three
charts and the benchmark section) without an embedded font. The sheet is assembled from a
sample build in ``builds/`` and a sample workload in ``workloads/`` with the real catalog,
pricing, compatibility checks, planner and scaling model; only the benchmark section is
filled with synthetic figures (a measured report needs a GPU; these only give the renderer
something to draw and are never shown to anyone). Prints the time of the first render (fonts,
imports), the median, min and max over N further renders per language, the file size and the
page count; with ``--check-target`` exits 1 when a target is missed.

Usage: ``python benchmarks/bench_export.py [-n 10] [--build builds/pro-dual-4090.json]
[--workload workloads/imagenet-resnet50-amp-8gpu.json] [--check-target]``
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "app") not in sys.path:
    sys.path.insert(0, str(ROOT / "app"))

TARGET_S = 1.0
TARGET_BYTES = 500_000


def _full_sheet(build_path: Path, workload_path: Path, lang: str):  # noqa: ANN202
    from torchrig.builds.build import load_build
    from torchrig.catalog import load_catalog
    from torchrig.planning.workload import load_workload
    from torchrig.report.assemble import assemble_sheet
    from torchrig.report.sheet import BenchRow, ClaimRow, Header, SheetOptions

    catalog = load_catalog()
    build = load_build(build_path, catalog)
    header = Header(kind="quote", number="BENCH-1", date="2025-03-01", validity_days=30,
                    shop="Benchmark shop", customer="Benchmark customer")
    sheet = assemble_sheet(build, catalog, header=header, lang=lang,  # type: ignore[arg-type]
                           workload=load_workload(workload_path),
                           options=SheetOptions(invariant=True))
    # Synthetic figures for the benchmark tables and chart (see the module docstring).
    bench = tuple(BenchRow(f"synthetic figure {i}", (40 + 5 * i) * 1e12, "FLOP/s",
                           reference=100e12, reference_label="synthetic reference")
                  for i in range(8))
    claims = (ClaimRow("synthetic claim", "30-50%", 1.2, "ratio", "x_speedup", 1.3, 1.5),)
    assert sheet.requirements and sheet.scaling and sheet.findings, "sections missing"
    return replace(sheet, bench=bench, claims=claims)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=10, help="renders per language")
    parser.add_argument("--build", type=Path, default=ROOT / "builds" / "pro-dual-4090.json")
    parser.add_argument("--workload", type=Path,
                        default=ROOT / "workloads" / "imagenet-resnet50-amp-8gpu.json")
    parser.add_argument("--check-target", action="store_true")
    args = parser.parse_args(argv)

    import pypdf

    from torchrig.report.pdf import render_sheet_bytes

    ok = True
    for lang in ("en", "zh"):
        start = time.perf_counter()
        sheet = _full_sheet(args.build, args.workload, lang)
        assemble_s = time.perf_counter() - start
        start = time.perf_counter()
        render_sheet_bytes(sheet)  # first render: font registration, imports
        first = time.perf_counter() - start
        times = []
        pdf = b""
        for _ in range(args.n):
            start = time.perf_counter()
            pdf = render_sheet_bytes(sheet)
            times.append(time.perf_counter() - start)
        pages = len(pypdf.PdfReader(io.BytesIO(pdf)).pages)
        median = statistics.median(times)
        print(f"{lang}: assemble {assemble_s * 1000:.0f} ms (catalog, pricing, plan, analysis); "
              f"render: first {first * 1000:.0f} ms, then median {median * 1000:.0f} ms "
              f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, n={args.n}); "
              f"{len(pdf) / 1000:.1f} kB, {pages} pages")
        ok = ok and assemble_s + max(first, median) < TARGET_S and len(pdf) < TARGET_BYTES
    print(f"targets: < {TARGET_S:.0f} s and < {TARGET_BYTES // 1000} kB -> "
          f"{'met' if ok else 'MISSED'}")
    return 1 if args.check_target and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
