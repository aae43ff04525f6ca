"""Re-measure small cases with the calibration script's method and check the planner's formula.

Tolerance: transformer layers 0.1% (the saved sizes are exactly linear in the shape, so the
fitted coefficients must extrapolate to a shape they were not fitted on); a ResNet at another
image size 1% (area scaling is exact when the size is a multiple of 32; only the pooled head
does not scale).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from torchrig.planning.presets import TransformerArch, get_preset, load_calibration
from torchrig.planning.requirements import plan
from torchrig.planning.workload import workload_from_options

# Importing torch alone takes ~5 s on the 2-core CI machine.
pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "calibrate_activations.py"


@pytest.fixture(scope="module")
def calib():
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("calibrate_activations", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


@pytest.mark.parametrize("style,precision", [("llama", "amp"), ("gpt", "fp32"),
                                             ("bert", "bf16")])
def test_tiny_transformer_matches_the_fitted_formula(calib, style, precision):
    kv = 2 if style == "llama" else 4
    shape = calib.Shape(layers=2, hidden=80, heads=4, kv_heads=kv, ffn=200, vocab=120,
                        positions=64)
    seq = 24
    measured = calib.transformer_shape_bytes(style, shape, "sdpa", precision, seq, "lm")
    tc = load_calibration().transformer_cal(style, "sdpa", "lm", precision)
    arch = TransformerArch(style, 2, 80, 4, kv, 200, 120, 64)
    assert tc.layer_bytes_per_token(arch, seq) * seq == pytest.approx(
        measured.layer_per_sequence, rel=1e-3)
    assert tc.outside_bytes_per_sequence(arch, seq) == pytest.approx(
        measured.outside_per_sequence, rel=1e-3)


def test_eager_attention_scores_term(calib):
    shape = calib.Shape(layers=2, hidden=64, heads=4, kv_heads=4, ffn=256, vocab=96,
                        positions=128)
    tc = load_calibration().transformer_cal("gpt", "eager", "lm", "amp")
    arch = TransformerArch("gpt", 2, 64, 4, 4, 256, 96, 128)
    for seq in (40, 80):
        got = calib.transformer_shape_bytes("gpt", shape, "eager", "amp", seq, "lm")
        assert tc.layer_bytes_per_token(arch, seq) * seq == pytest.approx(
            got.layer_per_sequence, rel=1e-3)


def test_autocast_keeps_two_bytes_per_matmul_weight(calib):
    shape = calib.Shape(layers=2, hidden=64, heads=4, kv_heads=4, ffn=256, vocab=96,
                        positions=128)
    got = calib.transformer_shape_bytes("gpt", shape, "sdpa", "amp", 32, "lm")
    weights = calib._matmul_weights("gpt", shape, "lm")
    assert got.per_step == pytest.approx(2 * weights, rel=0.01)


def test_resnet18_at_another_image_size(calib):
    import torch

    model = calib.resnet(18)
    one, two = (calib.saved_bytes(model, torch.randn(b, 3, 64, 64), "fp32").total
                for b in (1, 2))
    w = workload_from_options(task="image_classification", model="resnet18", image_size=64,
                              batch=2, precision="fp32", optimizer="sgd")
    planned = plan(w).vram_per_gpu["activations"].value
    assert planned == pytest.approx(two, rel=0.01)
    assert one < two
    assert calib.param_count(model) == get_preset("resnet18").params
