"""The part fields the power and GPU checks read, per category: one list the completeness test
holds the catalog to (a part either has each field or says why it is unknown) and the checks'
modules name.

- CPU: its maximum package power (Intel PL2, AMD PPT; ``power_checks`` falls back to TDP).
- GPU: its board power; for a PCIe card also what the slot, fit, cooling and connector checks
  read (lanes, slot width, length, cooling, 12V-2x6 and 8-pin inputs). A socketed module
  (SXM, OAM) or a system-on-module has no slot, cable or own cooler to judge.
- PSU: rating, ATX version (the excursion rule), 12V-2x6 and 8-pin outputs, length.
"""

from __future__ import annotations

from torchrig.catalog.model import Part

POWER_FIELDS: dict[str, tuple[str, ...]] = {
    "cpu": ("max_turbo_power_w",),
    "gpu": ("tdp_w",),
    "psu": ("wattage_w", "atx_version", "pcie_12v_2x6_connectors", "pcie_8pin_connectors",
            "length_mm"),
}
GPU_CARD_FIELDS: tuple[str, ...] = ("pcie_lanes", "slot_width", "length_mm", "cooling",
                                    "power_12v_2x6", "power_8pin")


def fields_read(part: Part) -> tuple[str, ...]:
    """The spec attributes of ``part`` the power and GPU checks read."""
    fields = POWER_FIELDS.get(part.category, ())
    if part.category == "gpu" and part.gpu.form_factor == "pcie":
        fields += GPU_CARD_FIELDS
    return fields


def missing_fields(part: Part) -> tuple[str, ...]:
    """Fields the checks read that ``part`` neither gives nor says are unknown (with why)."""
    return tuple(f for f in fields_read(part)
                 if getattr(part.specs, f) is None and f not in part.unknown_fields)
