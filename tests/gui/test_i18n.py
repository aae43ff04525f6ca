"""Chinese/English UI: the catalogue is complete and compiled, every string in the code reaches
it, a Chinese window shows no English source text, and switching language at runtime keeps
the user's work."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from gui_gestures import (
    add_part,
    button,
    click,
    detect,
    go_to,
    menu_action,
    open_build,
    type_into_cell,
    type_text,
)

from torchrig.gui.qt import (
    QAbstractButton,
    QComboBox,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QTableWidget,
    QTabWidget,
    QTranslator,
    QWidget,
)

ROOT = Path(__file__).resolve().parents[2]
GUI = ROOT / "app" / "torchrig" / "gui"
TS = ROOT / "resources" / "translations" / "torchrig_zh_CN.ts"
QM = TS.with_suffix(".qm")

SAME_IN_BOTH = {
    "TorchRig", "Python", "torch", "Qt", "PySide6", "CPU", "GPU", "%", "FP32", "SGD", "AdamW",
}
"""Sources whose Chinese text is the source itself: product names, units, code names that
Chinese users read as they are (also the allow-list for the visible-text walk)."""

PLACEHOLDER = re.compile(r"\{\d+(?::[^}]*)?\}")
TAG = re.compile(r"<[^>]+>")


def catalogue() -> list[tuple[str, str, str, dict[str, str]]]:
    """(context, source, translation, translation attributes) for every message."""
    root = ET.parse(TS).getroot()
    out = []
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            assert translation is not None
            out.append((name, message.findtext("source") or "", translation.text or "",
                        dict(translation.attrib)))
    return out


# --- the catalogue --------------------------------------------------------------------------


def test_every_message_has_a_finished_chinese_translation():
    messages = catalogue()
    assert len(messages) > 400
    problems = []
    for context, source, text, attrs in messages:
        where = f"{context}: {source!r}"
        # "{0} ({1})" has no words to translate; its translation may differ only in punctuation
        wordy = bool(re.search("[A-Za-z]", PLACEHOLDER.sub("", TAG.sub("", source))))
        if attrs.get("type") in ("unfinished", "vanished", "obsolete"):
            problems.append(f"{where} is {attrs['type']}")
        elif not text.strip():
            problems.append(f"{where} has an empty translation")
        elif text == source and wordy and source not in SAME_IN_BOTH:
            problems.append(f"{where} is not translated (same as the source)")
        elif Counter(PLACEHOLDER.findall(text)) != Counter(PLACEHOLDER.findall(source)):
            problems.append(f"{where}: placeholders differ in {text!r}")
        elif ("&" in TAG.sub("", source)) != ("&" in TAG.sub("", text)):
            problems.append(f"{where}: keyboard mnemonic lost in {text!r}")
        elif wordy and not re.search(r"[\u4e00-\u9fff]", text) and source not in SAME_IN_BOTH:
            problems.append(f"{where}: no Chinese in {text!r}")
    assert not problems, "\n".join(problems)


def test_the_committed_qm_is_the_compiled_ts(qapp):
    """Message by message, so the check holds whichever lrelease built the .qm."""
    translator = QTranslator()
    assert translator.load(str(QM))
    wrong = [(c, s) for c, s, t, _ in catalogue() if translator.translate(c, s) != t]
    assert not wrong, f"{len(wrong)} messages differ, e.g. {wrong[:3]}; " \
        "run python scripts/build_translations.py"


def test_lrelease_is_reproducible(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_translations
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    first, second = tmp_path / "a.qm", tmp_path / "b.qm"
    build_translations.lrelease(TS, first)
    build_translations.lrelease(TS, second)
    assert first.read_bytes() == second.read_bytes()
    # The .ts holds exactly the strings lupdate finds in the code today.
    fresh = tmp_path / TS.name
    fresh.write_bytes(TS.read_bytes())
    build_translations.lupdate(fresh)
    keys = {(c, s) for c, s, _, _ in catalogue()}
    fresh_root = ET.parse(fresh).getroot()
    found = {(ctx.findtext("name"), m.findtext("source"))
             for ctx in fresh_root.iter("context") for m in ctx.iter("message")}
    assert found == keys, f"new: {found - keys}; gone: {keys - found}"


def _tr_calls() -> list[tuple[Path, int, str | None, ast.Call]]:
    """Every ``tr(...)`` call in gui/ with the class it is in (f-strings included: lupdate does
    not look inside them, which is exactly what this test catches)."""
    calls = []

    def walk(node: ast.AST, cls: str | None, path: Path) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.ClassDef) else cls
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr == "tr":
                calls.append((path, child.lineno, cls, child))
            walk(child, inner, path)

    for path in sorted(GUI.rglob("*.py")):
        walk(ast.parse(path.read_text(encoding="utf-8")), None, path)
    return calls


def _noop_contexts(path: Path) -> set[str]:
    """The QT_TRANSLATE_NOOP contexts of ``path`` and of the GUI modules it imports names from
    (a page's texts may live in a module of their own, e.g. wizard_texts.py)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    contexts = {node.args[0].value for node in ast.walk(tree)
                if isinstance(node, ast.Call)
                and getattr(node.func, "id", "") == "QT_TRANSLATE_NOOP"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torchrig.gui."):
            source = GUI.joinpath(*node.module.split(".")[2:]).with_suffix(".py")
            if source.is_file() and source != path:
                imported = ast.parse(source.read_text(encoding="utf-8"))
                contexts |= {n.args[0].value for n in ast.walk(imported)
                             if isinstance(n, ast.Call)
                             and getattr(n.func, "id", "") == "QT_TRANSLATE_NOOP"}
    return contexts


def test_every_tr_string_reaches_the_catalogue():
    keys = {(c, s) for c, s, _, _ in catalogue()}
    problems = []
    for path, line, cls, call in _tr_calls():
        where = f"{path.relative_to(ROOT)}:{line}"
        if cls is None:
            problems.append(f"{where}: tr() outside a class has no context")
            continue
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            if (cls, arg.value) not in keys:
                problems.append(f"{where}: {arg.value!r} is not in the catalogue (inside an "
                                "f-string? lupdate cannot see it there)")
        elif cls not in _noop_contexts(path):
            # tr(variable) is only right for texts marked QT_TRANSLATE_NOOP(<this class>, ...)
            problems.append(f"{where}: tr({ast.unparse(arg)}) without QT_TRANSLATE_NOOP "
                            f"entries for context {cls!r} in this module")
    assert not problems, "\n".join(problems)


def test_noop_contexts_name_a_class_that_translates_them():
    classes = set()
    for path in GUI.rglob("*.py"):
        classes |= {n.name for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(n, ast.ClassDef)}
    for path in GUI.rglob("*.py"):
        for context in _noop_contexts(path):
            assert context in classes or context == "Labels", (path, context)


# --- what a Chinese user sees -----------------------------------------------------------------


def visible_texts(root: QWidget) -> list[tuple[str, str]]:
    """(what, text) for the text a user can read in ``root`` and its children: labels, buttons,
    group titles, tabs, combo items, list items, table headers and cells, placeholders,
    tooltips and menus. The window title is left out (it is the product name)."""
    out: list[tuple[str, str]] = []

    def add(kind: str, text: str | None) -> None:
        if text:
            out.append((kind, text))

    for w in [root, *root.findChildren(QWidget)]:
        add("tooltip", w.toolTip())
        if isinstance(w, QLabel):
            add("label", w.text())
        elif isinstance(w, QAbstractButton):
            add("button", w.text())
        elif isinstance(w, QGroupBox):
            add("group", w.title())
        elif isinstance(w, QLineEdit):
            add("placeholder", w.placeholderText())
        elif isinstance(w, QComboBox):
            out += [("combo item", w.itemText(i)) for i in range(w.count())]
        elif isinstance(w, QListWidget):
            out += [("list item", w.item(i).text()) for i in range(w.count())]
        elif isinstance(w, QTableWidget):
            for col in range(w.columnCount()):
                item = w.horizontalHeaderItem(col)
                add("header", item.text() if item else None)
                for row in range(w.rowCount()):
                    cell = w.item(row, col)
                    add("cell", cell.text() if cell else None)
            for row in range(w.rowCount()):
                item = w.verticalHeaderItem(row)
                add("header", item.text() if item else None)
        if isinstance(w, QTabWidget):
            out += [("tab", w.tabText(i)) for i in range(w.count())]
    menu_bar = getattr(root, "menuBar", None)
    if menu_bar is not None:
        for action in menu_bar().actions():
            add("menu", action.text())
            for sub in action.menu().actions():
                add("menu item", sub.text())
                if sub.menu() is not None:
                    out += [("menu item", a.text()) for a in sub.menu().actions()]
    return out


def english_leaks(texts: list[tuple[str, str]]) -> list[str]:
    """Visible texts that are an English source string of the catalogue: they did not go
    through the translator."""
    sources = {s for _, s, _, _ in catalogue()} - SAME_IN_BOTH
    leaks = []
    for kind, text in texts:
        for candidate in {text, TAG.sub("", text).strip()}:
            if candidate in sources:
                leaks.append(f"{kind}: {candidate!r}")
    return sorted(set(leaks))


def _fill_every_page(window, qtbot, monkeypatch, answers: list[str]) -> None:
    """Put each page in a state with its dynamic text showing (a profile, a build, a plan, a
    preview), through the buttons: Refresh, Open…, Open workload…, Update preview."""
    from torchrig.hardware.model import CpuInfo, GpuInfo, MemoryInfo, SystemProfile
    from torchrig.planning.workload import load_workload

    detect(qtbot, window, monkeypatch, SystemProfile(
        cpu=CpuInfo(model_name="Test CPU", physical_cores=16),
        memory=MemoryInfo(total_bytes=64 * 2**30),
        gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vram_total_bytes=24 * 2**30,
                      torch_device="cuda:0")]))
    open_build(qtbot, window, answers, ROOT / "builds" / "pro-dual-4090.json")
    assert window.build_page.path == ROOT / "builds" / "pro-dual-4090.json"
    workload = ROOT / "workloads" / "bert-base-finetune-sst2.json"
    answers.append(str(workload))
    click(qtbot, button(window.wizard_page, "open_workload"))
    assert window.wizard_page.workload == load_workload(workload)
    report = window.report_page
    click(qtbot, report.preview_button)
    qtbot.waitUntil(lambda: not report.runner.running and bool(report.pdf_bytes),
                    timeout=30_000)
    qtbot.waitUntil(lambda: not window.wizard_page.planning, timeout=20_000)


def test_a_chinese_window_shows_no_english_source_text(qtbot, zh, monkeypatch, file_dialogs):
    from torchrig.gui.about_dialog import AboutDialog
    from torchrig.gui.compare_dialog import CompareDialog
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.pages.build_page import _CustomLineDialog
    from torchrig.gui.settings_dialog import SettingsDialog

    window = MainWindow(lang="zh")
    qtbot.addWidget(window)
    _fill_every_page(window, qtbot, monkeypatch, file_dialogs[0])
    assert window.nav.item(0).text() == "本机"
    texts = visible_texts(window)
    dialogs = [SettingsDialog(window.settings, window),
               AboutDialog(window.machine_page.profile, window.settings.path, window, "zh"),
               CompareDialog(window.catalog, window.build_page.build, window.settings, "zh",
                             window),
               _CustomLineDialog("CNY", "zh", window)]
    for dialog in dialogs:
        texts += visible_texts(dialog)
    assert len(texts) > 500  # the walk really saw the pages
    assert not english_leaks(texts), english_leaks(texts)
    # Qt's own strings come from Qt's catalogue.
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
    assert box.button(QDialogButtonBox.StandardButton.Cancel).text() == "取消"
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *a, **k: QMessageBox.StandardButton.Discard)
    window.close()


def test_the_walk_does_catch_english(qtbot):
    """The leak check is not vacuous: an English window is full of leaks."""
    from torchrig.gui.main_window import MainWindow

    window = MainWindow(lang="en")
    qtbot.addWidget(window)
    leaks = english_leaks(visible_texts(window))
    assert "list item: 'This machine'" in leaks and "menu: '&File'" in leaks
    window.close()


# --- choosing and switching the language ------------------------------------------------------


def test_language_setting_resolves(monkeypatch):
    from torchrig.gui import i18n

    assert i18n.resolve_language("zh") == "zh"
    assert i18n.resolve_language("en") == "en"
    monkeypatch.setattr(i18n, "system_language", lambda: "zh")
    assert i18n.resolve_language("system") == "zh"


@pytest.mark.parametrize(("env", "expected"), [("zh_CN.UTF-8", "zh"), ("zh_TW.UTF-8", "zh"),
                                               ("en_US.UTF-8", "en"), ("de_DE.UTF-8", "en")])
def test_system_language_follows_the_locale(env, expected):
    code = textwrap.dedent(
        """
        from torchrig.gui.i18n import resolve_language
        print(resolve_language("system"))
        """
    )
    env_vars = {"LANG": env, "LC_ALL": env, "LANGUAGE": "", "QT_QPA_PLATFORM": "offscreen",
                "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True, env=env_vars)
    assert out.stdout.strip() == expected, out.stderr


def test_switching_language_keeps_unsaved_work_and_the_page(shown_window, qtbot, monkeypatch):
    window = shown_window
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a) or
                        QMessageBox.StandardButton.Cancel)
    build_page = window.build_page
    go_to(qtbot, window, "build")
    add_part(qtbot, build_page, "nvidia-rtx-4090", "gpu")
    type_into_cell(qtbot, build_page.lines, 0, 3, "2")
    type_text(qtbot, build_page.name_edit, "Lab box", enter=True)
    before = build_page.build.to_dict()
    assert build_page.dirty and before["name"] == "Lab box"
    assert before["line_items"][0]["quantity"] == 2
    batch = window.wizard_page.widgets["batch_size"]
    type_text(qtbot, batch, "12x")  # not a number yet: the user is still typing
    qtbot.waitUntil(lambda: "'12x' is not a number" in window.wizard_page.errors[
        "batch_size"].text(), timeout=5_000)
    type_text(qtbot, window.report_page.number_edit, "Q-7")
    go_to(qtbot, window, "wizard")

    menu_action(window, "Settings", "Language", "中文（简体）").trigger()

    assert window.lang == "zh" and window.rebuilds == 1
    assert [window.nav.item(i).text() for i in range(window.nav.count())] == \
        ["本机", "目标档位", "配置单", "需求向导", "性能测试", "报告"]
    assert window.build_page is not build_page  # rebuilt, not patched
    assert window.build_page.build.to_dict() == before
    assert window.build_page.dirty and window.build_page.name_edit.text() == "Lab box"
    assert window.wizard_page.widgets["batch_size"].text() == "12x"
    assert "不是数字" in window.wizard_page.errors["batch_size"].text()
    assert window.report_page.number_edit.text() == "Q-7"
    assert window.report_page.build.to_dict() == before
    assert window.current_page() == "wizard"
    assert window.menuBar().actions()[0].text() == "文件(&F)"
    assert not asked  # nothing was asked: no work was at risk

    menu_action(window, "设置", "语言", "English").trigger()
    assert window.nav.item(0).text() == "This machine"
    assert window.build_page.build.to_dict() == before


def test_a_language_switch_waits_for_a_running_task(window, qtbot, monkeypatch):
    import threading

    from torchrig.bench.process import isolated
    from torchrig.bench.report import BenchReport

    started = threading.Event()

    def suite(settings, *, cancel, **_kwargs):  # in place of the benchmark child process
        started.set()
        cancel.wait(10)
        return BenchReport(settings=settings.to_dict(), started="2026-01-01T00:00:00+00:00",
                           cancelled=True)

    monkeypatch.setattr(isolated, "run_isolated", suite)
    click(qtbot, window.bench_page.run_button)
    assert started.wait(10)
    menu_action(window, "Settings", "Language", "中文（简体）").trigger()
    assert window.lang == "en" and window.rebuilds == 0  # the benchmark keeps its page
    assert "when the running task finishes" in window.statusBar().currentMessage()
    click(qtbot, window.bench_page.cancel_button)
    qtbot.waitUntil(lambda: window.lang == "zh", timeout=5_000)
    assert window.nav.item(0).text() == "本机"


# internals: a bare spin box, no page - the locale the language installs, read directly
def test_internals_numbers_follow_the_ui_language(qapp, zh):
    """Spin boxes parse and print with the UI language's locale, like the tables do."""
    from torchrig.gui.i18n import apply_language
    from torchrig.gui.qt import QDoubleSpinBox, QLocale

    assert QLocale().name() == "zh_CN"
    spin = QDoubleSpinBox()
    spin.setRange(0, 1e6)
    spin.setValue(7123.5)
    # A decimal point, as in the tables and the price parser (a de_DE desktop would otherwise
    # show and expect "7123,50").
    assert spin.locale().name() == "zh_CN" and spin.text() == "7123.50"
    apply_language("en")
    assert QLocale().name() == "en_US"
