"""Issue 26's board, fit, memory and platform findings in one language each: the same detector
as tests/test_runtime_language.py (English words in the Chinese text, Chinese in the English),
over the issue builds (tests/builds/data/issue26/) and the branches they do not reach."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import test_runtime_language
from test_runtime_language import NAMES, _catalog_names, _finding_texts, check
from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import M2Slot, RadiatorMount
from torchrig.i18n import Msg

DATA = Path(__file__).parent / "builds" / "data" / "issue26"
EXTRA_NAMES = {"AGESA", "ComboAM5", "PI", "BIOS", "E-ATX", "SSI", "CEB", "EEB", "ATX",
               "Micro-ATX", "Mini-ITX", "kitbuilder", "io", "Corsair", "SATA", "Ryzen",
               "Threadripper", "Core", "gen", "PRO", "PA-100", "AMD", "WRX90", "M2D_CPU",
               "M.2_2", "M.2_3", "x8", "x16", "DDR5-3600", "DDR5-5200", "DDR5-5600", "4x1R",
               "4x2R", "UDIMM", "RDIMM", "F"}
"""Standards, sizes, slot and firmware names as Chinese text writes them."""


def _variants(cat: Catalog) -> Catalog:
    case = cat.get("fractal-design-define-7-compact")
    cooler = cat.get("arctic-liquid-freezer-iii-pro-360")
    board = cat.get("asus-rog-strix-x870e-e-gaming-wifi")
    parts = {
        "fractal-test-240": replace(case, id="fractal-test-240", specs=replace(
            case.specs, radiator_mounts=(RadiatorMount("front", (240, 280), 55.0),))),
        "fractal-test-360": replace(case, id="fractal-test-360", specs=replace(
            case.specs, radiator_mounts=(RadiatorMount("front", (360,), 55.0),))),
        "arctic-test-thick": replace(cooler, id="arctic-test-thick", specs=replace(
            cooler.specs, radiator_thickness_mm=63.0)),
        "asus-test-sata-map": replace(board, id="asus-test-sata-map", specs=replace(
            board.specs, m2_slots=1,
            m2_slot_map=(M2Slot("M.2_1", "chipset", 4, 4, sata_ports_off=(5, 6)),))),
    }
    return Catalog(parts={**cat.parts, **parts}, tiers=cat.tiers, seed_rules=cat.seed_rules,
                   sources=cat.sources)


def _build(*lines: tuple[str, int]) -> Build:
    return Build(name="t", currency="USD",
                 line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])


def test_issue_26_findings_in_one_language(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = _variants(load_catalog())
    monkeypatch.setattr(test_runtime_language, "NAMES", NAMES | EXTRA_NAMES)
    texts: dict[str, Msg] = {}
    seen: set[str] = set()
    builds = {p.stem: load_build(p, catalog) for p in sorted(DATA.glob("*.json"))}
    builds |= {
        "radiator-mount": _build(("arctic-liquid-freezer-iii-pro-360", 1),
                                 ("fractal-test-240", 1)),
        "radiator-thick": _build(("arctic-test-thick", 1), ("fractal-test-360", 1)),
        "m2-sata": _build(("asus-test-sata-map", 1), ("samsung-990-pro-1tb", 1),
                          ("samsung-870-evo-1tb", 1)),
    }
    for name, build in builds.items():
        findings = check_build(build, catalog)
        seen |= {f.code for f in findings}
        texts |= _finding_texts(findings, name)
    assert {"board.m2_gpu_lanes", "board.m2_sata", "fit.board_form", "fit.board_size_unknown",
            "fit.radiator_mount", "fit.radiator_thickness", "compat.module_form",
            "compat.cpu_family", "board.memory_2dpc", "compat.dimm_slots_cpu",
            "board.bios_update", "compat.no_display"} <= seen
    assert not check(texts, _catalog_names(catalog)), "\n".join(check(texts,
                                                                      _catalog_names(catalog)))
