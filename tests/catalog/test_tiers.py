"""Tiers from the seed: references resolve, requirements follow, contradictions are computed."""

from __future__ import annotations

from typing import Any

import pytest

from torchrig.catalog import load_catalog, tier_contradictions
from torchrig.errors import InputError
from torchrig.findings import Severity
from torchrig.units import GB, GiB


def test_every_tier_reference_resolves_to_the_right_category() -> None:
    cat = load_catalog()
    for tier in cat.tiers.values():
        for choice in tier.parts:
            for pid in choice.all_ids:
                assert cat.get(pid).category == choice.role
        for pid in tier.part_ids():
            cat.get(pid)


def test_seed_parts_and_texts() -> None:
    cat = load_catalog()
    entry = cat.tier("entry")
    assert entry.part_choice("cpu").all_ids == ("intel-core-i5-12400f", "amd-ryzen-5-5600x")
    assert entry.part_choice("gpu").all_ids == ("nvidia-gtx-1660-super", "nvidia-rtx-3060-12gb")
    assert entry.price_range_cny == (5000, 8000)
    assert "MNIST" in entry.advantages.zh and "MNIST" in entry.advantages.en
    pro = cat.tier("professional")
    assert pro.part_choice("gpu").all_ids == ("nvidia-rtx-4090", "nvidia-rtx-a6000")
    assert pro.part_choice("cpu").all_ids == ("intel-core-i9-13900k", "amd-ryzen-9-7950x")
    ent = cat.tier("enterprise")
    assert ent.part_choice("gpu").recommended == "nvidia-a100-80gb-sxm"
    assert "Ceph" in ent.storage.zh


def test_requirements_follow_the_seed_and_the_parts() -> None:
    cat = load_catalog()
    entry = cat.tier("entry").requirements
    assert entry.min_cpu_cores == 6
    assert entry.min_vram_bytes == 6 * GiB
    assert entry.min_ram_bytes == 16 * GiB
    assert entry.storage_kinds == ("nvme",) and entry.storage_bytes == 512 * GB
    pro = cat.tier("professional").requirements
    assert pro.min_cpu_cores == 16 and pro.min_vram_bytes == 24 * GiB
    assert pro.min_ram_bytes == 64 * GiB and pro.memory_type == "DDR5"
    ent = cat.tier("enterprise").requirements
    assert ent.gpus_per_node == (2, 4)
    assert ent.nodes[0] >= 2
    assert ent.min_ram_bytes == 128 * GiB and ent.memory_type == "DDR5"
    assert set(ent.interconnect) == {"nvlink", "infiniband"}
    assert ent.min_vram_bytes == 80 * GiB


def test_entry_contradictions_are_the_seed_notes() -> None:
    cat = load_catalog()
    findings = tier_contradictions(cat.tier("entry"), cat)
    by_code = {f.code: f for f in findings}
    assert set(by_code) == {"tier.cpu_cores", "tier.ram", "tier.vram", "tier.tensor_cores"}
    assert by_code["tier.cpu_cores"].numbers == {"cores": 6.0, "required_cores": 8.0}
    assert "Core i5-12400F" in by_code["tier.cpu_cores"].detail.en
    assert "Ryzen 5 5600X" in by_code["tier.cpu_cores"].detail.en
    assert by_code["tier.ram"].numbers["ram_bytes"] == 16 * GiB
    assert by_code["tier.ram"].numbers["required_ram_bytes"] == 32 * GiB
    assert by_code["tier.vram"].numbers["vram_bytes"] == 6 * GiB
    assert "GTX 1660 Super" in by_code["tier.vram"].detail.en
    assert "RTX 3060" not in by_code["tier.vram"].detail.en
    assert "3.1" in by_code["tier.tensor_cores"].source
    for f in findings:
        assert f.severity is Severity.WARNING
        assert f.title.zh and f.detail.zh and f.fix.zh
        assert "seed 2.1" in f.source


@pytest.mark.parametrize(("tier_id", "codes"), [
    ("professional", set()),
    # The seed's DDR5 cannot be fitted on the A100 SXM platform (test_enterprise_tier.py).
    ("enterprise", {"tier.memory_type"}),
])
def test_other_tiers_keep_the_seed_rules(tier_id: str, codes: set[str]) -> None:
    cat = load_catalog()
    assert {f.code for f in tier_contradictions(cat.tier(tier_id), cat)} == codes


def test_contradictions_are_computed_from_the_rule_data(edit: Any) -> None:
    def relax(data: dict[str, Any]) -> None:
        for rule in data["seed_rules"]:
            if rule["id"] == "ram_min_gib":
                rule["value"] = 16
            if rule["id"] == "cpu_min_cores":
                rule["value"] = 4

    cat = load_catalog(edit("tiers.json", relax))
    codes = {f.code for f in tier_contradictions(cat.tier("entry"), cat)}
    assert codes == {"tier.vram", "tier.tensor_cores"}


def test_contradictions_follow_the_tier_parts(edit: Any) -> None:
    def swap_gpu(data: dict[str, Any]) -> None:
        entry = next(t for t in data["tiers"] if t["id"] == "entry")
        entry["parts"]["gpu"] = {"recommended": "nvidia-rtx-3060-12gb", "alternatives": []}

    cat = load_catalog(edit("tiers.json", swap_gpu))
    codes = {f.code for f in tier_contradictions(cat.tier("entry"), cat)}
    assert codes == {"tier.cpu_cores", "tier.ram"}


def _tier(data: dict[str, Any], tid: str) -> dict[str, Any]:
    return next(t for t in data["tiers"] if t["id"] == tid)


BAD_TIERS = [
    (lambda d: _tier(d, "entry")["parts"]["gpu"].update(recommended="nvidia-gtx-9999"),
     ["tier 'entry'", "parts.gpu", "nvidia-gtx-9999", "not in the catalog"]),
    (lambda d: _tier(d, "entry")["parts"]["cpu"].update(recommended="nvidia-rtx-4090"),
     ["tier 'entry'", "expected a cpu"]),
    (lambda d: d["tiers"].pop(), ["missing tier 'enterprise'"]),
    (lambda d: d["seed_rules"].pop(0), ["lacks rule 'cpu_min_cores'"]),
    (lambda d: _tier(d, "entry")["requirements"].update(min_ram_gib="16"),
     ["tier 'entry'", "min_ram_gib"]),
    (lambda d: _tier(d, "entry")["starter_build"]["lines"][0].update(quantity=0),
     ["tier 'entry'", "lines[0]", "quantity"]),
    (lambda d: _tier(d, "entry").update(model_scale="huge"), ["tier 'entry'", "model_scale"]),
]


@pytest.mark.parametrize(("mutate", "fragments"), BAD_TIERS)
def test_bad_tier_data_is_named(edit: Any, mutate: Any, fragments: list[str]) -> None:
    root = edit("tiers.json", mutate)
    with pytest.raises(InputError) as info:
        load_catalog(root)
    assert "tiers.json" in str(info.value)
    for fragment in fragments:
        assert fragment in str(info.value)
