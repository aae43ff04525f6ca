"""Board checks that `scripts/mutate.py builds.board_checks` left unpinned after issue 26
(issue 28, docs/testing.md sec. 13): DDR5 kits that state no speed, a board whose GPU slot
wiring the catalog does not give, and a system's extra full-width slots for network adapters.

Figures from the shipped catalog: Core i9-13900K (LGA1700, Intel's desktop 2DPC note applies),
ROG MAXIMUS Z790 FORMULA (2 memory channels, 2 DIMMs per channel, no 2DPC figure of its own),
Corsair Vengeance 64 GB DDR5-5600 (2 modules); ASRock Rack 4U8G-TURIN2: eight GPU slots and 2
extra x16 slots (ServeTheHome's review); Intel E810-CQDA2 (100 GbE).
"""

from __future__ import annotations

from catalog_variants import catalog_with

from torchrig.builds.board_checks import board_checks
from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.catalog import load_catalog
from torchrig.catalog.model import Catalog
from torchrig.findings import Finding

I9, Z790 = "intel-core-i9-13900k", "asus-rog-maximus-z790-formula"
DDR5_KIT = "corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40"
TURIN2, EPYC, L40S = "asrock-rack-4u8g-turin2", "amd-epyc-9554", "nvidia-l40s"
E810, RTX_4090 = "intel-e810-cqda2", "nvidia-rtx-4090"


def _findings(*lines: tuple[str, int], cat: Catalog | None = None) -> list[Finding]:
    build = Build(name="t", line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return board_checks(Node(build, cat or load_catalog()))


def _codes(*lines: tuple[str, int], cat: Catalog | None = None) -> list[str]:
    return [f.code for f in _findings(*lines, cat=cat)]


def test_the_catalog_figures_these_tests_rest_on() -> None:
    cat = load_catalog()
    assert cat.get(I9).cpu.socket == "LGA1700"
    assert cat.get(Z790).motherboard.max_memory_speed_2dpc_mts is None
    assert (cat.get(DDR5_KIT).memory.modules, cat.get(DDR5_KIT).memory.speed_mts) == (2, 5600)
    turin = cat.get(TURIN2).motherboard
    assert (len(turin.gpu_lane_configs), turin.extra_x16_slots) == (8, 2)


def test_ddr5_kits_of_unknown_speed_get_no_speed_advice() -> None:
    # Two kits of two modules, 4 on 2 channels: two per channel on an Intel desktop board.
    # With a speed the advice names it (5600); with none there is no figure to say it drops
    # from, and the advice is not given (a field the catalog does not know is not guessed).
    known = [f for f in _findings((I9, 1), (Z790, 1), (DDR5_KIT, 2))
             if f.code == "board.memory_2dpc"]
    assert [f.numbers["rated_mts"] for f in known] == [5600.0]
    cat = catalog_with(speedless=(DDR5_KIT, {"speed_mts": None}))
    assert "board.memory_2dpc" not in _codes((I9, 1), (Z790, 1), ("speedless", 2), cat=cat)
    # One kit of known speed beside one of unknown speed: the known one is the figure.
    mixed = [f for f in _findings((I9, 1), (Z790, 1), ("speedless", 1), (DDR5_KIT, 1),
                                  cat=cat) if f.code == "board.memory_2dpc"]
    assert [f.numbers for f in mixed] == [{"modules": 4.0, "channels": 2.0,
                                           "rated_mts": 5600.0}]
    assert "the kits are rated 5600 MT/s" in mixed[0].detail.en


def test_a_board_of_unknown_slot_wiring_does_not_say_the_adapter_has_no_slot() -> None:
    # With the slot wiring unknown nothing says how many x16-size slots there are: no
    # "board.nic_no_slot" ("wires at most 0 slots" would be a guess).
    cat = catalog_with(unwired=(Z790, {"gpu_lane_configs": ()}))
    assert "board.nic_no_slot" not in _codes((I9, 1), ("unwired", 1), (RTX_4090, 1), (E810, 1),
                                              cat=cat)
    # The wired board with one GPU has a second x16-size slot for the adapter.
    assert "board.nic_no_slot" not in _codes((I9, 1), (Z790, 1), (RTX_4090, 1), (E810, 1))


def test_a_systems_extra_slots_take_two_adapters_and_not_a_third() -> None:
    # 8 L40S fill the eight GPU slots; adapters 1 and 2 go into the 2 extra slots
    # (slot index 8 - 8 = 0 and 9 - 8 = 1, both below 2); adapter 3 (10 - 8 = 2) has none.
    base = ((TURIN2, 1), (EPYC, 2), (L40S, 8))
    assert "board.nic_no_slot" not in _codes(*base, (E810, 1))
    assert "board.nic_no_slot" not in _codes(*base, (E810, 2))
    third = [f for f in _findings(*base, (E810, 3)) if f.code == "board.nic_no_slot"]
    assert len(third) == 1 and third[0].numbers == {"slots": 8.0, "gpus": 8.0}
