"""Files TorchRig reads and writes that are not plain files (issue 13, "other faults"):
FIFOs, devices, symbolic links, read-only files, JSON that names a key twice."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_targets import REPO, encode, rich_build

from torchrig import jsonio
from torchrig.builds.build import Build, load_build, save_build
from torchrig.errors import InputError

APP = REPO / "app"
BUILD = REPO / "builds" / "pro-dual-4090.json"
"""A fully priced sample: a build with unpriced lines is a draft, which export refuses (exit 3)
before it reaches the output file these tests are about."""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(APP) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONIOENCODING="utf-8")
    # The timeout is the failure a FIFO caused: export waited for a writer for ever.
    return subprocess.run([sys.executable, "-m", "torchrig", *args], capture_output=True,
                          text=True, timeout=60, env=env, cwd=REPO, check=False)


def _exported_pdf(tmp_path: Path) -> Path:
    pdf = tmp_path / "sheet.pdf"
    assert _run("export", str(BUILD), "-o", str(pdf)).returncode == 0
    return pdf


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_export_from_a_fifo_named_pdf_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "X.pdf"
    os.mkfifo(fifo)
    result = _run("export", str(fifo), "-o", str(tmp_path / "out.pdf"))
    assert result.returncode == 2 and "not a regular file" in result.stderr


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_export_from_a_link_to_a_device_is_refused_at_once(tmp_path: Path, device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    link = tmp_path / "X.pdf"
    link.symlink_to(device)
    result = _run("export", str(link), "-o", str(tmp_path / "out.pdf"))
    assert result.returncode == 2 and "not a regular file" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this OS")
def test_export_onto_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "out.pdf"
    os.mkfifo(fifo)
    result = _run("export", str(BUILD), "-o", str(fifo))
    assert result.returncode == 2 and "not a regular file" in result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_export_refuses_to_replace_a_read_only_pdf(tmp_path: Path) -> None:
    pdf = _exported_pdf(tmp_path)
    before = pdf.read_bytes()
    pdf.chmod(0o444)
    result = _run("export", str(BUILD), "-o", str(pdf), "--lang", "zh")
    assert result.returncode == 2 and "read-only" in result.stderr
    assert pdf.read_bytes() == before


def test_saving_through_a_symlink_updates_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "store" / "quote.json"
    real.parent.mkdir()
    save_build(Build(name="first"), real)
    real.chmod(0o640)
    link = tmp_path / "quote.json"
    link.symlink_to(real)
    save_build(Build(name="second"), link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load_build(real).name == "second"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["quote.json"]  # no temp left


def test_export_through_a_symlink_updates_the_target(tmp_path: Path) -> None:
    real = _exported_pdf(tmp_path)
    link = tmp_path / "latest.pdf"
    link.symlink_to(real.name)
    before = real.read_bytes()
    assert _run("export", str(BUILD), "-o", str(link), "--lang", "zh").returncode == 0
    assert link.is_symlink() and real.read_bytes() != before


@pytest.mark.parametrize(("text", "key"), [
    ('{"tax_rate": "0.13", "tax_rate": "0"}', "tax_rate"),
    ('{"a": {"kind": "x", "kind": "y"}}', "kind"),
])
def test_json_naming_a_key_twice_is_refused_naming_the_key(text: str, key: str) -> None:
    with pytest.raises(InputError, match=f"the key '{key}' appears twice"):
        jsonio.parse_json_text(text, "f.json")


def test_a_build_with_a_duplicate_tax_rate_is_refused(tmp_path: Path) -> None:
    text = encode(rich_build()).decode("utf-8")
    text = text.replace('"tax_rate": ', '"tax_rate": "0", "tax_rate": ', 1)
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    result = _run("check", str(path))
    assert result.returncode == 2 and "'tax_rate' appears twice" in result.stderr
    assert path.read_text(encoding="utf-8") == text
