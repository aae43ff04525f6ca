"""Work moved off the GUI thread's long stretches (issue 27), tested for behaviour, not time:
the Wizard waits for a pause in typing and still ends on the plan of the last keystroke; This
machine adds its cards one per event-loop turn and says the profile changed once they are all
there, and a newer profile replaces one still being shown."""

from __future__ import annotations

from gui_gestures import detect

from torchrig.gui.qt import QLabel, Qt
from torchrig.hardware.model import CpuInfo, GpuInfo, MemoryInfo, SystemProfile
from torchrig.hardware.sections import profile_sections


def test_the_wizard_plans_the_last_keystroke_of_a_typed_number(window, qtbot):
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.analysis is not None, timeout=5_000)  # planned after paint
    field = page.widgets["batch_size"]
    field.setFocus()
    field.selectAll()
    for key in "128":  # one key at a time, the event loop running in between
        qtbot.keyClick(field, key)
        assert page.planning  # a re-plan is due for what was typed
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.workload.batch_size == 128
    assert page.analysis.requirements.workload.batch_size == 128
    # Backspace is a keystroke too: the plan follows it to 12.
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: not page.planning, timeout=20_000)
    assert page.analysis.requirements.workload.batch_size == 12


def _profile(gpus: int) -> SystemProfile:
    return SystemProfile(
        cpu=CpuInfo(model_name="Test CPU"),
        memory=MemoryInfo(total_bytes=64 * 2**30),
        gpus=[GpuInfo(index=i, name="NVIDIA GeForce RTX 4090", vram_total_bytes=24 * 2**30)
              for i in range(gpus)])


def _card_titles(page) -> list[str]:
    """The title (first label) of each card in This machine's grid."""
    cards = [page._cards.itemAt(i).widget() for i in range(page._cards.count())]
    return [card.findChildren(QLabel)[0].text() for card in cards]


def test_every_card_is_there_when_the_profile_is_announced(window, qtbot, monkeypatch):
    profile = _profile(gpus=2)
    expected = [section.title for section in profile_sections(profile, "en")]
    page = window.machine_page
    seen: list[list[str]] = []
    page.profile_changed.connect(lambda _p: seen.append(_card_titles(page)))
    detect(qtbot, window, monkeypatch, profile)  # the Refresh button, detection patched
    assert seen == [expected]


def test_a_newer_profile_replaces_one_still_being_shown(window, qtbot):
    page = window.machine_page
    announced: list[SystemProfile] = []
    page.profile_changed.connect(announced.append)
    one, two = _profile(gpus=1), _profile(gpus=3)
    page.set_profile(one)  # its cards are being added, one per turn
    page.set_profile(two)  # before the first has finished
    qtbot.waitUntil(lambda: bool(announced), timeout=5_000)
    qtbot.wait(50)  # the first profile's remaining turns, were any left to run
    assert announced == [two]
    assert _card_titles(page) == [section.title for section in profile_sections(two, "en")]
