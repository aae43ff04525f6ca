"""Supplier price lists (CSV): good rows become overrides, bad rows are reported by line."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.pricelist import MAX_PRICE_LIST_BYTES, load_price_list
from torchrig.builds.pricing import price_build
from torchrig.catalog import load_catalog
from torchrig.errors import InputError


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "prices.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_good_file_with_source_column(tmp_path: Path) -> None:
    path = _csv(tmp_path, "part_id,price,currency,date,source\n"
                          "nvidia-rtx-4090,15999.00,CNY,2025-06-01,Supplier A\n"
                          "intel-core-i9-13900k,3299,cny,2025-06,\n")
    plist = load_price_list(path, load_catalog())
    assert plist.warnings == ()
    ov = plist.overrides["nvidia-rtx-4090"]
    assert (ov.price, ov.currency, ov.date, ov.source, ov.line) == (
        Decimal("15999.00"), "CNY", "2025-06-01", "Supplier A", 2)
    assert plist.overrides["intel-core-i9-13900k"].currency == "CNY"


def test_apply_sets_overrides_on_matching_lines(tmp_path: Path) -> None:
    path = _csv(tmp_path, "part_id,price,currency,date\nnvidia-rtx-4090,15999,CNY,2025-06-01\n")
    cat = load_catalog()
    build = Build(name="t", line_items=[LineItem(part_id="nvidia-rtx-4090"),
                                        LineItem(part_id="nvidia-l4")])  # unpriced
    updated, changed = load_price_list(path, cat).apply(build)
    assert changed == 1
    assert build.line_items[0].unit_price is None  # the original build is untouched
    priced = price_build(updated, cat)
    assert priced.lines[0].unit_price == Decimal("15999.00")
    assert priced.lines[0].origin.en == "build override (price list prices.csv line 2, 2025-06-01)"
    assert priced.lines[1].status == "price needed"


def test_unknown_ids_and_repeats_are_warnings(tmp_path: Path) -> None:
    path = _csv(tmp_path, "part_id,price,currency,date\n"
                          "acme-widget,10,USD,2025-01\n"
                          "nvidia-rtx-4090,1700,USD,2025-01\n"
                          "nvidia-rtx-4090,1650,USD,2025-02\n")
    plist = load_price_list(path, load_catalog())
    assert len(plist.warnings) == 2
    assert "line 2" in plist.warnings[0] and "acme-widget" in plist.warnings[0]
    assert "line 4" in plist.warnings[1]
    assert plist.overrides["nvidia-rtx-4090"].price == Decimal("1650")


def test_every_bad_row_is_reported_with_its_line(tmp_path: Path) -> None:
    path = _csv(tmp_path, "part_id,price,currency,date\n"
                          "nvidia-rtx-4090,abc,USD,2025-01\n"
                          "nvidia-rtx-3090,100,EUR,2025-01\n"
                          "\n"
                          "nvidia-rtx-a6000,100,USD,yesterday\n"
                          "nvidia-l40s,100\n"
                          "nvidia-rtx-5090,-3,USD,2025-01\n")
    with pytest.raises(InputError) as info:
        load_price_list(path, load_catalog())
    message = str(info.value)
    assert "5 bad row(s)" in message
    for number in (2, 3, 5, 6, 7):
        assert f"line {number}" in message


@pytest.mark.parametrize(("text", "fragment"), [
    ("", "empty"),
    ("id,price\nnvidia-rtx-4090,1\n", "header lacks column(s) part_id, currency, date"),
    ('part_id,price,currency,date\n"unterminated,1,USD,2025-01\n', "bad row"),
])
def test_malformed_files(tmp_path: Path, text: str, fragment: str) -> None:
    with pytest.raises(InputError, match="prices.csv") as info:
        load_price_list(_csv(tmp_path, text), load_catalog())
    assert fragment in str(info.value)


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    with path.open("wb") as handle:
        handle.truncate(MAX_PRICE_LIST_BYTES + 1)
    with pytest.raises(InputError, match="larger than the 5 MB limit"):
        load_price_list(path, load_catalog())


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_price_list(tmp_path / "nope.csv", load_catalog())


def test_a_source_too_long_for_a_build_file_is_a_bad_row(tmp_path: Path) -> None:
    """The import writes the source into the build; the build loader allows 2,000 characters,
    so the import refuses more (before, the build saved and then never opened again)."""
    path = _csv(tmp_path, "part_id,price,currency,date,source\n"
                          f"nvidia-rtx-4090,15999.00,CNY,2025-06-01,{'s' * 2001}\n")
    with pytest.raises(InputError, match="line 2: row.price_source must be text"):
        load_price_list(path, load_catalog())
