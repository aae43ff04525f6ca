"""What the picker needs from the build: a catalog part's price in the build's currency, and
whether adding the part would make the build fail a check it passes now."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from torchrig.builds.build import Build, ExchangeRate, LineItem
from torchrig.builds.compat import check_build
from torchrig.builds.pricing import convert
from torchrig.catalog.model import Catalog, Part, Price, best_catalog_price
from torchrig.findings import Severity

REPLACED_CATEGORIES = ("gpu", "cpu", "motherboard", "psu", "case", "cpu_cooler")
"""A candidate of these categories takes the place of the build's, in the same number: the
question is "would this GPU (CPU, board…) work in this build instead", not "as well"."""


def price_in(part: Part, currency: str,
             rate: ExchangeRate | None) -> tuple[Decimal | None, Price | None]:
    """The part's best catalog price converted to ``currency`` (None when there is no price,
    or it is in another currency and no rate is known), with the price it came from."""
    price = best_catalog_price(part, currency)
    if price is None:
        return None, None
    amount = convert(price.amount, price.currency, currency,
                     rate.cny_per_usd if rate else None)
    return amount, price


def _blockers(build: Build, catalog: Catalog) -> set[str]:
    return {f.code for f in check_build(build, catalog) if f.severity is Severity.BLOCKER}


def with_candidate(build: Build, part: Part, catalog: Catalog,
                   replacing: int | None = None, quantity: int | None = None) -> Build:
    """``build`` with ``part`` in it: added once (memory, drives, adapters), or for the
    categories in :data:`REPLACED_CATEGORIES` in place of the build's parts of that category,
    keeping their number (two GPUs stay two) unless ``quantity`` says how many (a workload's
    GPUs per node). With ``replacing`` (a line index), ``part`` takes that one line's place
    instead, with its quantity and scope."""
    if replacing is not None:
        lines = list(build.line_items)
        old = lines[replacing]
        lines[replacing] = LineItem(part_id=part.id, quantity=old.quantity, scope=old.scope,
                                    note=old.note)
        return replace(build, line_items=lines)

    def same(item: LineItem) -> bool:
        return (part.category in REPLACED_CATEGORIES and item.part_id is not None
                and item.scope == "node" and catalog.get(item.part_id).category == part.category)

    quantity = quantity or sum(item.quantity for item in build.line_items if same(item)) or 1
    lines = [item for item in build.line_items if not same(item)]
    return replace(build, line_items=[*lines, LineItem(part_id=part.id, quantity=quantity)])


def compatible_parts(parts: list[Part], build: Build, catalog: Catalog,
                     replacing: int | None = None, quantity: int | None = None) -> set[str]:
    """Ids of the parts that add no blocker the build does not already have (in place of line
    ``replacing``, or ``quantity`` of them, when given: see :func:`with_candidate`)."""
    before = _blockers(build, catalog)
    return {p.id for p in parts
            if not _blockers(with_candidate(build, p, catalog, replacing, quantity), catalog)
            - before}
