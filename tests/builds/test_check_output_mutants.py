"""`torchrig check` output facts that mutation testing (scripts/mutate.py builds.check_output)
found unpinned: every line of the text in both languages for a priced build written out here by
hand (a node multiplier, an estimate, a line without a price and one waiting for a rate, a
discount, a tax rate, an exchange rate with its origin and its age note, one missing line and
several), and the JSON's order, counts and blocker flag. The priced build is made in the test,
not by builds/pricing.py, so every figure in the expected text is one written here.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal as D

import pytest

from torchrig.builds.check_output import check_json, format_check_text
from torchrig.builds.pricing import ROUNDING_NOTE, PricedBuild, PricedLine
from torchrig.catalog.alerts import Alert
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg

CATALOG = Msg("catalog", "目录")


def _line(index: int, label: str, category: str, quantity: int, multiplier: int,
          unit: str | None, status: str = "ok", price_kind: str | None = None,
          origin: Msg = CATALOG, origin_kind: str = "catalog",
          alerts: tuple[Alert, ...] = ()) -> PricedLine:
    price = None if unit is None else D(unit)
    return PricedLine(index=index, label=label, part_id=None, category=category,
                      quantity=quantity, multiplier=multiplier, unit_price=price,
                      total=None if price is None else price * quantity * multiplier,
                      source_amount=price, source_currency="CNY", origin=origin,
                      origin_kind=origin_kind,  # type: ignore[arg-type]
                      price_kind=price_kind, status=status,  # type: ignore[arg-type]
                      alerts=alerts)


def _priced() -> PricedBuild:
    # Two nodes. Line 1 (index 0, printed [1] as a reader counts): 2 x 2 nodes x CNY 1,500.50
    # = 6,002.00; line 2: 1 x 1 x 99.99 (an estimate, one node's multiplier 1 since it is a
    # cluster line); line 3 has no price, line 4 waits for a rate. Subtotal 6,002.00 + 99.99
    # = 6,101.99; discount 101.99; taxable 6,000.00; tax 13 % = 780.00; total 6,780.00.
    lines = (
        _line(0, "Lab GPU / 实验室显卡", "gpu", 2, 2, "1500.50",
              alerts=(Alert("price.stale", Msg("price is old", "价格已旧")),)),
        _line(1, "Switch", "switch", 1, 1, "99.99", price_kind="estimate",
              origin=Msg("estimate: a sheet", "估算：表格")),
        _line(2, "Rails", "other", 4, 2, None, status="price needed",
              origin=Msg("", ""), origin_kind="missing"),
        _line(3, "Card", "gpu", 1, 2, None, status="exchange rate needed",
              origin=Msg("catalog USD", "目录 USD")),
    )
    return PricedBuild(
        name="Quote A / 报价甲", currency="CNY", nodes=2, lines=lines,
        category_totals={"gpu": D("6002.00"), "switch": D("99.99")},
        subtotal=D("6101.99"), discount=D("101.99"), taxable=D("6000.00"),
        tax_rate=D("0.13"), tax=D("780.00"), total=D("6780.00"), incomplete=True,
        missing_price_lines=(2, 3), exchange_rate=D("7.1"), exchange_rate_date="2026-01-05",
        warnings=(Msg("a warning", "一条警告"),),
        exchange_rate_origin=Msg("the Settings", "设置"), exchange_rate_age_days=40)


EN = """Build: Quote A  (nodes: 2, currency: CNY)

Lines:
  [1] Lab GPU (GPU) qty 2 x 2: CNY 1,500.50 -> CNY 6,002.00
        origin: catalog
        ! price is old
  [2] Switch (Network switch) qty 1: CNY 99.99 -> CNY 99.99 [estimate]
        origin: estimate: a sheet
  [3] Rails (Other) qty 4 x 2: price needed
  [4] Card (GPU) qty 1 x 2: exchange rate needed
        origin: catalog USD

By category: GPU CNY 6,002.00, Network switch CNY 99.99
Subtotal: CNY 6,101.99
Discount: -CNY 101.99
Tax (13%): CNY 780.00
Total: CNY 6,780.00
Exchange rate: 7.1 CNY per USD (2026-01-05)
  rate from: the Settings
  ! The exchange rate (7.1 CNY per USD, 2026-01-05) is 40 days old: check the current rate.
INCOMPLETE: 2 lines have no usable price (lines 3, 4); totals cover the priced lines only.
a warning
""" + ROUNDING_NOTE.en + """

Findings:
  No compatibility problems found.
"""

ZH = """配置: 报价甲  (节点: 2, 币种: CNY)

明细:
  [1] 实验室显卡 (显卡) 数量 2 x 2: CNY 1,500.50 -> CNY 6,002.00
        价格来源: 目录
        ! 价格已旧
  [2] Switch (交换机) 数量 1: CNY 99.99 -> CNY 99.99 [估算]
        价格来源: 估算：表格
  [3] Rails (其他) 数量 4 x 2: 需要价格
  [4] Card (显卡) 数量 1 x 2: 需要汇率
        价格来源: 目录 USD

分类小计: 显卡 CNY 6,002.00, 交换机 CNY 99.99
小计: CNY 6,101.99
折扣: -CNY 101.99
税 (13%): CNY 780.00
总计: CNY 6,780.00
汇率：1 USD = 7.1 CNY（2026-01-05）
  汇率来源: 设置
  ! 汇率（1 USD = 7.1 CNY，2026-01-05）已有 40 天：请核实当前汇率。
不完整：2 行缺少可用价格（第 3, 4 行）；合计仅包含已定价的行。
一条警告
""" + ROUNDING_NOTE.zh + """

检查结果:
  未发现兼容性问题。
"""


def test_every_line_of_the_text_in_english() -> None:
    assert format_check_text(_priced(), [], "en") == EN


def test_every_line_of_the_text_in_chinese() -> None:
    assert format_check_text(_priced(), [], "zh") == ZH


def test_english_is_the_default_language() -> None:
    assert format_check_text(_priced(), []) == EN


def test_one_missing_line_in_the_singular_and_no_rate_discount_or_tax() -> None:
    priced = replace(_priced(), lines=_priced().lines[:3], missing_price_lines=(2,),
                     discount=D("0"), tax_rate=D("0"), tax=D("0"), exchange_rate=None,
                     exchange_rate_date=None, exchange_rate_origin=None,
                     exchange_rate_age_days=None, warnings=(), category_totals={})
    text = format_check_text(priced, [], "en")
    assert "INCOMPLETE: 1 line has no usable price (line 3); totals cover the priced lines " \
           "only.\n" in text
    for absent in ("Discount", "Tax", "Exchange rate", "rate from", "By category"):
        assert absent not in text
    assert "\nSubtotal: CNY 6,101.99\nTotal: CNY 6,780.00\nINCOMPLETE" in text
    zh = format_check_text(priced, [], "zh")
    assert "不完整：1 行缺少可用价格（第 3 行）；合计仅包含已定价的行。\n" in zh


def test_a_rate_without_origin_or_age_note_is_one_line() -> None:
    priced = replace(_priced(), exchange_rate_origin=None, exchange_rate_age_days=3,
                     incomplete=False, missing_price_lines=())
    text = format_check_text(priced, [], "en")
    assert ("Exchange rate: 7.1 CNY per USD (2026-01-05)\na warning\n") in text
    assert "INCOMPLETE" not in text


@pytest.mark.parametrize(("rate", "shown"), [
    # rate x 100 as people write a percentage: no trailing zeros, no exponent.
    ("0.13", "13"), ("0.10", "10"), ("0.065", "6.5"), ("0.2", "20"), ("0.0001", "0.01")])
def test_a_tax_rate_prints_as_people_write_it(rate: str, shown: str) -> None:
    priced = replace(_priced(), tax_rate=D(rate))
    assert f"\nTax ({shown}%): CNY 780.00\n" in format_check_text(priced, [], "en")


def _finding(code: str, severity: Severity) -> Finding:
    return Finding(code=code, severity=severity, title=Msg(code, code),
                   detail=Msg("d", "d"), fix=Msg("f", "f"), source="s", numbers={})


def test_the_json_orders_counts_and_flags_findings() -> None:
    advice, blocker, warning, blocker2 = (
        _finding("a", Severity.ADVICE), _finding("b", Severity.BLOCKER),
        _finding("w", Severity.WARNING), _finding("b2", Severity.BLOCKER))
    data = check_json(_priced(), [advice, blocker, warning, blocker2])
    assert list(data) == ["format", "version", "build", "findings", "counts", "has_blocker"]
    assert data["format"] == "torchrig.check" and data["version"] == 1
    assert data["build"] == _priced().to_dict()
    # Worst first, in the order given within a severity.
    assert [f["code"] for f in data["findings"]] == ["b", "b2", "w", "a"]
    assert data["findings"][0] == blocker.to_dict()
    assert data["counts"] == {"blocker": 2, "bottleneck": 0, "warning": 1, "overkill": 0,
                              "advice": 1}
    assert data["has_blocker"] is True


def test_the_json_without_a_blocker() -> None:
    data = check_json(_priced(), [_finding("w", Severity.WARNING)])
    assert data["has_blocker"] is False
    assert data["counts"] == {"blocker": 0, "bottleneck": 0, "warning": 1, "overkill": 0,
                              "advice": 0}
    assert check_json(_priced(), [])["findings"] == []


def test_lines_are_numbered_as_a_reader_counts_them() -> None:
    # A priced build's first line has index 0 (line_items[0]); the text numbers it [1], and the
    # unpriced second line is "line 2" - as a build's own notes count ("included in the DGX
    # B200 system price (line 2)"), not [0] and "line 1".
    from torchrig.builds.build import Build, LineItem
    from torchrig.builds.pricing import price_build
    from torchrig.catalog import load_catalog

    build = Build(name="t", nodes=1, currency="USD", line_items=[
        LineItem(part_id="nvidia-rtx-4090", quantity=1),
        LineItem(text="Rails", category="other", quantity=1)])
    priced = price_build(build, load_catalog())
    assert [line.index for line in priced.lines] == [0, 1]
    text = format_check_text(priced, [], "en")
    assert "\n  [1] " in text and "\n  [2] Rails" in text and "[0]" not in text
    assert "(line 2)" in text
