"""A catalog price's source on the customer's quote: one language, no internal remarks; the
internal sheet and ``torchrig check`` keep the remark (issue 25).

The catalog's estimates record their basis in English with the shop's caveats ("the top of the
range is shown, per GPU, not an NVIDIA MSRP (none exists)"); a price now carries a bilingual
``label`` (what a document prints) and ``remark`` (the caveats). The texts expected below are
written out by hand from resources/catalog/gpus.json (the A100 80GB SXM4's estimate: USD
15,000, 2026-03-20, aitooldiscovery.com) and cpus.json (the EPYC 7543's AMD launch price).
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pypdf
import pytest

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.check_output import format_check_text
from torchrig.builds.pricing import price_build
from torchrig.catalog import load_catalog
from torchrig.catalog.loader import load_catalog as load_from
from torchrig.errors import InputError
from torchrig.report.assemble import assemble_sheet
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, SheetOptions

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u4e00-\u9fff]")

A100_LABEL = {"en": "aitooldiscovery.com, 2026 prices of new A100 80GB units",
              "zh": "aitooldiscovery.com 报道的 2026 年 A100 80GB 新卡价格"}
A100_REMARK = {"en": "the top of the range is shown, per GPU",
               "zh": "取区间上限，按每块 GPU 计"}
# Words of the catalog's English record that are the shop's remarks, not a source.
REMARK_WORDS = ("top of the range", "MSRP", "none exists", "not a quote", "+/-", "publishes no")


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _flat(text: str) -> str:
    """Text with every space and line break removed: a PDF cell wraps words anywhere."""
    return re.sub(r"\s", "", text)


def _pdf(build: Build, catalog, lang: str, internal: bool) -> str:
    sheet = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                           lang=lang, options=SheetOptions(invariant=True, internal=internal))
    pdf = render_sheet_bytes(sheet)
    return _flat("".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages))


@pytest.fixture(scope="module")
def enterprise():
    return load_build(ROOT / "builds" / "enterprise.json")


def test_the_zh_customer_quote_prints_a_chinese_source_without_remarks(catalog,
                                                                      enterprise) -> None:
    text = _pdf(enterprise, catalog, "zh", internal=False)
    assert _flat(A100_LABEL["zh"]) in text
    assert "aitooldiscovery.com(2026-03-20)reports" not in text
    for words in ("topoftherange", "MSRP", "noneexists", "pergpu", "reportsnewA100"):
        assert words.lower() not in text.lower(), words
    assert _flat(A100_REMARK["zh"]) not in text
    # The EPYC 7543's launch price cites AMD's specifications: named in Chinese.
    assert "AMD官方产品规格" in text and "AMDproductspecifications" not in text


def test_the_zh_internal_sheet_keeps_the_remark_in_chinese(catalog, enterprise) -> None:
    text = _pdf(enterprise, catalog, "zh", internal=True)
    assert _flat(A100_LABEL["zh"]) in text and _flat(A100_REMARK["zh"]) in text


def test_the_en_copies(catalog, enterprise) -> None:
    customer = _pdf(enterprise, catalog, "en", internal=False)
    internal = _pdf(enterprise, catalog, "en", internal=True)
    assert _flat(A100_LABEL["en"]) in customer and _flat(A100_REMARK["en"]) not in customer
    assert _flat(A100_REMARK["en"]) in internal


def test_the_sheet_rows(catalog) -> None:
    build = Build(name="t", currency="USD", line_items=[LineItem(part_id="nvidia-a100-80gb-sxm")])
    for lang in ("en", "zh"):
        customer = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                                  lang=lang, options=SheetOptions(internal=False)).bom[0]
        internal = assemble_sheet(build, catalog, header=Header(kind="quote", date="2026-12-01"),
                                  lang=lang, options=SheetOptions(internal=True)).bom[0]
        assert customer.price_source == A100_LABEL[lang] == internal.price_source
        assert (customer.price_kind, customer.price_date) == ("estimate", "2026-03-20")
        assert customer.price_remark == "" and A100_REMARK[lang] not in customer.note
        assert A100_REMARK[lang] in internal.price_remark


def test_check_gives_the_label_and_the_remark_in_one_language(catalog) -> None:
    build = Build(name="t", currency="USD", line_items=[LineItem(part_id="nvidia-a100-80gb-sxm")])
    priced = price_build(build, catalog)
    zh = format_check_text(priced, [], "zh")
    en = format_check_text(priced, [], "en")
    assert f"价格来源: 目录 {A100_LABEL['zh']} 2026-03-20" in zh
    assert "备注: 报道新卡 8,000–15,000 美元" in zh and A100_REMARK["zh"] in zh
    assert "estimate:" not in zh and "top of the range" not in zh
    assert f"origin: catalog {A100_LABEL['en']} 2026-03-20" in en
    assert "remark: Reported at $8,000-15,000 new" in en and not CJK.search(en)


def test_every_estimate_in_the_catalog_has_a_label_without_remarks(catalog) -> None:
    estimates = [(pid, price) for pid, part in catalog.parts.items() for price in part.prices
                 if price.kind == "estimate"]
    assert len(estimates) == 8  # L40S, A100, H100, H200, MI250X, MI300X, V100, B200
    for pid, price in estimates:
        assert price.label is not None and price.remark is not None, pid
        assert CJK.search(price.label.zh) and CJK.search(price.remark.zh), pid
        assert not CJK.search(price.label.en + price.remark.en), pid
        for words in REMARK_WORDS:
            assert words not in price.label.en, (pid, words)
        # A remark gets its own line in the PDF's source cell, cut past 200 characters
        # (report/pdf.py, CELL_TEXT_LIMIT): the catalog's stay whole.
        assert max(len(price.remark.en), len(price.remark.zh)) <= 200, pid


# --- the catalog file's rule -----------------------------------------------------------------


def _copy_with_price(tmp_path: Path, **changes: Any) -> Path:
    """The shipped catalog with the A100 80GB SXM4's price changed."""
    import shutil

    root = tmp_path / "res"
    shutil.copytree(ROOT / "resources", root)
    path = root / "catalog" / "gpus.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    part = next(p for p in doc["parts"] if p["id"] == "nvidia-a100-80gb-sxm")
    part["prices"][0].update(changes)
    for key, value in list(part["prices"][0].items()):
        if value is None:
            del part["prices"][0][key]
    path.write_text(json.dumps(doc), encoding="utf-8")
    return root


@pytest.mark.parametrize(("changes", "message"), [
    ({"label": None}, "an estimate needs a 'label'"),
    ({"label": {"en": "a sheet"}}, "field 'label' must be an object with non-empty 'en' and"),
    ({"label": {"en": "a sheet", "zh": " "}}, "field 'label' must be"),
    ({"remark": "top of the range"}, "field 'remark' must be"),
    ({"lable": {"en": "a", "zh": "一"}}, "unknown field 'lable'"),
])
def test_a_bad_label_or_remark_is_refused(tmp_path: Path, changes: dict, message: str) -> None:
    root = _copy_with_price(tmp_path, **changes)
    with pytest.raises(InputError) as err:
        load_from(root)
    assert message in str(err.value) and "nvidia-a100-80gb-sxm" in str(err.value)


# --- a price typed on a build or tier line: its source in two halves, its remark apart --------

# builds/hgx-b200.json's system line (USD 515K, reported 2025-03-16) and the enterprise tier's
# switch line (resources/tiers.json), as written in those files.
DGX_SOURCE_ZH = ("公开报道数字：NVIDIA DGX B200 售价 51.5 万美元，"
                 "见 2025-03-16 的博客文章（Vengineer）")
DGX_REMARK = {"en": "whether support or software is included is not stated",
              "zh": "是否含支持服务或软件未说明"}
SWITCH_SOURCE_ZH = ("估算（2024 年 8 月集群成本表）：FS.com 64 端口 400 Gb/s InfiniBand 交换机，"
                    "约 36,000 美元")
SWITCH_REMARK = {"en": "NVIDIA's own switch at about USD 50,000",
                 "zh": "NVIDIA 自家交换机约 50,000 美元"}


def test_the_hgx_b200_quote_in_chinese(catalog) -> None:
    build = load_build(ROOT / "builds" / "hgx-b200.json")
    customer = _pdf(build, catalog, "zh", internal=False)
    internal = _pdf(build, catalog, "zh", internal=True)
    assert _flat(DGX_SOURCE_ZH) in customer and _flat(DGX_SOURCE_ZH) in internal
    # (The build's own notes, which the customer reads, also say it is no vendor quote.)
    for words in ("blogpost", "vendorquote", "unboxing", "Japanese", _flat(DGX_REMARK["zh"])):
        assert words not in customer, words
    assert _flat(DGX_REMARK["zh"]) in internal
    assert _flat(DGX_REMARK["en"]) in _pdf(build, catalog, "en", internal=True)


def test_the_enterprise_tier_switch_line(catalog, enterprise) -> None:
    customer = _pdf(enterprise, catalog, "zh", internal=False)
    internal = _pdf(enterprise, catalog, "en", internal=True)
    assert _flat(SWITCH_SOURCE_ZH) in customer
    assert "NVIDIA'sownabout" not in customer and _flat(SWITCH_REMARK["zh"]) not in customer
    assert _flat(SWITCH_REMARK["en"]) in internal
    priced = price_build(enterprise, catalog)
    switch = next(line for line in priced.lines if line.category == "switch")
    assert switch.remark is not None and SWITCH_REMARK["zh"] in switch.remark.zh
    assert "备注: 同一成本表中" in format_check_text(priced, [], "zh")


def test_a_line_remark_is_read_written_and_dropped_with_its_price(tmp_path: Path) -> None:
    from torchrig.builds.build_editor import BuildEditor

    raw = {"format": "torchrig.build", "version": 1, "name": "t", "currency": "USD",
           "line_items": [{"text": "Switch", "category": "switch", "quantity": 1,
                           "unit_price": "36000", "currency": "USD",
                           "price_source": "a cost sheet", "price_remark": "top of a range"}]}
    path = tmp_path / "b.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    build = load_build(path)
    assert build.line_items[0].price_remark == "top of a range"
    assert build.to_dict()["line_items"][0]["price_remark"] == "top of a range"
    # A price typed over it is the shop's own: the remark on the old figure goes with it.
    editor = BuildEditor(load_catalog(), build, recovery_file=tmp_path / "r" / "b.json")
    assert editor.with_cell(0, "unit_price", "30000").line_items[0].price_remark == ""
    raw["line_items"][0].pop("unit_price")
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(InputError, match="price_remark speaks of a price"):
        load_build(path)
