"""Pricing arithmetic: Decimal money, overrides, conversion, nodes, discount, tax, gaps."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from torchrig.builds.build import Build, Discount, ExchangeRate, LineItem, load_build
from torchrig.builds.pricing import price_build
from torchrig.catalog import load_catalog
from torchrig.i18n import Msg

ROOT = Path(__file__).resolve().parents[2]
D = Decimal


def _override(pid: str | None, qty: int, price: str, currency: str, **kw: object) -> LineItem:
    return LineItem(part_id=pid, quantity=qty, unit_price=D(price), currency=currency, **kw)


def test_overrides_tax_and_percent_discount() -> None:
    build = Build(
        name="t", currency="CNY", tax_rate=D("0.13"), discount=Discount("percent", D("5")),
        line_items=[
            _override("nvidia-rtx-4090", 2, "12999.00", "CNY"),
            _override(None, 1, "499.995", "CNY", text="Case", category="case"),
        ],
    )
    priced = price_build(build, load_catalog())
    assert [line.total for line in priced.lines] == [D("25998.00"), D("500.00")]
    assert priced.subtotal == D("26498.00")
    assert priced.discount == D("1324.90")
    assert priced.taxable == D("25173.10")
    assert priced.tax == D("3272.50")  # 3272.503 rounded half-up
    assert priced.total == D("28445.60")
    assert priced.category_totals == {"gpu": D("25998.00"), "case": D("500.00")}
    assert not priced.incomplete
    assert priced.lines[0].origin == Msg("build override", "配置单中填写的价格")
    assert isinstance(priced.total, Decimal)


def test_amount_discount_and_half_up_rounding_of_tax() -> None:
    build = Build(name="t", currency="USD", tax_rate=D("0.125"),
                  discount=Discount("amount", D("0.10")),
                  line_items=[_override(None, 1, "1.00", "USD", text="x", category="other")])
    priced = price_build(build, load_catalog())
    assert priced.taxable == D("0.90")
    assert priced.tax == D("0.11")  # 0.1125 -> 0.11
    assert priced.total == D("1.01")


def test_discount_larger_than_subtotal_is_capped_with_a_warning() -> None:
    build = Build(name="t", currency="USD", discount=Discount("amount", D("50")),
                  line_items=[_override(None, 1, "10", "USD", text="x", category="other")])
    priced = price_build(build, load_catalog())
    assert priced.discount == D("10") and priced.total == D("0")
    assert priced.warnings


def test_currency_conversion_uses_the_build_rate_and_rounds_per_line() -> None:
    rate = ExchangeRate(D("7.1234"), "2025-06-01")
    cat = load_catalog()
    cny = Build(name="t", currency="CNY", exchange_rate=rate,
                line_items=[LineItem(part_id="intel-core-i9-13900k", quantity=3)])
    line = price_build(cny, cat).lines[0]
    assert line.source_amount == D("589") and line.source_currency == "USD"
    assert line.unit_price == D("4195.68")  # 589 * 7.1234 = 4195.6826
    assert line.total == D("12587.04")
    usd = Build(name="t", currency="USD", exchange_rate=rate,
                line_items=[_override(None, 1, "1000", "CNY", text="x", category="other")])
    assert price_build(usd, cat).lines[0].unit_price == D("140.38")  # 140.3824...


def test_catalog_price_prefers_the_build_currency() -> None:
    cat = load_catalog()
    cny = price_build(Build(name="t", currency="CNY",
                            line_items=[LineItem(part_id="nvidia-rtx-4090")]), cat)
    assert cny.lines[0].unit_price == D("12999.00")
    assert cny.lines[0].origin.en == "catalog https://dians.net/thread-1025.htm 2022-10"
    assert cny.lines[0].price_kind == "launch-msrp"
    usd = price_build(Build(name="t", currency="USD",
                            line_items=[LineItem(part_id="nvidia-rtx-4090")]), cat)
    assert usd.lines[0].unit_price == D("1599.00")
    retail = price_build(Build(name="t", currency="CNY",
                               line_items=[LineItem(part_id="nvidia-rtx-3060-12gb")]), cat)
    assert retail.lines[0].price_kind == "retail"
    assert retail.lines[0].reliability == "low"


def test_missing_prices_and_rates_are_flagged_not_guessed() -> None:
    build = Build(name="t", currency="CNY", line_items=[
        LineItem(part_id="nvidia-l4"),  # no sourced price in the catalog
        LineItem(part_id="intel-core-i9-13900k"),
        LineItem(part_id="nvidia-rtx-4090"),
        LineItem(text="Ceph", category="storage-system"),
    ])
    priced = price_build(build, load_catalog())
    assert [line.status for line in priced.lines] == [
        "price needed", "exchange rate needed", "ok", "price needed"]
    assert priced.incomplete
    assert priced.missing_price_lines == (0, 1, 3)
    assert priced.total == D("12999.00")
    assert priced.lines[0].unit_price is None and priced.lines[0].total is None


def test_nodes_multiply_node_lines_but_not_cluster_lines() -> None:
    build = Build(name="t", currency="USD", nodes=3, line_items=[
        _override("nvidia-a100-80gb-sxm", 4, "10000", "USD"),
        _override(None, 1, "25000", "USD", text="IB switch", category="switch",
                  scope="cluster"),
    ])
    priced = price_build(build, load_catalog())
    assert priced.lines[0].multiplier == 3 and priced.lines[0].total == D("120000.00")
    assert priced.lines[1].multiplier == 1 and priced.lines[1].total == D("25000.00")
    assert priced.subtotal == D("145000.00")


def test_estimates_are_marked() -> None:
    build = Build(name="t", currency="USD", line_items=[LineItem(part_id="nvidia-h100-sxm")])
    priced = price_build(build, load_catalog())
    assert priced.lines[0].is_estimate and priced.has_estimates
    # The catalog price's label names the source in each language (resources/catalog/gpus.json,
    # the H100 SXM's estimate), its remark travels beside it.
    assert priced.lines[0].origin.en.startswith("catalog Epoch AI dataset, citing an industry")
    assert priced.lines[0].origin.zh.startswith("目录 Epoch AI 数据集，引用行业分析师报告")
    assert priced.lines[0].remark is not None and "$269k" in priced.lines[0].remark.en
    assert any("estimate" in w.en for w in priced.warnings)


def test_to_dict_uses_strings_for_money() -> None:
    build = Build(name="t", currency="USD", tax_rate=D("0.1"),
                  line_items=[_override(None, 2, "9.99", "USD", text="x", category="other")])
    data = price_build(build, load_catalog()).to_dict()
    assert data["subtotal"] == "19.98" and data["tax"] == "2.00" and data["total"] == "21.98"
    assert data["lines"][0]["unit_price"] == "9.99"
    assert data["incomplete"] is False
    assert "half-up" in data["rounding"]


def test_sample_builds_price() -> None:
    cat = load_catalog()
    for path in sorted((ROOT / "builds").glob("*.json")):
        priced = price_build(load_build(path, cat), cat)
        # Second method: the lines add up to the subtotal, and the sample files carry no tax
        # or discount ("tax_rate": "0", "discount": null), so the total is the subtotal.
        assert priced.subtotal == sum((line.total for line in priced.lines
                                       if line.total is not None), D(0))
        assert (priced.tax, priced.discount, priced.total) == (0, 0, priced.subtotal)
        assert len(priced.lines) == len(load_build(path, cat).line_items)
    pro = price_build(load_build(ROOT / "builds" / "pro-dual-4090.json", cat), cat)
    assert pro.lines[1].total == D("3198.00")  # 2 x USD 1,599 launch MSRP


def test_a_published_line_price_names_its_kind_in_the_origin() -> None:
    item = LineItem(text="NDR switch", category="switch", quantity=1, unit_price=D("36000"),
                    currency="USD", price_source="a cost sheet", price_date="2024-08",
                    price_kind="estimate")
    priced = price_build(Build(name="t", currency="USD", line_items=[item]), load_catalog())
    line = priced.lines[0]
    assert line.origin == Msg("estimate in the build (a cost sheet, 2024-08)",
                              "配置单中的估算（a cost sheet, 2024-08）")
    assert line.is_estimate and priced.has_estimates
