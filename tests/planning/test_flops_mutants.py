"""FLOPs of one training sample, worked out by hand (mutation testing, issue 28). Rules:
docs/estimation.md sec. 3.2 - (6N + 12·L·s·h) per token for a transformer (PaLM appendix B),
(4N + 8·L·s·h) under LoRA, 3 x the forward FLOPs for a vision model scaled by image area, x 4/3
with checkpointing.

Shapes from the Hugging Face configs (also in resources/model_presets.json): Llama-2-7B 32
layers, hidden 4096, FFN 11008 (SwiGLU), vocabulary 32000, untied head; BERT-base 12 layers,
hidden 768, FFN 3072, vocabulary 30522. Vision forward FLOPs: the calibration's
torch.utils.flop_counter counts (ResNet-50 8,178,368,512 at 224 px) and torchvision's published
Faster R-CNN figure (268.76 GFLOP at 800 px), both in resources/model_presets.json.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning import diffusion
from torchrig.planning.presets import load_calibration
from torchrig.planning.requirements.flops import training_flops_per_sample
from torchrig.planning.workload import default_workload, resolve_model, workload_from_options

# Llama-2-7B matmul weights a token passes: 32 x (4 x 4096^2 + 3 x 4096 x 11008) + the LM head
# 32000 x 4096.
N7 = 32 * (4 * 4096**2 + 3 * 4096 * 11008) + 32000 * 4096
# BERT-base blocks: 12 x (4 x 768^2 + 2 x 768 x 3072); the MLM head adds 30522 x 768.
NBERT = 12 * (4 * 768**2 + 2 * 768 * 3072)


def _flops(w):
    return training_flops_per_sample(w, resolve_model(w), load_calibration())


def test_full_fine_tune_is_6n_plus_attention_per_token():
    w = dataclasses.replace(default_workload("llm_finetune_full"), gradient_checkpointing=False)
    flops, note = _flops(w)
    assert N7 == 6_607_077_376
    assert flops == (6 * N7 + 12 * 32 * 4096 * 2048) * 2048 == 87_784_836_562_944
    assert note.en == "6N + 12·L·s·h per token (PaLM appendix B), N = 6.61B matmul params x " \
        "2048 tokens"
    assert note.zh == "每 token 6N + 12·L·s·h（PaLM 附录 B），N = 6.61B × 2048 token"


def test_checkpointing_adds_a_third():
    w = default_workload("llm_finetune_full")  # checkpointing on
    flops, note = _flops(w)
    assert flops == pytest.approx(87_784_836_562_944 * 4 / 3, rel=1e-12)
    assert note.en.endswith("x 2048 tokens x 4/3 (checkpointing repeats the forward)")
    assert note.zh.endswith("× 2048 token × 4/3（检查点重算一次前向）")


def test_lora_is_4n_plus_two_thirds_of_the_attention():
    w = dataclasses.replace(default_workload("llm_finetune_lora"), gradient_checkpointing=False,
                            seq_len=1024)
    flops, note = _flops(w)
    assert flops == (4 * N7 + 8 * 32 * 4096 * 1024) * 1024
    assert note.en == "LoRA: (4N + attention) per token, N = 6.61B matmul params x 1024 tokens"
    assert note.zh == "LoRA：每 token (4N + 注意力)，N = 6.61B × 1024 token"


def test_bert_fine_tune_has_no_lm_head_and_pretraining_has_one():
    tuned = default_workload("nlp_transformer")  # BERT-base, finetune, seq 128
    flops, _ = _flops(tuned)
    assert flops == (6 * NBERT + 12 * 12 * 768 * 128) * 128 == 67_041_755_136
    pre = dataclasses.replace(tuned, mode="train")
    flops, note = _flops(pre)
    assert flops == (6 * (NBERT + 30522 * 768) + 12 * 12 * 768 * 128) * 128
    assert "N = 0.11B matmul params" in note.en


def test_forward_figure_of_your_own():
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=64)
    w = dataclasses.replace(w, forward_flops_per_sample=2e9)
    flops, note = _flops(w)
    assert flops == 3 * 2e9
    assert (note.en, note.zh) == ("3 x your forward figure", "3 × 你提供的前向 FLOPs")
    flops, note = _flops(dataclasses.replace(w, gradient_checkpointing=True))
    assert flops == pytest.approx(3 * 2e9 * 4 / 3, rel=1e-12)
    assert note.en == "3 x your forward figure x 4/3 (checkpointing repeats the forward)"


def test_a_custom_model_without_a_forward_figure_is_unknown():
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=64)
    flops, note = _flops(w)
    assert flops is None
    assert note.en == "unknown for a custom model without forward_flops_per_sample"
    assert note.zh == "自定义模型缺少 forward_flops_per_sample，无法估算"


def test_calibrated_vision_model_scales_by_image_area():
    w = default_workload("image_classification")  # ResNet-50 at 224 px
    flops, note = _flops(w)
    assert flops == 3 * 8_178_368_512
    assert note.en == ("3 x forward 8.18 GFLOP (counted by torch.utils.flop_counter at 224px, "
                       "scaled by area; backward ~ 2x forward)")
    assert note.zh == ("3 × 前向 8.18 GFLOP（torch.utils.flop_counter 在 224px 计数，按面积缩放；"
                       "反向约为前向 2 倍）")
    big = dataclasses.replace(w, image_size=448, gradient_checkpointing=True)
    flops, note = _flops(big)
    assert flops == pytest.approx(3 * 8_178_368_512 * 4 * 4 / 3, rel=1e-12)
    assert note.en.startswith("3 x forward 32.71 GFLOP (counted")
    assert note.en.endswith("x 4/3 (checkpointing repeats the forward)")


def test_published_forward_figure_when_not_calibrated():
    w = default_workload("detection_segmentation")  # Faster R-CNN at 800 px
    flops, note = _flops(w)
    assert flops == pytest.approx(3 * 268.76e9, rel=1e-12)
    assert note.en == ("3 x forward 268.8 GFLOP of the whole model (published, at 800px, scaled "
                       "by area; backward ~ 2x forward)")
    assert note.zh == ("3 × 整个模型前向 268.8 GFLOP（公开数据，800px，按面积缩放；反向约为前向 "
                       "2 倍）")
    small = dataclasses.replace(w, image_size=400, gradient_checkpointing=True)
    flops, note = _flops(small)
    assert flops == pytest.approx(3 * 268.76e9 / 4 * 4 / 3, rel=1e-12)
    assert note.en.endswith("2x forward) x 4/3 (checkpointing repeats the forward)")


def test_published_figure_without_a_calibration_file():
    w = default_workload("image_classification")
    flops, _ = training_flops_per_sample(w, resolve_model(w), None)
    # ResNet-50 has no published figure in the presets: without the calibration it is unknown
    assert flops is None
    det = default_workload("detection_segmentation")
    flops, _ = training_flops_per_sample(det, resolve_model(det), None)
    assert flops == pytest.approx(3 * 268.76e9, rel=1e-12)


def test_diffusion_goes_to_the_diffusion_module():
    w = default_workload("image_generation")
    model = resolve_model(w)
    assert _flops(w) == diffusion.training_flops_per_sample(w, model.preset)
