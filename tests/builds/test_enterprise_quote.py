"""The enterprise sample build and the enterprise tier's starter build price every line that has
a source (given a rate); only the HGX A100 server platform, for which no sourced price exists,
asks for a vendor quote. The checker finds no Blocker in it."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from torchrig.builds.build import (
    SERVER_PLATFORM,
    Build,
    build_from_tier,
    load_build,
    validate_build,
    with_default_rate,
)
from torchrig.builds.compat import check_build
from torchrig.builds.pricing import PricedBuild, price_build
from torchrig.catalog import load_catalog
from torchrig.findings import Severity

ROOT = Path(__file__).resolve().parents[2]


def _priced(build: Build) -> tuple[Build, PricedBuild]:
    rated = with_default_rate(build, "7.1", "2026-11-30")
    return rated, price_build(rated, load_catalog())


def _platform_lines(build: Build) -> tuple[int, ...]:
    return tuple(i for i, item in enumerate(build.line_items)
                 if item.part_id is None and item.category == SERVER_PLATFORM)


def test_sample_build_prices_all_but_the_unsourced_platform() -> None:
    build, priced = _priced(load_build(ROOT / "builds" / "enterprise.json"))
    assert priced.missing_price_lines == _platform_lines(build) == (1,)
    statuses = [line.status for line in priced.lines]
    assert statuses.count("ok") == len(statuses) - 1
    # 2 nodes: node lines x 2, the switch and the storage once.
    by_category = priced.category_totals
    assert by_category["switch"] == Decimal("255600.00")  # USD 36,000 x 7.1
    assert by_category["storage-system"] == Decimal("177500.00")  # 100 TB x USD 250 x 7.1
    assert by_category["cpu"] == Decimal("106812.40")  # 2 x 2 x USD 3,761 x 7.1


def test_tier_starter_build_is_the_sample_build() -> None:
    sample = load_build(ROOT / "builds" / "enterprise.json")
    started = validate_build(build_from_tier("enterprise", load_catalog()))
    assert started.line_items == sample.line_items
    assert started.nodes == sample.nodes and started.notes == sample.notes
    _, priced = _priced(started)
    assert priced.missing_price_lines == _platform_lines(started)


def test_enterprise_build_has_no_blocker() -> None:
    build = load_build(ROOT / "builds" / "enterprise.json")
    findings = check_build(build, load_catalog())
    assert not [f for f in findings if f.severity is Severity.BLOCKER]
    codes = {f.code for f in findings}
    # DDR4 RDIMM on EPYC 7003 hosts: no memory-type finding; every channel populated.
    assert not {c for c in codes if c.startswith("compat.memory")}
    # The 400 Gb/s adapter on the EPYC 7003's PCIe Gen4 is said, with its number.
    nic = next(f for f in findings if f.code == "board.nic_pcie")
    assert nic.severity is Severity.BOTTLENECK


def test_seed_ddr5_on_the_epyc_7003_host_is_a_blocker() -> None:
    build = load_build(ROOT / "builds" / "enterprise.json")
    ddr5 = list(build.line_items)
    memory = next(i for i, item in enumerate(ddr5)
                  if item.part_id == "samsung-32gb-ddr4-2666-rdimm-m393a4k40cb2-ctd")
    ddr5[memory] = replace(ddr5[memory], part_id="samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm")
    findings = check_build(replace(build, line_items=ddr5), load_catalog())
    blocker = next(f for f in findings if f.code == "compat.memory_type_cpu")
    assert blocker.severity is Severity.BLOCKER and "EPYC 7543" in blocker.detail.en
