"""Hostile input through the window (issue 28): each gets a message, nothing hangs or crashes,
nothing is saved wrong and nothing typed is dropped.

- the Wizard's "Import config.json…" given a FIFO, /dev/zero, 100,000 levels of nesting, a
  5,001-digit hidden_size or a key given twice;
- a Build page header value that was refused, then Save;
- several damaged crash-recovery copies at start-up;
- a price bound in the catalog picker and a Wizard money field written with an ambiguous comma.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from gui_gestures import add_part, go_to, menu_action, type_text

from torchrig.builds.build import load_build
from torchrig.builds.recovery import new_recovery_path
from torchrig.gui.main_window import MainWindow
from torchrig.gui.qt import QFileDialog, QMessageBox, Qt

ROOT = Path(__file__).resolve().parents[2]
LLAMA = ROOT / "tests" / "planning" / "hf_configs" / "llama-2-7b" / "config.json"


@pytest.fixture
def shown(monkeypatch):
    """Message boxes as (kind, title, text); questions answered No."""
    boxes: list[tuple[str, str, str]] = []

    def record(kind, answer):
        def show(parent, title, text, *args, **kwargs):
            boxes.append((kind, title, text))
            return answer
        return show

    monkeypatch.setattr(QMessageBox, "warning", record("warning", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "information",
                        record("information", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "question", record("question", QMessageBox.StandardButton.No))
    return boxes


# --- the Wizard's Import config.json… ------------------------------------------------------


@contextlib.contextmanager
def released_if_blocked(fifo: Path, after_s: float = 20.0) -> Iterator[None]:
    """If the window blocks reading ``fifo`` for ``after_s``, open and close its write end so
    the read ends and the test fails on its assertions instead of hanging. Only a rescue: no
    assertion depends on time."""
    done = threading.Event()

    def rescue() -> None:
        if done.wait(after_s):
            return
        while not done.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                    return
            done.wait(0.05)

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _hostile_configs(folder: Path) -> list[tuple[Path, str]]:
    """(file, the reason the message must give) for each hostile config."""
    deep = folder / "deep.json"
    deep.write_text('{"model_type": "llama", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    doc = json.loads(LLAMA.read_text())
    assert doc["hidden_size"] == 4096
    big = folder / "big.json"
    big.write_text(json.dumps(doc).replace('"hidden_size": 4096',
                                           '"hidden_size": ' + "7" * 5001))
    twice = folder / "twice.json"
    twice.write_text(LLAMA.read_text().replace("{", '{"hidden_size": 1024,', 1))
    cases = [
        (deep, "JSON nested too deeply"),
        (big, "not valid JSON (integer 777777777777777777777777... is outside the 64-bit "
              "range)"),
        (twice, "not valid JSON (the key 'hidden_size' appears twice in one object)"),
    ]
    if Path("/dev/zero").exists():
        cases.append((Path("/dev/zero"), "is not a regular file (a device, pipe or socket)"))
    return cases


def _import(qtbot, page, monkeypatch, path: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    qtbot.mouseClick(page.import_button, Qt.MouseButton.LeftButton)


def test_the_wizard_refuses_hostile_configs_with_a_message(window, qtbot, shown, monkeypatch,
                                                           tmp_path):
    page = window.wizard_page
    before = page.workload
    cases = _hostile_configs(tmp_path)
    for path, reason in cases:
        _import(qtbot, page, monkeypatch, path)
        assert shown[-1] == ("warning", "Cannot import the config",
                             f"{path}: cannot read the Hugging Face config: {reason}")
        assert page.workload == before  # the model was not replaced
    assert len(shown) == len(cases)  # one message each, nothing else (no crash dialog)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_the_wizard_does_not_hang_on_a_fifo(window, qtbot, shown, monkeypatch, tmp_path):
    page = window.wizard_page
    before = page.workload
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    with released_if_blocked(fifo):
        _import(qtbot, page, monkeypatch, fifo)
    assert shown == [("warning", "Cannot import the config",
                      f"{fifo}: cannot read the Hugging Face config: is not a regular file "
                      "(a device, pipe or socket)")]
    assert page.workload == before


# --- a refused header value, then Save -----------------------------------------------------


def _set_a_rate(qtbot, page) -> None:
    type_text(qtbot, page.rate_spin, "7.1", enter=True)
    type_text(qtbot, page.rate_date, "2025-06-01", enter=True)
    assert page.build.exchange_rate is not None


def _type_a_bad_rate_date(qtbot, page) -> None:
    page.rate_date.selectAll()
    qtbot.keyClicks(page.rate_date, "2025/13/01")
    qtbot.keyClick(page.rate_date, Qt.Key.Key_Return)
    assert "exchange_rate.date must be a date" in page.header_error.text()
    assert page.build.exchange_rate is not None and page.build.exchange_rate.date == "2025-06-01"


def _saved(qtbot, page, target: Path) -> bytes:
    page.path = target
    qtbot.mouseClick(page.buttons["save"], Qt.MouseButton.LeftButton)
    assert not page.dirty
    return target.read_bytes()


def test_save_with_a_refused_header_value_says_so_and_keeps_the_text(window, qtbot, shown,
                                                                     tmp_path):
    page = window.build_page
    add_part(qtbot, page, "nvidia-rtx-4090", "gpu")
    target = tmp_path / "quote.json"
    saved = _saved(qtbot, page, target)
    _set_a_rate(qtbot, page)
    _type_a_bad_rate_date(qtbot, page)
    # Another edit refreshes the page; the refused text must not be replaced by the build's.
    add_part(qtbot, page, "nvidia-rtx-4090", "gpu")
    assert page.rate_date.text() == "2025/13/01"

    qtbot.mouseClick(page.buttons["save"], Qt.MouseButton.LeftButton)
    kind, title, text = shown[-1]
    assert (kind, title) == ("warning", "Cannot save build")
    assert text.startswith("The quote details hold a value the build file cannot hold, so the "
                           "build was not saved. Correct the marked field and save again:\n")
    assert "exchange_rate.date must be a date YYYY-MM or YYYY-MM-DD, got '2025/13/01'" in text
    assert target.read_bytes() == saved  # nothing written
    assert page.rate_date.text() == "2025/13/01" and "border" in page.rate_date.styleSheet()
    assert page.dirty

    # Save as… opens no file dialog and writes nothing either.
    asked = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(QFileDialog, "getSaveFileName",
                   lambda *a, **k: asked.append(a) or (str(tmp_path / "other.json"), ""))
        qtbot.mouseClick(page.buttons["save_as"], Qt.MouseButton.LeftButton)
    assert asked == [] and not (tmp_path / "other.json").exists()
    assert shown[-1][1] == "Cannot save build"

    # Corrected, it is taken and saved.
    page.rate_date.selectAll()
    qtbot.keyClicks(page.rate_date, "2025-07-01")
    qtbot.keyClick(page.rate_date, Qt.Key.Key_Return)
    assert page.header_error.isHidden()
    qtbot.mouseClick(page.buttons["save"], Qt.MouseButton.LeftButton)
    reread = load_build(target)
    assert reread.exchange_rate is not None and reread.exchange_rate.date == "2025-07-01"
    assert [line.quantity for line in reread.line_items] == [2]


def test_closing_with_only_a_refused_header_value_asks_first(window, qtbot, shown, tmp_path):
    """The build is unchanged (the edit was refused), yet the typed text is the user's: "Save
    changes?" is asked, and Save there refuses as the button does."""
    page = window.build_page
    add_part(qtbot, page, "nvidia-rtx-4090", "gpu")
    _set_a_rate(qtbot, page)
    target = tmp_path / "quote.json"
    saved = _saved(qtbot, page, target)
    _type_a_bad_rate_date(qtbot, page)
    assert not page.dirty  # the build itself is as saved
    window.show()
    qtbot.waitExposed(window)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(QMessageBox, "question",
                   lambda *a, **k: shown.append(("question", a[1], a[2]))
                   or QMessageBox.StandardButton.Save)
        menu_action(window, "File", "Quit").trigger()
    assert window.isVisible()  # Save refused: the window stays open
    assert shown[-2][0] == "question" and "has unsaved changes" in shown[-2][2]
    assert shown[-1][1] == "Cannot save build"
    assert target.read_bytes() == saved
    assert page.rate_date.text() == "2025/13/01"


def test_undo_after_a_refused_header_value_shows_the_build_again(window, qtbot, shown):
    page = window.build_page
    _set_a_rate(qtbot, page)
    _type_a_bad_rate_date(qtbot, page)
    # Edit → Undo: the user asks for the header as it was before the rate.
    menu_action(window, "Edit", "Undo build edit").trigger()
    assert page.build.exchange_rate is None
    assert page.header_error.isHidden() and page.rate_date.text() == ""
    assert page.rate_spin.value() == 0


# --- several damaged recovery copies -------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _left_by_a_crash(content: bytes) -> Path:
    """A recovery copy whose process is gone."""
    path = new_recovery_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    dead = path.with_name(re.sub(r"build-\d+-", f"build-{_dead_pid()}-", path.name))
    dead.write_bytes(content)
    return dead


def _salvageable() -> bytes:
    good = {"part_id": "nvidia-rtx-4090", "quantity": 2}
    doc = {"format": "torchrig.recovery", "version": 1, "original": None,
           "build": {"format": "torchrig.build", "version": 1, "name": "Half a quote",
                     "tax_rate": "1.5", "line_items": [good]}}
    return json.dumps(doc).encode()


def test_three_unreadable_copies_are_announced_in_one_message(qtbot, shown):
    left = [_left_by_a_crash(b"\x00garbage"), _left_by_a_crash(b"{not json"),
            _left_by_a_crash(b'{"format": "torchrig.recovery", "version": 99}')]
    window = MainWindow()
    qtbot.addWidget(window)
    window.start()  # what the app does once the window has painted
    assert not window.build_page.build.line_items  # nothing could be offered
    assert [box[0] for box in shown] == ["warning"]
    text = shown[0][2]
    assert text.startswith("TorchRig did not close cleanly, and 3 copies of unsaved builds "
                           "could not be read. Each was kept:")
    for path in left:
        kept = path.parent / "unreadable" / path.name
        assert kept.exists() and not path.exists()  # moved, never deleted
        assert f"kept as {kept}" in text
    assert "version 99 is newer than this TorchRig understands" in text


def test_with_one_salvageable_copy_all_are_announced_before_it_is_offered(qtbot, shown):
    unreadable = [_left_by_a_crash(b"\x00garbage"), _left_by_a_crash(b"{not json")]
    salvage = _left_by_a_crash(_salvageable())
    window = MainWindow()
    qtbot.addWidget(window)
    window.start()  # what the app does once the window has painted
    assert not window.build_page.build.line_items  # the question is answered No
    assert [box[0] for box in shown] == ["warning", "question"]
    listing, question = shown[0][2], shown[1][2]
    for path in [*unreadable, salvage]:
        assert f"kept as {path.parent / 'unreadable' / path.name}" in listing
    assert "3 copies" in listing and "tax_rate" in listing
    kept = salvage.parent / "unreadable" / salvage.name
    assert question == f"Of the damaged copy kept as {kept}:\n\nOpen what could be read (1 line)?"
    assert kept.exists()  # declined, still kept: it is the user's data


# --- ambiguous amounts in the picker and the Wizard ----------------------------------------


def test_an_ambiguous_price_bound_in_the_picker_is_said_not_read_as_another_number(window,
                                                                                    qtbot):
    picker = window.build_page.picker
    picker.category_box.setCurrentIndex(picker.category_box.findData("gpu"))
    picker.range_box.setCurrentIndex(picker.range_box.findData("price"))
    everything = len(picker.visible_parts())
    messages: list[str] = []
    picker.status.connect(messages.append)
    qtbot.keyClicks(picker.max_edit, "1.299,00")
    assert messages[-1].startswith("'1.299,00' is not a number the filter can use: write "
                                   "1299.00 or 1,299.00")
    assert "border" in picker.max_edit.styleSheet()
    # Left out of the filter, not read as 1.299 (which would hide every GPU).
    assert len(picker.visible_parts()) == everything
    picker.max_edit.clear()
    qtbot.keyClicks(picker.max_edit, "12,999")
    assert picker.max_edit.styleSheet() == ""
    prices = [picker._price(p) for p in picker.visible_parts()]
    assert prices and all(p is not None and p <= 12999 for p in prices)


def test_an_ambiguous_gpu_hour_price_in_the_wizard_is_named(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.recommendation.text() != "", timeout=10_000)
    page.hourly_gpu_box.setCurrentIndex(1)
    qtbot.keyClicks(page.hourly_price_edit, "1.299,00")
    qtbot.waitUntil(lambda: page.money_error.isVisible(), timeout=10_000)
    assert page.money_error.text() == ("Price per GPU-hour: give a positive amount such as 2.50 "
                                       "or 1,299.00 (a point before the decimals; commas only "
                                       "between groups of three digits)")
    assert page.model.money_terms().hourly == {}  # not taken as 1.299


@pytest.mark.parametrize(("csv_text", "message"), [
    ("part_id,price,currency,date,price\nnvidia-rtx-4090,15999,CNY,2026-11-01,1\n",
     "line 1: column 'price' appears more than once in the header; keep one"),
    ('part_id,price,currency,date\nnvidia-rtx-4090,"1.299,00",CNY,2026-11-01\n',
     "1 bad row(s): line 2: price must be an amount like \"12999.00\" or \"12,999.00\" (a "
     "point before the decimals; commas only between groups of three digits), got '1.299,00'"),
])
def test_import_prices_refuses_a_repeated_column_and_an_ambiguous_price(
        window, qtbot, shown, monkeypatch, tmp_path, csv_text, message):
    page = window.build_page
    add_part(qtbot, page, "nvidia-rtx-4090", "gpu")
    before = page.build
    path = tmp_path / "prices.csv"
    path.write_text(csv_text, encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    qtbot.mouseClick(page.buttons["import"], Qt.MouseButton.LeftButton)
    assert shown == [("warning", "Cannot import price list", f"{path}: {message}")]
    assert page.build == before  # nothing applied
