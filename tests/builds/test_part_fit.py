"""The picker's build-aware helpers: prices in the build's currency and "compatible"."""

from __future__ import annotations

from decimal import Decimal

from torchrig.builds.build import Build, ExchangeRate, LineItem
from torchrig.builds.part_fit import compatible_parts, price_in, with_candidate
from torchrig.catalog import load_catalog


def test_price_converted_with_the_rate() -> None:
    cat = load_catalog()
    cpu = cat.get("intel-core-i9-13900k")  # only a USD price
    assert price_in(cpu, "CNY", None)[0] is None
    amount, price = price_in(cpu, "CNY", ExchangeRate(Decimal("7.1"), "2026-11-30"))
    assert price is not None and price.currency == "USD"
    assert amount == Decimal("589") * Decimal("7.1")


def test_compatible_parts_follow_the_build() -> None:
    cat = load_catalog()
    build = Build(name="t", line_items=[LineItem(part_id="intel-core-i9-13900k"),
                                        LineItem(part_id="nfortec-caelum")])
    boards = compatible_parts(cat.by_category("motherboard"), build, cat)
    assert "asus-rog-maximus-z790-formula" in boards  # LGA1700
    assert "gigabyte-b650m-aorus-elite-ax-ice" not in boards  # AM5
    coolers = compatible_parts(cat.by_category("cpu_cooler"), build, cat)
    # The Caelum takes air coolers up to 160 mm: the 160 mm AK620 fits, the 168 mm towers do not;
    # liquid coolers are not held to that clearance; server-socket coolers do not mount on LGA1700.
    assert coolers == {"deepcool-an600", "thermalright-axp120-x67", "noctua-nh-l12sx77",
                       "deepcool-ak620", "thermalright-peerless-assassin-120-se",
                       "thermalright-phantom-spirit-120-se", "deepcool-ls720-se",
                       "arctic-liquid-freezer-iii-pro-360",
                       # China-sold towers, each under 160 mm by its listed height (157, 154,
                       # 155, 150, 158 mm), and two 360 mm liquid coolers; the 165 mm
                       # NH-D15 chromax is left out.
                       "thermalright-phantom-spirit-120-evo", "thermalright-assassin-x-120-v2",
                       "deepcool-ak400", "deepcool-ag400", "noctua-nh-u12a-chromax-black",
                       "thermalright-frozen-warframe-pro-360", "deepcool-lt720"}
    # A CPU replaces the build's CPU rather than joining it.
    assert "amd-ryzen-9-7950x" in compatible_parts(cat.by_category("cpu"), build, cat)
    swapped = with_candidate(build, cat.get("amd-ryzen-9-7950x"), cat)
    assert [i.part_id for i in swapped.line_items] == ["nfortec-caelum", "amd-ryzen-9-7950x"]


def test_a_gpu_candidate_replaces_the_builds_gpus_in_the_same_number() -> None:
    cat = load_catalog()
    build = Build(name="t", line_items=[LineItem(part_id="nvidia-rtx-4090", quantity=2),
                                        LineItem(part_id="asus-rog-maximus-z790-formula")])
    swapped = with_candidate(build, cat.get("nvidia-rtx-a6000"), cat)
    assert [(i.part_id, i.quantity) for i in swapped.line_items] == [
        ("asus-rog-maximus-z790-formula", 1), ("nvidia-rtx-a6000", 2)]
    gpus = compatible_parts(cat.by_category("gpu"), build, cat)
    assert "nvidia-rtx-a6000" in gpus
    assert "nvidia-a100-80gb-sxm" not in gpus  # SXM needs an HGX baseboard
    assert "nvidia-jetson-agx-orin-64gb" not in gpus  # a module, not a card
