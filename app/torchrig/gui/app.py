"""Start the GUI: application identity, the main window, then background work.

torch is never imported on this path: the window must appear before any heavy import.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from torchrig import APP_ID, __version__

GUI_SWITCH_INTERVAL_S = 0.0005


def create_app(argv: Sequence[str]) -> object:
    from torchrig.gui.qt import QApplication, QGuiApplication, QIcon

    app = QApplication.instance() or QApplication(list(argv))
    from torchrig.gui.gc_thread import collect_on_gui_thread

    collect_on_gui_thread(app)
    # Worker threads (detection, planning, the PDF) run Python while the GUI thread waits for
    # the interpreter lock at each of its many short callbacks; at the default 5 ms switch
    # interval those waits add up to 50-200 ms stalls (measured with
    # benchmarks/bench_gui_responsiveness.py). A 0.5 ms interval hands the lock back sooner.
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    # Names used by QStandardPaths and the platform (window grouping, the .desktop file).
    QApplication.setOrganizationName("TorchRig")
    QApplication.setApplicationName("TorchRig")
    QApplication.setApplicationVersion(__version__)
    QGuiApplication.setDesktopFileName(APP_ID)
    from torchrig.resources import app_icon_path

    icon = app_icon_path()
    if icon is not None:
        QApplication.setWindowIcon(QIcon(str(icon)))
    return app


def run_gui(argv: Sequence[str] | None = None) -> int:
    from torchrig.gui import crash
    from torchrig.gui.i18n import apply_language, resolve_language
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.settings import Settings
    from torchrig.gui.theme import apply_theme

    crash.install()  # an exception in a slot: logged, shown, and the app keeps running
    app = create_app(argv if argv is not None else sys.argv)
    settings = Settings()
    lang = resolve_language(settings.language)
    apply_language(lang)  # before any widget exists, so every string is built translated
    apply_theme(settings.theme)
    window = MainWindow(lang=lang, settings=settings, pages_later=True)
    # The other pages, detection and crash recovery once the window has painted.
    window.start_after_first_paint()
    window.show()
    return int(app.exec())  # type: ignore[attr-defined]
