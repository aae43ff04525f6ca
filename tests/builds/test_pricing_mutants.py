"""Pricing facts that mutation testing (scripts/mutate.py builds.pricing) found unpinned: the
half-up rule on an even digit, the 60-digit money context, every field of the priced JSON, and
the fields of lines that lack a price or a rate. Every expected figure is worked out by hand in
the comments; the rule itself is the module doc of builds/pricing.py (the quote prints half-up).
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from decimal import Decimal, InvalidOperation, localcontext

import pytest

from torchrig.builds.build import Build, Discount, ExchangeRate, LineItem
from torchrig.builds.pricing import (
    ROUNDING_NOTE,
    DefaultRate,
    convert,
    price_build,
    rate_in_use,
    round_cents,
)
from torchrig.catalog import Catalog, load_catalog
from torchrig.i18n import Msg

D = Decimal
TODAY = datetime.date(2026, 2, 1)


def _custom(text: str, category: str, qty: int, price: str | None = None,
            currency: str = "CNY", **kw: object) -> LineItem:
    return LineItem(text=text, category=category, quantity=qty,
                    unit_price=None if price is None else D(price),
                    currency=None if price is None else currency, **kw)


# --- rounding ------------------------------------------------------------------------------


def test_half_cents_round_up_even_after_an_even_digit() -> None:
    # 0.125 lies exactly between 0.12 and 0.13. Half-up gives 0.13; banker's rounding
    # (HALF_EVEN, Decimal's default) would give 0.12 because 2 is even. 499.995 cannot tell
    # the two apart (both give 500.00), 0.125 can.
    assert round_cents(D("0.125")) == D("0.13")
    assert round_cents(D("2.665")) == D("2.67")  # HALF_EVEN: 2.66
    assert round_cents(D("-0.125")) == D("-0.13")  # half-up is away from zero
    build = Build(name="t", currency="USD", tax_rate=D("0.125"),
                  discount=Discount("percent", D("12.5")),
                  line_items=[_custom("x", "other", 1, "0.125", "USD"),
                              _custom("y", "other", 1, "0.875", "USD")])
    priced = price_build(build, load_catalog(), TODAY)
    # Lines: 0.125 -> 0.13 and 0.875 -> 0.88 (HALF_EVEN: 0.12 and 0.88).
    assert [line.unit_price for line in priced.lines] == [D("0.13"), D("0.88")]
    assert priced.subtotal == D("1.01")
    # Discount 12.5% of 1.01 = 0.12625 -> 0.13; taxable 1.01 - 0.13 = 0.88;
    # tax 0.88 x 0.125 = 0.11 exactly.
    assert priced.discount == D("0.13") and priced.taxable == D("0.88")
    assert priced.tax == D("0.11") and priced.total == D("0.99")


def test_tax_of_exactly_half_a_cent_rounds_up() -> None:
    # Taxable 1.00 x 0.125 = 0.125 -> 0.13 (HALF_EVEN: 0.12); total 1.13.
    build = Build(name="t", currency="USD", tax_rate=D("0.125"),
                  line_items=[_custom("x", "other", 1, "1.00", "USD")])
    priced = price_build(build, load_catalog(), TODAY)
    assert priced.tax == D("0.13") and priced.total == D("1.13")


def test_round_cents_holds_thirty_digits_outside_a_money_context() -> None:
    # 27 digits before the point and 3 after: 30 significant digits, more than Decimal's
    # default 28, so quantize in the default context raises; the money context holds it.
    big = D("123456789012345678901234567.125")
    with localcontext() as ctx:
        ctx.prec = 28
        with pytest.raises(InvalidOperation):
            big.quantize(D("0.01"))
        assert round_cents(big) == D("123456789012345678901234567.13")


def test_the_largest_builds_keep_every_cent() -> None:
    # 250 lines of USD 999,999,999,999.99 x 10,000 units x 10,000 nodes at 1,000 CNY per USD:
    #   unit   999,999,999,999.99 x 1,000             = 999,999,999,999,990.00 CNY
    #   line   999,999,999,999,990.00 x 10^4 x 10^4   = 99,999,999,999,999,000,000,000.00
    #   250 lines                                      = 24,999,999,999,999,750,000,000,000.00
    # plus one cluster line of 0.01 CNY: subtotal 24,999,999,999,999,750,000,000,000.01.
    # Tax at 50%: 12,499,999,999,999,875,000,000,000.005 exactly (29 digits) -> half-up .01.
    # With Decimal's default 28 digits the product is rounded half-even to .00 first.
    big = _custom("GPU", "gpu", 10_000, "999999999999.99", "USD")
    build = Build(name="t", currency="CNY", nodes=10_000, tax_rate=D("0.5"),
                  exchange_rate=ExchangeRate(D("1000"), "2026-01-10"),
                  line_items=[big] * 250 + [_custom("cable", "other", 1, "0.01",
                                                    scope="cluster")])
    priced = price_build(build, load_catalog(), TODAY)
    assert priced.lines[0].unit_price == D("999999999999990.00")
    assert priced.subtotal == D("24999999999999750000000000.01")
    assert priced.tax == D("12499999999999875000000000.01")
    # 24,999,999,999,999,750,000,000,000.01 + 12,499,999,999,999,875,000,000,000.01
    assert priced.total == D("37499999999999625000000000.02")


# --- totals, discount, warnings ---------------------------------------------------------------


def test_lines_of_one_category_add_up() -> None:
    build = Build(name="t", currency="CNY", line_items=[
        _custom("case", "case", 1, "100.00"), _custom("fans", "case", 3, "20.00"),
        _custom("pump", "cooling", 1, "50.00")])
    priced = price_build(build, load_catalog(), TODAY)
    # case: 100.00 + 3 x 20.00 = 160.00; cooling: 50.00
    assert priced.category_totals == {"case": D("160.00"), "cooling": D("50.00")}


def test_a_build_with_no_priced_line_still_totals_in_decimal() -> None:
    priced = price_build(Build(name="t", line_items=[_custom("Ceph", "storage-system", 1)]),
                         load_catalog(), TODAY)
    assert isinstance(priced.subtotal, Decimal) and priced.subtotal == 0
    assert priced.total == 0 and priced.incomplete and priced.missing_price_lines == (0,)


def test_a_discount_equal_to_the_subtotal_is_no_warning() -> None:
    build = Build(name="t", currency="USD", discount=Discount("amount", D("10.00")),
                  line_items=[_custom("x", "other", 1, "10.00", "USD")])
    priced = price_build(build, load_catalog(), TODAY)
    assert priced.discount == D("10.00") and priced.total == D("0.00")
    assert priced.warnings == ()


def test_the_capped_discount_warning_names_the_amount_in_both_languages() -> None:
    build = Build(name="t", currency="USD", discount=Discount("amount", D("50")),
                  line_items=[_custom("x", "other", 1, "10", "USD")])
    (warning,) = price_build(build, load_catalog(), TODAY).warnings
    assert warning.en == ("The discount (50.00 USD) is larger than the subtotal; it was "
                          "limited to the subtotal.")
    assert warning.zh == "折扣（50.00 USD）大于小计，已按小计计算。"


def test_the_estimate_warning_exists_in_both_languages() -> None:
    item = _custom("switch", "switch", 1, "36000", "USD", price_source="a cost sheet",
                   price_date="2026-01", price_kind="estimate")
    (warning,) = price_build(Build(name="t", currency="USD", line_items=[item]),
                             load_catalog(), TODAY).warnings
    assert warning.en == ("Some prices are analyst estimates, not list prices (marked "
                          "'estimate').")
    assert warning.zh == "部分价格为分析师估算，并非官方报价（标注为“估算”）。"


# --- the priced build as JSON ------------------------------------------------------------------


def test_every_field_of_the_priced_build_json() -> None:
    build = Build(
        name="Quote 7", currency="CNY", nodes=2, tax_rate=D("0.13"),
        exchange_rate=ExchangeRate(D("7.1"), "2026-01-10"),
        discount=Discount("percent", D("10")),
        line_items=[
            _custom("Case", "case", 2, "10.00", "USD", price_source="Quote A",
                    price_date="2026-01-05"),
            _custom("Ceph", "storage-system", 1, scope="cluster"),
            _custom("Switch", "switch", 1, "500", scope="cluster"),
            _custom("Fans", "case", 1, "16.00"),
        ])
    data = price_build(build, load_catalog(), TODAY).to_dict()
    # Case: USD 10.00 x 7.1 = 71.00 CNY; x 2 units x 2 nodes = 284.00.
    # Switch (cluster): 500.00 x 1 x 1. Fans: 16.00 x 1 x 2 nodes = 32.00.
    # Subtotal 284.00 + 500.00 + 32.00 = 816.00; discount 10% = 81.60; taxable 734.40;
    # tax 734.40 x 0.13 = 95.472 -> 95.47; total 734.40 + 95.47 = 829.87.
    override = {"origin_kind": "override", "price_kind": None, "reliability": None,
                "status": "ok", "alerts": [], "remark": None}
    assert data["lines"] == [
        {"index": 0, "label": "Case", "part_id": None, "category": "case", "quantity": 2,
         "multiplier": 2, "unit_price": "71.00", "total": "284.00", "source_amount": "10.00",
         "source_currency": "USD", "origin": "build override (Quote A, 2026-01-05)",
         **override},
        {"index": 1, "label": "Ceph", "part_id": None, "category": "storage-system",
         "quantity": 1, "multiplier": 1, "unit_price": None, "total": None,
         "source_amount": None, "source_currency": None, "origin": "price needed",
         "origin_kind": "missing", "price_kind": None, "reliability": None,
         "status": "price needed", "alerts": [], "remark": None},
        {"index": 2, "label": "Switch", "part_id": None, "category": "switch", "quantity": 1,
         "multiplier": 1, "unit_price": "500.00", "total": "500.00", "source_amount": "500",
         "source_currency": "CNY", "origin": "build override", **override},
        {"index": 3, "label": "Fans", "part_id": None, "category": "case", "quantity": 1,
         "multiplier": 2, "unit_price": "16.00", "total": "32.00", "source_amount": "16.00",
         "source_currency": "CNY", "origin": "build override", **override},
    ]
    del data["lines"]
    assert data == {
        "name": "Quote 7", "currency": "CNY", "nodes": 2,
        "category_totals": {"case": "316.00", "switch": "500.00"},
        "subtotal": "816.00", "discount": "81.60", "taxable": "734.40", "tax_rate": "0.13",
        "tax": "95.47", "total": "829.87", "incomplete": True, "missing_price_lines": [1],
        "has_estimates": False, "exchange_rate": "7.1", "exchange_rate_date": "2026-01-10",
        "exchange_rate_origin": {"en": "the build's rate", "zh": "配置单中的汇率"},
        "exchange_rate_stale": False,  # 2026-01-10 to 2026-02-01: 22 days, limit 30
        "rounding": ROUNDING_NOTE.en, "warnings": [],
    }


def test_a_build_without_a_rate_says_so_in_the_json() -> None:
    data = price_build(Build(name="t", currency="USD",
                             line_items=[_custom("x", "other", 1, "1", "USD")]),
                       load_catalog(), TODAY).to_dict()
    assert data["exchange_rate"] is None and data["exchange_rate_date"] is None
    assert data["exchange_rate_origin"] is None and data["exchange_rate_stale"] is False


# --- which rate, and how old ------------------------------------------------------------------

SHOP = DefaultRate(D("7.2"), "2026-01-20", Msg("the shop's default rate", "本店默认汇率"))


def test_the_builds_own_rate_wins_over_the_default_and_names_its_source() -> None:
    own = Build(name="t", exchange_rate=ExchangeRate(D("7.1"), "2026-01-10", "bank quote"))
    assert rate_in_use(own, SHOP) == (D("7.1"), "2026-01-10",
                                      Msg("the build's rate (bank quote)",
                                          "配置单中的汇率（bank quote）"))
    assert rate_in_use(Build(name="t"), SHOP) == (D("7.2"), "2026-01-20", SHOP.origin)
    assert rate_in_use(Build(name="t"), None) is None


def test_a_build_without_a_rate_converts_with_the_default() -> None:
    build = Build(name="t", currency="CNY",
                  line_items=[_custom("x", "other", 3, "10.00", "USD")])
    priced = price_build(build, load_catalog(), TODAY, SHOP)
    # USD 10.00 x 7.2 = 72.00 CNY; x 3 = 216.00. Rate of 2026-01-20, priced 2026-02-01: 12 days.
    assert priced.lines[0].unit_price == D("72.00") and priced.total == D("216.00")
    assert (priced.exchange_rate, priced.exchange_rate_date) == (D("7.2"), "2026-01-20")
    assert priced.exchange_rate_origin == SHOP.origin
    assert priced.exchange_rate_age_days == 12 and not priced.exchange_rate_stale
    assert priced.rate_age_note is None


def test_a_rate_is_stale_after_thirty_days() -> None:
    build = Build(name="t", exchange_rate=ExchangeRate(D("7.1"), "2026-01-02"))
    # 2026-01-02 to 2026-02-01 is 30 days: still fresh; one day later it is 31.
    fresh = price_build(build, load_catalog(), TODAY)
    assert fresh.exchange_rate_age_days == 30 and not fresh.exchange_rate_stale
    stale = price_build(build, load_catalog(), datetime.date(2026, 2, 2))
    assert stale.exchange_rate_age_days == 31 and stale.exchange_rate_stale
    assert stale.to_dict()["exchange_rate_stale"] is True
    assert stale.rate_age_note == Msg(
        "The exchange rate (7.1 CNY per USD, 2026-01-02) is 31 days old: check the current "
        "rate.", "汇率（1 USD = 7.1 CNY，2026-01-02）已有 31 天：请核实当前汇率。")
    # A month date counts from its first day: 2026-01 to 2026-02-01 is 31 days.
    month = Build(name="t", exchange_rate=ExchangeRate(D("7.1"), "2026-01"))
    assert price_build(month, load_catalog(), TODAY).exchange_rate_age_days == 31


# --- lines without a usable price -----------------------------------------------------------


def _rtx_4090_priced_only(cat: Catalog, *prices_kept: str, reliability: str | None = None
                          ) -> Catalog:
    """The catalog with the RTX 4090 (out of production since 2024-10) keeping only its
    prices in ``prices_kept`` currencies, those marked with ``reliability``."""
    part = cat.get("nvidia-rtx-4090")
    prices = tuple(replace(p, reliability=reliability) for p in part.prices
                   if p.currency in prices_kept)
    return Catalog(parts={**cat.parts, part.id: replace(part, prices=prices)}, tiers=cat.tiers,
                   seed_rules=cat.seed_rules, sources=cat.sources)


def test_a_foreign_price_without_a_rate_keeps_everything_but_the_amount() -> None:
    cat = _rtx_4090_priced_only(load_catalog(), "USD", reliability="medium")
    usd = next(p for p in cat.get("nvidia-rtx-4090").prices)
    build = Build(name="t", currency="CNY", nodes=3,
                  line_items=[LineItem(part_id="nvidia-rtx-4090", quantity=2)])
    line = price_build(build, cat, TODAY).lines[0]
    assert (line.index, line.label, line.part_id, line.category) == (
        0, "NVIDIA GeForce RTX 4090", "nvidia-rtx-4090", "gpu")
    assert (line.quantity, line.multiplier, line.unit_price, line.total) == (2, 3, None, None)
    assert (line.source_amount, line.source_currency) == (usd.amount, "USD")
    assert line.status == "exchange rate needed" and line.origin_kind == "catalog"
    assert line.price_kind == usd.kind and line.reliability == "medium"
    where = f"{cat.source_url(usd.source)} {usd.date}"
    assert line.origin == Msg(f"catalog {where}", f"目录 {where}")
    # The USD price is from 2022-09 (over six months before 2026-02) and the card went out
    # of production in 2024-10.
    assert [a.code for a in line.alerts] == ["price.stale", "part.eol"]


def test_a_part_with_no_price_is_flagged_with_its_alerts() -> None:
    cat = _rtx_4090_priced_only(load_catalog())  # no price left
    line = price_build(Build(name="t", line_items=[LineItem(part_id="nvidia-rtx-4090")]),
                       cat, TODAY).lines[0]
    assert line.status == "price needed" and line.origin_kind == "missing"
    assert line.origin == Msg("price needed", "需要价格")
    assert (line.part_id, line.category, line.quantity, line.multiplier) == (
        "nvidia-rtx-4090", "gpu", 1, 1)
    assert [a.code for a in line.alerts] == ["part.eol"]


def test_a_catalog_price_is_marked_catalog_in_both_languages() -> None:
    cat = load_catalog()
    cny = next(p for p in cat.get("nvidia-rtx-4090").prices if p.currency == "CNY")
    line = price_build(Build(name="t", line_items=[LineItem(part_id="nvidia-rtx-4090")]),
                       cat, TODAY).lines[0]
    where = f"{cat.source_url(cny.source)} {cny.date}"
    assert line.origin_kind == "catalog" and line.origin == Msg(f"catalog {where}",
                                                                f"目录 {where}")


def test_a_typed_price_is_judged_by_its_own_date_as_of_the_day_given() -> None:
    # Priced on 2022-03-01, a price from 2022-01 is two months old: no alert (the real
    # today, years later, would call it stale).
    item = LineItem(part_id="intel-core-i9-13900k", unit_price=D("500"), currency="USD",
                    price_date="2022-01")
    build = Build(name="t", currency="USD", line_items=[item])
    line = price_build(build, load_catalog(), datetime.date(2022, 3, 1)).lines[0]
    assert line.alerts == () and line.origin_kind == "override" and line.reliability is None
    stale = price_build(build, load_catalog(), datetime.date(2022, 9, 1)).lines[0]
    assert [a.code for a in stale.alerts] == ["price.stale"]  # 8 months


# --- conversion --------------------------------------------------------------------------------


def test_convert_refuses_a_currency_it_has_no_rate_for() -> None:
    rate = D("7")
    assert convert(D("2"), "USD", "CNY", rate) == D("14")
    assert convert(D("14"), "CNY", "USD", rate) == D("2")
    with pytest.raises(ValueError, match="cannot convert EUR to CNY"):
        convert(D("1"), "EUR", "CNY", rate)
    with pytest.raises(ValueError, match="cannot convert CNY to EUR"):
        convert(D("1"), "CNY", "EUR", rate)
