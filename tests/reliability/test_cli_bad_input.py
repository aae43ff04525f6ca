"""The CLI on bad files, in a real subprocess: exit 2, one line on stderr, no traceback.

In-process tests can miss what only a real run shows: an exception escaping ``main``, a
warning printed at import, output encoding errors, a hang on a FIFO.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_targets import REPO, encode, rich_build

APP = REPO / "app"


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(APP) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "torchrig", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=REPO, check=False)


def _build_with(**changes: object) -> bytes:
    doc = rich_build()
    doc.update(changes)
    return encode(doc)


BAD_BUILDS: dict[str, bytes] = {
    "truncated": encode(rich_build())[:300],
    "binary": bytes(range(256)) * 8,
    "not UTF-8": b'{"format": "torchrig.build", "name": "\xe9"}',
    "NaN": _build_with(nodes=1).replace(b'"nodes": 1', b'"nodes": NaN'),
    "huge integer": _build_with(nodes=1).replace(b'"nodes": 1', b'"nodes": 1' + b"0" * 400),
    "newer version": _build_with(version=9),
    "unknown part": _build_with(line_items=[{"part_id": "nvidia-rtx-9999", "quantity": 1}]),
    "negative quantity": _build_with(line_items=[{"part_id": "nvidia-rtx-4090",
                                                  "quantity": -3}]),
    "deep nesting": b'{"format": "torchrig.build", "version": 1, "notes": '
                    + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "line break in a field name": _build_with(**{"tax\nrate": "0.1"}),
}


def _assert_one_line_error(result: subprocess.CompletedProcess[str], names: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("torchrig check: ") and names in lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize("case", sorted(BAD_BUILDS))
def test_check_bad_build_exits_2_with_one_line(case: str, tmp_path: Path) -> None:
    path = tmp_path / "BAD.json"
    path.write_bytes(BAD_BUILDS[case])
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _assert_one_line_error(_run("check", str(path)), str(path))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["BAD.json"]


def test_check_huge_sparse_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with open(path, "wb") as handle:
        handle.truncate(300 * 1000 * 1000)
    _assert_one_line_error(_run("check", str(path), timeout=20), str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_check_fifo_does_not_hang(tmp_path: Path) -> None:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    _assert_one_line_error(_run("check", str(path), timeout=20), str(path))


@pytest.mark.parametrize("where", ["missing.json", "."])
def test_check_missing_file_or_folder(where: str, tmp_path: Path) -> None:
    path = tmp_path / where
    _assert_one_line_error(_run("check", str(path)), str(path))


def test_broken_catalog_is_one_line_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """TORCHRIG_RESOURCES pointing at a corrupted copy: the message names the broken file."""
    root = tmp_path / "resources"
    shutil.copytree(REPO / "resources", root)
    (root / "catalog" / "gpus.json").write_bytes(b'{"format": "torchrig.catalog", "vers')
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(root))
    result = _run("check", str(REPO / "builds" / "entry.json"))
    _assert_one_line_error(result, str(root / "catalog" / "gpus.json"))
