"""Prices typed into the Build page's Unit price cell (issue 28): the cell reads text with the
one rule every price follows (catalog/money_text.py), through the table's own editor.

``1.299,00`` used to be saved as 1.299 without a word (every comma was stripped). The rule,
written out by hand: a point is the decimal mark, a comma only separates groups of three
digits, anything else with a comma is refused with a message saying how to write it, and
negative zero is zero.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from gui_gestures import add_part, go_to

from torchrig.builds.build import load_build
from torchrig.gui.pages.build_page import PRICE_COL
from torchrig.gui.qt import QAbstractItemView, QLineEdit, QMessageBox, Qt

PART = "nvidia-rtx-4090"
HOW_TO_WRITE = ('must be an amount like "12999.00" or "12,999.00" (a point before the '
                "decimals; commas only between groups of three digits)")


@pytest.fixture
def dialogs(monkeypatch):
    shown: list[tuple[str, str]] = []
    for kind in ("warning", "information"):
        monkeypatch.setattr(QMessageBox, kind, lambda parent, title, text, *a, _k=kind, **kw:
                            shown.append((_k, text)) or QMessageBox.StandardButton.Ok)
    return shown


def _type_price(qtbot, page, text: str) -> None:
    """Double-click the first line's Unit price cell, type ``text`` into the editor the table
    opens, and press Enter, as a user does."""
    table = page.lines
    rect = table.visualRect(table.model().index(0, PRICE_COL))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    # The editor of an earlier edit may linger hidden until it is deleted: take the open one.
    editors = [e for e in table.viewport().findChildren(QLineEdit) if e.isVisible()]
    assert len(editors) == 1, "the cell did not open an editor"
    editor = editors[0]
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # The delegate commits the text and closes the editor on the next turn of the event loop.
    qtbot.waitUntil(lambda: table.state() != QAbstractItemView.State.EditingState)


@pytest.fixture
def page(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "build")
    page = window.build_page
    add_part(qtbot, page, PART, "gpu")
    assert page.build.line_items[0].unit_price is None
    return page


UNDERSTOOD = [  # in an order where each differs from the one before (an equal one is no edit)
    ("1299", "1299"),
    ("12,999", "12999"),
    ("1299.00", "1299.00"),
    ("1,000,000.50", "1000000.50"),
    ("1,299.00", "1299.00"),
    ("CNY 12,999", "12999"),  # a currency mark is dropped
]
AMBIGUOUS = ["1.299,00", "1,29", "1299,00", "1,2,3", "12,99.0"]


def test_plain_and_grouped_prices_are_saved_as_plain_digits(qtbot, page, dialogs, tmp_path):
    # One window for the whole table (a window takes a second or two to build).
    for n, (typed, stored) in enumerate(UNDERSTOOD):
        _type_price(qtbot, page, typed)
        assert dialogs == [], typed
        assert page.build.line_items[0].unit_price == Decimal(stored), typed
        target = tmp_path / f"b{n}.json"
        page.path = target
        qtbot.mouseClick(page.buttons["save"], Qt.MouseButton.LeftButton)
        assert f'"unit_price": "{stored}"' in target.read_text(encoding="utf-8"), typed
        assert load_build(target).line_items[0].unit_price == Decimal(stored), typed


def test_an_ambiguous_price_is_refused_saying_how_to_write_it(qtbot, page, dialogs, tmp_path):
    for n, typed in enumerate(AMBIGUOUS):
        _type_price(qtbot, page, typed)
        assert dialogs[n:] == [("warning", f"Unit price {HOW_TO_WRITE}, got {typed!r}")]
        assert page.build.line_items[0].unit_price is None, typed  # nothing was taken
        assert page.lines.item(0, PRICE_COL).text() != typed  # the cell shows the build again
        target = tmp_path / f"b{n}.json"
        page.path = target
        qtbot.mouseClick(page.buttons["save"], Qt.MouseButton.LeftButton)
        assert "unit_price" not in load_build(target).line_items[0].to_dict(), typed


@pytest.mark.parametrize("typed", ["-0", "-0.00"])
def test_negative_zero_is_zero_not_minus_zero(qtbot, page, dialogs, tmp_path, typed):
    _type_price(qtbot, page, typed)
    assert dialogs == []
    price = page.build.line_items[0].unit_price
    assert price == 0 and not price.is_signed()
    assert "-0" not in page.lines.item(0, PRICE_COL).text()
    assert "-0" not in page.lines.item(0, PRICE_COL + 1).text()  # the line total
    target = tmp_path / "b.json"
    page.path = target
    qtbot.mouseClick(page.buttons["save"], Qt.MouseButton.LeftButton)
    assert '"unit_price": "-' not in target.read_text(encoding="utf-8")


def test_a_negative_price_is_refused_by_the_build_file(qtbot, page, dialogs):
    _type_price(qtbot, page, "-1,299.00")
    assert len(dialogs) == 1 and "unit_price must not be negative" in dialogs[0][1]
    assert page.build.line_items[0].unit_price is None
