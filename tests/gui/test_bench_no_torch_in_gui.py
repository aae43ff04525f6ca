"""torch is loaded only in child processes (the benchmark, the plan check), never in the
window's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys, time
    from torchrig.gui.app import create_app
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.qt import Qt
    from PySide6.QtTest import QTest

    app = create_app(sys.argv[:1])
    window = MainWindow()
    page = window.bench_page
    page.preset_box.setCurrentIndex(page.preset_box.findData("smoke"))
    done = []
    page.report_ready.connect(done.append)
    QTest.mouseClick(page.run_button, Qt.MouseButton.LeftButton)
    deadline = time.monotonic() + 240
    while not (done and not page.runner.running) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    window.build_page.dirty = False
    window.close()
    measured = sum(len(r.measurements) for r in done[0].results) if done else 0
    print(f"measured={measured} torch_loaded={'torch' in sys.modules}")
""")


def _run_window_script(script: str, tmp_path) -> dict[str, str]:
    """Run ``script`` in a fresh Python (a window of its own) and read the ``key=value``
    words of its last output line."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TORCHRIG_DATA_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                         text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    line = out.stdout.strip().splitlines()[-1]
    return dict(part.split("=", 1) for part in line.split())


@pytest.mark.slow
def test_a_whole_run_from_the_run_button_never_loads_torch_in_the_window(tmp_path):
    seen = _run_window_script(SCRIPT, tmp_path)
    assert int(seen["measured"]) > 0
    assert seen["torch_loaded"] == "False"


MEASURE_SCRIPT = textwrap.dedent("""
    import sys, time
    from torchrig.gui.app import create_app
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.qt import Qt
    from torchrig.gui.qt import QFileDialog, QPushButton
    from torchrig.planning.workload import save_workload, workload_from_options
    from PySide6.QtTest import QTest

    app = create_app(sys.argv[:1])
    window = MainWindow()
    wizard = window.wizard_page
    # The workload a user opens with "Open workload…" (the file dialog answered).
    path = sys.argv[1] + "/tiny.json"
    save_workload(workload_from_options(
        task="nlp_transformer", mode="train", model="custom", style="gpt", layers=2,
        hidden=64, heads=4, vocab=200, ffn=128, seq_len=16, batch=2, precision="fp32"), path)
    QFileDialog.getOpenFileName = lambda *a, **k: (path, "")
    QTest.mouseClick(wizard.findChild(QPushButton, "open_workload"), Qt.MouseButton.LeftButton)
    assert wizard.workload.layers == 2
    panel = wizard.verify_panel
    done = []
    panel.result_ready.connect(done.append)
    QTest.mouseClick(panel.measure_button, Qt.MouseButton.LeftButton)
    deadline = time.monotonic() + 240
    while not (done and not panel.runner.running) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    window.build_page.dirty = False
    window.close()
    rows = len(done[0].rows) if done else 0
    print(f"rows={rows} torch_loaded={'torch' in sys.modules}")
""")


@pytest.mark.slow
def test_measuring_the_plan_from_the_wizard_never_loads_torch_in_the_window(tmp_path):
    seen = _run_window_script(MEASURE_SCRIPT, tmp_path)
    assert int(seen["rows"]) > 0
    assert seen["torch_loaded"] == "False"
