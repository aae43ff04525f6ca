"""Issue 25's "done means": on a fresh install (no settings: the test-wide fixture points the
settings folders at an empty temp dir) `torchrig check` prices every line of every sample and
tier build with no flags given, converting USD catalog prices at the shipped reference rate
(resources/catalog/exchange_rates.json, docs/hardware-sources.md sec. 8.6)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from torchrig.builds.build import build_from_tier, save_build
from torchrig.catalog import load_catalog
from torchrig.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "builds").glob("*.json"))
# The enterprise build's HGX A100 4-GPU server platform: no source gives its price or specs
# (docs/hardware-sources.md sec. 4), so that one line still asks for a vendor quote, in the
# sample and in the tier it starts from.
UNPRICED = {"enterprise": [1]}


def _check(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    code = main(["check", str(path), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    doc: dict[str, Any] = json.loads(out)
    return doc


def _assert_priced(doc: dict[str, Any], name: str) -> None:
    build = doc["build"]
    unpriced = [line["index"] for line in build["lines"] if line["status"] != "ok"]
    assert unpriced == UNPRICED.get(name, []), (name, unpriced)
    # Second method: the subtotal is the sum of the priced lines' totals.
    assert Decimal(build["subtotal"]) == sum(
        (Decimal(line["total"]) for line in build["lines"] if line["status"] == "ok"),
        Decimal(0))
    if build["currency"] == "CNY":
        # No build rate and no Settings: the shipped reference (PBOC 6.9929, 2026-01-23).
        assert (build["exchange_rate"], build["exchange_rate_date"]) == ("6.9929", "2026-01-23")


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_build_prices_on_a_fresh_install(capsys: pytest.CaptureFixture[str],
                                                path: Path) -> None:
    _assert_priced(_check(capsys, path), path.stem)


@pytest.mark.parametrize("tier_id", ["entry", "professional", "enterprise"])
def test_tier_build_prices_on_a_fresh_install(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, tier_id: str) -> None:
    path = tmp_path / f"{tier_id}.json"
    save_build(build_from_tier(tier_id, load_catalog()), path)
    _assert_priced(_check(capsys, path), tier_id)


def test_professional_build_has_no_export_or_end_of_life_flag(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The CNY professional build quotes the China-market RTX 4090 D: no US export-control
    finding and no out-of-production alert, which the RTX 4090 it replaced had."""
    doc = _check(capsys, ROOT / "builds" / "professional.json")
    assert not [f for f in doc["findings"] if f["code"] == "export.us_controls"]
    alerts = {a["code"] for line in doc["build"]["lines"] for a in line["alerts"]}
    assert "part.eol" not in alerts
    gpu = next(line for line in doc["build"]["lines"] if line["category"] == "gpu")
    # NVIDIA China's RTX 4090 D price, CNY 12,999 (svethardware.cz / guru3d, Dec 2023).
    assert (gpu["part_id"], gpu["unit_price"], gpu["source_currency"]) == (
        "nvidia-rtx-4090d", "12999.00", "CNY")


def test_the_flagged_gap_is_caught(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The check above can tell: a sample line without a price shows as unpriced."""
    doc = json.loads((ROOT / "builds" / "entry.json").read_text(encoding="utf-8"))
    doc["line_items"].append({"part_id": "nfortec-krater-x", "quantity": 1})  # no price
    path = tmp_path / "entry.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(AssertionError):
        _assert_priced(_check(capsys, path), "entry")


def test_entry_total_at_the_reference_rate(capsys: pytest.CaptureFixture[str]) -> None:
    """builds/entry.json on a fresh install, by hand: the i5-12400F at its JD.com CNY 1,189.00
    and the 990 PRO 1TB at 快科技's CNY 1,099 (2023-01-24), every other line USD x 6.9929
    rounded half-up to the cent: 229 -> 1,601.37, 179.99 -> 1,258.65, 45.99 -> 321.60,
    198.98 -> 1,391.45, 124.99 -> 874.04, 40 -> 279.72; 1,189.00 + 1,099.00 + 5,726.83 =
    8,014.83 (docs/hardware-sources.md sec. 4)."""
    build = _check(capsys, ROOT / "builds" / "entry.json")["build"]
    assert [line["unit_price"] for line in build["lines"]] == [
        "1189.00", "1601.37", "1258.65", "321.60", "1099.00", "1391.45", "874.04", "279.72"]
    assert build["total"] == "8014.83"
