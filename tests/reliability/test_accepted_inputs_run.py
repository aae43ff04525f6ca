"""What a loader accepts, plan, check and export can handle (issue 13, "crashes with a
traceback instead of a message"): each case once crashed with exit 1 and a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from pathlib import Path

import pytest
from fuzz_targets import REPO, bench_report_doc, encode

APP = REPO / "app"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(APP) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "torchrig", *args], capture_output=True,
                          text=True, timeout=120, env=env, cwd=REPO, check=False)


def _one_line_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and fragment in result.stderr


ZERO_FLOPS = {"format": "torchrig.workload", "version": 1, "task": "image_classification",
              "model": "custom", "params": 1_000_000, "forward_flops_per_sample": 0}


@pytest.mark.parametrize("command", ["plan", "check", "export"])
def test_a_workload_with_zero_flops_per_sample_is_refused_by_its_loader(tmp_path: Path,
                                                                        command: str) -> None:
    workload = tmp_path / "w.json"
    workload.write_text(json.dumps(ZERO_FLOPS), encoding="utf-8")
    build = str(REPO / "builds" / "pro-dual-4090.json")
    args = {"plan": ["plan", "--workload", str(workload), "--gpu", "nvidia-rtx-4090"],
            "check": ["check", build, "--workload", str(workload)],
            "export": ["export", build, "-o", str(tmp_path / "o.pdf"), "--workload",
                       str(workload)]}[command]
    _one_line_error(_run(*args), "forward_flops_per_sample")


@pytest.mark.parametrize("reference", [1.0, 0.01])
def test_a_bench_report_whose_ratio_overflows_is_refused(tmp_path: Path,
                                                         reference: float) -> None:
    doc = bench_report_doc()
    measurement = doc["results"][0]["measurements"][0]
    measurement["value"], measurement["reference"]["value"] = 1e307, reference
    bench = tmp_path / "bench.json"
    bench.write_bytes(encode(doc))
    result = _run("export", str(REPO / "builds" / "entry.json"), "-o",
                  str(tmp_path / "o.pdf"), "--bench", str(bench))
    _one_line_error(result, "times its reference")


def test_check_json_keeps_the_cents_of_the_largest_valid_build(tmp_path: Path) -> None:
    """About 1e26: more digits than Decimal's default 28 (InvalidOperation in export, cents
    lost in ``check --json``)."""
    line = {"text": "x", "category": "other", "quantity": 9_999,
            "unit_price": "999999999999.99", "currency": "CNY"}
    doc = {"format": "torchrig.build", "version": 1, "name": "big", "currency": "USD",
           "exchange_rate": {"cny_per_usd": "0.01", "date": "2025-01-01"}, "tax_rate": "0.99",
           "nodes": 9_999, "line_items": [line] * 500}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = _run("check", str(path), "--json")
    assert result.returncode in (0, 1), result.stderr[-2000:]
    priced = json.loads(result.stdout)["build"]
    with localcontext(Context(prec=80)):
        subtotal = Decimal("99999999999999.00") * 9_999 * 9_999 * 500
        tax = (subtotal * Decimal("0.99")).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        assert priced["subtotal"] == f"{subtotal:f}"
        assert priced["total"] == f"{subtotal + tax:f}"
    exported = _run("export", str(path), "-o", str(tmp_path / "big.pdf"))
    assert exported.returncode == 0, exported.stderr[-2000:]
