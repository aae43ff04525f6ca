"""Issue 26 (fin26): the "below sustained draw" Blocker's fix offers the one GPU power limit
that fits the supply, when the cards' firmware allows a limit that low, and says so when the
catalog does not know the card's minimum.

The limit L is the stricter of two caps, each the largest whole-watt L with
sustained: CPU + 150 W + sum(min(board, L)) <= supply, and
transient: CPU + 150 W + 3 x sum(min(board, L)) <= what the supply carries for 100 µs (ATX
3.x; x1.3 over the sustained draw without a rating), so that the capped build passes both
power checks. Figures: i9-13900K 253 W maximum turbo power; RTX 5090 575 W board power,
400 W minimum power limit (an nvidia-smi -a log, sources.json NVSMI-RTX5090); RTX 4090 450 W,
minimum not in the catalog; Seasonic FOCUS GX-850 V4 850 W ATX 3.1, 12V-2x6 count unknown
(150%); Antec NE1000G M ATX 3.0 with a 12V-2x6 output (200%). docs/hardware-sources.md
sec. 6.1 and the fin26 subsection.
"""

from __future__ import annotations

import math
from pathlib import Path

from catalog_variants import catalog_with

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.check_node import Node
from torchrig.builds.compat import check_build
from torchrig.builds.power_checks import power_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity

DATA = Path(__file__).parent / "data" / "fin26"
CPU = 253.0 + 150.0  # i9-13900K and the rest of the system


def _found(cat: Catalog, *lines: tuple[str, int]) -> dict[str, Finding]:
    node = Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                cat)
    return {f.code: f for f in power_checks(node)}


def test_a_limit_above_the_cards_minimum_is_offered() -> None:
    # An NE1000G rated 900 W: 253 + 575 + 150 = 978 W > 900 W.
    cat = catalog_with(**{"ne900": ("antec-ne1000g-m-white-atx-3-0", {"wattage_w": 900.0})})
    psu = _found(cat, ("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 1), ("ne900", 1))
    blocker = psu["compat.psu"]
    assert blocker.severity is Severity.BLOCKER
    # Sustained: 403 + L <= 900 -> 497. Transient, 200% x 900 = 1,800 W: 403 + 3 L <= 1,800
    # -> 465.7 -> 465. The stricter is 465 W, above the 5090's 400 W minimum.
    sustained, transient = 900 - CPU, math.floor((1800 - CPU) / 3)
    assert (sustained, transient) == (497, 465)
    assert blocker.numbers["gpu_limit_w"] == 465 and "gpu_min_limit_w" not in blocker.numbers
    assert blocker.fix.en == (
        "Use at least 1271 W (x1.3), or an ATX 3.x unit rated for GPU power excursions; or "
        "fewer GPUs; or keep this supply and cap each GPU at 465 W (nvidia-smi -pl 465, with "
        "administrator rights; nvidia-smi -q -d POWER shows the range the card allows).")
    assert blocker.fix.zh == (
        "至少使用 1271 W（×1.3）电源，或可承受 GPU 瞬时功耗的 ATX 3.x 电源；或减少 GPU；或保留此"
        "电源，将每块 GPU 功耗限制在 465 W（nvidia-smi -pl 465，需管理员权限；nvidia-smi -q -d "
        "POWER 可查看显卡允许的范围）。")
    assert round(978 * 1.3, 1) == 1271.4  # the x1.3 size, shown whole


def test_a_limit_below_the_cards_minimum_is_not_offered() -> None:
    catalog = load_catalog()
    build = load_build(DATA / "5090-on-gx-850.json", catalog)
    (blocker,) = [f for f in check_build(build, catalog) if f.code == "compat.psu"]
    # 978 W > 850 W. Sustained 850 - 403 = 447 W; transient 150% x 850 = 1,275 W: (1,275 -
    # 403) / 3 = 290.7 -> 290 W, below the 5090's 400 W minimum: no cap the card accepts fits.
    assert blocker.numbers["gpu_limit_w"] == math.floor((1275 - CPU) / 3) == 290
    assert blocker.numbers["gpu_min_limit_w"] == 400
    assert blocker.fix.en.endswith(
        "A GPU power limit does not help here: 290 W per GPU would be needed, below GeForce "
        "RTX 5090's minimum power limit of 400 W.")
    assert blocker.fix.zh.endswith(
        "限制 GPU 功耗在此无效：每块 GPU 需限制到 290 W，低于 GeForce RTX 5090 允许的最低功耗"
        "上限 400 W。")
    assert "nvidia-smi -pl" not in blocker.fix.en


def test_an_unknown_minimum_is_said_beside_the_limit() -> None:
    psu = _found(load_catalog(), ("intel-core-i9-13900k", 1), ("nvidia-rtx-4090", 1),
                 ("seasonic-focus-gx-850-v4", 1))["compat.psu"]
    # 253 + 450 + 150 = 853 W > 850 W; sustained 447 W, transient (1,275 - 403) / 3 -> 290 W.
    assert psu.numbers["gpu_limit_w"] == 290 and "gpu_min_limit_w" not in psu.numbers
    assert psu.fix.en.endswith(
        "cap each GPU at 290 W (nvidia-smi -pl 290, with administrator rights; nvidia-smi -q -d "
        "POWER shows the range the card allows) if the card allows it: the catalog does not "
        "have GeForce RTX 4090's minimum power limit.")
    assert psu.fix.zh.endswith("（前提是显卡允许：目录中没有 GeForce RTX 4090 的最低功耗上限）。")


def test_a_supply_below_cpu_and_rest_gets_no_limit() -> None:
    # 400 W < 403 W for CPU and rest alone: no GPU cap helps.
    cat = catalog_with(**{"tiny": ("seasonic-focus-gx-850-v4", {"wattage_w": 400.0})})
    psu = _found(cat, ("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 1), ("tiny", 1))
    blocker = psu["compat.psu"]
    assert "gpu_limit_w" not in blocker.numbers
    assert blocker.fix.en == ("Use at least 1271 W (x1.3), or an ATX 3.x unit rated for GPU "
                              "power excursions; or fewer GPUs.")


def test_the_transient_fix_respects_the_minimum_too() -> None:
    # The TX-1600 ATX 3.1 as if without 12V-2x6 (150% = 2,400 W), two 5090s and the 13900K:
    # 403 + 6 L <= 2,400 -> 332 W, below the 400 W minimum.
    cat = catalog_with(**{"tx150": ("seasonic-prime-tx-1600-atx-3-1",
                                    {"pcie_12v_2x6_connectors": 0})})
    head = _found(cat, ("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 2),
                  ("tx150", 1))["compat.psu_headroom"]
    assert head.numbers["gpu_limit_w"] == math.floor((2400 - CPU) / 6) == 332
    assert head.numbers["gpu_min_limit_w"] == 400
    # 1,600 x (403 + 3,450) / 2,400 = 2,568.7 W; this unit has no 12V-2x6, so the ATX 3.x
    # alternative stays in the advice.
    assert head.fix.en == (
        "Use at least 2569 W, or an ATX 3.x unit with 12V-2x6 connectors (rated for 200% for "
        "100 µs). A power limit of 332 W per GPU would be needed, below GeForce RTX 5090's "
        "minimum of 400 W.")
    assert head.fix.zh.endswith("每块 GPU 需限制到 332 W，低于 GeForce RTX 5090 允许的最低功耗"
                                "上限 400 W。")


def test_a_200_percent_unit_is_not_told_to_become_one() -> None:
    # The Ai1600T is ATX 3.1 with 12V-2x6 outputs (200%): the advice is only a bigger size.
    head = _found(load_catalog(), ("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 2),
                  ("msi-meg-ai1600t-pcie5", 1))["compat.psu_headroom"]
    assert head.fix.en.endswith("or use at least 1925 W.")
    assert "12V-2x6 connectors" not in head.fix.en
