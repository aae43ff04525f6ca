"""A vision model's figures measured on the user's model (verify --apply) in the plan
(docs/verify.md sec. 5): a calibrated preset (ResNet-50) uses them as a custom CNN does, where
the measurement's precision class and checkpointing match; each is scaled from the measured
image size to the planned one (a CNN by the area, a ViT by its 16-pixel patches + the class
token); the expected figures are worked out here from the calibration's stored numbers."""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.presets import load_calibration
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.activations import training_activations
from torchrig.planning.workload import resolve_model, workload_from_options

CAL = load_calibration()
MEASURED = dict(activation_bytes_per_sample=40e6, forward_flops_per_sample=4e9,
                measured_device="cpu", measured_precision="amp_fp16", measured_batch=4,
                measured_checkpointing=False, measured_date="2026-12-04",
                measured_image_size=224)


def _resnet(**changes):
    w = workload_from_options(task="image_classification", model="resnet50",
                              precision="amp_fp16", batch=32, image_size=224)
    return dataclasses.replace(w, **(MEASURED | changes))


def _acts(w):
    return training_activations(w, resolve_model(w), CAL)


def test_a_calibrated_preset_uses_the_measured_figure():
    w = _resnet()
    step = CAL.vision["resnet50"].precisions["amp"].bytes_per_step
    assert step > 0  # autocast weight copies and norm statistics
    per = (40e6 * 4 - step) / 4  # the measured total at batch 4, less the per-step part
    acts = _acts(w)
    assert acts.bytes == pytest.approx(per * 32 + step, rel=1e-12)
    assert acts.note.en.startswith("measured on cpu, 2026-12-04 (amp_fp16, batch 4, 224px): ")
    # the calibration's own figure is named beside it
    formula = _acts(dataclasses.replace(w, **{k: None for k in MEASURED}))
    assert acts.note.en.endswith(f"; the formula alone gives {_gib(formula.bytes)}")


def test_the_planned_image_size_scales_a_cnn_by_the_area_and_a_vit_by_its_tokens():
    w = _resnet(image_size=448)
    step = CAL.vision["resnet50"].precisions["amp"].bytes_per_step
    per = (40e6 * 4 - step) / 4
    assert _acts(w).bytes == pytest.approx(per * 4 * 32 + step, rel=1e-12)  # (448/224)^2
    assert "scaled by image area to 448px (x 4)" in _acts(w).note.en
    # FLOPs: 3 x forward x the same area ratio
    assert plan(w).throughput["flops_per_sample"].value == pytest.approx(3 * 4e9 * 4)
    vit = dataclasses.replace(
        workload_from_options(task="image_classification", model="vit-b-16",
                              precision="amp_fp16", batch=8, image_size=384),
        **(MEASURED | dict(activation_bytes_per_sample=100e6)))
    vstep = CAL.vision["vit-b-16"].precisions["amp"].bytes_per_step
    tokens = ((384 // 16) ** 2 + 1) / ((224 // 16) ** 2 + 1)  # 577 / 197
    assert _acts(vit).bytes == pytest.approx((100e6 * 4 - vstep) / 4 * tokens * 8 + vstep,
                                             rel=1e-12)


def test_another_precision_class_keeps_the_calibration_and_says_why():
    w = _resnet(precision="fp32")
    formula = _acts(dataclasses.replace(w, **{k: None for k in MEASURED}))
    acts = _acts(w)
    assert acts.bytes == formula.bytes
    assert acts.note.en.endswith("; the figure measured on cpu, 2026-12-04 is not used: "
                                 "measured at amp_fp16, planned fp32 (another precision class)")
    assert "的数值未采用" in acts.note.zh


def test_a_custom_cnn_has_no_formula_so_the_figure_stands_with_what_differs():
    base = workload_from_options(task="image_classification", model="custom",
                                 params=5_000_000, image_size=64, batch=16, precision="fp32")
    w = dataclasses.replace(base, **(MEASURED | dict(measured_image_size=32)))
    acts = _acts(w)
    # per sample x (64/32)^2 x batch 16, nothing per step without a calibration
    assert acts.bytes == pytest.approx(40e6 * 4 * 16, rel=1e-12)
    assert "taken as it is although measured at amp_fp16, planned fp32" in acts.note.en
    assert "the formula alone" not in acts.note.en
    # a file written before the image size was recorded: taken at the planned size
    old = dataclasses.replace(w, measured_image_size=None, precision="amp_fp16")
    assert _acts(old).bytes == pytest.approx(40e6 * 16, rel=1e-12)
    assert "its image size is not recorded: taken at the planned size" in _acts(old).note.en


def test_a_measured_total_below_the_per_step_part_is_not_reduced():
    step = CAL.vision["resnet50"].precisions["amp"].bytes_per_step
    tiny = step / 8  # x batch 4 is half the per-step part
    w = _resnet(activation_bytes_per_sample=tiny)
    acts = _acts(w)
    assert acts.bytes == pytest.approx(tiny * 32, rel=1e-12)
    assert "its total is below the preset's per-step part, so none is subtracted" in \
        acts.note.en


def _gib(value):
    from torchrig.units import fmt_gib

    return fmt_gib(value)
