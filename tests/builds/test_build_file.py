"""Build files: round trip, atomic save, tier starts, and a named error for every bad field."""

from __future__ import annotations

import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from torchrig.builds.build import (
    Build,
    Discount,
    ExchangeRate,
    LineItem,
    build_from_tier,
    load_build,
    save_build,
)
from torchrig.catalog import load_catalog
from torchrig.catalog.export_controls import load_export_controls, shipped_controls_path
from torchrig.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "builds").glob("*.json"))


def _doc(**changes: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "torchrig.build", "version": 1, "name": "Lab box", "currency": "CNY",
        "tax_rate": "0.13", "nodes": 1,
        "line_items": [
            {"part_id": "nvidia-rtx-4090", "quantity": 2},
            {"text": "Case", "category": "case", "quantity": 1, "unit_price": "499.00",
             "currency": "CNY"},
            {"part_id": "intel-core-i9-13900k", "quantity": 1},
        ],
    }
    doc.update(changes)
    return doc


def _write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "build.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    build = Build(
        name="Quote 42", customer="Lab A", project="ViT", currency="USD",
        exchange_rate=ExchangeRate(Decimal("7.1"), "2025-06-01", "bank quote"),
        tax_rate=Decimal("0.06"), discount=Discount("percent", Decimal("5")), nodes=2,
        line_items=[
            LineItem(part_id="nvidia-rtx-4090", quantity=2, unit_price=Decimal("1700.00"),
                     currency="USD", price_source="supplier X", price_date="2025-05"),
            LineItem(text="Rack rails", category="other", quantity=1,
                     unit_price=Decimal("80"), currency="USD", scope="cluster", note="n/a"),
            LineItem(text="Switch", category="switch", quantity=1, unit_price=Decimal("36000"),
                     currency="USD", price_source="estimate: a cost sheet", price_date="2024-08",
                     price_kind="estimate", scope="cluster"),
        ],
        notes="two nodes", tier="professional",
    )
    path = tmp_path / "b.json"
    save_build(build, path)
    loaded = load_build(path)
    assert loaded == build
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "torchrig.build"


def test_save_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    save_build(Build(name="one"), path)
    save_build(Build(name="two"), path)
    assert load_build(path).name == "two"
    assert os.listdir(tmp_path) == ["b.json"]


def test_save_into_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        save_build(Build(name="x"), tmp_path / "nope" / "b.json")


def test_failed_load_never_touches_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, _doc(nodes=0))
    before = path.read_bytes()
    with pytest.raises(InputError):
        load_build(path)
    assert path.read_bytes() == before


def _line(i: int, **changes: Any) -> Any:
    def fn(doc: dict[str, Any]) -> None:
        doc["line_items"][i].update(changes)
    return fn


def _top(**changes: Any) -> Any:
    return lambda doc: doc.update(changes)


BAD_FIELDS = [
    (_line(2, quantity=0), "line_items[2].quantity must be a whole number >= 1"),
    (_line(0, quantity=1.5), "line_items[0].quantity must be a whole number"),
    (_line(0, quantity="2"), "line_items[0].quantity"),
    (_line(0, part_id="nvidia-rtx-9999"), "line_items[0].part_id 'nvidia-rtx-9999'"),
    (_line(1, category="spaceship"), "line_items[1].category"),
    (_line(1, currency="EUR"), "line_items[1].currency"),
    (_line(1, unit_price="abc"), "line_items[1].unit_price"),
    (_line(1, unit_price="-1"), "line_items[1].unit_price must not be negative"),
    (_line(0, price_date="2025-02-30"), "line_items[0].price_date"),
    (_line(1, price_kind="guess"), "line_items[1].price_kind must be one of"),
    (_line(0, price_kind="estimate"), "line_items[0].price_kind must be one of"),  # no price
    (_line(0, scope="rack"), "line_items[0].scope"),
    (_line(0, colour="red"), "line_items[0].colour"),
    (_line(0, text="extra"), "line_items[0]"),
    (_top(currency="EUR"), "currency must be CNY or USD"),
    (_top(tax_rate="1.3"), "tax_rate"),
    (_top(nodes=0), "nodes must be a whole number >= 1"),
    (_top(discount={"kind": "coupon", "value": "5"}), "discount.kind"),
    (_top(discount={"kind": "percent", "value": "150"}), "discount.value"),
    (_top(exchange_rate={"cny_per_usd": "7.1"}), "exchange_rate.date"),
    (_top(exchange_rate={"cny_per_usd": "0", "date": "2025-01-01"}),
     "exchange_rate.cny_per_usd"),
    (_top(name=""), "name"),
    (_top(tier="ultra"), "tier 'ultra'"),
    (_top(line_items={}), "line_items must be a list"),
    (_top(format="torchrig.workload"), "field 'format'"),
    (_top(version=99), "newer than this TorchRig"),
]


@pytest.mark.parametrize(("mutate", "fragment"), BAD_FIELDS)
def test_bad_field_is_named(tmp_path: Path, mutate: Any, fragment: str) -> None:
    doc = _doc()
    mutate(doc)
    path = _write(tmp_path, doc)
    with pytest.raises(InputError) as info:
        load_build(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


def test_not_json_and_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON object"):
        load_build(path)
    path.write_text("{oops", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_build(path)


@pytest.mark.parametrize("tier_id", ["entry", "professional", "enterprise"])
def test_build_from_tier(tier_id: str) -> None:
    cat = load_catalog()
    build = build_from_tier(tier_id, cat)
    tier = cat.tier(tier_id)
    assert build.tier == tier_id and build.nodes == tier.starter_nodes
    ids = [item.part_id for item in build.line_items if item.part_id]
    # The starter holds each seed pick, or, where the pick needs a US export licence for China,
    # one of the China-market alternatives the shipped list names for it (the professional
    # tier's RTX 4090 -> RTX 4090 D, docs/hardware-sources.md sec. 8.5).
    controls = load_export_controls(shipped_controls_path(), set(cat.parts))
    china_market = {pid: set(part.alternatives) for pid, part in controls.parts.items()}
    for choice in tier.parts:
        held = {choice.recommended} | china_market.get(choice.recommended, set())
        assert held & set(ids), choice
    build.check_parts(cat)
    assert Build.from_dict(build.to_dict()) == build


def test_enterprise_starts_with_two_nodes_of_four_a100() -> None:
    build = build_from_tier("enterprise", load_catalog())
    assert build.nodes == 2
    gpu = next(i for i in build.line_items if i.part_id == "nvidia-a100-80gb-sxm")
    assert gpu.quantity == 4
    note = build.current_tier_note()  # the tier note is kept apart from the user's notes
    assert note is not None and "2 nodes" in note.en and "2 个节点" in note.zh


def test_unknown_tier_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown tier"):
        build_from_tier("ultra", load_catalog())


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_builds_load(path: Path) -> None:
    build = load_build(path)
    assert build.line_items


# What each shipped tier sample must hold, stated by hand from resources/tiers.json's
# "starter_build" (docs/hardware-sources.md): (lines, nodes, GPU part, GPUs per node).
TIER_SAMPLES = {
    "entry": (8, 1, "nvidia-gtx-1660-super", 1),
    "professional": (9, 1, "nvidia-rtx-4090d", 1),
    "enterprise": (9, 2, "nvidia-a100-80gb-sxm", 4),
}


@pytest.mark.parametrize("tier_id", sorted(TIER_SAMPLES))
def test_tier_samples_match_the_tier_definitions(tier_id: str) -> None:
    """builds/<tier>.json against resources/tiers.json, both read as raw JSON (not through
    the loader or build_from_tier, which are what is being checked): "Start a build from this
    tier" must give the shipped sample line by line."""
    tiers = json.loads((ROOT / "resources" / "tiers.json").read_text(encoding="utf-8"))
    tier = next(t for t in tiers["tiers"] if t["id"] == tier_id)
    starter = tier["starter_build"]
    sample = json.loads((ROOT / "builds" / f"{tier_id}.json").read_text(encoding="utf-8"))
    n_lines, nodes, gpu, gpus = TIER_SAMPLES[tier_id]

    assert sample["format"] == "torchrig.build" and sample["version"] == 1
    assert sample["tier"] == tier_id
    assert sample["name"] == f"{tier['name']['en']} / {tier['name']['zh']}"
    assert sample["notes"] == f"{starter['note']['en']}\n{starter['note']['zh']}"
    assert sample["nodes"] == starter["nodes"] == nodes
    # A new build is in CNY with no tax, discount or exchange rate yet.
    assert (sample["currency"], sample["tax_rate"], sample["discount"],
            sample["exchange_rate"]) == ("CNY", "0", None, None)
    assert len(sample["line_items"]) == len(starter["lines"]) == n_lines
    for i, (line, want) in enumerate(zip(sample["line_items"], starter["lines"], strict=True)):
        # The sample line is the tier's line without its "role" (the role names the slot in
        # the tier; a build line has none): same part or text, quantity, scope and price.
        assert line == {k: v for k, v in want.items() if k != "role"}, (tier_id, i)
    gpu_lines = [line for line in sample["line_items"] if line.get("part_id") == gpu]
    assert [line["quantity"] for line in gpu_lines] == [gpus]
    # And the loader reads the sample to what the builder starts from (equal, not recomputed
    # from the sample: build_from_tier reads the catalog's tiers, the sample is a file).
    assert load_build(ROOT / "builds" / f"{tier_id}.json") == build_from_tier(
        tier_id, load_catalog())


# --- issue 13: what is saved always opens again ------------------------------------------


@pytest.mark.parametrize(("price", "written"), [(Decimal("1E+3"), "1000"),
                                                (Decimal("1E-7"), "0.0000001")])
def test_money_is_written_as_plain_digits_that_load(tmp_path: Path, price: Decimal,
                                                    written: str) -> None:
    build = Build(name="b", tax_rate=Decimal("1E-2"), line_items=[
        LineItem(text="x", category="other", unit_price=price, currency="CNY")])
    path = tmp_path / "b.json"
    save_build(build, path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["line_items"][0]["unit_price"] == written and doc["tax_rate"] == "0.01"
    assert load_build(path) == build


@pytest.mark.parametrize(("build", "fragment"), [
    (Build(name="b", tax_rate=Decimal(1)), "tax_rate"),
    (Build(name="b", discount=Discount("percent", Decimal(150))), "discount.value"),
    (Build(name="b", customer="c" * 201), "customer is longer"),
    (Build(name="b", exchange_rate=ExchangeRate(Decimal("7.1"), "unknown")),
     "exchange_rate.date"),
    (Build(name="b", line_items=[LineItem(text="t" * 501, category="other")]), "text"),
])
def test_save_refuses_what_load_would_refuse_and_writes_nothing(tmp_path: Path, build: Build,
                                                                fragment: str) -> None:
    path = tmp_path / "b.json"
    with pytest.raises(InputError, match=fragment):
        save_build(build, path)
    assert not path.exists()


@pytest.mark.parametrize(("key", "value"), [
    ("exchange_rate", {"cny_per_usd": "7.1", "date": "2025-06", "rate": "7.2"}),
    ("discount", {"kind": "percent", "value": "5", "valu": "50"}),
])
def test_unknown_keys_inside_exchange_rate_and_discount_are_refused(
        tmp_path: Path, key: str, value: dict[str, str]) -> None:
    extra = sorted(set(value) - {"cny_per_usd", "date", "kind", "value"})[0]
    with pytest.raises(InputError, match=f"{key}.{extra} is not a field of {key}"):
        load_build(_write(tmp_path, _doc(**{key: value})))


def test_the_largest_valid_build_prices_to_the_cent(tmp_path: Path) -> None:
    """500 lines x 10,000 units x 10,000 nodes x a rate of 1,000 reaches about 1e26: beyond
    Decimal's default 28 digits (InvalidOperation when rounding, lost cents in sums)."""
    from torchrig.builds.pricing import price_build
    from torchrig.report.values import fmt_money

    line = {"text": "x", "category": "other", "quantity": 10_000,
            "unit_price": "999999999999.99", "currency": "USD"}
    doc = _doc(line_items=[line] * 500, nodes=10_000, tax_rate="0.99",
               exchange_rate={"cny_per_usd": "1000", "date": "2025-01-01"})
    priced = price_build(load_build(_write(tmp_path, doc)), load_catalog())
    subtotal = Decimal("999999999999990") * 10_000 * 10_000 * 500
    assert priced.subtotal == subtotal
    assert priced.total == subtotal + (subtotal * Decimal("0.99")).quantize(Decimal("0.01"))
    assert priced.to_dict()["total"] == f"{priced.total:f}" and priced.to_dict()[
        "total"].endswith(".00")
    assert fmt_money(priced.total).endswith(".00")
