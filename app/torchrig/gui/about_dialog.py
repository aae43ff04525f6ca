"""About TorchRig: the versions a bug report needs, without loading torch to find them.

torch's version comes from its package metadata; torch's CUDA version only from a torch that is
already loaded (by a benchmark or "Ask torch too"), else the dialog says so: importing torch
takes seconds and hundreds of MB, far too much for an About box. The driver comes from the
profile the This-machine page detected.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from pathlib import Path

from torchrig import __version__
from torchrig.gui.qt import (
    PYSIDE6_VERSION,
    QT_VERSION,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPushButton,
    Qt,
    QVBoxLayout,
    QWidget,
)
from torchrig.hardware.model import SystemProfile


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


class AboutDialog(QDialog):
    """Attributes:
    rows: (label, value) pairs shown, in order (also what Copy puts on the clipboard).
    """

    def __init__(self, profile: SystemProfile | None, settings_path: Path | None = None,
                 parent: QWidget | None = None, lang: str = "en") -> None:
        super().__init__(parent)
        self._lang = lang  # for the detection reasons, which the core gives in both languages
        self.setWindowTitle(self.tr("About TorchRig"))
        self.rows = self.version_rows(profile, settings_path)
        layout = QVBoxLayout(self)
        heading = QLabel(self.tr("<h2>TorchRig {0}</h2><p>PyTorch hardware assistant: plan, "
                                 "build, check and benchmark machines for PyTorch.</p>")
                         .format(__version__))
        heading.setWordWrap(True)
        layout.addWidget(heading)
        form = QFormLayout()
        for label, value in self.rows:
            shown = QLabel(value)
            shown.setTextFormat(Qt.TextFormat.PlainText)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            shown.setWordWrap(True)
            form.addRow(label, shown)
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = QPushButton(self.tr("Copy"))
        self.copy_button.setToolTip(self.tr("Copy these versions for a bug report"))
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def text(self) -> str:
        return "\n".join(f"{label}: {value}" for label, value in self.rows)

    def copy(self) -> None:
        QApplication.clipboard().setText(self.text())

    def version_rows(self, profile: SystemProfile | None,
                     settings_path: Path | None) -> list[tuple[str, str]]:
        from torchrig.paths import data_dir

        not_installed = self.tr("not installed")
        torch_version = _package_version("torch")
        rows = [
            (self.tr("TorchRig"), __version__),
            (self.tr("Python"), f"{platform.python_version()} ({sys.executable})"),
            (self.tr("torch"), torch_version or not_installed),
            (self.tr("CUDA (torch build)"), self._torch_cuda(profile, torch_version is not None)),
            (self.tr("NVIDIA driver"), self._driver(profile)),
            (self.tr("CUDA (driver supports)"), self._driver_cuda(profile)),
            (self.tr("Qt"), QT_VERSION),
            (self.tr("PySide6"), PYSIDE6_VERSION),
            (self.tr("Operating system"), platform.platform()),
            (self.tr("Data folder"), str(data_dir())),
        ]
        if settings_path is not None:
            rows.append((self.tr("Settings file"), str(settings_path)))
        return rows

    def _torch_cuda(self, profile: SystemProfile | None, installed: bool) -> str:
        if not installed:
            return self.tr("torch not installed")
        torch = sys.modules.get("torch")
        if torch is not None:
            cuda = getattr(getattr(torch, "version", None), "cuda", None)
            return cuda or self.tr("none (CPU or ROCm build)")
        if profile is not None and profile.accelerator.torch_loaded:
            return profile.accelerator.torch_cuda_version or self.tr("none (CPU or ROCm build)")
        return self.tr("torch not loaded (it loads for a benchmark or \"Ask torch too\")")

    def _driver(self, profile: SystemProfile | None) -> str:
        if profile is None:
            return self.tr("not detected yet")
        acc = profile.accelerator
        if acc.driver_version:
            return acc.driver_version
        # The NVML probe names why it has no driver version (no NVIDIA driver, not queried).
        reason = acc.unknown.get("driver_version") or acc.unknown.get("nvml")
        return (self.tr("unknown ({0})").format(reason.get(self._lang)) if reason
                else self.tr("unknown"))

    def _driver_cuda(self, profile: SystemProfile | None) -> str:
        if profile is None:
            return self.tr("not detected yet")
        return profile.accelerator.cuda_driver_version or self.tr("unknown")
