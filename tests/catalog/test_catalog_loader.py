"""Loading and validating the catalog: units, sources, and one clear message per bad entry."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from catalog_helpers import part

from torchrig.catalog import CATEGORIES, load_catalog
from torchrig.catalog.loader import default_resources_dir
from torchrig.errors import InputError
from torchrig.units import GB, GiB


def test_default_catalog_loads_every_category() -> None:
    cat = load_catalog()
    for category in CATEGORIES:
        assert cat.by_category(category), category
    assert set(cat.tiers) == {"entry", "professional", "enterprise"}
    assert load_catalog() is cat  # cached


def test_env_var_points_at_another_resources_folder(resources_copy: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCHRIG_RESOURCES", str(resources_copy))
    assert default_resources_dir() == resources_copy
    assert load_catalog().root == str(resources_copy.resolve())


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="catalog folder not found"):
        load_catalog(tmp_path)


def test_json_units_become_si_units() -> None:
    cat = load_catalog()
    gpu = cat.get("nvidia-rtx-4090").gpu
    assert gpu.vram_bytes == 24 * GiB
    assert gpu.memory_bandwidth == pytest.approx(1008e9)
    assert gpu.fp16_tensor_flops == pytest.approx(165.2e12)
    assert gpu.tdp_w == 450
    cpu = cat.get("intel-core-i9-13900k").cpu
    assert cpu.base_clock_hz == pytest.approx(3.0e9)
    assert cpu.boost_clock_hz == pytest.approx(5.8e9)
    assert cpu.max_memory_bytes == 192 * GiB  # current Intel ARK (the July 2023 snapshot said 128)
    assert [m.text() for m in cpu.memory_support] == ["DDR5-5600", "DDR4-3200"]
    drive = cat.get("samsung-990-pro-1tb").storage
    assert drive.capacity_bytes == 1000 * GB
    assert drive.seq_read == pytest.approx(7.45e9)
    nic = cat.get("nvidia-connectx-7-ndr-osfp").network
    assert nic.rate_bits_per_s == pytest.approx(400e9)
    kit = cat.get("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40").memory
    assert kit.total_bytes == 64 * GiB


def test_field_sources_and_derived_flags_are_kept() -> None:
    cat = load_catalog()
    rtx3060 = cat.get("nvidia-rtx-3060-12gb")
    assert rtx3060.is_derived("fp16_tensor_flops")
    assert "101" in rtx3060.derived_fields["fp16_tensor_flops"]
    rtx4090 = cat.get("nvidia-rtx-4090")
    assert not rtx4090.is_derived("fp16_tensor_flops")
    assert "4090 FE" in rtx4090.derived_fields["length_mm"]
    assert rtx4090.field_sources["fp16_tensor_flops"] == "ADA-WP"
    assert cat.source_url("TPU").startswith("https://www.techpowerup.com")


def test_key_spec_text_in_both_languages() -> None:
    cat = load_catalog()
    assert (cat.get("nvidia-rtx-4090").key_spec("en")
            == "24 GiB GDDR6X, 165.2 TFLOPS FP16 TC, 450 W, 304 mm, 3-slot")
    assert cat.get("nvidia-rtx-3060-12gb").key_spec("en").startswith("12 GiB GDDR6, 25.3*")
    assert "无 Tensor Core" in cat.get("nvidia-gtx-1660-super").key_spec("zh")
    assert cat.get("intel-core-i5-12400f").key_spec("en").startswith("6C/12T")


def test_unknown_part_id_is_an_input_error() -> None:
    with pytest.raises(InputError, match="nvidia-rtx-9999"):
        load_catalog().get("nvidia-rtx-9999")


def _set(pid: str, key: str, value: Any) -> Any:
    def fn(data: dict[str, Any]) -> None:
        part(data, pid)["specs"][key] = value
    return fn


def _del(pid: str, key: str) -> Any:
    def fn(data: dict[str, Any]) -> None:
        del part(data, pid)["specs"][key]
    return fn


def _part_field(pid: str, key: str, value: Any) -> Any:
    def fn(data: dict[str, Any]) -> None:
        part(data, pid)[key] = value
    return fn


def _price(pid: str, **changes: Any) -> Any:
    def fn(data: dict[str, Any]) -> None:
        part(data, pid)["prices"][0].update(changes)
    return fn


GPU, CPU = "catalog/gpus.json", "catalog/cpus.json"
BAD_ENTRIES = [
    (GPU, _set("nvidia-rtx-4090", "vram_gb", 24), ["nvidia-rtx-4090", "unknown field 'vram_gb'"]),
    (GPU, _set("nvidia-rtx-4090", "vram_gib", "24"), ["nvidia-rtx-4090", "'vram_gib'",
                                                       "must be a number"]),
    (GPU, _set("nvidia-rtx-4090", "vram_gib", 2400), ["nvidia-rtx-4090", "'vram_gib'",
                                                       "between"]),
    (GPU, _set("nvidia-rtx-4090", "pcie_gen", 4.5), ["nvidia-rtx-4090", "'pcie_gen'",
                                                      "whole number"]),
    (GPU, _set("nvidia-rtx-4090", "form_factor", "mxm"), ["nvidia-rtx-4090", "'form_factor'"]),
    (GPU, _del("nvidia-rtx-4090", "architecture"), ["nvidia-rtx-4090",
                                                     "missing field 'architecture'"]),
    (GPU, _set("nvidia-gtx-1660-super", "fp16_tensor_tflops", 20),
     ["nvidia-gtx-1660-super", "without tensor cores"]),
    (GPU, _set("nvidia-rtx-4090", "fp32_tflops", {"value": 82.6, "derived": ""}),
     ["nvidia-rtx-4090", "derived"]),
    (GPU, _set("nvidia-rtx-4090", "fp32_tflops", {"value": 82.6, "source": "NOPE"}),
     ["nvidia-rtx-4090", "'fp32_tflops'", "neither a known source key nor a URL"]),
    (GPU, _part_field("nvidia-rtx-4090", "id", "NVIDIA_RTX_4090"), ["'id'", "kebab-case"]),
    (GPU, _part_field("nvidia-rtx-4090", "id", "rtx-4090"), ["rtx-4090", "vendor"]),
    (GPU, _part_field("nvidia-rtx-4090", "id", "nvidia-rtx-3090"), ["nvidia-rtx-3090",
                                                                    "already used"]),
    (GPU, _part_field("nvidia-rtx-4090", "sources", []), ["nvidia-rtx-4090", "'sources'"]),
    (GPU, _part_field("nvidia-rtx-4090", "sources", ["somewhere"]), ["nvidia-rtx-4090",
                                                                    "'sources'"]),
    (GPU, _price("nvidia-rtx-4090", currency="EUR"), ["nvidia-rtx-4090", "prices[0]",
                                                      "'currency'"]),
    (GPU, _price("nvidia-rtx-4090", date="2022-13"), ["nvidia-rtx-4090", "prices[0]", "'date'"]),
    (GPU, _price("nvidia-rtx-4090", amount="12,99"), ["nvidia-rtx-4090", "'amount'"]),
    (GPU, _price("nvidia-rtx-4090", amount="-5"), ["nvidia-rtx-4090", "'amount'", "positive"]),
    (GPU, _price("nvidia-rtx-4090", kind="estimate"), ["nvidia-rtx-4090", "estimate"]),
    (GPU, _price("nvidia-rtx-4090", kind="street"), ["nvidia-rtx-4090", "'kind'"]),
    (CPU, _set("intel-core-i9-13900k", "threads", 16), ["intel-core-i9-13900k", "'threads'"]),
    (CPU, _set("intel-core-i9-13900k", "memory", ["DDR6-9000"]), ["intel-core-i9-13900k",
                                                                  "'memory'", "DDR5-5600"]),
    (CPU, _set("intel-core-i9-13900k", "boost_clock_ghz", 2.0), ["intel-core-i9-13900k",
                                                                 "boost_clock_ghz"]),
    ("catalog/motherboards.json",
     _set("asus-rog-maximus-z790-formula", "gpu_lane_configs", [[{"lanes": 16, "gen": 5,
                                                                 "via": "cpu"}], []]),
     ["asus-rog-maximus-z790-formula", "gpu_lane_configs[1]", "2 slot(s)"]),
    ("catalog/motherboards.json",
     _set("asus-rog-maximus-z790-formula", "gpu_lane_configs", [[{"lanes": 12, "gen": 5,
                                                                 "via": "cpu"}]]),
     ["asus-rog-maximus-z790-formula", "lanes must be"]),
]


@pytest.mark.parametrize(("rel", "mutate", "fragments"), BAD_ENTRIES)
def test_bad_entry_names_file_entry_and_field(edit: Any, rel: str, mutate: Any,
                                              fragments: list[str]) -> None:
    root = edit(rel, mutate)
    with pytest.raises(InputError) as info:
        load_catalog(root)
    message = str(info.value)
    assert Path(rel).name in message
    for fragment in fragments:
        assert fragment in message


def test_malformed_json_file(resources_copy: Path) -> None:
    (resources_copy / "catalog" / "psus.json").write_text("{ not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"psus\.json: not valid JSON"):
        load_catalog(resources_copy)


def test_wrong_format_field(edit: Any) -> None:
    root = edit("catalog/psus.json", lambda d: d.update(format="torchrig.build"))
    with pytest.raises(InputError, match=r"psus\.json: field 'format'"):
        load_catalog(root)


def test_unknown_category(edit: Any) -> None:
    root = edit("catalog/psus.json", lambda d: d.update(category="chassis"))
    with pytest.raises(InputError, match=r"psus\.json: field 'category'"):
        load_catalog(root)


def test_prices_are_decimals() -> None:
    price = load_catalog().get("nvidia-rtx-4090").prices[0]
    assert price.amount == Decimal("1599")
    assert price.currency == "USD" and price.kind == "launch-msrp"


def test_a_source_key_has_a_name_for_documents() -> None:
    cat = load_catalog()
    assert cat.source_link("PCPP-DS") == ("PCPartPicker", cat.sources["PCPP-DS"].url)
    # A citation may name the file after the key; the document shows the source's name.
    cited = "PCPP-DS data/csv/memory.csv"
    assert cat.source_link(cited) == ("PCPartPicker", cat.sources["PCPP-DS"].url)
    assert cat.source_url(cited) == cat.sources["PCPP-DS"].url + " data/csv/memory.csv"
    assert cat.source_link("EPOCH") == ("Epoch AI", None)  # a repository path is not a link
    assert cat.source_link("https://example.com/p") == ("https://example.com/p",) * 2
    assert cat.source_link("estimate: a range") == ("estimate: a range", None)


@pytest.mark.parametrize("entry, fragment", [
    ({"url": None, "what": "x", "nmae": "typo"}, "nmae"),
    ({"url": None, "what": "x", "name": ""}, "'name'"),
])
def test_a_bad_source_entry_is_named(edit: Any, entry: dict[str, Any], fragment: str) -> None:
    root = edit("catalog/sources.json", lambda d: d["sources"].update(BAD=entry))
    with pytest.raises(InputError, match=r"sources\.json: source 'BAD'") as info:
        load_catalog(root)
    assert fragment in str(info.value)
