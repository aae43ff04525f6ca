"""Typed settings: round trip, bad values fall back, a damaged file is kept, not overwritten;
the window restores its geometry and page; the Settings dialog applies at once."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from gui_gestures import (
    add_part,
    answer_modal,
    choose,
    click,
    go_to,
    menu_action,
    type_text,
)

from torchrig.builds.build import load_build
from torchrig.gui.qt import QDialogButtonBox
from torchrig.gui.settings import FORMAT, Settings, config_dir

EDITED = {
    "language": "zh", "theme": "dark", "last_page": "wizard", "currency": "USD",
    "exchange_rate": 7.1234, "exchange_rate_date": "2026-01-31", "shop_name": "算力小店 & Co",
    "shop_contact": "lab@example.com", "logo_path": "/tmp/logo.png", "validity_days": 30,
    "report_lang": "en", "build_folder": "/data/builds", "dataset_folder": "/data/sets",
    "recent_files": ["/a.json", "/b.json"], "region": "us",
}


def test_settings_live_in_the_isolated_config_folder(tmp_path, monkeypatch):
    assert Settings().path == config_dir() / "settings.json"
    monkeypatch.setenv("TORCHRIG_CONFIG_DIR", str(tmp_path))
    assert Settings().path == tmp_path / "settings.json"


def test_defaults_without_a_file(tmp_path):
    s = Settings(tmp_path / "settings.json")
    assert (s.language, s.theme, s.currency, s.exchange_rate) == ("system", "system", "CNY", 0.0)
    assert s.recent_files == [] and s.window_geometry == b"" and not s.load_error


def test_every_option_round_trips(tmp_path):
    path = tmp_path / "settings.json"
    s = Settings(path)
    assert set(EDITED) | {"geometry"} == set(Settings.options())
    for key, value in EDITED.items():
        setattr(s, key, value)
    s.window_geometry = bytes(range(256))
    assert s.changed and s.sync() and not s.changed
    again = Settings(path)
    for key, value in EDITED.items():
        assert getattr(again, key) == value, key
    assert again.window_geometry == bytes(range(256))
    doc = json.loads(path.read_text(encoding="utf-8"))  # plain JSON: nothing is pickled
    assert doc["format"] == FORMAT and doc["version"] == 1


@pytest.mark.parametrize(("key", "bad"), [
    ("language", "klingon"), ("theme", "neon"), ("currency", "EUR"), ("currency", 5),
    ("exchange_rate", -1), ("exchange_rate", 1e9), ("exchange_rate", "7.1"),
    ("exchange_rate", True), ("exchange_rate_date", "31.01.2026"), ("validity_days", 9999),
    ("validity_days", 14.5), ("validity_days", None), ("report_lang", "fr"),
    ("recent_files", "a.json"), ("recent_files", [1, 2]), ("shop_name", "x" * 5000),
    ("geometry", "%%% not base64"), ("last_page", ["machine"]), ("region", "mars"),
])
def test_a_bad_stored_value_reads_as_the_default(tmp_path, key, bad):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"format": FORMAT, "version": 1,
                                "values": {"shop_contact": "kept", key: bad}}),
                    encoding="utf-8")
    s = Settings(path)
    option = Settings.options()[key]
    if key == "geometry":
        assert s.window_geometry == b""
    else:
        assert getattr(s, key) == option.default
    assert s.shop_contact == "kept"  # one bad value does not cost the others


def test_assigning_a_bad_value_is_refused(tmp_path):
    s = Settings(tmp_path / "settings.json")
    for key, bad in (("language", "fr"), ("exchange_rate", math.nan), ("currency", "EUR"),
                     ("exchange_rate_date", "tomorrow"), ("validity_days", -1)):
        with pytest.raises(ValueError, match=key):
            setattr(s, key, bad)
    assert not s.changed


@pytest.mark.parametrize("content", [b"{nope", b"\xff\xfe", b"[]",
                                     b'{"format": "torchrig.settings", "version": 99}',
                                     b'{"format": "torchrig.settings", "version": 1, '
                                     b'"values": []}'])
def test_a_damaged_file_gives_defaults_and_is_set_aside_not_overwritten(tmp_path, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    s = Settings(path)
    assert s.load_error and "settings.json" in s.load_error
    assert s.language == "system"
    assert path.read_bytes() == content  # reading never changes it
    s.language = "en"
    assert s.sync()
    assert (tmp_path / "settings.unreadable.json").read_bytes() == content
    assert Settings(path).language == "en"


def test_unknown_options_of_a_newer_version_survive_a_save(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"format": FORMAT, "version": 1,
                                "values": {"future_option": {"x": 1}}}), encoding="utf-8")
    s = Settings(path)
    s.theme = "dark"
    s.sync()
    assert json.loads(path.read_text(encoding="utf-8"))["values"]["future_option"] == {"x": 1}


def test_an_unwritable_folder_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    s = Settings(blocker / "settings.json")
    s.language = "zh"
    assert not s.sync()
    assert s.save_error and s.changed


def test_internals_recent_files_are_unique_newest_first_and_capped(tmp_path):
    s = Settings(tmp_path / "settings.json")
    for i in range(12):
        s.add_recent(f"/b{i}.json")
    s.add_recent("/b5.json")
    assert s.recent_files[0] == "/b5.json"
    assert len(s.recent_files) == Settings.MAX_RECENT
    assert len(set(s.recent_files)) == len(s.recent_files)


# --- the window -------------------------------------------------------------------------------


def _in_settings_dialog(window, qtbot, act) -> None:
    """Settings → Settings… from the menu bar, ``act`` done on the dialog while it is up."""
    seen = answer_modal(qtbot, act)
    menu_action(window, "Settings", "Settings…").trigger()
    assert seen == ["SettingsDialog"]


def _press(qtbot, dialog, which) -> None:
    click(qtbot, dialog.buttons.button(which))


OK, APPLY, CANCEL = (QDialogButtonBox.StandardButton.Ok, QDialogButtonBox.StandardButton.Apply,
                     QDialogButtonBox.StandardButton.Cancel)


def test_geometry_and_last_page_come_back_in_a_new_window(qtbot):
    from torchrig.gui.main_window import MainWindow

    first = MainWindow()
    qtbot.addWidget(first)
    first.resize(700, 500)  # within the offscreen screen (800 x 600): restore clamps to it
    first.show()
    qtbot.waitExposed(first)
    go_to(qtbot, first, "report")
    menu_action(first, "File", "Quit").trigger()
    assert not first.isVisible()

    second = MainWindow()
    qtbot.addWidget(second)
    assert second.current_page() == "report"
    assert (second.width(), second.height()) == (700, 500)
    second.close()


def test_a_stored_page_that_no_longer_exists_is_ignored(qtbot):
    from torchrig.gui.main_window import MainWindow

    settings = Settings()
    settings.last_page = "gone"
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert window.current_page() == "machine"
    window.close()


def test_settings_dialog_applies_at_once(shown_window, qtbot):
    window = shown_window

    def fill_and_apply(dialog):
        type_text(qtbot, dialog.shop_edit, "Ada 电脑")
        type_text(qtbot, dialog.contact_edit, "+86 10 1234 5678")
        dialog.currency_box.setCurrentIndex(dialog.currency_box.findText("USD"))
        type_text(qtbot, dialog.rate_spin, "7.2")
        type_text(qtbot, dialog.rate_date, "2026-02-01")
        type_text(qtbot, dialog.dataset_folder_edit, "/srv/datasets")
        with qtbot.waitSignal(dialog.applied):
            _press(qtbot, dialog, APPLY)
        applied.append((dialog.isVisible(), dialog.message.text()))
        _press(qtbot, dialog, CANCEL)  # what Apply stored stays

    applied: list[tuple[bool, str]] = []
    _in_settings_dialog(window, qtbot, fill_and_apply)
    assert applied == [(True, "")]  # Apply keeps the dialog open
    assert Settings(window.settings.path).shop_name == "Ada 电脑"  # written to disk
    assert window.report_page.shop_edit.text() == "Ada 电脑"
    assert window.report_page.contact_edit.text() == "+86 10 1234 5678"
    assert window.bench_page.folder_edit.text() == "/srv/datasets"
    click(qtbot, window.build_page.buttons["new"])  # new builds take the defaults
    build = window.build_page.build
    assert build.currency == "USD" and str(build.exchange_rate.cny_per_usd) == "7.2"
    assert build.exchange_rate.date == "2026-02-01"
    assert window.rebuilds == 0  # nothing that needs a rebuild changed


def test_settings_dialog_refuses_a_bad_date_and_keeps_the_old_settings(shown_window, qtbot):
    window = shown_window
    messages: list[tuple[str, bool]] = []

    def type_then_ok(dialog):
        type_text(qtbot, dialog.rate_date, "31/01/2026")
        type_text(qtbot, dialog.shop_edit, "changed")
        _press(qtbot, dialog, OK)
        messages.append((dialog.message.text(), dialog.isVisible()))
        _press(qtbot, dialog, CANCEL)

    _in_settings_dialog(window, qtbot, type_then_ok)
    assert "31/01/2026" in messages[0][0] and messages[0][1]  # refused: OK left it open
    assert window.settings.shop_name == "" and window.settings.exchange_rate_date == ""
    assert Settings(window.settings.path).shop_name == ""


def test_changing_language_in_the_dialog_switches_window_and_dialog(shown_window, qtbot):
    window = shown_window
    add_part(qtbot, window.build_page, "nvidia-rtx-3060-12gb", "gpu")
    after: list[tuple[str, str]] = []

    def switch(dialog):
        choose(dialog.language_box, "zh")
        type_text(qtbot, dialog.shop_edit, "kept while switching")
        _press(qtbot, dialog, APPLY)
        # The dialog rebuilt itself in Chinese, with what was typed.
        after.append((dialog.windowTitle(), dialog.shop_edit.text()))
        _press(qtbot, dialog, CANCEL)

    _in_settings_dialog(window, qtbot, switch)
    assert after == [("设置", "kept while switching")]
    assert window.lang == "zh" and window.rebuilds == 1
    assert window.nav.item(2).text() == "配置单"
    assert window.build_page.build.line_items[0].part_id == "nvidia-rtx-3060-12gb"
    assert window.build_page.dirty  # the unsaved edit came through the rebuild


def test_the_menu_switches_language_and_theme(window, qtbot):
    from torchrig.gui.style import is_dark

    window.settings.shop_name = "stored"
    type_text(qtbot, window.report_page.shop_edit, "typed for this quote")
    menu_action(window, "Settings", "Language", "中文（简体）").trigger()
    assert window.lang == "zh" and window.settings.language == "zh"
    assert window.report_page.shop_edit.text() == "typed for this quote"
    menu_action(window, "设置", "主题", "深色").trigger()
    assert window.settings.theme == "dark" and is_dark()
    assert Settings(window.settings.path).theme == "dark"


def test_recent_files_menu_opens_a_build(window):
    sample = Path(__file__).resolve().parents[2] / "builds" / "entry.json"
    window.settings.add_recent(str(sample))  # a file opened in an earlier session
    entry = menu_action(window, "File", "Open recent", "entry.json")
    assert entry.toolTip() == str(sample)
    assert [a.text() for a in window.recent_menu.actions()] == ["entry.json"]
    entry.trigger()
    assert window.build_page.path == sample
    assert window.build_page.build == load_build(sample, window.catalog)
    assert window.current_page() == "build"


@pytest.mark.parametrize(("date", "fragment"), [
    ("", "exchange_rate.date must be a date"),
    ("2025/06/01", "exchange_rate.date must be a date"),
    ("20250601", "exchange_rate.date must be a date"),  # fromisoformat took this
])
def test_settings_dialog_refuses_a_default_rate_new_builds_could_not_hold(shown_window, qtbot,
                                                                         date, fragment):
    window = shown_window
    messages: list[str] = []

    def type_then_apply(dialog):
        type_text(qtbot, dialog.rate_spin, "7.2")
        type_text(qtbot, dialog.rate_date, date)
        _press(qtbot, dialog, APPLY)
        messages.append(dialog.message.text())
        _press(qtbot, dialog, CANCEL)

    _in_settings_dialog(window, qtbot, type_then_apply)
    assert fragment in messages[0]
    assert window.settings.exchange_rate == 0.0


def test_an_old_default_rate_without_a_date_gives_new_builds_no_rate(window, qtbot):
    from torchrig.builds.build import validate_build

    window.settings.exchange_rate = 7.2  # a settings file from before the date was required
    click(qtbot, window.build_page.buttons["new"])
    build = window.build_page.build
    assert build.exchange_rate is None
    validate_build(build)


def test_a_second_damaged_file_does_not_overwrite_the_first_backup(tmp_path):
    path = tmp_path / "settings.json"
    for damage in (b"{first", b"{second"):
        path.write_bytes(damage)
        s = Settings(path)
        s.language = "en"
        assert s.sync()
    assert (tmp_path / "settings.unreadable.json").read_bytes() == b"{first"
    assert (tmp_path / "settings.unreadable-2.json").read_bytes() == b"{second"


def test_without_a_home_folder_the_window_starts_and_says_where_files_go(qtbot, monkeypatch,
                                                                        tmp_path):
    import torchrig.paths as paths
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.settings import config_dir

    def no_home(cls):
        raise RuntimeError("Could not determine home directory.")

    for name in ("TORCHRIG_DATA_DIR", "TORCHRIG_CONFIG_DIR"):
        monkeypatch.delenv(name)
    monkeypatch.setattr(paths.Path, "home", classmethod(no_home))
    monkeypatch.setattr(paths.tempfile, "tempdir", str(tmp_path))
    paths.fallback_dir.cache_clear()
    assert config_dir() == paths.fallback_dir() / "config"
    window = MainWindow()
    qtbot.addWidget(window)
    assert str(paths.fallback_dir()) in window.statusBar().currentMessage()
    window.settings.language = "en"
    assert window.settings.sync()
    assert (paths.fallback_dir() / "config").is_dir()
