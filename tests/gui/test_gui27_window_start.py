"""Issue 27, the window's start: what was taken off it behaves as before.

- PySide6's import hook still learns which modules use PySide6 (its ``__feature__`` switching
  applies only there), now from the file's bytes, and no module's source is left in linecache;
- "system" at start, with no theme of ours to undo, leaves the platform's style alone;
- a "Loading…" placeholder page makes its labels when first shown, and shows what it says.
"""

from __future__ import annotations

import linecache
import sys

import pytest

import torchrig.gui.qt as qt
from torchrig.gui.pages.placeholder import PlaceholderPage
from torchrig.gui.qt import QApplication, QLabel


def test_pyside_still_tells_its_modules_apart_without_keeping_their_source(tmp_path,
                                                                           monkeypatch):
    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not hasattr(feature, "_mod_uses_pyside"):
        pytest.skip("this PySide6 has no per-module source scan")
    assert qt.install_source_scan_without_linecache()
    (tmp_path / "gui27_uses_qt.py").write_text("from PySide6 import QtCore\nX = 1\n")
    (tmp_path / "gui27_plain.py").write_text("X = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    linecache.clearcache()
    for name in ("gui27_uses_qt", "gui27_plain"):
        monkeypatch.delitem(sys.modules, name, raising=False)
        feature.pyside_feature_dict.pop(name, None)
        __import__(name)  # the import statement: what PySide's hook sees
    # PySide's own rule (shibokensupport/feature.py): 0 for a module whose source names
    # PySide6, -1 ("ignore") for any other.
    assert feature.pyside_feature_dict["gui27_uses_qt"] == 0
    assert feature.pyside_feature_dict["gui27_plain"] == -1
    assert not any(str(tmp_path) in path for path in linecache.cache)


def test_system_theme_at_start_leaves_the_style_alone(qapp, monkeypatch):
    import torchrig.gui.theme as theme

    monkeypatch.setattr(theme, "_changed", False)
    touched: list[bool] = []
    real_style = QApplication.style
    monkeypatch.setattr(QApplication, "style",
                        lambda *a: touched.append(True) or real_style())
    assert theme.apply_theme("system") == "system"
    assert not touched
    # After a theme of ours, "system" undoes it (and looks at the style to do so).
    theme.apply_theme("dark")
    touched.clear()
    assert theme.apply_theme("system") == "system"
    assert touched
    assert not theme._changed


def test_a_placeholder_makes_its_labels_when_first_shown(qtbot):
    page = PlaceholderPage("Targets", "Loading…", lazy=True)
    qtbot.addWidget(page)
    assert not page.findChildren(QLabel)
    page.show()
    qtbot.waitExposed(page)
    texts = [label.text() for label in page.findChildren(QLabel)]
    assert "<h2>Targets</h2>" in texts
    assert "Loading…" in texts
    assert "This page is not built yet." in texts
    page.hide()
    page.show()
    assert len(page.findChildren(QLabel)) == 3  # made once
    eager = PlaceholderPage("Build", "The parts catalog could not be loaded: broken.json")
    qtbot.addWidget(eager)  # says why at once, shown or not
    assert "The parts catalog could not be loaded: broken.json" in [
        label.text() for label in eager.findChildren(QLabel)]
