"""This machine: one card per component, filled by detection on a worker thread."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from torchrig.gui.qt import (
    QApplication,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    Qt,
    QTimer,
    QVBoxLayout,
    QWidget,
    Signal,
)
from torchrig.gui.style import colour
from torchrig.gui.widgets import ElidedLabel
from torchrig.gui.workers import TaskRunner
from torchrig.i18n import Msg

if TYPE_CHECKING:
    # The hardware model and its sections are imported when a profile is shown: detection
    # imports them on its thread first, so the window's start does not.
    from torchrig.hardware.model import SystemProfile
    from torchrig.hardware.sections import Section


class _Card(QFrame):
    def __init__(self, section: Section, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        grid = QGridLayout(self)
        title = QLabel(section.title)
        title.setTextFormat(Qt.TextFormat.PlainText)
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        grid.addWidget(title, 0, 0, 1, 2)
        for i, row in enumerate(section.rows, start=1):
            label = QLabel(row.label)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setStyleSheet("color: palette(placeholder-text);")
            value = QLabel(row.value)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            if not row.known:
                value.setStyleSheet(f"color: {colour('unknown')};")
            if row.hint:
                label.setToolTip(row.hint)
                value.setToolTip(row.hint)
            grid.addWidget(label, i, 0, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(value, i, 1)
        grid.setColumnStretch(1, 1)
        # Cards share a grid row with a taller neighbour: keep rows packed at the top.
        grid.setRowStretch(len(section.rows) + 1, 1)


PROFILE_CONSUMERS = (
    "psutil", "torchrig.builds.capabilities", "torchrig.builds.targets",
    "torchrig.planning.analysis", "torchrig.planning.advice", "torchrig.bench.benchmarks.storage",
    "torchrig.bench.collective.launch", "torchrig.bench.collective.report",
    "torchrig.bench.collective.options",
)
"""Modules the pages import when the profile arrives (targets, wizard, benchmark, cluster).
PySide's import hook reads every module's source, so a first import on the GUI thread stalls
the window; the detection thread imports them first (none of them imports torch)."""


def _import_what_the_pages_need() -> None:
    import importlib

    for name in PROFILE_CONSUMERS:
        importlib.import_module(name)


@dataclass(frozen=True)
class _Detected:
    """What the detection thread hands to the GUI thread: the profile and its cards' rows."""

    profile: SystemProfile
    sections: list[Section]


class MachinePage(QWidget):
    """Detected CPU, memory, GPUs, storage and software.

    Signals:
        profile_changed(object): a new SystemProfile after detection finished.
    Attributes:
        profile: the last detected profile, or None while the first detection runs.
        runner: the TaskRunner that detects on a worker thread.
    """

    profile_changed = Signal(object)

    def __init__(self, lang: str = "en", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.profile: SystemProfile | None = None
        self._generation = 0
        self._closed = False
        self.prepare_pages = True
        """Import what the catalog pages need on the detection thread (the main window
        turns it off while those pages are not built: nothing would use the imports)."""
        self._lang = lang
        self.runner = TaskRunner(self)
        self.runner.succeeded.connect(self._on_detected)
        self.runner.failed.connect(self._on_failed)
        self.runner.finished.connect(self._on_finished)

        outer = QVBoxLayout(self)
        bar = QHBoxLayout()
        heading = QLabel(self.tr("<h2>This machine</h2>"))
        self.status = ElidedLabel(self.tr("Detecting…"))
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.torch_button = QPushButton(self.tr("Ask torch too"))
        self.torch_button.setToolTip(self.tr(
            "Also query torch for CUDA/ROCm/MPS details (loads torch: takes a few seconds)"))
        self.copy_text_button = QPushButton(self.tr("Copy as text"))
        self.copy_json_button = QPushButton(self.tr("Copy as JSON"))
        for button in (self.copy_text_button, self.copy_json_button):
            button.setEnabled(False)
        bar.addWidget(heading)
        bar.addWidget(self.status, 1)
        for button in (self.refresh_button, self.torch_button, self.copy_text_button,
                       self.copy_json_button):
            bar.addWidget(button)
        outer.addLayout(bar)

        self._cards_host = QWidget()
        self._cards = QGridLayout(self._cards_host)
        self._cards.setAlignment(Qt.AlignmentFlag.AlignTop)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._cards_host)
        outer.addWidget(scroll, 1)

        self.refresh_button.clicked.connect(lambda: self.refresh(use_torch=False))
        self.torch_button.clicked.connect(lambda: self.refresh(use_torch=True))
        self.copy_text_button.clicked.connect(self.copy_text)
        self.copy_json_button.clicked.connect(self.copy_json)

    def refresh(self, use_torch: bool = False) -> None:
        if self.runner.running:
            return
        self.status.setText(self.tr("Detecting… (loading torch)") if use_torch
                            else self.tr("Detecting…"))
        self.refresh_button.setEnabled(False)
        self.torch_button.setEnabled(False)

        prepare = self.prepare_pages
        lang = self._lang

        def work(cancel: Any, progress: Any) -> _Detected:
            # Everything but the widgets is made here: the probes, and the cards' rows
            # (labels, units, hints), so the GUI thread only fills widgets.
            from torchrig.hardware import detect
            from torchrig.hardware.sections import profile_sections

            profile = detect(use_torch=use_torch)
            sections = profile_sections(profile, lang)
            if prepare:
                _import_what_the_pages_need()
            return _Detected(profile, sections)

        self._closed = False
        self.runner.start(work)

    def shutdown(self) -> bool:
        # A result still queued for the GUI thread when the page closes is dropped.
        self._closed = True
        self._generation += 1
        return self.runner.shutdown()

    def set_profile(self, profile: SystemProfile,
                    sections: list[Section] | None = None) -> None:
        """Show ``profile`` (``sections``: its rows, when detection made them already): the
        cards are built one per event-loop turn (all of them at once held the GUI thread for
        over 50 ms), and ``profile_changed`` is emitted once the last is in place."""
        from torchrig.hardware.sections import PROBES, profile_sections

        self.profile = profile
        self._generation += 1
        while self._cards.count():
            item = self._cards.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        if sections is None:
            sections = profile_sections(profile, self._lang)
        seconds = profile.detection_seconds
        errors = len(profile.probe_errors)
        text = self.tr("Detected in {0:.0f} ms").format((seconds or 0) * 1000)
        if errors:
            names = ", ".join(PROBES.get(name, Msg.verbatim(name)).get(self._lang)
                              for name in sorted(profile.probe_errors))
            text += (self.tr(" · 1 probe failed: {1}") if errors == 1 else
                     self.tr(" · {0} probes failed: {1}")).format(errors, names)
        self.status.setText(text)
        self.copy_text_button.setEnabled(True)
        self.copy_json_button.setEnabled(True)
        self._add_cards(self._generation, profile, list(enumerate(sections)))

    def _add_cards(self, generation: int, profile: SystemProfile,
                   sections: list[tuple[int, Section]]) -> None:
        if generation != self._generation:
            return  # a newer profile is being shown, or the page closed
        if not sections:
            self.profile_changed.emit(profile)
            return
        i, section = sections[0]
        self._cards.addWidget(_Card(section), i // 2, i % 2)
        QTimer.singleShot(0, self, lambda: self._add_cards(generation, profile, sections[1:]))

    def snapshot(self) -> dict[str, Any]:
        """What a rebuilt page needs to show the same thing (see MainWindow.rebuild)."""
        return {"profile": self.profile}

    def restore(self, state: dict[str, Any]) -> None:
        if state.get("profile") is not None:
            self.set_profile(state["profile"])

    def copy_text(self) -> None:
        from torchrig.hardware.sections import profile_sections, sections_text

        if self.profile is not None:
            QApplication.clipboard().setText(
                sections_text(profile_sections(self.profile, self._lang)))

    def copy_json(self) -> None:
        if self.profile is not None:
            QApplication.clipboard().setText(
                json.dumps(self.profile.to_dict(), ensure_ascii=False, indent=2))

    def _on_detected(self, detected: object) -> None:
        if isinstance(detected, _Detected) and not self._closed:
            self.set_profile(detected.profile, detected.sections)

    def _on_failed(self, message: str, details: str) -> None:
        # detect() never raises by contract; this guards against a bug, not a normal path.
        if self._closed:
            return
        self.status.setText(self.tr("Detection failed: {0}").format(message))

    def _on_finished(self) -> None:
        self.refresh_button.setEnabled(True)
        self.torch_button.setEnabled(True)
