"""The window's half of scripts/hostile_inputs.py: one group of hostile inputs tried through
the widgets of a real main window, offscreen.

    python scripts/hostile_gui_inputs.py GROUP RECORD.json INPUT_FOLDER

It is started by hostile_inputs.py in a process of its own (settings and data folders set to a
temporary place, QT_QPA_PLATFORM=offscreen), so a window that hangs or crashes costs that group
only. Buttons are clicked, keys typed and cells edited with QTest; what a test cannot click - the
native file dialogs - is answered by replacing QFileDialog's functions, as tests/gui/conftest.py
does; message boxes are recorded (their text is the outcome) and answered No / OK. An exception
that reaches Qt's event loop (the crash dialog of the real app) is recorded as such.
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hostile_inputs import Outcome, hostile_configs

from torchrig.gui.app import create_app
from torchrig.gui.qt import QAbstractItemView, QFileDialog, QLineEdit, QMessageBox, Qt

WAIT_S = 60.0
"""How long to wait for the window to reach a state before calling it stuck."""
RESCUE_S = 20.0
"""A FIFO read that blocks this long is released (its write end opened and closed) so the
script can go on; the input is then NOT handled."""
PART = "nvidia-rtx-4090"

app = create_app([sys.argv[0]])
from PySide6.QtTest import QTest  # noqa: E402 - after the application exists

LEFT = Qt.MouseButton.LeftButton
boxes: list[tuple[str, str, str]] = []
crashes: list[str] = []
answers: list[str] = []  # for the next file dialogs
PLACE = str(Path(sys.argv[3]).parent) + os.sep if len(sys.argv) > 3 else "\0"
"""The temporary folder, left out of the messages shown (its name changes every run)."""


def replace(owner: Any, name: str, function: Callable[..., Any]) -> None:
    """Answer a dialog function of Qt's from here (mypy: methods cannot be assigned)."""
    setattr(owner, name, function)


def _record_box(kind: str, answer: Any) -> Callable[..., Any]:
    def show(parent: Any, title: str, text: str, *args: Any, **kwargs: Any) -> Any:
        boxes.append((kind, title, text))
        return answer
    return show


replace(QMessageBox, "warning", _record_box("warning", QMessageBox.StandardButton.Ok))
replace(QMessageBox, "information", _record_box("information", QMessageBox.StandardButton.Ok))
replace(QMessageBox, "critical", _record_box("critical", QMessageBox.StandardButton.Ok))
replace(QMessageBox, "question", _record_box("question", QMessageBox.StandardButton.No))


def _file_dialog(*args: Any, **kwargs: Any) -> tuple[str, str]:
    return (answers.pop(0) if answers else "", "")


replace(QFileDialog, "getOpenFileName", _file_dialog)
replace(QFileDialog, "getSaveFileName", _file_dialog)


def _crash(kind: type[BaseException], exc: BaseException, tb: Any) -> None:
    crashes.append("".join(traceback.format_exception(kind, exc, tb)).strip().splitlines()[-1])


sys.excepthook = _crash


def settle(condition: Callable[[], bool] = lambda: False, seconds: float = 0.3) -> bool:
    """Run the event loop until ``condition()`` holds or ``seconds`` pass."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()  # type: ignore[attr-defined]
        if condition():
            return True
        time.sleep(0.01)
    app.processEvents()  # type: ignore[attr-defined]
    return condition()


def new_window(**kwargs: Any) -> Any:
    from torchrig.gui.main_window import MainWindow

    window = MainWindow(**kwargs)
    window.show()
    settle(seconds=0.5)
    return window


def close(window: Any) -> None:
    from torchrig.gui.workers import TaskRunner

    replace(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.close()
    settle(lambda: TaskRunner.running_threads() == 0, WAIT_S)


def said(since: int) -> tuple[str, list[str]]:
    """The message boxes shown since index ``since``: ("dialog: title", [its lines])."""
    shown = boxes[since:]
    if not shown:
        return "no message", []
    kinds = "; ".join(f"{kind} \u201c{title}\u201d" for kind, title, _ in shown)
    lines = [line.replace(PLACE, "") for _, _, text in shown for line in text.splitlines()
             if line.strip()]
    return kinds, lines[:4]


def message_problems(since: int, expect: str) -> list[str]:
    problems = []
    if crashes:
        problems.append("an exception reached the event loop (crash dialog): " + crashes[-1])
    shown = boxes[since:]
    if not shown:
        problems.append("no message was shown")
    elif not any(expect in text for _, _, text in shown):
        problems.append(f"the message does not say {expect!r}")
    if any(kind == "critical" for kind, _, _ in shown):
        problems.append("a critical error box")
    return problems


def type_into(widget: Any, text: str, enter: bool = True) -> None:
    QTest.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClick(widget, Qt.Key.Key_Delete)
    QTest.keyClicks(widget, text)
    if enter:
        QTest.keyClick(widget, Qt.Key.Key_Return)


# --- the Wizard's Import config.json… -------------------------------------------------------


def release_if_blocked(fifo: Path, done: threading.Event, rescued: list[bool]) -> None:
    if done.wait(RESCUE_S):
        return
    rescued.append(True)
    while not done.is_set():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            if exc.errno != errno.ENXIO:
                return
        done.wait(0.05)


def shown_name(path: Path) -> str:
    return str(path) if path.parent == Path("/dev") else path.name


def wizard(folder: Path) -> list[Outcome]:
    window = new_window()
    page = window.wizard_page
    window.show_page("wizard")
    out = []
    for which, (path, what, expect) in hostile_configs(folder).items():
        before = page.workload
        since, crashed = len(boxes), len(crashes)
        done, rescued = threading.Event(), []  # type: ignore[var-annotated]
        rescue = threading.Thread(target=release_if_blocked, args=(path, done, rescued),
                                  daemon=True)
        rescue.start()
        started = time.monotonic()
        answers.append(str(path))
        QTest.mouseClick(page.import_button, LEFT)
        settle(lambda s=since: len(boxes) > s)  # type: ignore[misc]
        done.set()
        rescue.join()
        problems = message_problems(since, expect)
        del crashes[crashed:]
        if rescued:
            problems.insert(0, f"the window froze reading it (released after {RESCUE_S:g} s)")
        kept = page.workload == before
        if not kept:
            problems.append("the Wizard's model was replaced")
        result, lines = said(since)
        out.append(Outcome(
            f"wizard-{which}", f"the Wizard's \u201cImport config.json\u201d on {what}",
            f"click Import config.json…, choose {shown_name(path)} in the (faked) file dialog",
            result=result, output=lines,
            saved="nothing (the Wizard's model unchanged)" if kept else "the model was replaced",
            problems=problems, seconds=time.monotonic() - started))
    close(window)
    return out


# --- the Build page's Unit price cell ------------------------------------------------------


def type_price(page: Any, text: str) -> None:
    """Double-click the first line's Unit price cell, type ``text``, press Enter."""
    from torchrig.gui.pages.build_page import PRICE_COL

    table = page.lines
    table.scrollTo(table.model().index(0, PRICE_COL))
    rect = table.visualRect(table.model().index(0, PRICE_COL))
    QTest.mouseClick(table.viewport(), LEFT, Qt.KeyboardModifier.NoModifier, rect.center())
    QTest.mouseDClick(table.viewport(), LEFT, Qt.KeyboardModifier.NoModifier, rect.center())
    settle(lambda: any(e.isVisible() for e in table.viewport().findChildren(QLineEdit)), 5)
    editors = [e for e in table.viewport().findChildren(QLineEdit) if e.isVisible()]
    if len(editors) != 1:
        raise RuntimeError("the Unit price cell did not open an editor")
    editors[0].selectAll()
    QTest.keyClicks(editors[0], text)
    QTest.keyClick(editors[0], Qt.Key.Key_Return)
    settle(lambda: table.state() != QAbstractItemView.State.EditingState, 5)
    settle()


def price_cell(folder: Path) -> list[Outcome]:
    from torchrig.gui.pages.build_page import PRICE_COL

    window = new_window()
    window.show_page("build")
    page = window.build_page
    page.add_part(PART)  # set-up: one catalog line (the picker's Add does the same)
    settle()
    out = []
    for name, typed in (("cell-1.299,00", "1.299,00"), ("cell-minus-zero", "-0")):
        since, started = len(boxes), time.monotonic()
        target = folder / f"{name}.json"
        type_price(page, typed)
        cell = page.lines.item(0, PRICE_COL).text()
        answers.append(str(target))
        QTest.mouseClick(page.buttons["save"] if page.path is None else page.buttons["save_as"],
                         LEFT)
        settle()
        saved_line = {}
        if target.exists():
            saved_line = json.loads(target.read_text(encoding="utf-8"))["line_items"][0]
        price = saved_line.get("unit_price")
        saved = (f"{target.name}: line 1 unit_price {price!r}" if price is not None
                 else f"{target.name}: line 1 without unit_price (the catalog price)"
                 if target.exists() else "nothing")
        result, lines = said(since)
        problems = []
        if crashes:
            problems.append("an exception reached the event loop: " + crashes[-1])
        if not target.exists():
            problems.append("Save wrote nothing")
        if typed == "1.299,00":
            problems += message_problems(since, "got '1.299,00'")
            if price is not None:
                problems.append(f"saved as {price!r}")
        else:
            if price != "0":
                problems.append(f"saved as {price!r}, not '0'")
            if "-0" in cell:
                problems.append(f"the cell shows {cell!r}")
            if boxes[since:]:
                problems.append("a message for a valid zero")
            result = result if boxes[since:] else f"taken; the cell shows {cell!r}"
        del crashes[:]
        out.append(Outcome(
            name, f"typing {typed} into a Build page Unit price cell, then Save",
            f"double-click the Unit price cell, type {typed}, Enter; click Save "
            "(file dialog faked)", result=result, output=lines, saved=saved,
            problems=problems, seconds=time.monotonic() - started))
    close(window)
    return out


def price_list(folder: Path) -> list[Outcome]:
    window = new_window()
    window.show_page("build")
    page = window.build_page
    page.add_part(PART)
    settle()
    cases = [
        ("csv-1.299,00", "the price 1.299,00 in a price-list CSV",
         'part_id,price,currency,date\nnvidia-rtx-4090,"1.299,00",CNY,2026-11-01\n',
         "got '1.299,00'"),
        ("csv-repeated-price", "a price-list CSV with the price column twice",
         "part_id,price,currency,date,price\nnvidia-rtx-4090,15999,CNY,2026-11-01,1\n",
         "column 'price' appears more than once"),
    ]
    out = []
    for name, what, text, expect in cases:
        csv = folder / f"{name}.csv"
        csv.write_text(text, encoding="utf-8")
        before, since, started = page.build, len(boxes), time.monotonic()
        answers.append(str(csv))
        QTest.mouseClick(page.buttons["import"], LEFT)
        settle(lambda s=since: len(boxes) > s)  # type: ignore[misc]
        problems = message_problems(since, expect)
        kept = page.build == before
        if not kept:
            problems.append("prices were applied to the build")
        result, lines = said(since)
        out.append(Outcome(name, what, f"click Import prices…, choose {csv.name} (faked dialog)",
                           result=result, output=lines,
                           saved="nothing (the build unchanged)" if kept else "build changed",
                           problems=problems, seconds=time.monotonic() - started))
        del crashes[:]
    close(window)
    return out


# --- a refused header edit, then Save ------------------------------------------------------


def header(folder: Path) -> list[Outcome]:
    window = new_window()
    window.show_page("build")
    page = window.build_page
    page.add_part(PART)
    type_into(page.rate_spin, "7.1")
    type_into(page.rate_date, "2025-06-01")
    target = folder / "quote.json"
    answers.append(str(target))
    QTest.mouseClick(page.buttons["save"], LEFT)
    settle()
    first = target.read_bytes() if target.exists() else b""
    started, since = time.monotonic(), len(boxes)
    type_into(page.rate_date, "2025/13/01")
    refused = page.header_error.text()
    QTest.mouseClick(page.buttons["save"], LEFT)
    settle(lambda: len(boxes) > since)
    problems = message_problems(since, "exchange_rate.date must be a date")
    if not first:
        problems.append("the first Save (the set-up) wrote nothing")
    after = target.read_bytes() if target.exists() else b""
    if after != first:
        problems.append("the file was rewritten")
    if page.rate_date.text() != "2025/13/01":
        problems.append(f"the typed text vanished (the field shows {page.rate_date.text()!r})")
    result, lines = said(since)
    # The build itself is as saved (the edit was refused), yet the typed text is the user's:
    # closing the window must ask first. Answered Cancel, then closed discarding.
    asked = len(boxes)
    replace(QMessageBox, "question", _record_box("question", QMessageBox.StandardButton.Cancel))
    window.close()
    settle()
    if not any(kind == "question" and "unsaved changes" in text
               for kind, _, text in boxes[asked:]):
        problems.append("closing the window did not ask about the unsaved text")
    rate = json.loads(first or b"{}").get("exchange_rate", {})
    close(window)
    return [Outcome(
        "header-refused-save", "a refused header edit, then Save",
        "save a build with rate 7.1 on 2025-06-01; type 2025/13/01 in the rate date, Enter "
        f"(refused, marked: {refused.splitlines()[0] if refused else 'no mark'}); click Save",
        result=result, output=lines,
        saved=(f"nothing: {target.name} still holds the saved rate {rate.get('date')}; the "
               f"field keeps {page.rate_date.text()!r}; closing asks \u201cSave changes?\u201d"),
        problems=problems, seconds=time.monotonic() - started)]


# --- several damaged recovery copies -------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def recovery(folder: Path) -> list[Outcome]:
    from torchrig.builds.recovery import new_recovery_path

    damaged = [b"\x00garbage", b"{not json",
               b'{"format": "torchrig.recovery", "version": 99}']
    left = []
    for content in damaged:
        path = new_recovery_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        dead = path.with_name(re.sub(r"build-\d+-", f"build-{_dead_pid()}-", path.name))
        dead.write_bytes(content)
        left.append(dead)
    started, since = time.monotonic(), len(boxes)
    # How the app starts (gui/app.py): pages, detection and recovery after the first paint.
    window = new_window(pages_later=True)
    window.start_after_first_paint()
    window.update()
    if not settle(lambda: len(boxes) > since, 15):
        window.start()  # an offscreen window that never painted: start as the paint would
        settle(lambda: len(boxes) > since, WAIT_S)
    problems = message_problems(since, f"{len(left)} copies of unsaved builds could not be read")
    if len([b for b in boxes[since:] if b[0] == "warning"]) != 1:
        problems.append("not one message for all copies")
    text = "\n".join(t for _, _, t in boxes[since:])
    kept = []
    for path in left:
        moved = path.parent / "unreadable" / path.name
        if path.exists() or not moved.exists():
            problems.append(f"{path.name} was not kept in unreadable/")
        else:
            kept.append(moved)
        if str(moved) not in text:
            problems.append(f"{path.name} is not named in the message")
    result, lines = said(since)
    # The first line, then each copy's reason (its paths are in the message, not repeated).
    lines = lines[:1] + [re.sub(r"^\u2022 \S+: ", "", line) for _, _, t in boxes[since:]
                         for line in t.splitlines() if line.startswith("\u2022 ")]
    close(window)
    return [Outcome(
        "recovery-damaged-copies", "three damaged crash-recovery copies at start-up "
        "(NUL garbage, broken JSON, version 99)",
        "leave three damaged copies from dead processes in the recovery folder; start the window",
        result=result, output=lines,
        saved=f"{len(kept)} of {len(left)} copies moved to recovery/unreadable/ (none deleted)",
        problems=problems, seconds=time.monotonic() - started)]


GROUPS: dict[str, Callable[[Path], list[Outcome]]] = {
    "wizard": wizard, "price-cell": price_cell, "price-list": price_list, "header": header,
    "recovery": recovery,
}


def main() -> int:
    group, record, folder = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    folder.mkdir(parents=True, exist_ok=True)
    outcomes = GROUPS[group](folder)
    record.write_text(json.dumps([o.to_dict() for o in outcomes], ensure_ascii=False),
                      encoding="utf-8")
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # skip Qt's teardown: the record is written, nothing else is owed
