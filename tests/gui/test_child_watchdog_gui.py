"""The child watchdog's message reaches the user: on the Benchmarks page (how the run ended,
with the figures measured before) and in the Wizard's Measure panel (the failure line).

Each test SIGSTOPs a real child with the silence limit at 1 s and waits for a state, never for
a time; the waits' timeouts are safety nets against a wedged run."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import psutil
import pytest
from gui_gestures import button, click, go_to, show_tab_of

from torchrig.gui.qt import QFileDialog, Qt
from torchrig.planning.workload import save_workload, workload_from_options

BENCH_TESTS = Path(__file__).resolve().parents[1] / "bench"

pytestmark = [pytest.mark.slow,  # real child processes
              pytest.mark.skipif(os.name != "posix", reason="SIGSTOP")]


@pytest.fixture
def fake_suites(monkeypatch):
    """The child process finds tests/bench/child_fakes.py (benchmark lists for tests)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(BENCH_TESTS), os.environ.get("PYTHONPATH")) if p))


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def test_the_benchmarks_page_says_the_stopped_child_was_ended_and_keeps_its_rows(
        window, qtbot, tmp_path, fake_suites):
    page = window.bench_page
    marker = tmp_path / "child.pid"
    page.registry = "child_fakes:CANCEL_WAIT"
    page.child_env = {"TORCHRIG_TEST_MARKER": str(marker)}
    page.child_silence_s = 1.0
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "bench")
    pid = 0
    try:
        with qtbot.waitSignal(page.report_ready, timeout=120_000) as blocker:
            qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: marker.exists() and marker.read_text() != "",
                            timeout=60_000)
            pid = int(marker.read_text())
            os.kill(pid, signal.SIGSTOP)
    finally:
        if pid:
            _kill(pid)  # only matters when the watchdog failed: nothing stopped stays behind
    report = blocker.args[0]
    assert [r.state for r in report.results] == ["ok", "error", "skipped"]
    shown = page.warning_label.text()
    assert f"the benchmark process (pid {pid}) sent nothing for 1 s: it was stopped" in shown
    assert "it was ended; the figures shown were measured before it ended" in shown
    assert page.warning_label.isVisibleTo(page)
    assert page.table.rowCount() == 2  # done_first's figure and the stopped one's, kept
    qtbot.waitUntil(lambda: not page.runner.running, timeout=10_000)
    assert page.run_button.isEnabled()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_the_wizard_measure_panel_shows_the_watchdog_message(window, qtbot, monkeypatch,
                                                              tmp_path):
    pytest.importorskip("torch")
    import torchrig.gui.verify_panel as vp
    from torchrig.verify.child import run_verify_isolated

    stopped: list[int] = []

    def stop_the_child(record, emit) -> None:
        if not stopped:
            for child in psutil.Process().children(recursive=True):
                if "torchrig.verify.child" in " ".join(child.cmdline()):
                    child.send_signal(signal.SIGSTOP)
                    stopped.append(child.pid)
        emit(record)

    def measure_with_a_short_limit(workload, cancel, emit):
        # What _measure_here does, with the limit at 1 s and a stop on the first progress.
        return run_verify_isolated(workload, cancel=cancel, device="cpu", silence_s=1.0,
                                   progress=lambda record: stop_the_child(record, emit))

    monkeypatch.setattr(vp, "_measure_here", measure_with_a_short_limit)
    page = window.wizard_page
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    panel = page.verify_panel
    show_tab_of(qtbot, page.result_tabs, panel)
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=10_000)
    # A tiny model, opened with the Wizard's "Open workload…" button.
    path = tmp_path / "tiny.json"
    save_workload(workload_from_options(
        task="nlp_transformer", mode="train", model="custom", style="gpt", layers=4,
        hidden=64, heads=4, vocab=200, ffn=128, seq_len=16, batch=8, precision="fp32"), path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    click(qtbot, button(page, "open_workload"))
    assert (page.workload.model, page.workload.layers) == ("custom", 4)
    try:
        qtbot.mouseClick(panel.measure_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: bool(stopped), timeout=120_000)
        qtbot.waitUntil(lambda: not panel.runner.running, timeout=120_000)
    finally:
        for pid in stopped:
            _kill(pid)
    [pid] = stopped
    text = panel.status.text()
    assert f"the measurement process (pid {pid}) sent nothing for 1 s: it was stopped" in text
    assert "it was ended" in text
    assert panel.measure_button.isEnabled() and panel.result is None
