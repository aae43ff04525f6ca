"""The plan's early "unknown part" answer (issue 27): a part id in no catalog file is refused
with the catalog's own message, without loading the catalog; anything the byte scan cannot
rule out goes to the catalog as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.catalog import load_catalog
from torchrig.errors import InputError
from torchrig.part_id_scan import surely_unknown_part

SHIPPED = load_catalog()


def _resources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    (tmp_path / "catalog").mkdir(parents=True)
    for name, text in files.items():
        (tmp_path / "catalog" / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(tmp_path))


@pytest.mark.parametrize("part_id", ["nvidia-rtx-4090", "amd-ryzen-9-7950x"])
def test_every_shipped_part_id_is_found(part_id: str) -> None:
    assert part_id in SHIPPED.parts  # the examples are real parts
    assert not surely_unknown_part(part_id)


def test_no_shipped_part_is_ever_called_unknown() -> None:
    assert [p for p in SHIPPED.parts if surely_unknown_part(p)] == []


@pytest.mark.parametrize("part_id", ["no-such-gpu", "nvidia-rtx", "4090", 'a"b'])
def test_an_id_in_no_file_is_surely_unknown_and_the_catalog_agrees(part_id: str) -> None:
    assert surely_unknown_part(part_id)
    with pytest.raises(InputError, match="unknown catalog part id"):
        SHIPPED.get(part_id)


def test_a_json_string_that_is_not_a_part_id_is_left_to_the_catalog() -> None:
    assert "gpu" not in SHIPPED.parts
    assert not surely_unknown_part("gpu")  # "category": "gpu" is in the files


def test_what_the_scan_cannot_rule_out_is_not_unknown(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # "\u002d" is "-": this file's part is "x-1", which no byte search for "x-1" finds.
    _resources(tmp_path, monkeypatch, {"gpus.json": json.dumps({"id": "x\\u002d1"})})
    assert not surely_unknown_part("x-1")
    _resources(tmp_path / "empty", monkeypatch, {})
    assert not surely_unknown_part("x-1")  # no catalog files: the loader says what is wrong
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(tmp_path / "missing"))
    assert not surely_unknown_part("x-1")


def test_a_plain_file_without_the_id_is_surely_unknown(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _resources(tmp_path, monkeypatch, {"gpus.json": '{"parts": [{"id": "x-1"}]}'})
    assert not surely_unknown_part("x-1") and surely_unknown_part("x-2")
