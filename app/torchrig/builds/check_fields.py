"""The spec fields the fit, board, memory and platform checks read, per category: a part
must give each (or one of its alternatives) or say it is unknown and why, so a check that
skips a part skips it because the figure is unknown, not because nobody entered it.

``tests/builds/test_fit26_data_complete.py`` holds every board, case and cooler to this table;
a field added to a check belongs here too.
"""

from __future__ import annotations

from torchrig.catalog.model import Part

Need = tuple[str, ...]
"""Attribute names, any one of which satisfies the need."""

BOARD_FIELDS: tuple[Need, ...] = (
    ("socket",), ("memory_type",), ("memory_slots",), ("module_form",), ("memory_channels",),
    ("m2_slots",), ("m2_slot_map",), ("form_factor", "dimensions_mm"),
    ("gpu_lane_configs", "sxm_gpu_slots"), ("x16_slot_positions", "sxm_gpu_slots"),
)
"""``m2_slot_map`` (the manual's sharing table) and ``x16_slot_positions`` are read by the M.2
and slot-spacing checks; ``memory_channels`` with ``memory_slots`` gives DIMMs per channel."""
CASE_FIELDS: tuple[Need, ...] = (
    ("board_form_factors", "max_board_mm"), ("max_gpu_length_mm",), ("max_cooler_height_mm",),
    ("radiator_mounts",), ("expansion_slots",),
)
AIR_COOLER_FIELDS: tuple[Need, ...] = (("height_mm",), ("sockets",))
LIQUID_COOLER_FIELDS: tuple[Need, ...] = (("radiator_mm",), ("sockets",))


def is_system(part: Part) -> bool:
    """A server sold whole (own chassis and supplies): no case, so no board size to check."""
    b = part.motherboard
    return bool(b.integrated_psu_w or b.redundant_psu_w or b.sxm_gpu_slots)


def needed_fields(part: Part) -> tuple[Need, ...]:
    if part.category == "motherboard":
        if is_system(part):
            return tuple(n for n in BOARD_FIELDS if n != ("form_factor", "dimensions_mm"))
        return BOARD_FIELDS
    if part.category == "case":
        return CASE_FIELDS
    if part.category == "cpu_cooler":
        return LIQUID_COOLER_FIELDS if part.cooler.kind == "liquid" else AIR_COOLER_FIELDS
    return ()


def missing_fields(part: Part) -> list[str]:
    """The needs the part neither gives nor marks unknown (the first name of each)."""
    out = []
    for need in needed_fields(part):
        given = any(getattr(part.specs, attr) not in (None, ()) for attr in need)
        if not given and not any(attr in part.unknown_fields for attr in need):
            out.append(need[0])
    return out
