"""Catalog validation at its edges, found unpinned by mutation testing (scripts/mutate.py
catalog.loader): ids, vendors and sources; each spec range at both ends (the limits are the
schema's in catalog/specs.py, e.g. a CPU's TDP 5-1,000 W, cores 1-512); whole numbers after
unit scaling; the value/source/derived form; cross-field rules; prices; end of life; memory
support; lane configurations; and the sources file. Each case is one part written to a
temporary catalog file, a copy of the shipped Core i5-12400F with one field changed.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from catalog_helpers import part

from torchrig.catalog import load_catalog
from torchrig.catalog.loader import (
    _lane_configs,
    _load_sources,
    _mem_support,
    load_parts_file,
)
from torchrig.catalog.model import SourceRef
from torchrig.catalog.specs import GpuSlot, MemorySupport
from torchrig.errors import InputError
from torchrig.units import GiB

ROOT = Path(__file__).resolve().parents[2]
CPUS = ROOT / "resources" / "catalog" / "cpus.json"


def _i5() -> dict[str, Any]:
    data = json.loads(CPUS.read_text(encoding="utf-8"))
    return copy.deepcopy(part(data, "intel-core-i5-12400f"))


def _sources() -> dict[str, SourceRef]:
    return load_catalog().sources


def _write(tmp_path: Path, entry: Any, **doc: Any) -> Path:
    path = tmp_path / "cpus.json"
    body = {"format": "torchrig.catalog", "version": 1, "category": "cpu", "parts": [entry]}
    body.update(doc)
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    return path


def _load(tmp_path: Path, entry: Any, **doc: Any) -> Any:
    (loaded,) = load_parts_file(_write(tmp_path, entry, **doc), _sources())
    return loaded


def _refused(tmp_path: Path, entry: Any, fragment: str, **doc: Any) -> str:
    with pytest.raises(InputError) as info:
        load_parts_file(_write(tmp_path, entry, **doc), _sources())
    assert fragment in str(info.value), str(info.value)
    return str(info.value)


def _spec(**changes: Any) -> dict[str, Any]:
    entry = _i5()
    entry["specs"].update(changes)
    return entry


def test_the_shipped_entry_loads_as_is(tmp_path: Path) -> None:
    cpu = _load(tmp_path, _i5())
    assert cpu.id == "intel-core-i5-12400f" and cpu.category == "cpu"
    assert cpu.cpu.tdp_w == 65.0 and cpu.cpu.cores == 6


# --- ids, vendors, sources ------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["Intel-core", "intel--core", "intel-core-", "-intel",
                                 "intel core", "intel-core-i5-12400f\n", 7])
def test_ids_are_kebab_case(tmp_path: Path, bad: Any) -> None:
    _refused(tmp_path, {**_i5(), "id": bad},
             "parts[0]: field 'id' must be kebab-case text (e.g. 'nvidia-rtx-4090'), got ")


def test_the_id_starts_with_the_vendor(tmp_path: Path) -> None:
    _refused(tmp_path, {**_i5(), "id": "amd-core-i5"},
             "field 'id' must start with the vendor ('intel-')")
    # "ASRock Rack" -> "asrock-rack-": runs of other characters become one hyphen.
    loaded = _load(tmp_path, {**_i5(), "vendor": "ASRock  Rack!", "id": "asrock-rack-x"})
    assert loaded.vendor == "ASRock  Rack!"
    _refused(tmp_path, {**_i5(), "id": "intelx-core"}, "must start with the vendor")


def test_unknown_fields_and_missing_texts(tmp_path: Path) -> None:
    _refused(tmp_path, {**_i5(), "colour": "blue"}, "part 'intel-core-i5-12400f': unknown "
             "field 'colour'")
    _refused(tmp_path, {**_i5(), "vendor": " "}, "field 'vendor' must be non-empty text")
    _refused(tmp_path, {**_i5(), "name": ""}, "field 'name' must be non-empty text")
    _refused(tmp_path, "not an object", "parts[0] must be an object")
    _refused(tmp_path, {**_i5(), "specs": []}, "field 'specs' must be an object")


def test_a_part_needs_a_known_source(tmp_path: Path) -> None:
    _refused(tmp_path, {**_i5(), "sources": []}, "field 'sources' must list at least one source")
    _refused(tmp_path, {**_i5(), "sources": None}, "must list at least one source")
    _refused(tmp_path, {**_i5(), "sources": "ARK"}, "field 'sources' must be a list")
    _refused(tmp_path, {**_i5(), "sources": ["my memory"]},
             "source 'my memory' is neither a known source key nor a URL")
    _refused(tmp_path, {**_i5(), "sources": [" "]}, "a source must be non-empty text")
    for good in ("https://example.com/a", "http://example.com", "owner/repo:path/file.md",
                 "ARK (CpuId 134587)", "ARK ; a note"):
        assert _load(tmp_path, {**_i5(), "sources": [good]}).sources == (good,)
    _refused(tmp_path, {**_i5(), "sources": ["ftp://example.com"]}, "neither a known source")
    _refused(tmp_path, {**_i5(), "sources": ["owner/repo"]}, "neither a known source")


def test_notes_and_match_names(tmp_path: Path) -> None:
    _refused(tmp_path, {**_i5(), "notes": "text"}, "field 'notes' must be an object with")
    assert _load(tmp_path, {k: v for k, v in _i5().items() if k != "notes"}).notes is None
    _refused(tmp_path, {**_i5(), "match_names": ["ok", " "]},
             "field 'match_names' must list non-empty texts")
    assert _load(tmp_path, {**_i5(), "match_names": None}).match_names == ()


# --- specs --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "ok"), [(5, True), (1000, True), (4.9, False),
                                           (1000.5, False), (True, False), ("65", False)])
def test_a_range_includes_both_ends(tmp_path: Path, value: Any, ok: bool) -> None:
    # CPU TDP: 5-1,000 W in the schema.
    if ok:
        assert _load(tmp_path, _spec(tdp_w=value)).cpu.tdp_w == value
    elif isinstance(value, (bool, str)):
        _refused(tmp_path, _spec(tdp_w=value), f"field 'tdp_w' must be a number, got {value!r}")
    else:
        _refused(tmp_path, _spec(tdp_w=value), "field 'tdp_w' must be between 5 and 1000 "
                 f"(unit in the name), got {value!r}")


def test_units_are_scaled_and_whole_numbers_checked_after_scaling(tmp_path: Path) -> None:
    cpu = _load(tmp_path, _spec(boost_clock_ghz=4.4, max_memory_gib=1.5, cores=6.0,
                                threads=12, performance_cores=6))
    assert cpu.cpu.boost_clock_hz == 4.4e9
    assert cpu.cpu.max_memory_bytes == 1.5 * GiB == 1_610_612_736  # a whole byte count
    assert isinstance(cpu.cpu.cores, int) and cpu.cpu.cores == 6
    _refused(tmp_path, _spec(cores=6.5), "field 'cores' must be a whole number, got 6.5")
    # Float noise is forgiven up to a millionth of the value: 6.000005 is 6 (5e-6 <= 6e-6),
    # 6.00001 is not (1e-5 > 6e-6).
    assert _load(tmp_path, _spec(cores=6.000005)).cpu.cores == 6
    _refused(tmp_path, _spec(cores=6.00001), "field 'cores' must be a whole number")
    # For values up to 1 the allowance is 1e-6 absolute: 1.000001 is 1, 1.00001 is not.
    assert _load(tmp_path, _spec(memory_channels=1.000001)).cpu.memory_channels == 1
    _refused(tmp_path, _spec(memory_channels=1.00001), "'memory_channels' must be a whole")


def test_text_and_true_false_fields(tmp_path: Path) -> None:
    _refused(tmp_path, _spec(socket=" "), "field 'socket' must be non-empty text, got ' '")
    _refused(tmp_path, _spec(socket=1700), "field 'socket' must be non-empty text")
    _refused(tmp_path, _spec(avx512="no"), "field 'avx512' must be true or false, got 'no'")
    _refused(tmp_path, _spec(avx512=0), "field 'avx512' must be true or false")
    _refused(tmp_path, _spec(colour="blue"), "unknown field 'colour' for a cpu (known: ")


def test_the_value_source_derived_form(tmp_path: Path) -> None:
    cpu = _load(tmp_path, _spec(tdp_w={"value": 65, "source": "ARK (CpuId 134587)"},
                                max_turbo_power_w={"value": 117, "derived": "PL2 from ARK"}))
    assert cpu.cpu.tdp_w == 65 and cpu.field_sources["tdp_w"] == "ARK (CpuId 134587)"
    # The shipped i5-12400F also derives "no integrated graphics" from Intel's F suffix.
    assert cpu.derived_fields["max_turbo_power_w"] == "PL2 from ARK"
    assert set(cpu.derived_fields) == {"max_turbo_power_w", "integrated_graphics"}
    _refused(tmp_path, _spec(tdp_w={"value": 65, "unit": "W"}),
             "field 'tdp_w' has unknown key 'unit' (use value, source, derived)")
    _refused(tmp_path, _spec(tdp_w={"value": 65, "derived": " "}),
             "field 'tdp_w.derived' must say how it was derived")
    _refused(tmp_path, _spec(tdp_w={"value": 65, "source": "a guess"}),
             "field 'tdp_w': source 'a guess' is neither")
    _refused(tmp_path, _spec(cores={"value": None}), "missing field 'cores'")
    assert _load(tmp_path, _spec(tdp_w={"value": None})).cpu.tdp_w is None  # optional


def test_cross_field_rules(tmp_path: Path) -> None:
    _refused(tmp_path, _spec(threads=5), "field 'threads' (5) is below 'cores' (6)")
    assert _load(tmp_path, _spec(threads=6)).cpu.threads == 6
    _refused(tmp_path, _spec(efficiency_cores=1),
             "performance_cores + efficiency_cores must equal cores")
    _refused(tmp_path, _spec(boost_clock_ghz=2.4), "'boost_clock_ghz' is below 'base_clock_ghz'")
    assert _load(tmp_path, _spec(boost_clock_ghz=2.5)).cpu.boost_clock_hz == 2.5e9


# --- prices and end of life --------------------------------------------------------------------


def _price(**changes: Any) -> dict[str, Any]:
    entry = _i5()
    entry["prices"] = [{**entry["prices"][0], **changes}]
    return entry


def test_prices(tmp_path: Path) -> None:
    assert str(_load(tmp_path, _price(amount="0.01")).prices[0].amount) == "0.01"
    for amount in ("0", "-1"):
        _refused(tmp_path, _price(amount=amount), "prices[0]: field 'amount' must be positive")
    _refused(tmp_path, _price(currency="EUR"), "field 'currency' must be CNY or USD, got 'EUR'")
    _refused(tmp_path, _price(date="2022-13"), "prices[0]: field 'date' must be a date")
    _refused(tmp_path, _price(kind="guess"), "field 'kind' must be one of ")
    _refused(tmp_path, _price(reliability="certain"),
             "field 'reliability' must be low, medium or high")
    assert _load(tmp_path, _price(reliability="low")).prices[0].reliability == "low"
    _refused(tmp_path, _price(note=5), "field 'note' must be text")
    _refused(tmp_path, {**_i5(), "prices": ["167"]}, "prices[0]: must be an object")


LABEL = {"en": "a cost sheet", "zh": "一份成本表"}


def test_an_estimate_says_its_basis(tmp_path: Path) -> None:
    basis = "estimate: " + "x" * 10  # 20 characters, the shortest allowed
    assert _load(tmp_path, _price(kind="estimate", source=basis,
                                  label=LABEL)).prices[0].source == basis
    _refused(tmp_path, _price(kind="estimate", source=basis[:-1], label=LABEL),
             "an estimate's 'source' must be 'estimate: <basis>'")
    _refused(tmp_path, _price(kind="estimate", source="x" * 10 + "estimate: ", label=LABEL),
             "an estimate's 'source'")


def test_end_of_life(tmp_path: Path) -> None:
    eol = _load(tmp_path, {**_i5(), "end_of_life": {"date": "2024-10", "source": "HWREF"}})
    assert (eol.end_of_life.date, eol.end_of_life.source) == ("2024-10", "HWREF")
    for bad in ("2024-10", {"date": "2024-10", "source": "HWREF", "why": "x"}):
        _refused(tmp_path, {**_i5(), "end_of_life": bad},
                 "field 'end_of_life' must be an object with date and source")
    _refused(tmp_path, {**_i5(), "end_of_life": {"date": "2024-13", "source": "HWREF"}},
             "field 'end_of_life.date' must be a date")
    _refused(tmp_path, {**_i5(), "end_of_life": {"date": "2024-10", "source": "rumour"}},
             "field 'end_of_life.source': source 'rumour' is neither")


# --- memory support and lane configurations ------------------------------------------------------


def test_memory_support() -> None:
    assert _mem_support(["DDR5-5600", "DDR4", "DDR5-12345", "DDR4-800"], "w", "memory") == (
        MemorySupport("DDR5", 5600), MemorySupport("DDR4", None),
        MemorySupport("DDR5", 12345), MemorySupport("DDR4", 800))
    for bad in ("DDR3", "DDR5-56", "DDR5-123456", "ddr5", "DDR5\n", "DDR5-5600x", 5600):
        with pytest.raises(InputError, match="field 'memory' item .* must look like "
                           "'DDR5-5600' or 'DDR4'"):
            _mem_support([bad], "w", "memory")
    with pytest.raises(InputError, match="must be a list like"):
        _mem_support([], "w", "memory")


def test_lane_configurations() -> None:
    cfg = [[{"lanes": 16, "gen": 5, "via": "cpu"}],
           [{"lanes": 8, "gen": None, "via": "cpu"}, {"lanes": 1, "gen": 1, "via": "chipset"}]]
    assert _lane_configs(cfg, "w", "k") == (
        (GpuSlot(16, 5, "cpu"),), (GpuSlot(8, None, "cpu"), GpuSlot(1, 1, "chipset")))
    assert _lane_configs([], "w", "k") == ()
    cases = [
        ({"x": 1}, "w: field 'k' must be a list (one entry per GPU count)"),
        ([[{"lanes": 16, "via": "cpu"}], [{"lanes": 16, "via": "cpu"}]],
         "field 'k[1]' must list 2 slot(s) (the wiring with 2 GPU(s))"),
        ([[]], "field 'k[0]' must list 1 slot(s)"),
        (["x16"], "field 'k[0]' must list 1 slot(s)"),
        ([["x16"]], "field 'k[0][0]' must be an object with lanes, gen, via"),
        ([[{"lanes": 3, "via": "cpu"}]], "field 'k[0][0]'.lanes must be 1, 2, 4, 8 or 16, got 3"),
        ([[{"lanes": True, "via": "cpu"}]], ".lanes must be 1, 2, 4, 8 or 16, got True"),
        ([[{"lanes": 32, "via": "cpu"}]], ".lanes must be 1, 2, 4, 8 or 16"),
        ([[{"lanes": 16, "gen": 7, "via": "cpu"}]], ".gen must be 1-6 or null, got 7"),
        ([[{"lanes": 16, "gen": 0, "via": "cpu"}]], ".gen must be 1-6 or null, got 0"),
        ([[{"lanes": 16, "gen": True, "via": "cpu"}]], ".gen must be 1-6 or null, got True"),
        ([[{"lanes": 16, "via": "pch"}]], ".via must be 'cpu' or 'chipset', got 'pch'"),
    ]
    for value, fragment in cases:
        with pytest.raises(InputError) as info:
            _lane_configs(value, "w", "k")
        assert fragment in str(info.value), (value, str(info.value))
    assert _lane_configs([[{"lanes": 16, "gen": 6, "via": "cpu"}]], "w", "k")[0][0].gen == 6


# --- the catalog file and the sources file --------------------------------------------------------


def test_the_catalog_file(tmp_path: Path) -> None:
    _refused(tmp_path, _i5(), "field 'category' must be one of ", category="cpus")
    _refused(tmp_path, _i5(), "field 'parts' must be a non-empty list", parts=[])
    _refused(tmp_path, _i5(), "field 'parts' must be a non-empty list", parts={"a": 1})
    _refused(tmp_path, _i5(), "unknown field 'part'", part=[])


def test_a_part_id_twice_is_refused_naming_the_first_file(edit: Any) -> None:
    def twice(data: dict[str, Any]) -> None:
        data["parts"].append(copy.deepcopy(data["parts"][0]))

    root = edit("catalog/cpus.json", twice)
    first = json.loads((root / "catalog" / "cpus.json").read_text(encoding="utf-8"))
    with pytest.raises(InputError, match=f"part '{first['parts'][0]['id']}': id already used "
                       "in cpus.json"):
        load_catalog(root)


def _sources_file(tmp_path: Path, sources: Any) -> Path:
    path = tmp_path / "sources.json"
    path.write_text(json.dumps({"format": "torchrig.sources", "version": 1, "sources": sources}),
                    encoding="utf-8")
    return path


def test_the_sources_file(tmp_path: Path) -> None:
    got = _load_sources(_sources_file(tmp_path, {
        "A": {"url": "https://a.example", "what": "a page"},
        "B": {"url": None, "what": "a whitepaper", "name": "B paper"},
        "C": {"url": "owner/repo:docs/x.md", "what": "a file"}}))
    assert got["A"] == SourceRef(key="A", url="https://a.example", what="a page", name=None)
    assert got["B"].url is None and got["B"].name == "B paper"
    assert got["C"].url == "owner/repo:docs/x.md"
    cases = [
        ([], "field 'sources' must be an object of key -> source"),
        ({"A": "https://a"}, "source 'A': must be an object with 'url' and 'what'"),
        ({"A": {"url": "ftp://a", "what": "x"}},
         "field 'url' must be a URL, owner/repo:path or null, got 'ftp://a'"),
        ({"A": {"url": 5, "what": "x"}}, "field 'url' must be a URL"),
        ({"A": {"url": None, "what": " "}}, "field 'what' must be non-empty text"),
        ({"A": {"url": None, "what": "x", "name": ""}}, "field 'name' must be non-empty text"),
        ({"A": {"url": None, "what": "x", "page": 3}}, "unknown field 'page'"),
    ]
    for sources, fragment in cases:
        with pytest.raises(InputError) as info:
            _load_sources(_sources_file(tmp_path, sources))
        assert fragment in str(info.value), (sources, str(info.value))
