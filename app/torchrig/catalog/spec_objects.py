"""The catalog's object-list spec fields: a board's M.2 sharing map, a case's radiator mounts,
a board's BIOS prerequisites. Each reader returns typed records or raises an ``InputError``
naming the field and the item, so a hand-edited map never loads half right."""

from __future__ import annotations

from typing import Any

from torchrig.catalog.specs import BiosRequirement, M2Slot, RadiatorMount
from torchrig.errors import InputError

RADIATOR_POSITIONS = ("front", "top", "side", "rear", "bottom", "unspecified")
"""``unspecified``: the maker lists the radiator sizes the case takes but not where (Corsair's
7000D page): the size check can run, the per-position thickness cannot."""
RADIATOR_SIZES = (120, 140, 240, 280, 360, 420, 480)
_M2_KEYS = {"name", "via", "gen", "lanes", "gpu_slot_lanes", "sata_ports_off"}


def _items(value: Any, where: str, key: str, example: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
        raise InputError(f"{where}: field '{key}' must be a non-empty list of objects like "
                         f"{example}")
    return value


def _whole(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


def m2_map(value: Any, where: str, key: str) -> tuple[M2Slot, ...]:
    """``[{"name": "M.2_2", "via": "cpu", "gen": 5, "lanes": 4, "gpu_slot_lanes": 8}, ...]``."""
    out = []
    names: set[str] = set()
    for i, raw in enumerate(_items(value, where, key, '{"name": "M.2_1", "via": "cpu", '
                                                      '"gen": 5, "lanes": 4}')):
        at = f"{where}: field '{key}[{i}]'"
        extra = sorted(set(raw) - _M2_KEYS)
        if extra:
            raise InputError(f"{at} has unknown key {extra[0]!r}")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip() or name in names:
            raise InputError(f"{at}.name must be a slot name used once, got {name!r}")
        names.add(name)
        if raw.get("via") not in ("cpu", "chipset"):
            raise InputError(f"{at}.via must be 'cpu' or 'chipset', got {raw.get('via')!r}")
        gen = raw.get("gen")
        if gen is not None and not _whole(gen, 3, 6):
            raise InputError(f"{at}.gen must be 3-6 or null, got {gen!r}")
        if raw.get("lanes") not in (1, 2, 4) or isinstance(raw.get("lanes"), bool):
            raise InputError(f"{at}.lanes must be 1, 2 or 4, got {raw.get('lanes')!r}")
        gpu = raw.get("gpu_slot_lanes")
        if gpu is not None and (gpu not in (1, 2, 4, 8) or isinstance(gpu, bool)):
            raise InputError(f"{at}.gpu_slot_lanes must be 1, 2, 4 or 8 (the first x16 slot's "
                             f"width with this slot used), got {gpu!r}")
        sata = raw.get("sata_ports_off", [])
        if not isinstance(sata, list) or not all(_whole(p, 0, 16) for p in sata):
            raise InputError(f"{at}.sata_ports_off must list SATA port numbers, got {sata!r}")
        out.append(M2Slot(name=name, via=raw["via"], gen=gen, lanes=raw["lanes"],
                          gpu_slot_lanes=gpu, sata_ports_off=tuple(sata)))
    return tuple(out)


def radiator_mounts(value: Any, where: str, key: str) -> tuple[RadiatorMount, ...]:
    """``[{"position": "front", "sizes_mm": [240, 360], "max_thickness_mm": 60}, ...]``."""
    out = []
    for i, raw in enumerate(_items(value, where, key, '{"position": "front", "sizes_mm": [360], '
                                                      '"max_thickness_mm": 60}')):
        at = f"{where}: field '{key}[{i}]'"
        extra = sorted(set(raw) - {"position", "sizes_mm", "max_thickness_mm"})
        if extra:
            raise InputError(f"{at} has unknown key {extra[0]!r}")
        if raw.get("position") not in RADIATOR_POSITIONS:
            raise InputError(f"{at}.position must be one of {', '.join(RADIATOR_POSITIONS)}, "
                             f"got {raw.get('position')!r}")
        sizes = raw.get("sizes_mm")
        if (not isinstance(sizes, list) or not sizes
                or not all(s in RADIATOR_SIZES and not isinstance(s, bool) for s in sizes)):
            raise InputError(f"{at}.sizes_mm must list radiator sizes "
                             f"({', '.join(map(str, RADIATOR_SIZES))}), got {sizes!r}")
        thick = raw.get("max_thickness_mm")
        if thick is not None and (isinstance(thick, bool) or not isinstance(thick, (int, float))
                                  or not 10 <= thick <= 200):
            raise InputError(f"{at}.max_thickness_mm must be 10-200 mm or null, got {thick!r}")
        out.append(RadiatorMount(position=raw["position"], sizes_mm=tuple(sizes),
                                 max_thickness_mm=float(thick) if thick is not None else None))
    return tuple(out)


def bios_requirements(value: Any, where: str, key: str) -> tuple[BiosRequirement, ...]:
    """``[{"family": "Core 14th gen", "bios": "3010"}, ...]``: the BIOS version a CPU family
    needs on this board, from the vendor's CPU support list."""
    out = []
    for i, raw in enumerate(_items(value, where, key, '{"family": "Ryzen 9000", '
                                                      '"bios": "F30"}')):
        at = f"{where}: field '{key}[{i}]'"
        if set(raw) != {"family", "bios"} or not all(
                isinstance(raw[k], str) and raw[k].strip() for k in ("family", "bios")):
            raise InputError(f"{at} must be {{\"family\": text, \"bios\": text}}")
        out.append(BiosRequirement(family=raw["family"], bios=raw["bios"]))
    return tuple(out)
