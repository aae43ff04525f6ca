"""The Wizard at 1280 x 720, the smallest window the project is checked at: every step's fields
lie whole inside their pane (long labels and choices used to push them under the splitter, cut
off, with the pane's horizontal scroll bar below the fold), and the steps stay in view while
the results scroll (when the whole page scrolled, a user reading the measured table had an
empty space where the steps' form had been)."""

from __future__ import annotations

import pytest
from gui_gestures import go_to, window_at

from torchrig.gui.qt import QScrollArea


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


def _outer_area(page):
    """The window's scroll area around the page (main_window._scrolling)."""
    area = page.parentWidget()
    while not isinstance(area, QScrollArea):
        area = area.parentWidget()
    return area


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_steps_stay_in_view_while_the_results_scroll(qtbot, request, lang):
    window = window_at(qtbot, request, lang)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=20_000)
    page.result_tabs.setCurrentIndex(page.result_tabs.count() - 1)  # "On this machine"
    results_bar = page.results_scroll.verticalScrollBar()
    # the results are taller than the window: they scroll, on their own
    qtbot.waitUntil(lambda: results_bar.maximum() > 0, timeout=5_000)
    assert _outer_area(page).verticalScrollBar().maximum() == 0
    # scrolled to the measured table, as a user does with the wheel or the bar
    results_bar.setValue(results_bar.maximum())
    qtbot.wait(50)
    steps = page.tabs
    top_left = steps.mapTo(window, steps.rect().topLeft())
    assert steps.isVisible() and 0 <= top_left.y() < window.height() // 3
    assert not steps.visibleRegion().isEmpty()
    panel = page.verify_panel
    measure = panel.measure_button.mapTo(page.results_scroll.viewport(),
                                         panel.measure_button.rect().topLeft())
    assert 0 <= measure.y() < page.results_scroll.viewport().height()
