"""``torchrig plan --collective-report FILE`` (issue 24): the plan's scaling efficiency over the
link a collective benchmark measured, and one clear line for a file that is not such a report
(the benchmark's own loader, bench/collective/report.py, checks it, as for the GUI).

ResNet-50 DDP on 8 x RTX 4090, AMP: 102,228,128 B of fp32 gradients in 25 MiB buckets. The
report (tests/collective_fixture.py) measured 1 GB/s at 4 MiB and 2 GB/s at 32 MiB; 32 MiB is
nearest the 25 MiB bucket, so the link is 2 GB/s, against 31.5 x 0.8 = 25.2 GB/s for the
catalog's PCIe 4.0 x16: the efficiency drops.
"""

from __future__ import annotations

import json

import pytest

from collective_fixture import write_collective_report
from plan_cli_checks import refused
from torchrig.cli import main

MiB = 1024**2
RESNET_8 = ("--task", "image_classification", "--gpus", "8", "--gpu", "nvidia-rtx-4090")


def _plan(capsys, *argv: str) -> dict:
    assert main(["plan", *RESNET_8, *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_plan_uses_the_measured_link(capsys, tmp_path):
    report = write_collective_report(tmp_path / "c.json", {4 * MiB: 1e9, 32 * MiB: 2e9})
    before = _plan(capsys)
    after = _plan(capsys, "--collective-report", str(report))
    eff_before = before["throughput"]["scaling_efficiency"]
    eff_after = after["throughput"]["scaling_efficiency"]
    note_before = before["throughput"]["notes"]["scaling_efficiency"]["en"]
    note_after = after["throughput"]["notes"]["scaling_efficiency"]["en"]
    assert note_before.startswith("scaling model over PCIe 4.0 x16: ")
    assert note_after.startswith(
        "scaling model over the measured link (collective benchmark of 2026-12-01 on node0, 8 "
        "ranks inside one node: all-reduce busbw 2.0 GB/s at 32 MiB): ")
    # Five buckets (1 MiB, 3 x 25 MiB, the rest), each 1.75 x its bytes / 2e9 + 20 us:
    # 1.75 x 102,228,128 / 2e9 = 89.45 ms + 5 x 0.02 ms = 89.55 ms.
    assert "89.5 ms of gradient traffic" in note_after
    assert after["measured_link"]["busbw_bps"] == pytest.approx(2e9, rel=1e-9)
    assert before["measured_link"] is None
    assert after["device"]["intra_link"] == "measured"
    assert eff_after < eff_before
    assert main(["plan", *RESNET_8, "--collective-report", str(report)]) == 0
    text = capsys.readouterr().out
    assert "Scaling efficiency" in text and "busbw 2.0 GB/s at 32 MiB" in text


def test_bad_reports_get_one_line(capsys, tmp_path):
    missing = tmp_path / "none.json"
    assert "none.json" in refused(capsys, *RESNET_8, "--collective-report", str(missing))
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json", encoding="utf-8")
    line = refused(capsys, *RESNET_8, "--collective-report", str(corrupt))
    assert line.count("corrupt.json") == 1
    workload = tmp_path / "w.json"
    workload.write_text('{"format": "torchrig.workload", "version": 1}', encoding="utf-8")
    line = refused(capsys, *RESNET_8, "--collective-report", str(workload))
    assert "expected 'torchrig.collective-report'" in line
    # An edited busbw that no longer matches its time: the loader's own check.
    edited = write_collective_report(tmp_path / "e.json", {32 * MiB: 2e9})
    doc = json.loads(edited.read_text(encoding="utf-8"))
    doc["results"][-1]["busbw"] *= 10
    edited.write_text(json.dumps(doc), encoding="utf-8")
    assert "busbw" in refused(capsys, *RESNET_8, "--collective-report", str(edited))
    line = refused(capsys, "--task", "image_classification", "--gpus", "8",
                "--collective-report", str(missing))
    assert "--collective-report needs --gpu" in line
