"""The Wizard's "Measure my model…": a file picker for the user's own factory, the function
named in the box beside it, the run in the child process, and the source in the notes."""

from __future__ import annotations

import textwrap

import pytest
from gui_gestures import click, go_to, show_tab_of

from torchrig.planning.workload import save_workload, workload_from_options

FACTORY = textwrap.dedent('''
    import torch
    from torch import nn

    def build_net():
        torch.manual_seed(0)
        return nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 64), nn.ReLU(),
                             nn.Linear(64, 10))
    ''')


def show_panel(window, qtbot, file_dialogs, tmp_path):
    page = window.wizard_page
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    show_tab_of(qtbot, page.result_tabs, page.verify_panel)
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=10_000)
    path = tmp_path / "w.json"
    save_workload(workload_from_options(task="image_classification", model="custom",
                                        params=197_322, image_size=16, batch=4,
                                        precision="fp32", optimizer="sgd"), path)
    file_dialogs[0].append(str(path))
    from gui_gestures import button

    click(qtbot, button(page, "open_workload"))
    qtbot.waitUntil(lambda: page.verify_panel.workload == page.workload, timeout=10_000)
    return page, page.verify_panel


def type_function(qtbot, panel, name):
    panel.factory_function.clear()
    qtbot.keyClicks(panel.factory_function, name)


@pytest.mark.slow
def test_measure_my_model_runs_the_picked_factory_in_the_child(window, qtbot, file_dialogs,
                                                               tmp_path):
    pytest.importorskip("torch")
    page, panel = show_panel(window, qtbot, file_dialogs, tmp_path)
    factory = tmp_path / "net.py"
    factory.write_text(FACTORY)
    type_function(qtbot, panel, "build_net")
    file_dialogs[0].append(str(factory))
    with qtbot.waitSignal(panel.result_ready, timeout=240_000) as blocker:
        click(qtbot, panel.factory_button)
    assert file_dialogs[1][-1] == "Your model's Python file"
    result = blocker.args[0]
    qtbot.waitUntil(lambda: not panel.runner.running, timeout=10_000)
    assert result.source == {"kind": "factory", "label": f"factory {factory}:build_net",
                             "fallback": None}
    assert f"Model source: factory {factory}:build_net" in panel.notes.text()
    # 3*16*16*64 + 64 + 64*10 + 10 = 49,866 parameters, fp32: the weights row
    assert result.row("weights").measured == 49_866 * 4
    assert panel.table.item(0, 0).text() == "Weights"
    assert panel.factory_button.isEnabled() and panel.measure_button.isEnabled()


def test_a_function_name_that_is_not_one_is_shown_and_nothing_runs(window, qtbot,
                                                                   file_dialogs, tmp_path,
                                                                   monkeypatch):
    import torchrig.gui.verify_panel as vp

    calls = []
    monkeypatch.setattr(vp, "_measure_here", lambda *a: calls.append(a))
    _page, panel = show_panel(window, qtbot, file_dialogs, tmp_path)
    type_function(qtbot, panel, "not a name")
    click(qtbot, panel.factory_button)
    assert "function that returns your model" in panel.status.text()
    assert not panel.runner.running and calls == []
    assert file_dialogs[1] == ["Open workload"]  # no second file dialog was opened


def test_cancelling_the_file_picker_runs_nothing(window, qtbot, file_dialogs, tmp_path,
                                                 monkeypatch):
    import torchrig.gui.verify_panel as vp

    calls = []
    monkeypatch.setattr(vp, "_measure_here", lambda *a: calls.append(a))
    _page, panel = show_panel(window, qtbot, file_dialogs, tmp_path)
    file_dialogs[0].append("")  # Cancel
    click(qtbot, panel.factory_button)
    assert file_dialogs[1] == ["Open workload", "Your model's Python file"]
    assert not panel.runner.running and calls == []


def test_a_failing_factory_shows_its_error(window, qtbot, file_dialogs, tmp_path):
    pytest.importorskip("torch")
    _page, panel = show_panel(window, qtbot, file_dialogs, tmp_path)
    factory = tmp_path / "bad.py"
    factory.write_text("def make_model():\n    raise ValueError('weights missing')\n")
    file_dialogs[0].append(str(factory))
    click(qtbot, panel.factory_button)
    qtbot.waitUntil(lambda: not panel.runner.running, timeout=240_000)
    assert "ValueError: weights missing" in panel.status.text()
    assert panel.result is None
