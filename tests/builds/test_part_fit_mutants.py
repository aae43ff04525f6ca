"""Picker facts that mutation testing (scripts/mutate.py builds.part_fit) found unpinned: a
price in its own currency needs no rate, a part with no price, the rate's direction both ways;
a candidate in a line's place keeps its quantity, scope and note and nothing of its price;
"added once" for memory even when the build has memory; replaced categories leave cluster
lines and custom lines alone; "compatible" means no blocker the build does not already have.
Prices are the shipped catalog's (resources/catalog, each with its source): the RTX 4090's
CNY 12,999 launch price, the i9-13900K's USD 589 recommended customer price.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from torchrig.builds.build import Build, ExchangeRate, LineItem
from torchrig.builds.compat import check_build
from torchrig.builds.part_fit import (
    REPLACED_CATEGORIES,
    compatible_parts,
    price_in,
    with_candidate,
)
from torchrig.catalog import load_catalog
from torchrig.findings import Severity

GPU, CPU, RYZEN = "nvidia-rtx-4090", "intel-core-i9-13900k", "amd-ryzen-9-7950x"
RAM = "kingston-fury-beast-64gb-ddr5-6000-kf560c36bbek2-64"
Z790, CASE = "asus-rog-maximus-z790-formula", "nfortec-caelum"
RATE = ExchangeRate(Decimal("7.1"), "2026-11-30")


def test_prices_in_each_currency() -> None:
    cat = load_catalog()
    gpu, cpu = cat.get(GPU), cat.get(CPU)
    amount, price = price_in(gpu, "CNY", None)          # its own currency: no rate needed
    assert amount == Decimal("12999") and price is not None and price.currency == "CNY"
    # USD 589 into CNY at 7.1: 4,181.9; CNY into USD divides.
    assert price_in(cpu, "CNY", RATE)[0] == Decimal("589") * Decimal("7.1")
    usd_gpu = replace(gpu, prices=tuple(p for p in gpu.prices if p.currency == "CNY"))
    amount, price = price_in(usd_gpu, "USD", RATE)
    assert price is not None and price.currency == "CNY"
    assert amount == Decimal("12999") / Decimal("7.1")
    assert price_in(cat.get(CASE), "CNY", RATE) == (None, None)   # the catalog has no price


def test_in_a_lines_place_the_line_keeps_quantity_scope_and_note_only() -> None:
    cat = load_catalog()
    build = Build(name="t", line_items=[
        LineItem(part_id=CPU),
        LineItem(part_id=GPU, quantity=3, scope="cluster", note="spare", unit_price=Decimal("1"),
                 currency="CNY", price_source="s", price_date="2026-01", price_kind="estimate")])
    out = with_candidate(build, cat.get("nvidia-rtx-5090"), cat, replacing=1)
    assert out.line_items == [LineItem(part_id=CPU), LineItem(
        part_id="nvidia-rtx-5090", quantity=3, scope="cluster", note="spare")]
    assert out.name == "t"
    assert build.line_items[1].part_id == GPU            # the build itself is not changed


def test_memory_and_drives_are_added_once() -> None:
    cat = load_catalog()
    build = Build(name="t", line_items=[LineItem(part_id=RAM, quantity=2)])
    out = with_candidate(build, cat.get(RAM), cat)
    assert out.line_items == [LineItem(part_id=RAM, quantity=2), LineItem(part_id=RAM)]
    assert "memory" not in REPLACED_CATEGORIES
    assert REPLACED_CATEGORIES == ("gpu", "cpu", "motherboard", "psu", "case", "cpu_cooler")


def test_replacing_leaves_cluster_and_custom_lines_alone() -> None:
    cat = load_catalog()
    custom = LineItem(text="GPU riser", category="gpu")
    cluster = LineItem(part_id=GPU, quantity=5, scope="cluster")
    build = Build(name="t", line_items=[LineItem(part_id=GPU, quantity=2), cluster, custom,
                                        LineItem(part_id="nvidia-rtx-3090", quantity=1)])
    out = with_candidate(build, cat.get("nvidia-rtx-5090"), cat)
    # The two node GPU lines (2 + 1) become one line of 3; the others stay, in order.
    assert out.line_items == [cluster, custom, LineItem(part_id="nvidia-rtx-5090", quantity=3)]
    # A board replaces the board.
    boards = Build(name="b", line_items=[LineItem(part_id=Z790), LineItem(part_id=CPU)])
    other = "msi-pro-b760m-a-wifi"
    assert with_candidate(boards, cat.get(other), cat).line_items == [
        LineItem(part_id=CPU), LineItem(part_id=other)]


def _blockers(build: Build) -> set[str]:
    return {f.code for f in check_build(build, load_catalog()) if f.severity is Severity.BLOCKER}


def test_compatible_means_no_new_blocker() -> None:
    cat = load_catalog()
    # An LGA1700 board with an AM5 CPU already has a socket blocker; a second AM5 CPU in the
    # CPU's place adds none the build does not have, an LGA1700 CPU removes it.
    build = Build(name="t", line_items=[LineItem(part_id=Z790), LineItem(part_id=RYZEN)])
    before = _blockers(build)
    assert before
    cpus = [cat.get(RYZEN), cat.get(CPU), cat.get("amd-ryzen-9-9950x")]
    assert compatible_parts(cpus, build, cat) == {RYZEN, CPU, "amd-ryzen-9-9950x"}
    # On a build without a blocker, the AM5 CPUs add one.
    fine = Build(name="f", line_items=[LineItem(part_id=Z790), LineItem(part_id=CPU)])
    assert not _blockers(fine)
    assert compatible_parts(cpus, fine, cat) == {CPU}
    assert compatible_parts([], fine, cat) == set()
    # In a line's place: the board's line (0) replaced by an AM5 board fits the AM5 CPU.
    am5 = "asus-tuf-gaming-b650-plus-wifi"
    assert compatible_parts([cat.get(am5), cat.get(Z790)], build, cat, replacing=0) == {
        am5, Z790}
    assert compatible_parts([cat.get(am5), cat.get(Z790)], fine, cat, replacing=0) == {Z790}


def test_in_a_lines_place_is_not_in_addition() -> None:
    # The Z790 Formula has 4 DIMM slots; two 2-module kits fill them. A third kit in kit 1's
    # place still fits (4 modules), added to them it needs 6 slots: the dimm_slots blocker.
    cat = load_catalog()
    build = Build(name="t", line_items=[LineItem(part_id=Z790), LineItem(part_id=CPU),
                                        LineItem(part_id=RAM), LineItem(part_id=RAM)])
    assert compatible_parts([cat.get(RAM)], build, cat, replacing=2) == {RAM}
    assert compatible_parts([cat.get(RAM)], build, cat) == set()


def test_the_price_in_the_builds_currency_is_preferred() -> None:
    # A newer USD retail price beside the CNY launch price: a CNY build takes the CNY one
    # (catalog/model.py best_catalog_price: the build's currency first).
    cat = load_catalog()
    gpu = cat.get(GPU)
    cny = next(p for p in gpu.prices if p.currency == "CNY")
    usd = replace(cny, currency="USD", amount=Decimal("1000"), kind="retail", date="2026-01")
    part = replace(gpu, prices=(usd, cny))
    amount, price = price_in(part, "CNY", RATE)
    assert price == cny and amount == Decimal("12999")
    amount, price = price_in(part, "USD", RATE)
    assert price == usd and amount == Decimal("1000")
