"""Benchmark page: a real (tiny) run, cancel, close mid-run, history; no thread left behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from torchrig.bench.report import BenchReport
from torchrig.bench.settings import BenchSettings
from torchrig.gui.qt import Qt
from torchrig.gui.workers import TaskRunner


def _slow_work(started: threading.Event):
    """Stands in for the suite: steps until cancelled, like a real benchmark generator."""

    def work(cancel, emit):
        started.set()
        while not cancel.is_set():
            emit(("log", "step"))
            time.sleep(0.02)
        return BenchReport(settings={}, started="2026-01-01T00:00:00+00:00", cancelled=True)

    return work


def test_a_real_run_fills_the_table_chart_and_history(window, qtbot):
    page = window.bench_page
    settings = BenchSettings(preset="smoke", device="cpu", only=("matmul", "cpu_matmul"))
    with qtbot.waitSignal(page.report_ready, timeout=120_000) as blocker:
        page.start(settings=settings)
    report = blocker.args[0]
    assert {r.id for r in report.results} == {"matmul", "cpu_matmul"}
    assert page.table.rowCount() >= 2
    assert any(bar.kind == "measured" for bar in page.chart.bars)
    assert any(bar.kind == "tier" for bar in page.chart.bars)  # the tiers' reference GPUs
    qtbot.waitUntil(lambda: not page.runner.running, timeout=10_000)
    assert page.run_button.isEnabled()
    assert page.history_box.count() >= 2  # the run was saved to the history
    page.history_box.setCurrentIndex(1)
    page.history_box.activated.emit(1)
    assert page.report is not None


def test_cancel_takes_effect_within_a_second(window, qtbot):
    page = window.bench_page
    started = threading.Event()
    page.start(work=_slow_work(started))
    assert started.wait(10)
    clicked = time.monotonic()
    page.cancel_button.click()
    qtbot.waitUntil(lambda: not page.runner.running, timeout=5_000)
    assert time.monotonic() - clicked < 1.0
    assert page.run_button.isEnabled()
    assert "Cancelled" in page.step_label.text()


def test_closing_the_window_mid_run_stops_the_worker(window, qtbot):
    page = window.bench_page
    started = threading.Event()
    page.start(work=_slow_work(started))
    assert started.wait(10)
    window.close()
    assert TaskRunner.running_threads() == 0


def test_a_failing_suite_is_reported_not_raised(window, qtbot):
    page = window.bench_page

    def broken(cancel, emit):
        raise RuntimeError("GPU vanished")

    page.start(work=broken)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=5_000)
    assert "GPU vanished" in page.step_label.text()


BENCH_TESTS = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture
def fake_suites(monkeypatch):
    """The child process finds tests/bench/child_fakes.py (benchmark lists for tests)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(BENCH_TESTS), os.environ.get("PYTHONPATH")) if p))


def _choose(combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0
    combo.setCurrentIndex(index)


@pytest.mark.slow
def test_run_button_smoke_preset_rows_appear_then_cancel(window, qtbot):
    """issue 12: the Run button, clicked as a person does, runs the real suite (in its child
    process); rows fill in; Cancel stops it and the bar does not stay part-filled."""
    page = window.bench_page
    _choose(page.preset_box, "smoke")
    _choose(page.device_box, "cpu")
    qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    assert page.runner.running and not page.run_button.isEnabled()
    qtbot.waitUntil(lambda: page.table.rowCount() > 0, timeout=120_000)
    with qtbot.waitSignal(page.report_ready, timeout=10_000) as blocker:
        qtbot.mouseClick(page.cancel_button, Qt.MouseButton.LeftButton)
    report = blocker.args[0]
    assert report.settings["preset"] == "smoke"
    assert report.result("matmul").measurements  # what was measured before Cancel is kept
    qtbot.waitUntil(lambda: not page.runner.running, timeout=10_000)
    assert page.run_button.isEnabled() and not page.cancel_button.isEnabled()
    if report.cancelled:
        assert page.progress.value() == 0
        assert "Cancelled" in page.step_label.text()


@pytest.mark.slow
def test_a_child_killed_mid_run_leaves_the_window_working(window, qtbot, tmp_path,
                                                         fake_suites):
    """SIGKILL the benchmark process from outside (as the OOM killer does) while it measures:
    the page reports what had been measured and how the process ended, and runs again."""
    page = window.bench_page
    marker = tmp_path / "child.pid"
    page.registry = "child_fakes:CANCEL_WAIT"
    page.child_env = {"TORCHRIG_TEST_MARKER": str(marker)}
    with qtbot.waitSignal(page.report_ready, timeout=60_000) as blocker:
        qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(marker.exists, timeout=30_000)
        qtbot.waitUntil(lambda: marker.read_text() != "", timeout=5_000)
        os.kill(int(marker.read_text()), signal.SIGKILL)
    report = blocker.args[0]
    assert [r.state for r in report.results] == ["ok", "error", "skipped"]
    assert report.value("slow", "x") == 7.0
    assert "SIGKILL" in page.warning_label.text() and page.warning_label.isVisibleTo(page)
    assert page.table.rowCount() == 2  # done_first's figure and slow's, kept
    qtbot.waitUntil(lambda: not page.runner.running, timeout=10_000)
    page.registry = "child_fakes:AB"
    with qtbot.waitSignal(page.report_ready, timeout=60_000) as again:
        qtbot.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    assert [r.status for r in again.args[0].results] == ["ok", "ok"]
    assert not page.warning_label.text() or "SIGKILL" not in page.warning_label.text()
