"""The build file is attached while reportlab writes the PDF (issue 27): no pypdf import and
no second pass on export, and the attachment still reads back as the build."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from torchrig.report.pdf_files import extract_build_json

ROOT = Path(__file__).resolve().parents[2]


def test_an_export_neither_imports_pypdf_nor_loses_the_attached_build(tmp_path):
    out = tmp_path / "quote.pdf"
    code = (
        "import sys\n"
        "from torchrig.cli import main\n"
        f"rc = main(['export', {str(ROOT / 'builds' / 'pro-dual-4090.json')!r}, '-o', "
        f"{str(out)!r}])\n"
        "print('pypdf' in sys.modules, rc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split()[-2:] == ["False", "0"]
    attached = extract_build_json(out)
    with open(ROOT / "builds" / "pro-dual-4090.json", encoding="utf-8") as fh:
        source = json.load(fh)
    assert [line.get("text") for line in attached["line_items"]] == [
        line.get("text") for line in source["line_items"]]
