"""``torchrig export``: the sample builds export in both languages; bad input exits 2."""

from __future__ import annotations

import argparse
import io
import json
import os
from pathlib import Path

import pypdf
import pytest

from torchrig.builds.build import load_build
from torchrig.report.cli_export import run_export_cli, sheet_date
from torchrig.report.pdf_files import extract_build_json

BUILDS = sorted((Path(__file__).resolve().parents[2] / "builds").glob("*.json"))


def _args(build: Path, out: Path, **kw: object) -> argparse.Namespace:
    values: dict[str, object] = {"build": str(build), "output": str(out), "workload": None,
                                 "bench": None, "lang": "en", "tier": None, "invariant": True,
                                 "internal": False,
                                 # Most sample builds have unpriced lines: drafts, refused
                                 # without it (tests/report/test_quote_draft.py).
                                 "draft": True}
    values.update(kw)
    return argparse.Namespace(**values)


def _text(path: Path) -> str:
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(path).pages)


def test_sample_builds_exist() -> None:
    assert len(BUILDS) >= 3


@pytest.mark.parametrize("build", BUILDS, ids=lambda p: p.stem)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_sample_build_exports(build: Path, lang: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.pdf"
    assert run_export_cli(_args(build, out, lang=lang)) == 0
    assert "wrote" in capsys.readouterr().out
    assert out.stat().st_size < 500_000
    assert extract_build_json(out) == load_build(build).to_dict()
    text = _text(out)
    assert ("Page 1 of" in text) if lang == "en" else ("第 1 页" in text)


def test_export_says_when_chinese_text_cannot_be_embedded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from torchrig.report import fonts

    assert run_export_cli(_args(BUILDS[0], tmp_path / "a.pdf", lang="zh")) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(fonts, "find_cjk_font", lambda: None)
    assert run_export_cli(_args(BUILDS[0], tmp_path / "b.pdf", lang="zh")) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "paperang-p2-fonts-cjk" in err and "未嵌入" in err


def test_a_sheet_pdf_can_be_exported_again(tmp_path: Path) -> None:
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    assert run_export_cli(_args(BUILDS[0], first)) == 0
    assert run_export_cli(_args(first, second, lang="zh")) == 0
    assert extract_build_json(second) == extract_build_json(first)


def test_invariant_export_is_byte_stable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1740787200")  # 2025-03-01
    one, two = tmp_path / "one.pdf", tmp_path / "two.pdf"
    assert run_export_cli(_args(BUILDS[0], one)) == 0
    assert run_export_cli(_args(BUILDS[0], two)) == 0
    assert one.read_bytes() == two.read_bytes()
    assert "2025-03-01" in _text(one)


def test_tier_option_selects_the_comparison(tmp_path: Path) -> None:
    out = tmp_path / "x.pdf"
    assert run_export_cli(_args(BUILDS[0], out, tier="enterprise")) == 0
    assert "Enterprise production" in _text(out)


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_bad_build_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "torchrig.build", "version": 1, "name": "x",
                               "line_items": [{"part_id": "no-such-part", "quantity": 1}]}))
    out = tmp_path / "out.pdf"
    assert run_export_cli(_args(bad, out)) == 2
    line = _one_error_line(capsys)
    assert line.startswith("torchrig export:") and "no-such-part" in line
    assert not out.exists()


def test_missing_build_and_unknown_tier_exit_2(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert run_export_cli(_args(tmp_path / "none.json", tmp_path / "o.pdf")) == 2
    assert "no such file" in _one_error_line(capsys)
    assert run_export_cli(_args(BUILDS[0], tmp_path / "o.pdf", tier="nope")) == 2
    assert "unknown tier 'nope'" in _one_error_line(capsys)
    assert run_export_cli(_args(BUILDS[0], tmp_path / "o.pdf", lang="fr")) == 2
    assert "unknown language" in _one_error_line(capsys)


def test_unwritable_output_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_export_cli(_args(BUILDS[0], tmp_path / "no" / "such" / "x.pdf")) == 2
    assert "does not exist" in _one_error_line(capsys)
    if os.geteuid() != 0:  # root can write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert run_export_cli(_args(BUILDS[0], locked / "x.pdf")) == 2
        assert "cannot write" in _one_error_line(capsys)
    folder = tmp_path / "a-folder.pdf"
    folder.mkdir()
    assert run_export_cli(_args(BUILDS[0], folder)) == 2
    assert "is a folder, not a file" in _one_error_line(capsys)


def test_output_may_not_overwrite_an_input(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    build = tmp_path / "b.json"
    build.write_bytes(BUILDS[0].read_bytes())
    assert run_export_cli(_args(build, build, format="pdf")) == 2
    assert "overwrite an input" in _one_error_line(capsys)
    assert build.read_bytes() == BUILDS[0].read_bytes()


def test_failed_export_keeps_the_previous_file(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.pdf"
    out.write_bytes(b"previous")
    assert run_export_cli(_args(tmp_path / "missing.json", out)) == 2
    capsys.readouterr()
    assert out.read_bytes() == b"previous"


def test_bad_bench_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = tmp_path / "bench.json"
    bench.write_text('{"format": "torchrig.bench-report", "version": 1}')
    assert run_export_cli(_args(BUILDS[0], tmp_path / "o.pdf", bench=str(bench))) == 2
    assert "settings" in _one_error_line(capsys)


def test_sheet_date(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    assert sheet_date() == "1970-01-01"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "soon")
    from torchrig.errors import InputError

    with pytest.raises(InputError, match="SOURCE_DATE_EPOCH"):
        sheet_date()


def test_pdf_is_readable_by_pypdf_from_memory(tmp_path: Path) -> None:
    out = tmp_path / "x.pdf"
    assert run_export_cli(_args(BUILDS[0], out)) == 0
    reader = pypdf.PdfReader(io.BytesIO(out.read_bytes()))
    assert len(reader.pages) >= 1


def test_export_loads_neither_torch_nor_qt(tmp_path: Path) -> None:
    """Quoting on a machine without torch (or a display) must work: no torch, no Qt."""
    import subprocess
    import sys

    code = (
        "import argparse, sys\n"
        "from torchrig.report.cli_export import run_export_cli\n"
        f"rc = run_export_cli(argparse.Namespace(build={str(BUILDS[0])!r}, "
        f"output={str(tmp_path / 'x.pdf')!r}, workload=None, bench=None, lang='en', "
        "tier=None, invariant=True, draft=True))\n"
        "print(rc, [m for m in ('torch', 'PySide6') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 []"


WORKLOADS = Path(__file__).resolve().parents[2] / "workloads"


def test_export_with_a_workload(tmp_path: Path) -> None:
    out = tmp_path / "w.pdf"
    workload = WORKLOADS / "bert-base-finetune-sst2.json"
    build = Path(__file__).resolve().parents[2] / "builds" / "professional.json"
    assert run_export_cli(_args(build, out, workload=str(workload), lang="zh")) == 0
    assert "工作负载需求" in _text(out)


def test_bad_workload_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "w.json"
    bad.write_text('{"format": "torchrig.workload", "version": 1, "task": "knitting"}')
    assert run_export_cli(_args(BUILDS[0], tmp_path / "o.pdf", workload=str(bad))) == 2
    assert "knitting" in _one_error_line(capsys)


def test_internal_export_shows_the_benchmarked_machine(tmp_path: Path) -> None:
    from torchrig.bench.report import save_report
    from torchrig.hardware.model import CpuInfo, SystemProfile

    from .test_assemble import _report

    report = _report()
    report.profile = SystemProfile(cpu=CpuInfo(physical_cores=2, logical_cpus=4)).to_dict()
    bench = tmp_path / "bench.json"
    save_report(report, bench)
    out = tmp_path / "b.pdf"
    build = Path(__file__).resolve().parents[2] / "builds" / "professional.json"
    assert run_export_cli(_args(build, out, bench=str(bench))) == 0
    text = _text(out)
    assert "Benchmark results" in text and "61.0 TFLOP/s" in text
    assert "This machine" not in text  # a customer quote by default
    assert run_export_cli(_args(build, out, bench=str(bench), internal=True)) == 0
    text = _text(out)
    assert "This machine" in text and "2 cores" in text
