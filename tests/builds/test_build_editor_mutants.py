"""Build-editor facts that mutation testing (scripts/mutate.py builds.build_editor) found
unpinned: a new editor's state, the region and default rate reaching the findings and the
prices, a rate of exactly 1 and a discount below 1, a header of no rate and no discount, the
field named for a bad project, node count or currency, the tax rounded to four places of a
percent, a cleared or typed price dropping the published figure's source, date and kind, a
quantity of exactly 1, a new line's quantity, and a price list applied through the editor.
Figures: builds/build_editor.py's docs; the wall check's from docs/hardware-sources.md sec. 8
(i9-13900K 253 W, RTX 4090 450 W, 150 W for the rest, 80 PLUS Gold 87 % at 115 V, a US
15 A outlet carries 1,440 W continuously, a 20 A circuit 1,920 W).
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, Discount, ExchangeRate, LineItem
from torchrig.builds.build_editor import (
    BuildEditor,
    HeaderError,
    HeaderValues,
    NewBuildDefaults,
    new_build,
    parse_price,
)
from torchrig.builds.compat import check_build
from torchrig.builds.pricing import DefaultRate
from torchrig.catalog import load_catalog
from torchrig.errors import InputError
from torchrig.i18n import Msg

GPU, CPU, GOLD = "nvidia-rtx-4090", "intel-core-i9-13900k", "corsair-rm1000x"
TODAY = datetime.date(2026, 3, 14)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _editor(catalog, tmp_path: Path, build: Build | None = None) -> BuildEditor:
    return BuildEditor(catalog, build or Build(name="Lab box"),
                       recovery_file=tmp_path / "mine.json")


def _header(build: Build, **changes: object) -> HeaderValues:
    values: dict[str, object] = dict(
        name=build.name, customer=build.customer, project=build.project, nodes=build.nodes,
        currency=build.currency, rate=0.0, rate_date="", tax_percent=0.0, discount=0.0)
    values.update(changes)
    return HeaderValues(**values)  # type: ignore[arg-type]


def test_a_new_editors_state(catalog, tmp_path) -> None:
    build = Build(name="g", line_items=[LineItem(part_id=GPU)])
    editor = _editor(catalog, tmp_path, build)
    assert editor.recovery_file == tmp_path / "mine.json"
    assert editor.dirty is False and editor.clean_state_is_saved is True
    assert editor.path is None and editor.region is None and editor.default_rate is None
    # A GPU alone: the findings the build check gives it (no CPU, board or supply).
    codes = [f.code for f in editor.findings]
    assert codes and codes == [f.code for f in check_build(build, catalog)]
    assert [line.part_id for line in editor.priced.lines] == [GPU]


def test_the_region_and_the_default_rate_reach_the_checks_and_prices(catalog, tmp_path) -> None:
    # Four RTX 4090s: 253 + 4 x 450 + 150 = 2,203 W DC / 0.87 = 2,532 W, over a US 20 A
    # circuit's 1,920 W: a wall finding in "us", none without a region.
    # A USD line in a CNY build: USD 100 x 7.2 = CNY 720.00 with the default rate.
    build = Build(name="w", line_items=[
        LineItem(part_id=CPU), LineItem(part_id=GPU, quantity=4), LineItem(part_id=GOLD,
                                                                             quantity=3),
        LineItem(text="service", category="service", unit_price=Decimal("100"),
                 currency="USD")])
    editor = _editor(catalog, tmp_path, build)
    assert not any(f.code.startswith("wall.") for f in editor.findings)
    service = editor.priced.lines[3]
    assert service.total is None and service.status == "exchange rate needed"
    editor.set_context("us", DefaultRate(Decimal("7.2"), "2026-01-01", Msg("s", "s")))
    assert editor.region == "us"
    assert [f.code for f in editor.findings if f.code.startswith("wall.")] == ["wall.circuit"]
    assert editor.priced.lines[3].total == Decimal("720.00")
    # An edit keeps the context.
    editor.set_build(editor.build)
    assert editor.priced.lines[3].total == Decimal("720.00")
    assert any(f.code == "wall.circuit" for f in editor.findings)


def test_a_settings_rate_of_exactly_one_and_below(catalog) -> None:
    # Any rate above 0 is a rate (the file allows 0.01 to 1,000 CNY per USD).
    one = new_build(NewBuildDefaults("CNY", 1.0, "2026-01-05"), "x")
    assert one.exchange_rate == ExchangeRate(Decimal("1"), "2026-01-05")
    half = new_build(NewBuildDefaults("CNY", 0.5, "2026-01-05"), "x")
    assert half.exchange_rate == ExchangeRate(Decimal("0.5"), "2026-01-05")


def test_the_unit_price_field_is_named_by_default() -> None:
    with pytest.raises(InputError) as caught:
        parse_price("abc")
    assert str(caught.value) == "Unit price must be an amount like \"12999.00\", got 'abc'"


def test_no_rate_and_no_discount_in_the_header_are_none(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path, Build(
        name="x", exchange_rate=ExchangeRate(Decimal("7"), "2026-01-01"),
        discount=Discount("percent", Decimal("5"))))
    build = editor.with_header(_header(editor.build))
    assert build.exchange_rate is None and build.discount is None


def test_a_discount_below_one_and_a_rate_of_one(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path)
    build = editor.with_header(_header(editor.build, discount=0.5, rate=1.0,
                                       rate_date="2026-01-01"))
    assert build.discount == Discount("percent", Decimal("0.5"))
    assert build.exchange_rate == ExchangeRate(Decimal("1"), "2026-01-01")


def test_the_tax_is_rounded_to_four_places_of_a_percent(catalog, tmp_path) -> None:
    # 12.34567 % -> round(12.34567, 4) = 12.3457 -> 0.123457.
    editor = _editor(catalog, tmp_path)
    assert editor.with_header(_header(editor.build, tax_percent=12.34567)).tax_rate == \
        Decimal("0.123457")


@pytest.mark.parametrize(("changes", "field"), [
    ({"project": "p" * 201}, "project"),
    ({"nodes": 0}, "nodes"),
    ({"currency": "EUR"}, "currency"),
])
def test_more_header_fields_that_name_themselves(catalog, tmp_path, changes, field) -> None:
    editor = _editor(catalog, tmp_path)
    with pytest.raises(HeaderError) as caught:
        editor.with_header(_header(editor.build, **changes))
    assert caught.value.field == field


def _estimated() -> Build:
    # A tier's published figure on a line: source, date and kind.
    return Build(name="t", line_items=[LineItem(
        part_id=GPU, quantity=2, unit_price=Decimal("12999"), currency="CNY",
        price_source="estimate: a sheet", price_date="2025-01", price_kind="estimate",
        note="keep")])


def test_clearing_a_price_drops_its_source_date_and_kind(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path, _estimated())
    build = editor.with_cell(0, "unit_price", "  ")
    assert build.line_items == [LineItem(part_id=GPU, quantity=2, note="keep")]


def test_a_typed_price_is_the_shops_own_not_an_estimate(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path, _estimated())
    build = editor.with_cell(0, "unit_price", "13,500", today=TODAY)
    assert build.line_items == [LineItem(
        part_id=GPU, quantity=2, unit_price=Decimal("13500"), currency="CNY",
        price_source="edited in TorchRig", price_date="2026-03-14", price_kind="",
        note="keep")]


def test_a_quantity_of_exactly_one(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path, _estimated())
    assert editor.with_cell(0, "quantity", " 1 ").line_items[0].quantity == 1


def test_a_new_line_takes_the_quantity_given(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path)
    assert editor.with_part(GPU, 3).line_items == [LineItem(part_id=GPU, quantity=3)]


def test_a_price_list_through_the_editor(catalog, tmp_path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text("part_id,price,currency,date\nacme-x,1,CNY,2026-01\n"
                    f"{GPU},15999,CNY,2026-02\n", encoding="utf-8")
    editor = _editor(catalog, tmp_path, Build(name="p", line_items=[
        LineItem(part_id=CPU), LineItem(part_id=GPU)]))
    build, applied, warnings = editor.with_price_list(path)
    assert applied == 1
    assert warnings == ["line 2: unknown part id 'acme-x' (skipped)"]
    assert build.line_items == [LineItem(part_id=CPU), LineItem(
        part_id=GPU, unit_price=Decimal("15999"), currency="CNY",
        price_source="price list prices.csv line 3", price_date="2026-02")]
    assert editor.build.line_items[1].unit_price is None   # only returned, not applied


def test_restore_takes_the_snapshots_build_and_state(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path)
    other = Build(name="other", line_items=[LineItem(part_id=GPU)])
    editor.restore({"build": other, "path": tmp_path / "q.json", "dirty": True})
    assert editor.build == other and editor.dirty is True
    assert editor.path == tmp_path / "q.json" and editor.clean_state_is_saved is False
    editor.restore({"build": Build(name="saved"), "path": None, "dirty": False})
    assert editor.build == Build(name="saved") and editor.dirty is False
    assert editor.clean_state_is_saved is True


def test_back_at_the_saved_state_is_clean(catalog, tmp_path) -> None:
    editor = _editor(catalog, tmp_path)
    editor.set_build(editor.with_part(GPU))
    assert editor.reached_clean_state() is True
    assert editor.dirty is False
    assert editor.reached_clean_state() is False       # already clean
