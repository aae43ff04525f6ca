"""A line's price remark (issue 25: kept off the customer copy, on the internal sheet) survives
the Build page's edit - save - reopen, and goes when the user types a price of their own."""

from __future__ import annotations

from pathlib import Path

from gui_gestures import click, go_to, open_build, type_into_cell

from torchrig.builds.build import load_build

SAMPLE = Path(__file__).resolve().parents[2] / "builds" / "hgx-b200.json"
DGX = 1  # the DGX B200 line: its price is an estimate with a remark (builds/hgx-b200.json)


def test_a_price_remark_survives_save_and_reopen_until_a_new_price(shown_window, qtbot,
                                                                   file_dialogs, tmp_path):
    window, (answers, _) = shown_window, file_dialogs
    go_to(qtbot, window, "build")
    page = window.build_page
    open_build(qtbot, window, answers, SAMPLE)
    remark = load_build(SAMPLE).line_items[DGX].price_remark
    assert remark and page.build.line_items[DGX].price_remark == remark
    type_into_cell(qtbot, page.lines, 2, 3, "4")  # another line's quantity: 2 CPUs -> 4
    target = tmp_path / "edited.json"
    answers.append(str(target))
    click(qtbot, page.buttons["save_as"])
    reopened = load_build(target)
    assert reopened.line_items[2].quantity == 4
    assert reopened.line_items[DGX].price_remark == remark
    open_build(qtbot, window, answers, target)
    type_into_cell(qtbot, page.lines, DGX, 4, "480000")  # the shop's own price
    click(qtbot, page.buttons["save"])
    final = load_build(target).line_items[DGX]
    assert final.unit_price == 480000 and not final.price_remark
