"""What a person does to the window, for the GUI tests: click, type, press a key, pick a
menu entry or a page in the sidebar, answer a dialog. Tests drive the window with these and
read its state afterwards; they do not call the page method behind a button (the Benchmark
page's Run button was dead for a release because its tests called ``start()``: issue #12).

The parts a test cannot click - the native file dialogs and what the machine's hardware
detection finds - are answered by patching the one function the window calls for them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

from torchrig.gui.qt import (
    QApplication,
    QDialog,
    QFileDialog,
    QLineEdit,
    QPushButton,
    Qt,
    QtGui,
    QTimer,
)

LEFT = Qt.MouseButton.LeftButton
CTRL = Qt.KeyboardModifier.ControlModifier


def click(qtbot: Any, widget: Any) -> None:
    qtbot.mouseClick(widget, LEFT)


def tick(qtbot: Any, box: Any) -> None:
    """Toggle a check box as a keyboard user does (a click at its centre can miss a short
    label in a wide cell)."""
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Space)


def type_text(qtbot: Any, edit: Any, text: str, enter: bool = False) -> None:
    """Replace what a line edit or spin box holds with ``text`` as a user does: Ctrl+A, Delete,
    the keys, and Return when ``enter`` (the field's editingFinished)."""
    qtbot.keyClick(edit, Qt.Key.Key_A, CTRL)
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    type_keys(qtbot, edit, text)
    if enter:
        qtbot.keyClick(edit, Qt.Key.Key_Return)


def paste_text(qtbot: Any, edit: Any, text: str, enter: bool = False) -> None:
    """Replace what a line edit holds with ``text`` by pasting it (Ctrl+A, Ctrl+V): how a user
    enters text no keyboard types (control characters, any script), exactly as it was."""
    QApplication.clipboard().setText(text)
    qtbot.keyClick(edit, Qt.Key.Key_A, CTRL)
    qtbot.keyClick(edit, Qt.Key.Key_V, CTRL)
    assert edit.text() == text
    if enter:
        qtbot.keyClick(edit, Qt.Key.Key_Return)


def type_keys(qtbot: Any, widget: Any, text: str) -> None:
    """Type ``text`` at the cursor: ASCII as key presses, anything else (Chinese, symbols) as
    an input method commits it - QTest can only press keys of the ASCII range."""
    for run in re.findall(r"[\x20-\x7e]+|[^\x20-\x7e]+", text):
        if run.isascii():
            qtbot.keyClicks(widget, run)
        else:
            event = QtGui.QInputMethodEvent()
            event.setCommitString(run)
            QApplication.sendEvent(widget, event)


def menu_action(window: Any, *path: str) -> Any:
    """The action at a menu path, matched on the start of its visible text without '&' (the
    undo actions add what they undo: "Undo build edit Edit price")."""
    actions = window.menuBar().actions()
    action = None
    for name in path:
        found = [a for a in actions if a.text().replace("&", "").startswith(name)]
        assert found, f"no menu entry {name!r} in {[a.text() for a in actions]}"
        action = found[0]
        menu = action.menu()
        if menu is not None:
            menu.aboutToShow.emit()  # what opening the menu sends (the recent files fill in)
        actions = menu.actions() if menu is not None else []
    return action


def go_to(qtbot: Any, window: Any, key: str) -> None:
    """Click the page's entry in the sidebar (the window must be shown)."""
    row = list(window.pages).index(key)
    rect = window.nav.visualItemRect(window.nav.item(row))
    qtbot.mouseClick(window.nav.viewport(), LEFT, pos=rect.center())
    assert window.current_page() == key


def show_tab_of(qtbot: Any, tabs: Any, widget: Any) -> None:
    """Click the tab of ``tabs`` that holds ``widget``."""
    index = next(i for i in range(tabs.count()) if tabs.widget(i).isAncestorOf(widget))
    bar = tabs.tabBar()
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(index).center())
    assert tabs.currentIndex() == index


def button(parent: Any, name: str) -> QPushButton:
    """The push button with object name ``name`` inside ``parent``."""
    found = parent.findChild(QPushButton, name)
    assert found is not None, f"no button named {name!r}"
    return found


def choose(combo: Any, data: Any) -> None:
    """Pick the entry whose data is ``data``: what a user's choice in the drop-down emits
    (Qt offers no simpler gesture for a combo box offscreen)."""
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not in the list"
    combo.setCurrentIndex(index)


def pick_with_keys(qtbot: Any, combo: Any, data: Any) -> None:
    """Choose the entry whose data is ``data`` with the arrow keys on the closed drop-down,
    for the boxes that act on ``activated`` (a user's choice) rather than on a changed index.
    Each key press is a choice, as for a user: the entries passed on the way are chosen too.
    (Opening the list offscreen makes Qt warn that it cannot grab the keyboard.)"""
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not in the list"
    steps = index - combo.currentIndex()
    key = Qt.Key.Key_Down if steps > 0 else Qt.Key.Key_Up
    combo.setFocus()
    for _ in range(abs(steps)):  # the box may reset itself after the last one (a menu-like box)
        qtbot.keyClick(combo, key)


def answer_modal(qtbot: Any, act: Callable[[QDialog], None]) -> list[str]:
    """Run ``act`` on the next modal dialog once it is up (its exec() is blocking the test);
    the dialogs' class names are returned as they come."""
    seen: list[str] = []

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, QDialog) and dialog.isVisible():
            seen.append(type(dialog).__name__)
            try:
                act(dialog)
            finally:
                if dialog.isVisible():  # ``act`` failed half-way: never leave exec() hanging
                    dialog.reject()
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    return seen


def click_cell(qtbot: Any, table: Any, row: int, col: int, double: bool = False) -> None:
    rect = table.visualRect(table.model().index(row, col))
    point = rect.center()
    if double:
        qtbot.mouseDClick(table.viewport(), LEFT, pos=point)
    else:
        qtbot.mouseClick(table.viewport(), LEFT, pos=point)


def type_into_cell(qtbot: Any, table: Any, row: int, col: int, text: str,
                   paste: bool = False) -> None:
    """Select a cell, press F2 (the edit key), replace its text (typed, or pasted when
    ``paste``) and press Enter, as a user edits a table (its page must be the one on show)."""
    assert table.isVisible(), "the table is not on screen: show its page first (go_to)"
    table.scrollToItem(table.item(row, col))
    click_cell(qtbot, table, row, col)
    qtbot.keyClick(table, Qt.Key.Key_F2)
    # The editor is a line edit on the table's viewport (focusWidget() is None offscreen
    # while the window is not the active one).
    editors = [e for e in table.viewport().findChildren(QLineEdit) if e.isVisible()]
    assert len(editors) == 1, "no cell editor opened"
    editor = editors[0]
    if paste:
        paste_text(qtbot, editor, text, enter=True)
    else:
        editor.selectAll()
        type_keys(qtbot, editor, text)
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    # The delegate commits on Return through a queued call.
    qtbot.waitUntil(lambda: table.state() != table.State.EditingState, timeout=5000)


def open_build(qtbot: Any, window: Any, answers: list[str], path: Path) -> None:
    """The Build page's Open… button, the file dialog answered with ``path``."""
    answers.append(str(path))
    click(qtbot, window.build_page.buttons["open"])


def open_from_menu(window: Any, path: Path, page: str = "build") -> None:
    """File → Open… in the menu bar, the file dialog answered with ``path``; the window opens
    it on the page that shows its kind, ``page``."""
    with mock.patch.object(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "")):
        menu_action(window, "File", "Open…").trigger()
    assert window.current_page() == page, f"{path} was not opened on the {page} page"


def in_settings_dialog(qtbot: Any, window: Any, act: Callable[[QDialog], None]) -> None:
    """Settings → Settings… in the menu bar, ``act`` done on the dialog while it is up (the
    dialog must be closed by ``act``: OK or Cancel)."""
    seen = answer_modal(qtbot, act)
    menu_action(window, "Settings", "Settings…").trigger()
    assert seen == ["SettingsDialog"]


def add_part(qtbot: Any, page: Any, part_id: str, category: str) -> None:
    """Add a catalog part from the Build page's picker: category, search, select, Add."""
    picker = page.picker
    choose(picker.category_box, category)
    type_text(qtbot, picker.search_edit, part_id)

    def listed() -> list[str]:
        return [picker.parts_table.item(r, 0).data(Qt.ItemDataRole.UserRole)
                for r in range(picker.parts_table.rowCount())]

    ids = listed()
    if part_id not in ids and picker.compatible_box.isChecked():
        tick(qtbot, picker.compatible_box)  # not "compatible" with the build: show all
        ids = listed()
    assert part_id in ids, (part_id, ids)
    picker.parts_table.selectRow(ids.index(part_id))
    click(qtbot, picker.add_button)


def detect(qtbot: Any, window: Any, monkeypatch: Any = None, profile: Any = None) -> Any:
    """Click This machine's Refresh button and wait until every page has the profile it
    detected: this machine's, or ``profile`` when given (detection patched to find it, as on
    a machine with those parts). Returns the profile."""
    import torchrig.hardware as hardware

    if profile is not None:
        monkeypatch.setattr(hardware, "detect", lambda use_torch=False: profile)
    page = window.machine_page
    # A hang guard, not a time budget: the worker also imports what the pages need, which took
    # over 15 s with two CPU hogs and eight other jobs on 2 cores. waitSignal returns at once.
    with qtbot.waitSignal(page.profile_changed, timeout=180_000):
        click(qtbot, page.refresh_button)
    # The window hands the profile on with zero timers, one page per event-loop turn; a zero
    # timer started after them fires after them.
    passed_on: list[bool] = []
    QTimer.singleShot(0, lambda: passed_on.append(True))
    qtbot.waitUntil(lambda: bool(passed_on), timeout=60_000)
    return page.profile


def window_at(qtbot: Any, request: Any, lang: str, width: int = 1280, height: int = 720
              ) -> Any:
    """The main window in ``lang`` (zh through the ``zh`` fixture), shown at ``width`` x
    ``height``: the smallest size the project is checked at."""
    from torchrig.gui.main_window import MainWindow

    if lang == "zh":
        request.getfixturevalue("zh")
    window = MainWindow(lang=lang)
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    return window
