"""Parts catalog and target tiers, loaded and validated from ``resources/``.

Usage::

    from torchrig.catalog import load_catalog
    cat = load_catalog()
    cat.get("nvidia-rtx-4090").key_spec("en")
"""

from __future__ import annotations

from torchrig.catalog.loader import clear_catalog_cache, default_resources_dir, load_catalog
from torchrig.catalog.model import (
    Catalog,
    Part,
    Price,
    SeedRule,
    SourceRef,
    StarterLine,
    Tier,
    TierPartChoice,
    TierRequirements,
)
from torchrig.catalog.specs import (
    CATEGORIES,
    CpuSpec,
    GpuSlot,
    GpuSpec,
    MemorySpec,
    MemorySupport,
    MotherboardSpec,
    NetworkSpec,
    PsuSpec,
    StorageSpec,
)
from torchrig.catalog.tiers import TIER_IDS, tier_contradictions

__all__ = [
    "CATEGORIES",
    "TIER_IDS",
    "Catalog",
    "CpuSpec",
    "GpuSlot",
    "GpuSpec",
    "MemorySpec",
    "MemorySupport",
    "MotherboardSpec",
    "NetworkSpec",
    "Part",
    "Price",
    "PsuSpec",
    "SeedRule",
    "SourceRef",
    "StarterLine",
    "StorageSpec",
    "Tier",
    "TierPartChoice",
    "TierRequirements",
    "clear_catalog_cache",
    "default_resources_dir",
    "load_catalog",
    "tier_contradictions",
]
