"""Issue 26 (fin26): with their ATX version and 12V-2x6 counts sourced, the MSI MEG Ai1600T and
the Seasonic PRIME TX-1600 ATX 3.1 get the ATX 3.x excursion rule instead of the x1.3 margin.

By hand, two RTX 5090s (575 W each, one 12V-2x6 input each) and a Core Ultra 9 285K (250 W):
sustained 250 + 1,150 + 150 = 1,550 W <= 1,600 W. ATX 3.1 above 450 W with 12V-2x6 outputs:
200% x 1,600 = 3,200 W for 100 µs. Peak 250 + 150 + 3 x 1,150 = 3,850 W > 3,200 W, so a
transient warning that asks 1,600 x 3,850 / 3,200 = 1,925 W (x1.3 asked 1,550 x 1.3 = 2,015 W)
or a 466 W cap per card (400 + 6 x 466 = 3,196 <= 3,200 < 400 + 6 x 467). Two 12V-2x6 outputs
feed the two cards. Sources: sources.json NEWEGG-AI1600T, SEASONIC-PRIME-TX-2024.
"""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.power_checks import power_checks
from torchrig.catalog import load_catalog
from torchrig.findings import Finding, Severity

TWO_5090 = (("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 2))


def _found(*lines: tuple[str, int]) -> dict[str, Finding]:
    node = Node(Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines]),
                load_catalog())
    return {f.code: f for f in power_checks(node)}


@pytest.mark.parametrize("psu", ["msi-meg-ai1600t-pcie5", "seasonic-prime-tx-1600-atx-3-1"])
def test_two_5090s_are_sized_by_the_atx31_excursion(psu: str) -> None:
    found = _found(*TWO_5090, (psu, 1))
    assert set(found) == {"compat.psu_headroom"}  # no Blocker, enough 12V-2x6 outputs
    head = found["compat.psu_headroom"]
    assert head.severity is Severity.WARNING
    assert head.numbers["required_w"] == 1600 * 3850 / 3200 == 1925
    assert head.numbers["gpu_limit_w"] == 466
    assert "ATX 3.x, rated for 200% = 3200 W for 100 µs" in head.detail.en
    assert "ATX 3.x，100 µs 内可承受 200% = 3200 W" in head.detail.zh
    assert "x1.3" not in head.detail.en and "2015" not in head.fix.en


def test_one_5090_fits_the_atx31_unit_with_no_finding() -> None:
    # 250 + 150 + 3 x 575 = 2,125 W <= 3,200 W; 975 W sustained.
    assert _found(("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 1),
                  ("seasonic-prime-tx-1600-atx-3-1", 1)) == {}


def test_the_2022_tx1600_stays_on_the_x13_margin() -> None:
    # ATX 2.53 (KitGuru): no ATX 3.x rating, so 1,550 x 1.3 = 2,015 W > 1,600 W.
    head = _found(*TWO_5090, ("seasonic-prime-tx-1600", 1))["compat.psu_headroom"]
    assert head.numbers["required_w"] == 1550 * 1.3
    assert "no ATX 3.x excursion rating" in head.detail.en
