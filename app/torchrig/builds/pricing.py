"""Price a build: unit prices with their origin, currency conversion, subtotals, discount, tax.

Money is :class:`decimal.Decimal` throughout. Rounding rule (stated in every priced build):
each line's unit price is converted to the build currency with the build's exchange rate and
rounded half-up to cents; the line total is that unit price x quantity x nodes (exact); the
subtotal is the exact sum of line totals; discount and tax are each rounded half-up to cents.

A line whose price is unknown is flagged "price needed" (or "exchange rate needed" when only a
foreign-currency price exists and no rate is known); the totals then cover the priced lines
only and say they are incomplete.

The rate is the build's own when it has one (the shop set it for this quote); otherwise the
caller's :class:`DefaultRate` (the shop's Settings default, or the reference rate the catalog
ships, ``catalog/exchange_rates.py``). The priced build names where its rate came from
(``exchange_rate_origin``) and how old it is, so a stale rate is flagged where it is used.
"""

from __future__ import annotations

import datetime
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from typing import Any, Literal

from torchrig.builds.build import Build, LineItem
from torchrig.builds.source_text import source_text
from torchrig.catalog.alerts import Alert, price_alerts
from torchrig.catalog.exchange_rates import (
    STALE_AFTER_DAYS,
    ReferenceRate,
    age_days,
    catalog_reference,
)
from torchrig.catalog.model import Catalog, best_catalog_price
from torchrig.i18n import Msg, one_language
from torchrig.labels import PRICE_KINDS
from torchrig.records import field, record

CENT = Decimal("0.01")

MONEY_CONTEXT = Context(prec=60)
"""Decimal's default 28 digits cannot hold the largest valid build to the cent (500 lines of
just under 1e12 x 10,000 units x 10,000 nodes x a rate of 1,000 is about 5e25 plus tax): with
them sums silently lose cents and rounding to cents raises InvalidOperation. 60 digits hold
every amount a valid build can reach exactly."""

ROUNDING_NOTE = Msg(
    "Unit prices are converted to the build currency and rounded half-up to cents per line; "
    "line total = unit price x quantity x nodes; discount and tax are rounded half-up to cents.",
    "单价按本报价的汇率换算为报价币种，并按行四舍五入到分；行合计 = 单价 × 数量 × 节点数；"
    "折扣和税额各自四舍五入到分。",
)

ESTIMATE_WARNING = Msg(
    "Some prices are analyst estimates, not list prices (marked 'estimate').",
    "部分价格为分析师估算，并非官方报价（标注为“估算”）。")
"""The remark on a build with estimated prices: the shop's to know, so the customer copy
leaves it out (report/assemble.py)."""

LineStatus = Literal["ok", "price needed", "exchange rate needed"]
OriginKind = Literal["override", "catalog", "missing"]

BUILD_RATE_ORIGIN = Msg("the build's rate", "配置单中的汇率")


@record
class DefaultRate:
    """A CNY-per-USD rate for a build that has none of its own, and where it comes from."""

    cny_per_usd: Decimal
    date: str
    origin: Msg

    @classmethod
    def from_reference(cls, ref: ReferenceRate) -> DefaultRate:
        return cls(ref.rate, ref.date, ref.origin)


def shipped_default(catalog: Catalog) -> DefaultRate | None:
    """The catalog's shipped reference rate as the default for a build without a rate of its
    own; None when the install ships none. Every place that prices a build outside the GUI
    (check, export, compare) uses this, so they agree with each other on a fresh install."""
    ref = catalog_reference(catalog)
    return DefaultRate.from_reference(ref) if ref is not None else None


def round_cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP, context=MONEY_CONTEXT)


@record
class PricedLine:
    """One priced line. ``unit_price`` and ``total`` are in the build currency (None when the
    price is missing); ``source_amount``/``source_currency`` are the price before conversion."""

    index: int
    label: str
    part_id: str | None
    category: str
    quantity: int
    multiplier: int
    unit_price: Decimal | None
    total: Decimal | None
    source_amount: Decimal | None
    source_currency: str | None
    origin: Msg  # where the unit price came from, for people
    origin_kind: OriginKind
    price_kind: str | None
    status: LineStatus
    reliability: str | None = None
    alerts: tuple[Alert, ...] = ()
    remark: Msg | None = None
    """The catalog price's remark for the shop (``Price.remark``): ``torchrig check`` and the
    internal sheet show it, a customer's quote does not."""

    @property
    def is_estimate(self) -> bool:
        return self.price_kind == "estimate"

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "label": self.label,
            "part_id": self.part_id,
            "category": self.category,
            "quantity": self.quantity,
            "multiplier": self.multiplier,
            "unit_price": _s(self.unit_price),
            "total": _s(self.total),
            "source_amount": _s(self.source_amount),
            "source_currency": self.source_currency,
            "origin": self.origin.en,
            "origin_kind": self.origin_kind,
            "price_kind": self.price_kind,
            "reliability": self.reliability,
            "status": self.status,
            "alerts": [{"code": a.code, **a.text.to_dict()} for a in self.alerts],
            "remark": self.remark.to_dict() if self.remark is not None else None,
        }


@record
class PricedBuild:
    """The priced build. ``incomplete`` is true when any line lacks a usable price, and
    ``missing_price_lines`` lists those line indexes."""

    name: str
    currency: str
    nodes: int
    lines: tuple[PricedLine, ...]
    category_totals: dict[str, Decimal]
    subtotal: Decimal
    discount: Decimal
    taxable: Decimal
    tax_rate: Decimal
    tax: Decimal
    total: Decimal
    incomplete: bool
    missing_price_lines: tuple[int, ...]
    exchange_rate: Decimal | None
    exchange_rate_date: str | None
    warnings: tuple[Msg, ...] = field(default_factory=tuple)
    exchange_rate_origin: Msg | None = None
    """Where the rate in use came from (None: no rate)."""
    exchange_rate_age_days: int | None = None
    """Days from the rate's date to the day the build was priced."""

    @property
    def exchange_rate_stale(self) -> bool:
        return (self.exchange_rate_age_days is not None
                and self.exchange_rate_age_days > STALE_AFTER_DAYS)

    @property
    def rate_age_note(self) -> Msg | None:
        """The flag for a rate over :data:`STALE_AFTER_DAYS` days old (None when fresh)."""
        if not self.exchange_rate_stale:
            return None
        return Msg(f"The exchange rate ({self.exchange_rate} CNY per USD, "
                   f"{self.exchange_rate_date}) is {self.exchange_rate_age_days} days old: "
                   "check the current rate.",
                   f"汇率（1 USD = {self.exchange_rate} CNY，{self.exchange_rate_date}）已有 "
                   f"{self.exchange_rate_age_days} 天：请核实当前汇率。")

    @property
    def has_estimates(self) -> bool:
        return any(line.is_estimate for line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "currency": self.currency,
            "nodes": self.nodes,
            "lines": [line.to_dict() for line in self.lines],
            "category_totals": {k: str(v) for k, v in self.category_totals.items()},
            "subtotal": str(self.subtotal),
            "discount": str(self.discount),
            "taxable": str(self.taxable),
            "tax_rate": str(self.tax_rate),
            "tax": str(self.tax),
            "total": str(self.total),
            "incomplete": self.incomplete,
            "missing_price_lines": list(self.missing_price_lines),
            "has_estimates": self.has_estimates,
            "exchange_rate": _s(self.exchange_rate),
            "exchange_rate_date": self.exchange_rate_date,
            "exchange_rate_origin": (self.exchange_rate_origin.to_dict()
                                     if self.exchange_rate_origin else None),
            "exchange_rate_stale": self.exchange_rate_stale,
            "rounding": ROUNDING_NOTE.en,
            "warnings": [w.to_dict() for w in self.warnings],
        }


def _s(value: Decimal | None) -> str | None:
    return None if value is None else str(value)


def convert(amount: Decimal, from_currency: str, to_currency: str,
            cny_per_usd: Decimal | None) -> Decimal | None:
    """Convert with the build's rate (CNY per USD); None when a rate is needed but missing."""
    if from_currency == to_currency:
        return amount
    if cny_per_usd is None:
        return None
    if from_currency == "USD" and to_currency == "CNY":
        return amount * cny_per_usd
    if from_currency == "CNY" and to_currency == "USD":
        return amount / cny_per_usd
    raise ValueError(f"cannot convert {from_currency} to {to_currency}")


def _label(item: LineItem, catalog: Catalog) -> tuple[str, str]:
    if item.part_id is None:
        return item.text, item.category
    part = catalog.get(item.part_id)
    return f"{part.vendor} {part.name}", part.category


def _price_line(index: int, item: LineItem, build: Build, catalog: Catalog,
                today: datetime.date, rate: Decimal | None) -> PricedLine:
    label, category = _label(item, catalog)
    part = catalog.get(item.part_id) if item.part_id else None
    mult = build.nodes if item.scope == "node" else 1
    amount: Decimal | None
    src_currency: str | None
    price_kind: str | None = None
    reliability: str | None = None
    remark: Msg | None = None
    if item.unit_price is not None:
        amount, src_currency = item.unit_price, item.currency
        # The typed source in each language where TorchRig wrote its words (source_text).
        extra = Msg(*(", ".join(x for x in (source_text(item.price_source, lang),
                                            item.price_date) if x) for lang in ("en", "zh")))
        # A published figure carried on the line (a tier's sourced estimate) says its kind.
        what = (Msg(f"{PRICE_KINDS[item.price_kind].en} in the build",
                    f"配置单中的{PRICE_KINDS[item.price_kind].zh}")
                if item.price_kind in PRICE_KINDS else Msg("build override", "配置单中填写的价格"))
        origin = (Msg(f"{what.en} ({extra.en})", f"{what.zh}（{extra.zh}）") if extra.en
                  else what)
        origin_kind: OriginKind = "override"
        price_kind = item.price_kind or None
        if item.price_remark:
            remark = Msg(*(one_language(item.price_remark, lang) for lang in ("en", "zh")))
        # A typed price is as old as the date given with it; without one it is not judged.
        alerts = tuple(price_alerts(part, None, today, price_date=item.price_date or None))
    else:
        price = best_catalog_price(part, build.currency) if part else None
        alerts = tuple(price_alerts(part, price, today))
        if price is None:
            return PricedLine(index, label, item.part_id, category, item.quantity, mult, None,
                              None, None, None, Msg("price needed", "需要价格"), "missing", None,
                              "price needed",
                              alerts=alerts)
        amount, src_currency = price.amount, price.currency
        # Source keys (e.g. "EPOCH") are shown as what they point to, so a quote is checkable;
        # a price with a label (every estimate) is named by it in each language, with the
        # web address its source has, and its remark travels beside it.
        if price.label is not None:
            # The address behind it: a web page, or what a source key points to.
            _, url = catalog.source_link(price.source)
            ref = catalog.source_url(price.source)
            where = url or (ref if ref != price.source else None)
            origin = Msg(*(" ".join(x for x in (word, price.label.get(lang), where, price.date)
                                    if x)
                           for word, lang in (("catalog", "en"), ("目录", "zh"))))
        else:
            where = f"{catalog.source_url(price.source)} {price.date}"
            origin = Msg(f"catalog {where}", f"目录 {where}")
        origin_kind = "catalog"
        price_kind, reliability, remark = price.kind, price.reliability, price.remark
    assert src_currency is not None
    converted = convert(amount, src_currency, build.currency, rate)
    if converted is None:
        return PricedLine(index, label, item.part_id, category, item.quantity, mult, None, None,
                          amount, src_currency, origin, origin_kind, price_kind,
                          "exchange rate needed", reliability, alerts, remark)
    unit = round_cents(converted)
    return PricedLine(index, label, item.part_id, category, item.quantity, mult, unit,
                      unit * item.quantity * mult, amount, src_currency, origin, origin_kind,
                      price_kind, "ok", reliability, alerts, remark)


def price_build(build: Build, catalog: Catalog, today: datetime.date | None = None,
                default_rate: DefaultRate | None = None) -> PricedBuild:
    """Price every line of ``build`` (see module doc for the rounding rule). Each line carries
    the alerts for its price (older than six months, part out of production) as of ``today``.
    ``default_rate`` converts when the build has no exchange rate of its own."""
    with localcontext(MONEY_CONTEXT):
        return _price_build(build, catalog, today or datetime.date.today(), default_rate)


def rate_in_use(build: Build, default_rate: DefaultRate | None
                ) -> tuple[Decimal, str, Msg] | None:
    """The rate a build is priced with (CNY per USD, its date, where it came from): the
    build's own, else ``default_rate``; None when neither is known."""
    if build.exchange_rate is not None:
        rate = build.exchange_rate
        origin = (Msg(f"{BUILD_RATE_ORIGIN.en} ({rate.source})",
                      f"{BUILD_RATE_ORIGIN.zh}（{rate.source}）")
                  if rate.source else BUILD_RATE_ORIGIN)
        return rate.cny_per_usd, rate.date, origin
    if default_rate is not None:
        return default_rate.cny_per_usd, default_rate.date, default_rate.origin
    return None


def _price_build(build: Build, catalog: Catalog, today: datetime.date,
                 default_rate: DefaultRate | None) -> PricedBuild:
    in_use = rate_in_use(build, default_rate)
    rate = in_use[0] if in_use else None
    lines = tuple(_price_line(i, item, build, catalog, today, rate)
                  for i, item in enumerate(build.line_items))
    if build.exchange_rate is None and not any(
            line.source_currency not in (None, build.currency) for line in lines):
        # A default rate that converted nothing is not part of this quote: printing (or
        # flagging the age of) a rate no line used would only raise questions.
        in_use, rate = None, None
    category_totals: dict[str, Decimal] = {}
    for line in lines:
        if line.total is not None:
            category_totals[line.category] = category_totals.get(line.category,
                                                                 Decimal("0")) + line.total
    subtotal = sum((line.total for line in lines if line.total is not None), Decimal("0"))
    warnings: list[Msg] = []
    discount = Decimal("0")
    if build.discount is not None:
        if build.discount.kind == "percent":
            discount = round_cents(subtotal * build.discount.value / Decimal(100))
        else:
            discount = round_cents(build.discount.value)
        if discount > subtotal:
            warnings.append(Msg(
                f"The discount ({discount} {build.currency}) is larger than the subtotal; it "
                "was limited to the subtotal.",
                f"折扣（{discount} {build.currency}）大于小计，已按小计计算。"))
            discount = subtotal
    taxable = subtotal - discount
    tax = round_cents(taxable * build.tax_rate)
    missing = tuple(line.index for line in lines if line.status != "ok")
    if any(line.is_estimate for line in lines):
        warnings.append(ESTIMATE_WARNING)
    return PricedBuild(
        name=build.name, currency=build.currency, nodes=build.nodes, lines=lines,
        category_totals=category_totals, subtotal=subtotal, discount=discount, taxable=taxable,
        tax_rate=build.tax_rate, tax=tax, total=taxable + tax, incomplete=bool(missing),
        missing_price_lines=missing,
        exchange_rate=rate, exchange_rate_date=in_use[1] if in_use else None,
        warnings=tuple(warnings), exchange_rate_origin=in_use[2] if in_use else None,
        exchange_rate_age_days=age_days(in_use[1], today) if in_use else None,
    )
