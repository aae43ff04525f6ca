"""The yardstick for a PDF quote's speed: a plain reportlab table of the same rows.

Issue 27 asks a 10-line PDF quote to take at most 1.5x this process: Python, reportlab's
import, one ``SimpleDocTemplate`` with one ``Table`` of the build's lines (item, category,
quantity, unit price, currency) in Helvetica, written to a file. No TorchRig code runs, so the
ratio is what TorchRig adds. ``benchmarks/bench_export_quote.py`` pairs it with the export run
by run; by hand, time each in turn with public tools:

    /usr/bin/time -f '%U %S' python benchmarks/plain_reportlab_table.py builds/pro-dual-4090.json A
    /usr/bin/time -f '%U %S' python -m torchrig.cli export builds/pro-dual-4090.json -o B.pdf

Usage: ``python benchmarks/plain_reportlab_table.py BUILD.json OUT.pdf``
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate, Table

    build_path, out = argv
    with open(build_path, encoding="utf-8") as fh:
        build = json.load(fh)
    rows = [["item", "category", "qty", "unit price", "currency"]]
    for line in build.get("line_items", []):
        rows.append([str(line.get("text") or line.get("part_id") or ""),
                     str(line.get("category", "")), str(line.get("quantity", 1)),
                     str(line.get("unit_price", "")), str(line.get("currency", ""))])
    SimpleDocTemplate(out, pagesize=A4).build([Table(rows)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
