"""The Build page's "Replace part…" (button and table context menu) and its always-visible
power and exchange-rate lines, driven through the widgets.

Power figures by hand: Core i9-13900K 253 W maximum turbo power, RTX 4090 450 W board power,
150 W for the rest (builds/power_checks.py); Corsair RM1000x 1,000 W, 80 PLUS Gold: 89 % the
lowest at 230 V EU internal, 87 % at 115 V (docs/hardware-sources.md sec. 8).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from gui_gestures import (
    in_settings_dialog,
    menu_action,
    open_from_menu,
    type_into_cell,
    type_text,
)

from torchrig.builds.build import Build, LineItem, save_build
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.findings import Severity
from torchrig.gui.pages.build_page import BuildPage
from torchrig.gui.pages.build_replace import ReplacePartDialog
from torchrig.gui.qt import QApplication, QDialog, QDialogButtonBox, Qt, QTimer

LEFT = Qt.MouseButton.LeftButton
DESK = [("intel-core-i9-13900k", 1), ("nvidia-rtx-4090", 2),
        ("asus-rog-maximus-z790-formula", 1),
        ("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 1),
        ("samsung-990-pro-1tb", 1), ("corsair-rm1000x", 2), ("nfortec-krater-x", 1),
        ("thermalright-axp120-x67", 1)]
GPU_ROW, CPU_ROW = 1, 0


def _window_page(window, qtbot, tmp_path: Path, lines=DESK) -> BuildPage:
    """The window's Build page on show, with the build opened from File → Open…."""
    window.resize(1300, 900)
    window.show()
    qtbot.waitExposed(window)
    path = tmp_path / "desk.json"
    save_build(Build(name="desk", currency="USD",
                     line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]), path)
    open_from_menu(window, path)
    return window.build_page


def _select_row(qtbot, page: BuildPage, row: int) -> None:
    rect = page.lines.visualRect(page.lines.model().index(row, 1))
    qtbot.mouseClick(page.lines.viewport(), LEFT, pos=rect.center())


def _on_dialog(act: Callable[[ReplacePartDialog], None]) -> list[ReplacePartDialog]:
    """Run ``act`` on the replace dialog once its exec() is up (it blocks the test)."""
    seen: list[ReplacePartDialog] = []

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, ReplacePartDialog) and dialog.isVisible():
            seen.append(dialog)
            act(dialog)
        else:
            QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)
    return seen


def _listed(dialog: ReplacePartDialog) -> list[str]:
    table = dialog.picker.parts_table
    return [table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in range(table.rowCount())]


def _pick(qtbot, dialog: ReplacePartDialog, part_id: str) -> None:
    dialog.picker.parts_table.setCurrentCell(_listed(dialog).index(part_id), 0)
    qtbot.mouseClick(dialog.picker.add_button, LEFT)


def test_replace_a_gpu_keeps_the_quantity_and_the_line(window, qtbot, tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path)
    _select_row(qtbot, page, GPU_ROW)
    listed: list[str] = []

    def act(dialog: ReplacePartDialog) -> None:
        listed.extend(_listed(dialog))
        assert dialog.picker.category == "gpu" and not dialog.picker.category_box.isEnabled()
        assert dialog.picker.compatible_box.isChecked()
        _pick(qtbot, dialog, "nvidia-rtx-3090")

    seen = _on_dialog(act)
    qtbot.mouseClick(page.replace_button, LEFT)
    assert seen and seen[0].picker.add_button.text() == "Replace"
    line = page.build.line_items[GPU_ROW]
    assert (line.part_id, line.quantity) == ("nvidia-rtx-3090", 2)
    assert [i.part_id for i in page.build.line_items].count("nvidia-rtx-4090") == 0
    assert len(page.build.line_items) == len(DESK)
    # Only GPUs, and not one that would add a blocker in this line's place: an SXM module
    # needs an HGX baseboard (checked here with check_build, not the picker's filter).
    cat = load_catalog()
    assert listed and all(cat.get(p).category == "gpu" for p in listed)
    assert "nvidia-rtx-5090" in listed and "nvidia-h100-sxm" not in listed
    sxm = Build(name="t", line_items=[LineItem(part_id="nvidia-h100-sxm", quantity=2)
                                      if p == "nvidia-rtx-4090" else
                                      LineItem(part_id=p, quantity=q) for p, q in DESK])
    assert any(f.severity is Severity.BLOCKER for f in check_build(sxm, cat))
    # Edit → Undo puts the RTX 4090s back.
    menu_action(window, "Edit", "Undo build edit").trigger()
    assert page.build.line_items[GPU_ROW].part_id == "nvidia-rtx-4090"


def test_replace_from_the_context_menu_offers_only_cpus_for_the_socket(window, qtbot,
                                                                       tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path)
    _select_row(qtbot, page, CPU_ROW)
    listed: list[str] = []

    def act(dialog: ReplacePartDialog) -> None:
        listed.extend(_listed(dialog))
        _pick(qtbot, dialog, "intel-core-i7-13700k")

    _on_dialog(act)
    assert page.replace_action in page.lines.actions()
    assert page.lines.contextMenuPolicy() is Qt.ContextMenuPolicy.ActionsContextMenu
    page.replace_action.trigger()
    assert page.build.line_items[CPU_ROW].part_id == "intel-core-i7-13700k"
    cat = load_catalog()
    # The Z790 board is LGA1700: every CPU offered fits it, and an AM5 Ryzen is not offered.
    assert listed and {cat.get(p).cpu.socket for p in listed} == {"LGA1700"}
    assert "amd-ryzen-9-7950x" not in listed


def test_unticking_compatible_shows_the_whole_category(window, qtbot, tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path)
    _select_row(qtbot, page, CPU_ROW)
    listed: list[str] = []

    def act(dialog: ReplacePartDialog) -> None:
        box = dialog.picker.compatible_box
        box.setFocus()
        qtbot.keyClick(box, Qt.Key.Key_Space)
        listed.extend(_listed(dialog))
        buttons = dialog.findChild(QDialogButtonBox)
        qtbot.mouseClick(buttons.button(QDialogButtonBox.StandardButton.Cancel), LEFT)

    _on_dialog(act)
    before = page.build
    qtbot.mouseClick(page.replace_button, LEFT)
    assert page.build == before  # cancelled: nothing changed
    assert set(listed) == {p.id for p in load_catalog().by_category("cpu")}


def test_replace_needs_one_catalog_line_selected(window, qtbot, tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path)
    messages: list[str] = []
    page.status.connect(messages.append)
    page.lines.clearSelection()
    qtbot.mouseClick(page.replace_button, LEFT)
    assert messages == ["Select one catalog part's line to replace."]
    assert QApplication.activeModalWidget() is None or not isinstance(
        QApplication.activeModalWidget(), QDialog)


def test_power_line_shows_draw_capacity_headroom_and_the_wall(window, qtbot,
                                                             tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path)  # region: the default, mainland China (220 V)
    text = page.facts.power.text()
    # 253 + 2 x 450 + 150 = 1303 W; 2 x 1000 W supplies; headroom 697 W = 34.85 % -> 35 %;
    # 1303 / 0.89 = 1464.0 W at the wall, / 220 V = 6.65 A -> 6.7 A.
    assert "1,303 W sustained" in text and "supplies 2,000 W" in text
    assert "headroom 697 W (35%)" in text
    assert "1,464 W at the wall (6.7 A at 220 V)" in text
    assert page.facts.power.isVisible()
    # One GPU (an edit in the table): 853 W; headroom 1147 W = 57.35 % -> 57 %;
    # 853 / 0.89 = 958.4 W -> 958 W, 4.36 A -> 4.4 A.
    type_into_cell(qtbot, page.lines, GPU_ROW, 3, "1")
    text = page.facts.power.text()
    assert "853 W sustained" in text and "headroom 1,147 W (57%)" in text
    assert "958 W at the wall (4.4 A at 220 V)" in text


def test_power_line_turns_red_when_the_supplies_are_short(window, qtbot,
                                                          tmp_path: Path) -> None:
    # One RM1000x for two RTX 4090s: 1303 - 1000 = -303 W, -30.3 % -> -30 %.
    lines = [(p, 1 if p == "corsair-rm1000x" else q) for p, q in DESK]
    page = _window_page(window, qtbot, tmp_path, lines)
    assert "headroom -303 W (-30%)" in page.facts.power.text()
    assert "color" in page.facts.power.styleSheet()


def test_region_from_settings_changes_the_wall_figure(window, qtbot, tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path)

    def choose_us(dialog) -> None:
        dialog.region_box.setCurrentIndex(dialog.region_box.findData("us"))
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), LEFT)

    in_settings_dialog(qtbot, window, choose_us)
    assert window.settings.region == "us"
    # 1303 / 0.87 = 1497.7 W -> 1,498 W; / 120 V = 12.48 A -> 12.5 A; over the 1440 W a 15 A
    # outlet carries for hours: the finding is on the page.
    assert "1,498 W at the wall (12.5 A at 120 V)" in page.facts.power.text()
    assert "wall.outlet" in [f.code for f in page.findings]


def test_no_power_known_says_so(window, qtbot, tmp_path: Path) -> None:
    page = _window_page(window, qtbot, tmp_path, [("samsung-990-pro-1tb", 1)])
    assert page.facts.power.text() == "Power: no CPU or GPU whose power the catalog knows yet."


@pytest.fixture
def reference_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The shipped resources plus a reference-rate file dated 2026-10-01."""
    import json
    import shutil

    from torchrig.catalog import clear_catalog_cache

    copy = tmp_path / "resources"
    shutil.copytree(Path(__file__).resolve().parents[2] / "resources", copy)
    (copy / "catalog" / "exchange_rates.json").write_text(json.dumps({
        "format": "torchrig-exchange-rates", "version": 1,
        "rates": [{"base": "USD", "quote": "CNY", "rate": "7.1234", "date": "2026-10-01",
                   "kind": "PBOC central parity", "source": "https://www.pbc.gov.cn/",
                   "note": {"en": "n", "zh": "注"}}]}), encoding="utf-8")
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(copy))
    clear_catalog_cache()
    yield copy
    clear_catalog_cache()


def test_a_cny_build_without_a_rate_uses_the_reference_and_flags_its_age(
        qtbot, tmp_path: Path, reference_install: Path) -> None:
    from torchrig.gui.main_window import MainWindow

    window = MainWindow()  # after the fixture: it reads the reference rate file above
    qtbot.addWidget(window)
    page = window.build_page
    path = tmp_path / "cny.json"
    save_build(Build(name="cny", currency="CNY",
                     line_items=[LineItem(part_id="intel-core-i9-13900k", quantity=1)]), path)
    open_from_menu(window, path)
    # USD 589 x 7.1234 = 4195.6826 -> CNY 4,195.68.
    assert page.lines.item(0, 4).text() == "4,195.68"
    text = page.facts.rate.text()
    assert "7.1234 CNY per USD (2026-10-01): PBOC central parity 2026-10-01" in text
    # Today is after 2026-10-31 whenever this runs, so the rate is over 30 days old.
    assert "days old" in text and text.startswith("⚠")

    # The shop's own default rate, typed into Settings, wins over the reference.
    def type_a_rate(dialog) -> None:
        type_text(qtbot, dialog.rate_spin, "7")
        type_text(qtbot, dialog.rate_date, "2026-11-30")
        qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), LEFT)

    in_settings_dialog(qtbot, window, type_a_rate)
    assert window.settings.exchange_rate == 7.0
    assert page.lines.item(0, 4).text() == "4,123.00"  # 589 x 7.0
    assert "the default rate in Settings" in page.facts.rate.text()
