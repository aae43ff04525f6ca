"""The Wizard plans This machine over the link its collective benchmark measured (issue 24),
through the widgets: detection finds 8 RTX 4090s on host "node0"; the Benchmark page's cluster
panel opens a report measured there (tests/collective_fixture.py: all-reduce busbw 2 GB/s at
32 MiB, the size nearest DDP's 25 MiB bucket); the headline's scaling line then names the
measured link instead of the catalog's PCIe 4.0 x16 (31.5 x 0.8 = 25.2 GB/s). Checked against
a tier, the same report is not used: it was not measured on that machine.

ResNet-50 DDP, AMP: 102,228,128 B of fp32 gradients, 1.75 x 102,228,128 / 2e9 = 89.45 ms
plus 5 buckets x 20 us = 89.5 ms of gradient traffic (as tests/test_coll24_plan_collective_
report.py computes for the command line).
"""

from __future__ import annotations

import html
import re

from gui_gestures import click, detect, go_to, pick_with_keys, type_text

from collective_fixture import write_collective_report
from torchrig.hardware.model import CpuInfo, GpuInfo, MemoryInfo, SystemProfile

MiB = 1024**2


def _headline(page) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page.headline.text()))


def _planned(qtbot, page, subject: str) -> None:
    qtbot.waitUntil(lambda: not page.planning and page.model.analysis is not None
                    and page.model.analysis.requirements.workload == page.workload
                    and page.subject_box.currentData() == subject, timeout=60_000)


def test_this_machine_is_planned_over_its_measured_link(window, qtbot, monkeypatch,
                                                        file_dialogs, tmp_path):
    profile = SystemProfile(
        hostname="node0", cpu=CpuInfo(model_name="Test CPU"),
        memory=MemoryInfo(total_bytes=256 * 2**30),
        gpus=[GpuInfo(index=i, name="NVIDIA GeForce RTX 4090", vram_total_bytes=24 * 2**30)
              for i in range(8)])
    detect(qtbot, window, monkeypatch, profile)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    pick_with_keys(qtbot, page.subject_box, "machine")
    type_text(qtbot, page.widgets["gpus_per_node"], "8")
    qtbot.waitUntil(lambda: page.workload.gpus_per_node == 8, timeout=10_000)
    _planned(qtbot, page, "machine")
    assert "Scaling efficiency:" in _headline(page)
    assert "scaling model over PCIe 4.0 x16:" in _headline(page)

    report = write_collective_report(tmp_path / "c.json", {4 * MiB: 1e9, 32 * MiB: 2e9})
    file_dialogs[0].append(str(report))
    click(qtbot, window.bench_page.cluster.open_button)
    qtbot.waitUntil(lambda: "measured link" in _headline(page), timeout=20_000)
    text = _headline(page)
    assert ("scaling model over the measured link (collective benchmark of 2026-12-01 on "
            "node0, 8 ranks inside one node: all-reduce busbw 2.0 GB/s at 32 MiB): 89.5 ms of "
            "gradient traffic") in text

    pick_with_keys(qtbot, page.subject_box, "tier:enterprise")
    _planned(qtbot, page, "tier:enterprise")
    assert "measured link" not in _headline(page)
