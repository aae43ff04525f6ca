"""Issue 26: for transient headroom the fix offers the GPU power limit that fits the supply
(the ``nvidia-smi -pl`` figure) beside the bigger supply, since no 120 V supply comes in the
sizes the margin asks for two RTX 5090s (2,015 W).

The limit L is one cap for every GPU, a card already below it drawing its board power:
x1.3 rule: (CPU + 150 W + sum(min(board, L))) x 1.3 <= supply; ATX 3.x rule: CPU + 150 W +
3 x sum(min(board, L)) <= what the supply carries for 100 µs; L rounded down to whole watts.
Figures: Core Ultra 9 285K 250 W, i9-13900K 253 W, i5-12400F 117 W (maximum turbo power);
RTX 5090 575 W, RTX 4090 450 W, RTX 4060 Ti 16GB 165 W, Radeon PRO W7900 295 W; Corsair
RM1000x 1,000 W without an ATX version (x1.3); MSI MEG Ai1600T and Seasonic PRIME TX-1600 ATX
3.1, 1,600 W, ATX 3.1 with two 12V-2x6 outputs (200%; sourced in fin26, before it the Ai1600T
had no ATX version and the TX-1600's 12V-2x6 count was unknown); Antec NE1000G M 1,000 W
ATX 3.0 with a 12V-2x6 output (200%). docs/hardware-sources.md sec. 6.1.
"""

from __future__ import annotations

import math

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.power_checks import gpu_power_limit, power_checks
from torchrig.catalog import load_catalog
from torchrig.findings import Finding


def _headroom(*lines: tuple[str, int]) -> Finding | None:
    node = Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                load_catalog())
    found = {f.code: f for f in power_checks(node)}
    return found.get("compat.psu_headroom")


def test_two_5090s_on_a_1600_w_supply_get_the_power_limit_that_fits() -> None:
    f = _headroom(("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 2),
                  ("msi-meg-ai1600t-pcie5", 1))
    assert f is not None
    # ATX 3.1 with 12V-2x6 outputs: 200% x 1,600 = 3,200 W for 100 µs < peak 250 + 150 +
    # 3 x 1,150 = 3,850 W. 400 + 3 x 2 L <= 3,200 -> L <= 466.7 -> 466 W (above the RTX 5090's
    # 400 W minimum).
    limit = math.floor((3200 - 400) / 6)
    assert limit == 466 and f.numbers["gpu_limit_w"] == 466
    assert 400 + 6 * 466 <= 3200 < 400 + 6 * 467
    # 1,600 x 3,850 / 3,200 = 1,925 W; an ATX 3.x unit with 12V-2x6 is what it already is.
    assert f.fix.en == (
        "Keep this supply and cap each GPU at 466 W (nvidia-smi -pl 466, with administrator "
        "rights; nvidia-smi -q -d POWER shows the range the card allows); or use at least "
        "1925 W.")
    assert "466 W" in f.fix.zh and "nvidia-smi -pl 466" in f.fix.zh


def test_an_atx3_supply_gets_the_limit_its_excursion_rating_allows() -> None:
    f = _headroom(("intel-core-i9-13900k", 1), ("nvidia-rtx-5090", 2),
                  ("seasonic-prime-tx-1600-atx-3-1", 1))
    assert f is not None
    # 200% x 1,600 = 3,200 W for 100 µs (two 12V-2x6 outputs): 253 + 150 + 3 x 2 L <= 3,200
    # -> L <= 466.2 -> 466 W.
    assert f.numbers["gpu_limit_w"] == math.floor((3200 - 403) / 6) == 466
    assert 403 + 6 * 466 <= 3200 < 403 + 6 * 467


def test_a_smaller_card_keeps_its_power_and_the_bigger_one_is_capped() -> None:
    f = _headroom(("intel-core-i5-12400f", 1), ("nvidia-rtx-4090", 1),
                  ("nvidia-rtx-4060-ti-16gb", 1), ("antec-ne1000g-m-white-atx-3-0", 1))
    assert f is not None
    # 117 + 615 + 150 = 882 W <= 1,000 W; peak 117 + 150 + 3 x 615 = 2,112 W > 2,000 W.
    # The 165 W card is under any cap above 165 W: 117 + 150 + 3 x (165 + L) <= 2,000
    # -> L <= 412.7 -> 412 W for the RTX 4090.
    assert f.numbers["gpu_limit_w"] == 412
    assert 267 + 3 * (165 + 412) <= 2000 < 267 + 3 * (165 + 413)


def test_other_makers_cards_are_capped_with_their_own_tool() -> None:
    f = _headroom(("intel-core-i9-13900k", 1), ("amd-radeon-pro-w7900", 2),
                  ("corsair-rm1000x", 1))
    assert f is not None
    # 253 + 590 + 150 = 993 W; x1.3 = 1,290.9 W > 1,000 W; L <= (1,000 / 1.3 - 403) / 2 = 183.1.
    assert f.numbers["gpu_limit_w"] == 183
    assert "cap each GPU at 183 W with the GPU maker's tool" in f.fix.en
    assert "nvidia-smi" not in f.fix.en and "（使用 GPU 厂商的工具）" in f.fix.zh


def test_a_supply_that_fits_gets_no_headroom_finding() -> None:
    # The same two 5090s on the PX-2200: 1,550 W <= 2,200 W, peak 3,850 W <= its 4,400 W.
    assert _headroom(("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 2),
                     ("seasonic-prime-px-2200", 1)) is None


@pytest.mark.parametrize(("powers", "budget", "limit"), [
    ([575.0, 575.0], 1150.0, None),      # they fit at full power: no cap
    ([575.0, 575.0], 1149.0, 574.0),     # 1,149 / 2 = 574.5 -> 574
    ([450.0, 165.0], 577.0, 412.0),      # the small card first: 577 - 165 = 412
    ([165.0, 450.0], 577.0, 412.0),      # order does not matter
    ([300.0, 300.0, 100.0], 500.0, 200.0),  # 100 + 2 x 200 = 500
    ([300.0, 300.0, 100.0], 250.0, 83.0),   # every card capped: 250 / 3 = 83.3
    ([575.0, 575.0], 1.5, None),         # under 1 W each: nothing to offer
    ([575.0, 575.0], -10.0, None),       # CPU and the rest already use the supply
    ([575.0, None], 400.0, None),        # a card of unknown power: no figure
    ([], 400.0, None),
])
def test_the_power_limit(powers: list[float | None], budget: float,
                         limit: float | None) -> None:
    assert gpu_power_limit(powers, budget) == limit
