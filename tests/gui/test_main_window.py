from __future__ import annotations

import subprocess
import sys
import textwrap

from gui_gestures import click, detect

from torchrig.gui.qt import QApplication, QLabel
from torchrig.hardware.model import CpuInfo, GpuInfo, MemoryInfo, SystemProfile
from torchrig.i18n import Msg


def test_window_has_title_and_all_pages(window):
    assert window.windowTitle() == "TorchRig"
    assert list(window.pages) == ["machine", "targets", "build", "wizard", "bench", "report"]
    assert window.nav.count() == 6


def test_machine_page_fills_in_from_real_detection(qtbot, window):
    page = window.machine_page
    assert not page.copy_json_button.isEnabled()  # nothing detected yet
    profile = detect(qtbot, window)  # the Refresh button, real detection
    assert profile is not None
    texts = [label.text() for label in page.findChildren(QLabel)]
    assert any("Physical cores" in t for t in texts)
    assert any("GiB" in t for t in texts)  # memory is shown with an explicit binary unit
    click(qtbot, page.copy_json_button)
    copied = QApplication.clipboard().text()
    assert '"format": "torchrig.system-profile"' in copied
    assert f'"logical_cpus": {profile.cpu.logical_cpus}' in copied
    click(qtbot, page.copy_text_button)
    assert "== CPU ==" in QApplication.clipboard().text()


def test_unknown_fields_show_their_reason(qtbot, window, monkeypatch):
    profile = SystemProfile(
        cpu=CpuInfo(model_name="测试 CPU", unknown={
            "max_freq_hz": Msg("not exposed (container)", "未提供（容器）")}),
        memory=MemoryInfo(total_bytes=16 * 2**30,
                          unknown={"dimm_type": Msg("needs root", "需要 root 权限")}),
        gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vram_total_bytes=24 * 2**30,
                      unknown={"pcie_gen_current": Msg.verbatim("NVML: Not Supported")})],
        probe_errors={"storage": "PermissionError: /sys"},
    )
    detect(qtbot, window, monkeypatch, profile)  # what detection found on such a machine
    texts = [label.text() for label in window.machine_page.findChildren(QLabel)]
    assert "unknown (not exposed (container))" in texts
    assert "unknown (NVML: Not Supported)" in texts
    assert "测试 CPU" in texts
    assert "storage" in window.machine_page.status.text()


# --- internals: how the app starts (run_gui's calls, no user gesture) ------------------------


def test_window_appears_before_torch_is_imported():
    """torch is heavy: the first window and detection must not import it."""
    code = textwrap.dedent(
        """
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from torchrig.gui.app import create_app
        from torchrig.gui.main_window import MainWindow
        app = create_app(sys.argv)
        win = MainWindow()
        win.show()
        app.processEvents()
        assert win.isVisible()
        shown_with_torch = "torch" in sys.modules
        done = []
        win.machine_page.profile_changed.connect(lambda p: done.append(p))
        win.start()
        import time
        deadline = time.monotonic() + 20
        while not done and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        win.close()
        print(shown_with_torch, bool(done), "torch" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.split() == ["False", "True", "False"], out.stdout + out.stderr


def test_internals_the_app_paints_first_and_builds_the_other_pages_after(qtbot):
    """How run_gui starts: This machine at once; the catalog pages once one is chosen (the
    nav click below; tests/gui/test_app27_lazy_pages.py covers the other ways in)."""
    from gui_gestures import go_to

    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.pages.placeholder import PlaceholderPage

    win = MainWindow(pages_later=True)
    qtbot.addWidget(win)
    assert isinstance(win.pages["build"], PlaceholderPage)
    win.start_after_first_paint()
    win.show()
    qtbot.waitUntil(lambda: win.machine_page.profile is not None, timeout=120_000)
    assert isinstance(win.pages["build"], PlaceholderPage)  # detected; nothing chose a page
    go_to(qtbot, win, "build")
    assert not isinstance(win.pages["build"], PlaceholderPage)
    assert win.page_host("build").widget() is win.build_page
    qtbot.waitUntil(lambda: win.machine_page.profile is not None, timeout=120_000)
    qtbot.waitUntil(lambda: win.targets_page.table.rowCount() == 7, timeout=60_000)
    win.close()


def test_internals_the_collector_freezes_once_and_a_rebuild_thaws(monkeypatch):
    """gc_thread's first tick freezes the start-up objects without a full collection (which
    held the GUI thread 75-105 ms), later ones collect what was made since; a page rebuild
    (language switch) thaws, and the next tick collects in full so the old pages go."""
    import gc

    from torchrig.gui import gc_thread

    calls: list[str] = []
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
    monkeypatch.setitem(gc_thread._state, "frozen", False)
    monkeypatch.setitem(gc_thread._state, "thawed", False)
    gc_thread._collect()
    gc_thread._collect()
    assert calls == ["freeze", "collect"]
    gc_thread.thaw()
    gc_thread._collect()
    assert calls[2:] == ["unfreeze", "collect", "freeze"]
