"""The Build page keeps the catalog picker beside the build in a 1280x720 window, in English
and in Chinese (the Chinese page is taller, its scroll bar takes width, and at a 1,080 px
threshold the picker moved under the build, out of sight)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gui_gestures import click, go_to, window_at

from torchrig.gui.qt import Qt

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_picker_stays_beside_the_build_at_1280x720(qtbot, request, file_dialogs, lang):
    window = window_at(qtbot, request, lang)
    go_to(qtbot, window, "build")
    page = window.build_page
    opened, _saved = file_dialogs
    opened.append(str(ROOT / "builds" / "professional.json"))
    click(qtbot, page.buttons["open"])
    qtbot.waitUntil(lambda: page.build.name.startswith("Professional"), timeout=10_000)
    qtbot.wait(200)
    assert page.splitter.orientation() == Qt.Orientation.Horizontal
    assert page.picker.isVisible() and page.picker.width() > 300
    page.dirty = False
