"""Benchmark: run the suite in a child process, watch it fill in, compare with spec peaks.

A :class:`~torchrig.gui.workers.TaskRunner` thread starts ``python -m torchrig.bench.process.child``
through :func:`~torchrig.bench.process.isolated.run_isolated` and turns its JSON lines into queued
signals. torch is only ever imported in the child, so its import never holds this process's
interpreter lock, and a crash in a kernel or an out-of-memory kill ends the child, not the
window: the page then shows what had been measured and how the child ended. Cancel asks the
child to stop and kills it after 0.6 s; closing the window cancels and waits for the thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchrig.catalog.matching import match_gpu
from torchrig.catalog.model import Catalog
from torchrig.errors import InputError
from torchrig.gui.charts import ThroughputChart
from torchrig.gui.cluster_panel import ClusterPanel
from torchrig.gui.findings_view import FindingsView
from torchrig.gui.qt import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.settings import Settings
from torchrig.gui.workers import Preload, TaskRunner
from torchrig.hardware.model import SystemProfile
from torchrig.units import fmt_gb

FIRST_FILL_MODULES = ("torchrig.bench.benchmarks.storage", "torchrig.bench.settings",
                      "torchrig.bench.spec_compare", "torchrig.bench.report")
"""What the storage note and the history list import when the page is first filled."""


class BenchPage(QWidget):
    """Signals:
        report_ready(object): a finished (or cancelled) BenchReport.
    Attributes:
        report: the report shown (the last run, or one picked from the history).
        runner: the TaskRunner that owns the benchmark thread.
        registry / child_env: another benchmark list ("module:attribute") and extra
            environment for the child process (tests).
        child_silence_s: how long the child may send nothing before it is ended as stopped
            or hung (None: the watchdog's default; tests shorten it).
    """

    report_ready = Signal(object)

    def __init__(self, catalog: Catalog, settings: Settings, lang: str = "en",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.settings = settings
        self.lang = lang
        self.profile: SystemProfile | None = None
        self.report: Any = None
        self._current_bench = ""
        self.registry: str | None = None
        self.child_env: dict[str, str] | None = None
        self.child_silence_s: float | None = None
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._on_event)
        self.runner.succeeded.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.runner.finished.connect(self._on_finished)

        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(self.tr("<h2>Benchmark</h2>")))
        bar.addStretch(1)
        bar.addWidget(QLabel(self.tr("Preset")))
        self.preset_box = QComboBox()
        self.preset_box.addItem(self.tr("Quick (about 30 s)"), "quick")
        self.preset_box.addItem(self.tr("Full (under 3 min)"), "full")
        self.preset_box.addItem(self.tr("Smoke test (a few seconds)"), "smoke")
        self.preset_box.setToolTip(self.tr("Quick: short runs of every benchmark. Full: longer "
                                           "runs and more sizes, steadier figures. Smoke test: "
                                           "tiny sizes, only proves every benchmark works"))
        bar.addWidget(self.preset_box)
        bar.addWidget(QLabel(self.tr("Device")))
        self.device_box = QComboBox()
        self.device_box.addItem(self.tr("CPU"), "cpu")
        self.device_box.setToolTip(self.tr("The device the torch benchmarks run on; GPUs "
                                           "appear once detection has found them"))
        bar.addWidget(self.device_box)
        self.run_button = QPushButton(self.tr("Run"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.run_button.setToolTip(self.tr("Run the suite in a separate process (loads torch "
                                           "there); the window stays usable even if it crashes"))
        self.cancel_button.setToolTip(self.tr("Stop after the current step; what was measured "
                                              "is kept"))
        bar.addWidget(self.run_button)
        bar.addWidget(self.cancel_button)
        layout.addLayout(bar)

        folder_row = QHBoxLayout()
        folder_row.addWidget(QLabel(self.tr("Dataset folder (storage test)")))
        self.folder_edit = QLineEdit(settings.dataset_folder)
        self.folder_edit.setPlaceholderText(self.tr("default: the system temp folder"))
        self.folder_edit.setToolTip(self.tr("The storage test writes and reads files here: "
                                            "pick a folder on the disk that will hold the "
                                            "dataset"))
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        folder_row.addWidget(self.folder_edit, 1)
        folder_row.addWidget(browse)
        self.storage_note = QLabel()
        folder_row.addWidget(self.storage_note)
        layout.addLayout(folder_row)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.step_label = QLabel(self.tr("Ready."))
        self.step_label.setWordWrap(True)
        self.warning_label = QLabel()
        self.warning_label.setWordWrap(True)
        self.warning_label.setVisible(False)
        layout.addWidget(self.progress)
        layout.addWidget(self.step_label)
        layout.addWidget(self.warning_label)

        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(
            [self.tr("Measurement"), self.tr("Value"), self.tr("Reference"), self.tr("%")])
        for col, tip in ((2, self.tr("The spec peak of this device from the catalog (or the "
                                     "seed's figure), when known")),
                         (3, self.tr("Measured value as a share of the reference"))):
            header_item = self.table.horizontalHeaderItem(col)
            if header_item is not None:
                header_item.setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            head.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.chart = ThroughputChart(lang)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.findings_view = FindingsView(lang)
        self.history_box = QComboBox()
        self.history_box.activated.connect(self._open_history)

        side = QTabWidget()
        side.addTab(self.log, self.tr("Log"))
        side.addTab(self.findings_view, self.tr("Findings"))
        history = QWidget()
        history_layout = QVBoxLayout(history)
        history_layout.addWidget(QLabel(self.tr("Earlier runs on this machine:")))
        history_layout.addWidget(self.history_box)
        history_layout.addStretch(1)
        side.addTab(history, self.tr("History"))
        self.cluster = ClusterPanel()
        side.addTab(self.cluster, self.tr("Cluster"))
        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(self.table)
        left.addWidget(self.chart)
        left.setSizes([420, 200])
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(side)
        splitter.setSizes([760, 420])
        layout.addWidget(splitter, 1)

        self.run_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.preset_box.currentIndexChanged.connect(self._update_storage_note)
        self.folder_edit.textChanged.connect(self._update_storage_note)
        # Both read the bench package (its first import: about 90 ms) and the history folder:
        # the modules are imported on a worker thread, then both are filled.
        self.preload = Preload(FIRST_FILL_MODULES, self._first_fill, self)

    # --- settings -----------------------------------------------------------------------------

    def set_profile(self, profile: SystemProfile) -> None:
        self.profile = profile
        current = self.device_box.currentData()
        self.device_box.clear()
        self.device_box.addItem(self.tr("CPU"), "cpu")
        for gpu in profile.gpus:
            if gpu.torch_device:
                self.device_box.addItem(f"{gpu.torch_device}: {gpu.name}", gpu.torch_device)
            elif gpu.vendor == "NVIDIA":
                self.device_box.addItem(f"cuda:{gpu.index}: {gpu.name}", f"cuda:{gpu.index}")
        self.device_box.setCurrentIndex(max(0, self.device_box.findData(current)))
        self.cluster.set_machine(sum(1 for g in profile.gpus if g.vendor == "NVIDIA"))

    def bench_settings(self) -> Any:
        from torchrig.bench.settings import BenchSettings
        from torchrig.bench.spec_compare import catalog_peaks

        device = self.device_box.currentData() or "cpu"
        peaks = None
        if device != "cpu" and self.profile is not None:
            gpu = next((g for g in self.profile.gpus if g.torch_device == device), None)
            if gpu is None and self.profile.gpus:
                gpu = self.profile.gpus[0]
            if gpu is not None:
                part = match_gpu(self.catalog, gpu.name or "", gpu.vram_total_bytes)
                peaks = catalog_peaks(part, (gpu.pcie_gen_max, gpu.pcie_width_max))
        folder = self.folder_edit.text().strip()
        return BenchSettings(preset=self.preset_box.currentData(), device=device,
                             dataset_dir=Path(folder) if folder else None, peaks=peaks)

    def _update_storage_note(self) -> None:
        from torchrig.bench.benchmarks.storage import plan_for

        try:
            plan = plan_for(self.bench_settings())
        except (InputError, OSError) as exc:
            self.storage_note.setText(str(exc))
            return
        self.storage_note.setText(self.tr("writes {0} there, removed afterwards")
                                  .format(fmt_gb(plan.total_bytes)))

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Folder on the dataset's disk"),
                                                  self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)
            self.settings.dataset_folder = folder

    # --- running ------------------------------------------------------------------------------

    def start(self, work: Callable[..., Any] | None = None, settings: Any = None) -> None:
        """Start the suite with the page's settings (tests pass smaller ``settings``, or a
        ``work`` function run on the thread in place of the child process)."""
        if self.runner.running:
            return
        settings = settings or self.bench_settings()
        profile = self.profile.to_dict() if self.profile is not None else None
        registry, child_env = self.registry, self.child_env
        silence_s = self.child_silence_s
        self.table.setRowCount(0)
        self._results: list[Any] = []
        self.log.clear()
        self.progress.setValue(0)
        self._show_warnings([])
        self.step_label.setText(self.tr("Starting (loading torch in the benchmark process)…"))
        not_saved = self.tr("could not save the report to the history: {0}")
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)

        def run(cancel: threading.Event, emit: Callable[[Any], None]) -> Any:
            if work is not None:
                return work(cancel, emit)
            from torchrig.bench.process.channel import BenchProcessError
            from torchrig.bench.process.isolated import run_isolated
            from torchrig.bench.process.watchdog import SILENCE_TIMEOUT_S
            from torchrig.bench.report import save_to_history

            try:
                report = run_isolated(
                    settings, cancel=cancel, profile=profile, detect=profile is None,
                    on_progress=lambda p: emit(("progress", p)),
                    on_measurement=lambda m: emit(("measurement", m)),
                    on_result=lambda r: emit(("result", r)), registry=registry,
                    env=child_env, silence_s=silence_s or SILENCE_TIMEOUT_S)
            except BenchProcessError as exc:
                emit(("log", exc.details))
                raise
            try:
                save_to_history(report)
            except InputError as exc:
                emit(("log", not_saved.format(exc)))
            return report

        self.runner.start(run)

    def cancel(self) -> None:
        self.runner.cancel()
        self.step_label.setText(self.tr("Cancelling…"))

    def shutdown(self) -> bool:
        stopped = self.cluster.shutdown() and self.preload.shutdown()
        return self.runner.shutdown() and stopped

    def _first_fill(self) -> None:
        self._update_storage_note()
        self.refresh_history()

    def _on_event(self, event: Any) -> None:
        from torchrig.bench.format import progress_line, result_line

        kind, payload = event
        if kind == "progress":
            self._current_bench = payload.bench_id
            self.progress.setValue(int(payload.suite_fraction * 1000))
            text = progress_line(payload, self.lang)
            self.step_label.setText(text)
            self.log.appendPlainText(text)
        elif kind == "measurement":
            self._add_row(payload)
        elif kind == "result":
            # The result is authoritative: redraw finished benchmarks from their results.
            self._results.append(payload)
            self._show_rows(self._results)
            self.log.appendPlainText(result_line(payload, self.lang))
        elif kind == "log":
            self.log.appendPlainText(str(payload))

    def _add_row(self, m: Any) -> None:
        from torchrig.bench.format import format_value

        row = self.table.rowCount()
        self.table.insertRow(row)
        ref = m.reference
        ratio = m.ratio
        cells = [
            m.label.get(self.lang),
            format_value(m.value, m.unit, m.id, self.lang),
            (f"{format_value(ref.value, m.unit, m.id, self.lang)} ({ref.label.get(self.lang)})"
             if ref is not None and ref.value else
             ref.label.get(self.lang) if ref is not None else "—"),
            f"{ratio:.0%}" if ratio is not None else "",
        ]
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if col in (1, 3):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if m.notes:
                item.setToolTip("\n".join(n.get(self.lang) for n in m.notes))
            self.table.setItem(row, col, item)

    def _show_rows(self, results: list[Any]) -> None:
        self.table.setRowCount(0)
        for result in results:
            for m in result.measurements:
                self._add_row(m)

    def _on_done(self, report: Any) -> None:
        self.show_report(report)
        self.report_ready.emit(report)
        self.refresh_history()

    def show_report(self, report: Any) -> None:
        from torchrig.bench.findings import bench_findings
        from torchrig.bench.spec_compare import matmul_bars

        self.report = report
        self._show_rows(report.results)
        self.chart.set_bars(matmul_bars(report, self.catalog))
        profile = self.profile
        if profile is None and report.profile:
            profile = SystemProfile.from_dict(report.profile)
        self.findings_view.set_findings(bench_findings(report, profile),
                                        empty=self.tr("No problems found in the measurements."))
        incomplete = [r for r in report.results if r.state != "ok"]
        status = self.tr("Cancelled: kept what was measured.") if report.cancelled \
            else self.tr("Done.")
        if incomplete:
            status += " " + self.tr("Not complete: {0}").format(
                "; ".join(self._skip_text(r) for r in incomplete))
        self.step_label.setText(status)
        self.step_label.setToolTip(status)
        # A cancelled or crashed run did not get to the end: the bar says so by emptying.
        finished = not report.cancelled and report.interrupted is None
        self.progress.setValue(1000 if finished else 0)
        warnings = [w.get(self.lang) for w in report.busy_warnings]
        if report.interrupted is not None:
            warnings.insert(0, report.interrupted.get(self.lang))
        self._show_warnings(warnings)

    def _show_warnings(self, texts: list[str]) -> None:
        """Busy-machine warnings and how a run ended, in the warning colour."""
        from torchrig.gui.style import colour

        self.warning_label.setStyleSheet(f"color: {colour('warn')}")
        self.warning_label.setText("\n".join(f"⚠ {t}" for t in texts))
        self.warning_label.setVisible(bool(texts))

    def _skip_text(self, result: Any) -> str:
        from torchrig.bench.format import state_text

        return self.tr("{0} ({1})").format(result.title.get(self.lang),
                                           state_text(result, self.lang))

    def snapshot(self) -> dict[str, Any]:
        """The report shown, the run settings and the log (a rebuild never runs mid-run)."""
        return {"report": self.report, "preset": self.preset_box.currentData(),
                "device": self.device_box.currentData(), "folder": self.folder_edit.text(),
                "log": self.log.toPlainText(), "cluster": self.cluster.snapshot()}

    def restore(self, state: dict[str, Any]) -> None:
        self.preset_box.setCurrentIndex(max(0, self.preset_box.findData(state["preset"])))
        self.device_box.setCurrentIndex(max(0, self.device_box.findData(state["device"])))
        self.folder_edit.setText(state["folder"])
        self.cluster.restore(state["cluster"])
        if state["report"] is not None:
            self.show_report(state["report"])
        if state["log"]:
            self.log.setPlainText(state["log"])

    def _on_failed(self, message: str, details: str) -> None:
        self.progress.setValue(0)
        self.step_label.setText(self.tr("The benchmark stopped: {0}").format(message))
        if details:
            self.log.appendPlainText(details)

    def _on_finished(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    # --- history ------------------------------------------------------------------------------

    def refresh_history(self) -> None:
        from torchrig.bench.report import list_reports

        self.history_box.clear()
        self.history_box.addItem(self.tr("Choose an earlier run…"), None)
        for path in list_reports():
            self.history_box.addItem(path.stem, str(path))

    def _open_history(self, index: int) -> None:
        path = self.history_box.itemData(index)
        if not path:
            return
        try:
            self.show_file(Path(path))
        except InputError as exc:
            self.step_label.setText(str(exc))

    def show_file(self, path: Path) -> Any:
        """Load a benchmark report file and show it; returns the report (InputError when the
        file is not one)."""
        from torchrig.bench.report import load_report

        report = load_report(path)
        self.show_report(report)
        return report
