"""The CLI contract (docs/architecture.md): outputs, JSON in SI units, exit codes 0 / 1 / 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import psutil
import pytest

from torchrig.cli import main

ROOT = Path(__file__).resolve().parents[1]
WRONG_BUILD = ROOT / "tests" / "builds" / "data" / "wrong-build.json"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_detect_json_matches_what_the_os_reports(capsys):
    code, out, _ = run(capsys, "detect", "--json")
    assert code == 0
    profile = json.loads(out)
    assert profile["format"] == "torchrig.system-profile"
    assert profile["cpu"]["logical_cpus"] == os.cpu_count()
    assert profile["memory"]["total_bytes"] == psutil.virtual_memory().total
    mounts = {d["mountpoint"] for d in profile["disks"]}
    assert "/" in mounts or any(m for m in mounts)


def test_detect_text_states_its_units(capsys):
    code, out, _ = run(capsys, "detect")
    assert code == 0 and "GiB" in out and "CPU" in out


def test_check_sample_build_prices_and_passes(capsys):
    code, out, _ = run(capsys, "check", str(ROOT / "builds" / "pro-dual-4090.json"))
    assert code == 0
    assert "Total" in out


def test_a_default_rate_prices_a_build_that_has_none(capsys, tmp_path):
    """professional.json is in CNY with no rate of its own; the i9-13900K's catalog price is
    in USD. The shipped reference rate prices it, --cny-per-usd replaces that, dated; a build's
    own rate is never replaced."""
    build = str(ROOT / "builds" / "professional.json")
    _, before, _ = run(capsys, "check", build, "--json")
    priced_before = json.loads(before)["build"]
    line = priced_before["lines"][0]
    # resources/catalog/exchange_rates.json: 6.9929 (2026-01-23); USD 589 x 6.9929 = 4,118.8181,
    # CNY 4,118.82 to the cent. More than 30 days old, so flagged.
    assert line["status"] == "ok" and Decimal(line["unit_price"]) == Decimal("4118.82")
    assert (priced_before["exchange_rate"], priced_before["exchange_rate_date"]) == (
        "6.9929", "2026-01-23")
    assert priced_before["exchange_rate_stale"] is True
    _, after, _ = run(capsys, "check", build, "--json", "--cny-per-usd", "7.1",
                      "--rate-date", "2026-11-30")
    priced = json.loads(after)["build"]["lines"][0]
    assert priced["status"] == "ok"
    assert Decimal(priced["unit_price"]) == Decimal(line["source_amount"]) * Decimal("7.1")
    code, text, _ = run(capsys, "export", build, "-o", "-", "--format", "text",
                        "--cny-per-usd", "7.1", "--rate-date", "2026-11-30")
    assert code == 0 and "exchange rate needed" not in text
    own = tmp_path / "own-rate.json"
    doc = json.loads((ROOT / "builds" / "professional.json").read_text(encoding="utf-8"))
    doc["exchange_rate"] = {"cny_per_usd": "7.3", "date": "2026-10-01", "source": ""}
    own.write_text(json.dumps(doc), encoding="utf-8")
    _, kept, _ = run(capsys, "check", str(own), "--json", "--cny-per-usd", "7.1",
                     "--rate-date", "2026-11-30")
    kept_line = json.loads(kept)["build"]["lines"][0]
    assert Decimal(kept_line["unit_price"]) == Decimal(line["source_amount"]) * Decimal("7.3")


def test_check_wrong_build_exits_1_with_its_blockers(capsys):
    code, out, _ = run(capsys, "check", str(WRONG_BUILD), "--json")
    assert code == 1
    data = json.loads(out)
    assert data["has_blocker"] is True
    codes = {f["code"] for f in data["findings"]}
    assert any("socket" in c for c in codes) and any("psu" in c for c in codes)


def test_check_this_machine_with_a_workload(capsys):
    code, out, _ = run(capsys, "check", "this", "--workload",
                       str(ROOT / "workloads" / "cifar10-resnet18.json"), "--json")
    data = json.loads(out)
    assert code in (0, 1)
    assert data["requirements"]["vram_per_gpu"]["total"] > 0
    assert all("severity" in f for f in data["findings"])


def test_plan_json_breakdowns_are_in_si_units(capsys):
    code, out, _ = run(capsys, "plan", "--task", "nlp_transformer", "--model", "bert-base",
                       "--batch", "32", "--seq-len", "128", "--gpu", "nvidia-rtx-4090",
                       "--json")
    assert code == 0
    data = json.loads(out)
    vram = data["vram_per_gpu"]
    for key in ("weights", "gradients", "optimizer_states", "activations", "kv_cache",
                "overhead", "total"):
        assert key in vram
    assert vram["total"] == pytest.approx(sum(v for k, v in vram.items()
                                              if k not in ("total", "notes")), rel=1e-6)
    assert data["throughput"]["samples_per_s"] > 0


def test_plan_flags_override_a_workload_file(capsys):
    code, out, _ = run(capsys, "plan", "--workload",
                       str(ROOT / "workloads" / "cifar10-resnet18.json"), "--batch", "64",
                       "--json")
    assert code == 0 and json.loads(out)["workload"]["batch_size"] == 64


@pytest.mark.parametrize("argv", [
    ["plan", "--task", "nlp_transformer", "--batch", "-3"],
    ["plan", "--workload", "missing.json"],
    ["plan"],
    ["plan", "--task", "nlp_transformer", "--gpu", "intel-core-i9-13900k"],
    ["check", "missing.json"],
    ["check", "builds/entry.json", "--workload", "missing.json"],
    ["detect", "--bogus"],
    ["check", "builds/professional.json", "--cny-per-usd", "7.1"],
    ["check", "builds/professional.json", "--rate-date", "2026-11-30"],
    ["check", "builds/professional.json", "--cny-per-usd", "abc", "--rate-date", "2026-11-30"],
    ["check", "builds/professional.json", "--cny-per-usd", "1e400", "--rate-date", "2026-11-30"],
    ["export", "builds/professional.json", "-o", "-", "--cny-per-usd", "0",
     "--rate-date", "2026-11-30"],
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(argv):
    out = subprocess.run([sys.executable, "-m", "torchrig", *argv], capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 2, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
