"""Pricing with a default rate (builds/pricing.py): the build's own rate wins, the reference
is used when it has none, where the rate came from is named, and a rate over 30 days old is
flagged. Conversions computed by hand."""

from __future__ import annotations

import datetime
import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, ExchangeRate, LineItem
from torchrig.builds.check_output import format_check_text
from torchrig.builds.pricing import DefaultRate, price_build
from torchrig.catalog import load_catalog
from torchrig.catalog.exchange_rates import ReferenceRate
from torchrig.i18n import Msg

ROOT = Path(__file__).resolve().parents[2]
URL = "https://www.pbc.gov.cn/zhengcehuobisi/125207/125217/125925/index.html"
REF = ReferenceRate("USD", "CNY", Decimal("7.1234"), "2026-11-28", "PBOC central parity", URL,
                    Msg("n", "注"))
DAY = datetime.date(2026, 12, 1)
# Core i9-13900K: USD 589 in the catalog (its only price).
CPU = LineItem(part_id="intel-core-i9-13900k", quantity=2)


def _cny(rate: ExchangeRate | None = None) -> Build:
    return Build(name="t", currency="CNY", exchange_rate=rate, line_items=[CPU])


def test_the_reference_prices_a_build_without_a_rate() -> None:
    priced = price_build(_cny(), load_catalog(), today=DAY,
                         default_rate=DefaultRate.from_reference(REF))
    line = priced.lines[0]
    # 589 x 7.1234 = 4195.6826 -> 4195.68 per unit; x 2 = 8391.36.
    assert line.status == "ok" and line.unit_price == Decimal("4195.68")
    assert priced.total == Decimal("8391.36")
    assert priced.exchange_rate == Decimal("7.1234") and priced.exchange_rate_date == "2026-11-28"
    assert priced.exchange_rate_origin is not None
    assert priced.exchange_rate_origin.en == f"PBOC central parity 2026-11-28, {URL}"
    assert priced.exchange_rate_age_days == 3 and not priced.exchange_rate_stale
    assert priced.to_dict()["exchange_rate_origin"]["en"].startswith("PBOC central parity")


def test_the_builds_own_rate_wins() -> None:
    priced = price_build(_cny(ExchangeRate(Decimal("7.0"), "2026-11-30")), load_catalog(),
                         today=DAY, default_rate=DefaultRate.from_reference(REF))
    # 589 x 7.0 = 4123.00; x 2 = 8246.00.
    assert priced.lines[0].unit_price == Decimal("4123.00") and priced.total == Decimal("8246.00")
    assert priced.exchange_rate_origin is not None
    assert priced.exchange_rate_origin.en == "the build's rate"


def test_a_usd_build_converts_cny_prices_with_the_reference() -> None:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(text="case fan", category="other", unit_price=Decimal(
                      "71.234"), currency="CNY")])
    priced = price_build(build, load_catalog(), today=DAY,
                         default_rate=DefaultRate.from_reference(REF))
    # 71.234 / 7.1234 = 10.0000 USD.
    assert priced.lines[0].unit_price == Decimal("10.00")


def test_without_any_rate_nothing_changes() -> None:
    priced = price_build(_cny(), load_catalog(), today=DAY)
    assert priced.lines[0].status == "exchange rate needed"
    assert priced.exchange_rate is None and priced.exchange_rate_origin is None
    assert priced.rate_age_note is None


def test_a_rate_over_30_days_old_is_flagged_in_check_output() -> None:
    # 2026-11-28 -> 2026-12-28: 30 days (not flagged); -> 2026-12-29: 31 days (flagged).
    default = DefaultRate.from_reference(REF)
    fresh = price_build(_cny(), load_catalog(), today=datetime.date(2026, 12, 28),
                        default_rate=default)
    assert not fresh.exchange_rate_stale and "days old" not in format_check_text(fresh, [])
    stale = price_build(_cny(), load_catalog(), today=datetime.date(2026, 12, 29),
                        default_rate=default)
    assert stale.exchange_rate_stale and stale.to_dict()["exchange_rate_stale"] is True
    text = format_check_text(stale, [])
    assert "is 31 days old" in text and f"rate from: PBOC central parity 2026-11-28, {URL}" in text
    assert "31 天" in format_check_text(stale, [], lang="zh")


@pytest.fixture()
def fresh_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped resources with a reference-rate file, as TORCHRIG_RESOURCES."""
    from torchrig.catalog import clear_catalog_cache

    copy = tmp_path / "resources"
    shutil.copytree(ROOT / "resources", copy)
    (copy / "catalog" / "exchange_rates.json").write_text(json.dumps({
        "format": "torchrig-exchange-rates", "version": 1,
        "rates": [{"base": "USD", "quote": "CNY", "rate": "7.1234", "date": "2026-11-28",
                   "kind": "PBOC central parity", "source": URL,
                   "note": {"en": "n", "zh": "注"}}]}), encoding="utf-8")
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(copy))
    clear_catalog_cache()
    yield copy
    clear_catalog_cache()


def test_check_on_a_fresh_install_prices_usd_parts_in_cny(fresh_install: Path, capsys) -> None:
    from torchrig.builds.build import save_build
    from torchrig.cli import main

    path = fresh_install / "b.json"
    save_build(Build(name="t", currency="CNY", line_items=[CPU]), path)
    assert main(["check", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["build"]
    assert data["lines"][0]["unit_price"] == "4195.68" and data["total"] == "8391.36"
    assert data["exchange_rate_origin"]["en"] == f"PBOC central parity 2026-11-28, {URL}"


def test_check_region_adds_the_wall_check(tmp_path: Path, capsys) -> None:
    from torchrig.builds.build import save_build
    from torchrig.cli import main

    # 253 + 4 x 450 + 150 = 2203 W; / 0.87 (Gold, 115 V) = 2532 W > 1920 W: wall.circuit.
    build = Build(name="t", currency="USD", line_items=[
        LineItem(part_id="intel-core-i9-13900k", quantity=1),
        LineItem(part_id="nvidia-rtx-4090", quantity=4),
        LineItem(part_id="corsair-rm1000x", quantity=3)])
    file = tmp_path / "b.json"
    save_build(build, file)
    main(["check", str(file), "--json", "--region", "us"])
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert "wall.circuit" in codes
    main(["check", str(file), "--json"])
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert not [c for c in codes if c.startswith("wall.")]
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(file), "--region", "mars"])
    assert exit_.value.code == 2
    assert "invalid choice: 'mars'" in capsys.readouterr().err


def test_a_default_rate_that_converts_nothing_is_not_reported() -> None:
    # Two lines typed in CNY: nothing to convert, so the quote names no rate and flags no age
    # (the reference is 3 days old here, a stale one would be flagged if it were reported).
    typed = LineItem(text="Fan 120 mm", category="cooling", quantity=2,
                     unit_price=Decimal("10.50"), currency="CNY")
    build = Build(name="t", currency="CNY", line_items=[typed])
    old = ReferenceRate("USD", "CNY", Decimal("7.1234"), "2025-01-01", "PBOC central parity",
                        URL, Msg("n", "注"))
    priced = price_build(build, load_catalog(), today=DAY,
                         default_rate=DefaultRate.from_reference(old))
    assert priced.total == Decimal("21.00")  # 2 x 10.50
    assert priced.exchange_rate is None and priced.exchange_rate_origin is None
    assert not priced.exchange_rate_stale
    # The same default with one USD-priced part is reported, with its age (2025-01-01 to
    # 2026-12-01 is 365 + 334 = 699 days).
    mixed = Build(name="t", currency="CNY", line_items=[typed, CPU])
    priced = price_build(mixed, load_catalog(), today=DAY,
                         default_rate=DefaultRate.from_reference(old))
    assert priced.exchange_rate == Decimal("7.1234")
    assert priced.exchange_rate_age_days == 699 and priced.exchange_rate_stale
