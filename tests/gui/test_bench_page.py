"""Benchmark page: a real (tiny) run, cancel, close mid-run, history; no thread left behind."""

from __future__ import annotations

import threading
import time

from torchrig.bench.report import BenchReport
from torchrig.bench.settings import BenchSettings
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
