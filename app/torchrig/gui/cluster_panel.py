"""The Benchmark page's cluster panel: the torchrun command for a cluster (with a copy button),
a local collective run on this machine, and attaching a collective report.

Signals:
    report_changed(object): a CollectiveReport attached (measured here or opened from a file).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.gui.qt import (
    QApplication,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.workers import Preload, TaskRunner
from torchrig.units import fmt_rate, fmt_seconds

COMMAND_MODULES = ("torchrig.bench.collective.launch",)
"""What :meth:`ClusterPanel.update_command` imports."""


class ClusterPanel(QWidget):
    report_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.report: Any = None
        self.local_gpus = 0
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._on_line)
        self.runner.succeeded.connect(self._on_report)
        self.runner.failed.connect(self._on_failed)
        self.runner.finished.connect(lambda: self._set_running(False))

        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.nodes_spin = QSpinBox()
        self.nodes_spin.setRange(1, 100_000)
        self.nodes_spin.setToolTip(self.tr("Machines taking part (torchrun --nnodes)"))
        self.gpus_spin = QSpinBox()
        self.gpus_spin.setRange(1, 1024)
        # What this machine has until detection says otherwise: no GPU, so 2 gloo processes.
        self.gpus_spin.setValue(2)
        self.gpus_spin.setToolTip(self.tr("Processes per machine, one per GPU "
                                          "(torchrun --nproc-per-node)"))
        self.addr_edit = QLineEdit()
        self.addr_edit.setPlaceholderText(self.tr("first node's address (several nodes)"))
        self.addr_edit.setToolTip(self.tr("Host name or IP of the first node, reachable from "
                                          "every node (torchrun --rdzv-endpoint)"))
        self.port_spin = QSpinBox()
        self.port_spin.setRange(1, 65_535)
        self.port_spin.setValue(29_500)
        self.port_spin.setToolTip(self.tr("A free TCP port on the first node"))
        self.backend_box = QComboBox()
        self.backend_box.addItems(["nccl", "gloo"])
        self.backend_box.setCurrentText("gloo")
        self.backend_box.setToolTip(self.tr("nccl for NVIDIA GPUs; gloo for CPUs (or to check "
                                            "the setup without GPUs)"))
        form.addRow(self.tr("Nodes"), self.nodes_spin)
        form.addRow(self.tr("GPUs per node"), self.gpus_spin)
        form.addRow(self.tr("Rendezvous host"), self.addr_edit)
        form.addRow(self.tr("Port"), self.port_spin)
        form.addRow(self.tr("Backend"), self.backend_box)
        layout.addLayout(form)
        layout.addWidget(QLabel(self.tr("Run this on every node of your cluster:")))
        self.command = QPlainTextEdit()
        self.command.setReadOnly(True)
        self.command.setMaximumHeight(90)
        layout.addWidget(self.command)
        row = QHBoxLayout()
        self.copy_button = QPushButton(self.tr("Copy command"))
        self.copy_button.clicked.connect(
            lambda: QApplication.clipboard().setText(self.command.toPlainText()))
        self.run_button = QPushButton(self.tr("Measure here (2 CPU processes)"))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.open_button = QPushButton(self.tr("Attach report…"))
        for button in (self.copy_button, self.run_button, self.cancel_button, self.open_button):
            row.addWidget(button)
        layout.addLayout(row)
        self.progress = QProgressBar()
        layout.addWidget(self.progress)
        self.exposure = QLabel(self.tr(
            "Network exposure: \"Measure here\" listens on 127.0.0.1 only and nothing outside "
            "this machine can connect. On a cluster, the first node's rendezvous port above "
            "and the NCCL/gloo ports of every node accept connections on the interface you "
            "choose (NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME; default: any) for the length of "
            "the run - run it on a trusted network or behind a firewall."))
        self.exposure.setWordWrap(True)
        layout.addWidget(self.exposure)
        self.result = QLabel(self.tr("No collective report attached: scaling uses catalog "
                                     "link rates."))
        self.result.setWordWrap(True)
        layout.addWidget(self.result)
        layout.addStretch(1)

        for spin in (self.nodes_spin, self.gpus_spin, self.port_spin):
            spin.valueChanged.connect(self.update_command)
        self.addr_edit.textChanged.connect(self.update_command)
        self.backend_box.currentIndexChanged.connect(self.update_command)
        self.run_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.runner.cancel)
        self.open_button.clicked.connect(self.open_dialog)
        # The torchrun helpers import the benchmark package (about 90 ms): imported on a
        # worker thread, and the command filled once they are in.
        self.preload = Preload(COMMAND_MODULES, self.update_command, self)

    def set_machine(self, nvidia_gpus: int) -> None:
        """Default to what this machine has: one process per NVIDIA GPU over NCCL, else two
        CPU processes over gloo. Used once detection is done."""
        self.local_gpus = nvidia_gpus
        self.gpus_spin.setValue(nvidia_gpus if nvidia_gpus > 0 else 2)
        self.backend_box.setCurrentText("nccl" if nvidia_gpus > 0 else "gloo")
        self.run_button.setText(
            self.tr("Measure here ({0} GPUs, NCCL)").format(nvidia_gpus) if nvidia_gpus >= 2
            else self.tr("Measure here (2 CPU processes)"))

    def summary_text(self, report: Any) -> str:
        """Per collective: bus bandwidth at the largest size (what the scaling model uses),
        peak, and latency at the smallest size, with the nccl-tests convention stated."""
        t = report.transport
        nodes = getattr(t, "nnodes", 1)
        lines = [(self.tr("{0}, {1} ranks on 1 node") if nodes == 1 else
                  self.tr("{0}, {1} ranks on {2} nodes")).format(t.backend, t.world_size, nodes)]
        for op, s in report.summary.items():
            lines.append(self.tr("{0}: busbw {1} at {2} B, peak {3}, latency {4}").format(
                op, fmt_rate(s.busbw_at_largest), f"{s.largest_bytes:,}", fmt_rate(s.peak_busbw),
                fmt_seconds(s.latency_s)))
        lines.append(self.tr("busbw = algbw x 2(n-1)/n (all-reduce) or x (n-1)/n, as "
                             "nccl-tests counts it"))
        return "\n".join(lines)

    def snapshot(self) -> dict[str, Any]:
        return {"report": self.report, "nodes": self.nodes_spin.value(),
                "gpus": self.gpus_spin.value(), "addr": self.addr_edit.text(),
                "port": self.port_spin.value(), "backend": self.backend_box.currentText()}

    def restore(self, state: dict[str, Any]) -> None:
        self.nodes_spin.setValue(state["nodes"])
        self.gpus_spin.setValue(state["gpus"])
        self.addr_edit.setText(state["addr"])
        self.port_spin.setValue(state["port"])
        self.backend_box.setCurrentText(state["backend"])
        if state["report"] is not None:
            self.report = state["report"]
            self.result.setText(self.summary_text(state["report"]))

    def update_command(self) -> None:
        from torchrig.bench.collective.launch import torchrun_command

        try:
            text = torchrun_command(self.nodes_spin.value(), self.gpus_spin.value(),
                                    self.addr_edit.text().strip() or None,
                                    self.port_spin.value(), self.backend_box.currentText())
        except InputError as exc:
            text = str(exc)
        self.command.setPlainText(text)

    def start(self, work: Callable[..., Any] | None = None) -> None:
        """Measure on this machine: NCCL over its GPUs when detection found 2+, else 2 gloo
        processes. The choice comes from detection, not torch: torch is never imported in the
        GUI's process."""
        from torchrig.bench.collective.launch import launch_local, parse_progress

        if self.runner.running:
            return
        nproc, backend = (self.local_gpus, "nccl") if self.local_gpus >= 2 else (2, "gloo")

        def run(cancel: threading.Event, emit: Callable[[Any], None]) -> Any:
            if work is not None:
                return work(cancel, emit)
            from torchrig.bench.collective.report import load_collective_report

            path = launch_local(nproc, backend, ("--sizes", "8..4M") if backend == "gloo"
                                else (), cancel=cancel,
                                on_line=lambda line: emit(parse_progress(line)))
            report = load_collective_report(path)
            for leftover in sorted(path.parent.iterdir()):
                leftover.unlink()
            path.parent.rmdir()
            return report

        self._set_running(True)
        self.runner.start(run)

    def shutdown(self) -> bool:
        preloaded = self.preload.shutdown()
        return self.runner.shutdown() and preloaded

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Collective report"), "",
                                              self.tr("Collective report (*.json)"))
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path) -> bool:
        from torchrig.bench.collective.report import load_collective_report

        try:
            self._on_report(load_collective_report(path))
        except InputError as exc:
            self.result.setText(str(exc))
            return False
        return True

    def _set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        if running:
            self.progress.setValue(0)
            self.result.setText(self.tr("Measuring…"))

    def _on_line(self, progress: Any) -> None:
        if progress:
            done, total, label = progress
            self.progress.setMaximum(max(total, 1))
            self.progress.setValue(done)
            self.result.setText(label)

    def _on_report(self, report: Any) -> None:
        if report is None:
            return
        self.report = report
        self.result.setText(self.summary_text(report))
        self.report_changed.emit(report)

    def _on_failed(self, message: str, details: str) -> None:
        self.result.setText(message)
