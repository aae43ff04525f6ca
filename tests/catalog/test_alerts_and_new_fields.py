"""Price-age and end-of-life alerts, and the loader's new list fields and end-of-life dates."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from catalog_helpers import part

from torchrig.catalog import load_catalog
from torchrig.catalog.alerts import months_between, price_alerts
from torchrig.errors import InputError

TODAY = datetime.date(2026, 12, 1)


def test_months_between() -> None:
    assert months_between("2026-06", TODAY) == 6
    assert months_between("2026-05-31", TODAY) == 6
    assert months_between("2026-06-02", TODAY) == 5
    assert months_between("2027-01", TODAY) == -1


def test_old_launch_price_and_end_of_life() -> None:
    rtx4090 = load_catalog().get("nvidia-rtx-4090")
    codes = [a.code for a in price_alerts(rtx4090, rtx4090.prices[0], TODAY)]
    assert codes == ["price.stale", "part.eol"]
    stale = price_alerts(rtx4090, rtx4090.prices[0], TODAY)[0]
    assert "2022-09-20" in stale.text.en and "50" in stale.text.en and "个月" in stale.text.zh


def test_recent_price_has_no_alert() -> None:
    rtx3060 = load_catalog().get("nvidia-rtx-3060-12gb")
    recent = next(p for p in rtx3060.prices if p.date == "2025-12")
    assert price_alerts(rtx3060, recent, datetime.date(2026, 6, 1)) == []
    assert [a.code for a in price_alerts(rtx3060, recent, TODAY)] == ["price.stale"]
    # A price typed into a build carries its own date.
    assert price_alerts(rtx3060, None, TODAY, price_date="2026-11-20") == []


def test_case_and_cooler_lists_are_loaded() -> None:
    cat = load_catalog()
    assert cat.get("nfortec-krater-x").case.board_form_factors[0] == "E-ATX"
    assert "LGA1700" in cat.get("deepcool-an600").cooler.sockets


def test_list_fields_are_validated(edit: Any) -> None:
    root = edit("catalog/cases.json",
                lambda d: part(d, "nfortec-caelum")["specs"].update(board_form_factors="ATX"))
    with pytest.raises(InputError, match=r"nfortec-caelum.*'board_form_factors' must be a "
                                         r"non-empty list"):
        load_catalog(root)


def test_int_list_range_is_checked(edit: Any) -> None:
    root = edit("catalog/motherboards.json", lambda d: part(
        d, "asus-rog-maximus-z790-formula")["specs"].update(x16_slot_positions=[1, 40]))
    with pytest.raises(InputError, match=r"x16_slot_positions' must be between 1 and 12"):
        load_catalog(root)


def test_end_of_life_needs_a_date_and_source(edit: Any) -> None:
    root = edit("catalog/gpus.json", lambda d: part(d, "nvidia-rtx-4090").update(
        end_of_life={"date": "October 2024", "source": "HWREF"}))
    with pytest.raises(InputError, match=r"end_of_life\.date"):
        load_catalog(root)
