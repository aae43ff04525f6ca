"""Benchmark page: a real (tiny) run, cancel, close mid-run, history; no thread left behind."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from gui_gestures import choose, click, menu_action, pick_with_keys

from torchrig.bench.report import BenchReport
from torchrig.gui.workers import TaskRunner


def _suite_in_place_of_the_child(monkeypatch, suite) -> None:
    """The Run button runs ``suite(settings, cancel, emit)`` where it would start the
    benchmark child process (the page's own code around it - history, events, buttons - runs
    as it is)."""
    from torchrig.bench.process import isolated

    def child(settings, *, cancel, on_progress=None, **_kwargs):
        return suite(settings, cancel, on_progress)

    monkeypatch.setattr(isolated, "run_isolated", child)


def _until_cancelled(started: threading.Event):
    """Stands in for the suite: steps until cancelled, like a real benchmark generator."""

    def suite(settings, cancel, on_progress):
        started.set()
        while not cancel.is_set():
            time.sleep(0.02)
        return BenchReport(settings=settings.to_dict(), started="2026-01-01T00:00:00+00:00",
                           cancelled=True)

    return suite


def test_a_real_run_fills_the_table_chart_and_history(window, qtbot, monkeypatch):
    from dataclasses import replace

    from torchrig.bench.process import isolated
    from torchrig.bench.report import list_reports, load_report

    real = isolated.run_isolated
    # Two benchmarks of the smoke preset, in the real child process.
    monkeypatch.setattr(isolated, "run_isolated", lambda settings, **kw: real(
        replace(settings, only=("matmul", "cpu_matmul")), **kw))
    page = window.bench_page
    choose(page.preset_box, "smoke")
    choose(page.device_box, "cpu")
    with qtbot.waitSignal(page.report_ready, timeout=120_000) as blocker:
        click(qtbot, page.run_button)
    report = blocker.args[0]
    assert {r.id for r in report.results} == {"matmul", "cpu_matmul"}
    assert report.settings["preset"] == "smoke" and report.settings["device"] == "cpu"
    assert page.table.rowCount() == sum(len(r.measurements) for r in report.results) >= 2
    assert any(bar.kind == "measured" for bar in page.chart.bars)
    assert any(bar.kind == "tier" for bar in page.chart.bars)  # the tiers' reference GPUs
    qtbot.waitUntil(lambda: not page.runner.running, timeout=10_000)
    assert page.run_button.isEnabled()
    # The run was saved to the history; choosing it there shows it again.
    saved = list_reports()
    assert len(saved) == 1 and page.history_box.count() == 2
    assert page.report is report
    pick_with_keys(qtbot, page.history_box, str(saved[0]))
    assert page.report is not report  # read back from the file
    assert page.report.to_dict() == load_report(saved[0]).to_dict() == report.to_dict()
    assert page.table.rowCount() == sum(len(r.measurements) for r in report.results)


def test_cancel_takes_effect(window, qtbot, monkeypatch):
    # The fake suite runs until it sees the cancel flag and has no end of its own, so the
    # runner stopping proves the click reached it. No wall-clock bound: on a busy machine
    # the event loop may take seconds, and that is not what this test is about.
    page = window.bench_page
    started = threading.Event()
    _suite_in_place_of_the_child(monkeypatch, _until_cancelled(started))
    click(qtbot, page.run_button)
    assert started.wait(10)
    assert not page.run_button.isEnabled() and page.cancel_button.isEnabled()
    click(qtbot, page.cancel_button)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=60_000)
    assert page.run_button.isEnabled()
    assert "Cancelled" in page.step_label.text()


def test_closing_the_window_mid_run_stops_the_worker(window, qtbot, monkeypatch):
    page = window.bench_page
    started = threading.Event()
    _suite_in_place_of_the_child(monkeypatch, _until_cancelled(started))
    click(qtbot, page.run_button)
    assert started.wait(10) and page.runner.running
    menu_action(window, "File", "Quit").trigger()
    assert TaskRunner.running_threads() == 0 and not window.isVisible()


def test_a_failing_suite_is_reported_not_raised(window, qtbot, monkeypatch):
    page = window.bench_page

    def broken(settings, cancel, on_progress):
        raise RuntimeError("GPU vanished")

    _suite_in_place_of_the_child(monkeypatch, broken)
    click(qtbot, page.run_button)
    qtbot.waitUntil(lambda: not page.runner.running, timeout=5_000)
    assert "GPU vanished" in page.step_label.text()
    assert page.run_button.isEnabled()


BENCH_TESTS = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture
def fake_suites(monkeypatch):
    """The child process finds tests/bench/child_fakes.py (benchmark lists for tests)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(BENCH_TESTS), os.environ.get("PYTHONPATH")) if p))


@pytest.mark.slow
def test_run_button_smoke_preset_rows_appear_then_cancel(window, qtbot):
    """issue 12: the Run button, clicked as a person does, runs the real suite (in its child
    process); rows fill in; Cancel stops it and the bar does not stay part-filled."""
    page = window.bench_page
    choose(page.preset_box, "smoke")
    choose(page.device_box, "cpu")
    click(qtbot, page.run_button)
    assert page.runner.running and not page.run_button.isEnabled()
    qtbot.waitUntil(lambda: page.table.rowCount() > 0, timeout=120_000)
    with qtbot.waitSignal(page.report_ready, timeout=10_000) as blocker:
        click(qtbot, page.cancel_button)
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
        click(qtbot, page.run_button)
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
        click(qtbot, page.run_button)
    assert [r.status for r in again.args[0].results] == ["ok", "ok"]
    assert not page.warning_label.text() or "SIGKILL" not in page.warning_label.text()
