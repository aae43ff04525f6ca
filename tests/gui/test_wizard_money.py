"""The Wizard's time target, currency, exchange rate and GPU-hour price: typed into its fields
as a person would, and checked against what ``torchrig plan --recommend`` computes from the same
terms (the core's advise())."""

from __future__ import annotations

from decimal import Decimal

import pytest
from gui_gestures import answer_modal, choose, click, go_to, menu_action, type_text

from torchrig.catalog import load_catalog
from torchrig.gui.qt import QDialogButtonBox
from torchrig.gui.settings import Settings
from torchrig.planning.advice import advise
from torchrig.units import fmt_money, fmt_seconds

A100 = "nvidia-a100-80gb-sxm"


@pytest.fixture
def wizard(window, qtbot):
    window.show()
    qtbot.waitExposed(window)
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    qtbot.waitUntil(lambda: page.recommendation.text() != "", timeout=10_000)
    return page


def test_time_target_and_prices_feed_the_recommendation(wizard, qtbot):
    page = wizard
    type_text(qtbot, page.time_target_edit, "30")
    target = 30 * 3600.0
    qtbot.waitUntil(lambda: f"(target {fmt_seconds(target)})" in page.recommendation.text(),
                    timeout=10_000)
    expected = advise(page.workload, load_catalog(), time_target_s=target)
    assert expected.recommendation.tier.name.en in page.recommendation.text()

    choose(page.currency_box, "CNY")
    type_text(qtbot, page.rate_edit, "7.1")
    choose(page.hourly_gpu_box, A100)
    type_text(qtbot, page.hourly_price_edit, "12.5")
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
    type_text(qtbot, page.time_target_edit, "0.001")
    qtbot.waitUntil(lambda: "No tier finishes within" in page.recommendation.text(),
                    timeout=10_000)
    type_text(qtbot, page.time_target_edit, "-2")
    qtbot.waitUntil(lambda: page.money_error.isVisible(), timeout=10_000)
    assert "Time target" in page.money_error.text()
    type_text(qtbot, page.time_target_edit, "")
    qtbot.waitUntil(lambda: not page.money_error.isVisible(), timeout=10_000)
    assert "(target" not in page.recommendation.text()


def test_the_exchange_rate_starts_at_the_settings_default(qtbot, tmp_path):
    from torchrig.gui.main_window import MainWindow

    settings = Settings(tmp_path / "settings.json")
    settings.exchange_rate = 7.25
    settings.exchange_rate_date = "2026-11-30"
    window = MainWindow(settings=settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.wizard_page.rate_edit.text() == "7.25"

    def new_default(rate: str):
        def act(dialog):
            type_text(qtbot, dialog.rate_spin, rate)
            click(qtbot, dialog.buttons.button(QDialogButtonBox.StandardButton.Ok))
        return act

    # A new default in Settings replaces the one shown, not a rate the user typed.
    seen = answer_modal(qtbot, new_default("7.3"))
    menu_action(window, "Settings", "Settings…").trigger()
    assert seen == ["SettingsDialog"] and window.settings.exchange_rate == 7.3
    assert window.wizard_page.rate_edit.text() == "7.3"
    type_text(qtbot, window.wizard_page.rate_edit, "6.9")
    seen = answer_modal(qtbot, new_default("7.4"))
    menu_action(window, "Settings", "Settings…").trigger()
    assert seen == ["SettingsDialog"] and window.settings.exchange_rate == 7.4
    assert window.wizard_page.rate_edit.text() == "6.9"
    window.close()


def test_the_terms_survive_a_language_switch(wizard, window, qtbot):
    page = wizard
    type_text(qtbot, page.time_target_edit, "30")
    choose(page.currency_box, "CNY")
    type_text(qtbot, page.rate_edit, "7.1")
    choose(page.hourly_gpu_box, A100)
    type_text(qtbot, page.hourly_price_edit, "12.5")
    menu_action(window, "Settings", "Language", "中文（简体）").trigger()
    rebuilt = window.wizard_page
    assert rebuilt is not page
    assert rebuilt.time_target_edit.text() == "30" and rebuilt.rate_edit.text() == "7.1"
    assert rebuilt.currency_box.currentData() == "CNY"
    assert rebuilt.hourly_gpu_box.currentData() == A100
    assert rebuilt.hourly_price_edit.text() == "12.5"
    qtbot.waitUntil(lambda: "按你的价格" in rebuilt.recommendation.text(), timeout=10_000)


def test_an_empty_rate_field_compares_prices_at_the_shipped_reference(wizard, qtbot):
    # No rate in Settings and none typed: CNY prices of USD-priced GPUs are converted at the
    # reference rate the install ships (resources/catalog/exchange_rates.json, read here
    # directly), as the Build page prices a build without a rate of its own.
    import json

    from torchrig.catalog.loader import default_resources_dir

    page = wizard
    [shipped] = json.loads((default_resources_dir() / "catalog" / "exchange_rates.json")
                           .read_text(encoding="utf-8"))["rates"]
    assert page.rate_edit.text() == ""
    assert shipped["rate"] in page.rate_edit.placeholderText()
    assert shipped["date"] in page.rate_edit.placeholderText()
    choose(page.currency_box, "CNY")
    advice = advise(page.workload, load_catalog(), "CNY", Decimal(shipped["rate"]))
    best = next(o for o in advice.options if o.part.id == advice.recommendation.gpu.id)
    assert best.price is not None
    text = f"{best.part.name}: {fmt_money(float(best.price), 'CNY')} per GPU"
    qtbot.waitUntil(lambda: text in page.recommendation.text(), timeout=10_000)
