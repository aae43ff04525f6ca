"""Boundaries of the "below sustained draw" fix that mutation testing found unpinned
(docs/testing.md sec. 10): a limit exactly at a card's firmware minimum is allowed; the fix in
Chinese when no limit helps; several cards whose minimum the catalog lacks, named together; a
card whose board power equals the limit is not capped by it.

Figures as in test_fin26_power_limit.py: i9-13900K 253 W maximum turbo power + 150 W for the
rest = 403 W; RTX 5090 575 W board power, 400 W minimum power limit (NVSMI-RTX5090 in
sources.json); RTX 4090 450 W and RTX 4080 320 W, minimum not in the catalog; Antec NE1000G M
ATX 3.0 with 12V-2x6 (200% for 100 µs); Seasonic FOCUS GX-850 V4 (150%).
"""

from __future__ import annotations

import math

from catalog_variants import catalog_with

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.power_checks import _capped_minimum, power_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding

CPU = 253.0 + 150.0


def _node(cat: Catalog, *lines: tuple[str, int]) -> Node:
    return Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat)


def _found(cat: Catalog, *lines: tuple[str, int]) -> dict[str, Finding]:
    return {f.code: f for f in power_checks(_node(cat, *lines))}


def test_a_limit_equal_to_the_cards_minimum_is_offered() -> None:
    # An NE1000G rated 803 W: 403 + 575 = 978 W > 803 W. Sustained cap 803 - 403 = 400 W;
    # transient, 200% x 803 = 1,606 W: (1,606 - 403) / 3 = 401 W. The stricter, 400 W, is the
    # 5090's minimum itself: the card accepts it, so the limit is offered.
    assert (803 - CPU, math.floor((2 * 803 - CPU) / 3)) == (400, 401)
    cat = catalog_with(**{"ne803": ("antec-ne1000g-m-white-atx-3-0", {"wattage_w": 803.0})})
    blocker = _found(cat, ("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 1),
                     ("ne803", 1))["compat.psu"]
    assert blocker.numbers["gpu_limit_w"] == 400
    assert "gpu_min_limit_w" not in blocker.numbers
    assert blocker.fix.en.endswith("cap each GPU at 400 W (nvidia-smi -pl 400, with "
                                   "administrator rights; nvidia-smi -q -d POWER shows the "
                                   "range the card allows).")


def test_no_limit_helps_in_chinese_too() -> None:
    # 400 W < 403 W for CPU and rest alone; the size is 978 x 1.3 = 1,271.4 -> 1271 W.
    cat = catalog_with(**{"tiny": ("seasonic-focus-gx-850-v4", {"wattage_w": 400.0})})
    blocker = _found(cat, ("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 1),
                     ("tiny", 1))["compat.psu"]
    assert blocker.fix.zh == ("至少使用 1271 W（×1.3）电源，或可承受 GPU 瞬时功耗的 ATX 3.x "
                              "电源；或减少 GPU。")


def test_every_card_without_a_known_minimum_is_named() -> None:
    # 403 + 450 + 320 = 1,173 W > 850 W. Sustained: 447 W for both cards, 223.5 each, below
    # the 4080's 320 W: L = 223. Transient: (1,275 - 403) / 3 = 290.7 W for both, 145.3 each:
    # L = 145, the stricter. Both cards are capped and neither minimum is known.
    assert math.floor((1275 - CPU) / 3 / 2) == 145
    blocker = _found(load_catalog(), ("intel-core-i9-13900k", 1), ("nvidia-rtx-4090", 1),
                     ("nvidia-rtx-4080", 1), ("seasonic-focus-gx-850-v4", 1))["compat.psu"]
    assert blocker.numbers["gpu_limit_w"] == 145
    assert blocker.fix.en.endswith(
        "if the card allows it: the catalog does not have GeForce RTX 4090, "
        "GeForce RTX 4080 16GB's minimum power limit.")
    assert blocker.fix.zh.endswith(
        "（前提是显卡允许：目录中没有 GeForce RTX 4090、GeForce RTX 4080 16GB 的最低功耗上限）。")


def test_internals_a_card_at_the_limit_is_not_capped() -> None:
    # A 450 W limit does not cap a 450 W RTX 4090 (its unknown minimum does not matter) and
    # does cap the 575 W RTX 5090, whose 400 W minimum is below it.
    node = _node(load_catalog(), ("nvidia-rtx-4090", 1), ("nvidia-rtx-5090", 1))
    assert _capped_minimum(450.0, node) == (None, [])
    # At exactly the 5090's minimum the card still accepts the limit; 1 W lower it does not.
    blocked, unknown = _capped_minimum(400.0, node)
    assert blocked is None and [p.id for p in unknown] == ["nvidia-rtx-4090"]
    blocked, _ = _capped_minimum(399.0, node)
    assert blocked is not None and blocked.id == "nvidia-rtx-5090"
