"""Customer copy vs internal sheet, notes from the build as it is now, and the workload only
when it is attached (issue 25).

Catalog figures (a price's date and reliability) are read from the shipped catalog file, the
tier note from the shipped tier file; the price's age is counted by hand here.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from torchrig.builds.build import Build, LineItem, build_from_tier, load_build
from torchrig.builds.source_text import EDITED_HERE
from torchrig.catalog import load_catalog
from torchrig.findings import Severity
from torchrig.planning.workload import default_workload
from torchrig.report.assemble import assemble_sheet
from torchrig.report.cli_export import run_export_cli
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.report_model import ReportModel, SheetFields
from torchrig.report.sheet import Header, SheetOptions

ROOT = Path(__file__).resolve().parents[2]
TIERS = {t["id"]: t for t in json.loads((ROOT / "resources" / "tiers.json")
                                        .read_text(encoding="utf-8"))["tiers"]}
PRO_NOTE = TIERS["professional"]["starter_build"]["note"]
DAY = "2026-12-01"


def _catalog_price(part_id: str, currency: str) -> dict:
    for path in (ROOT / "resources" / "catalog").glob("*.json"):
        for part in json.loads(path.read_text(encoding="utf-8")).get("parts", []):
            if part["id"] == part_id:
                return next(p for p in part["prices"] if p["currency"] == currency)
    raise LookupError(part_id)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _sheet(build, catalog, internal: bool, lang: str = "en", **kw):
    return assemble_sheet(build, catalog, header=Header(kind="quote", date=DAY), lang=lang,
                          options=SheetOptions(invariant=True, internal=internal), **kw)


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split())
                    for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


# --- customer copy vs internal sheet ----------------------------------------------------------


def test_price_age_and_reliability_only_on_the_internal_sheet(catalog) -> None:
    price = _catalog_price("nvidia-rtx-4090", "CNY")
    year, month = int(price["date"][:4]), int(price["date"][5:7])
    age = (2026 - year) * 12 + (12 - month)  # months from the price's month to DAY
    assert age > 6  # old enough to be flagged
    build = Build(name="One GPU", line_items=[LineItem(part_id="nvidia-rtx-4090", quantity=1)])
    internal = _sheet(build, catalog, internal=True).bom[0].note
    customer = _sheet(build, catalog, internal=False).bom[0].note
    assert f"{age} months old" in internal
    assert f"price reliability: {price['reliability']}" in internal
    assert "months old" not in customer and "reliability" not in customer
    assert "out of production" in customer  # why the price may move is the customer's too
    zh = _sheet(build, catalog, internal=True, lang="zh").bom[0].note
    assert f"已 {age} 个月" in zh and "价格可靠性" in zh


def test_edited_here_and_estimate_remarks_only_on_the_internal_sheet(catalog) -> None:
    build = Build(name="Mixed", line_items=[
        LineItem(text="Fan", category="other", quantity=1, unit_price=Decimal("12"),
                 currency="CNY", price_source=EDITED_HERE.zh, price_date="2026-11-30"),
        LineItem(text="Switch", category="switch", quantity=1, unit_price=Decimal("36000"),
                 currency="CNY", price_source="estimate: a cost sheet", price_date="2026-11",
                 price_kind="estimate")])
    internal = _sheet(build, catalog, internal=True)
    customer = _sheet(build, catalog, internal=False)
    assert internal.bom[0].price_source == "edited in TorchRig"  # in the sheet's language
    assert customer.bom[0].price_source == ""
    estimate_remark = "analyst estimates"
    assert any(estimate_remark in n for n in internal.totals.notes)
    assert not any(estimate_remark in n for n in customer.totals.notes)
    text = _text(render_sheet_bytes(customer))
    assert "edited in TorchRig" not in text and estimate_remark not in text
    assert "edited in TorchRig" in _text(render_sheet_bytes(internal))


def _args(build: Path | None, out: Path, **kw: object) -> argparse.Namespace:
    values: dict[str, object] = {"build": str(build) if build else None, "output": str(out),
                                 "workload": None, "bench": None, "lang": "en", "tier": None,
                                 "invariant": True,
                                 "internal": False, "draft": True}
    values.update(kw)
    return argparse.Namespace(**values)


def test_cli_internal_keeps_the_remarks(tmp_path: Path) -> None:
    build = ROOT / "builds" / "professional.json"
    assert run_export_cli(_args(build, tmp_path / "c.pdf")) == 0
    assert run_export_cli(_args(build, tmp_path / "i.pdf", internal=True)) == 0
    customer = _text((tmp_path / "c.pdf").read_bytes())
    internal = _text((tmp_path / "i.pdf").read_bytes())
    assert "months old" not in customer and "months old" in internal


# --- notes from the build as it is now ---------------------------------------------------------


def _with_two_5090s(build: Build) -> Build:
    lines = [LineItem(part_id="nvidia-rtx-5090", quantity=2)
             if item.part_id == "nvidia-rtx-4090d" else item for item in build.line_items]
    return replace(build, line_items=lines)


def test_the_tier_note_is_gone_once_its_4090_d_is_replaced_by_two_5090s(catalog) -> None:
    tier_build = build_from_tier("professional", catalog)
    assert _sheet(tier_build, catalog, internal=False).notes == PRO_NOTE["en"]
    swapped = _with_two_5090s(tier_build)
    for lang in ("en", "zh"):
        sheet = _sheet(swapped, catalog, internal=False, lang=lang)
        # Two 575 W cards on the 1,300 W supply: a Blocker...
        assert any(f.severity is Severity.BLOCKER for f in sheet.findings)
        # ...and the note about the 828 W draw of one RTX 4090 D is nowhere on the sheet.
        assert sheet.notes == ""
        text = _text(render_sheet_bytes(sheet))
        assert "828 W" not in text and PRO_NOTE[lang][:30] not in text


def test_a_new_price_keeps_the_tier_note_and_user_notes_stay(catalog) -> None:
    """The fingerprint is of the parts, quantities and nodes: a price typed on a line does
    not change what the note describes; the user's own notes are never dropped."""
    build = build_from_tier("professional", catalog)
    priced = [replace(item, unit_price=Decimal("999"), currency="CNY", price_source="shop")
              if item.part_id == "msi-meg-ai1300p-pcie5" else item for item in build.line_items]
    build = replace(build, line_items=priced, notes="Customer picks it up.")
    assert _sheet(build, catalog, internal=False).notes == PRO_NOTE["en"] + \
        "\nCustomer picks it up."
    assert _sheet(_with_two_5090s(build), catalog, internal=False).notes == \
        "Customer picks it up."
    more_nodes = replace(build, nodes=2)
    assert _sheet(more_nodes, catalog, internal=False).notes == "Customer picks it up."


def _v1(doc: dict) -> dict:
    return {**doc, "version": 1}


def test_version_1_files_upgrade(tmp_path: Path, catalog) -> None:
    """The shipped sample is a version-1 file whose notes are the tier's "en\\nzh" note."""
    sample = json.loads((ROOT / "builds" / "professional.json").read_text(encoding="utf-8"))
    assert sample["version"] == 1 and sample["notes"] == f"{PRO_NOTE['en']}\n{PRO_NOTE['zh']}"
    build = load_build(ROOT / "builds" / "professional.json")
    assert build.notes == "" and build.current_tier_note().zh == PRO_NOTE["zh"]
    # The user's lines after the tier note stay the user's notes.
    edited = copy.deepcopy(sample)
    edited["notes"] += "\nCustomer picks it up."
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(edited), encoding="utf-8")
    assert load_build(path).notes == "Customer picks it up."
    # Saved as version 2, it reads back the same.
    saved = load_build(path).to_dict()
    assert saved["version"] == 2 and saved["tier_note"]["en"] == PRO_NOTE["en"]
    path.write_text(json.dumps(saved), encoding="utf-8")
    assert load_build(path).to_dict() == saved
    # An old file whose GPU had already been changed loses the note on load.
    changed = copy.deepcopy(sample)
    for item in changed["line_items"]:
        if item["part_id"] == "nvidia-rtx-4090d":
            item.update(part_id="nvidia-rtx-5090", quantity=2)
    path.write_text(json.dumps(changed), encoding="utf-8")
    assert load_build(path).current_tier_note() is None
    # Notes that are not the tier's stay as they were.
    own = {**sample, "notes": "Just my notes"}
    path.write_text(json.dumps(own), encoding="utf-8")
    loaded = load_build(path)
    assert loaded.notes == "Just my notes" and loaded.tier_note is None


# --- the workload only when attached -------------------------------------------------------------


def test_the_wizards_workload_is_on_the_sheet_only_when_attached(catalog) -> None:
    model = ReportModel(catalog, SheetFields(pdf_lang="en"))
    model.build = build_from_tier("professional", catalog)
    model.workload = default_workload("image_classification")  # what the Wizard starts with
    sheet = model.sheet_job().sheet()
    assert sheet.workload_name is None and not sheet.requirements and not sheet.scaling
    assert not any(f.code.startswith("analysis.") for f in sheet.findings)
    model.fields = replace(model.fields, attach_workload=True)
    sheet = model.sheet_job().sheet()
    assert sheet.workload_name and sheet.requirements and sheet.scaling


def test_no_build_gives_a_plan_sheet(catalog) -> None:
    model = ReportModel(catalog, SheetFields(pdf_lang="en", attach_workload=True))
    model.build = Build(name="New build")  # what the Build page holds before any part
    model.workload = default_workload("image_classification")
    sheet = model.sheet_job().sheet()
    assert sheet.header.kind == "plan" and not sheet.bom and sheet.totals is None
    assert sheet.requirements and sheet.recommendation
    assert not any(f.code.startswith("compat.") for f in sheet.findings)  # no parts to check
    text = _text(render_sheet_bytes(sheet))
    assert "Plan" in text and "Recommendation" in text and "Bill of materials" not in text
    assert "CNY 0.00" not in text and "Quote" not in text


def test_cli_without_a_build_writes_the_workloads_plan_sheet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workload = ROOT / "workloads" / "bert-base-finetune-sst2.json"
    out = tmp_path / "plan.pdf"
    assert run_export_cli(_args(None, out, workload=str(workload))) == 0
    text = _text(out.read_bytes())
    assert text.startswith("Plan") and "Recommendation" in text
    assert "Bill of materials" not in text
    capsys.readouterr()
    # Neither a build nor a workload, or a plan as a parts list: one line, exit 2.
    assert run_export_cli(_args(None, tmp_path / "x.pdf")) == 2
    assert run_export_cli(_args(None, tmp_path / "x.xlsx", workload=str(workload))) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "BUILD" in err[0] and ".pdf" in err[1]
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "x.xlsx").exists()
