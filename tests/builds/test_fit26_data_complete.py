"""Part data complete where a check reads it (issue 26): every board, case and cooler gives
each field its checks read (builds/check_fields.py) or marks it ``{"unknown": why}``; the
loader validates that form once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from torchrig.builds.check_fields import missing_fields, needed_fields
from torchrig.catalog import load_catalog
from torchrig.catalog.loader import load_parts_file
from torchrig.errors import InputError

CATEGORIES = ("motherboard", "case", "cpu_cooler")


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_part_gives_or_explains_each_checked_field(category: str) -> None:
    parts = load_catalog().by_category(category)
    assert parts
    gaps = {p.id: missing_fields(p) for p in parts if missing_fields(p)}
    assert gaps == {}, "give the field or mark it {\"unknown\": why}: " + repr(gaps)


def test_the_table_covers_what_the_new_checks_read() -> None:
    cat = load_catalog()
    board = cat.get("asus-rog-strix-x870e-e-gaming-wifi")
    names = {need[0] for need in needed_fields(board)}
    assert {"m2_slot_map", "module_form", "memory_channels", "x16_slot_positions",
            "gpu_lane_configs", "form_factor"} <= names
    assert {n[0] for n in needed_fields(cat.get("corsair-7000d-airflow"))} >= {
        "radiator_mounts", "board_form_factors", "max_gpu_length_mm", "max_cooler_height_mm",
        "expansion_slots"}
    assert [n[0] for n in needed_fields(cat.get("deepcool-lt720"))] == ["radiator_mm", "sockets"]
    assert [n[0] for n in needed_fields(cat.get("deepcool-ak400"))] == ["height_mm", "sockets"]


def test_a_part_lacking_a_field_is_caught() -> None:
    from dataclasses import replace
    case = load_catalog().get("corsair-7000d-airflow")
    bare = replace(case, specs=replace(case.specs, max_gpu_length_mm=None),
                   unknown_fields={k: v for k, v in case.unknown_fields.items()})
    assert missing_fields(bare) == ["max_gpu_length_mm"]
    explained = replace(bare, unknown_fields={**bare.unknown_fields,
                                              "max_gpu_length_mm": "not in the sources read"})
    assert missing_fields(explained) == []


def _file(tmp_path: Path, specs: dict[str, Any]) -> Path:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({
        "format": "torchrig.catalog", "version": 1, "category": "case",
        "parts": [{"id": "acme-case", "vendor": "Acme", "name": "Case", "specs": specs,
                   "sources": ["https://example.com/case"]}]}), encoding="utf-8")
    return path


def test_the_loader_keeps_the_reason_and_no_value(tmp_path: Path) -> None:
    [part] = load_parts_file(_file(tmp_path, {
        "kind": "desktop", "max_gpu_length_mm": {"unknown": "not on the maker's page"}}), {})
    assert part.case.max_gpu_length_mm is None
    assert part.unknown_fields == {"max_gpu_length_mm": "not on the maker's page"}


@pytest.mark.parametrize(("value", "words"), [
    ({"unknown": "short"}, "at least 10 characters"),
    ({"unknown": "not on the maker's page", "value": 300}, "with no value"),
    ({"unknown": "not on the maker's page", "source": "https://example.com/x"}, "with no value"),
    ({"unknown": 3}, "must be {\"unknown\""),
])
def test_the_loader_refuses_a_half_unknown(tmp_path: Path, value: Any, words: str) -> None:
    with pytest.raises(InputError, match="max_gpu_length_mm") as err:
        load_parts_file(_file(tmp_path, {"kind": "desktop", "max_gpu_length_mm": value}), {})
    assert words in str(err.value)


def test_a_required_field_cannot_be_unknown(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="'kind' is required and cannot be unknown"):
        load_parts_file(_file(tmp_path, {"kind": {"unknown": "the maker does not say"}}), {})


@pytest.mark.parametrize(("specs", "words"), [
    ({"radiator_mounts": [{"position": "roof", "sizes_mm": [360]}]}, "position must be one of"),
    ({"radiator_mounts": [{"position": "top", "sizes_mm": [365]}]}, "sizes_mm must list"),
    ({"radiator_mounts": [{"position": "top", "sizes_mm": [360], "max_thickness_mm": 5}]},
     "max_thickness_mm must be 10-200"),
    ({"radiator_mounts": [{"position": "top", "sizes_mm": [360], "fans": 3}]},
     "unknown key 'fans'"),
    ({"max_board_mm": [305]}, "must be [width, depth]"),
])
def test_case_object_fields_are_validated(tmp_path: Path, specs: dict[str, Any],
                                          words: str) -> None:
    with pytest.raises(InputError) as err:
        load_parts_file(_file(tmp_path, {"kind": "desktop", **specs}), {})
    assert words in str(err.value)


def _board_file(tmp_path: Path, specs: dict[str, Any]) -> Path:
    path = tmp_path / "motherboards.json"
    path.write_text(json.dumps({
        "format": "torchrig.catalog", "version": 1, "category": "motherboard",
        "parts": [{"id": "acme-board", "vendor": "Acme", "name": "Board",
                   "specs": {"socket": "AM5", "memory_type": "DDR5", "memory_slots": 4, **specs},
                   "sources": ["https://example.com/board"]}]}), encoding="utf-8")
    return path


SLOT = {"name": "M.2_1", "via": "cpu", "gen": 5, "lanes": 4}


def test_an_m2_map_loads_slot_by_slot(tmp_path: Path) -> None:
    [board] = load_parts_file(_board_file(tmp_path, {"m2_slots": 2, "m2_slot_map": [
        SLOT, {"name": "M.2_2", "via": "chipset", "gen": 4, "lanes": 4,
               "sata_ports_off": [5, 6]}]}), {})
    first, second = board.motherboard.m2_slot_map
    assert not first.shares and second.shares and second.sata_ports_off == (5, 6)


@pytest.mark.parametrize(("specs", "words"), [
    ({"m2_slot_map": [SLOT, SLOT]}, "a slot name used once"),
    ({"m2_slot_map": [{**SLOT, "gpu_slot_lanes": 16}]}, "gpu_slot_lanes must be 1, 2, 4 or 8"),
    ({"m2_slot_map": [{**SLOT, "via": "pch"}]}, "via must be 'cpu' or 'chipset'"),
    ({"m2_slot_map": [SLOT], "m2_slots": 2}, "lists 1 slots, 'm2_slots' says 2"),
    ({"bios_requirements": [{"family": "Ryzen 9000"}]}, "must be {\"family\": text"),
    ({"dimensions_mm": [305, 267, 200]}, "must be [width, depth]"),
])
def test_board_object_fields_are_validated(tmp_path: Path, specs: dict[str, Any],
                                           words: str) -> None:
    with pytest.raises(InputError) as err:
        load_parts_file(_board_file(tmp_path, specs), {})
    assert words in str(err.value)
