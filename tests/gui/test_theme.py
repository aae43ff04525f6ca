"""Light/dark themes: the palette switches, and every coloured text stays readable on it."""

from __future__ import annotations

import pytest
from gui_gestures import add_part, go_to, menu_action

from torchrig.findings import Finding, Severity
from torchrig.gui.qt import QApplication, QColor, QEvent, QPalette, QPoint
from torchrig.gui.style import (
    DARK,
    LIGHT,
    TEXT_ROLES,
    colour,
    contrast_ratio,
    is_dark,
    severity_colour,
    status_colour,
)
from torchrig.gui.theme import apply_theme, palette_for
from torchrig.i18n import Msg


@pytest.mark.parametrize(("theme", "colours"), [("light", LIGHT), ("dark", DARK)])
def test_coloured_text_meets_wcag_aa_on_its_theme(qapp, theme, colours):
    palette = palette_for(theme)
    for background in (QPalette.ColorRole.Base, QPalette.ColorRole.Window,
                       QPalette.ColorRole.AlternateBase):
        bg = palette.color(background)
        for role in TEXT_ROLES:
            ratio = contrast_ratio(QColor(colours[role]), bg)
            assert ratio >= 4.5, f"{theme} {role} on {background.name}: {ratio:.2f}"
    # and ordinary text on its own background
    assert contrast_ratio(palette.color(QPalette.ColorRole.Text),
                          palette.color(QPalette.ColorRole.Base)) >= 7


def test_contrast_ratio_matches_wcag_examples():
    assert contrast_ratio(QColor("#000000"), QColor("#ffffff")) == pytest.approx(21.0)
    assert contrast_ratio(QColor("#777777"), QColor("#ffffff")) == pytest.approx(4.48, abs=0.01)


def test_dark_and_back_to_the_system(qapp):
    light_window = QApplication.palette().window().color().name()
    assert not is_dark()
    how = apply_theme("dark")
    assert how in ("platform", "palette")
    assert is_dark()
    assert colour("error") == DARK["error"]
    assert status_colour("short") == DARK["error"] and severity_colour(Severity.ADVICE) == \
        DARK["info"]
    apply_theme("light")
    assert not is_dark() and colour("ok") == LIGHT["ok"]
    assert apply_theme("system") == "system"
    assert QApplication.palette().window().color().name() == light_window


def test_a_theme_change_redraws_the_pages_in_its_colours(window, qtbot):
    # No catalog price at all (docs/hardware-sources.md note 5.8): a red note; quoted in CNY, the
    # export-control finding. (The L40S used before has an estimate, which the shipped
    # reference rate now converts.)
    add_part(qtbot, window.build_page, "nvidia-h100-pcie", "gpu")
    assert LIGHT["error"] in window.build_page.totals.text()
    menu_action(window, "Settings", "Theme", "Dark").trigger()
    assert window.rebuilds == 1 and window.settings.theme == "dark"
    html = window.build_page.findings_view.toHtml()
    assert DARK["caution"] in html or DARK["warn"] in html or DARK["error"] in html
    assert DARK["error"] in window.build_page.totals.text()
    assert window.build_page.build.line_items[0].part_id == "nvidia-h100-pcie"


def _finding(code: str, source: str) -> Finding:
    return Finding(code, Severity.WARNING, Msg(f"title {code}", "标题"), Msg("d", "d"),
                   Msg("f", "f"), source, numbers={"need_bytes": 2.5e10})


# --- internals: the findings view on its own, given findings directly (the core makes them) ---


def test_internals_each_finding_has_a_tooltip_with_its_rule(qtbot, monkeypatch):
    from torchrig.gui.findings_view import FindingsView
    from torchrig.gui.qt import QToolTip

    view = FindingsView("en")
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    first, second = _finding("a.first", "seed 4.2"), _finding("b.second", "Dettmers")
    view.set_findings([first, second])
    layout = view.document().documentLayout()
    for index, finding in enumerate((first, second)):
        block = view.document().findBlockByNumber(index)
        y = int(layout.blockBoundingRect(block).center().y()) - view.verticalScrollBar().value()
        assert view.finding_at(10, y) is finding
    tip = view.rule_tooltip(second)
    assert "b.second" in tip and "Dettmers" in tip and "need_bytes = 2.5e+10" in tip
    # A real tooltip event on the viewport shows the rule of the finding under the mouse.
    from torchrig.gui.qt import QtGui

    shown = []  # offscreen cannot raise a tooltip window: record what would be shown
    monkeypatch.setattr(QToolTip, "showText", lambda pos, text, *a: shown.append(text))
    event = QtGui.QHelpEvent(QEvent.Type.ToolTip, QPoint(10, 5), view.mapToGlobal(QPoint(10, 5)))
    assert QApplication.sendEvent(view.viewport(), event)
    assert shown == [view.rule_tooltip(first)]


def test_hovering_a_finding_on_the_build_page_shows_its_rule(shown_window, qtbot, monkeypatch):
    """The Build page's findings, from a part added in its picker: the tooltip over each one
    names that finding's rule and source (a real tooltip event on the view's viewport)."""
    from torchrig.gui.qt import QtGui, QToolTip
    from torchrig.labels import citation

    go_to(qtbot, shown_window, "build")
    add_part(qtbot, shown_window.build_page, "nvidia-l40s", "gpu")  # no CPU, board, PSU...
    view = shown_window.build_page.findings_view
    assert len(view.findings) >= 2
    shown = []  # offscreen cannot raise a tooltip window: record what would be shown
    monkeypatch.setattr(QToolTip, "showText", lambda pos, text, *a: shown.append(text))
    layout = view.document().documentLayout()
    for index in (0, 1):
        block = view.document().findBlockByNumber(index)
        view.verticalScrollBar().setValue(int(layout.blockBoundingRect(block).top()))
        y = int(layout.blockBoundingRect(block).center().y()) - view.verticalScrollBar().value()
        point = QPoint(10, y)
        QApplication.sendEvent(view.viewport(), QtGui.QHelpEvent(
            QEvent.Type.ToolTip, point, view.viewport().mapToGlobal(point)))
        finding = view.findings[index]
        assert shown[-1].startswith(f"Rule: {finding.code}\n")
        assert f"Source: {citation(finding.source, 'en')}" in shown[-1]
    assert len(shown) == 2 and shown[0] != shown[1]
