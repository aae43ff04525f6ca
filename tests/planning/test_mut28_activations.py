"""Activations: the survivors docs/testing.md sec. 8.3 lists as killable by one more test
(issue 28): Korthikanti's TP ratio at t = 2, the inference image scale away from twice the
native size, the ViT token count at a size that is not a multiple of 16, checkpointing routed
from the workload for a vision model, the whole note where there are no autocast copies or no
per-step bytes, and the published figure's "without checkpointing".

Rules (docs/estimation.md sec. 2.2-2.4): Korthikanti et al. (arXiv 2205.05198) Table 2, TP:
sbh (10 + 24/t + 5as/(ht)) against sbh (34 + 5as/h), sdpa storing no scores; a ViT's tokens
are (image // 16)^2 + 1 (the class token); a CNN's working set scales with the image area.
Calibration figures (resources/model_presets.json, read through presets.py, not the module
under test): ViT-B/16 fp32 118,160,680 B/sample at 224 px; Faster R-CNN's published
1,360,081,020 B/image at 800 px. GPT-2 small: 12 layers of 768, 12 heads, FFN 3072,
vocabulary 50257.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.presets import get_preset, load_calibration
from torchrig.planning.requirements.activations import (
    inference_activations,
    training_activations,
    transformer_activations,
    vision_activations,
)
from torchrig.planning.workload import default_workload, resolve_model, workload_from_options
from torchrig.units import fmt_gib

CAL = load_calibration()
# The calibration's GPT block (fused tanh GELU); the preset's gelu_new term is tested in
# test_activations_mutants.py and test_cfg24_presets.py.
GPT2 = dataclasses.replace(get_preset("gpt2").arch, activation="")
GPT2_COPIES = 2.0 * (12 * (4 * 768**2 + 2 * 768 * 3072) + 50257 * 768)  # 16-bit matmul weights


def _gpt(**changes):
    base = workload_from_options(task="nlp_transformer", model="gpt2", mode="train", batch=4,
                                 seq_len=1024, precision="amp_fp16")
    return dataclasses.replace(base, **changes)


def _vit(**changes):
    return dataclasses.replace(default_workload("image_classification"), model="vit-b-16",
                               **changes)


def test_the_calibration_figures_these_tests_rest_on():
    assert CAL.vision["vit-b-16"].image_size == 224
    assert CAL.vision["vit-b-16"].precisions["fp32"].bytes_per_sample == 118_160_680
    assert CAL.vision["vit-b-16"].precisions["fp32"].bytes_per_step == 0
    assert CAL.vision["resnet50"].image_size == 224
    assert get_preset("faster-rcnn-r50-fpn").activation_bytes_per_sample == 1_360_081_020


def test_two_way_tensor_parallelism_scales_the_layers_by_22_over_34():
    w = _gpt(strategy="tensor_parallel", tp_size=2, gpus_per_node=2)
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "amp")
    layer = tc.layer_bytes_per_token(GPT2, 1024) * 1024 * 4
    outside = tc.outside_bytes_per_sequence(GPT2, 1024) * 4
    # sdpa, t = 2: (10 + 24/2) / 34 = 22/34; the weight copies split over the 2 GPUs.
    acts = transformer_activations(w, GPT2, 1024, CAL, False)
    assert acts.bytes == pytest.approx(12 * layer * 22 / 34 + outside + GPT2_COPIES / 2,
                                       rel=1e-12)


def test_a_note_without_autocast_copies_in_full_in_both_languages():
    # fp32 keeps no 16-bit weight copies, one GPU has no TP ratio, no pipeline, no
    # checkpointing and GPT-2 needs no correction: nothing between the head and the minimum.
    w = _gpt(precision="fp32")
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "fp32")
    per_token = tc.layer_bytes_per_token(GPT2, 1024)
    outside = tc.outside_bytes_per_sequence(GPT2, 1024) * 4
    minimum = 12 * 1024 * 4 * 768 * 34  # sbh x 34 per layer, sdpa: no 5as/h term
    note = transformer_activations(w, GPT2, 1024, CAL, False).note
    assert note.en == (
        f"measured {per_token:,.0f} B/token/layer (GPT, SDPA, FP32) x 1024 tokens x batch 4 x "
        f"12 layers + embeddings/head {fmt_gib(outside)}; Korthikanti's 16-bit minimum "
        f"{fmt_gib(minimum)}")
    assert note.zh == (
        f"实测每层每 token {per_token:,.0f} 字节（GPT, SDPA, FP32）× 1024 token × 批大小 4 × "
        f"12 层 + 嵌入/输出头 {fmt_gib(outside)}；Korthikanti 16 位理论下限 {fmt_gib(minimum)}")


def test_a_vit_at_a_size_that_is_not_a_multiple_of_16():
    # 200 px: 200 // 16 = 12 patches a side, 12^2 + 1 = 145 tokens against 14^2 + 1 = 197 at
    # 224 px (a partial patch is dropped by the stride-16 convolution).
    w = _vit(image_size=200, batch_size=2, precision="fp32")
    acts = vision_activations(w, resolve_model(w), CAL, False)
    assert acts.bytes == pytest.approx(118_160_680 * 145 / 197 * 2, rel=1e-12)


def test_a_vision_note_without_per_step_bytes_in_full_in_both_languages():
    w = _vit(image_size=384, batch_size=2, precision="fp32")
    note = vision_activations(w, resolve_model(w), CAL, False).note
    per_sample = fmt_gib(118_160_680)
    assert note.en == (f"measured {per_sample}/sample at 224px (FP32), scaled by token count "
                       "to 384px, x batch 2")
    assert note.zh == (f"实测 224px 下每样本 {per_sample}（FP32），按 token 数缩放至 384px，"
                       "× 批大小 2")


@pytest.mark.parametrize(("image", "area"), [(672, 9.0), (112, 0.25), (448, 4.0)])
def test_vision_inference_scales_with_the_image_area(image, area):
    # ResNet-50 measured at 224 px: (672 / 224)^2 = 9, (112 / 224)^2 = 1/4, (448 / 224)^2 = 4.
    w = dataclasses.replace(default_workload("image_classification"), mode="infer",
                            batch_size=4, image_size=image, precision="bf16")
    largest = max(u[0] + u[1] for u in CAL.vision["resnet50"].precisions["bf16"].units)
    acts = inference_activations(w, resolve_model(w), CAL)
    assert acts.bytes == pytest.approx(largest * area * 4, rel=1e-12)


def test_checkpointing_asked_for_in_the_workload_reaches_a_vision_model():
    w = dataclasses.replace(default_workload("image_classification"), batch_size=8,
                            gradient_checkpointing=True)  # ResNet-50, AMP
    acts = training_activations(w, resolve_model(w), CAL)
    assert acts.note.en.endswith("; checkpoint_sequential with sqrt(n) segments (Chen et al.)")
    assert acts.bytes < acts.without_checkpointing
    plain = dataclasses.replace(w, gradient_checkpointing=False)
    assert acts.without_checkpointing == training_activations(plain, resolve_model(plain),
                                                              CAL).bytes
    vit = _vit(batch_size=2, precision="fp32", gradient_checkpointing=True)
    assert training_activations(vit, resolve_model(vit), CAL).note.zh.endswith("；逐块检查点")


def test_a_published_figure_is_also_the_figure_without_checkpointing():
    w = default_workload("detection_segmentation")  # Faster R-CNN, batch 2, 800 px
    acts = vision_activations(w, resolve_model(w), CAL, False)
    assert acts.without_checkpointing == acts.bytes == 1_360_081_020 * 2
    # Half the side, a quarter of the area: 1,360,081,020 / 4 x 2.
    small = dataclasses.replace(w, image_size=400)
    acts = training_activations(small, resolve_model(small), CAL)
    assert acts.without_checkpointing == acts.bytes == 1_360_081_020 / 4 * 2


def test_checkpointing_asked_for_in_the_workload_reaches_a_transformer():
    w = _gpt(precision="fp32", gradient_checkpointing=True)
    tc = CAL.transformer_cal("gpt", "sdpa", "lm", "fp32")
    # the gpt2 preset's gelu_new: 3 more fp32 FFN-wide tensors per token (its own test above)
    layer = (tc.layer_bytes_per_token(GPT2, 1024) + 3 * 4 * 3072) * 1024 * 4
    outside = tc.outside_bytes_per_sequence(GPT2, 1024) * 4
    boundary = tc.layer_input_bytes_per_hidden * 768 * 1024 * 4
    # Each of the 12 layers keeps its input, one layer is recomputed at a time.
    acts = training_activations(w, resolve_model(w), CAL)
    assert acts.bytes == pytest.approx(12 * boundary + layer + outside, rel=1e-12)
    assert acts.without_checkpointing == pytest.approx(12 * layer + outside, rel=1e-12)
    assert "; checkpointing: each layer keeps only its input" in acts.note.en


def test_an_unchunked_prefill_note_in_full_in_both_languages():
    # 512 tokens x batch 2 = 1,024 tokens, under the 2,048-token chunk: one prefill.
    w = dataclasses.replace(default_workload("llm_inference"), seq_len=512, batch_size=2)
    tc = CAL.transformer_cal("llama", "sdpa", "lm", "bf16")
    arch = get_preset("llama-3-8b").arch
    layer = (tc.layer_bytes_per_token(arch, 512) - 2 * 2 * (4096 - 1024)) * 1024
    note = inference_activations(w, resolve_model(w), CAL).note
    assert note.en == (f"prefill of 512 tokens x batch 2: one layer's tensors ({fmt_gib(layer)}, "
                       "upper bound from the training measurement) + fp32 logits of the last "
                       "position")
    assert note.zh == (f"预填充 512 token × 批大小 2：一层的张量（{fmt_gib(layer)}，由训练实测给出"
                       "的上界）+ 最后位置的 fp32 logits")
