"""Sourced prices and 2026 parts for PSUs, cases, memory, storage and network cards."""

from __future__ import annotations

from decimal import Decimal

import pytest

from torchrig.catalog import load_catalog
from torchrig.catalog.model import best_catalog_price

PCPP = "PCPP-DS "  # the PCPartPicker dataset key, then the category file
CATEGORIES = ("psu", "case", "memory", "storage", "network")


@pytest.mark.parametrize(("part_id", "amount"), [
    ("corsair-rm850x-2021", "198.98"),
    ("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", "149.99"),
    ("corsair-vengeance-lpx-16gb-ddr4-3200-cmk16gx4m2b3200c16", "45.99"),
    ("samsung-970-pro-512gb", "239.99"),
    ("samsung-990-pro-1tb", "99.99"),
    ("samsung-990-pro-2tb", "149.99"),
])
def test_tier_parts_have_a_dated_retail_price(part_id: str, amount: str) -> None:
    price = best_catalog_price(load_catalog().get(part_id), "USD")
    assert price is not None
    assert (price.amount, price.currency, price.kind, price.date) == (
        Decimal(amount), "USD", "retail", "2025-07-23")
    assert price.source.startswith(PCPP)


def test_launch_price_history_is_kept_beside_the_street_price() -> None:
    prices = load_catalog().get("samsung-970-pro-512gb").prices
    msrp = [(p.date, p.amount) for p in prices if p.kind == "launch-msrp"]
    assert msrp == [("2018-04", Decimal("329.99")), ("2018-05-07", Decimal("249.99"))]


def test_every_scraped_price_names_its_listing() -> None:
    # A PCPartPicker row names a model, not always the exact part number or revision: the note
    # says which row was used so a reader can judge the match.
    for part in load_catalog().parts.values():
        if part.category not in CATEGORIES:
            continue
        for price in part.prices:
            if price.source.startswith(PCPP):
                assert price.note and "listing '" in price.note, part.id
                assert price.reliability in ("high", "medium"), part.id


def test_dual_gpu_power_supplies() -> None:
    cat = load_catalog()
    assert cat.get("msi-meg-ai1600t-pcie5").psu.pcie_12v_2x6_connectors == 2
    tx = cat.get("seasonic-prime-tx-1600").psu
    assert (tx.wattage_w, tx.pcie_12v_2x6_connectors, tx.length_mm) == (1600, 2, 210)
    assert cat.get("seasonic-prime-px-2200").psu.wattage_w == 2200
    # The ATX 3.1 revision's counts from Seasonic's 2024 specification sheet (fin26).
    tx31 = cat.get("seasonic-prime-tx-1600-atx-3-1")
    assert (tx31.psu.pcie_12v_2x6_connectors, tx31.psu.pcie_8pin_connectors) == (2, 6)
    assert tx31.field_sources["pcie_12v_2x6_connectors"] == "SEASONIC-PRIME-TX-2024"
    # Unsourced connector counts stay unknown rather than guessed.
    assert cat.get("corsair-hx1500i-2025").psu.pcie_12v_2x6_connectors is None


def test_dpu_and_enterprise_storage_facts() -> None:
    cat = load_catalog()
    b3220 = cat.get("nvidia-bluefield-3-b3220").network
    assert (b3220.rate_bits_per_s, b3220.ports, b3220.host_pcie_gen) == (200e9, 2, 5)
    pm9d3a = cat.get("samsung-pm9d3a-7-68tb-mzwl67t6hblc").storage
    assert (pm9d3a.pcie_gen, pm9d3a.endurance_tbw) == (5, 14016)
    assert pm9d3a.capacity_bytes == 7680 * 10**9
    rdimm = cat.get("samsung-96gb-ddr5-5600-rdimm-m321ryga0pb0-cwm").memory
    assert (rdimm.module_form, rdimm.ecc, rdimm.total_bytes) == ("RDIMM", True, 96 * 2**30)
