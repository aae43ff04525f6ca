"""The fin26 findings in one language each (issue 26's last gaps): the same detector as
tests/test_runtime_language.py (English words in the Chinese text, Chinese in the English),
over the power-limit branches of the "below sustained draw" Blocker (a cap offered, a cap the
card's minimum refuses, a card whose minimum is unknown), the transient fix that meets the
minimum, UDIMM on TRX50 and a radiator list without positions."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import test_runtime_language
from test_runtime_language import NAMES, _catalog_names, _finding_texts, check
from test_runtime_language_fit26 import EXTRA_NAMES as FIT26_NAMES
from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import RadiatorMount
from torchrig.i18n import Msg

DATA = Path(__file__).parent / "builds" / "data" / "fin26"
EXTRA_NAMES = {"nvidia-smi", "pl", "POWER"}
"""A tool and its options as Chinese text writes them (with the issue-26 standard, board
and case names, for the board-size note these builds also get)."""
CPU = ("intel-core-i9-13900k", 1)


def _variants(cat: Catalog) -> Catalog:
    ne = cat.get("antec-ne1000g-m-white-atx-3-0")
    tx = cat.get("seasonic-prime-tx-1600-atx-3-1")
    case = cat.get("corsair-7000d-airflow")
    parts = {
        "ne900": replace(ne, id="ne900", specs=replace(ne.specs, wattage_w=900.0)),
        "tx150": replace(tx, id="tx150", specs=replace(tx.specs, pcie_12v_2x6_connectors=0)),
        "case-280": replace(case, id="case-280", specs=replace(case.specs, radiator_mounts=(
            RadiatorMount("unspecified", (120, 140, 240, 280), None),))),
    }
    return Catalog(parts={**cat.parts, **parts}, tiers=cat.tiers, seed_rules=cat.seed_rules,
                   sources=cat.sources)


def _build(*lines: tuple[str, int]) -> Build:
    return Build(name="t", currency="USD",
                 line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])


def test_fin26_findings_in_one_language(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = _variants(load_catalog())
    monkeypatch.setattr(test_runtime_language, "NAMES", NAMES | FIT26_NAMES | EXTRA_NAMES)
    builds = {p.stem: load_build(p, catalog) for p in sorted(DATA.glob("*.json"))}
    builds |= {
        "cap-offered": _build(CPU, ("nvidia-rtx-5090", 1), ("ne900", 1)),
        "min-unknown": _build(CPU, ("nvidia-rtx-4090", 1), ("seasonic-focus-gx-850-v4", 1)),
        "transient-min": _build(CPU, ("nvidia-rtx-5090", 2), ("tx150", 1)),
        "atx31": _build(("intel-core-ultra-9-285k", 1), ("nvidia-rtx-5090", 2),
                        ("msi-meg-ai1600t-pcie5", 1)),
        "radiator": _build(("amd-ryzen-9-9950x", 1), ("arctic-liquid-freezer-iii-pro-360", 1),
                           ("case-280", 1)),
    }
    texts: dict[str, Msg] = {}
    seen: set[str] = set()
    for name, build in builds.items():
        findings = check_build(build, catalog)
        seen |= {f.code for f in findings}
        texts |= _finding_texts(findings, name)
    assert {"compat.psu", "compat.psu_headroom", "compat.module_form",
            "fit.radiator_mount"} <= seen
    assert not check(texts, _catalog_names(catalog)), "\n".join(check(texts,
                                                                      _catalog_names(catalog)))
