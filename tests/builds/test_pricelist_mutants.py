"""Price-list import facts that mutation testing (scripts/mutate.py builds.pricelist) found
unpinned: every error message whole (the file's name, the line, the field), the default name of
an unnamed list, a zero or sub-unit price, a blank row followed by a good one, a line break
inside a quoted cell, an empty part id, the cap of 20 reported rows, every field of an override
and of a line it is applied to. The rules are builds/pricelist.py's module doc; the message
formats are those of catalog/money_text.py and catalog/fields.py, written out here by hand.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.pricelist import PriceOverride, load_price_list, parse_price_list
from torchrig.catalog import load_catalog
from torchrig.errors import InputError

HEADER = "part_id,price,currency,date"
GPU, CPU, L4 = "nvidia-rtx-4090", "intel-core-i9-13900k", "nvidia-l4"


def _refused(text: str, where: str = "p.csv") -> str:
    with pytest.raises(InputError) as caught:
        parse_price_list(text, load_catalog(), where=where)
    return str(caught.value)


# --- where the messages point --------------------------------------------------------------


def test_a_file_is_named_by_its_path_in_messages_and_on_the_list(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(f"{HEADER}\n{GPU},abc,CNY,2026-01\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_price_list(str(path), load_catalog())  # a str path is taken too
    assert str(caught.value) == (
        f'{path}: 1 bad row(s): line 2: price must be an amount like "12999.00", got \'abc\'')
    path.write_text(f"{HEADER}\n{GPU},100,CNY,2026-01\n", encoding="utf-8")
    plist = load_price_list(str(path), load_catalog())
    assert plist.path == str(path)
    assert plist.overrides[GPU].price == Decimal("100")


def test_an_unnamed_list_is_called_price_list() -> None:
    with pytest.raises(InputError) as caught:
        parse_price_list("", load_catalog())
    assert str(caught.value) == ("price list: the file is empty; expected a header "
                                 "part_id,price,currency,date[,source]")


def test_the_header_messages_whole() -> None:
    assert _refused("id,price\nx,1\n") == (
        "p.csv: line 1: header lacks column(s) part_id, currency, date; "
        "expected part_id,price,currency,date[,source]")


def test_each_bad_field_is_named_with_its_line() -> None:
    text = (f"{HEADER}\n"
            f"{GPU},-1,CNY,2026-01\n"      # line 2: negative
            f"{GPU},5,EUR,2026-01\n"       # line 3: currency
            f"{GPU},5,USD,2026-13\n"       # line 4: month 13
            f"{GPU},5\n")                  # line 5: too few columns
    assert _refused(text) == (
        "p.csv: 4 bad row(s): line 2: price must not be negative; "
        "line 3: currency must be CNY or USD, got 'EUR'; "
        "line 4: date must be a date YYYY-MM or YYYY-MM-DD, got '2026-13'; "
        "line 5: 2 column(s), expected 4")


def test_a_short_row_does_not_stop_the_check_of_the_rows_after_it() -> None:
    text = f"{HEADER}\n{GPU},5\n{CPU},x,CNY,2026-01\n"
    assert _refused(text) == (
        "p.csv: 2 bad row(s): line 2: 2 column(s), expected 4; "
        'line 3: price must be an amount like "12999.00", got \'x\'')


def test_a_bad_row_does_not_stop_the_check_of_the_rows_after_it() -> None:
    text = f"{HEADER}\n{GPU},x,CNY,2026-01\n{CPU},5\n"
    assert _refused(text) == (
        'p.csv: 2 bad row(s): line 2: price must be an amount like "12999.00", got \'x\'; '
        "line 3: 2 column(s), expected 4")


def test_the_line_check_names_the_row() -> None:
    # The build loader's own check (builds/build.py _line via catalog/line_price.py): a source
    # over 2,000 characters.
    text = f"{HEADER},source\n{GPU},5,CNY,2026-01,{'s' * 2001}\n"
    assert _refused(text) == ("p.csv: 1 bad row(s): line 2: row.price_source must be text "
                              "(at most 2000 characters)")


# --- what is accepted ------------------------------------------------------------------------


def test_a_zero_and_a_sub_unit_price_are_prices() -> None:
    # "must not be negative": 0 and 0.50 are allowed (a free part, a cable at half a yuan).
    plist = parse_price_list(f"{HEADER}\n{GPU},0,CNY,2026-01\n{CPU},0.50,USD,2026-02-03\n",
                             load_catalog())
    assert plist.overrides == {
        GPU: PriceOverride(GPU, Decimal("0"), "CNY", "2026-01", "", 2),
        CPU: PriceOverride(CPU, Decimal("0.50"), "USD", "2026-02-03", "", 3),
    }
    assert plist.warnings == ()


def test_blank_rows_are_skipped_and_the_rows_after_them_read() -> None:
    plist = parse_price_list(f"{HEADER}\n\n , , ,\n{GPU},7,CNY,2026-01\n", load_catalog())
    # The header is line 1, the blank rows lines 2 and 3, the price line 4.
    assert plist.overrides == {GPU: PriceOverride(GPU, Decimal("7"), "CNY", "2026-01", "", 4)}


def test_a_row_with_more_cells_than_the_header_is_read() -> None:
    plist = parse_price_list(f"{HEADER}\n{GPU},7,CNY,2026-01,extra\n", load_catalog())
    assert plist.overrides[GPU].price == Decimal("7")


def test_a_quoted_line_break_in_a_cell_is_kept_as_written() -> None:
    # csv needs newline="" to keep a "\r\n" inside quotes (Python's csv docs, "newline=''");
    # universal newlines would turn it into "\n".
    text = f'{HEADER},source\r\n{GPU},7,CNY,2026-01,"Supplier A\r\nbranch 2"\r\n'
    plist = parse_price_list(text, load_catalog())
    assert plist.overrides[GPU].source == "Supplier A\r\nbranch 2"


def test_an_empty_part_id_is_an_unknown_id_not_a_bad_row() -> None:
    plist = parse_price_list(f"{HEADER}\n,7,CNY,2026-01\n", load_catalog())
    assert plist.overrides == {}
    assert plist.warnings == ("line 2: unknown part id '' (skipped)",)


def test_the_warnings_whole() -> None:
    plist = parse_price_list(f"{HEADER},source\n"
                             "acme-widget,10,USD,2025-01,a\n"
                             f"{GPU},1700,USD,2025-01,first\n"
                             f"{GPU},1650,USD,2025-02,second\n", load_catalog(), where="w.csv")
    assert plist.warnings == ("line 2: unknown part id 'acme-widget' (skipped)",
                              f"line 4: {GPU} listed again (line 3); the later price is used")
    assert plist.overrides == {
        GPU: PriceOverride(GPU, Decimal("1650"), "USD", "2025-02", "second", 4)}
    assert plist.path == "w.csv"


def test_headers_are_read_without_case_or_spaces() -> None:
    plist = parse_price_list(" PART_ID ,Price,CURRENCY,Date,Source\n"
                             f"{GPU},7,cny,2026-01, shop \n", load_catalog())
    assert plist.overrides[GPU] == PriceOverride(GPU, Decimal("7"), "CNY", "2026-01", "shop", 2)


def test_columns_in_another_order() -> None:
    plist = parse_price_list(f"source,date,currency,price,part_id\nS,2026-01,USD,9,{GPU}\n",
                             load_catalog())
    assert plist.overrides[GPU] == PriceOverride(GPU, Decimal("9"), "USD", "2026-01", "S", 2)


def test_a_header_with_empty_names_is_not_a_repeat() -> None:
    # Two unnamed columns (a spreadsheet's trailing commas) are not "a column twice".
    plist = parse_price_list(f"{HEADER},,\n{GPU},7,CNY,2026-01,,\n", load_catalog())
    assert plist.overrides[GPU].price == Decimal("7")


# --- applying ------------------------------------------------------------------------------


def test_apply_sets_every_price_field_and_counts_each_line() -> None:
    plist = parse_price_list(f"{HEADER},source\n"
                             f"{GPU},15999,CNY,2026-01-02,Shop A\n"
                             f"{CPU},3299,USD,2026-02,\n", load_catalog(), where="/x/y/list.csv")
    custom = LineItem(text="cable", category="other", unit_price=Decimal("5"), currency="CNY")
    build = Build(name="t", line_items=[
        LineItem(part_id=L4),                                     # no override: kept
        custom,                                                   # a custom line: kept
        LineItem(part_id=GPU, quantity=2, unit_price=Decimal("1"), currency="USD",
                 price_source="tier", price_date="2020-01", price_kind="estimate", note="n"),
        LineItem(part_id=CPU),
    ])
    updated, changed = plist.apply(build)
    assert changed == 2
    assert updated.name == "t"
    assert updated.line_items[0] == LineItem(part_id=L4)
    assert updated.line_items[1] == custom
    # The published figure's kind goes: the price is the supplier's now.
    assert updated.line_items[2] == LineItem(
        part_id=GPU, quantity=2, unit_price=Decimal("15999"), currency="CNY",
        price_source="Shop A", price_date="2026-01-02", price_kind="", note="n")
    # No source column value: the list's file name and line.
    assert updated.line_items[3] == LineItem(
        part_id=CPU, unit_price=Decimal("3299"), currency="USD",
        price_source="price list list.csv line 3", price_date="2026-02")


# --- many bad rows -------------------------------------------------------------------------


def test_the_count_of_rows_not_shown_is_never_cut_off() -> None:
    # 21 rows with two cells each (lines 2..22). InputError keeps 600 characters
    # (errors.MAX_MESSAGE); the rows shown leave room for the "and N more" clause (29
    # characters, pricelist.MORE_ROOM). By hand: head "p.csv: 21 bad row(s): " is 22
    # characters; "line 2: 2 column(s), expected 4" is 31 for lines 2-9 and 32 for 10-22,
    # joined by "; ". 16 rows (lines 2-17): 8 x 31 + 8 x 32 + 15 x 2 = 534, and 22 + 534 + 29
    # = 585 <= 600; a 17th makes 568, 22 + 568 + 29 = 619 > 600. So 16 shown, 21 - 16 = 5 more.
    message = _refused(f"{HEADER}\n" + f"{GPU},5\n" * 21)
    shown = "; ".join(f"line {n}: 2 column(s), expected 4" for n in range(2, 18))
    assert message == f"p.csv: 21 bad row(s): {shown}; and 5 more bad row(s)"
    assert len(message) == 22 + 534 + len("; and 5 more bad row(s)")


def test_one_long_bad_row_is_still_shown() -> None:
    # The first row is always shown, even when it alone is past the limit (InputError then
    # shortens the message); the second is counted.
    value = "x" * 700
    message = _refused(f"{HEADER}\n{GPU},{value},CNY,2026-01\n{GPU},5\n")
    assert message.startswith("p.csv: 2 bad row(s): line 2: price must be an amount like")
    assert message.endswith(" … (shortened)")


def test_a_cell_over_the_csv_field_limit_is_not_a_csv_file() -> None:
    # Python's csv module refuses a field over its limit, 131,072 characters by default
    # (csv.field_size_limit()), with "field larger than field limit (131072)".
    message = _refused(f"{HEADER}\n{GPU},{'1' * 131_073},CNY,2026-01\n")
    assert message == "p.csv: not a valid CSV file (field larger than field limit (131072))"


def test_a_row_that_fills_the_message_exactly_is_shown() -> None:
    # The same 21 rows under a 20-character name: head "supplier_prices1.csv: 21 bad
    # row(s): " is 20 + 17 = 37 characters; 16 rows join to 534; 37 + 534 + 29 = 600, exactly
    # errors.MAX_MESSAGE, so the 16th row still fits (only "over" the limit stops).
    where = "supplier_prices1.csv"
    assert len(where) == 20
    message = _refused(f"{HEADER}\n" + f"{GPU},5\n" * 21, where=where)
    shown = "; ".join(f"line {n}: 2 column(s), expected 4" for n in range(2, 18))
    assert message == f"{where}: 21 bad row(s): {shown}; and 5 more bad row(s)"
