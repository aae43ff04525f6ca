"""Every GPU, PSU and CPU in the catalog gives each field the power and GPU checks read, or says
why it is unknown (``{"unknown": "<why>"}``, validated once in the loader): a check that is
skipped for a part is skipped on purpose, never because a field was forgotten (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.builds.power_fields import fields_read, missing_fields
from torchrig.catalog import load_catalog
from torchrig.catalog.loader import load_parts_file
from torchrig.errors import InputError


def test_every_gpu_psu_and_cpu_has_or_explains_each_field_the_checks_read() -> None:
    parts = [p for p in load_catalog().parts.values() if p.category in ("gpu", "psu", "cpu")]
    # The whole catalog, not an empty selection: all three categories, dozens of parts.
    assert {p.category for p in parts} == {"gpu", "psu", "cpu"} and len(parts) > 90
    assert {p.id: missing_fields(p) for p in parts if missing_fields(p)} == {}


def test_a_card_is_asked_for_its_slot_and_cables_a_module_only_for_its_power() -> None:
    cat = load_catalog()
    card = fields_read(cat.get("nvidia-rtx-5090"))
    assert {"tdp_w", "pcie_lanes", "slot_width", "length_mm", "cooling", "power_12v_2x6",
            "power_8pin"} == set(card)
    assert fields_read(cat.get("nvidia-h100-sxm")) == ("tdp_w",)
    assert "length_mm" in fields_read(cat.get("seasonic-prime-px-2200"))


def test_a_forgotten_field_is_reported(tmp_path: Path) -> None:
    cat = load_catalog()
    psu = cat.get("seasonic-prime-px-2200")
    # A copy of the part without its known-unknowns: the two connector counts are missing.
    from dataclasses import replace
    bare = replace(psu, unknown_fields={})
    assert missing_fields(bare) == ("pcie_12v_2x6_connectors", "pcie_8pin_connectors")


@pytest.mark.parametrize(("field", "reason"), [
    ("power_8pin", {"unknown": "not in the maker's data sheet"}),
])
def test_the_loader_reads_an_unknown_with_its_reason(tmp_path: Path, field: str,
                                                     reason: dict[str, str]) -> None:
    part = _gpu_file(tmp_path, {field: reason})
    assert getattr(part.specs, field) is None
    assert part.unknown_fields == {field: "not in the maker's data sheet"}
    assert field in part.unknown_fields and "power_12v_2x6" not in part.unknown_fields


@pytest.mark.parametrize("value", [
    {"unknown": "short"},                                   # under ten characters of reason
    {"unknown": 3},
    {"unknown": "not in the maker's data sheet", "value": 2},
    {"unknown": "not in the maker's data sheet", "derived": "x"},
    {"unknown": "not in the maker's data sheet", "source": "https://example.com/spec"},
])
def test_the_loader_refuses_an_unknown_without_a_reason(tmp_path: Path, value: object) -> None:
    with pytest.raises(InputError, match="must be .*unknown.* with no value, source or derived"):
        _gpu_file(tmp_path, {"power_8pin": value})


def test_a_misspelt_key_is_still_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown key 'unknwn'"):
        _gpu_file(tmp_path, {"power_8pin": {"unknwn": "typo"}})


def test_a_required_field_cannot_be_unknown(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="required and cannot be unknown"):
        _gpu_file(tmp_path, {"vram_gib": {"unknown": "not in the maker's data sheet"}})


def _gpu_file(tmp_path: Path, extra: dict[str, object]):  # type: ignore[no-untyped-def]
    specs = {"architecture": "Test", "vram_gib": 8, "tensor_cores": False,
             "form_factor": "pcie", **extra}
    doc = {"format": "torchrig.catalog", "version": 1, "category": "gpu",
           "parts": [{"id": "nvidia-test", "vendor": "NVIDIA", "name": "Test",
                      "specs": specs, "sources": ["https://example.com/spec"]}]}
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (part,) = load_parts_file(path, {})
    return part
