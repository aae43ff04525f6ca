"""The Wizard at 1280 x 720, the smallest window the project is checked at: every step's fields
lie whole inside their pane (long labels and choices used to push them under the splitter, cut
off, with the pane's horizontal scroll bar below the fold)."""

from __future__ import annotations

import pytest
from gui_gestures import go_to, window_at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_step_field_is_whole_in_its_pane(qtbot, request, lang):
    window = window_at(qtbot, request, lang)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    for i in range(page.tabs.count()):
        page.tabs.setCurrentIndex(i)
        area = page.tabs.widget(i)
        qtbot.wait(50)  # laid out
        viewport = area.viewport()
        for key, widget in page.widgets.items():
            if not area.isAncestorOf(widget):
                continue
            right = widget.mapTo(viewport, widget.rect().topRight()).x()
            assert right <= viewport.width(), (lang, key, right, viewport.width())
