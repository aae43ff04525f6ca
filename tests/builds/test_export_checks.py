"""The export-control finding (builds/export_checks.py) with lists the tests write."""

from __future__ import annotations

import json
from pathlib import Path

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.catalog.export_controls import ExportControls, load_export_controls
from torchrig.findings import Severity

URL = "https://www.federalregister.gov/documents/2023/10/25/2023-23055/example"


def _controls(tmp_path: Path, alternatives: list[str]) -> ExportControls:
    doc = {"format": "torchrig-export-controls", "version": 1,
           "note": {"en": "US controls", "zh": "美国管制"},
           "rules": [{"id": "ac-s-2023", "title": {"en": "Advanced Computing IFR",
                                                   "zh": "先进计算临时最终规则"},
                      "date": "2023-10-25", "source": URL,
                      "summary": {"en": "Licence required for China.",
                                  "zh": "出口中国需许可证。"}}],
           "parts": [{"part_id": "nvidia-h100-pcie", "rules": ["ac-s-2023"],
                      "alternatives": alternatives,
                      "note": {"en": "Data-centre GPU.", "zh": "数据中心 GPU。"}}]}
    path = tmp_path / "export_controls.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load_export_controls(path, set(load_catalog().parts))


def _build(currency: str) -> Build:
    return Build(name="t", currency=currency,
                 line_items=[LineItem(part_id="nvidia-h100-pcie", quantity=2),
                             LineItem(part_id="intel-core-i9-13900k", quantity=1)])


def _export(build: Build, controls: ExportControls, region: str | None = None) -> list:
    return [f for f in check_build(build, load_catalog(), region=region,
                                   export_controls=controls)
            if f.code == "export.us_controls"]


def test_a_cny_build_with_a_controlled_part_is_told(tmp_path: Path) -> None:
    [finding] = _export(_build("CNY"), _controls(tmp_path, ["nvidia-rtx-4090"]))
    assert finding.severity is Severity.WARNING
    assert "H100" in finding.title.en and "H100" in finding.title.zh
    for text in (finding.detail.en, finding.detail.zh, finding.source.en, finding.source.zh):
        assert "2023-10-25" in text and URL in text
    assert "Advanced Computing IFR" in finding.detail.en
    assert "先进计算临时最终规则" in finding.detail.zh
    assert "NVIDIA GeForce RTX 4090" in finding.fix.en and "RTX 4090" in finding.fix.zh
    # The H100 PCIe's TPP from the catalog: NVIDIA's datasheet FP8 3,026 TFLOPS "with
    # sparsity" / 2 = 1,513 dense, x 8 bits = 12,104 >= 4,800, so ECCN 3A090.a.1 is cited too
    # (its Federal Register address differs from this list's made-up one).
    assert finding.numbers == {"rules": 2.0, "alternatives": 1.0, "tpp": 12104.0,
                               "tpp_max": 12104.0}
    assert "12,104" in finding.detail.en and "12,104" in finding.detail.zh
    assert "https://www.federalregister.gov/d/2023-23055" in finding.source.en


def test_a_usd_build_is_checked_only_for_region_cn(tmp_path: Path) -> None:
    controls = _controls(tmp_path, ["nvidia-rtx-4090"])
    assert _export(_build("USD"), controls) == []
    assert _export(_build("USD"), controls, region="us") == []
    assert len(_export(_build("USD"), controls, region="cn")) == 1


def test_no_alternative_says_so(tmp_path: Path) -> None:
    [finding] = _export(_build("CNY"), _controls(tmp_path, []))
    assert "no China-market alternative" in finding.fix.en


def test_a_part_under_the_threshold_and_not_on_the_list_gets_nothing(tmp_path: Path) -> None:
    # RTX 4060 Ti 16GB: NVIDIA's 353 AI TOPS (FP8 with sparsity) / 2 = 176.5 dense, x 8 bits
    # = 1,412, under 4,800 even at the FP16-accumulate rate.
    build = Build(name="t", currency="CNY",
                  line_items=[LineItem(part_id="nvidia-rtx-4060-ti-16gb", quantity=1)])
    assert _export(build, _controls(tmp_path, [])) == []
    assert _export(_build("CNY"), None) == []  # type: ignore[arg-type]


def test_a_part_the_catalog_cannot_decide_and_the_list_does_not_name(tmp_path: Path) -> None:
    # The RTX 4090's catalog tensor figures are with FP32 accumulate (FP16 165.2 TFLOPS):
    # 165.2 x 16 = 2,643 as stored, twice that (5,286) at the FP16-accumulate rate TPP counts,
    # so 4,800 lies between; a list that does not name it gets a "may be" warning.
    build = Build(name="t", currency="CNY",
                  line_items=[LineItem(part_id="nvidia-rtx-4090", quantity=1)])
    [finding] = _export(build, _controls(tmp_path, []))
    assert finding.title.en == "NVIDIA GeForce RTX 4090 may be under US export controls for China"
    assert finding.title.zh == "NVIDIA GeForce RTX 4090 可能受美国对华出口管制"
    assert "between 2,643 and 5,286" in finding.detail.en
    assert "2,643 到 5,286" in finding.detail.zh
    assert finding.fix.en.startswith("Check the card's TPP (its dense INT8 TOPS × 8)")
    # This list has no tpp_alternatives: none to name.
    assert finding.fix.en.endswith("The list names no China-market alternative: choose "
                                   "another part.")
    assert finding.numbers == {"rules": 1.0, "alternatives": 0.0, "tpp": 2643.2,
                               "tpp_max": 5286.4}
