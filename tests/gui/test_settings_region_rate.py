"""Settings → Region and the reference rate, through the window's own Settings dialog: the
region reaches the Build page's checks and power line at once; the dialog shows the shipped
reference while the shop has set no rate."""

from __future__ import annotations

import json
from pathlib import Path

from gui_gestures import click, in_settings_dialog, open_from_menu

from torchrig.builds.build import Build, LineItem, save_build
from torchrig.gui.qt import QDialogButtonBox

URL = "https://www.pbc.gov.cn/"


def _open(window, tmp_path: Path) -> None:
    # i9-13900K + 2 x RTX 4090 on two 80 PLUS Gold RM1000x: 253 + 900 + 150 = 1303 W DC.
    path = tmp_path / "b.json"
    save_build(Build(name="b", currency="USD", line_items=[
        LineItem(part_id="intel-core-i9-13900k"), LineItem(part_id="nvidia-rtx-4090",
                                                           quantity=2),
        LineItem(part_id="corsair-rm1000x", quantity=2)]), path)
    open_from_menu(window, path)


def test_region_applies_to_the_open_build(window, qtbot, tmp_path: Path) -> None:
    _open(window, tmp_path)
    page = window.build_page
    # Default region cn: 1303 / 0.89 = 1464 W, under 2200 W (10 A x 220 V): no wall finding.
    assert window.settings.region == "cn"
    assert not [f for f in page.findings if f.code.startswith("wall.")]
    regions: list[object] = []
    after_apply: list[tuple[list[str], str]] = []

    def act(dialog) -> None:
        regions.extend(dialog.region_box.itemData(i) for i in range(dialog.region_box.count()))
        dialog.region_box.setCurrentIndex(dialog.region_box.findData("us"))
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Apply))
        # Seen while the dialog is still open: Apply shows the change at once.
        after_apply.append(([f.code for f in page.findings if f.code.startswith("wall.")],
                            page.facts.power.text()))
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel))

    in_settings_dialog(qtbot, window, act)
    assert regions == ["cn", "us", "eu"]
    # us: 1303 / 0.87 = 1497.7 W > 1440 W (15 A x 120 V x 80 %).
    [(codes, power)] = after_apply
    assert codes == ["wall.outlet"] and "at 120 V" in power
    assert [f.code for f in page.findings if f.code.startswith("wall.")] == ["wall.outlet"]
    assert window.rebuilds == 0


def test_the_dialog_names_the_reference_or_its_absence(window, qtbot, tmp_path: Path) -> None:
    from torchrig.catalog.exchange_rates import load_exchange_rates
    from torchrig.gui.settings_dialog import SettingsDialog

    shown_first: list[str] = []

    def read_and_cancel(dialog) -> None:
        shown_first.append(dialog.reference_label.text())
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel))

    in_settings_dialog(qtbot, window, read_and_cancel)
    # This checkout ships no rate file yet, or one: the label says which.
    assert shown_first[0].startswith("Not set")
    path = tmp_path / "exchange_rates.json"
    path.write_text(json.dumps({"format": "torchrig-exchange-rates", "version": 1, "rates": [
        {"base": "USD", "quote": "CNY", "rate": "7.1234", "date": "2026-11-28",
         "kind": "PBOC central parity", "source": URL, "note": {"en": "n", "zh": "注"}}]}))
    [ref] = load_exchange_rates(path)
    shown = SettingsDialog(window.settings, reference=ref)
    qtbot.addWidget(shown)
    assert shown.reference_label.text() == (
        f"Not set: builds without a rate use the shipped reference, 7.1234 CNY per USD "
        f"(PBOC central parity 2026-11-28, {URL}).")
    none = SettingsDialog(window.settings, reference=None)
    qtbot.addWidget(none)
    assert "no reference rate shipped" in none.reference_label.text()


def test_a_damaged_rate_file_is_reported_like_a_damaged_catalog(qtbot, tmp_path: Path,
                                                                 monkeypatch) -> None:
    import shutil

    from torchrig.catalog import clear_catalog_cache
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.qt import QLabel

    copy = tmp_path / "resources"
    shutil.copytree(Path(__file__).resolve().parents[2] / "resources", copy)
    (copy / "catalog" / "exchange_rates.json").write_text(
        '{"format": "torchrig-exchange-rates", "version": 1, "rates": [{"rate": "7.1"}]}')
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(copy))
    clear_catalog_cache()
    try:
        win = MainWindow()
        qtbot.addWidget(win)
        texts = [label.text() for label in win.findChildren(QLabel)]
        assert any("The parts catalog could not be loaded" in t and "exchange_rates.json" in t
                   and "missing field" in t for t in texts), texts
    finally:
        clear_catalog_cache()


def test_switching_language_in_the_dialog_renames_the_regions(window, qtbot) -> None:
    # The region names come from the core (builds/wall_checks.py REGIONS, Msg en/zh); after
    # Apply switches the window to Chinese the rebuilt dialog shows their Chinese halves.
    seen: list[tuple[list[str], list[str], object]] = []

    def act(dialog) -> None:
        names = [dialog.region_box.itemText(i) for i in range(dialog.region_box.count())]
        dialog.language_box.setCurrentIndex(dialog.language_box.findData("zh"))
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Apply))
        seen.append((names, [dialog.region_box.itemText(i)
                             for i in range(dialog.region_box.count())],
                     dialog.region_box.currentData()))
        click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel))

    in_settings_dialog(qtbot, window, act)
    [(before, after, region)] = seen
    assert before == ["mainland China", "United States", "European Union"]
    assert after == ["中国大陆", "美国", "欧盟"]
    assert region == window.settings.region
