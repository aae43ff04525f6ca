"""Start the GUI: application identity, the main window, then background work.

torch is never imported on this path: the window must appear before any heavy import.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from torchrig import APP_ID, __version__


def create_app(argv: Sequence[str]) -> object:
    from torchrig.gui.qt import QApplication, QGuiApplication, QIcon

    app = QApplication.instance() or QApplication(list(argv))
    # Set before the first QSettings is created so settings land in the right place.
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
    from torchrig.gui.main_window import MainWindow
    from torchrig.gui.qt import QTimer

    from torchrig.gui import crash

    crash.install()  # an exception in a slot: logged, shown, and the app keeps running
    app = create_app(argv if argv is not None else sys.argv)
    window = MainWindow()
    window.show()
    # Detection starts once the event loop has painted the window.
    QTimer.singleShot(0, window.start)
    return int(app.exec())  # type: ignore[attr-defined]
