"""resources/catalog/export_controls.json, read raw (docs/hardware-sources.md sec. 8).

The file's schema is fixed (another module loads it); these tests check the data itself: every
part and alternative is a catalog part, every rule a part cites is defined and has a URL and a
day, both languages are present, and the parts NVIDIA's October 2023 SEC filing names are tied
to that rule.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog.export_controls import load_export_controls
from torchrig.catalog.loader import default_resources_dir, load_catalog
from torchrig.findings import Severity

PATH = default_resources_dir() / "catalog" / "export_controls.json"


def _doc() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    return data


def _bilingual(value: Any) -> bool:
    return (isinstance(value, dict) and set(value) == {"en", "zh"}
            and all(isinstance(v, str) and v.strip() for v in value.values())
            and re.search(r"[\u4e00-\u9fff]", value["zh"]) is not None)


def test_document_has_exactly_the_agreed_keys() -> None:
    doc = _doc()
    assert set(doc) == {"format", "version", "note", "rules", "parts", "tpp_alternatives"}
    assert set(doc["tpp_alternatives"]) == {"geforce", "other"}
    assert (doc["format"], doc["version"]) == ("torchrig-export-controls", 1)
    assert _bilingual(doc["note"])
    for rule in doc["rules"]:
        assert set(rule) == {"id", "title", "date", "source", "summary"}, rule.get("id")
    for part in doc["parts"]:
        assert set(part) == {"part_id", "rules", "alternatives", "note"}, part.get("part_id")


def test_every_rule_has_a_url_a_day_and_both_languages() -> None:
    rules = _doc()["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids))
    for rule in rules:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule["id"]), rule["id"]
        assert rule["source"].startswith("https://"), rule["id"]
        datetime.date.fromisoformat(rule["date"])  # a real day, YYYY-MM-DD
        assert _bilingual(rule["title"]) and _bilingual(rule["summary"]), rule["id"]


def test_the_rule_ids_name_their_day() -> None:
    # An id such as us-bis-2023-10-17 carries the rule's date; the two must agree.
    for rule in _doc()["rules"]:
        found = re.search(r"\d{4}-\d{2}-\d{2}", rule["id"])
        assert found is not None and found.group() == rule["date"], rule["id"]


def test_every_part_and_alternative_is_in_the_catalog_and_every_rule_is_defined() -> None:
    doc = _doc()
    catalog = load_catalog()
    defined = {r["id"] for r in doc["rules"]}
    listed = [p["part_id"] for p in doc["parts"]]
    assert len(listed) == len(set(listed))
    for part in doc["parts"]:
        assert part["part_id"] in catalog.parts, part["part_id"]
        assert catalog.parts[part["part_id"]].category == "gpu", part["part_id"]
        assert part["rules"] and set(part["rules"]) <= defined, part["part_id"]
        assert _bilingual(part["note"]), part["part_id"]
        for alt in part["alternatives"]:
            assert alt in catalog.parts, (part["part_id"], alt)
            assert alt != part["part_id"]


def test_no_alternative_is_itself_restricted() -> None:
    # Suggesting a part the same rules block would send the user in a circle.
    doc = _doc()
    restricted = {p["part_id"] for p in doc["parts"]}
    for part in doc["parts"]:
        assert not set(part["alternatives"]) & restricted, part["part_id"]
    for key, ids in doc["tpp_alternatives"].items():
        assert ids and not set(ids) & restricted, key
        assert all(pid in load_catalog().parts for pid in ids), key


def test_every_rule_is_cited_by_a_part() -> None:
    doc = _doc()
    used = {rid for p in doc["parts"] for rid in p["rules"]}
    assert used == {r["id"] for r in doc["rules"]}


@pytest.mark.parametrize("pid", [
    # NVIDIA's SEC filing of October 2023 (quoted by videocardz.com, 2023-10-18): the rule covers
    # "the A100, A800, H100, H800, L40, L40S, and RTX 4090"; these are the catalog's parts of them.
    "nvidia-a100-40gb-pcie", "nvidia-a100-80gb-sxm", "nvidia-h100-pcie", "nvidia-h100-sxm",
    "nvidia-l40s", "nvidia-rtx-4090",
])
def test_parts_named_in_nvidias_october_2023_filing_cite_that_rule(pid: str) -> None:
    parts = {p["part_id"]: p for p in _doc()["parts"]}
    assert "us-bis-2023-10-17" in parts[pid]["rules"]


def test_the_china_market_geforce_cards_are_the_rtx_4090_alternatives() -> None:
    # guru3d / evertiq: the RTX 4090 D was made for China because the RTX 4090 was covered.
    parts = {p["part_id"]: p for p in _doc()["parts"]}
    assert "nvidia-rtx-4090d" in parts["nvidia-rtx-4090"]["alternatives"]
    # The H20 needs a licence since 2025-04-09 (NVIDIA 8-K): it is listed, not suggested.
    assert parts["nvidia-h20"]["rules"] == ["us-licence-2025-04-09-h20"]


def test_the_shipped_list_loads_and_warns_a_cny_build_with_an_rtx_4090() -> None:
    # The module that reads the file accepts it, and the build check turns it into the
    # warning: NVIDIA's filing names the RTX 4090 under the 2023 rule (see above).
    catalog = load_catalog()
    controls = load_export_controls(PATH, set(catalog.parts))
    assert set(controls.parts) == {p["part_id"] for p in _doc()["parts"]}
    lines = [LineItem(part_id="nvidia-rtx-4090", quantity=1)]
    cny = [f for f in check_build(Build(name="t", currency="CNY", line_items=lines), catalog)
           if f.code == "export.us_controls"]
    assert [f.severity for f in cny] == [Severity.WARNING]
    (finding,) = cny
    assert "2023-10-17" in finding.detail.en and "2023-10-17" in finding.detail.zh
    assert "https://www.federalregister.gov/d/2023-23055" in finding.source.en
    assert "RTX 4090 D" in finding.fix.en and "RTX 5090 D V2" in finding.fix.zh
    # The same part quoted in USD (and no region given) is not a sale in China.
    usd = check_build(Build(name="t", currency="USD", line_items=lines), catalog)
    assert "export.us_controls" not in {f.code for f in usd}
