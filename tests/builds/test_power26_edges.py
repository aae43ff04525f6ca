"""Edges of the issue-26 power code that mutation testing found unpinned (scripts/mutate.py
builds.power_checks): the fix when no power limit can be offered, both languages word for word,
several parts of unknown power, a build with no GPU, and the limit's own boundaries.
Figures as in test_power26_supplies.py (docs/hardware-sources.md sec. 6.1)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.power_checks import gpu_power_limit, power_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg


def _found(cat: Catalog, *lines: tuple[str, int]) -> dict[str, Finding]:
    node = Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat)
    return {f.code: f for f in power_checks(node)}


def _with(**parts: tuple[str, dict[str, object]]) -> Catalog:
    cat = load_catalog()
    new = {}
    for pid, (base, changes) in parts.items():
        part = cat.get(base)
        new[pid] = replace(part, id=pid, specs=replace(part.specs, **changes))
    return Catalog(parts={**cat.parts, **new}, tiers=cat.tiers, seed_rules=cat.seed_rules,
                   sources=cat.sources)


def test_no_limit_is_offered_when_a_cards_power_is_unknown() -> None:
    cat = _with(**{"nvidia-test-gpu": ("nvidia-rtx-5070-ti", {"tdp_w": None})})
    headroom = _found(cat, ("intel-core-i9-13900k", 1), ("nvidia-rtx-4090", 1),
                      ("nvidia-test-gpu", 1), ("corsair-rm1000x", 1))["compat.psu_headroom"]
    # 253 + 450 + 150 = 853 W counted, x1.3 = 1,108.9 W > 1,000 W; one card's power unknown:
    # no cap can be worked out, so the fix keeps the general advice.
    assert "gpu_limit_w" not in headroom.numbers
    assert headroom.fix == Msg(
        "Use at least 1109 W, or an ATX 3.x unit with 12V-2x6 connectors (rated for 200% for "
        "100 µs); or power-limit the GPUs.",
        "至少使用 1109 W 电源，或带 12V-2x6 接口的 ATX 3.x 电源（100 µs 内可承受 200%）；"
        "或限制 GPU 功耗。")


def test_the_limit_fix_word_for_word_in_chinese() -> None:
    nvidia = _found(load_catalog(), ("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 2),
                    ("msi-meg-ai1600t-pcie5", 1))["compat.psu_headroom"]
    # ATX 3.1 (200%): (3,200 - 400) / 6 = 466.7 -> 466 W; 1,600 x 3,850 / 3,200 = 1,925 W.
    assert nvidia.fix.zh == (
        "保留此电源，将每块 GPU 功耗限制在 466 W（nvidia-smi -pl 466，需管理员权限；"
        "nvidia-smi -q -d POWER 可查看显卡允许的范围）；或至少使用 1925 W 电源。")
    amd = _found(load_catalog(), ("intel-core-i9-13900k", 1), ("amd-radeon-pro-w7900", 2),
                 ("corsair-rm1000x", 1))["compat.psu_headroom"]
    # (1,000 / 1.3 - 403) / 2 = 183.1 -> 183 W.
    assert amd.fix.zh == (
        "保留此电源，将每块 GPU 功耗限制在 183 W（使用 GPU 厂商的工具）；或至少使用 1291 W 电源，"
        "或带 12V-2x6 接口的 ATX 3.x 电源（100 µs 内可承受 200%）。")


def test_every_part_of_unknown_power_is_named() -> None:
    cat = _with(**{"nvidia-test-gpu": ("nvidia-rtx-5070-ti", {"tdp_w": None}),
                   "intel-test-cpu": ("intel-core-i5-12400f",
                                      {"tdp_w": None, "max_turbo_power_w": None}),
                   "test-psu": ("corsair-rm1000x", {"wattage_w": 500.0})})
    psu = _found(cat, ("intel-test-cpu", 1), ("nvidia-test-gpu", 1), ("nvidia-rtx-4090", 1),
                 ("test-psu", 1))["compat.psu"]
    # 450 + 150 = 600 W > 500 W, the CPU and one GPU not counted.
    assert psu.detail.en.endswith(
        " Power of Core i5-12400F, GeForce RTX 5070 Ti is unknown and not counted.")
    assert psu.detail.zh.endswith(" Core i5-12400F, GeForce RTX 5070 Ti 的功耗未知，未计入。")


def test_a_build_without_a_gpu_is_judged_on_the_cpu() -> None:
    # 253 + 150 = 403 W on 1,000 W: nothing to say, and no GPU to ask a minimum or cables of.
    assert _found(load_catalog(), ("intel-core-i9-13900k", 1), ("corsair-rm1000x", 1)) == {}
    small = _with(**{"test-psu": ("corsair-rm1000x", {"wattage_w": 400.0})})
    assert set(_found(small, ("intel-core-i9-13900k", 1), ("test-psu", 1))) == {"compat.psu"}


def test_the_vendor_minimum_is_a_warning() -> None:
    cat = _with(**{"test-psu": ("antec-ne1000g-m-white-atx-3-0", {"wattage_w": 849.0})})
    vendor = _found(cat, ("nvidia-rtx-4090", 1), ("test-psu", 1))["compat.psu_vendor_min"]
    assert vendor.severity is Severity.WARNING and vendor.code == "compat.psu_vendor_min"


@pytest.mark.parametrize(("powers", "budget", "limit"), [
    ([575.0, 575.0], 2.5, 1.0),             # 1.25 W each: 1 W is still a figure
    ([575.0, 575.0], 3.9, 1.0),
    ([100.0, 100.0, 300.0], 350.0, 150.0),  # two small cards spent: 350 - 200 = 150
    ([100.0, 100.0, 100.0, 500.0], 420.0, 120.0),
])
def test_the_power_limit_edges(powers: list[float | None], budget: float,
                               limit: float | None) -> None:
    assert gpu_power_limit(powers, budget) == limit
