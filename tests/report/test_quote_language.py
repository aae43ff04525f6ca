"""The customer's quote is in one language: title, notes, custom lines, categories and price
sources; ``torchrig check --lang`` follows the same rule (issue 25).

Expected texts come from the shipped tier file (resources/tiers.json: a tier's name and
starter note in each language), the Report page's Qt translation file (the Chinese of "edited
in TorchRig") or are written out here.
"""

from __future__ import annotations

import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from torchrig.builds.build import Build, LineItem, build_from_tier
from torchrig.builds.check_output import format_check_text
from torchrig.builds.pricing import price_build
from torchrig.builds.source_text import EDITED_HERE, source_text
from torchrig.catalog import load_catalog
from torchrig.i18n import Msg, one_language
from torchrig.report.assemble import assemble_sheet
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, SheetOptions

ROOT = Path(__file__).resolve().parents[2]
TIERS = {t["id"]: t for t in json.loads((ROOT / "resources" / "tiers.json")
                                        .read_text(encoding="utf-8"))["tiers"]}
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _pdf_text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split())
                    for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


# --- the one helper ---------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "en", "zh"), [
    ("A quiet box\n一台安静的机器", "A quiet box", "一台安静的机器"),
    ("Professional research / 专业级研究环境", "Professional research", "专业级研究环境"),
    ({"en": "Switch", "zh": "交换机"}, "Switch", "交换机"),
    (Msg("Rack", "机架"), "Rack", "机架"),
    # Not two languages: kept whole in both.
    ("Two English lines\nof the shop's own", "Two English lines\nof the shop's own",
     "Two English lines\nof the shop's own"),
    ("RTX 4090 / 4x", "RTX 4090 / 4x", "RTX 4090 / 4x"),
    ("一行中文\n另一行中文", "一行中文\n另一行中文", "一行中文\n另一行中文"),
    ("one\ntwo\n三", "one\ntwo\n三", "one\ntwo\n三"),
    ("", "", ""),
])
def test_one_language_picks_the_half(value, en, zh) -> None:
    assert (one_language(value, "en"), one_language(value, "zh")) == (en, zh)


def test_source_labels_in_each_language() -> None:
    ts = (ROOT / "resources" / "translations" / "torchrig_zh_CN.ts").read_text(encoding="utf-8")
    # The Build page's mark in Chinese is its own translation of the English.
    assert f"<source>{EDITED_HERE.en}</source>\n        <translation>{EDITED_HERE.zh}" in ts
    assert source_text(EDITED_HERE.zh, "en") == "edited in TorchRig"
    assert source_text("edited in TorchRig", "zh") == "在 TorchRig 中修改"
    assert source_text("estimate: a cost sheet", "zh") == "估算：a cost sheet"
    assert source_text("estimate: a cost sheet", "en") == "estimate: a cost sheet"
    assert source_text("estimate (Aug 2024 sheet): USD 810 per link", "zh") == \
        "估算（Aug 2024 sheet）：USD 810 per link"
    assert source_text("included in the system price (line 2) / 已含于整机价格（第 2 行）",
                       "en") == "included in the system price (line 2)"
    assert source_text("TechPowerUp", "zh") == "TechPowerUp"  # a name stays a name


# --- the PDF ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "other"), [("zh", "en"), ("en", "zh")])
def test_a_tier_build_quote_is_in_one_language(catalog, lang, other) -> None:
    tier = TIERS["professional"]
    build = build_from_tier("professional", catalog)
    sheet = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                           lang=lang, options=SheetOptions(invariant=True))
    assert sheet.build_name == tier["name"][lang]
    assert sheet.notes == tier["starter_build"]["note"][lang]
    text = _pdf_text(render_sheet_bytes(sheet))
    assert tier["name"][lang] in text and tier["name"][other] not in text
    # The other language's note is nowhere: take a stretch of its first sentence.
    assert tier["starter_build"]["note"][other][:30] not in text
    if lang == "en":
        assert not CJK.search(text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_custom_lines_and_user_notes_show_one_half(catalog, lang) -> None:
    build = Build(name="Lab box / 实验室主机", notes="Deliver on Monday\n周一送货", line_items=[
        LineItem(text="Assembly and burn-in / 组装与烤机", category="service", quantity=1,
                 note="two days\n两天")])
    sheet = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                           lang=lang, options=SheetOptions(invariant=True))
    expected = {"en": ("Lab box", "Deliver on Monday", "Assembly and burn-in", "two days",
                       "Service"),
                "zh": ("实验室主机", "周一送货", "组装与烤机", "两天", "服务")}[lang]
    assert (sheet.build_name, sheet.notes, sheet.bom[0].part) == expected[:3]
    assert sheet.bom[0].note.endswith(expected[3])
    text = _pdf_text(render_sheet_bytes(sheet))
    for word in expected:
        assert word in text
    if lang == "en":
        assert not CJK.search(text)
    else:
        assert "Lab box" not in text and "Deliver" not in text and "burn-in" not in text


# --- torchrig check ---------------------------------------------------------------------------


def test_check_text_is_in_one_language(catalog) -> None:
    tier = TIERS["professional"]
    build = build_from_tier("professional", catalog)
    for lang, other in (("zh", "en"), ("en", "zh")):
        out = format_check_text(price_build(build, catalog), [], lang)
        first = out.splitlines()[0]
        assert tier["name"][lang] in first and tier["name"][other] not in first


def test_check_gives_line_price_sources_in_the_chosen_language(catalog) -> None:
    build = Build(name="Server", currency="USD", line_items=[
        LineItem(text="Rails", category="other", quantity=1, unit_price=Decimal("0"),
                 currency="USD",
            price_source="included in the system price (line 2) / 已含于整机价格（第 2 行）"),
        LineItem(text="Switch", category="switch", quantity=1,
                 unit_price=Decimal("36000"), currency="USD",
                 price_source="estimate: a cost sheet", price_date="2024-08",
                 price_kind="estimate"),
        LineItem(text="Fan", category="other", quantity=1,
                 unit_price=Decimal("12"), currency="USD",
                 price_source=EDITED_HERE.zh, price_date="2026-11-30"),
    ])
    zh = format_check_text(price_build(build, catalog), [], "zh")
    en = format_check_text(price_build(build, catalog), [], "en")
    assert "已含于整机价格（第 2 行）" in zh and "included in" not in zh
    assert "估算：a cost sheet" in zh and "estimate:" not in zh
    assert "included in the system price (line 2)" in en and "已含于" not in en
    assert "edited in TorchRig" in en and "在 TorchRig 中修改" not in en
