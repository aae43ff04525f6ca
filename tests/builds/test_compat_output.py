"""`torchrig check` output: human text in both languages and the JSON contract."""

from __future__ import annotations

import json
from pathlib import Path

from torchrig.builds.build import load_build
from torchrig.builds.check_output import check_json, format_check_text
from torchrig.builds.compat import check_build
from torchrig.builds.pricing import price_build
from torchrig.catalog import load_catalog

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[2]


def _wrong() -> tuple:
    cat = load_catalog()
    build = load_build(DATA / "wrong-build.json", cat)
    return price_build(build, cat), check_build(build, cat)


def test_text_lists_lines_totals_and_findings_in_english() -> None:
    priced, findings = _wrong()
    text = format_check_text(priced, findings, "en")
    # Category names, not codes; a plural that agrees with its number.
    assert "NVIDIA GeForce RTX 4090 (GPU) qty 4: USD 1,599.00 -> USD 6,396.00" in text
    assert "Power supply" in text and "(psu)" not in text
    # The catalog's prices change as parts get sourced, so the count comes from the priced build.
    missing = len(priced.missing_price_lines)
    assert missing >= 1
    verb = "line has" if missing == 1 else "lines have"
    assert f"INCOMPLETE: {missing} {verb} no usable price" in text
    assert "[Blocker] CPU does not fit the motherboard socket" in text
    assert text.index("[Blocker]") < text.index("[Advice]")
    assert "half-up" in text


def test_text_in_chinese() -> None:
    priced, findings = _wrong()
    text = format_check_text(priced, findings, "zh")
    assert "[阻断] CPU 与主板插槽不匹配" in text
    assert "(显卡)" in text and "(gpu)" not in text
    assert "不完整" in text and "总计" in text


def test_text_without_findings() -> None:
    cat = load_catalog()
    build = load_build(ROOT / "builds" / "professional.json", cat)
    text = format_check_text(price_build(build, cat), [], "en")
    assert "No compatibility problems found." in text
    assert "exchange rate needed" in text


def test_json_contract() -> None:
    priced, findings = _wrong()
    data = check_json(priced, findings)
    assert data["format"] == "torchrig.check" and data["version"] == 1
    assert data["has_blocker"] is True
    assert data["counts"] == {"blocker": 4, "bottleneck": 0, "warning": 2, "overkill": 0,
                              "advice": 2}
    line_sum = sum(line.total for line in priced.lines if line.total is not None)
    assert priced.total == line_sum
    assert data["build"]["total"] == f"{line_sum:.2f}"
    assert data["findings"][0]["severity"] == "blocker"
    assert json.loads(json.dumps(data)) == data  # plain JSON types only
