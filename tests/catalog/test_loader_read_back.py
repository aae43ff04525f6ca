"""What the catalog loader reads is what the file says (docs/testing.md sec. 13.9): a part's
notes and match names and a price's note come back word for word; an unknown field's reason
needs at least 10 characters (10 is enough, 9 is not); a board's lane map takes PCIe
generations 1 to 6. Expected values are the shipped files' own text, read with json here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from catalog_helpers import part

from torchrig.catalog import load_catalog
from torchrig.catalog.loader import default_resources_dir
from torchrig.errors import InputError

GPU = "nvidia-gtx-1660-super"


def _raw(file: str, part_id: str) -> dict:
    data = json.loads((default_resources_dir() / "catalog" / file).read_text(encoding="utf-8"))
    return part(data, part_id)


def test_notes_match_names_and_price_notes_are_read_back() -> None:
    raw = _raw("gpus.json", GPU)
    got = load_catalog().get(GPU)
    assert (got.notes.en, got.notes.zh) == (raw["notes"]["en"], raw["notes"]["zh"])
    assert got.match_names == tuple(raw["match_names"]) == ("NVIDIA GeForce GTX 1660 SUPER",)
    assert [p.note for p in got.prices] == [p.get("note") for p in raw["prices"]]
    assert got.prices[0].note.startswith("Hugging Face hardware page: MSRP $229")


def _with(edit, fn) -> Path:
    return edit("catalog/gpus.json", lambda d: fn(part(d, GPU)["specs"]))


@pytest.mark.parametrize("why, ok", [("0123456789", True), ("012345678", False),
                                     ("  012345678  ", False)])
def test_an_unknown_fields_reason_needs_ten_characters(edit, why: str, ok: bool) -> None:
    root = _with(edit, lambda s: s.__setitem__("length_mm", {"unknown": why}))
    if ok:
        assert load_catalog(root).get(GPU).gpu.length_mm is None
    else:
        with pytest.raises(InputError, match=r"field 'length_mm' must be \{\"unknown\": "
                                             r"\"<why, at least 10 characters>\"\}"):
            load_catalog(root)


@pytest.mark.parametrize("gen", [1, 2, 3, 4, 5, 6])
def test_a_lane_map_takes_every_pcie_generation(edit, gen: int) -> None:
    board = "asus-prime-b660-plus-d4"
    root = edit("catalog/motherboards.json", lambda d: part(d, board)["specs"].__setitem__(
        "gpu_lane_configs", [[{"lanes": 16, "gen": gen, "via": "cpu"}]]))
    (slot,) = load_catalog(root).get(board).motherboard.gpu_lane_configs[0]
    assert (slot.lanes, slot.gen, slot.via) == (16, gen, "cpu")


def test_a_lane_map_refuses_generation_seven(edit) -> None:
    board = "asus-prime-b660-plus-d4"
    root = edit("catalog/motherboards.json", lambda d: part(d, board)["specs"].__setitem__(
        "gpu_lane_configs", [[{"lanes": 16, "gen": 7, "via": "cpu"}]]))
    with pytest.raises(InputError, match=r"gpu_lane_configs\[0\]\[0\]'\.gen must be 1-6"):
        load_catalog(root)
