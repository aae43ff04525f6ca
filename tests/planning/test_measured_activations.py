"""A transformer's activation bytes and forward FLOPs measured on the user's model (torchrig
verify --apply) in the plan: used where the measurement's context matches the plan, corrected
by the planner's attention term where the attention forms differ, scaled to the planned batch
and length. Expected values are computed by hand here from the calibration's coefficients as
resources/model_presets.json states them (a Llama-style block without dropout, full multi-head
attention, so no correction of the calibrated figure applies) - not by the planner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.planning.requirements import plan
from torchrig.planning.workload import Workload, workload_from_options

PRESETS = Path(__file__).resolve().parents[2] / "resources" / "model_presets.json"
L, H, HEADS, FFN, VOCAB = 2, 64, 4, 128, 256


def coefficients(key: str) -> dict:
    return json.loads(PRESETS.read_text())["calibration"]["transformer"][key]


def per_sample_by_hand(form: str, precision: str, seq: int) -> float:
    """Saved bytes of one sequence, weight copies out: layers x tokens x the layer's bytes per
    token + tokens x the embeddings' and head's bytes per token (+ per sequence)."""
    c = coefficients(f"llama/{form}/lm/{precision}")
    lay, out, per_seq = (c["layer_bytes_per_token"], c["outside_layers_bytes_per_token"],
                         c["outside_layers_bytes_per_sequence"])
    per_token = (lay["constant"] + lay["hidden"] * H + lay["ffn"] * FFN + lay["heads"] * HEADS
                 + lay["kv_dim"] * H + lay["heads_x_seq"] * HEADS * seq)
    outside = out["constant"] + out["hidden"] * H + out["vocab"] * VOCAB
    return L * seq * per_token + seq * outside + per_seq["constant"] + per_seq["hidden"] * H


# Autocast's 16-bit weight copies: per layer Q, K, V, O (4 h^2, all heads full width) and the
# gated MLP's three matrices (3 h f), and the LM head (vocab x h); 2 bytes each.
COPIES = 2 * (L * (4 * H * H + 3 * H * FFN) + VOCAB * H)


def workload(measured: dict | None = None, **options) -> Workload:
    base = dict(task="llm_finetune_full", mode="finetune", model="custom", style="llama",
                layers=L, hidden=H, heads=HEADS, kv_heads=HEADS, ffn=FFN, vocab=VOCAB,
                seq_len=32, batch=4, precision="fp32", attention="sdpa", checkpointing=False,
                strategy="ddp", gpus=1)
    base.update(options)
    w = workload_from_options(**base)
    if measured is None:
        return w
    doc = w.to_dict()
    doc.update({"measured_device": "cpu", "measured_precision": "fp32", "measured_batch": 2,
                "measured_seq_len": 32, "measured_checkpointing": False,
                "measured_date": "2026-12-03", "measured_attention": "eager",
                "activation_bytes_per_sample": 600_000.0} | measured)
    return Workload.from_dict(doc)


def activations(w: Workload):
    return plan(w).vram_per_gpu["activations"]


def test_the_hand_computation_is_the_calibrations_own_form():
    # The llama fp32 coefficients: sdpa keeps no tokens x tokens term, eager keeps 4 B per head
    # per token pair (fp32 probabilities) - the term the correction is made of.
    assert coefficients("llama/sdpa/lm/fp32")["layer_bytes_per_token"]["heads_x_seq"] == 0
    assert coefficients("llama/eager/lm/fp32")["layer_bytes_per_token"]["heads_x_seq"] > 0


def test_a_cpu_eager_measurement_in_a_fused_plan_is_corrected_by_the_attention_term():
    got = activations(workload({}))
    term = per_sample_by_hand("sdpa", "fp32", 32) - per_sample_by_hand("eager", "fp32", 32)
    assert term < 0  # fused attention keeps less
    assert got.value == pytest.approx((600_000 + term) * 4, rel=1e-12)
    assert "measured on cpu, 2026-12-03" in got.note.en
    assert "corrected by the planner's attention term" in got.note.en
    assert "于 cpu 实测（2026-12-03）" in got.note.zh


def test_sdpa_math_is_corrected_as_eager_attention():
    got = activations(workload({"measured_attention": "sdpa_math"}))
    term = per_sample_by_hand("sdpa", "fp32", 32) - per_sample_by_hand("eager", "fp32", 32)
    assert got.value == pytest.approx((600_000 + term) * 4, rel=1e-12)
    assert "sdpa_math attention keeps the attention probabilities" in got.note.en


def test_a_matching_measurement_is_the_measured_figure_times_the_planned_batch():
    got = activations(workload({"measured_attention": "sdpa"}, batch=7))
    assert got.value == pytest.approx(600_000 * 7, rel=1e-12)
    assert "attention term" not in got.note.en


def test_a_longer_planned_sequence_is_scaled_by_the_per_token_and_per_seq2_split():
    # Corrected at the measured 32 tokens, then the fused form's ratio of 64 to 32 tokens.
    got = activations(workload({}, seq_len=64))
    term = per_sample_by_hand("sdpa", "fp32", 32) - per_sample_by_hand("eager", "fp32", 32)
    ratio = per_sample_by_hand("sdpa", "fp32", 64) / per_sample_by_hand("sdpa", "fp32", 32)
    assert got.value == pytest.approx((600_000 + term) * ratio * 4, rel=1e-12)
    # An eager plan from a fused measurement: the term added, the eager form's ratio, whose
    # tokens x tokens part grows with the square of the length.
    got = activations(workload({"measured_attention": "sdpa"}, seq_len=64, attention="eager"))
    term = per_sample_by_hand("eager", "fp32", 32) - per_sample_by_hand("sdpa", "fp32", 32)
    ratio = per_sample_by_hand("eager", "fp32", 64) / per_sample_by_hand("eager", "fp32", 32)
    assert ratio > 2
    assert got.value == pytest.approx((600_000 + term) * ratio * 4, rel=1e-12)


def test_autocast_weight_copies_are_taken_out_per_step_not_per_sample():
    w = workload({"measured_attention": "sdpa", "measured_precision": "amp_bf16",
                  "activation_bytes_per_sample": 500_000.0}, precision="amp_fp16", batch=6)
    per = (500_000 * 2 - COPIES) / 2
    assert activations(w).value == pytest.approx(per * 6 + COPIES, rel=1e-12)
    assert "autocast weight copies" in activations(w).note.en


@pytest.mark.parametrize(("measured", "options", "why"), [
    ({"measured_precision": "amp_bf16"}, {}, "another precision class"),
    ({"measured_checkpointing": True}, {}, "checkpointing on, planned off"),
    ({}, dict(strategy="tensor_parallel", tp_size=2, gpus=2), "measured on one device"),
])
def test_a_measurement_that_does_not_match_leaves_the_formula_and_says_why(measured, options,
                                                                           why):
    formula = activations(workload(None, **options))
    got = activations(workload(measured, **options))
    assert got.value == formula.value
    assert "measured on cpu, 2026-12-03 is not used" in got.note.en and why in got.note.en


def test_measured_forward_flops_replace_the_formulas_scaled_to_the_planned_length():
    # The formula's forward per token, 2N + 4·L·s·h, N the matmul weights with the LM head;
    # training is 3x the forward (PaLM appendix B).
    n = L * (4 * H * H + 3 * H * FFN) + VOCAB * H
    w = workload({"forward_flops_per_sample": 1e7}, seq_len=64)
    got = plan(w).throughput["flops_per_sample"]
    ratio = 64 * (2 * n + 4 * L * H * 64) / (32 * (2 * n + 4 * L * H * 32))
    assert got.value == pytest.approx(3 * 1e7 * ratio, rel=1e-12)
    assert got.note.en.startswith("measured on cpu, 2026-12-03: forward 0.010 GFLOP/sample")
    # With checkpointing (measured so too), the recompute: 4 forwards.
    w = workload({"forward_flops_per_sample": 1e7, "measured_checkpointing": True},
                 checkpointing=True)
    assert plan(w).throughput["flops_per_sample"].value == pytest.approx(4 * 1e7, rel=1e-12)


def test_a_figure_without_a_measurement_context_leaves_a_transformers_formula():
    doc = workload(None).to_dict()
    doc["activation_bytes_per_sample"] = 600_000.0
    assert activations(Workload.from_dict(doc)).value == activations(workload(None)).value
