"""Bench report JSON: round trip, validation with named fields, history folder."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from torchrig.bench.report import (
    REPORT_FORMAT,
    BenchReport,
    BenchResult,
    Measurement,
    Reference,
    list_reports,
    load_report,
    reports_dir,
    save_report,
    save_to_history,
)
from torchrig.errors import InputError
from torchrig.hardware.model import CpuInfo, SystemProfile
from torchrig.i18n import Msg
from torchrig.paths import data_dir


def _report() -> BenchReport:
    peak = Reference(kind="spec_peak", label=Msg("catalog peak", "目录峰值"), source="catalog",
                     value=1e12)
    claim = Reference(kind="seed_claim", label=Msg("seed: 30-50 %", "原文：30-50%"),
                      source="seed 3.1", low=1.3, high=1.5)
    return BenchReport(
        settings={"preset": "quick", "device": "cpu", "only": None, "dataset_dir": None,
                  "peaks": None, "budget_s": 21.0},
        started="2026-01-01T00:00:00+00:00", finished="2026-01-01T00:00:20+00:00",
        device="cpu", device_name="Test CPU",
        environment={"torch": "2.13.0", "cuda": None},
        profile=SystemProfile(hostname="box", cpu=CpuInfo(model_name="Test CPU")).to_dict(),
        results=[
            BenchResult(
                id="matmul", title=Msg("Matmul", "矩阵乘"), status="ok",
                measurements=[
                    Measurement(id="fp32", label=Msg("FP32", "FP32"), value=5e11,
                                unit="FLOP/s", reference=peak,
                                notes=(Msg("median", "中位数"),), details={"n": 1024}),
                    Measurement(id="speedup", label=Msg("AMP", "AMP"), value=1.4,
                                unit="ratio", reference=claim),
                ],
                notes=[Msg("TF32 not measured", "未测 TF32")], seconds=1.5, budget_s=2.0),
            BenchResult(id="h2d", title=Msg("H2D", "H2D"), status="skipped: no GPU",
                        reason=Msg("no GPU", "无 GPU")),
        ],
        torchrig_version="0.1.0",
    )


def test_round_trip_keeps_everything(tmp_path: Path):
    path = tmp_path / "r.json"
    report = _report()
    save_report(report, path)
    loaded = load_report(path)
    assert loaded.to_dict() == report.to_dict()
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == REPORT_FORMAT and data["version"] == 1
    assert data["results"][0]["measurements"][0]["ratio"] == pytest.approx(0.5)
    assert loaded.results[1].state == "skipped" and loaded.results[1].reason.zh == "无 GPU"
    assert loaded.value("matmul", "fp32") == 5e11


def _mutated(tmp_path: Path, mutate) -> Path:
    data = _report().to_dict()
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update(format="something.else"), "field 'format'"),
    (lambda d: d.update(version=99), "newer than this TorchRig"),
    (lambda d: d.pop("results"), "missing field 'results'"),
    (lambda d: d.update(results={}), "field 'results' must be a list"),
    (lambda d: d["results"][0].update(status="fine"), "results[0]: field 'status'"),
    (lambda d: d["results"][0]["measurements"][0].update(unit="GB/s"),
     "results[0].measurements[0]: field 'unit'"),
    (lambda d: d["results"][0]["measurements"][0].update(value="fast"),
     "measurements[0]: field 'value' must be a number"),
    (lambda d: d["results"][0]["measurements"][0]["reference"].update(label=3),
     "reference.label"),
    (lambda d: d["results"][0].pop("title"), "results[0]: missing field 'title'"),
    (lambda d: d.update(cancelled="no"), "field 'cancelled'"),
    (lambda d: d.update(profile={"cpu": []}), "profile.cpu"),
])
def test_invalid_reports_name_the_field(tmp_path: Path, mutate, message):
    path = _mutated(tmp_path, mutate)
    before = path.read_bytes()
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(")):
        load_report(path)
    assert path.read_bytes() == before  # a file that fails to load is never modified


def test_non_json_and_missing_files(tmp_path: Path):
    bad = tmp_path / "x.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_report(bad)
    with pytest.raises(InputError, match="no such file"):
        load_report(tmp_path / "missing.json")


def test_measurement_refuses_nonfinite_values_and_unknown_units():
    with pytest.raises(ValueError, match="not finite"):
        Measurement(id="x", label=Msg("x", "x"), value=math.nan, unit="s")
    with pytest.raises(ValueError, match="unit"):
        Measurement(id="x", label=Msg("x", "x"), value=1.0, unit="GB/s")


def test_ratio_needs_a_reference_value():
    claim = Reference(kind="seed_claim", label=Msg("c", "c"), source="seed", low=1, high=2)
    assert Measurement(id="x", label=Msg("x", "x"), value=1.5, unit="ratio",
                       reference=claim).ratio is None
    assert Measurement(id="x", label=Msg("x", "x"), value=None, unit="s").ratio is None


def test_history_uses_the_data_dir_and_never_clobbers(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TORCHRIG_DATA_DIR", str(tmp_path / "data"))
    assert reports_dir() == tmp_path / "data" / "bench"
    assert list_reports() == []
    first = save_to_history(_report())
    second = save_to_history(_report())
    assert first != second and first.parent == reports_dir()
    assert first.name.startswith("bench-") and first.name.endswith("-quick-cpu.json")
    listed = list_reports()
    assert set(listed) == {first, second}
    assert listed == sorted(listed, key=lambda p: p.name, reverse=True)
    assert load_report(first).to_dict() == _report().to_dict()


def test_data_dir_per_platform(monkeypatch, tmp_path: Path):
    import torchrig.paths as paths

    monkeypatch.delenv("TORCHRIG_DATA_DIR")
    monkeypatch.setattr(paths.Path, "home", classmethod(lambda cls: tmp_path))
    monkeypatch.setattr(paths.sys, "platform", "linux")
    monkeypatch.delenv("XDG_DATA_HOME")
    assert data_dir() == tmp_path / ".local" / "share" / "torchrig"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    assert data_dir() == tmp_path / ".local" / "share" / "torchrig"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "torchrig"
    monkeypatch.setattr(paths.sys, "platform", "darwin")
    assert data_dir() == tmp_path / "Library" / "Application Support" / "TorchRig"
    monkeypatch.setattr(paths.sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    assert data_dir() == tmp_path / "Roaming" / "TorchRig"
    monkeypatch.setenv("TORCHRIG_DATA_DIR", str(tmp_path / "override"))
    assert data_dir() == tmp_path / "override"


def test_reports_saved_in_the_same_second_all_keep_their_own_file(tmp_path: Path,
                                                                  monkeypatch):
    """Checking exists() before writing let two saves pick one name (one lost in 9 of 10)."""
    import threading

    import torchrig.bench.report as report_module

    monkeypatch.setenv("TORCHRIG_DATA_DIR", str(tmp_path / "data"))
    real_exists = Path.exists
    start = threading.Barrier(8)

    def slow_exists(self: Path) -> bool:  # widen the race window the old check left open
        found = real_exists(self)
        time.sleep(0.01)
        return found

    monkeypatch.setattr(report_module.Path, "exists", slow_exists)

    def save() -> None:
        start.wait()
        save_to_history(_report())

    threads = [threading.Thread(target=save) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    saved = list_reports()
    assert len(saved) == 8
    assert all(load_report(p).to_dict() == _report().to_dict() for p in saved)
