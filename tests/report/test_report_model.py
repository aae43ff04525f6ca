"""The Report page's model without widgets (report/report_model.py): what is attached, what a
render job will contain, the words of a refused one, and snapshot/restore.

Expected values are written here (a sender block, a validity, the sections left after one is
unticked), never taken from the model a second way.
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from torchrig.builds.build import build_from_tier
from torchrig.catalog import load_catalog
from torchrig.errors import InputError
from torchrig.planning.workload import default_workload
from torchrig.report.report_model import (
    SECTIONS,
    ReportModel,
    ReportWords,
    SheetFields,
)

TODAY = datetime.date(2026, 3, 14)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture
def model(catalog):
    model = ReportModel(catalog, SheetFields(shop="Rig Shop", contact="+86 10 1234 5678",
                                             validity=14, pdf_lang="en"))
    model.build = replace(build_from_tier("professional", catalog), customer="ACME Lab",
                          project="Vision")
    return model


# --- what is attached -------------------------------------------------------------------------


def test_nothing_attached_means_nothing_to_render(catalog):
    model = ReportModel(catalog)
    attached = model.attached()
    assert (attached.build, attached.workload, attached.bench, attached.collective) == \
        (None, None, None, False)
    assert not attached.ready
    with pytest.raises(InputError) as caught:
        model.sheet_job(TODAY)
    assert str(caught.value) == ("There is no build to print: make or open one on the Build "
                                 "page, or attach the Wizard's workload for a plan sheet.")


def test_the_inputs_the_other_pages_attach(model):
    model.fields = replace(model.fields, attach_workload=True)
    model.workload = replace(default_workload("nlp_transformer"), name="")
    model.bench_report = SimpleNamespace(started="2026-03-14T09:30:12+08:00")
    model.collective_report = object()
    attached = model.attached()
    assert attached.build == model.build.name and attached.ready
    assert attached.workload == "bert-base"          # no name: the model it plans
    assert attached.bench == "2026-03-14T09:30"       # to the minute
    assert attached.collective
    model.workload = replace(model.workload, name="SST-2 fine-tune")
    assert model.attached().workload == "SST-2 fine-tune"


# --- the render job ---------------------------------------------------------------------------


def test_a_quote_job_carries_the_header_as_typed(model):
    model.fields = replace(model.fields, kind="quote", number="Q-2026-007", tier="enterprise")
    job = model.sheet_job(TODAY)
    assert job.header == {
        "kind": "quote", "number": "Q-2026-007", "date": "2026-03-14", "validity_days": 14,
        "shop": "Rig Shop\n+86 10 1234 5678", "logo_path": None, "customer": "ACME Lab",
        "project": "Vision"}
    assert job.lang == "en" and job.tier == "enterprise"
    assert job.sections == frozenset(SECTIONS) and not job.internal
    assert job.build is model.build


@pytest.mark.parametrize(("kind", "validity", "expected"), [
    ("quote", 30, 30), ("quote", 0, None), ("sheet", 30, None)])
def test_only_a_quote_states_a_validity(model, kind, validity, expected):
    model.fields = replace(model.fields, kind=kind, validity=validity)
    assert model.sheet_job(TODAY).header["validity_days"] == expected


@pytest.mark.parametrize(("shop", "contact", "sender"), [
    ("  Rig Shop ", " 010-1234 ", "Rig Shop\n010-1234"), ("Rig Shop", "  ", "Rig Shop"),
    ("", "010-1234", "010-1234"), ("", "", "")])
def test_the_sender_block(model, shop, contact, sender):
    model.fields = replace(model.fields, shop=shop, contact=contact)
    assert model.sender() == sender


def test_unticked_sections_and_an_internal_sheet(model):
    sections = dict.fromkeys(SECTIONS, True) | {"claims": False, "attachment": False}
    model.fields = replace(model.fields, sections=sections, internal=True)
    job = model.sheet_job(TODAY)
    assert job.sections == {"bom", "totals", "comparison", "requirements", "verify", "bench",
                            "scaling", "findings"}
    assert job.internal


def test_a_missing_logo_is_refused_in_the_users_words(catalog, model, tmp_path):
    missing = tmp_path / "logo.png"
    model.fields = replace(model.fields, logo=f"  {missing} ")
    with pytest.raises(InputError) as caught:
        model.sheet_job(TODAY)
    assert str(caught.value) == f"logo {missing}: no such file"
    worded = ReportModel(catalog, model.fields, ReportWords(no_logo="找不到标志 {0}"))
    worded.build = model.build
    with pytest.raises(InputError, match=f"^找不到标志 {missing}$"):
        worded.sheet_job(TODAY)
    missing.write_bytes(b"\x89PNG\r\n")
    assert model.sheet_job(TODAY).header["logo_path"] == str(missing)


def test_a_measurement_is_on_the_sheet_only_while_it_is_of_its_workload(model):
    workload = default_workload("image_classification")
    measured = SimpleNamespace(workload=workload)
    model.verify_result = measured
    model.fields = replace(model.fields, attach_workload=True)
    assert model.verify_for_sheet() is None and model.sheet_job(TODAY).verify is None
    model.workload = workload
    assert model.verify_for_sheet() is measured and model.sheet_job(TODAY).verify is measured
    model.workload = replace(workload, batch_size=workload.batch_size + 1)
    assert model.verify_for_sheet() is None


def test_the_job_assembles_the_sheet_it_was_given(model):
    model.fields = replace(model.fields, kind="sheet", number="BS-1",
                           sections=dict.fromkeys(SECTIONS, True) | {"bom": False})
    model.workload = default_workload("image_classification")
    sheet = model.sheet_job(TODAY).sheet()
    assert (sheet.header.kind, sheet.header.number, sheet.header.date) == \
        ("sheet", "BS-1", "2026-03-14")
    assert sheet.header.validity_days is None
    # The build was named "English / Chinese" after its tier; an English sheet shows one half.
    assert sheet.build_name == model.catalog.tier("professional").name.en
    assert not sheet.shows("bom") and sheet.shows("totals")
    assert sheet.options.lang == "en"


def test_the_job_renders_a_pdf(model):
    pdf = model.sheet_job(TODAY)()
    assert pdf.startswith(b"%PDF-")


# --- settings, export, snapshot -----------------------------------------------------------------


def test_a_rendered_sheets_fields_become_the_defaults(model):
    model.fields = replace(model.fields, logo="/tmp/logo.png", pdf_lang="zh", number="Q-1")
    assert model.remembered() == {
        "shop_name": "Rig Shop", "shop_contact": "+86 10 1234 5678",
        "logo_path": "/tmp/logo.png", "validity_days": 14, "report_lang": "zh"}


def test_export_writes_the_bytes_and_remembers_where(model, tmp_path):
    target = tmp_path / "quote.pdf"
    model.export(target, b"%PDF-1.4 test")
    assert target.read_bytes() == b"%PDF-1.4 test" and model.last_export == target
    with pytest.raises(InputError):
        model.export(tmp_path / "no-such-folder" / "quote.pdf", b"%PDF")
    assert model.last_export == target


def test_snapshot_and_restore_round_trip(catalog, model):
    model.workload = default_workload("llm_inference")
    model.bench_report = SimpleNamespace(started="2026-01-01T00:00")
    model.profile = {"cpu": "x"}
    model.collective_report = object()
    model.fields = replace(model.fields, kind="sheet", number="N-9", logo="a.png", tier="entry",
                           sections=dict.fromkeys(SECTIONS, False) | {"bom": True},
                           internal=True)
    model.pdf_bytes, model.last_export = b"%PDF-x", Path("/tmp/out.pdf")
    state = model.snapshot()
    assert state["number"] == "N-9" and state["sections"]["bom"] is True
    assert state["pdf_bytes"] == b"%PDF-x"
    other = ReportModel(catalog)
    other.restore(state)
    assert other.snapshot() == state
    assert other.fields == model.fields
    assert other.build is model.build and other.collective_report is model.collective_report
    # The snapshot's sections are a copy.
    state["sections"]["bom"] = False
    assert model.fields.sections["bom"] is True
