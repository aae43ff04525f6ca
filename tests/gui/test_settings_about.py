"""The Help menu: the About dialog's versions (never importing torch for them) and the
documentation link."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types
from importlib import metadata

from gui_gestures import answer_modal, click, detect, menu_action

from torchrig import __version__
from torchrig.gui.qt import (
    PYSIDE6_VERSION,
    QT_VERSION,
    QApplication,
    QDesktopServices,
    QDialogButtonBox,
    QMessageBox,
)
from torchrig.hardware.model import AcceleratorStack, SystemProfile
from torchrig.i18n import Msg


def _about_rows(window, qtbot, copy: bool = False) -> dict[str, str]:
    """Help → About TorchRig: the dialog's rows (and Copy clicked when ``copy``), then Close."""
    rows: dict[str, str] = {}

    def read_and_close(dialog):
        rows.update(dict(dialog.rows))
        if copy:
            click(qtbot, dialog.copy_button)
        box = dialog.findChild(QDialogButtonBox)
        click(qtbot, box.button(QDialogButtonBox.StandardButton.Close))

    seen = answer_modal(qtbot, read_and_close)
    menu_action(window, "Help", "About TorchRig").trigger()
    assert seen == ["AboutDialog"]
    return rows


def test_about_lists_the_versions_a_bug_report_needs(window, qtbot, monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    detect(qtbot, window, monkeypatch, SystemProfile(accelerator=AcceleratorStack(
        nvml_available=True, driver_version="550.54.15", cuda_driver_version="12.4")))
    rows = _about_rows(window, qtbot, copy=True)
    assert rows["TorchRig"] == __version__
    assert rows["torch"] == metadata.version("torch")  # from the package metadata
    assert rows["CUDA (torch build)"].startswith("torch not loaded")
    assert rows["NVIDIA driver"] == "550.54.15"
    assert rows["CUDA (driver supports)"] == "12.4"
    assert rows["Qt"] == QT_VERSION
    assert rows["PySide6"] == PYSIDE6_VERSION == metadata.version("PySide6_Essentials")
    copied = QApplication.clipboard().text()
    assert f"torch: {rows['torch']}" in copied and "NVIDIA driver: 550.54.15" in copied


def test_about_uses_a_loaded_torch_and_says_why_a_driver_is_unknown(window, qtbot,
                                                                    monkeypatch):
    assert _about_rows(window, qtbot)["NVIDIA driver"] == "not detected yet"
    fake = types.SimpleNamespace(version=types.SimpleNamespace(cuda="12.8"))
    monkeypatch.setitem(sys.modules, "torch", fake)
    detect(qtbot, window, monkeypatch, SystemProfile(accelerator=AcceleratorStack(
        unknown={"nvml": Msg("NVIDIA driver library libnvidia-ml not found",
                             "找不到 NVIDIA 驱动库 libnvidia-ml")})))
    rows = _about_rows(window, qtbot)
    assert rows["CUDA (torch build)"] == "12.8"
    assert rows["NVIDIA driver"] == "unknown (NVIDIA driver library libnvidia-ml not found)"
    fake.version.cuda = None  # a CPU build
    assert _about_rows(window, qtbot)["CUDA (torch build)"] == "none (CPU or ROCm build)"


def test_about_does_not_import_torch():
    code = textwrap.dedent(
        """
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from torchrig.gui.app import create_app
        from torchrig.gui.main_window import MainWindow
        from torchrig.gui.about_dialog import AboutDialog
        from torchrig.gui.qt import Qt
        from PySide6.QtTest import QTest
        app = create_app(sys.argv)
        window = MainWindow()
        QTest.mouseClick(window.machine_page.refresh_button, Qt.MouseButton.LeftButton)
        import time
        deadline = time.monotonic() + 30
        while window.machine_page.profile is None and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        assert window.machine_page.profile is not None
        dialog = AboutDialog(window.machine_page.profile, window.settings.path, window)
        rows = dict(dialog.rows)
        window.close()
        print("torch" in sys.modules, rows["torch"] != "not installed",
              rows["CUDA (torch build)"].startswith("torch not loaded"))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.split() == ["False", "True", "True"], out.stdout + out.stderr


def test_help_menu_opens_the_about_dialog_and_the_readme(window, monkeypatch):
    from torchrig.gui.about_dialog import AboutDialog

    shown = []
    monkeypatch.setattr(AboutDialog, "exec", lambda self: shown.append(self.rows) or 0)
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    actions = {a.text(): a for a in menus["&Help"].actions()}
    actions["&About TorchRig"].trigger()
    assert shown and dict(shown[0])["TorchRig"] == __version__
    actions["&Documentation"].trigger()
    assert opened and opened[0].toLocalFile().endswith("README.md")


def test_documentation_without_a_readme_says_where_it_is(window, monkeypatch):
    from torchrig.gui import main_window

    told = []
    monkeypatch.setattr(main_window, "readme_path", lambda: None)
    monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: told.append(text))
    menu_action(window, "Help", "Documentation").trigger()
    assert told and "README.md in the TorchRig source" in told[0]
