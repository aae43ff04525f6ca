"""Cluster panel: the torchrun command, a real 2-process gloo measurement, attaching it."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_gestures import choose, click, detect, menu_action, type_text

from torchrig.gui.qt import QApplication
from torchrig.planning.workload import load_workload

ROOT = Path(__file__).resolve().parents[2]


def test_torchrun_command_follows_the_form_and_copies(window, qtbot):
    panel = window.bench_page.cluster
    type_text(qtbot, panel.nodes_spin, "2")
    type_text(qtbot, panel.gpus_spin, "4")
    type_text(qtbot, panel.addr_edit, "node0.example")
    text = panel.command.toPlainText()
    assert "torchrun" in text and "--nnodes 2" in text and "--nproc-per-node 4" in text
    assert "node0.example:29500" in text and "torchrig.bench.collective" in text
    click(qtbot, panel.copy_button)
    assert QApplication.clipboard().text() == text


@pytest.mark.slow
def test_measuring_here_attaches_a_report_to_wizard_and_report(window, qtbot, file_dialogs,
                                                               monkeypatch):
    """A real 2-process gloo run from the button, over the top of the panel's size sweep only
    (1 to 4 MiB, the same largest size, whose bus bandwidth feeds the scaling model): the
    whole 8 B..4 MiB sweep, 60 timed points at about 0.3 s each, took 19-26 s of this test.
    The panel's own arguments are checked as it passes them; sweeps from 8 B through the
    launcher (2 and 4 processes, their progress lines) are
    tests/bench/collective/test_collective_launch.py's."""
    import torchrig.bench.collective.launch as launch

    real_launch = launch.launch_local
    asked = []

    def top_of_the_sweep(nproc, backend, args=(), **kwargs):
        asked.append((nproc, backend, tuple(args)))
        return real_launch(nproc, backend, ("--sizes", "1M..4M"), **kwargs)

    monkeypatch.setattr(launch, "launch_local", top_of_the_sweep)
    panel = window.bench_page.cluster
    with qtbot.waitSignal(panel.report_changed, timeout=120_000):
        click(qtbot, panel.run_button)
    qtbot.waitUntil(lambda: not panel.runner.running, timeout=10_000)
    assert asked == [(2, "gloo", ("--sizes", "8..4M"))]  # no GPUs here: 2 gloo processes
    assert "busbw" in panel.result.text()
    assert panel.report.summary["all_reduce"].largest_bytes == 4 * 2**20
    assert window.report_page.collective_report is panel.report
    wizard = window.wizard_page
    workload = ROOT / "workloads" / "bert-large-pretrain-8gpu.json"
    file_dialogs[0].append(str(workload))
    menu_action(window, "File", "Open…").trigger()
    assert wizard.workload == load_workload(workload)
    choose(wizard.subject_box, "tier:professional")
    qtbot.waitUntil(lambda: not wizard.planning, timeout=20_000)
    kinds = {s.kind for s in wizard.scaling_chart.series}
    assert "measured" in kinds and "candidate" in kinds


def test_a_bad_collective_report_is_a_message(window, qtbot, tmp_path, file_dialogs):
    bad = tmp_path / "c.json"
    bad.write_text('{"format": "torchrig.collective-report", "version": 1}', encoding="utf-8")
    panel = window.bench_page.cluster
    file_dialogs[0].append(str(bad))
    click(qtbot, panel.open_button)
    assert "c.json" in panel.result.text()
    assert panel.report is None and window.report_page.collective_report is None


def test_defaults_follow_what_this_machine_has(window, qtbot, monkeypatch):
    """issue 12: no GPU here, so not 8 GPUs and NCCL; NVIDIA GPUs once detection finds them."""
    from torchrig.hardware.model import GpuInfo, SystemProfile

    panel = window.bench_page.cluster
    assert (panel.gpus_spin.value(), panel.backend_box.currentText()) == (2, "gloo")
    detect(qtbot, window, monkeypatch, SystemProfile())  # nothing found
    assert (panel.gpus_spin.value(), panel.backend_box.currentText()) == (2, "gloo")
    assert "2 CPU processes" in panel.run_button.text()
    gpus = [GpuInfo(index=i, name="NVIDIA H100", vendor="NVIDIA") for i in range(4)]
    detect(qtbot, window, monkeypatch, SystemProfile(gpus=gpus))
    assert (panel.gpus_spin.value(), panel.backend_box.currentText()) == (4, "nccl")
    assert "4 GPUs, NCCL" in panel.run_button.text()
    assert "127.0.0.1 only" in panel.exposure.text()
