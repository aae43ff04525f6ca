"""The CPU coolers: their figures as the cited sources state them, and what those figures let the
build checker decide (mounting on workstation and server sockets, case clearance, heat load)."""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.findings import Severity

# id: (kind, height mm, radiator mm, rated W, sockets it must list) -- from the source each part
# cites (BuildCores OpenDB entries; the LS720 SE rating from its field source).
DESKTOP = {"LGA1700", "LGA1851", "AM5"}
COOLERS = {
    "deepcool-ak620": ("air", 160, None, None, DESKTOP | {"LGA2066"}),
    "thermalright-peerless-assassin-120-se": ("air", 155, None, None, DESKTOP),
    "thermalright-phantom-spirit-120-se": ("air", 154, None, None, DESKTOP),
    "be-quiet-dark-rock-pro-5": ("air", 168, None, None, DESKTOP),
    "noctua-nh-d15-g2": ("air", 168, None, None, DESKTOP),
    "deepcool-ls720-se": ("liquid", None, 360, 300, DESKTOP),
    "arctic-liquid-freezer-iii-pro-360": ("liquid", None, 360, None, DESKTOP),
    "arctic-liquid-freezer-ws360-sp5": ("liquid", None, 360, None, {"SP5"}),
    "arctic-liquid-freezer-ws360-sp6": ("liquid", None, 360, None, {"sTR5", "SP6"}),
    "arctic-liquid-freezer-ws360-4710": ("liquid", None, 360, None, {"LGA4677"}),
}


@pytest.mark.parametrize("pid", sorted(COOLERS))
def test_cooler_matches_its_source(pid: str) -> None:
    kind, height, radiator, rated, sockets = COOLERS[pid]
    c = load_catalog().get(pid).cooler
    assert (c.kind, c.height_mm, c.radiator_mm, c.rated_heat_w) == (kind, height, radiator, rated)
    assert sockets <= set(c.sockets)


def test_a_rating_from_another_entry_names_its_source() -> None:
    ls720 = load_catalog().get("deepcool-ls720-se")
    assert ls720.field_sources["rated_heat_w"].endswith("2c80a8e1-31fd-4e79-9ad3-7681b2197415.json")
    assert ls720.field_sources["rated_heat_w"] not in ls720.sources


def _codes(*part_ids: str) -> dict[str, Severity]:
    build = Build(name="t", line_items=[LineItem(part_id=pid) for pid in part_ids])
    return {f.code: f.severity for f in check_build(build, load_catalog())}


@pytest.mark.parametrize(("cpu", "cooler", "mounts"), [
    ("amd-ryzen-threadripper-7980x", "arctic-liquid-freezer-ws360-sp6", True),  # sTR5
    ("amd-ryzen-threadripper-7980x", "arctic-liquid-freezer-ws360-sp5", False),
    ("amd-epyc-9554", "arctic-liquid-freezer-ws360-sp5", True),  # SP5
    ("intel-xeon-w9-3495x", "arctic-liquid-freezer-ws360-4710", True),  # LGA4677
    ("intel-xeon-w9-3495x", "deepcool-ak620", False),
    ("intel-core-ultra-9-285k", "noctua-nh-d15-g2", True),  # LGA1851
])
def test_workstation_and_server_coolers_mount_on_their_sockets(cpu: str, cooler: str,
                                                               mounts: bool) -> None:
    codes = _codes(cpu, cooler)
    if mounts:
        assert "fit.cooler_socket" not in codes
    else:
        assert codes["fit.cooler_socket"] is Severity.BLOCKER


def test_tall_towers_need_the_taller_case() -> None:
    # 168 mm: over the Caelum's 160 mm clearance, within the Krater X's 170 mm.
    assert _codes("be-quiet-dark-rock-pro-5", "nfortec-caelum")["fit.cooler_height"] \
        is Severity.BLOCKER
    assert "fit.cooler_height" not in _codes("be-quiet-dark-rock-pro-5", "nfortec-krater-x")
    # A liquid cooler's pump block is not held to the air-cooler clearance.
    assert "fit.cooler_height" not in _codes("deepcool-ls720-se", "nfortec-caelum")


def test_a_300w_liquid_cooler_covers_the_i9_maximum_power() -> None:
    # The i9-13900K's 253 W maximum power is above the low-profile coolers' ratings but within
    # the LS720 SE's 300 W.
    assert _codes("intel-core-i9-13900k", "deepcool-an600")["fit.cooler_rating"] is Severity.ADVICE
    assert "fit.cooler_rating" not in _codes("intel-core-i9-13900k", "deepcool-ls720-se")
