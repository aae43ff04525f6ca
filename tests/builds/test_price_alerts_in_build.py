"""Priced lines carry their price alerts (old price, end of life) into the check output."""

from __future__ import annotations

import datetime
from decimal import Decimal

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_output import check_json, format_check_text
from torchrig.builds.pricing import price_build
from torchrig.catalog import load_catalog

TODAY = datetime.date(2026, 12, 1)


def test_old_catalog_price_and_end_of_life_on_the_line() -> None:
    build = Build(name="t", currency="USD", line_items=[LineItem(part_id="nvidia-rtx-4090")])
    priced = price_build(build, load_catalog(), TODAY)
    assert [a.code for a in priced.lines[0].alerts] == ["price.stale", "part.eol"]
    text = format_check_text(priced, [], "en")
    assert "! out of production since 2024-10" in text
    assert check_json(priced, [])["build"]["lines"][0]["alerts"][1]["code"] == "part.eol"
    assert "停产" in format_check_text(priced, [], "zh")


def test_a_fresh_typed_price_is_not_stale_but_the_part_is_still_eol() -> None:
    typed = LineItem(part_id="nvidia-rtx-4090", unit_price=Decimal("2299"), currency="USD",
                     price_source="supplier quote", price_date="2026-11-20")
    priced = price_build(Build(name="t", currency="USD", line_items=[typed]), load_catalog(),
                         TODAY)
    assert [a.code for a in priced.lines[0].alerts] == ["part.eol"]


def test_a_recent_catalog_price_has_no_alert() -> None:
    build = Build(name="t", currency="CNY",
                  line_items=[LineItem(part_id="nvidia-rtx-3060-12gb")])
    priced = price_build(build, load_catalog(), datetime.date(2026, 3, 1))
    assert priced.lines[0].alerts == ()
