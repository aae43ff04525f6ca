"""The last catalog-loader survivors of docs/testing.md sec. 13.9: every refusal names the
file, the part and the field (a message that says "None: field ..." tells a catalog editor
nothing), whole-number lists are read at their own scale, and the whole-number tolerance is
"within 1e-6 x max(1, |x|)", the boundary included. Expected texts are written here from the
loader's message shapes; values come from the edited file."""

from __future__ import annotations

import re

import pytest
from catalog_helpers import part

from torchrig.catalog import load_catalog
from torchrig.catalog.loader import _convert
from torchrig.catalog.specs import FieldDef
from torchrig.errors import InputError

BOARD = "asrock-b650m-pro-rs-wifi"
CASE = "lian-li-o11-dynamic-evo"
GPU = "nvidia-gtx-1660-super"


def _refused(root, expected: str) -> str:
    with pytest.raises(InputError) as err:
        load_catalog(root)
    text = str(err.value)
    assert expected in text, text
    assert "None" not in text, text
    return text


def _spec(edit, file: str, pid: str, key: str, value):
    return edit(f"catalog/{file}", lambda d: part(d, pid)["specs"].__setitem__(key, value))


def _entry(edit, file: str, pid: str, key: str, value):
    return edit(f"catalog/{file}", lambda d: part(d, pid).__setitem__(key, value))


# --- spec objects: the reader is given the part and the field ---------------------------------

def test_m2_map_refusal_names_the_part_and_field(edit):
    root = _spec(edit, "motherboards.json", BOARD, "m2_slot_map",
                 [{"name": "M.2_1", "bogus": 1}])
    _refused(root, f"motherboards.json: part '{BOARD}' specs: field 'm2_slot_map[0]' has "
                   "unknown key 'bogus'")


def test_radiator_mounts_refusal_names_the_part_and_field(edit):
    root = _spec(edit, "cases.json", CASE, "radiator_mounts",
                 [{"position": "front", "bogus": 1}])
    _refused(root, f"cases.json: part '{CASE}' specs: field 'radiator_mounts[0]' has unknown "
                   "key 'bogus'")


def test_bios_requirements_refusal_names_the_part_and_field(edit):
    root = _spec(edit, "motherboards.json", BOARD, "bios_requirements", [{"family": 1}])
    _refused(root, f"motherboards.json: part '{BOARD}' specs: field 'bios_requirements[0]' "
                   'must be {"family": text, "bios": text}')


# --- whole-number lists ------------------------------------------------------------------------

def test_whole_number_lists_are_read_as_written(edit):
    root = edit("catalog/motherboards.json", lambda d: part(d, BOARD)["specs"].update(
        x16_slot_positions=[1, 3], dimensions_mm=[244, 244]))
    board = load_catalog(root).get(BOARD).motherboard
    assert board.x16_slot_positions == (1, 3)
    assert board.dimensions_mm == (244, 244)


def test_a_bad_list_item_names_the_part_and_field(edit):
    root = _spec(edit, "motherboards.json", BOARD, "x16_slot_positions", [1, 99])
    _refused(root, f"motherboards.json: part '{BOARD}' specs: field 'x16_slot_positions' "
                   "must be between 1 and 12")


def test_a_blank_text_in_a_text_list_is_refused(edit):
    root = _spec(edit, "motherboards.json", BOARD, "unsupported_cpu_families", ["  "])
    _refused(root, f"motherboards.json: part '{BOARD}' specs: field "
                   "'unsupported_cpu_families' must list non-empty texts")


# --- the whole-number tolerance: 1e-6 x max(1, |x|), inclusive --------------------------------

@pytest.mark.parametrize("value, whole", [
    (1e-6, 0),          # |0 - 1e-6| = 1e-6 x max(1, 1e-6): on the boundary, accepted
    (1.0000005, 1),     # 5e-7 off: accepted
])
def test_a_number_within_the_tolerance_is_whole(edit, value, whole):
    root = _spec(edit, "gpus.json", GPU, "power_8pin", value)
    assert load_catalog(root).get(GPU).gpu.power_8pin == whole


def test_a_number_just_past_the_tolerance_is_refused(edit):
    # 1.5e-6 off 1: beyond 1e-6 x max(1, 1.0000015) (a max(2, ...) would let it through).
    root = _spec(edit, "gpus.json", GPU, "power_8pin", 1.0000015)
    _refused(root, f"gpus.json: part '{GPU}' specs: field 'power_8pin' must be a whole number")


def test_an_unknown_field_kind_is_an_internal_error_naming_the_kind():
    # Internal: no catalog file can reach this (the kinds are the schema's); the assertion
    # names the kind so a schema typo is found at once.
    with pytest.raises(AssertionError, match="^weird$"):
        _convert(1, FieldDef("k", "k", "weird"), "where")  # type: ignore[arg-type]


# --- part fields -------------------------------------------------------------------------------

@pytest.mark.parametrize("key, value, says", [
    ("vendor", "", "field 'vendor' must be non-empty text"),
    ("name", "", "field 'name' must be non-empty text"),
    ("prices", {}, "field 'prices' must be a list"),
    ("sources", "NVCMP", "field 'sources' must be a list"),
    ("notes", "a plain text", "field 'notes' must be an object with 'en' and 'zh' texts"),
    ("match_names", [""], "field 'match_names' must list non-empty texts"),
    ("match_names", "GTX 1660 SUPER", "field 'match_names' must be a list"),
    ("end_of_life", "2024-10", "field 'end_of_life' must be an object with date and source"),
])
def test_a_bad_part_field_names_the_part(edit, key, value, says):
    root = _entry(edit, "gpus.json", GPU, key, value)
    _refused(root, f"gpus.json: part '{GPU}': {says}")


@pytest.mark.parametrize("source, says", [
    ("", ": field 'source' must be non-empty text"),
    ("no-such-source-key", " field 'source': source 'no-such-source-key' is neither a known "
                           "source key nor a URL"),
])
def test_a_bad_price_source_names_the_price(edit, source, says):
    root = edit("catalog/gpus.json",
                lambda d: part(d, GPU)["prices"][0].__setitem__("source", source))
    _refused(root, f"gpus.json: part '{GPU}' prices[0]{says}")


# --- documents ---------------------------------------------------------------------------------

def test_an_unknown_top_level_field_names_the_file(edit):
    root = edit("catalog/gpus.json", lambda d: d.__setitem__("part", []))
    text = _refused(root, "gpus.json: unknown field 'part'")
    assert re.match(r"^.*/catalog/gpus\.json: unknown field 'part'$", text), text


def test_a_source_without_what_names_the_source(edit):
    root = edit("catalog/sources.json", lambda d: d["sources"]["NVCMP"].__setitem__("what", ""))
    _refused(root, "sources.json: source 'NVCMP': field 'what' must be non-empty text")


def test_read_back_from_a_fresh_copy(resources_copy):
    # The same read-back as test_loader_read_back.py, from a private copy: a fresh load, not
    # the process's cached catalog (a full mutation run found that file's checks of notes,
    # match names and price date/note passing on the cache; sec. 13.9).
    import json

    raw = part(json.loads((resources_copy / "catalog" / "gpus.json").read_text("utf-8")), GPU)
    got = load_catalog(resources_copy).get(GPU)
    assert (got.notes.en, got.notes.zh) == (raw["notes"]["en"], raw["notes"]["zh"])
    assert got.match_names == tuple(raw["match_names"])
    assert [(p.date, p.note) for p in got.prices] == [(p["date"], p.get("note"))
                                                      for p in raw["prices"]]
