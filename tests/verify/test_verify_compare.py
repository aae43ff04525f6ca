"""The comparison rows, flags, text, JSON and feedback of torchrig verify (no torch needed)."""

from __future__ import annotations

import json

import pytest

from torchrig.i18n import Msg
from torchrig.planning.requirements import plan
from torchrig.planning.workload import workload_from_options
from torchrig.verify.compare import Measured, compare, format_text, table


def sample_result(kind: str = "cpu", activations_factor: float = 1.0, custom: bool = False):
    if custom:
        w = workload_from_options(task="image_classification", model="custom",
                                  params=11_689_512, layers=18, image_size=64, batch=4,
                                  precision="fp32", optimizer="sgd_momentum")
    else:
        w = workload_from_options(task="nlp_transformer", model="bert-base", batch=8,
                                  seq_len=128)
    req = plan(w)
    v = req.vram_per_gpu
    acts = (v["activations"].value or 3e6 * 4) * activations_factor
    measured = Measured(
        weights=v["weights"].value, gradients=v["gradients"].value,
        optimizer_states=v["optimizer_states"].value, activations=acts,
        step_peak=None if kind == "cpu" else 5e9, reserved_peak=None if kind == "cpu" else 6e9,
        outside_allocator=None if kind == "cpu" else 5e8, step_s=0.5, forward_flops=4e10,
        saved_bytes=acts, batch=w.batch_size)
    return compare(workload=w, verified=w, requirements=req, measured=measured,
                   device="cpu" if kind == "cpu" else "cuda:0", device_kind=kind,
                   device_name="Test device", torch_version="2.13.0", steps=3,
                   sizes=[(1, 1, 32), (2, 1, 64)], reduction=Msg("reduced", "缩小"),
                   model=Msg("BERT", "BERT"), precision_note="fp32", notes=[],
                   wall_s=12.0, date="2026-12-01")


def test_matching_figures_are_not_flagged():
    r = sample_result()
    for key in ("weights", "gradients", "optimizer_states", "activations"):
        assert r.row(key).diff_percent == pytest.approx(0.0), key
        assert not r.row(key).flagged
    assert r.row("overhead").measured is None  # not on a CPU
    assert r.row("samples_per_s").measured == pytest.approx(8 / 0.5)


def test_a_large_difference_is_flagged_with_its_likely_cause():
    r = sample_result(activations_factor=2.0)
    row = r.row("activations")
    assert row.diff_percent == pytest.approx(100.0)
    assert row.flagged and "kernels" in row.cause.en and row.cause.zh
    assert "reduced copy" in row.cause.en  # the figure was extrapolated
    text = format_text(r)
    assert "(!) Activations" in text and "+100%" in text


def test_cuda_rows_use_reserved_memory_and_the_context():
    r = sample_result("cuda")
    assert r.row("total").measured == pytest.approx(6e9 + 5e8)
    assert r.row("fragmentation").measured == pytest.approx(1e9)
    assert r.row("overhead").measured == pytest.approx(5e8)


def test_feedback_only_for_a_model_the_planner_cannot_size():
    assert sample_result().feedback is None
    fb = sample_result(custom=True).feedback
    assert fb["activation_bytes_per_sample"] == round(3e6 * 4 / 4)
    assert fb["forward_flops_per_sample"] == round(4e10 / 4)
    assert "Test device" in fb["figures_source"]


def test_json_and_chinese_text():
    r = sample_result("cuda")
    doc = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert doc["format"] == "torchrig.verify" and doc["sizes_measured"][1]["seq_len"] == 64
    header, body = table(r, "zh")
    assert header[0] == "项目" and body[0][0] == "权重"
    assert "设备" in format_text(r, "zh")


def test_the_model_source_reads_in_the_sheets_language():
    from torchrig.verify.compare import source_label

    ref = {"kind": "reference", "label": "TorchRig reference model (instead of resnet18)"}
    assert source_label(ref, "en") == "TorchRig reference model (instead of resnet18)"
    assert source_label(ref, "zh") == "TorchRig 参考模型（代替 resnet18）"
    plain = {"kind": "reference", "label": "TorchRig reference model"}
    assert source_label(plain, "zh") == "TorchRig 参考模型"
    # a library class or a factory's file and function reads the same in both languages
    hf = {"kind": "transformers", "label": "transformers GPT2LMHeadModel"}
    assert source_label(hf, "zh") == source_label(hf, "en") == "transformers GPT2LMHeadModel"


def test_every_precision_note_reads_in_chinese_or_is_code():
    # The zh panel printed "精度：CUDA autocast emulated on the CPU (bf16; ...)" in English.
    pytest.importorskip("torch")
    from torchrig.verify.compare import precision_text
    from torchrig.verify.probe import precision_plan

    for precision in ("fp32", "tf32", "amp_fp16", "amp_bf16", "bf16"):
        for kind in ("cpu", "cuda", "mps"):
            note = precision_plan(precision, kind).describe()
            zh = precision_text(note, "zh")
            code = note.startswith("torch.autocast(") or note == "fp32"
            assert code or (zh != note and not any(word in zh for word in
                                                   ("emulated", "model in", "matmuls")))
    assert precision_text("CUDA autocast emulated on the CPU (bf16; fp16 keeps the same sizes)",
                          "zh") == "在 CPU 上模拟 CUDA autocast（bf16；fp16 的大小相同）"
