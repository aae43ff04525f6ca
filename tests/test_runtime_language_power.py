"""The wall-circuit and export-control findings, every branch, in one language each: the
same detector as tests/test_runtime_language.py (English words in the Chinese text, Chinese in
the English), over findings the sample builds do not produce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import test_runtime_language
from test_runtime_language import NAMES, _catalog_names, _finding_texts, check
from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.catalog.export_controls import load_export_controls
from torchrig.i18n import Msg

CPU = ("intel-core-i9-13900k", 1)
EXTRA_NAMES = {"NEMA", "Schuko", "CEE", "PLUS", "nvidia-smi", "pl", "IEC", "NEC", "GB"}
"""Standards, a tool and its option: names as Chinese text writes them."""


def _build(*lines: tuple[str, int], currency: str = "USD") -> Build:
    return Build(name="t", currency=currency,
                 line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])


def test_wall_and_export_findings_in_one_language(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = load_catalog()
    monkeypatch.setattr(test_runtime_language, "NAMES", NAMES | EXTRA_NAMES)
    texts: dict[str, Msg] = {}
    cases = {
        # us: 2 x RTX 4090 on two Gold RM1000x: 1498 W > 1440 W (wall.outlet, power limit);
        # 4 x: 2532 W > 1920 W (wall.circuit); one unrated supply: the assumed 80 %.
        "us-outlet": (_build(CPU, ("nvidia-rtx-4090", 2), ("corsair-rm1000x", 2)), "us"),
        "us-circuit": (_build(CPU, ("nvidia-rtx-4090", 4), ("corsair-rm1000x", 3)), "us"),
        "us-unrated": (_build(CPU, ("nvidia-rtx-4090", 2), ("corsair-rm850x-2021", 2)), "us"),
        "cn-outlet": (_build(CPU, ("nvidia-rtx-4090", 4), ("corsair-rm1000x", 3)), "cn"),
        "eu-circuit": (_build(CPU, ("nvidia-rtx-4090", 8), ("corsair-rm1000x", 5)), "eu"),
    }
    path = tmp_path / "export_controls.json"
    path.write_text(json.dumps({
        "format": "torchrig-export-controls", "version": 1, "note": {"en": "n", "zh": "注"},
        "rules": [{"id": "r", "title": {"en": "Advanced computing rule", "zh": "先进计算规则"},
                   "date": "2023-10-25", "source": "https://www.federalregister.gov/x",
                   "summary": {"en": "A licence is required.", "zh": "需要许可证。"}}],
        "parts": [{"part_id": "nvidia-h100-pcie", "rules": ["r"],
                   "alternatives": ["nvidia-rtx-4090"],
                   "note": {"en": "Data-centre GPU.", "zh": "数据中心 GPU。"}}]}))
    controls = load_export_controls(path, set(catalog.parts))
    seen = set()
    for name, (build, region) in cases.items():
        findings = check_build(build, catalog, region=region, export_controls=None)
        seen |= {f.code for f in findings}
        texts |= _finding_texts(findings, name)
    export = check_build(_build(("nvidia-h100-pcie", 1), currency="CNY"), catalog,
                         export_controls=controls)
    seen |= {f.code for f in export}
    texts |= _finding_texts(export, "export")
    assert {"wall.outlet", "wall.circuit", "export.us_controls"} <= seen
    data = _catalog_names(catalog) | {"https://www.federalregister.gov/x"}
    assert not check(texts, data), "\n".join(check(texts, data))
