"""A lazy catalog load (issue 27: an export parses the parts it looks up, not all 200) checks
each part it parses exactly as the full load does: a bad part the build names is reported in
one line, the same line the full load gives; a bad part nothing looks up stays unread until a
full load, which still refuses the catalog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from catalog_helpers import Editor, part

from torchrig.catalog import load_catalog
from torchrig.catalog.loader import PartEntries
from torchrig.cli import main
from torchrig.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "builds" / "pro-dual-4090.json"
NAMED = "corsair-hx1500i"
"""A part the sample build names and no tier names (so only the build's lookup parses it)."""
UNNAMED = "intel-core-i7-13700k"
"""A part neither the sample build nor any tier names."""


def _bad_wattage(data: dict[str, Any], part_id: str) -> None:
    part(data, part_id)["specs"]["wattage_w"] = "lots"


def _export(tmp_path: Path, resources: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(resources))
    return main(["export", str(SAMPLE), "-o", str(tmp_path / "quote.pdf"), "--invariant"])


def test_the_names_are_what_the_test_needs() -> None:
    tiers = (ROOT / "resources" / "tiers.json").read_text(encoding="utf-8")
    build = SAMPLE.read_text(encoding="utf-8")
    assert NAMED in build and NAMED not in tiers
    assert UNNAMED not in build and UNNAMED not in tiers


def test_a_bad_part_the_build_names_fails_the_export_in_one_line(
        tmp_path: Path, edit: Editor, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    resources = edit("catalog/psus.json", lambda data: _bad_wattage(data, NAMED))
    assert load_catalog(resources, lazy=True)  # ids are fine: the load itself passes
    assert _export(tmp_path, resources, monkeypatch) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "quote.pdf").exists()
    with pytest.raises(InputError) as full:  # the full load: the same check, the same words
        load_catalog(resources)
    assert str(full.value) in err
    assert f"psus.json: part '{NAMED}' specs" in err and "wattage_w" in err


def test_a_bad_part_nothing_looks_up_waits_for_the_full_load(
        tmp_path: Path, edit: Editor, monkeypatch: pytest.MonkeyPatch) -> None:
    def bad_cores(data: dict[str, Any]) -> None:
        part(data, UNNAMED)["specs"]["cores"] = -3

    resources = edit("catalog/cpus.json", bad_cores)
    assert _export(tmp_path, resources, monkeypatch) == 0
    parts = load_catalog(resources, lazy=True).parts
    assert isinstance(parts, PartEntries)
    assert UNNAMED in parts and UNNAMED not in parts._parsed  # listed, never parsed
    with pytest.raises(InputError, match=f"cpus.json: part '{UNNAMED}' specs.*cores"):
        load_catalog(resources)  # the cached lazy catalog is checked in full now
    with pytest.raises(InputError, match=UNNAMED):
        list(parts.values())  # so is iterating its parts


def test_lazy_parts_equal_the_full_loads(resources_copy: Path) -> None:
    lazy = load_catalog(resources_copy, lazy=True)
    assert isinstance(lazy.parts, PartEntries)
    parsed_at_load = len(lazy.parts._parsed)
    assert 0 < parsed_at_load < len(lazy.parts) / 2  # the tiers' parts only
    ids = [p["id"] for f in sorted((resources_copy / "catalog").glob("*.json"))
           if (doc := json.loads(f.read_text(encoding="utf-8"))).get("format") == "torchrig.catalog"
           for p in doc["parts"]]
    assert list(lazy.parts) == ids  # file order, every id, none parsed to list them
    assert len(lazy.parts._parsed) == parsed_at_load
    full = load_catalog(ROOT / "resources")  # the shipped folder, loaded in full
    assert all(lazy.parts[pid] == full.parts[pid] for pid in ids)


def test_a_duplicate_id_is_refused_by_the_lazy_load_too(edit: Editor) -> None:
    def duplicate(data: dict[str, Any]) -> None:
        data["parts"].append(dict(data["parts"][0]))

    resources = edit("catalog/psus.json", duplicate)
    with pytest.raises(InputError, match="id already used in psus.json"):
        load_catalog(resources, lazy=True)
