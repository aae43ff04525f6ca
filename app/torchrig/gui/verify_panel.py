"""The Wizard's "Measure on this machine" panel: run the planned workload's model here
(:func:`torchrig.verify.measure.verify`) in a child process and show measured beside planned.
"Measure my model…" picks the user's own factory file (the CLI's ``--model-factory``).

The table's words come from the core (:mod:`torchrig.verify.compare`, both languages), so
the CLI, this panel and the PDF read the same.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from html import escape
from typing import Any

from torchrig.errors import InputError
from torchrig.gui.qt import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    Qt,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.style import colour
from torchrig.gui.widgets import WrappedLabel
from torchrig.gui.workers import TaskRunner
from torchrig.planning.workload import Workload

VerifyFn = Callable[..., Any]
"""(workload, cancel, emit, source) -> VerifyResult or None (cancelled)."""

DEFAULT_FACTORY_FUNCTION = "make_model"


def _measure_here(workload: Workload, cancel: threading.Event,
                  emit: Callable[[Any], None], source: Any = None) -> Any:
    """The real measurement, on the first GPU torch can use (else the CPU), in a child
    process: torch is never imported into the window, and a crash ends the child only.
    ``source``: whose model (:class:`~torchrig.verify.sources.ModelSource`; None: the
    preset's own library model, or the reference model where none exists)."""
    from torchrig.verify.child import run_verify_isolated

    return run_verify_isolated(workload, cancel=cancel, progress=emit, source=source)


class VerifyPanel(QWidget):
    """Signals:
        result_ready(object): a finished VerifyResult.
        workload_measured(object): the workload with the measured figures and their context
            (after "Use the measured figures").
    Attributes:
        runner: the TaskRunner of the measurement; result: the last VerifyResult (or None).
    """

    result_ready = Signal(object)
    workload_measured = Signal(object)

    def __init__(self, lang: str = "en", parent: QWidget | None = None,
                 measure: VerifyFn | None = None) -> None:
        super().__init__(parent)
        self.lang = lang
        self.workload: Workload | None = None
        self.result: Any = None
        self._table_grew = False
        self._failed = False
        self._measure = measure
        self.runner = TaskRunner(self)
        self.runner.progress.connect(self._on_progress)
        self.runner.succeeded.connect(self._on_done)
        self.runner.failed.connect(self._on_failed)
        self.runner.finished.connect(self._on_finished)

        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.measure_button = QPushButton(self.tr("Measure on this machine"))
        self.measure_button.setToolTip(self.tr(
            "Build this workload's model with random weights, run a few training steps on "
            "this machine's GPU (or CPU) and compare each figure with the plan"))
        self.measure_button.clicked.connect(lambda: self.start())
        self.factory_button = QPushButton(self.tr("Measure my model…"))
        self.factory_button.setToolTip(self.tr(
            "Pick a Python file whose function (named on the right) returns your "
            "torch.nn.Module; an optional batch(batch_size) in it returns (inputs, targets). "
            "It runs in a separate process"))
        self.factory_button.clicked.connect(lambda: self.pick_factory())
        self.factory_function = QLineEdit(DEFAULT_FACTORY_FUNCTION)
        self.factory_function.setToolTip(self.tr("The function in your file that returns the "
                                                 "model"))
        # Wide enough for the default name: in one row with the other buttons at 1280 px the
        # field was squeezed to a few letters ("model").
        self.factory_function.setMinimumWidth(
            self.factory_function.fontMetrics().horizontalAdvance(DEFAULT_FACTORY_FUNCTION * 2))
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(lambda: self.runner.cancel())
        self.apply_button = QPushButton(self.tr("Use the measured figures"))
        self.apply_button.setToolTip(self.tr(
            "Store the measured activation memory and FLOPs per sample, and where they were "
            "measured, in the workload, and plan again with them"))
        self.apply_button.hide()
        self.apply_button.clicked.connect(lambda: self._apply())
        bar.addWidget(self.measure_button)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.apply_button)
        bar.addStretch(1)
        layout.addLayout(bar)
        own = QHBoxLayout()  # the user's own model: the file button and the function's name
        own.addWidget(self.factory_button)
        own.addWidget(self.factory_function)
        own.addStretch(1)
        layout.addLayout(own)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        layout.addWidget(self.progress)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.table = QTableWidget(0, 4)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        # No header until there are figures: an empty table showed Qt's column numbers.
        self.table.horizontalHeader().setVisible(False)
        layout.addWidget(self.table, 1)
        self.notes = WrappedLabel()
        layout.addWidget(self.notes)

    def set_workload(self, workload: Workload) -> None:
        self.workload = workload

    def pick_factory(self) -> None:
        """Ask for the file with the model's factory, then measure that model."""
        from torchrig.verify.sources import ModelSource

        if self.workload is None or self.runner.running:
            return
        function = self.factory_function.text().strip()
        if not function.isidentifier():
            self._on_failed(self.tr("Give the name of the function that returns your model "
                                    "(for example make_model)."), "")
            return
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Your model's Python file"), "",
                                              self.tr("Python files (*.py)"))
        if path:
            self.start(ModelSource("factory", path=path, function=function))

    def start(self, source: Any = None) -> None:
        if self.workload is None or self.runner.running:
            return
        workload, measure, lang = self.workload, self._measure or _measure_here, self.lang

        def run(cancel: threading.Event, emit: Callable[[Any], None]) -> Any:
            from torchrig.verify.child import MeasureFailed

            try:
                if source is None:
                    return measure(workload, cancel, emit)
                return measure(workload, cancel, emit, source)
            except MeasureFailed as exc:
                raise InputError(exc.msg.get(lang)) from None

        self.result = None
        self._failed = False
        self.apply_button.hide()
        self.measure_button.setEnabled(False)
        self.factory_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setRange(0, 0)  # busy until the first record says how many runs
        self.status.setText(self.tr("Starting…"))
        # The last run's figures are not this run's: cleared, not shown under its progress.
        self.table.setRowCount(0)
        self.table.horizontalHeader().setVisible(False)
        self.notes.clear()
        self.runner.start(run)

    def shutdown(self) -> bool:
        return self.runner.shutdown()

    def _on_progress(self, record: Any) -> None:
        self.progress.setRange(0, max(1, record.total))
        self.progress.setValue(record.done)
        self.status.setText(record.message.get(self.lang))

    def _on_done(self, result: Any) -> None:
        if result is None:
            return
        self.result = result
        self.show_result(result)
        self._bring_into_view()
        self.result_ready.emit(result)

    def _bring_into_view(self) -> None:
        """Scroll the page that holds the panel to its table: at 1280 x 720 the Wizard's panel
        sits below the fold, and a finished measurement would not be seen."""
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        if parent is None:
            return
        area = parent
        bar = area.verticalScrollBar()

        def scroll(*_range: int) -> None:
            bar.rangeChanged.disconnect(scroll)
            area.ensureWidgetVisible(self.table, 0, 0)

        # When the table has just been given a new height, the page grows (and its scroll
        # range with it) only once the scroll area has laid it out again: scroll then too.
        if self._table_grew:
            bar.rangeChanged.connect(scroll)
        area.ensureWidgetVisible(self.table, 0, 0)

    def show_result(self, result: Any) -> None:
        from torchrig.verify.compare import summary_lines, table

        header, body = table(result, self.lang)
        # A result on show is a finished run, however it got here (a run, or one shown again).
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        self.table.setRowCount(len(body))
        self.table.setHorizontalHeaderLabels(header)
        self.table.horizontalHeader().setVisible(True)
        for r, (row, cells) in enumerate(zip(result.rows, body, strict=True)):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if c == 0:
                    item.setToolTip((row.cause or row.note).get(self.lang))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        # Tall enough for all its rows (a dozen at most): the Wizard's page scrolls, and a
        # table left at its minimum showed one row at 1280 x 720; capped at ten, the last row
        # (the step time) hid behind the table's own scroll bar.
        height = (self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
                  + sum(self.table.rowHeight(r) for r in range(len(body))))
        self._table_grew = height != self.table.minimumHeight()
        self.table.setMinimumHeight(height)
        self.notes.setText("<br/>".join(escape(line) for line in summary_lines(result,
                                                                               self.lang)))
        self._fit_height()
        self.status.setText(self.tr("Measured in {0} s.").format(f"{result.wall_s:.1f}"))
        # Every model's measured figures go back (verify --apply): the planner uses a
        # transformer's too, where the measurement matches the plan.
        self.apply_button.setVisible(result.measured.activations > 0)

    def _fit_height(self) -> None:
        """Hold the panel to what its rows and notes need: the tab widget above it sizes its
        pages from their hints, which it had computed before the table and the notes grew
        (the notes reserve their own wrapped height, WrappedLabel)."""
        layout = self.layout()
        if layout is not None:
            layout.invalidate()
            self.setMinimumHeight(layout.minimumSize().height())

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit_height()

    def _on_failed(self, message: str, _details: str) -> None:
        self._failed = True
        self.status.setText(f"<span style='color: {colour('error')}'>{escape(message)}</span>")

    def _on_finished(self) -> None:
        self.measure_button.setEnabled(True)
        self.factory_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if self.result is not None else 0)
        if self.result is None and not self._failed:
            self.status.setText(self.tr("Stopped."))

    def _apply(self) -> None:
        from torchrig.verify.written_workload import measured_workload

        if self.result is not None:
            self.apply_button.hide()
            self.workload_measured.emit(measured_workload(self.result))

