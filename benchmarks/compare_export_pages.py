"""Do two TorchRig trees export the same-looking quote? Pixels and text, page by page.

A rendering change that is only meant to be faster or smaller (issue 27) must not move a
pixel: each quote (the sample build's lines repeated to 10 and 500, English and Chinese) is
exported by the tree under test and by a reference tree (``--before``, e.g. main's ``app``),
each page rasterised with ``pdftoppm -r 150`` and the images compared byte for byte, and the
text compared word by word with its place on the page (``pdftotext -bbox``, to 0.01 pt). Exit
status 0 when every case matches. (``pdftotext -layout`` is no judge: its columns' spacing
follows the order the words are drawn in, which a table drawing a cell as a string rather than
a Paragraph changes without moving a word.)

Usage: ``python benchmarks/compare_export_pages.py --before /work/main/app [--after app]``
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_export_quote import build_with_lines  # noqa: E402 - the benchmark's own builds


def export(app: Path, build: Path, lang: str, out: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(app))
    subprocess.run([sys.executable, "-m", "torchrig.cli", "export", str(build), "-o", str(out),
                    "--lang", lang, "--invariant"], env=env, check=True,
                   stdout=subprocess.DEVNULL)


def pages(pdf: Path, folder: Path) -> list[bytes]:
    """Each page as the bytes of its 150 dpi PPM image."""
    prefix = folder / pdf.stem
    subprocess.run(["pdftoppm", "-r", "150", str(pdf), str(prefix)], check=True)
    return [path.read_bytes() for path in sorted(folder.glob(f"{pdf.stem}-*.ppm"))]


def text_of(pdf: Path) -> list[tuple[object, ...]]:
    """Every word as (page, its box in points rounded to 0.01, the word), sorted by place
    within each page."""
    html = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    words: list[tuple[object, ...]] = []
    for page, body in enumerate(html.split("<page ")[1:]):
        found = re.findall(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" '
                           r'yMax="([-\d.]+)">(.*?)</word>', body)
        words += sorted((page, *(round(float(v), 2) for v in box), word)
                        for *box, word in found)
    return words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="reference tree's app/")
    parser.add_argument("--after", type=Path, default=ROOT / "app", help="tree under test")
    parser.add_argument("--lines", type=int, nargs="+", default=[10, 500])
    parser.add_argument("--lang", nargs="+", default=["en", "zh"])
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for lines in args.lines:
            build = build_with_lines(lines, folder)
            for lang in args.lang:
                result = {}
                for side, app in (("before", args.before), ("after", args.after)):
                    side_dir = folder / f"{side}-{lines}-{lang}"
                    side_dir.mkdir()
                    pdf = side_dir / "quote.pdf"
                    export(app, build, lang, pdf)
                    result[side] = (pages(pdf, side_dir), text_of(pdf), pdf.stat().st_size)
                (pa, ta, sa), (pb, tb, sb) = result["before"], result["after"]
                same_pixels = pa == pb
                same_text = ta == tb
                ok = same_pixels and same_text and len(pa) > 0
                failed += not ok
                print(f"{lines:>4} lines {lang}: {len(pa)}/{len(pb)} pages, "
                      f"pixels {'same' if same_pixels else 'DIFFER'}, "
                      f"text {'same' if same_text else 'DIFFERS'}, "
                      f"{sa:,} -> {sb:,} bytes")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
