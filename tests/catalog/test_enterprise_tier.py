"""The enterprise tier's starter build: sourced prices for its parts, prices on its custom lines
(one validation with a build's line price), and the seed's DDR5 against its DDR4 platform."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from catalog_helpers import price_facts

from torchrig.catalog import load_catalog, tier_contradictions
from torchrig.errors import InputError
from torchrig.findings import Severity

# id: (amount, currency, date, kind) -- each figure from the source the catalog entry cites.
ENTERPRISE_PRICES = {
    "amd-epyc-7543": (3761, "USD", "2021-03", "launch-msrp"),
    "samsung-32gb-ddr4-2666-rdimm-m393a4k40cb2-ctd": (59, "USD", "2025-07-23", "retail"),
    "nvidia-connectx-7-ndr-osfp": (1599, "USD", "2026-09", "retail"),
}


@pytest.mark.parametrize("pid", sorted(ENTERPRISE_PRICES))
def test_enterprise_part_prices(pid: str) -> None:
    assert price_facts(pid) == [ENTERPRISE_PRICES[pid]]
    assert all(p.source for p in load_catalog().get(pid).prices)


def test_epyc_7003_host_specs() -> None:
    cpu = load_catalog().get("amd-epyc-7543").cpu
    assert (cpu.cores, cpu.threads, cpu.socket, cpu.max_sockets) == (32, 64, "SP3", 2)
    assert cpu.memory_types == ("DDR4",) and cpu.memory_channels == 8
    assert (cpu.tdp_w, cpu.pcie_gen, cpu.pcie_lanes) == (225, 4, 128)


def test_ddr4_rdimm_specs() -> None:
    part = load_catalog().get("samsung-32gb-ddr4-2666-rdimm-m393a4k40cb2-ctd")
    mem = part.memory
    assert (mem.memory_type, mem.speed_mts, mem.modules, mem.module_form, mem.ecc) == (
        "DDR4", 2666, 1, "RDIMM", True)
    # The registered/ECC reading comes from the part-number prefix, so it is marked derived.
    assert part.is_derived("module_form") and part.is_derived("ecc")


def test_custom_starter_lines_carry_sourced_prices() -> None:
    tier = load_catalog().tier("enterprise")
    custom = {line.category: line for line in tier.starter_lines if line.part_id is None}
    switch = custom["switch"]
    assert (switch.price.unit_price, switch.price.currency, switch.scope) == (
        Decimal("36000"), "USD", "cluster")
    assert switch.price.price_date == "2024-08-22" and "FS.com" in switch.price.price_source
    assert custom["storage-system"].price.unit_price == Decimal("250")
    assert custom["network"].price.unit_price == Decimal("810")
    # Nothing sourced prices the server platform: it stays without a price, asking for a quote.
    assert custom["server-platform"].price.unit_price is None


def _starter(data: dict[str, Any], category: str) -> dict[str, Any]:
    tier = next(t for t in data["tiers"] if t["id"] == "enterprise")
    return next(line for line in tier["starter_build"]["lines"]
                if line.get("category") == category)


def _gpu_line(data: dict[str, Any]) -> dict[str, Any]:
    tier = next(t for t in data["tiers"] if t["id"] == "enterprise")
    return next(line for line in tier["starter_build"]["lines"] if line.get("role") == "gpu")


BAD_PRICES = [
    (lambda d: _starter(d, "switch").update(unit_price="-1"), "unit_price must not be negative"),
    (lambda d: _starter(d, "switch").update(unit_price="12,00"), "unit_price must be an amount"),
    (lambda d: _starter(d, "switch").update(currency="EUR"), "currency must be CNY or USD"),
    (lambda d: _starter(d, "switch").update(price_date="2024-13"), "price_date must be a date"),
    (lambda d: _starter(d, "switch").update(price_source=""), "price_source must say where"),
    (lambda d: _starter(d, "switch").update(unit_prise="1"), "unknown field 'unit_prise'"),
    (lambda d: _starter(d, "switch").update(price_kind="cheap"), "price_kind must be one of"),
    (lambda d: _gpu_line(d).update(unit_price="1", currency="USD", price_source="x"),
     "belongs in the catalog"),
]


@pytest.mark.parametrize(("mutate", "message"), BAD_PRICES)
def test_bad_starter_price_is_refused(edit: Any, mutate: Any, message: str) -> None:
    with pytest.raises(InputError) as info:
        load_catalog(edit("tiers.json", mutate))
    text = str(info.value)
    assert "tiers.json" in text and "tier 'enterprise'" in text and message in text
    assert "\n" not in text


def test_seed_ddr5_does_not_fit_the_a100_platform() -> None:
    cat = load_catalog()
    finding = next(f for f in tier_contradictions(cat.tier("enterprise"), cat)
                   if f.code == "tier.memory_type")
    assert finding.severity is Severity.WARNING
    assert "DDR5" in finding.detail.en and "DDR4 only" in finding.detail.en
    assert "EPYC 7543" in finding.detail.en and "EPYC 7543" in finding.detail.zh
    assert finding.fix.zh and "seed 2.3" in finding.source.en


def test_no_memory_contradiction_when_the_host_takes_the_seed_memory(edit: Any) -> None:
    def ddr5_host(data: dict[str, Any]) -> None:
        tier = next(t for t in data["tiers"] if t["id"] == "enterprise")
        for line in tier["starter_build"]["lines"]:
            if line.get("role") == "cpu":
                line["part_id"] = "amd-epyc-9554"

    cat = load_catalog(edit("tiers.json", ddr5_host))
    assert "tier.memory_type" not in {f.code for f in
                                      tier_contradictions(cat.tier("enterprise"), cat)}
