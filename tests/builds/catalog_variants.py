"""Test copies of catalog parts: the shipped catalog plus parts made from a real one with some
spec fields changed, for the checks' second branches that no shipped part reaches."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from torchrig.catalog import load_catalog
from torchrig.catalog.model import Catalog


def catalog_with(**variants: tuple[Any, ...]) -> Catalog:
    """The shipped catalog plus ``new_id=(base_id, {spec changes})`` or
    ``new_id=(base_id, name, {spec changes})`` (a name where a finding quotes it)."""
    cat = load_catalog()
    parts = dict(cat.parts)
    for new_id, variant in variants.items():
        base_id, *name, changes = variant
        base = cat.get(base_id)
        parts[new_id] = replace(base, id=new_id, name=name[0] if name else base.name,
                                specs=replace(base.specs, **changes))
    return Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)
