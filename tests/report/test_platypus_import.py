"""reportlab's platypus comes in through torchrig.report.platypus, with its web-address pattern
compiled on first use (issue 27: 40-60 ms of every export's CPU at import)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
SAMPLE_BUILD = ROOT / "builds" / "pro-dual-4090.json"


def _reportlab_uri_source() -> tuple[str, int]:
    """reportlab's own ``uri_pat`` arguments, read from its source file (a second method:
    not through the lazy wrapper)."""
    import reportlab

    path = Path(reportlab.__file__).parent / "platypus" / "paragraph.py"
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "uri_pat"):
            call = node.value
            assert isinstance(call, ast.Call)
            source = ast.literal_eval(call.args[0])
            assert isinstance(call.args[1], ast.Attribute) and call.args[1].attr == "I"
            return source, re.I
    raise AssertionError("reportlab no longer defines uri_pat")


def test_no_module_imports_platypus_but_the_one_that_defers_the_pattern():
    importers = []
    for path in sorted((APP / "torchrig").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n == "reportlab.platypus" or n.startswith("reportlab.platypus.")
                   for n in names):
                importers.append(path.relative_to(APP).as_posix())
    assert sorted(set(importers)) == ["torchrig/report/platypus.py"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_export_never_compiles_the_pattern_and_re_compile_is_restored(tmp_path, lang):
    build = json.loads(SAMPLE_BUILD.read_text(encoding="utf-8"))
    # a long web address in a price source: the text most likely to reach the pattern
    build["line_items"][0]["price_source"] = "https://example.com/" + "/".join(["segment"] * 30)
    path = tmp_path / "build.json"
    path.write_text(json.dumps(build), encoding="utf-8")
    out = tmp_path / "quote.pdf"
    code = f"""
import re, sys
original = re.compile
from torchrig import cli
assert cli.main(["export", {str(path)!r}, "-o", {str(out)!r}, "--lang", {lang!r}]) == 0
import reportlab.platypus.paragraph as paragraph
from torchrig.report.platypus import LazyPattern
print(type(paragraph.uri_pat).__name__, paragraph.uri_pat.compiled is None,
      re.compile is original)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(APP), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 0
    assert done.stdout.split()[-3:] == ["LazyPattern", "True", "True"]


@pytest.mark.parametrize("text", [
    "https://github.com/docyx/pc-part-dataset/tree/06ffc8e/data",
    "http://192.168.1.10:8080/quote?id=7",
    "ftp://user:pw@example.org/a/",
    "HTTPS://EXAMPLE.COM/UPPER",  # the flag (re.I) reaches the compiled pattern
    "not a url",
    "https://-bad-.com/",
])
def test_the_lazy_pattern_matches_as_reportlabs_compiled_one(text):
    from torchrig.report.platypus import LazyPattern

    source, flags = _reportlab_uri_source()
    lazy = LazyPattern(source, flags, re.compile)
    assert lazy.compiled is None
    expected = re.compile(source, flags).match(text)
    got = lazy.match(text)
    assert lazy.compiled is not None  # compiled by the first use, kept
    assert (got is None) == (expected is None)
    if expected is not None:
        assert got.groups() == expected.groups()
    assert lazy.pattern == source and lazy.flags & re.I
