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

REPLACED_CATEGORIES = ("cpu", "motherboard", "psu", "case", "cpu_cooler")
"""A build holds one of these: a candidate takes the place of the one there."""


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


def with_candidate(build: Build, part: Part, catalog: Catalog) -> Build:
    """``build`` with one ``part`` added; for a one-per-machine category (board, CPU, case,
    cooler, supply) the candidate takes the place of the build's part."""
    replaced = part.category in REPLACED_CATEGORIES
    lines = [item for item in build.line_items
             if not (replaced and item.part_id is not None and item.scope == "node"
                     and catalog.get(item.part_id).category == part.category)]
    return replace(build, line_items=[*lines, LineItem(part_id=part.id)])


def compatible_parts(parts: list[Part], build: Build, catalog: Catalog) -> set[str]:
    """Ids of the parts that add no blocker the build does not already have."""
    before = _blockers(build, catalog)
    return {p.id for p in parts
            if not _blockers(with_candidate(build, p, catalog), catalog) - before}
