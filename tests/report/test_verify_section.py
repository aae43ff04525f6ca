"""The "Measured on this machine" section of the PDF sheet."""

from __future__ import annotations

import io

import pypdf
import pytest

from torchrig.i18n import Msg
from torchrig.planning.requirements import plan
from torchrig.planning.workload import workload_from_options
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, Sheet, SheetOptions
from torchrig.report.verify_section import verify_section
from torchrig.verify.compare import Measured, compare


def sample_result(kind: str = "cpu", activations_factor: float = 1.0):
    """A verification of BERT-base whose activations differ from the plan by a factor."""
    w = workload_from_options(task="nlp_transformer", model="bert-base", batch=8, seq_len=128)
    req = plan(w)
    v = req.vram_per_gpu
    cuda = kind == "cuda"
    measured = Measured(
        weights=v["weights"].value, gradients=v["gradients"].value,
        optimizer_states=v["optimizer_states"].value,
        activations=v["activations"].value * activations_factor,
        step_peak=5e9 if cuda else None, reserved_peak=6e9 if cuda else None,
        outside_allocator=5e8 if cuda else None, step_s=0.5, forward_flops=4e10,
        saved_bytes=0.0, batch=8)
    return compare(workload=w, verified=w, requirements=req, measured=measured,
                   device="cuda:0" if cuda else "cpu", device_kind=kind,
                   device_name="Test device", torch_version="2.13.0", steps=3,
                   sizes=[(12, 8, 128)], reduction=None, model=Msg("BERT", "BERT"),
                   precision_note="fp32", notes=[], wall_s=12.0, date="2026-12-01")


@pytest.mark.parametrize("lang,words", [("en", ("Measured on this machine", "Activations",
                                                  "Planned", "+100%")),
                                         ("zh", ("本机实测", "激活", "规划"))])
def test_the_section_prints_the_comparison(lang, words):
    result = sample_result("cuda", activations_factor=2.0)
    sheet = Sheet(header=Header(kind="sheet"), build_name="x",
                  verify=verify_section(result, lang), options=SheetOptions(lang=lang))
    pdf = render_sheet_bytes(sheet)
    text = "".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    for word in words:
        assert word in text, word


def test_the_section_data_marks_flagged_rows():
    section = verify_section(sample_result(activations_factor=2.0), "en")
    flagged = {row[0] for row in section.rows if row[4]}
    assert "Activations (!)" in flagged and "Weights" not in {r[0] for r in section.rows
                                                               if r[4]}
    assert all(name.endswith("(!)") for name in flagged)
    assert any("Device" in line for line in section.context)
