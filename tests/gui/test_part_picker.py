"""The part picker, driven through its widgets: typing, ticking, choosing, double-clicking."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gui_gestures import add_part, choose, go_to, open_build, tick, type_text

from torchrig.catalog import load_catalog
from torchrig.gui.part_picker import PartPicker
from torchrig.gui.qt import Qt
from torchrig.gui.settings import Settings


@pytest.fixture
def picker(qtbot):
    widget = PartPicker(load_catalog(), Settings())
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    widget.category_box.setCurrentIndex(widget.category_box.findData("gpu"))
    return widget


@pytest.fixture
def build_picker(shown_window, qtbot):
    """The Build page's picker, on screen, with a new build (CNY, no exchange rate: the
    Settings default)."""
    go_to(qtbot, shown_window, "build")
    picker = shown_window.build_page.picker
    choose(picker.category_box, "gpu")
    return picker


def _rows(picker: PartPicker) -> list[str]:
    table = picker.parts_table
    return [table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(table.rowCount())]


def _price_cell(picker: PartPicker, part_id: str) -> str:
    row = _rows(picker).index(part_id)
    return picker.parts_table.item(row, 1).text()


def test_typing_24gb_finds_the_24_gib_cards(picker, qtbot):
    qtbot.keyClicks(picker.search_edit, "24GB")
    # The 24 GB cards, with the China-market L2, RTX 4090 D and RTX 5090 D V2.
    assert sorted(_rows(picker)) == ["nvidia-l2", "nvidia-l4", "nvidia-rtx-3090",
                                     "nvidia-rtx-4090", "nvidia-rtx-4090d",
                                     "nvidia-rtx-5090d-v2", "nvidia-rtx-pro-4000-blackwell"]
    picker.search_edit.clear()
    qtbot.keyClicks(picker.search_edit, "rtx4090")
    assert _rows(picker) == ["nvidia-rtx-4090", "nvidia-rtx-4090d"]  # the China-market 4090 D too


def test_compatible_filter_is_on_by_default_and_can_be_turned_off(build_picker, shown_window,
                                                                   qtbot):
    picker = build_picker
    assert picker.compatible_box.isChecked()
    add_part(qtbot, shown_window.build_page, "intel-core-i9-13900k", "cpu")
    assert picker.compatible_box.isChecked()  # an LGA1700 CPU fits an empty build
    type_text(qtbot, picker.search_edit, "")
    choose(picker.category_box, "motherboard")
    assert "gigabyte-b650m-aorus-elite-ax-ice" not in _rows(picker)  # AM5 board, LGA1700 CPU
    assert "asus-rog-maximus-z790-formula" in _rows(picker)
    tick(qtbot, picker.compatible_box)
    assert "gigabyte-b650m-aorus-elite-ax-ice" in _rows(picker)


def test_sort_and_range_by_vram(picker, qtbot):
    choose(picker.sort_box, "vram")
    tick(qtbot, picker.descending_box)
    assert _rows(picker)[0] == "amd-instinct-mi325x"  # 256 GiB, the largest in the catalog
    choose(picker.range_box, "vram")
    qtbot.keyClicks(picker.min_edit, "80")
    cat = load_catalog()
    assert all(cat.get(i).gpu.vram_bytes >= 80 * 2**30 for i in _rows(picker))
    assert "nvidia-rtx-4090" not in _rows(picker)


def test_socket_choice(picker):
    picker.category_box.setCurrentIndex(picker.category_box.findData("cpu"))
    picker.choice_box.setCurrentIndex(picker.choice_box.findData("AM5"))
    cat = load_catalog()
    assert _rows(picker) and all(cat.get(i).cpu.socket == "AM5" for i in _rows(picker))


def test_gpu_cooling_choice_shows_names_and_filters_by_code(qtbot):
    widget = PartPicker(load_catalog(), Settings(), lang="zh")
    qtbot.addWidget(widget)
    widget.category_box.setCurrentIndex(widget.category_box.findData("gpu"))
    box = widget.choice_box
    names = {box.itemData(i): box.itemText(i) for i in range(1, box.count())}
    assert names == {"open-air": "开放式风扇", "blower": "涡轮风扇",
                     "passive": "被动散热（靠服务器风道）"}
    box.setCurrentIndex(box.findData("passive"))
    cat = load_catalog()
    assert _rows(widget) and all(cat.get(i).gpu.cooling == "passive" for i in _rows(widget))


def test_prices_in_the_build_currency(build_picker, shown_window, qtbot):
    picker, page = build_picker, shown_window.build_page
    assert page.build.currency == "CNY" and page.build.exchange_rate is None
    choose(picker.category_box, "cpu")
    # The shipped reference rate (resources/catalog/exchange_rates.json: 6.9929, 2026-01-23)
    # prices a USD part in a CNY build: USD 589 x 6.9929 = CNY 4,118.82.
    assert "≈ CNY 4,119" in _price_cell(picker, "intel-core-i9-13900k")
    # ...and the note names it as the shipped reference, not as a rate the shop set.
    assert picker.rate_note.text() == ("Converted at the shipped reference rate (PBOC central "
                                       "parity): 6.9929 CNY per USD (2026-01-23).")
    # An install without the reference file, and no rate in Settings: the rate is asked for.
    picker.reference = None
    page.apply_settings()
    assert "exchange rate needed" in _price_cell(picker, "intel-core-i9-13900k")
    assert picker.rate_note.isVisibleTo(picker) and "Settings" in picker.rate_note.text()
    type_text(qtbot, page.rate_spin, "7.1")
    type_text(qtbot, page.rate_date, "2026-11-30", enter=True)
    assert page.build.exchange_rate is not None
    assert page.build.exchange_rate.cny_per_usd == Decimal("7.1")
    # USD 589 x 7.1 = CNY 4,181.90
    assert "≈ CNY 4,182" in _price_cell(picker, "intel-core-i9-13900k")
    assert not picker.rate_note.isVisibleTo(picker)


def test_settings_default_rate_is_used_and_said(qtbot, tmp_path, file_dialogs):
    """A CNY build file without a rate of its own, opened where Settings hold a default."""
    import json

    from torchrig.gui.main_window import MainWindow

    settings = Settings()
    settings.exchange_rate = 7.0
    settings.exchange_rate_date = "2026-11-30"
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    path = tmp_path / "no-rate.json"
    path.write_text(json.dumps({"format": "torchrig.build", "version": 1, "name": "t",
                                "currency": "CNY", "line_items": []}), encoding="utf-8")
    open_build(qtbot, window, file_dialogs[0], path)
    assert window.build_page.path == path and window.build_page.build.exchange_rate is None
    widget = window.build_page.picker
    choose(widget.category_box, "cpu")
    # USD 589 x 7.0 = CNY 4,123
    assert "≈ CNY 4,123" in _price_cell(widget, "intel-core-i9-13900k")
    assert widget.rate_note.text() == ("Converted at the Settings default: 7.0 CNY per USD "
                                       "(2026-11-30).")
    window.close()


def test_old_prices_and_end_of_life_are_marked(picker):
    cell = _price_cell(picker, "nvidia-rtx-4090")
    assert cell.startswith("⚠")
    row = _rows(picker).index("nvidia-rtx-4090")
    tip = picker.parts_table.item(row, 1).toolTip()
    assert "months old" in tip and "out of production since 2024-10" in tip


def test_double_click_and_add_button_ask_to_add(picker, qtbot):
    qtbot.keyClicks(picker.search_edit, "5090")
    rect = picker.parts_table.visualItemRect(picker.parts_table.item(0, 0))
    qtbot.mouseClick(picker.parts_table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(picker.add_requested) as signal:
        qtbot.mouseClick(picker.add_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["nvidia-rtx-5090"]
    rect = picker.parts_table.visualItemRect(picker.parts_table.item(0, 0))
    # A double-click starts with a press on the same row, as a real one does.
    qtbot.mouseClick(picker.parts_table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    with qtbot.waitSignal(picker.add_requested) as signal:
        qtbot.mouseDClick(picker.parts_table.viewport(), Qt.MouseButton.LeftButton,
                          pos=rect.center())
    assert signal.args == ["nvidia-rtx-5090"]
