"""The Wizard's time target, currency, exchange rate and GPU-hour price: typed into its fields
as a person would, and checked against what ``torchrig plan --recommend`` computes from the same
terms (the core's advise())."""

from __future__ import annotations

from decimal import Decimal

import pytest

from torchrig.catalog import load_catalog
from torchrig.gui.qt import Qt
from torchrig.gui.settings import Settings
from torchrig.planning.advice import advise
from torchrig.units import fmt_money, fmt_seconds

A100 = "nvidia-a100-80gb-sxm"


@pytest.fixture
def wizard(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    window.show_page("wizard")
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.recommendation.text() != "", timeout=10_000)
    return page


def _type(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClicks(edit, text)


def test_time_target_and_prices_feed_the_recommendation(wizard, qtbot):
    page = wizard
    _type(qtbot, page.time_target_edit, "30")
    target = 30 * 3600.0
    qtbot.waitUntil(lambda: f"(target {fmt_seconds(target)})" in page.recommendation.text(),
                    timeout=10_000)
    expected = advise(page.workload, load_catalog(), time_target_s=target)
    assert expected.recommendation.tier.name.en in page.recommendation.text()

    page.currency_box.setCurrentIndex(page.currency_box.findData("CNY"))
    _type(qtbot, page.rate_edit, "7.1")
    page.hourly_gpu_box.setCurrentIndex(page.hourly_gpu_box.findData(A100))
    _type(qtbot, page.hourly_price_edit, "12.5")
    advice = advise(page.workload, load_catalog(), "CNY", Decimal("7.1"),
                    {A100: Decimal("12.5")}, target)
    a100 = next(o for o in advice.options if o.part.id == A100)
    cost = fmt_money(float(a100.cost_per_epoch), "CNY")
    qtbot.waitUntil(lambda: cost in page.recommendation.text(), timeout=10_000)
    assert f"At your price, {a100.part.name}: {cost} per epoch" in page.recommendation.text()
    best = next(o for o in advice.options if o.part.id == advice.recommendation.gpu.id)
    assert f"{best.part.name}: {fmt_money(float(best.price), 'CNY')} per GPU" in \
        page.recommendation.text()

    # A target no tier can meet says so, and nonsense is named under the fields.
    _type(qtbot, page.time_target_edit, "0.001")
    qtbot.waitUntil(lambda: "No tier finishes within" in page.recommendation.text(),
                    timeout=10_000)
    _type(qtbot, page.time_target_edit, "-2")
    qtbot.waitUntil(lambda: page.money_error.isVisible(), timeout=10_000)
    assert "Time target" in page.money_error.text()
    _type(qtbot, page.time_target_edit, "")
    qtbot.waitUntil(lambda: not page.money_error.isVisible(), timeout=10_000)
    assert "(target" not in page.recommendation.text()


def test_the_exchange_rate_starts_at_the_settings_default(qtbot, tmp_path):
    from torchrig.gui.main_window import MainWindow

    settings = Settings(tmp_path / "settings.json")
    settings.exchange_rate = 7.25
    settings.exchange_rate_date = "2026-11-30"
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    assert window.wizard_page.rate_edit.text() == "7.25"
    # A new default in Settings replaces the one shown, not a rate the user typed.
    dialog = window.settings_dialog()
    qtbot.addWidget(dialog)
    dialog.rate_spin.setValue(7.3)
    with qtbot.waitSignal(dialog.applied):
        assert dialog.apply()
    assert window.wizard_page.rate_edit.text() == "7.3"
    _type(qtbot, window.wizard_page.rate_edit, "6.9")
    dialog = window.settings_dialog()
    qtbot.addWidget(dialog)
    dialog.rate_spin.setValue(7.4)
    with qtbot.waitSignal(dialog.applied):
        assert dialog.apply()
    assert window.wizard_page.rate_edit.text() == "6.9"
    window.close()


def test_the_terms_survive_a_language_switch(wizard, window, qtbot):
    page = wizard
    _type(qtbot, page.time_target_edit, "30")
    page.currency_box.setCurrentIndex(page.currency_box.findData("CNY"))
    _type(qtbot, page.rate_edit, "7.1")
    page.hourly_gpu_box.setCurrentIndex(page.hourly_gpu_box.findData(A100))
    _type(qtbot, page.hourly_price_edit, "12.5")
    window.settings.language = "zh"
    window.apply_settings()
    rebuilt = window.wizard_page
    assert rebuilt is not page
    assert rebuilt.time_target_edit.text() == "30" and rebuilt.rate_edit.text() == "7.1"
    assert rebuilt.currency_box.currentData() == "CNY"
    assert rebuilt.hourly_gpu_box.currentData() == A100
    assert rebuilt.hourly_price_edit.text() == "12.5"
    qtbot.waitUntil(lambda: "按你的价格" in rebuilt.recommendation.text(), timeout=10_000)
