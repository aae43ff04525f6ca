"""Output of ``torchrig check BUILD``: human text (en/zh) and stable JSON.

The JSON uses strings for money (exact decimals) and SI units in finding numbers; its shape is
``{"format": "torchrig.check", "version": 1, "build": PricedBuild.to_dict(), "findings": [...],
"counts": {severity: n}, "has_blocker": bool}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from torchrig.builds.pricing import ROUNDING_NOTE, PricedBuild
from torchrig.findings import (
    Finding,
    Severity,
    format_findings_text,
    has_blocker,
    sort_findings,
)
from torchrig.i18n import one_language, pick
from torchrig.labels import CATEGORIES, label
from torchrig.units import fmt_percent_number

CHECK_FORMAT = "torchrig.check"
CHECK_VERSION = 1

_T = {
    "build": ("Build", "配置"),
    "nodes": ("nodes", "节点"),
    "currency": ("currency", "币种"),
    "lines": ("Lines", "明细"),
    "qty": ("qty", "数量"),
    "unit": ("unit price", "单价"),
    "total_col": ("total", "合计"),
    "origin": ("origin", "价格来源"),
    "remark": ("remark", "备注"),
    "estimate": ("estimate", "估算"),
    "by_cat": ("By category", "分类小计"),
    "subtotal": ("Subtotal", "小计"),
    "discount": ("Discount", "折扣"),
    "tax": ("Tax", "税"),
    "total": ("Total", "总计"),
    "incomplete_one": ("INCOMPLETE: 1 line has no usable price (line {ids}); totals cover the "
                       "priced lines only.",
                       "不完整：1 行缺少可用价格（第 {ids} 行）；合计仅包含已定价的行。"),
    "incomplete": ("INCOMPLETE: {n} lines have no usable price (lines {ids}); totals cover "
                   "the priced lines only.",
                   "不完整：{n} 行缺少可用价格（第 {ids} 行）；合计仅包含已定价的行。"),
    "rate": ("Exchange rate: {r} CNY per USD ({d})", "汇率：1 USD = {r} CNY（{d}）"),
    "rate_origin": ("rate from", "汇率来源"),
    "findings": ("Findings", "检查结果"),
    "none": ("No compatibility problems found.", "未发现兼容性问题。"),
    "price needed": ("price needed", "需要价格"),
    "exchange rate needed": ("exchange rate needed", "需要汇率"),
}


def _t(key: str, lang: str) -> str:
    return pick(_T, key, lang)


def _money(amount: Decimal | None, currency: str) -> str:
    return "-" if amount is None else f"{currency} {amount:,.2f}"


def format_check_text(priced: PricedBuild, findings: Sequence[Finding], lang: str = "en") -> str:
    """Plain text for a terminal: the priced lines, totals and the findings, worst first."""
    cur = priced.currency
    # One language throughout: a tier's "English / Chinese" name shows its ``lang`` half.
    name = one_language(priced.name, lang)
    out = [f"{_t('build', lang)}: {name}  ({_t('nodes', lang)}: {priced.nodes}, "
           f"{_t('currency', lang)}: {cur})", "", f"{_t('lines', lang)}:"]
    for line in priced.lines:
        qty = f"{line.quantity}" + (f" x {line.multiplier}" if line.multiplier != 1 else "")
        if line.status == "ok":
            price = f"{_money(line.unit_price, cur)} -> {_money(line.total, cur)}"
        else:
            price = _t(line.status, lang)
        mark = f" [{_t('estimate', lang)}]" if line.is_estimate else ""
        category = label(CATEGORIES, line.category, lang)
        # Numbered from 1, as a reader counts lines (a build's notes say "line 2"); the index
        # itself (line_items[0], the JSON) stays 0-based.
        out.append(f"  [{line.index + 1}] {one_language(line.label, lang)} ({category}) "
                   f"{_t('qty', lang)} {qty}: {price}{mark}")
        if line.origin_kind != "missing":
            out.append(f"        {_t('origin', lang)}: {line.origin.get(lang)}")
        if line.remark is not None:
            out.append(f"        {_t('remark', lang)}: {line.remark.get(lang)}")
        out += [f"        ! {alert.text.get(lang)}" for alert in line.alerts]
    if priced.category_totals:
        cats = ", ".join(f"{label(CATEGORIES, k, lang)} {_money(v, cur)}"
                         for k, v in priced.category_totals.items())
        out += ["", f"{_t('by_cat', lang)}: {cats}"]
    out.append(f"{_t('subtotal', lang)}: {_money(priced.subtotal, cur)}")
    if priced.discount:
        out.append(f"{_t('discount', lang)}: -{_money(priced.discount, cur)}")
    if priced.tax_rate:
        # normalize() + "f": 13 % reads "13", not the Decimal's "13.00" (what ":g" printed),
        # and 10 % reads "10", not "1e+1" (normalize() with ":g").
        rate = fmt_percent_number(priced.tax_rate * 100)
        out.append(f"{_t('tax', lang)} ({rate}%): {_money(priced.tax, cur)}")
    out.append(f"{_t('total', lang)}: {_money(priced.total, cur)}")
    if priced.exchange_rate is not None:
        out.append(_t("rate", lang).format(r=priced.exchange_rate, d=priced.exchange_rate_date))
        if priced.exchange_rate_origin is not None:
            out.append(f"  {_t('rate_origin', lang)}: {priced.exchange_rate_origin.get(lang)}")
        if priced.rate_age_note is not None:
            out.append(f"  ! {priced.rate_age_note.get(lang)}")
    if priced.incomplete:
        ids = ", ".join(str(i + 1) for i in priced.missing_price_lines)
        missing = len(priced.missing_price_lines)
        key = "incomplete_one" if missing == 1 else "incomplete"
        out.append(_t(key, lang).format(n=missing, ids=ids))
    for warning in priced.warnings:
        out.append(warning.get(lang))
    out.append(ROUNDING_NOTE.get(lang))
    out += ["", f"{_t('findings', lang)}:"]
    return "\n".join(out) + "\n" + format_findings_text(findings, lang, _t("none", lang))


def check_json(priced: PricedBuild, findings: Sequence[Finding]) -> dict[str, Any]:
    ordered = sort_findings(findings)
    counts = {s.value: sum(1 for f in ordered if f.severity is s) for s in Severity}
    return {
        "format": CHECK_FORMAT,
        "version": CHECK_VERSION,
        "build": priced.to_dict(),
        "findings": [f.to_dict() for f in ordered],
        "counts": counts,
        "has_blocker": has_blocker(ordered),
    }
