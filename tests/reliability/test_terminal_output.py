"""Nothing from a file reaches the terminal as a control sequence (issue 13): names with
``\\x1b]0;…\\x07`` or ``\\x1b[2J`` were printed raw by check and plan, and a file name with
``\\r`` or U+2028 split the one-line error."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_targets import REPO, encode, rich_build

from torchrig.terminal import safe_text, write_error, write_json

APP = REPO / "app"
HOSTILE = "Quote \x1b]0;pwned\x07 \x1b[2J\x9b31m \u202eevil\u2028next\rover"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2028", "\r")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(APP) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONIOENCODING="utf-8")
    # Bytes, decoded here: text mode would turn a raw \r into a line break unseen.
    raw = subprocess.run([sys.executable, "-m", "torchrig", *args], capture_output=True,
                         timeout=120, env=env, cwd=REPO, check=False)
    return subprocess.CompletedProcess(raw.args, raw.returncode, raw.stdout.decode("utf-8"),
                                       raw.stderr.decode("utf-8"))


def _clean(text: str) -> None:
    assert not any(char in text for char in RAW), repr(text[:400])


@pytest.mark.parametrize("as_json", [False, True])
def test_check_prints_hostile_names_as_visible_escapes(tmp_path: Path, as_json: bool) -> None:
    doc = rich_build()
    doc.update(name=HOSTILE, customer=HOSTILE)
    doc["line_items"].append({"text": HOSTILE, "category": "other", "quantity": 1})
    path = tmp_path / "b.json"
    path.write_bytes(encode(doc))
    result = _run("check", str(path), *(["--json"] if as_json else []))
    assert result.returncode in (0, 1), result.stderr
    _clean(result.stdout + result.stderr)
    if as_json:  # the same JSON to a program: the escapes decode to the original text
        assert json.loads(result.stdout)["build"]["name"] == HOSTILE
    else:
        assert "\\x1b]0;pwned\\x07" in result.stdout


def test_plan_prints_a_hostile_workload_name_as_escapes(tmp_path: Path) -> None:
    doc = json.loads((REPO / "workloads").glob("*.json").__next__().read_text(encoding="utf-8"))
    doc["name"] = HOSTILE
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = _run("plan", "--workload", str(path))
    assert result.returncode == 0, result.stderr
    _clean(result.stdout + result.stderr)


@pytest.mark.parametrize("name", ["bad\rname.json", "bad\u2028name.json", "bad\nname.json"])
def test_a_file_name_with_a_line_break_keeps_the_error_on_one_line(tmp_path: Path,
                                                                   name: str) -> None:
    path = tmp_path / name
    path.write_text("{broken", encoding="utf-8")
    result = _run("check", str(path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n")
    _clean(result.stderr)
    assert "bad\\" in result.stderr


def test_the_helpers_keep_ordinary_text_and_escape_the_rest() -> None:
    assert safe_text("GPU 显卡 — 24 GB\n\tok") == "GPU 显卡 — 24 GB\n\tok"
    assert safe_text("a\nb", one_line=True) == "a\\nb"
    assert safe_text("\x1b[2J\x00\x7f") == "\\x1b[2J\\x00\\x7f"
    out = io.StringIO()
    write_error("x\u2028y", out)
    assert out.getvalue() == "x\\u2028y\n"
    out = io.StringIO()
    write_json(json.dumps({"k": "\x9b\u2028"}, ensure_ascii=False), out)
    assert json.loads(out.getvalue()) == {"k": "\x9b\u2028"} and "\x9b" not in out.getvalue()
