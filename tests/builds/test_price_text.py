"""One price rule everywhere (issue 28): a price typed into the Build page's table, a price-list
CSV, a build file's JSON string and the Wizard's money fields read the same text the same way.

The table below is the rule written out by hand (catalog/money_text.py's docstring): a point is
the decimal mark, a comma only ever separates groups of three digits, and anything else with a
comma is refused with a message saying how to write the amount. Each entry point is fed the
whole table.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.build_editor import BuildEditor, parse_price
from torchrig.builds.pricelist import load_price_list, parse_price_list
from torchrig.catalog import load_catalog
from torchrig.errors import InputError
from torchrig.planning.advice import positive_amount
from torchrig.planning.wizard_model import parse_number

PART = "nvidia-rtx-4090"

UNDERSTOOD = [
    ("1299", Decimal("1299")),
    ("1299.00", Decimal("1299.00")),
    ("1,299.00", Decimal("1299.00")),
    ("12,999", Decimal("12999")),
    ("1,000,000.50", Decimal("1000000.50")),
    ("999", Decimal("999")),
]

AMBIGUOUS = [
    "1.299,00",   # European grouping: 1299 to some, 1.299 to others
    "1,29",       # a decimal comma, or a typo for 1,290
    "1299,00",    # a decimal comma
    "1,2,3",      # commas not between groups of three
    "12,99.0",
    "1,2999",
    ",299",
    "1,299,",
]
HOW_TO_WRITE = ('must be an amount like "12999.00" or "12,999.00" (a point before the '
                "decimals; commas only between groups of three digits)")

NOT_AN_AMOUNT = ["1e3", "1_000", "abc", "12.5.1", "1 299"]

NEGATIVE_ZERO = ["-0", "-0.00", "-0,000"]
"""Zero, with a sign that means nothing: it must not come back as Decimal('-0')."""


def _no_negative_zero(value: Decimal) -> None:
    assert value == 0 and not value.is_signed(), repr(value)
    assert not f"{value:.2f}".startswith("-")


# --- the table cell's parser -----------------------------------------------------------------


@pytest.mark.parametrize(("typed", "amount"), UNDERSTOOD)
def test_the_cell_understands_plain_and_grouped_amounts(typed, amount):
    assert parse_price(typed) == amount
    assert parse_price(f"CNY {typed}") == amount  # a currency mark is dropped first


@pytest.mark.parametrize("typed", AMBIGUOUS)
def test_the_cell_refuses_ambiguous_commas_saying_how_to_write_them(typed):
    with pytest.raises(InputError) as caught:
        parse_price(typed, "Unit price")
    assert str(caught.value) == f"Unit price {HOW_TO_WRITE}, got {typed!r}"


@pytest.mark.parametrize("typed", NOT_AN_AMOUNT)
def test_the_cell_refuses_what_is_not_an_amount(typed):
    with pytest.raises(InputError, match="must be an amount like"):
        parse_price(typed)


@pytest.mark.parametrize("typed", NEGATIVE_ZERO)
def test_negative_zero_is_zero_in_the_cell(typed):
    _no_negative_zero(parse_price(typed))


def test_a_typed_ambiguous_price_leaves_the_build_as_it_was(tmp_path):
    catalog = load_catalog()
    build = Build(name="t", line_items=[LineItem(part_id=PART)])
    editor = BuildEditor(catalog, build, recovery_file=tmp_path / "r.json")
    with pytest.raises(InputError, match="commas only between groups of three"):
        editor.with_cell(0, "unit_price", "1.299,00")
    assert editor.build.line_items[0].unit_price is None
    edited = editor.with_cell(0, "unit_price", "1,299.00")
    assert edited.line_items[0].unit_price == Decimal("1299.00")
    edited = editor.with_cell(0, "unit_price", "-0.00")
    _no_negative_zero(edited.line_items[0].unit_price)
    # A negative price is the build file's refusal (catalog/line_price.py).
    with pytest.raises(InputError, match="unit_price must not be negative"):
        editor.with_cell(0, "unit_price", "-1,299.00")


# --- the price-list CSV importer -------------------------------------------------------------


def _csv(price: str) -> str:
    # The csv module's quoting: a price with a comma is one quoted field.
    return f'part_id,price,currency,date\n{PART},"{price}",CNY,2026-11-01\n'


@pytest.mark.parametrize(("typed", "amount"), UNDERSTOOD)
def test_the_price_list_understands_the_same_amounts(typed, amount):
    plist = parse_price_list(_csv(typed), load_catalog())
    assert plist.overrides[PART].price == amount


@pytest.mark.parametrize("typed", AMBIGUOUS)
def test_the_price_list_refuses_the_same_ambiguous_amounts(typed):
    with pytest.raises(InputError) as caught:
        parse_price_list(_csv(typed), load_catalog(), where="p.csv")
    assert str(caught.value) == f"p.csv: 1 bad row(s): line 2: price {HOW_TO_WRITE}, got " \
                                f"{typed!r}"


@pytest.mark.parametrize("typed", NEGATIVE_ZERO)
def test_negative_zero_is_zero_in_the_price_list(typed):
    _no_negative_zero(parse_price_list(_csv(typed), load_catalog()).overrides[PART].price)


def test_a_negative_price_in_a_price_list_is_refused():
    with pytest.raises(InputError, match="line 2: price must not be negative"):
        parse_price_list(_csv("-1,299.00"), load_catalog())


# --- a build file's JSON ---------------------------------------------------------------------


def _build_file(tmp_path: Path, price: str) -> Path:
    path = tmp_path / "b.json"
    path.write_text(json.dumps({
        "format": "torchrig.build", "version": 1, "name": "t",
        "line_items": [{"part_id": PART, "quantity": 1, "unit_price": price,
                        "currency": "CNY"}]}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("typed", "amount"), UNDERSTOOD)
def test_a_build_file_reads_the_same_amounts_and_saves_them_plain(tmp_path, typed, amount):
    build = load_build(_build_file(tmp_path, typed))
    assert build.line_items[0].unit_price == amount
    # What the file is written back with is the plain form (no grouping in files).
    assert build.to_dict()["line_items"][0]["unit_price"] == str(amount)


@pytest.mark.parametrize("typed", AMBIGUOUS)
def test_a_build_file_refuses_the_same_ambiguous_amounts_and_is_left_alone(tmp_path, typed):
    path = _build_file(tmp_path, typed)
    before = path.read_bytes()
    with pytest.raises(InputError) as caught:
        load_build(path)
    assert str(caught.value) == (f"{path}: line_items[0].unit_price {HOW_TO_WRITE}, got "
                                 f"{typed!r}")
    assert path.read_bytes() == before


@pytest.mark.parametrize("typed", NEGATIVE_ZERO)
def test_negative_zero_in_a_build_file_is_zero(tmp_path, typed):
    build = load_build(_build_file(tmp_path, typed))
    _no_negative_zero(build.line_items[0].unit_price)
    assert not build.to_dict()["line_items"][0]["unit_price"].startswith("-")


def test_negative_zero_as_a_json_number_is_zero(tmp_path):
    path = tmp_path / "b.json"
    path.write_text('{"format": "torchrig.build", "version": 1, "name": "t", "line_items": '
                    f'[{{"part_id": "{PART}", "quantity": 1, "unit_price": -0.0, '
                    '"currency": "CNY"}]}')
    _no_negative_zero(load_build(path).line_items[0].unit_price)


# --- the Wizard's money fields and the CLI's amounts -----------------------------------------


@pytest.mark.parametrize(("typed", "amount"), UNDERSTOOD)
def test_the_wizards_amounts_are_read_the_same(typed, amount):
    assert positive_amount(typed, "GPU-hour price") == amount


@pytest.mark.parametrize("typed", AMBIGUOUS)
def test_the_wizards_amounts_refuse_the_same(typed):
    with pytest.raises(InputError) as caught:
        positive_amount(typed, "GPU-hour price")
    assert str(caught.value) == f"GPU-hour price {HOW_TO_WRITE}, got {typed!r}"


@pytest.mark.parametrize("typed", NEGATIVE_ZERO)
def test_a_wizard_amount_of_negative_zero_is_not_positive(typed):
    with pytest.raises(InputError, match="must be a positive number"):
        positive_amount(typed, "GPU-hour price")


@pytest.mark.parametrize(("typed", "value"), [("12,999", 12999), ("1,000,000", 1_000_000),
                                              ("1_000", 1000), ("3e-4", 3e-4), ("512", 512)])
def test_the_wizards_number_fields_take_thousands_commas(typed, value):
    assert parse_number(typed, "float") == (value, None)


@pytest.mark.parametrize("typed", ["1,5", "1.299,00", "12,99.0", "1,2,3"])
def test_the_wizards_number_fields_refuse_a_comma_that_is_not_grouping(typed):
    number, error = parse_number(typed, "float")
    assert number is None and error is not None and error.kind == "not_a_number"


def test_load_price_list_from_a_file_reads_a_quoted_grouped_price(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(_csv("15,999.00"), encoding="utf-8")
    assert load_price_list(path, load_catalog()).overrides[PART].price == Decimal("15999.00")


@pytest.mark.parametrize("typed", NEGATIVE_ZERO)
def test_a_discount_of_negative_zero_is_zero_and_a_negative_one_is_refused(tmp_path, typed):
    """The build format: discount.value must not be negative (builds/build.py)."""
    path = tmp_path / "b.json"
    doc = {"format": "torchrig.build", "version": 1, "name": "t",
           "discount": {"kind": "amount", "value": typed}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    discount = load_build(path).discount
    assert discount is not None
    _no_negative_zero(discount.value)
    doc["discount"]["value"] = "-1,000.00"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(InputError, match="discount.value must not be negative"):
        load_build(path)
