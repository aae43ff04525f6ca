"""The Build page's start-up offer of the unsaved builds a crash left behind.

Every damaged copy is announced before any build is offered, in one message listing why each
could not be read and where it was kept (builds/recovery.py moves it aside, never deletes it):
offering the first build and stopping once it is taken left the others unmentioned, though
they had already been moved out of the recovery folder and would not be found again. The
texts are the Build page's (translation context ``BuildPage``).
"""

from __future__ import annotations

from collections.abc import Callable

from torchrig.builds.build_editor import BuildEditor
from torchrig.builds.recovery import Recovered
from torchrig.gui.qt import QCoreApplication, QMessageBox, QWidget


def offer_recovery(parent: QWidget, editor: BuildEditor,
                   take: Callable[[Recovered], None]) -> bool:
    """Announce the damaged copies, then offer each build that can be opened until the user
    takes one (``take`` makes it the document); True when one was taken."""
    title = QCoreApplication.translate("BuildPage", "Recover unsaved build")
    yes, no = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
    found_all = editor.recoveries()
    damaged = [found for found in found_all if found.damaged]
    # A single damaged copy with something to open is told in its own question.
    told_apart = len(damaged) > 1 or any(found.build is None for found in damaged)
    if told_apart:
        QMessageBox.warning(parent, title, damaged_copies_text(damaged))
    for found in found_all:
        if found.build is None:
            continue
        if found.damaged:
            count = len(found.build.line_items)
            if count == 1:
                question = QCoreApplication.translate("BuildPage",
                                                      "Open what could be read (1 line)?")
            else:
                question = QCoreApplication.translate(
                    "BuildPage", "Open what could be read ({0} lines)?").format(count)
            if told_apart:
                text = QCoreApplication.translate(
                    "BuildPage", "Of the damaged copy kept as {0}:").format(found.moved_to)
            else:
                text = damaged_copies_text([found])
            # Kept where it was moved, whatever the answer: it is the user's data.
            if QMessageBox.question(parent, title, f"{text}\n\n{question}", yes | no) != yes:
                continue
        else:
            answer = QMessageBox.question(parent, title, QCoreApplication.translate(
                "BuildPage", "TorchRig did not close cleanly. Recover the unsaved build “{0}”?")
                .format(found.build.name), yes | no)
            if answer != yes:
                editor.decline(found)
                continue
        take(found)
        return True
    return False


def damaged_copies_text(damaged: list[Recovered]) -> str:
    """Why each damaged copy could not be read and where it was kept."""
    if len(damaged) == 1:
        return QCoreApplication.translate(
            "BuildPage", "TorchRig did not close cleanly, and the copy of the unsaved build "
            "could not be read:\n{0}\n\nIt was kept as {1}.").format(damaged[0].problem,
                                                                   damaged[0].moved_to)
    items = "\n\n".join(QCoreApplication.translate("BuildPage", "• {0}\n  kept as {1}")
                         .format(found.problem, found.moved_to) for found in damaged)
    return QCoreApplication.translate(
        "BuildPage", "TorchRig did not close cleanly, and {0} copies of unsaved builds could "
        "not be read. Each was kept:").format(len(damaged)) + "\n\n" + items
