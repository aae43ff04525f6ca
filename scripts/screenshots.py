"""Take screenshots of every page of the real window, and of the Settings and About dialogs
(README images, and a visual check of translations and themes).

Runs the real app on an X server: under Xvfb when no display is set
(``xvfb-run -a -s "-screen 0 1920x1200x24" python scripts/screenshots.py``; ``./dev screenshots``
does this). Pictures land in docs/screenshots/ (or the folder given as the first argument).

Options: ``--lang zh|en`` (default en), ``--theme light|dark|system`` (default system),
``--no-bench`` (skip the real benchmark run), ``--size WxH`` (default 1360x860). The window
uses a temporary settings folder, so your own settings are neither used nor changed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _reexec_under_xvfb() -> None:
    if os.environ.get("DISPLAY") or os.environ.get("TORCHRIG_SCREENSHOT_CHILD"):
        return
    xvfb = shutil.which("xvfb-run")
    if xvfb is None:
        sys.exit("no DISPLAY and no xvfb-run: install xvfb (Debian: apt-get install xvfb)")
    env = dict(os.environ, TORCHRIG_SCREENSHOT_CHILD="1")
    cmd = [xvfb, "-a", "-s", "-screen 0 1920x1200x24", sys.executable, *sys.argv]
    sys.exit(subprocess.call(cmd, env=env))


def _wait(app, condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.02)
    for _ in range(20):
        app.processEvents()


def _pause(app, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    _wait(app, lambda: time.monotonic() > deadline, seconds + 1)


def _run_benchmark(app, page, out: Path) -> None:
    """The quick suite for real, started by clicking Run as a user does (click() emits the
    same clicked(checked) signal): one picture mid-run, then the page with the results."""
    page.run_button.click()
    _wait(app, lambda: page.table.rowCount() >= 6, 120)
    page.window().grab().save(str(out / "bench-running.png"))
    _wait(app, lambda: not page.runner.running, 180)


def _shoot_picker(app, build_page, out: Path) -> None:
    """The Build page's catalog picker with filters set: GPUs with at least 16 GiB, cheapest
    dense FP16 tensor TFLOP first, only parts that fit the open build."""
    picker = build_page.picker
    picker.category_box.setCurrentIndex(picker.category_box.findData("gpu"))
    picker.range_box.setCurrentIndex(picker.range_box.findData("vram"))
    picker.min_edit.setText("16")
    picker.sort_box.setCurrentIndex(picker.sort_box.findData("price_per_tflop"))
    _wait(app, lambda: True, 0.5)
    picker.grab().save(str(out / "picker.png"))
    print(out / "picker.png")


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Screenshots of every page and dialog.")
    parser.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--theme", choices=("system", "light", "dark"), default="system")
    parser.add_argument("--no-bench", action="store_true", help="skip the real benchmark run")
    parser.add_argument("--size", default="1360x860", metavar="WxH",
                        help="window size (check small screens: 1280x720, 1024x700)")
    return parser.parse_args()


def _grab_dialog(app, dialog, path: Path) -> None:
    dialog.show()
    _wait(app, lambda: True, 0.3)
    dialog.grab().save(str(path))
    print(path)
    dialog.close()


def main() -> int:
    _reexec_under_xvfb()
    args = _parse_args()
    with tempfile.TemporaryDirectory(prefix="torchrig-shots-") as config:
        os.environ["TORCHRIG_CONFIG_DIR"] = config
        return _shoot(args, args.out)


def _shoot(args: argparse.Namespace, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
    from torchrig.gui.about_dialog import AboutDialog
    from torchrig.gui.app import create_app
    from torchrig.gui.i18n import apply_language
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.settings_dialog import SettingsDialog
    from torchrig.gui.theme import apply_theme

    app = create_app(sys.argv)
    apply_language(args.lang)
    apply_theme(args.theme)
    window = MainWindow(lang=args.lang)
    width, height = (int(v) for v in args.size.lower().split("x"))
    window.resize(width, height)
    window.show()
    window.start()
    _wait(app, lambda: window.machine_page.profile is not None, 20)
    build_page = window.pages.get("build")
    if hasattr(build_page, "open_path"):
        build_page.open_path(ROOT / "builds" / "pro-dual-4090.json")
    wizard = window.pages.get("wizard")
    if hasattr(wizard, "open_path"):
        wizard.open_path(ROOT / "workloads" / "bert-base-finetune-sst2.json")
        wizard.subject_box.setCurrentIndex(wizard.subject_box.findData("build"))
        _wait(app, lambda: not wizard.planning, 20)  # plans run on a worker thread
    for key in window.pages:
        window.show_page(key)
        if key == "bench" and not args.no_bench:
            _run_benchmark(app, window.pages[key], out)
        if key == "report" and hasattr(window.pages[key], "render_preview"):
            window.pages[key].render_preview()
            # QPdfView renders pages on a background thread: give it time to paint.
            _pause(app, 3.0)
        _wait(app, lambda: True, 0.5)
        path = out / f"{key}.png"
        window.grab().save(str(path))
        print(path)
        if key == "build" and hasattr(window.pages[key], "picker"):
            _shoot_picker(app, window.pages[key], out)
    if hasattr(wizard, "apply_buttons"):
        # The sizing solver's answer: Llama-2-7B LoRA on the professional tier's RTX 4090.
        window.show_page("wizard")
        wizard.subject_box.setCurrentIndex(wizard.subject_box.findData("tier:professional"))
        wizard.open_path(ROOT / "workloads" / "llama2-7b-lora.json")
        _wait(app, lambda: not wizard.planning, 20)
        _wait(app, lambda: True, 0.5)
        window.grab().save(str(out / "wizard-solver.png"))
        print(out / "wizard-solver.png")
    _grab_dialog(app, SettingsDialog(window.settings, window), out / "settings-dialog.png")
    _grab_dialog(app, AboutDialog(window.machine_page.profile, window.settings.path, window),
                 out / "about-dialog.png")
    build_page = window.pages.get("build")
    if hasattr(build_page, "dirty"):
        build_page.dirty = False  # the sample build was only opened for the pictures
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
