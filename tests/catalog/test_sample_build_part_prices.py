"""Prices for the parts the sample and tier builds use, and the priced parts that replace the
ones no source prices (each replacement must fit at least as well as the part it replaces)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from torchrig.catalog import load_catalog

PCPP_CSV = "PCPP-DS data/csv/"  # the PCPartPicker dataset key, then the category file

# id: (amount, currency, date, kind, reliability, PCPartPicker file)
BUILD_PART_PRICES = {
    "asus-prime-b660-plus-d4": ("179.99", "USD", "2025-07-23", "retail", "high",
                                "motherboard.csv"),
    "gigabyte-b650m-aorus-elite-ax-ice": ("199.99", "USD", "2025-07-23", "retail", "high",
                                          "motherboard.csv"),
    # The listing names no part number and OpenDB gives the WD4003FZEX the same name: medium.
    "western-digital-black-4tb-wd4001faex": ("112.99", "USD", "2025-07-23", "retail", "medium",
                                             "internal-hard-drive.csv"),
    "corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2b3200c16": (
        "71.98", "USD", "2025-07-23", "retail", "medium", "memory.csv"),
    "corsair-7000d-airflow": ("289.99", "USD", "2025-07-23", "retail", "high", "case.csv"),
}


@pytest.mark.parametrize("pid", sorted(BUILD_PART_PRICES))
def test_build_part_prices(pid: str) -> None:
    amount, currency, date, kind, reliability, csv = BUILD_PART_PRICES[pid]
    prices = load_catalog().get(pid).prices
    assert [(p.amount, p.currency, p.date, p.kind, p.reliability, p.source)
            for p in prices] == [
        (Decimal(amount), currency, date, kind, reliability, PCPP_CSV + csv)]
    assert "listing '" in (prices[0].note or "")


@pytest.mark.parametrize("pid", ["nfortec-krater-x",
                                 "corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2z3200c16w"])
def test_parts_without_a_sourced_price_still_ask_for_one(pid: str) -> None:
    assert load_catalog().get(pid).prices == ()


def test_replacement_case_fits_at_least_what_the_krater_x_fits() -> None:
    cat = load_catalog()
    old, new = cat.get("nfortec-krater-x").case, cat.get("corsair-7000d-airflow").case
    assert set(old.board_form_factors) <= set(new.board_form_factors)
    assert old.max_gpu_length_mm is not None and new.max_gpu_length_mm is not None
    assert old.max_cooler_height_mm is not None and new.max_cooler_height_mm is not None
    assert new.max_gpu_length_mm >= old.max_gpu_length_mm
    assert new.max_cooler_height_mm >= old.max_cooler_height_mm
    # Two 3-slot cards need the slot count the Krater X's data sheet does not give.
    assert old.expansion_slots is None and new.expansion_slots == 8


def test_replacement_memory_kit_matches_the_white_kit() -> None:
    cat = load_catalog()
    white = cat.get("corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2z3200c16w").memory
    black = cat.get("corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2b3200c16").memory
    assert black == white
    assert (black.memory_type, black.speed_mts, black.modules, black.module_bytes,
            black.cas_latency) == ("DDR4", 3200, 2, 16 * 2**30, 16)
