"""torchrig verify --apply then torchrig plan --workload: the plan re-made with what was
measured. Expected figures come from verify's JSON (the saved bytes it counted, its FLOPs) and
from the calibration's coefficients in resources/model_presets.json, computed here - not from
the planner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchrig.cli import main

PRESETS = Path(__file__).resolve().parents[2] / "resources" / "model_presets.json"
GPT2 = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 64, "n_head": 4,
        "n_layer": 2, "n_positions": 64, "vocab_size": 128}
VERIFY = ("--task", "nlp_transformer", "--mode", "train", "--batch", "2", "--seq-len", "32",
          "--precision", "fp32", "--device", "cpu")


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def plan_json(capsys, workload: Path, *flags) -> dict:
    code, out, err = run(capsys, "plan", "--workload", workload, *flags, "--json")
    assert code == 0, err
    return json.loads(out)


def verify_and_apply(capsys, tmp_path: Path, *argv) -> tuple[dict, Path]:
    pytest.importorskip("torch")
    doc_path, out_path = tmp_path / "v.json", tmp_path / "out.json"
    code, _out, err = run(capsys, "verify", *argv, "--json", doc_path, "--apply", out_path)
    assert code == 0, err
    return json.loads(doc_path.read_text()), out_path


def layer_coefficients(key: str) -> dict:
    return json.loads(PRESETS.read_text())["calibration"]["transformer"][key][
        "layer_bytes_per_token"]


@pytest.mark.slow
def test_a_gpt2_config_measured_fused_is_replanned_with_the_measured_bytes(capsys, tmp_path):
    pytest.importorskip("transformers")
    config = tmp_path / "config.json"
    config.write_text(json.dumps(GPT2 | {"attn_pdrop": 0.0}))  # sdpa fused on the CPU too
    doc, applied = verify_and_apply(capsys, tmp_path, "--hf-config", config, *VERIFY)
    assert doc["attention_used"] == "sdpa"
    saved, flops, batch = (doc["saved_for_backward_bytes"], doc["measured"]["forward_flops"],
                           doc["measured"]["batch"])
    assert batch == 2 and saved > 0
    w = json.loads(applied.read_text())
    assert (w["measured_device"], w["measured_attention"], w["measured_precision"],
            w["measured_batch"], w["measured_seq_len"], w["measured_checkpointing"],
            w["measured_date"]) == ("cpu", "sdpa", "fp32", 2, 32, False, doc["date"])
    per_sample = round(saved / batch)  # what --apply writes, a whole number of bytes

    p = plan_json(capsys, applied)
    assert p["vram_per_gpu"]["activations"] == pytest.approx(per_sample * 2, abs=1e-6)
    note = p["vram_per_gpu"]["notes"]["activations"]["en"]
    assert note.startswith(f"measured on cpu, {doc['date']} (sdpa attention, fp32, batch 2, "
                           "32 tokens)")
    fwd = max(1, round(flops / batch))
    assert p["throughput"]["flops_per_sample"] == pytest.approx(3 * fwd, rel=1e-12)

    # Twice the batch and the length: GPT-2's fused form keeps nothing per token pair and
    # nothing per sequence (the coefficients say so), so the bytes are linear in the tokens.
    sdpa = json.loads(PRESETS.read_text())["calibration"]["transformer"]["gpt/sdpa/lm/fp32"]
    assert sdpa["layer_bytes_per_token"]["heads_x_seq"] == 0
    assert sdpa["outside_layers_bytes_per_sequence"] == {"constant": 0.0, "hidden": 0.0}
    p = plan_json(capsys, applied, "--batch", "4", "--seq-len", "64")
    assert p["vram_per_gpu"]["activations"] == pytest.approx(per_sample * 4 * 64 / 32,
                                                            rel=1e-12)
    # The step's text says where the figure came from.
    code, out, _err = run(capsys, "plan", "--workload", applied)
    assert code == 0 and f"measured on cpu, {doc['date']}" in out


@pytest.mark.slow
def test_gpt2_as_shipped_measured_on_the_math_path_is_corrected_for_a_fused_plan(capsys,
                                                                               tmp_path):
    # GPT-2's config as shipped has attn_pdrop 0.1: off CUDA sdpa then takes its math path,
    # which keeps the probabilities; the plan (sdpa, a GPU's fused kernels) does not.
    pytest.importorskip("transformers")
    config = tmp_path / "config.json"
    config.write_text(json.dumps(GPT2))
    doc, applied = verify_and_apply(capsys, tmp_path, "--hf-config", config, *VERIFY)
    assert doc["attention_used"] == "sdpa_math"
    assert json.loads(applied.read_text())["measured_attention"] == "sdpa_math"
    per_sample = round(doc["saved_for_backward_bytes"] / 2)
    # The planner's attention term at 32 tokens, by hand from the calibrated coefficients:
    # layers x tokens x (fused - eager bytes per token); the dropout the config has is the
    # calibrated 0.1 and gelu_new adds the same to both forms, so neither changes the
    # difference.
    fused, eager = layer_coefficients("gpt/sdpa/lm/fp32"), layer_coefficients("gpt/eager/lm/fp32")
    seq, heads, hidden, ffn, layers = 32, 4, 64, 256, 2

    def per_token(c: dict) -> float:
        return (c["constant"] + c["hidden"] * hidden + c["ffn"] * ffn + c["heads"] * heads
                + c["kv_dim"] * hidden + c["heads_x_seq"] * heads * seq)

    term = layers * seq * (per_token(fused) - per_token(eager))
    assert term < 0
    p = plan_json(capsys, applied)
    assert p["vram_per_gpu"]["activations"] == pytest.approx((per_sample + term) * 2,
                                                            rel=1e-12)
    assert "corrected by the planner's attention term" in \
        p["vram_per_gpu"]["notes"]["activations"]["en"]


@pytest.mark.slow
def test_a_torchvision_model_is_replanned_with_the_measured_bytes(capsys, tmp_path):
    # mobilenet_v3_small has no preset: the plan counts it as a custom CNN, whose activations
    # are the workload's figure per sample x batch.
    doc, applied = verify_and_apply(capsys, tmp_path, "--model",
                                    "torchvision:mobilenet_v3_small", "--image-size", "32",
                                    "--batch", "2", "--precision", "fp32", "--device", "cpu")
    if doc["source"]["kind"] != "torchvision":
        pytest.skip(f"torchvision not usable here: {doc['source']}")
    w = json.loads(applied.read_text())
    assert w["model"] == "custom" and w["measured_attention"] is None
    assert w["measured_seq_len"] is None and w["measured_batch"] == 2
    assert w["measured_image_size"] == 32  # the images verify fed
    per_sample = round(doc["saved_for_backward_bytes"] / doc["measured"]["batch"])
    p = plan_json(capsys, applied, "--batch", "8")
    assert p["vram_per_gpu"]["activations"] == pytest.approx(per_sample * 8, rel=1e-12)
    assert p["vram_per_gpu"]["notes"]["activations"]["en"].startswith(
        f"measured on cpu, {doc['date']} (fp32, batch 2, 32px)")
    # planned at 64px a CNN's activations and FLOPs grow with the area: x (64/32)^2 = 4
    big = plan_json(capsys, applied, "--batch", "8", "--image-size", "64")
    assert big["vram_per_gpu"]["activations"] == pytest.approx(per_sample * 8 * 4, rel=1e-12)
    assert "scaled by image area to 64px (x 4)" in big["vram_per_gpu"]["notes"]["activations"]["en"]
    assert big["throughput"]["flops_per_sample"] == pytest.approx(
        4 * p["throughput"]["flops_per_sample"], rel=1e-9)
