"""How long does the largest build the validator allows take to export?

Issue 13 measured 125 s (en) and 192 s (zh) for 500 custom lines whose texts are as long as
the build file allows (500-character item texts, 2,000-character price sources and notes)
without a space to break at; the target is under 5 s for any valid build. The build is made
here from the loader's own limits (``torchrig.builds.build``), once with Latin and once with
Chinese text, and exported the way ``torchrig export`` does (assemble + render, no file
written). Prints seconds per case and the page count; ``--check-target`` exits 1 on a miss.

Where the time went, and what changed: reportlab broke every long word one character at a
time, again for each of the about seven layout passes a table makes over each cell, and the
price sources and notes made every row taller than a page. Now each paragraph is laid out once
per width (``pdf_layout.CachedParagraph``), the parts table is a ``LongTable`` (splitting it no
longer re-measures the remaining rows), and sources and notes are shown up to 200 characters in
the table (the file, attached to the PDF, keeps them whole).

Usage: ``python benchmarks/bench_export_worst_case.py [--lines 500] [--check-target]``
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "app") not in sys.path:
    sys.path.insert(0, str(ROOT / "app"))

TARGET_S = 5.0


def worst_build(lines: int, char: str):  # noqa: ANN201
    from decimal import Decimal

    from torchrig.builds.build import (
        MAX_HEADER_TEXT,
        MAX_LINE_TEXT,
        MAX_SOURCE,
        Build,
        LineItem,
        validate_build,
    )

    line = LineItem(text=char * MAX_LINE_TEXT, category="other", unit_price=Decimal("1.00"),
                    currency="CNY", price_source=char * MAX_SOURCE, price_date="2025-01",
                    note=char * MAX_SOURCE)
    build = Build(name=char * MAX_HEADER_TEXT, customer=char * MAX_HEADER_TEXT,
                  project=char * MAX_HEADER_TEXT, line_items=[line] * lines,
                  notes=char * 20_000)
    return validate_build(build)  # the largest the loader accepts, not larger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--check-target", action="store_true")
    args = parser.parse_args(argv)

    import pypdf

    from torchrig.catalog import load_catalog
    from torchrig.report.assemble import assemble_sheet
    from torchrig.report.pdf import render_sheet_bytes
    from torchrig.report.sheet import Header, SheetOptions

    catalog = load_catalog()
    ok = True
    for text_kind, char in (("Latin", "x"), ("Chinese", "显")):
        build = worst_build(args.lines, char)
        for lang in ("en", "zh"):
            start = time.perf_counter()
            cpu = time.process_time()
            sheet = assemble_sheet(build, catalog, header=Header(kind="sheet", date="2026-01-01"),
                                   lang=lang, options=SheetOptions(lang=lang, invariant=True))
            pdf = render_sheet_bytes(sheet)
            wall = time.perf_counter() - start
            cpu = time.process_time() - cpu
            pages = len(pypdf.PdfReader(io.BytesIO(pdf)).pages)
            print(f"{args.lines} lines, {text_kind} text, --lang {lang}: {wall:.1f} s wall, "
                  f"{cpu:.1f} s CPU, {pages} pages, {len(pdf) / 1e6:.1f} MB")
            ok = ok and cpu < TARGET_S
    print(f"target: < {TARGET_S:.0f} s CPU -> {'met' if ok else 'MISSED'}")
    return 1 if args.check_target and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
