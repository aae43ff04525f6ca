"""Activations: Korthikanti's table, the calibration column a workload uses, the per-family
corrections, the training and inference working sets, checkpointing's segments and the LM
head's backward transient, with bytes worked out in the test (mutation testing, issue 28).

Rules: docs/estimation.md sec. 2.2-2.4 (Korthikanti et al. arXiv 2205.05198 Table 2: per layer
sbh (34 + 5as/h); TP: sbh (10 + 24/t + 5as/(ht)); sequence parallel: sbh (34 + 5as/h) / t;
selective recompute 34 sbh / t; full recompute 2 sbh; the measured per-token coefficients of
resources/model_presets.json's calibration, read here through presets.TransformerCal; sdpa
keeps grouped K/V at the KV width; gelu_new keeps three more FFN-wide tensors;
checkpoint_sequential's sqrt(n) segments, Chen et al.; chunked prefill of 2048 tokens).
Shapes: GPT-2 small 12 x 768, 12 heads, vocabulary 50257; Llama-3-8B 32 x 4096, 32 heads, 8 KV
heads of 128, vocabulary 128256 (Hugging Face configs).
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from torchrig.planning import diffusion
from torchrig.planning.presets import get_preset, load_calibration
from torchrig.planning.requirements.activations import (
    _checkpoint_segments,
    cal_precision,
    head_kind,
    inference_activations,
    korthikanti_layer_bytes,
    layer_bytes_per_token,
    training_activations,
    transformer_activations,
    vision_activations,
)
from torchrig.planning.workload import default_workload, resolve_model, workload_from_options
from torchrig.units import fmt_gib

CAL = load_calibration()
# The calibration's GPT block (fused tanh GELU): the preset's gelu_new adds its own term,
# tested on its own above (test_cfg24_presets.py checks the preset against its config).
GPT2 = dataclasses.replace(get_preset("gpt2").arch, activation="")
LLAMA3 = get_preset("llama-3-8b").arch


def _gpt(**changes):
    base = workload_from_options(task="nlp_transformer", model="gpt2", mode="train", batch=4,
                                 seq_len=1024, precision="amp_fp16")
    return dataclasses.replace(base, **changes)


def _llama(**changes):
    return dataclasses.replace(default_workload("llm_inference"), **changes)


# --------------------------------------------------------------------------- Korthikanti


def test_korthikanti_without_attention_scores():
    s, b, h, a = 2048, 1, 12288, 96
    sbh = s * b * h
    # 5as/h = 5 x 96 x 2048 / 12288 = 80
    assert korthikanti_layer_bytes(s, b, h, a) == sbh * (34 + 80)
    assert korthikanti_layer_bytes(s, b, h, a, attention_scores=False) == 34 * sbh
    assert korthikanti_layer_bytes(s, b, h, a, tp=8, attention_scores=False) == sbh * (10 + 3)
    assert korthikanti_layer_bytes(s, b, h, a, tp=8, sequence_parallel=True,
                                   attention_scores=False) == sbh * 34 / 8
    assert korthikanti_layer_bytes(s, b, h, a, sequence_parallel=True) == sbh * (34 + 80)
    assert korthikanti_layer_bytes(s, b, h, a, recompute="selective") == 34 * sbh
    assert korthikanti_layer_bytes(s, 2, h, a, tp=4, recompute="full") == 2 * s * 2 * h


# --------------------------------------------------------------------------- column and head


@pytest.mark.parametrize(("precision", "mode", "column"), [
    ("fp32", "train", "fp32"), ("tf32", "train", "fp32"), ("amp_fp16", "train", "amp"),
    ("amp_bf16", "infer", "amp"), ("bf16", "train", "bf16"), ("bf16", "infer", "bf16"),
    ("int8", "infer", "bf16"), ("int4", "infer", "bf16"),
    ("int4", "finetune", "amp"),  # QLoRA: the quantized base computes under autocast
])
def test_calibration_column(precision, mode, column):
    w = dataclasses.replace(default_workload("llm_finetune_lora"), precision=precision, mode=mode)
    assert cal_precision(w) == column


def test_head_kind():
    bert = default_workload("nlp_transformer")
    arch = get_preset("bert-base").arch
    assert head_kind(bert, arch) == "cls"
    assert head_kind(dataclasses.replace(bert, mode="train"), arch) == "lm"
    assert head_kind(dataclasses.replace(bert, mode="finetune"), GPT2) == "lm"


# --------------------------------------------------------------------------- per-token fixes


def test_sdpa_keeps_grouped_kv_at_the_kv_width():
    w = _llama(mode="train", precision="amp_bf16")
    tc = CAL.transformer_cal("llama", "sdpa", "lm", "amp")
    per_token, fixes = layer_bytes_per_token(w, LLAMA3, tc, 4096)
    # 2 tensors (K, V) x 2 B x (4096 - 1024) dropped per token
    assert per_token == tc.layer_bytes_per_token(LLAMA3, 4096) - 2 * 2 * (4096 - 1024)
    assert (fixes.en, fixes.zh) == ("sdpa keeps grouped K/V at the KV width",
                                    "sdpa 以 KV 宽度保存分组 K/V")
    fp32 = dataclasses.replace(w, precision="fp32")
    tc32 = CAL.transformer_cal("llama", "sdpa", "lm", "fp32")
    assert layer_bytes_per_token(fp32, LLAMA3, tc32, 4096)[0] == \
        tc32.layer_bytes_per_token(LLAMA3, 4096) - 2 * 4 * (4096 - 1024)
    eager = dataclasses.replace(w, attention="eager")
    tce = CAL.transformer_cal("llama", "eager", "lm", "amp")
    per_token, fixes = layer_bytes_per_token(eager, LLAMA3, tce, 4096)
    assert per_token == tce.layer_bytes_per_token(LLAMA3, 4096)
    assert (fixes.en, fixes.zh) == ("", "")
    mha = dataclasses.replace(LLAMA3, kv_heads=32)  # no grouping, nothing to correct
    assert layer_bytes_per_token(w, mha, tc, 4096)[0] == tc.layer_bytes_per_token(mha, 4096)


def test_gelu_new_keeps_three_more_ffn_wide_tensors():
    arch = dataclasses.replace(GPT2, activation="gelu_new")
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    per_token, fixes = layer_bytes_per_token(_gpt(), arch, tc, 1024)
    assert per_token == tc.layer_bytes_per_token(arch, 1024) + 3 * 2 * 3072
    assert (fixes.en, fixes.zh) == ("gelu_new keeps 3 more FFN-wide tensors",
                                    "激活函数 'gelu_new' 额外保存 3 个 FFN 宽度的张量")
    tc32 = CAL.transformer_cal("gpt", "sdpa", "lm", "fp32")
    assert layer_bytes_per_token(_gpt(precision="fp32"), arch, tc32, 1024)[0] == \
        tc32.layer_bytes_per_token(arch, 1024) + 3 * 4 * 3072
    both = dataclasses.replace(LLAMA3, activation="gelu_new")
    w = _llama(mode="train", precision="amp_bf16")
    tcl = CAL.transformer_cal("llama", "sdpa", "lm", "amp")
    per_token, fixes = layer_bytes_per_token(w, both, tcl, 512)
    assert per_token == tcl.layer_bytes_per_token(both, 512) - 2 * 2 * 3072 + 3 * 2 * 14336
    assert fixes.en == "sdpa keeps grouped K/V at the KV width; gelu_new keeps 3 more " \
        "FFN-wide tensors"
    assert fixes.zh == ("sdpa 以 KV 宽度保存分组 K/V；激活函数 'gelu_new' 额外保存 3 个 "
                        "FFN 宽度的张量")


# --------------------------------------------------------------------------- training, transformers


def _gpt_parts(w, tc, seq=1024, b=4):
    """The pieces of GPT-2's figure, by the rules in the module docstring."""
    layer = tc.layer_bytes_per_token(GPT2, seq) * seq * b
    outside = tc.outside_bytes_per_sequence(GPT2, seq) * b
    return layer, outside


def test_gpt2_amp_training_item_by_item():
    w = _gpt()
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    layer, outside = _gpt_parts(w, tc)
    # autocast's 16-bit copy of every matmul weight: 12 x (4 x 768^2 + 2 x 768 x 3072) + the
    # tied head 50257 x 768, 2 B each
    copies = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 50257 * 768)
    acts = transformer_activations(w, GPT2, 1024, CAL, checkpointing=False)
    assert acts.bytes == pytest.approx(12 * layer + outside + copies, rel=1e-12)
    assert acts.without_checkpointing == acts.bytes
    # fp32 gradient of the fp32 logits + its 16-bit cast: 4 x 1024 x 50257 x (4 + 2)
    assert acts.transient == 4 * 1024 * 50257 * 6
    assert acts.note.en.startswith(f"measured {tc.layer_bytes_per_token(GPT2, 1024):,.0f} "
                                   "B/token/layer (GPT, SDPA, AMP) x 1024 tokens x batch 4 x 12 "
                                   "layers + embeddings/head ")
    assert "of 16-bit autocast weight copies)" in acts.note.en
    assert "Korthikanti's 16-bit minimum" in acts.note.en
    assert "16 位 autocast 权重副本" in acts.note.zh


def test_gpt2_checkpointing_keeps_layer_inputs_and_one_layer():
    w = _gpt(precision="fp32")
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "fp32")
    layer, outside = _gpt_parts(w, tc)
    acts = transformer_activations(w, GPT2, 1024, CAL, checkpointing=True)
    boundary = tc.layer_input_bytes_per_hidden * 768 * 1024 * 4
    assert acts.bytes == pytest.approx(12 * boundary + layer + outside, rel=1e-12)
    assert acts.without_checkpointing == pytest.approx(12 * layer + outside, rel=1e-12)
    assert acts.transient == 4 * 1024 * 50257 * 4  # fp32: no cast
    assert "; checkpointing: each layer keeps only its input, one layer is recomputed at a " \
        "time; Korthikanti" in acts.note.en
    assert "autocast" not in acts.note.en  # fp32 keeps no copies
    minimum = 12 * 2 * 1024 * 4 * 768  # full recompute: 2 sbh per layer
    assert acts.note.en.endswith(f"Korthikanti's 16-bit minimum {minimum / 2**20:.1f} MiB")


def test_bf16_and_zero_and_lora_keep_no_autocast_copies():
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "bf16")
    layer, outside = _gpt_parts(_gpt(), tc)
    bf16 = transformer_activations(_gpt(precision="bf16"), GPT2, 1024, CAL, False)
    assert bf16.bytes == pytest.approx(12 * layer + outside, rel=1e-12)
    assert bf16.transient == 4 * 1024 * 50257 * (4 + 2)
    tca = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    layer, outside = _gpt_parts(_gpt(), tca)
    for strategy in ("zero1", "zero2", "zero3"):
        zero = transformer_activations(_gpt(strategy=strategy), GPT2, 1024, CAL, False)
        assert zero.bytes == pytest.approx(12 * layer + outside, rel=1e-12), strategy
    lora = dataclasses.replace(default_workload("llm_finetune_lora"), gradient_checkpointing=False)
    tcl = CAL.transformer_cal("llama", "sdpa", "lm", "amp")
    arch = get_preset("llama-2-7b").arch
    acts = transformer_activations(lora, arch, 2048, CAL, False)
    per_token = tcl.layer_bytes_per_token(arch, 2048)  # MHA: no sdpa correction
    assert acts.bytes == pytest.approx(
        32 * per_token * 2048 * 4 + tcl.outside_bytes_per_sequence(arch, 2048) * 4, rel=1e-12)


def test_tensor_parallel_scales_the_layer_by_korthikantis_ratio():
    w = _gpt(strategy="tensor_parallel", tp_size=4, gpus_per_node=4)
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    layer, outside = _gpt_parts(w, tc)
    copies = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 50257 * 768) / 4
    acts = transformer_activations(w, GPT2, 1024, CAL, False)
    # sdpa stores no scores: (10 + 24/4) / 34
    assert acts.bytes == pytest.approx(12 * layer * 16 / 34 + outside + copies, rel=1e-12)
    assert "; x Korthikanti's TP ratio for t=4" in acts.note.en
    assert "乘以 Korthikanti 张量并行比例（t=4）" in acts.note.zh
    eager = dataclasses.replace(w, attention="eager")
    tce = CAL.transformer_cal("gpt", "eager", "lm", "amp")
    layer, outside = _gpt_parts(eager, tce)
    scores = 5 * 12 * 1024 / 768  # 5as/h = 80
    ratio = (10 + 24 / 4 + scores / 4) / (34 + scores)
    acts = transformer_activations(eager, GPT2, 1024, CAL, False)
    assert acts.bytes == pytest.approx(12 * layer * ratio + outside + copies, rel=1e-12)


def test_pipeline_note_and_copies_split_over_the_stages():
    # 1F1B: the first stage runs min(m, p) forwards before its first backward, each over L/p
    # layers: with m >= p all 12 layers' worth, with one micro-batch a step half of it.
    w = _gpt(strategy="pipeline_parallel", pp_size=2, gpus_per_node=2, grad_accumulation=2)
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    layer, outside = _gpt_parts(w, tc)
    copies = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 50257 * 768) / 2
    acts = transformer_activations(w, GPT2, 1024, CAL, False)
    assert acts.bytes == pytest.approx(12 * layer + outside + copies, rel=1e-12)
    assert "; 1F1B pipeline: the first stage holds 2 micro-batches of 6 layers = all layers' " \
        "worth (Korthikanti sec. 4.2.3)" in acts.note.en
    assert "1F1B 流水线：第一阶段保存 2 个微批次 × 6 层" in acts.note.zh
    one = transformer_activations(dataclasses.replace(w, grad_accumulation=1), GPT2, 1024, CAL,
                                  False)
    assert one.bytes == pytest.approx(6 * layer + outside + copies, rel=1e-12)
    assert "; 1F1B pipeline: the first stage holds 1 micro-batch of 6 layers = 1/2 of all " \
        "layers' worth (only 1 micro-batch a step) (Korthikanti sec. 4.2.3)" in one.note.en
    assert "第一阶段保存 1 个微批次 × 6 层 = 全部层的 1/2（每步只有 1 个微批次）" in one.note.zh
    # four stages, three micro-batches: 3 of 3 layers each = 9 of 12
    four = transformer_activations(dataclasses.replace(w, pp_size=4, gpus_per_node=4,
                                                       grad_accumulation=3), GPT2, 1024, CAL,
                                   False)
    assert four.bytes == pytest.approx(9 * layer + outside + copies / 2, rel=1e-12)


def test_bert_masked_lm_under_amp_keeps_the_fp32_logits_too():
    arch = get_preset("bert-base").arch
    w = dataclasses.replace(default_workload("nlp_transformer"), mode="train")  # amp_fp16
    tc = CAL.transformer_cal("bert", "sdpa", "lm", "amp")
    layer = tc.layer_bytes_per_token(arch, 128) * 128 * 32
    # + BertForMaskedLM's head transform (dense, GELU, LayerNorm) under autocast:
    # 2 + 4 + 2 bytes per hidden unit and 8 B of LayerNorm statistics per token
    outside = (tc.outside_bytes_per_sequence(arch, 128) + 2.0 * 30522 * 128
               + (8 * 768 + 8) * 128) * 32
    copies = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 30522 * 768)
    acts = transformer_activations(w, arch, 128, CAL, False)
    assert acts.bytes == pytest.approx(12 * layer + outside + copies, rel=1e-12)
    # a fine-tuned classifier has no LM head: no extra, no transient
    tuned = default_workload("nlp_transformer")
    tcc = CAL.transformer_cal("bert", "sdpa", "cls", "amp")
    acts = transformer_activations(tuned, arch, 128, CAL, False)
    copies = 2.0 * 12 * (4 * 768**2 + 2 * 768 * 3072)
    assert acts.bytes == pytest.approx(
        12 * tcc.layer_bytes_per_token(arch, 128) * 128 * 32
        + tcc.outside_bytes_per_sequence(arch, 128) * 32 + copies, rel=1e-12)
    assert acts.transient == 0.0
    # fp32 masked LM: no extra cast
    fp32 = dataclasses.replace(w, precision="fp32")
    tcf = CAL.transformer_cal("bert", "sdpa", "lm", "fp32")
    acts = transformer_activations(fp32, arch, 128, CAL, False)
    assert acts.bytes == pytest.approx(
        12 * tcf.layer_bytes_per_token(arch, 128) * 128 * 32
        + (tcf.outside_bytes_per_sequence(arch, 128) + (12 * 768 + 8) * 128) * 32, rel=1e-12)


def test_uncalibrated_transformer_is_unknown():
    acts = transformer_activations(_gpt(), GPT2, 1024, None, False)
    assert acts.bytes is None
    assert acts.note.en == "not calibrated for this architecture: run " \
        "scripts/calibrate_activations.py"
    assert acts.note.zh == "该结构未校准：请运行 scripts/calibrate_activations.py"
    odd = dataclasses.replace(GPT2, style="t5")
    assert transformer_activations(_gpt(), odd, 1024, CAL, False).bytes is None


# --------------------------------------------------------------------------- vision


def test_checkpoint_segments_by_hand():
    units = ((10, 1), (20, 2), (30, 3), (40, 4))
    # 4 units: 2 segments of 2; first segment's input 1 + max(last 30 + 40, largest 10 + 20)
    assert _checkpoint_segments(units, 1.0, per_block=False) == 1 + 70
    assert _checkpoint_segments(units, 2.0, per_block=False) == 2 * 71
    # every block keeps its input (1 + 2 + 3 + 4) + one block recomputed (40)
    assert _checkpoint_segments(units, 1.0, per_block=True) == 10 + 40
    assert _checkpoint_segments(units, 3.0, per_block=True) == 150
    # 5 units: round(sqrt 5) = 2 segments of ceil(5/2) = 3: inputs 1, max(40 + 50, 10+20+30)
    five = units + ((50, 5),)
    assert _checkpoint_segments(five, 1.0, per_block=False) == 1 + 90
    # a large first segment is the one recomputed
    big_first = ((100, 1), (100, 1), (1, 1), (1, 1))
    assert _checkpoint_segments(big_first, 1.0, per_block=False) == 1 + 200
    # 9 units: 3 segments of 3; inputs of the first two segments
    nine = tuple((10 * (i + 1), i + 1) for i in range(9))
    assert _checkpoint_segments(nine, 1.0, per_block=False) == (1 + 4) + (70 + 80 + 90)
    # never more than keeping everything
    wide_inputs = ((1, 100), (1, 100), (1, 100), (1, 100))
    assert _checkpoint_segments(wide_inputs, 1.0, per_block=False) == 4
    one = ((7, 3),)
    assert _checkpoint_segments(one, 1.0, per_block=False) == 7
    assert _checkpoint_segments((), 1.0, per_block=True) == 0.0
    assert _checkpoint_segments((), 1.0, per_block=False) == 0.0


def test_resnet50_amp_training_scaled_by_area():
    w = default_workload("image_classification")  # batch 256, 224 px, AMP
    pc = CAL.vision["resnet50"].precisions["amp"]
    acts = vision_activations(w, resolve_model(w), CAL, False)
    assert acts.bytes == 43_757_568 * 256 + 51_218_304 == pc.bytes_per_sample * 256 \
        + pc.bytes_per_step
    assert acts.note.en == ("measured 41.7 MiB/sample at 224px (AMP), scaled by image area to "
                            "224px, x batch 256 + 48.8 MiB per step (autocast weight copies, "
                            "norm statistics)")
    big = dataclasses.replace(w, image_size=448, batch_size=8)
    acts = vision_activations(big, resolve_model(big), CAL, False)
    assert acts.bytes == 43_757_568 * 4 * 8 + 51_218_304
    ck = vision_activations(big, resolve_model(big), CAL, True)
    assert ck.bytes == _checkpoint_segments(pc.units, 4.0, False) * 8 + 51_218_304
    assert ck.without_checkpointing == 43_757_568 * 4 * 8 + 51_218_304
    assert ck.note.en.endswith("; checkpoint_sequential with sqrt(n) segments (Chen et al.)")
    assert ck.note.zh.endswith("；checkpoint_sequential 分 √n 段")


def test_vit_scales_by_token_count_and_checkpoints_per_block():
    w = dataclasses.replace(default_workload("image_classification"), model="vit-b-16",
                            image_size=384, batch_size=2, precision="fp32")
    pc = CAL.vision["vit-b-16"].precisions["fp32"]
    scale = ((384 // 16) ** 2 + 1) / ((224 // 16) ** 2 + 1)  # 577 / 197 tokens
    acts = vision_activations(w, resolve_model(w), CAL, False)
    assert acts.bytes == pytest.approx(118_160_680 * scale * 2, rel=1e-12)
    assert "scaled by token count to 384px" in acts.note.en
    assert "按 token 数缩放至 384px" in acts.note.zh
    assert " per step" not in acts.note.en  # fp32 ViT: no per-step bytes
    ck = vision_activations(w, resolve_model(w), CAL, True)
    assert ck.bytes == pytest.approx(_checkpoint_segments(pc.units, scale, True) * 2, rel=1e-12)
    assert ck.note.en.endswith("; checkpointing per block")
    assert ck.note.zh.endswith("；逐块检查点")


def test_published_vision_figure_and_your_own():
    w = default_workload("detection_segmentation")  # Faster R-CNN, batch 2, 800 px
    acts = vision_activations(w, resolve_model(w), CAL, False)
    assert acts.bytes == 1_360_081_020 * 2
    assert acts.note.en.startswith("published figure 1.3 GiB/image at 800px (see the preset's "
                                   "source), scaled by image area to 800px, x batch 2")
    small = dataclasses.replace(w, image_size=400, gradient_checkpointing=True)
    acts = vision_activations(small, resolve_model(small), CAL, True)
    assert acts.bytes == 1_360_081_020 / 4 * 2
    assert acts.note.en.endswith("; checkpointing not modelled for this model")
    assert acts.note.zh.endswith("；此模型未建模检查点")
    own = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                                image_size=64)
    own = dataclasses.replace(own, activation_bytes_per_sample=1000.0, batch_size=3)
    acts = vision_activations(own, resolve_model(own), CAL, False)
    assert acts.bytes == 3000.0 == acts.without_checkpointing
    assert acts.note.en.startswith("your figure ")
    none = dataclasses.replace(own, activation_bytes_per_sample=None)
    acts = vision_activations(none, resolve_model(none), CAL, False)
    assert acts.bytes is None
    assert acts.note.en.startswith("unknown for a custom model: give activation_bytes_per_sample")


def test_training_activations_route_by_family():
    other = workload_from_options(task="nlp_transformer", model="custom", params=5_000_000,
                                  seq_len=128)
    own = dataclasses.replace(other, activation_bytes_per_sample=500.0, batch_size=4)
    acts = training_activations(own, resolve_model(own), CAL)
    assert acts.bytes == 2000.0 == acts.without_checkpointing
    assert (acts.note.en, acts.note.zh) == ("your figure x batch", "你提供的数值 × 批大小")
    acts = training_activations(other, resolve_model(other), CAL)
    assert acts.bytes is None
    assert acts.note.en == "unknown: give activation_bytes_per_sample for a custom model"
    gpt = _gpt()
    assert training_activations(gpt, resolve_model(gpt), CAL) == \
        transformer_activations(gpt, get_preset("gpt2").arch, 1024, CAL, False)
    sd = default_workload("image_generation")
    saved, full, note = diffusion.training_activation_bytes(sd, get_preset("sd-1.5"), "amp")
    acts = training_activations(sd, resolve_model(sd), CAL)
    assert (acts.bytes, acts.without_checkpointing, acts.note) == (saved, full, note)
    r50 = default_workload("image_classification")
    assert training_activations(r50, resolve_model(r50), CAL).bytes == 43_757_568 * 256 \
        + 51_218_304


# --------------------------------------------------------------------------- inference


def test_llm_inference_prefills_in_chunks():
    w = _llama(batch_size=2)  # 2 x 4096 prompt tokens, bf16
    tc = CAL.transformer_cal("llama", "sdpa", "lm", "bf16")
    per_token = tc.layer_bytes_per_token(LLAMA3, 4096) - 2 * 2 * (4096 - 1024)
    acts = inference_activations(w, resolve_model(w), CAL)
    # one layer's tensors for a 2048-token chunk + fp32 logits of the last position
    assert acts.bytes == pytest.approx(per_token * 2048 + 2 * 128256 * 4, rel=1e-12)
    assert acts.note.en.startswith("chunked prefill: 2,048 of the 8,192 prompt tokens at a "
                                   "time: one layer's tensors (")
    assert acts.note.zh.startswith("分块预填充：每次处理 8,192 个提示 token 中的 2,048 个")
    short = _llama(seq_len=512, batch_size=2, strategy="tensor_parallel", tp_size=2,
                   gpus_per_node=2)
    per_token = tc.layer_bytes_per_token(LLAMA3, 512) - 2 * 2 * (4096 - 1024)
    acts = inference_activations(short, resolve_model(short), CAL)
    assert acts.bytes == pytest.approx(per_token * 1024 / 2 + 2 * 128256 * 4, rel=1e-12)
    assert acts.note.en.startswith("prefill of 512 tokens x batch 2: one layer's tensors")
    fp32 = _llama(precision="fp32", seq_len=2048)
    tc32 = CAL.transformer_cal("llama", "sdpa", "lm", "fp32")
    per_token = tc32.layer_bytes_per_token(LLAMA3, 2048) - 2 * 4 * (4096 - 1024)
    acts = inference_activations(fp32, resolve_model(fp32), CAL)
    assert acts.bytes == pytest.approx(per_token * 2048 + 128256 * 4, rel=1e-12)


def test_an_encoder_is_not_chunked():
    w = dataclasses.replace(default_workload("nlp_transformer"), mode="infer", batch_size=64,
                            precision="bf16")  # 64 x 128 = 8192 tokens
    arch = get_preset("bert-base").arch
    tc = CAL.transformer_cal("bert", "sdpa", "lm", "bf16")
    acts = inference_activations(w, resolve_model(w), CAL)
    assert acts.bytes == pytest.approx(tc.layer_bytes_per_token(arch, 128) * 8192
                                       + 64 * 30522 * 4, rel=1e-12)
    assert acts.note.en.startswith("prefill of 128 tokens x batch 64")
    assert inference_activations(w, resolve_model(w), None).bytes is None
    assert inference_activations(w, resolve_model(w), None).note.en == "not calibrated"


def test_vision_inference_keeps_the_largest_block():
    w = dataclasses.replace(default_workload("image_classification"), mode="infer",
                            batch_size=4, image_size=448, precision="bf16")
    pc = CAL.vision["resnet50"].precisions["bf16"]
    largest = max(u[0] + u[1] for u in pc.units)
    acts = inference_activations(w, resolve_model(w), CAL)
    assert acts.bytes == largest * 4 * 4
    assert acts.note.en == ("largest block's tensors and input, measured at 224px, x batch 4 "
                            "(upper bound)")
    custom = workload_from_options(task="image_classification", model="custom",
                                   params=5_000_000, image_size=64, mode="infer")
    acts = inference_activations(custom, resolve_model(custom), CAL)
    assert acts.bytes is None
    assert (acts.note.en, acts.note.zh) == ("unknown for a custom model", "自定义模型未知")
    assert inference_activations(w, resolve_model(w), None).bytes is None


def test_diffusion_inference_goes_to_the_diffusion_module():
    w = dataclasses.replace(default_workload("image_generation"), mode="infer",
                            gradient_checkpointing=False)
    expected = diffusion.inference_activation_bytes(w, get_preset("sd-1.5"), "amp")
    acts = inference_activations(w, resolve_model(w), CAL)
    assert (acts.bytes, acts.note) == expected[:2]
    assert math.isfinite(acts.bytes)


# --------------------------------------------------------------------------- second round


def test_tensor_parallel_eager_note_in_full():
    w = _gpt(attention="eager", strategy="tensor_parallel", tp_size=2, gpus_per_node=2)
    tc = CAL.transformer_cal("gpt", "eager", "lm", "amp")
    per_token = tc.layer_bytes_per_token(GPT2, 1024)
    copies = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 50257 * 768) / 2
    outside = tc.outside_bytes_per_sequence(GPT2, 1024) * 4 + copies
    # Korthikanti, TP 2 with scores 5as/h = 80: sbh (10 + 24/2 + 80/2) per layer
    minimum = 12 * 1024 * 4 * 768 * (10 + 12 + 40)
    acts = transformer_activations(w, GPT2, 1024, CAL, False)
    assert acts.note.en == (
        f"measured {per_token:,.0f} B/token/layer (GPT, EAGER, AMP) x 1024 tokens x batch 4 x 12 "
        f"layers + embeddings/head {fmt_gib(outside)} (incl. {fmt_gib(copies)} of 16-bit "
        f"autocast weight copies); x Korthikanti's TP ratio for t=2; Korthikanti's 16-bit "
        f"minimum {fmt_gib(minimum)}")
    assert acts.note.zh == (
        f"实测每层每 token {per_token:,.0f} 字节（GPT, EAGER, AMP）× 1024 token × 批大小 4 × 12 层 "
        f"+ 嵌入/输出头 {fmt_gib(outside)}（含 {fmt_gib(copies)} 的 16 位 autocast 权重副本）"
        f"；乘以 Korthikanti 张量并行比例（t=2）；Korthikanti 16 位理论下限 {fmt_gib(minimum)}")
    sdpa = dataclasses.replace(w, attention="sdpa")
    minimum = 12 * 1024 * 4 * 768 * (10 + 12)  # no scores stored
    assert transformer_activations(sdpa, GPT2, 1024, CAL, False).note.en.endswith(
        f"Korthikanti's 16-bit minimum {fmt_gib(minimum)}")


def test_pipeline_checkpointing_note_in_full():
    w = _llama(mode="train", precision="amp_bf16", strategy="pipeline_parallel", pp_size=2,
               gpus_per_node=2, seq_len=1024, grad_accumulation=4)
    tc = CAL.transformer_cal("llama", "sdpa", "lm", "amp")
    per_token = tc.layer_bytes_per_token(LLAMA3, 1024) - 2 * 2 * (4096 - 1024)
    copies = 2.0 * (LLAMA3.total_matmul_params() + 128256 * 4096) / 2
    outside = tc.outside_bytes_per_sequence(LLAMA3, 1024) + copies
    minimum = 32 * 2 * 1024 * 1 * 4096  # full recompute: 2 sbh per layer
    acts = transformer_activations(w, LLAMA3, 1024, CAL, True)
    assert acts.note.en == (
        f"measured {per_token:,.0f} B/token/layer (LLAMA, SDPA, AMP) x 1024 tokens x batch 1 x "
        f"32 layers + embeddings/head {fmt_gib(outside)} (incl. {fmt_gib(copies)} of 16-bit "
        "autocast weight copies); 1F1B pipeline: the first stage holds 2 micro-batches of 16 "
        "layers = all layers' worth (Korthikanti sec. 4.2.3); checkpointing: each layer keeps "
        "only its input, one layer is recomputed at a time; sdpa keeps grouped K/V at the KV "
        f"width; Korthikanti's 16-bit minimum {fmt_gib(minimum)}")
    assert acts.note.zh == (
        f"实测每层每 token {per_token:,.0f} 字节（LLAMA, SDPA, AMP）× 1024 token × 批大小 1 "
        "× 32 层 "
        f"+ 嵌入/输出头 {fmt_gib(outside)}（含 {fmt_gib(copies)} 的 16 位 autocast 权重副本）"
        "；1F1B 流水线：第一阶段保存 2 个微批次 × 16 层 = 全部层的量（Korthikanti 4.2.3 节）"
        "；检查点：每层只保存输入，反向时每次重算一层；sdpa 以 KV 宽度保存分组 K/V"
        f"；Korthikanti 16 位理论下限 {fmt_gib(minimum)}")
    plain = transformer_activations(_gpt(precision="bf16"), GPT2, 1024, CAL, False)
    assert "autocast" not in plain.note.en and "Korthikanti's TP" not in plain.note.en
    assert "pipeline" not in plain.note.en and "checkpointing" not in plain.note.en
    assert "流水线" not in plain.note.zh and "检查点" not in plain.note.zh


def test_vision_notes_in_chinese_and_the_vit_route():
    w = default_workload("image_classification")
    acts = vision_activations(w, resolve_model(w), CAL, False)
    assert acts.note.zh == ("实测 224px 下每样本 41.7 MiB（AMP），按图像面积缩放至 224px，"
                            "× 批大小 256"
                            " + 每步 48.8 MiB（autocast 权重副本、归一化统计量）")
    fp32 = dataclasses.replace(w, precision="fp32")
    note = vision_activations(fp32, resolve_model(fp32), CAL, False).note
    # ResNet-50's fp32 per-step bytes: 212,480 (calibration)
    assert note.en.endswith(f"x batch 256 + {fmt_gib(212_480)} per step (autocast weight "
                            "copies, norm statistics)")
    vit = dataclasses.replace(w, model="vit-b-16", precision="fp32", image_size=384,
                              batch_size=2)
    assert training_activations(vit, resolve_model(vit), CAL) == \
        vision_activations(vit, resolve_model(vit), CAL, False)
    assert vision_activations(vit, resolve_model(vit), CAL, False).note.zh.endswith(
        "按 token 数缩放至 384px，× 批大小 2")


def test_more_checkpoint_segments():
    # 2 units: round(sqrt 2) = 1 segment, nothing checkpointed: the whole 30
    assert _checkpoint_segments(((10, 1), (20, 2)), 1.0, per_block=False) == 30
    # a large middle segment is the one recomputed: inputs 1 + 1, the middle 300
    mid = ((1, 1), (1, 1), (1, 1), (100, 1), (100, 1), (100, 1), (1, 1), (1, 1), (1, 1))
    assert _checkpoint_segments(mid, 1.0, per_block=False) == 2 + 300


def test_uncalibrated_notes_in_chinese():
    det = default_workload("detection_segmentation")
    acts = vision_activations(det, resolve_model(det), CAL, False)
    assert acts.note.zh == ("公开数据每图 1.3 GiB（800px，见预设来源），按面积缩放至 800px，"
                            "× 批大小 2")
    assert acts.note.en.endswith("x batch 2")
    own = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                                image_size=64)
    own = dataclasses.replace(own, activation_bytes_per_sample=1024.0, batch_size=3)
    note = vision_activations(own, resolve_model(own), CAL, False).note
    assert (note.en, note.zh) == (f"your figure {fmt_gib(1024.0)}/sample x batch 3",
                                  f"你提供的每样本 {fmt_gib(1024.0)} × 批大小 3")
    none = dataclasses.replace(own, activation_bytes_per_sample=None)
    note = vision_activations(none, resolve_model(none), CAL, False).note
    assert note.en == ("unknown for a custom model: give activation_bytes_per_sample (measure it "
                       "with scripts/calibrate_activations.py's method)")
    assert note.zh == "自定义模型未知：请提供 activation_bytes_per_sample（可用校准脚本的方法测量）"
    other = workload_from_options(task="nlp_transformer", model="custom", params=5_000_000,
                                  seq_len=128)
    assert training_activations(other, resolve_model(other), CAL).note.zh == \
        "未知：自定义模型请提供 activation_bytes_per_sample"


def test_inference_notes_in_chinese():
    w = _llama(batch_size=2)
    tc = CAL.transformer_cal("llama", "sdpa", "lm", "bf16")
    layer = (tc.layer_bytes_per_token(LLAMA3, 4096) - 2 * 2 * (4096 - 1024)) * 2048
    note = inference_activations(w, resolve_model(w), CAL).note
    assert note.en == (f"chunked prefill: 2,048 of the 8,192 prompt tokens at a time: one "
                       f"layer's tensors ({fmt_gib(layer)}, upper bound from the training "
                       "measurement) + fp32 logits of the last position")
    assert note.zh == (f"分块预填充：每次处理 8,192 个提示 token 中的 2,048 个：一层的张量"
                       f"（{fmt_gib(layer)}，由训练实测给出的上界）+ 最后位置的 fp32 logits")
    r50 = dataclasses.replace(default_workload("image_classification"), mode="infer",
                              batch_size=4, image_size=448)
    assert inference_activations(r50, resolve_model(r50), CAL).note.zh == \
        "最大模块的张量及输入（224px 实测）× 批大小 4（上界）"
    bert = dataclasses.replace(default_workload("nlp_transformer"), mode="infer")
    assert inference_activations(bert, resolve_model(bert), None).note.zh == "未校准"
