"""A price list whose header names a column twice (issue 28): which "price" is the price would be
a guess, so the file is refused naming the column, and nothing is applied."""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.build_editor import BuildEditor
from torchrig.builds.pricelist import parse_price_list
from torchrig.catalog import load_catalog
from torchrig.errors import InputError

PART = "nvidia-rtx-4090"


@pytest.mark.parametrize(("header", "row", "column"), [
    ("part_id,price,currency,date,price", "15999,CNY,2026-11-01,1", "price"),
    # Case and spaces do not make two columns different: the importer reads "Price" as "price".
    ("part_id,price,currency,date, Price ", "15999,CNY,2026-11-01,1", "price"),
    ("part_id,part_id,price,currency,date", f"{PART},15999,CNY,2026-11-01", "part_id"),
    ("part_id,price,currency,date,source,source", "15999,CNY,2026-11-01,a,b", "source"),
    # Any repeated header, also one the importer does not read.
    ("part_id,price,currency,date,note,note", "15999,CNY,2026-11-01,a,b", "note"),
])
def test_a_repeated_column_is_refused_naming_it(header, row, column):
    text = f"{header}\n{PART},{row}\n"
    with pytest.raises(InputError) as caught:
        parse_price_list(text, load_catalog(), where="p.csv")
    assert str(caught.value) == (f"p.csv: line 1: column {column!r} appears more than once "
                                 "in the header; keep one")


def test_nothing_is_applied_from_a_list_with_a_repeated_column(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(f"part_id,price,currency,date,price\n{PART},15999,CNY,2026-11-01,1\n",
                    encoding="utf-8")
    editor = BuildEditor(load_catalog(), Build(name="t", line_items=[LineItem(part_id=PART)]),
                         recovery_file=tmp_path / "r.json")
    with pytest.raises(InputError, match="column 'price' appears more than once"):
        editor.with_price_list(path)
    assert editor.build.line_items[0].unit_price is None


def test_blank_trailing_header_cells_are_not_a_repeated_column():
    """A spreadsheet's export often ends each line in commas: empty names are not columns."""
    text = f"part_id,price,currency,date,,\n{PART},15999,CNY,2026-11-01,,\n"
    assert parse_price_list(text, load_catalog()).overrides[PART].price == 15999
