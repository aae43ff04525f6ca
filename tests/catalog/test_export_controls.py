"""The export-control list (catalog/export_controls.py): the exact schema, strictly, with rule
and part ids that must resolve."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from torchrig.catalog.export_controls import load_export_controls, shipped_export_controls
from torchrig.errors import InputError

RULE_URL = "https://www.federalregister.gov/documents/2023/10/25/2023-23055/example"


def rule(**changes: Any) -> dict[str, Any]:
    entry = {"id": "ear-2023-10", "title": {"en": "AC/S IFR", "zh": "先进计算规则"},
             "date": "2023-10-25", "source": RULE_URL,
             "summary": {"en": "Licence required.", "zh": "需要许可证。"}}
    entry.update(changes)
    return entry


def part(**changes: Any) -> dict[str, Any]:
    entry = {"part_id": "nvidia-h100-pcie", "rules": ["ear-2023-10"],
             "alternatives": ["nvidia-rtx-4090"], "note": {"en": "n", "zh": "注"}}
    entry.update(changes)
    return entry


def write(tmp_path: Path, rules: list[Any], parts: list[Any], **top: Any) -> Path:
    doc = {"format": "torchrig-export-controls", "version": 1,
           "note": {"en": "list", "zh": "清单"}, "rules": rules, "parts": parts, **top}
    path = tmp_path / "export_controls.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


KNOWN = {"nvidia-h100-pcie", "nvidia-rtx-4090", "nvidia-h100-sxm"}


def test_reads_rules_and_parts(tmp_path: Path) -> None:
    controls = load_export_controls(write(tmp_path, [rule()], [part()]), KNOWN)
    entry = controls.get("nvidia-h100-pcie")
    assert entry is not None and entry.alternatives == ("nvidia-rtx-4090",)
    assert [r.id for r in entry.rules] == ["ear-2023-10"]
    assert entry.rules[0].date == "2023-10-25" and entry.rules[0].title.zh == "先进计算规则"
    assert controls.get("nvidia-rtx-4090") is None and controls.note.en == "list"


@pytest.mark.parametrize(("rules", "parts", "message"), [
    ([rule(date="2023-10")], [], "YYYY-MM-DD"),
    ([rule(source="federalregister.gov")], [], "http(s) URL"),
    ([rule(title="AC/S")], [], "'en' and 'zh'"),
    ([rule(), rule()], [], "used twice"),
    ([rule(extra=1)], [], "unknown field 'extra'"),
    ([rule()], [part(rules=["ear-2099"])], "rule 'ear-2099' is not in 'rules'"),
    ([rule()], [part(rules=[])], "at least one rule"),
    ([rule()], [part(part_id="acme-gpu")], "part 'acme-gpu' is not in the catalog"),
    ([rule()], [part(alternatives=["acme-gpu"])], "part 'acme-gpu' is not in the catalog"),
    ([rule()], [part(alternatives=["nvidia-h100-pcie"])], "its own alternative"),
    ([rule()], [part(), part()], "listed twice"),
    ([rule()], [part(alternatives="nvidia-rtx-4090")], "must be a list"),
    ([rule()], [part(alternatives=[1])], "must list ids"),
])
def test_a_bad_entry_is_refused_naming_it(tmp_path: Path, rules: list[Any], parts: list[Any],
                                          message: str) -> None:
    with pytest.raises(InputError) as err:
        load_export_controls(write(tmp_path, rules, parts), KNOWN)
    assert message in str(err.value) and str(tmp_path) in str(err.value)


def test_missing_fields_are_named(tmp_path: Path) -> None:
    entry = part()
    del entry["note"]
    with pytest.raises(InputError, match=r"parts\[0\]: missing field 'note'"):
        load_export_controls(write(tmp_path, [rule()], [entry]), KNOWN)
    path = tmp_path / "export_controls.json"
    path.write_text(json.dumps({"format": "torchrig-export-controls", "version": 1,
                                "rules": [], "parts": []}))
    with pytest.raises(InputError, match="missing field 'note'"):
        load_export_controls(path)


def test_without_known_parts_any_id_is_taken(tmp_path: Path) -> None:
    controls = load_export_controls(write(tmp_path, [rule()], [part(part_id="acme-gpu")]))
    assert controls.get("acme-gpu") is not None


def test_no_shipped_file_is_no_list(tmp_path: Path) -> None:
    assert shipped_export_controls(tmp_path) is None


def test_tpp_alternatives_are_read_and_optional(tmp_path: Path) -> None:
    alts = {"geforce": ["nvidia-rtx-4090"], "other": ["nvidia-h100-sxm"]}
    controls = load_export_controls(write(tmp_path, [rule()], [part()], tpp_alternatives=alts),
                                    KNOWN)
    assert controls.tpp_alternatives == {"geforce": ("nvidia-rtx-4090",),
                                         "other": ("nvidia-h100-sxm",)}
    assert load_export_controls(write(tmp_path, [rule()], [part()]), KNOWN) \
        .tpp_alternatives == {}


@pytest.mark.parametrize(("alts", "message"), [
    ({"geforce": ["acme-gpu"], "other": []}, "part 'acme-gpu' is not in the catalog"),
    ({"geforce": []}, "missing field 'other'"),
    ({"geforce": [], "other": [], "consumer": []}, "unknown field 'consumer'"),
    (["nvidia-rtx-4090"], "must be an object"),
    ({"geforce": "nvidia-rtx-4090", "other": []}, "must be a list"),
])
def test_bad_tpp_alternatives_are_refused(tmp_path: Path, alts: Any, message: str) -> None:
    with pytest.raises(InputError, match="tpp_alternatives") as err:
        load_export_controls(write(tmp_path, [rule()], [part()], tpp_alternatives=alts), KNOWN)
    assert message in str(err.value)
