"""Build-file validation at its edges, found unpinned by mutation testing (scripts/mutate.py
builds.build): every limit on both sides (names of 200 characters, 500 lines, 10,000 units and
nodes, rates from 0.01 to 1,000, tax below 1, discounts from 0 to 100%), the field names in the
messages, the JSON written for each kind of line, and the default-rate rules. The limits are
the module's documented constants (MAX_HEADER_TEXT, MAX_LINES, MAX_QUANTITY, MAX_NODES,
MAX_LINE_TEXT; MAX_SOURCE = 2,000 for notes and sources).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from torchrig.builds.build import (
    Build,
    Discount,
    ExchangeRate,
    LineItem,
    load_build,
    plain_decimal,
    save_build,
    validate_build,
    validate_line,
    with_default_rate,
    with_line,
)
from torchrig.catalog import load_catalog
from torchrig.errors import InputError

D = Decimal


def _doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"format": "torchrig.build", "version": 1, "name": "Lab box",
                           "line_items": [{"text": "Case", "category": "case", "quantity": 1}]}
    doc.update(changes)
    return {k: v for k, v in doc.items() if v is not ...}


def _read(**changes: Any) -> Build:
    return Build.from_dict(_doc(**changes), where="b.json")


def _refused(fragment: str, **changes: Any) -> str:
    with pytest.raises(InputError) as info:
        _read(**changes)
    message = str(info.value)
    assert fragment in message, message
    return message


def _line(**fields: Any) -> list[dict[str, Any]]:
    return [{"text": "Case", "category": "case", "quantity": 1, **fields}]


# --- the header ------------------------------------------------------------------------------


def test_defaults_of_a_minimal_build() -> None:
    build = Build.from_dict({"format": "torchrig.build", "version": 1, "name": "x"})
    assert build == Build(name="x")  # CNY, no rate, tax 0, no discount, 1 node, no lines
    assert build.currency == "CNY" and build.tax_rate == 0 and build.nodes == 1
    assert build.line_items == [] and build.tier is None


def test_header_texts_up_to_200_characters() -> None:
    build = _read(name="n" * 200, customer="c" * 200, project="p" * 200, notes="x" * 20_000)
    assert (len(build.name), len(build.customer), len(build.project)) == (200, 200, 200)
    assert len(build.notes) == 20_000
    _refused("b.json: name is longer than 200 characters", name="n" * 201)
    _refused("b.json: customer is longer than 200 characters", customer="c" * 201)
    _refused("b.json: project is longer than 200 characters", project="p" * 201)
    _refused("b.json: notes is longer than 20000 characters", notes="x" * 20_001)


def test_the_name_must_be_given_and_not_blank() -> None:
    _refused("b.json: name is missing", name=...)
    _refused("b.json: name is missing", name=None)
    _refused("b.json: name must not be empty", name="   ")
    _refused("b.json: name must be text, got int", name=3)
    _refused("b.json: customer must be text, got list", customer=[])
    assert _read(customer=None).customer == ""


def test_an_unknown_field_is_named_as_written() -> None:
    _refused("b.json: tax_rat is not a build field", tax_rat="0.1")
    _refused("b.json: 'bad key\\n' is not a build field", **{"bad key\n": 1})
    _refused("b.json: ' name' is not a build field", **{" name": 1})


@pytest.mark.parametrize(("tax", "ok"), [("0", True), ("0.999", True), ("1", False),
                                         ("-0.01", False), ("0.13", True)])
def test_tax_rate_from_zero_to_below_one(tax: str, ok: bool) -> None:
    if ok:
        assert _read(tax_rate=tax).tax_rate == D(tax)
    else:
        _refused(f"b.json: tax_rate must be a fraction from 0 to below 1 (0.13 for 13%), got "
                 f"{tax!r}", tax_rate=tax)


@pytest.mark.parametrize(("nodes", "ok"), [(1, True), (10_000, True), (2.0, True), (0, False),
                                           (10_001, False), (True, False), (1.5, False),
                                           ("2", False)])
def test_nodes_from_one_to_ten_thousand(nodes: Any, ok: bool) -> None:
    if ok:
        read = _read(nodes=nodes).nodes
        assert read == nodes and isinstance(read, int)
    else:
        _refused(f"b.json: nodes must be a whole number >= 1 (at most 10000), got {nodes!r}",
                 nodes=nodes)


def test_currency_and_tier() -> None:
    assert _read(currency="USD").currency == "USD"
    _refused("b.json: currency must be CNY or USD, got 'usd'", currency="usd")
    assert _read(tier="entry").tier == "entry"
    _refused("b.json: tier must be a tier id or null", tier=3)


def test_up_to_500_lines() -> None:
    line = {"text": "x", "category": "other", "quantity": 1}
    assert len(_read(line_items=[line] * 500).line_items) == 500
    _refused("b.json: line_items has 501 lines, more than 500", line_items=[line] * 501)
    _refused("b.json: line_items must be a list", line_items={"0": line})


# --- exchange rate and discount ----------------------------------------------------------------


@pytest.mark.parametrize(("rate", "ok"), [("0.01", True), ("1000", True), ("7.1", True),
                                          ("0.009", False), ("1000.01", False), ("0", False),
                                          ("-7", False)])
def test_rates_from_a_cent_to_a_thousand(rate: str, ok: bool) -> None:
    raw = {"cny_per_usd": rate, "date": "2026-01-10"}
    if ok:
        assert _read(exchange_rate=raw).exchange_rate == ExchangeRate(D(rate), "2026-01-10")
    else:
        _refused("b.json: exchange_rate.cny_per_usd must be a positive rate (CNY per USD), "
                 f"got {rate!r}", exchange_rate=raw)


def test_the_rate_object() -> None:
    assert _read(exchange_rate=None).exchange_rate is None
    _refused("b.json: exchange_rate must be an object with cny_per_usd and date",
             exchange_rate="7.1")
    _refused("b.json: exchange_rate.bank is not a field of exchange_rate",
             exchange_rate={"cny_per_usd": "7.1", "date": "2026-01-10", "bank": "x"})
    src = {"cny_per_usd": "7.1", "date": "2026-01-10"}
    assert _read(exchange_rate={**src, "source": "s" * 2000}).exchange_rate.source == "s" * 2000
    for bad in ("s" * 2001, 5):
        _refused("b.json: exchange_rate.source must be text (at most 2000 characters)",
                 exchange_rate={**src, "source": bad})
    _refused("exchange_rate.date", exchange_rate={"cny_per_usd": "7.1", "date": "2026-13"})


@pytest.mark.parametrize(("kind", "value", "ok"), [
    ("percent", "0", True), ("percent", "100", True), ("percent", "100.01", False),
    ("amount", "150", True), ("amount", "0", True), ("amount", "-0.01", False),
    ("percent", "-1", False)])
def test_discount_limits(kind: str, value: str, ok: bool) -> None:
    raw = {"kind": kind, "value": value}
    if ok:
        assert _read(discount=raw).discount == Discount(kind, D(value))  # type: ignore[arg-type]
    elif D(value) < 0:
        _refused("b.json: discount.value must not be negative", discount=raw)
    else:
        _refused("b.json: discount.value must be at most 100 (percent)", discount=raw)


def test_the_discount_object() -> None:
    assert _read(discount=None).discount is None
    _refused("b.json: discount.kind must be 'amount' or 'percent'", discount="5%")
    _refused("b.json: discount.kind must be 'amount' or 'percent'", discount={"value": "5"})
    _refused("b.json: discount.why is not a field of discount",
             discount={"kind": "amount", "value": "5", "why": "x"})


# --- line items --------------------------------------------------------------------------------


@pytest.mark.parametrize(("qty", "ok"), [(1, True), (10_000, True), (0, False),
                                         (10_001, False), (None, False)])
def test_quantity_from_one_to_ten_thousand(qty: Any, ok: bool) -> None:
    if ok:
        assert _read(line_items=_line(quantity=qty)).line_items[0].quantity == qty
    else:
        _refused("b.json: line_items[0].quantity must be a whole number >= 1 (at most 10000)",
                 line_items=_line(quantity=qty))


def test_custom_line_text_and_category() -> None:
    assert _read(line_items=_line(text="t" * 500)).line_items[0].text == "t" * 500
    _refused("b.json: line_items[0].text is longer than 500 characters",
             line_items=_line(text="t" * 501))
    _refused("b.json: line_items[0]: needs part_id (catalog part) or text (custom line)",
             line_items=_line(text="  "))
    _refused("needs part_id", line_items=_line(text=5))
    message = _refused("b.json: line_items[0].category must be one of gpu, cpu,",
                       line_items=_line(category="spaceship"))
    assert message.endswith(", got 'spaceship'") and "server-platform" in message


def test_catalog_lines() -> None:
    build = _read(line_items=[{"part_id": "nvidia-rtx-4090", "quantity": 2}])
    assert build.line_items[0] == LineItem(part_id="nvidia-rtx-4090", quantity=2)
    for bad in ("", 7):
        _refused("b.json: line_items[0].part_id must be a catalog part id",
                 line_items=[{"part_id": bad, "quantity": 1}])
    _refused("b.json: line_items[0]: a catalog line has part_id; text/category are for custom "
             "lines only",
             line_items=[{"part_id": "nvidia-rtx-4090", "quantity": 1, "category": "gpu"}])


def test_line_note_scope_and_unknown_fields() -> None:
    line = _read(line_items=_line(note="n" * 2000, scope="cluster")).line_items[0]
    assert line.note == "n" * 2000 and line.scope == "cluster"
    for bad in ("n" * 2001, 3):
        _refused("b.json: line_items[0].note must be text (at most 2000 characters)",
                 line_items=_line(note=bad))
    _refused("b.json: line_items[0].scope must be 'node' or 'cluster', got 'rack'",
             line_items=_line(scope="rack"))
    _refused("b.json: line_items[0].colour is not a line item field",
             line_items=_line(colour="red"))
    _refused("b.json: line_items[1] must be an object",
             line_items=[*_line(), ["not", "an", "object"]])


def test_check_parts_names_the_line_and_the_tiers() -> None:
    cat = load_catalog()
    Build(name="t", line_items=[LineItem(part_id="nvidia-rtx-4090")]).check_parts(cat)
    with pytest.raises(InputError, match=r"b: line_items\[1\].part_id 'nope' is not in the "
                       "catalog"):
        Build(name="t", line_items=[LineItem(text="x", category="case"),
                                    LineItem(part_id="nope")]).check_parts(cat, where="b")
    with pytest.raises(InputError) as info:
        Build(name="t", tier="ultra").check_parts(cat, where="b")
    assert str(info.value) == ("b: tier 'ultra' is not a known tier "
                               f"({', '.join(cat.tiers)})")


# --- what is written -----------------------------------------------------------------------------


def test_each_kind_of_line_writes_only_its_fields() -> None:
    assert LineItem(part_id="nvidia-rtx-4090", quantity=2).to_dict() == {
        "part_id": "nvidia-rtx-4090", "quantity": 2}
    assert LineItem(text="Case", category="case").to_dict() == {
        "text": "Case", "category": "case", "quantity": 1}
    full = LineItem(text="Switch", category="switch", unit_price=D("36000"), currency="USD",
                    price_source="a sheet", price_date="2024-08", price_kind="estimate",
                    scope="cluster", note="n")
    assert full.to_dict() == {"text": "Switch", "category": "switch", "quantity": 1,
                              "unit_price": "36000", "currency": "USD",
                              "price_source": "a sheet", "price_date": "2024-08",
                              "price_kind": "estimate", "scope": "cluster", "note": "n"}
    # Price details without a price are not written.
    assert LineItem(text="x", category="case", price_source="s").to_dict() == {
        "text": "x", "category": "case", "quantity": 1}


def test_the_build_document_field_by_field() -> None:
    build = Build(name="Q", currency="USD", customer="Lab", project="P",
                  exchange_rate=ExchangeRate(D("7.1"), "2026-01-10", "bank"),
                  tax_rate=D("0.06"), discount=Discount("amount", D("1E+2")), nodes=3,
                  line_items=[LineItem(part_id="nvidia-rtx-4090")], notes="n", tier="entry")
    assert build.to_dict() == {
        "format": "torchrig.build", "version": 2, "name": "Q", "customer": "Lab",
        "project": "P", "tier": "entry", "currency": "USD",
        "exchange_rate": {"cny_per_usd": "7.1", "date": "2026-01-10", "source": "bank"},
        "tax_rate": "0.06", "discount": {"kind": "amount", "value": "100"}, "nodes": 3,
        "line_items": [{"part_id": "nvidia-rtx-4090", "quantity": 1}], "notes": "n",
        "tier_note": None}  # version 2: a tier's starter note is kept apart
    assert Build(name="Q").to_dict()["exchange_rate"] is None
    assert Build(name="Q").to_dict()["discount"] is None


def test_plain_decimal_never_writes_an_exponent() -> None:
    assert plain_decimal(D("1E+3")) == "1000"
    assert plain_decimal(D("1E-7")) == "0.0000001"
    assert plain_decimal(D("12.50")) == "12.50"


def test_save_refuses_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    with pytest.raises(InputError, match="nodes must be a whole number"):
        save_build(Build(name="x", nodes=0), path)
    assert not path.exists()
    save_build(Build(name="x", nodes=2), path)
    assert json.loads(path.read_text(encoding="utf-8"))["nodes"] == 2
    assert load_build(path).nodes == 2


def test_validate_build_and_line_use_the_loader_rules() -> None:
    assert validate_build(Build(name="x")) == Build(name="x")
    with pytest.raises(InputError, match=r"^here: name must not be empty"):
        validate_build(Build(name=" "), where="here")
    line = LineItem(text="x", category="case", quantity=3)
    assert validate_line(line, "l") == line
    with pytest.raises(InputError, match=r"^l\.quantity must be a whole number"):
        validate_line(LineItem(text="x", category="case", quantity=0), "l")


def test_with_line_replaces_one_line_on_a_copy() -> None:
    build = Build(name="x", line_items=[LineItem(text="a", category="case"),
                                        LineItem(text="b", category="case")])
    new = with_line(build, 1, LineItem(text="c", category="case"))
    assert [i.text for i in new.line_items] == ["a", "c"]
    assert [i.text for i in build.line_items] == ["a", "b"]


# --- a default rate (the command line's --cny-per-usd) -------------------------------------------


def test_a_default_rate_needs_its_date_and_never_replaces_the_builds_own() -> None:
    bare = Build(name="x")
    assert with_default_rate(bare, None, None) is bare
    with pytest.raises(InputError, match="--cny-per-usd: a rate date was given without a rate"):
        with_default_rate(bare, None, "2026-01-10")
    with pytest.raises(InputError, match="--cny-per-usd: give the day the rate was taken"):
        with_default_rate(bare, "7.1", None)
    with pytest.raises(InputError, match="give the day"):
        with_default_rate(bare, "7.1", "")
    own = Build(name="x", exchange_rate=ExchangeRate(D("6.9"), "2025-12-01"))
    assert with_default_rate(own, "7.1", "2026-01-10") is own
    rated = with_default_rate(bare, "7.1", "2026-01-10")
    assert rated.exchange_rate == ExchangeRate(D("7.1"), "2026-01-10")


def test_a_default_rate_is_checked_like_a_builds() -> None:
    with pytest.raises(InputError, match="--rate: 'seven' is not a number"):
        with_default_rate(Build(name="x"), "seven", "2026-01-10", where="--rate")
    with pytest.raises(InputError, match="--rate: exchange_rate.cny_per_usd must be a "
                       "positive rate"):
        with_default_rate(Build(name="x"), "1001", "2026-01-10", where="--rate")
    with pytest.raises(InputError, match="exchange_rate.date"):
        with_default_rate(Build(name="x"), "7.1", "2026-02-30")


# --- every message names the file ---------------------------------------------------------------


def test_amount_messages_name_the_field() -> None:
    _refused("b.json: tax_rate must be an amount like", tax_rate="abc")
    _refused("b.json: discount.value must be an amount like",
             discount={"kind": "amount", "value": "x"})
    _refused("b.json: exchange_rate.cny_per_usd must be an amount like",
             exchange_rate={"cny_per_usd": "x", "date": "2026-01-10"})
    _refused("b.json: field 'format' is 'x', expected 'torchrig.build'", format="x")


def test_without_a_name_the_build_is_called_build() -> None:
    with pytest.raises(InputError, match=r"^build: nodes must be"):
        Build.from_dict(_doc(nodes=0))
    with pytest.raises(InputError, match=r"^build: line_items\[0\]\.part_id 'nope'"):
        Build(name="t", line_items=[LineItem(part_id="nope")]).check_parts(load_catalog())


def test_a_file_name_with_a_colon_keeps_the_field_name() -> None:
    with pytest.raises(InputError) as info:
        Build.from_dict(_doc(discount={"kind": "amount", "value": "5", "why": "x"}),
                        where="quotes: 2026/b.json")
    assert str(info.value) == ("quotes: 2026/b.json: discount.why is not a field of discount")


def test_save_names_the_file_it_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    with pytest.raises(InputError) as info:
        save_build(Build(name="x", nodes=0), path)
    assert str(info.value).startswith(f"{path}: nodes must be a whole number")
