"""Inference: the KV cache per GPU, prefill, decode, the KV budget and vision and image
inference speed, with bytes and rates worked out in the test (mutation testing, issue 28).
Rules: docs/estimation.md sec. 2 (KV cache, vLLM paper sec. 3: 2 x layers x KV heads x head
size x bytes per token; tensor parallelism splits the KV heads, max(1, kv // t) / kv, a latent
cache is replicated; pipeline parallelism divides by p) and sec. 7 (prefill (2N + 4·L·s·h) per
token at MFU of the group's peak; decode reads the weights and the KV cache once per step, or
computes 2N per sequence, whichever is slower; the KV budget is 90 % of the GPU's memory less
weights, activations and the CUDA context, vLLM's gpu_memory_utilization). Since issue 24 the
serving model runs prefill at 60 % of the peak and decode at 65 % of the bandwidth or 33 % of
the peak (whichever is slower), the shares
fitted on TensorRT-LLM's published rates (sec. 8.6), and a decode step's compute counts the
attention over the context too (2N + 4·L·h·c per sequence).

Llama-3-8B (its Hugging Face config): 8,030,261,248 parameters, 32 layers, hidden 4096, 32
heads, 8 KV heads of 128, FFN 14336, vocabulary 128256, untied head. The GPU is made up with
round figures: 320 TFLOP/s dense bf16 and fp16, 2 TB/s, 80 GiB.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from torchrig.i18n import Msg
from torchrig.planning import diffusion
from torchrig.planning.device import DeviceSpec
from torchrig.planning.presets import TransformerArch, get_preset
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.serving import (
    inference_throughput,
    kv_cache_item,
    kv_share_per_gpu,
)
from torchrig.planning.requirements.types import Item
from torchrig.planning.workload import ResolvedModel, default_workload, resolve_model
from torchrig.units import GiB

GPU = DeviceSpec("Test GPU", 80 * GiB, {"fp32": 20e12, "tf32": 160e12, "fp16": 320e12,
                                         "bf16": 320e12}, 2e12, True)
MFU = 0.40  # vision and image generation keep the training MFU
PREFILL = 0.60  # LLM prefill (sec. 8.6)
DECODE_BW = 0.65  # share of the bandwidth a decode step reads at (sec. 8.6)
DECODE_PEAK = 0.33  # share of the peak a compute-bound decode step reaches (sec. 8.6)
P8 = 8_030_261_248
KV8 = 2 * 32 * 8 * 128 * 2  # 131,072 B per token in bf16
# matmul weights a token passes: 32 x (4096 x (4096 + 2 x 1024) + 4096^2 + 3 x 4096 x 14336)
# + the LM head 128256 x 4096
N8 = 32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336) + 128256 * 4096


def _w(**changes):
    return dataclasses.replace(default_workload("llm_inference"), **changes)  # Llama-3-8B bf16


# --------------------------------------------------------------------------- KV cache


def test_kv_cache_of_one_sequence_and_its_note():
    v = plan(_w()).vram_per_gpu["kv_cache"]
    assert v.value == KV8 * 4096 == 536_870_912
    assert v.note.en == ("2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B/token x 4096 "
                         "tokens x batch 1 (vLLM paper sec. 3)")
    assert v.note.zh == ("2 × 32 层 × 8 个 KV 头 × 128 × 2 字节 = 每 token 131,072 字节 × 4096 "
                         "token × 批大小 1（vLLM 论文第 3 节）")


def test_fp32_kv_cache_is_4_bytes_an_element():
    for precision in ("fp32", "tf32"):
        assert plan(_w(precision=precision, batch_size=2)).vram_per_gpu["kv_cache"].value == \
            2 * KV8 * 4096 * 2


def test_tensor_parallel_splits_the_kv_heads():
    w = _w(strategy="tensor_parallel", tp_size=4, gpus_per_node=4, batch_size=3)
    v = plan(w).vram_per_gpu["kv_cache"]
    assert v.value == KV8 * 4096 * 3 * (8 // 4) / 8
    assert v.note.en.endswith("(vLLM paper sec. 3); split over 4 GPUs")
    assert v.note.zh.endswith("（vLLM 论文第 3 节）；切分到 4 个 GPU")
    assert kv_share_per_gpu(w, get_preset("llama-3-8b").arch) == 0.25


def test_more_gpus_than_kv_heads_replicate_a_head():
    arch = get_preset("llama-3-8b").arch
    # 8 KV heads on 16 GPUs: each GPU keeps one whole head, 1/8 of the cache
    assert kv_share_per_gpu(_w(strategy="tensor_parallel", tp_size=16), arch) == 1 / 8
    assert kv_share_per_gpu(_w(strategy="tensor_parallel", tp_size=8), arch) == 1 / 8
    assert kv_share_per_gpu(_w(strategy="tensor_parallel", tp_size=2), arch) == 1 / 2


def test_pipeline_parallel_divides_the_cache_by_the_stages():
    w = _w(strategy="pipeline_parallel", pp_size=2, gpus_per_node=2)
    v = plan(w).vram_per_gpu["kv_cache"]
    assert v.value == KV8 * 4096 / 2
    assert v.note.en.endswith("; split over 2 GPUs")
    assert v.note.zh.endswith("（vLLM 论文第 3 节）；切分到 2 个 GPU")
    assert kv_share_per_gpu(dataclasses.replace(w, tp_size=2, pp_size=2),
                            get_preset("llama-3-8b").arch) == 0.5 / 2


def test_training_and_encoders_have_no_kv_cache():
    train = plan(default_workload("llm_finetune_lora")).vram_per_gpu["kv_cache"]
    assert train.value == 0.0
    assert (train.note.en, train.note.zh) == ("none (training, or an encoder)",
                                              "无（训练或编码器模型）")
    bert = dataclasses.replace(default_workload("nlp_transformer"), mode="infer")
    assert plan(bert).vram_per_gpu["kv_cache"].value == 0.0


def _model(arch: TransformerArch, seq: int) -> ResolvedModel:
    return ResolvedModel(family="transformer", params=1, largest_layer_params=None,
                         buffer_bytes=0, arch=arch, preset=None, seq_len=seq, image_size=None,
                         channels=3)


# DeepSeek-V2-Lite (its config): 27 layers, kv_lora_rank 512, qk_rope_head_dim 64, 16 heads.
LLAMA = get_preset("llama-3-8b").arch
LITE = TransformerArch(style="llama", layers=27, hidden=2048, heads=16, kv_heads=16, ffn=10944,
                       vocab=102400, kv_lora_rank=512, rope_head_dim=64, v_head_dim=128,
                       explicit_head_dim=128)


def test_latent_attention_caches_the_latent_and_is_replicated_over_tp():
    w = _w(seq_len=1000, batch_size=2, strategy="tensor_parallel", tp_size=2)
    item = kv_cache_item(w, _model(LITE, 1000))
    # 27 x (512 + 64) x 2 B = 31,104 B/token, x 1000 tokens x 2; not split by TP
    assert item.value == 27 * (512 + 64) * 2 * 1000 * 2 == 62_208_000
    assert item.note.en == ("latent attention: 27 layers x (512 latent + 64 rotary) x 2 B = "
                            "31,104 B/token x 1000 tokens x batch 2 (DeepSeek-V2 sec. 2.1)")
    assert item.note.zh == ("潜在注意力：27 层 × （512 潜在 + 64 旋转）× 2 字节 = 每 token 31,104 "
                            "字节 × 1000 token × 批大小 2（DeepSeek-V2 第 2.1 节）")
    pp = _w(seq_len=1000, batch_size=2, strategy="pipeline_parallel", pp_size=3)
    assert kv_cache_item(pp, _model(LITE, 1000)).value == pytest.approx(62_208_000 / 3)


# Mistral-7B v0.1 (its config): 32 layers, 8 KV heads of 128, sliding window 4096.
MISTRAL = TransformerArch(style="llama", layers=32, hidden=4096, heads=32, kv_heads=8,
                          ffn=14336, vocab=32000, sliding_window=4096, sliding_layers=32)


def test_sliding_window_layers_keep_only_the_window():
    item = kv_cache_item(_w(seq_len=8192), _model(MISTRAL, 8192))
    assert item.value == KV8 * 4096  # 8192 tokens, but every layer keeps 4096
    assert item.note.en.endswith("(vLLM paper sec. 3); 32 sliding-window layers keep 4,096 "
                                 "tokens")
    assert item.note.zh.endswith("（vLLM 论文第 3 节）；32 个滑动窗口层只保留 4,096 个 token")
    half = dataclasses.replace(MISTRAL, sliding_layers=16)
    assert kv_cache_item(_w(seq_len=8192), _model(half, 8192)).value == \
        KV8 / 32 * (16 * 8192 + 16 * 4096)


# --------------------------------------------------------------------------- serving


def test_prefill_decode_and_kv_budget_on_one_gpu():
    w = _w(seq_len=4096, batch_size=1)
    req = plan(w, GPU)
    t, v = req.throughput, req.vram_per_gpu
    weights, kv = 2 * P8, KV8 * 4096
    read = weights + kv
    assert t["bytes_read_per_step"].value == read == 16_597_393_408
    flops = (2 * N8 + 4 * 32 * 4096 * 4096) * 4096
    assert N8 == 7_504_658_432
    assert t["prefill_flops"].value == flops
    prefill = flops / (320e12 * PREFILL)
    assert t["prefill_time_s"].value == pytest.approx(prefill, rel=1e-12)
    assert t["prefill_time_s"].note.en == "FLOPs / (60% of the dense peak x 1 tensor-parallel GPUs)"
    assert t["prefill_tokens_per_s"].value == pytest.approx(4096 / prefill, rel=1e-12)
    assert t["time_to_first_token_s"].value == pytest.approx(prefill, rel=1e-12)
    assert t["time_to_first_token_s"].note.en == "prefill of one 4,096-token prompt on an idle " \
        "engine"
    # decode at batch 1: reading 16.6 GB at 65% of 2 TB/s (12.8 ms) is slower than computing
    # 2N + 4·L·h·s = 17.2 GFLOP at 33% of 320 TFLOP/s (0.16 ms)
    assert t["tokens_per_s_upper_bound"].value == pytest.approx(2e12 / read, rel=1e-12)
    assert t["decode_tokens_per_s"].value == pytest.approx(2e12 * DECODE_BW / read, rel=1e-12)
    assert t["time_per_output_token_s"].value == pytest.approx(read / (2e12 * DECODE_BW),
                                                               rel=1e-12)
    # KV budget: 90% of 80 GiB less weights, the prefill activations and the 1 GiB context
    acts = v["activations"].value
    budget = 0.9 * 80 * GiB - weights - acts - 1 * GiB
    assert t["kv_cache_budget_bytes"].value == pytest.approx(budget, rel=1e-12)
    assert t["max_concurrent_sequences"].value == math.floor(budget / (KV8 * 4096))
    assert t["max_concurrent_sequences"].note.en == \
        "KV budget / 512.0 MiB per 4,096-token sequence on each GPU"
    assert "samples_per_s" not in t  # serving has no single samples-per-second figure
    serving = next(a for a in req.assumptions if a.key == "serving")
    assert serving.value == 0.9
    assert serving.text.en.startswith("serving: prompts prefilled in chunks of 2,048 tokens; "
                                      "the KV cache gets what is left of 90% of GPU memory")


def test_a_large_batch_decodes_compute_bound():
    w = _w(seq_len=512, batch_size=1024)
    t = plan(w, GPU).throughput
    read = 2 * P8 + KV8 * 512 * 1024  # 84.8 GB: 65.2 ms at 65% of 2 TB/s
    compute = (2 * N8 + 4 * 32 * 4096 * 512) * 1024 / (320e12 * DECODE_PEAK)  # 148 ms
    assert compute > read / (2e12 * DECODE_BW)
    assert t["decode_tokens_per_s"].value == pytest.approx(1024 / compute, rel=1e-12)
    assert t["tokens_per_s_upper_bound"].value == pytest.approx(2e12 / read * 1024, rel=1e-12)
    assert t["prefill_flops"].value == (2 * N8 + 4 * 32 * 4096 * 512) * 512 * 1024
    prefill = (2 * N8 + 4 * 32 * 4096 * 512) * 512 * 1024 / (320e12 * PREFILL)
    assert t["prefill_tokens_per_s"].value == pytest.approx(512 * 1024 / prefill, rel=1e-12)
    # time to the first token is one prompt's prefill, not the batch's
    assert t["time_to_first_token_s"].value == pytest.approx(
        (2 * N8 + 4 * 32 * 4096 * 512) * 512 / (320e12 * PREFILL), rel=1e-12)


def test_tensor_parallel_group_splits_prefill_decode_and_the_cache():
    w = _w(seq_len=512, batch_size=256, strategy="tensor_parallel", tp_size=2, gpus_per_node=2)
    req = plan(w, GPU)
    t, v = req.throughput, req.vram_per_gpu
    weights, kv = 2 * P8 / 2, KV8 * 512 * 256 / 2
    assert t["bytes_read_per_step"].value == pytest.approx(weights + kv, rel=1e-12)
    prefill = (2 * N8 + 4 * 32 * 4096 * 512) * 512 * 256 / (320e12 * PREFILL * 2)
    # the test GPU names no link: the all-reduces are not counted (sec. 8.6)
    assert t["prefill_time_s"].value == pytest.approx(prefill, rel=1e-12)
    assert t["prefill_time_s"].note.en == "FLOPs / (60% of the dense peak x 2 tensor-parallel GPUs)"
    memory = (weights + kv) / (2e12 * DECODE_BW)  # 12.8 ms against 18.5 ms of computing
    compute = (2 * N8 + 4 * 32 * 4096 * 512) * 256 / 2 / (320e12 * DECODE_PEAK)
    assert compute > memory
    assert t["decode_tokens_per_s"].value == pytest.approx(256 / compute, rel=1e-12)
    budget = 0.9 * 80 * GiB - weights - v["activations"].value - 1 * GiB
    assert t["kv_cache_budget_bytes"].value == pytest.approx(budget, rel=1e-12)
    # each GPU holds half of every sequence's cache (4 of the 8 KV heads)
    assert t["max_concurrent_sequences"].value == math.floor(budget / (KV8 * 512 / 2))


def test_a_model_larger_than_the_budget_fits_no_sequence():
    small = DeviceSpec("Small GPU", 16 * GiB, {"bf16": 100e12}, 500e9, True)
    t = plan(_w(), small).throughput
    assert t["kv_cache_budget_bytes"].value == 0.0  # 14.4 GiB < 15 GiB of weights
    assert t["max_concurrent_sequences"].value == 0.0


def test_serving_without_a_gpu_is_unknown():
    t = plan(_w()).throughput
    for key in ("prefill_time_s", "prefill_tokens_per_s", "time_to_first_token_s",
                "tokens_per_s_upper_bound", "decode_tokens_per_s", "kv_cache_budget_bytes",
                "max_concurrent_sequences"):
        assert t[key].value is None, key
        assert t[key].note.en == "no GPU chosen: pick one to estimate speed", key
        assert t[key].note.zh == "未选择 GPU：选择后可估算速度", key
    assert t["prefill_flops"].value == (2 * N8 + 4 * 32 * 4096 * 4096) * 4096


def test_a_gpu_without_the_bandwidth_figure_has_no_decode_rate():
    no_bw = DeviceSpec("GPU", 80 * GiB, {"bf16": 320e12}, None, True)
    t = plan(_w(), no_bw).throughput
    assert t["tokens_per_s_upper_bound"].value is None
    assert t["decode_tokens_per_s"].value is None
    assert t["prefill_time_s"].value is not None


# --------------------------------------------------------------------------- vision, generation


def test_vision_inference_at_the_dense_peak():
    # ResNet-50 forward 8,178,368,512 FLOPs at 224 px (calibration, torch.utils.flop_counter)
    w = dataclasses.replace(default_workload("image_classification"), mode="infer",
                            gpus_per_node=2, image_size=448)
    t = plan(w, GPU).throughput
    per_gpu = 320e12 * MFU / (8_178_368_512 * 4)
    assert t["samples_per_s_per_gpu"].value == pytest.approx(per_gpu, rel=1e-12)
    assert t["samples_per_s_per_gpu"].note.en == "forward FLOPs at 40% of peak"
    assert t["samples_per_s"].value == pytest.approx(2 * per_gpu, rel=1e-12)
    assert (t["samples_per_s"].note.en, t["samples_per_s"].note.zh) == ("all GPUs", "全部 GPU")
    unknown = plan(w).throughput["samples_per_s_per_gpu"]
    assert unknown.value is None and unknown.note.en == "unknown"


def test_published_figure_for_detection_inference():
    # Faster R-CNN: 268.76 GFLOP at 800 px (torchvision, in the preset)
    w = dataclasses.replace(default_workload("detection_segmentation"), mode="infer")
    t = plan(w, GPU).throughput
    assert t["samples_per_s_per_gpu"].value == pytest.approx(320e12 * MFU / 268.76e9, rel=1e-12)


def test_image_generation_speed():
    w = dataclasses.replace(default_workload("image_generation"), mode="infer",
                            gpus_per_node=2, gradient_checkpointing=False)
    req = plan(w, GPU)
    t = req.throughput
    preset = get_preset("sd-1.5")
    flops = diffusion.generation_flops_per_image(req.workload, preset)
    util, _ = diffusion.inference_utilisation(preset, MFU)
    assert t["flops_per_sample"].value == flops
    assert t["peak_flops"].value == 320e12  # AMP fp16 uses the fp16 peak
    per_image = flops / (320e12 * util)
    assert t["time_per_image_s"].value == pytest.approx(per_image, rel=1e-12)
    assert t["samples_per_s_per_gpu"].value == pytest.approx(1 / per_image, rel=1e-12)
    assert t["samples_per_s"].value == pytest.approx(2 / per_image, rel=1e-12)
    assert t["total_time_s"].value == pytest.approx(212_776 / (2 / per_image), rel=1e-12)
    assert t["flops_per_sample"].note.en.startswith("50 denoising steps x 2 (classifier-free "
                                                    "guidance) x denoiser forward")
    none = plan(w).throughput
    assert none["time_per_image_s"].value is None and none["samples_per_s"].value is None
    assert none["total_time_s"].value is None


# --------------------------------------------------------------------------- second round


NO_GPU = Msg("no GPU", "无 GPU")


def test_serving_notes_in_both_languages():
    req = plan(_w(), GPU)
    t = req.throughput
    assert t["bytes_read_per_step"].note.en == ("weights + the whole KV cache are read once per "
                                                "decode step")
    assert t["bytes_read_per_step"].note.zh == "每个解码步读取一次全部权重和 KV 缓存"
    assert t["prefill_flops"].note.en == ("(2N + 4·L·s·h) per token x prompt tokens x batch, N "
                                          "= active matmul parameters")
    assert t["prefill_flops"].note.zh == ("每 token (2N + 4·L·s·h) × 提示 token × 批大小，"
                                          "N 为激活的矩阵乘参数")
    assert (t["prefill_tokens_per_s"].note.en, t["prefill_tokens_per_s"].note.zh) == (
        "prompt tokens / prefill time", "提示 token / 预填充时间")
    assert t["time_to_first_token_s"].note.zh == "空闲时一个 4,096 token 提示的预填充时间"
    assert t["tokens_per_s_upper_bound"].note.en == (
        "memory bandwidth / bytes read per step x batch (bandwidth-bound decoding; "
        "docs/estimation.md sec. 7)")
    assert t["tokens_per_s_upper_bound"].note.zh == ("显存带宽 / 每步读取字节 × 批大小"
                                                     "（解码受带宽限制）")
    assert t["decode_tokens_per_s"].note.en == ("batch 1 / time per output token (one serving "
                                                "group)")
    assert t["decode_tokens_per_s"].note.zh == "批大小 1 / 每输出 token 时间（一个服务组）"
    assert t["time_per_output_token_s"].note.en == (
        "a decode step of 1 requests: reading the GPU's weights and KV cache (15.5 GiB) at 65% "
        "of the bandwidth, or computing 2N per request at 33% of the peak, whichever is slower, "
        "+ tensor/pipeline-parallel transfers")
    assert t["time_per_output_token_s"].note.zh == (
        "1 个请求的一个解码步：以带宽的 65% 读取本 GPU 的权重与 KV 缓存（15.5 GiB），或以峰值的 "
        "33% 每请求计算 2N，取较慢者，再加张量/流水线并行通信")
    assert t["kv_cache_budget_bytes"].note.en == ("90% of GPU memory - weights, prefill "
                                                  "activations and CUDA overhead")
    assert t["kv_cache_budget_bytes"].note.zh == "显存的 90% - 权重、预填充激活和 CUDA 开销"
    assert t["max_concurrent_sequences"].note.zh == ("KV 预算 / 每个 4,096 token 序列在每 GPU "
                                                     "上占 512.0 MiB")
    serving = next(a for a in req.assumptions if a.key == "serving")
    assert serving.text.en == (
        "serving: prompts prefilled in chunks of 2,048 tokens; the KV cache gets what is left "
        "of 90% of GPU memory (vLLM's default gpu_memory_utilization); prefill at 60% of the "
        "dense peak, decode at 65% of the memory bandwidth or 33% of the peak, whichever is "
        "slower (fitted on TensorRT-LLM's published Llama 3.1 8B FP8 rates, docs/estimation.md "
        "sec. 8.6)")
    assert serving.text.zh == (
        "推理服务：提示按每块 2,048 token 分块预填充；KV 缓存使用 90% 显存（vLLM 默认 "
        "gpu_memory_utilization）中剩余的部分；预填充按稠密峰值的 60%，解码按显存带宽的 65%"
        "或稠密峰值的 33%，取较慢者（按 TensorRT-LLM 公布的 Llama 3.1 8B FP8 速率拟合，估算参考"
        "第 8.6 节）")


@pytest.mark.parametrize("precision", ["fp32", "tf32"])
def test_fp32_sequences_take_4_bytes_an_element_in_the_budget(precision):
    t = plan(_w(precision=precision, seq_len=1024), GPU).throughput
    budget = t["kv_cache_budget_bytes"].value
    assert t["max_concurrent_sequences"].value == math.floor(budget / (2 * KV8 * 1024))


def _vram(weights, kv, acts, overhead=1.0 * GiB):
    return {"weights": Item(weights, NO_GPU), "kv_cache": Item(kv, NO_GPU),
            "activations": Item(acts, NO_GPU), "overhead": Item(overhead, NO_GPU)}


def test_unknown_or_zero_items_count_as_nothing():
    w = _w(seq_len=1024)
    items, total = inference_throughput(w, resolve_model(w), GPU,
                                        _vram(16e9, 0.0, None), [], NO_GPU)
    assert total is None
    # the weights given and the model's own cache of one 1,024-token sequence (the serving
    # model reads the cache from the architecture, sec. 8.6)
    assert items["bytes_read_per_step"].value == 16e9 + KV8 * 1024
    assert items["kv_cache_budget_bytes"].value == 0.9 * 80 * GiB - 16e9 - 1 * GiB
    items, _ = inference_throughput(w, resolve_model(w), GPU, _vram(None, 1e9, 0.0), [], NO_GPU)
    assert items["bytes_read_per_step"].value == KV8 * 1024  # unknown weights count as none
    assert items["kv_cache_budget_bytes"].value == 0.9 * 80 * GiB - 1 * GiB


def test_kv_heads_are_split_in_whole_heads():
    # 8 KV heads over 3 GPUs: each keeps 8 // 3 = 2 whole heads
    assert kv_share_per_gpu(_w(strategy="tensor_parallel", tp_size=3), LLAMA) == 2 / 8


def test_a_window_without_sliding_layers_changes_nothing():
    plain = dataclasses.replace(MISTRAL, sliding_layers=0)
    item = kv_cache_item(_w(seq_len=8192), _model(plain, 8192))
    assert item.value == KV8 * 8192
    assert "sliding" not in item.note.en and "滑动" not in item.note.zh


def test_vision_inference_without_the_precisions_peak_is_unknown():
    w = dataclasses.replace(default_workload("image_classification"), mode="infer",
                            precision="bf16")
    no_bf16 = DeviceSpec("GPU", 16 * GiB, {"fp32": 10e12, "fp16": 40e12}, 500e9, True)
    t = plan(w, no_bf16).throughput
    assert t["samples_per_s_per_gpu"].value is None
    assert (t["samples_per_s_per_gpu"].note.en, t["samples_per_s_per_gpu"].note.zh) == (
        "unknown", "未知")
    assert t["samples_per_s"].value is None
    assert plan(w, GPU).throughput["samples_per_s_per_gpu"].note.zh == "前向 FLOPs，按峰值的 40%"


def test_image_generation_notes_and_utilisation():
    w = dataclasses.replace(default_workload("image_generation"), mode="infer",
                            gradient_checkpointing=False)
    req = plan(w, GPU)
    t = req.throughput
    util, util_note = diffusion.inference_utilisation(get_preset("sd-1.5"), MFU)
    assert (t["utilisation"].value, t["utilisation"].note) == (util, util_note)
    a = next(x for x in req.assumptions if x.key == "generation_utilisation")
    assert (a.value, a.text) == (util, util_note)
    assert t["flops_per_sample"].note.zh.startswith("50 个去噪步 × 2（无分类器引导）× 去噪网络前向")
    assert (t["peak_flops"].note.en, t["peak_flops"].note.zh) == ("Test GPU: dense peak",
                                                                  "Test GPU：稠密峰值")
    assert t["time_per_image_s"].note.en == ("FLOPs per image / (peak x utilisation); a batch "
                                             "takes proportionally longer")
    assert t["time_per_image_s"].note.zh == "每张图像 FLOPs /（峰值 × 利用率）；一批按比例更久"
    assert (t["samples_per_s_per_gpu"].note.en, t["samples_per_s_per_gpu"].note.zh) == (
        "images per second on one GPU", "单 GPU 每秒生成图像数")
    assert (t["samples_per_s"].note.en, t["samples_per_s"].note.zh) == (
        "one replica per GPU", "每 GPU 一个副本")
    assert t["total_time_s"].note.en == ("212,776 images (the dataset's sample count) / images "
                                         "per second")
    assert t["total_time_s"].note.zh == "212,776 张图像（数据集样本数）/ 每秒图像数"
    plain = plan(dataclasses.replace(w, guidance=False), GPU).throughput["flops_per_sample"]
    assert plain.note.en.startswith("50 denoising steps x denoiser forward + VAE decode")
    assert plain.note.zh.startswith("50 个去噪步 × 去噪网络前向 + VAE 解码")
    none = plan(w).throughput
    for key in ("time_per_image_s", "samples_per_s_per_gpu"):
        assert none[key].note.en == "no GPU chosen: pick one to estimate speed", key
        assert none[key].note.zh == "未选择 GPU：选择后可估算速度", key
    assert none["peak_flops"].note.en == "no GPU chosen: pick one to estimate speed"


def test_an_encoder_is_not_served_token_by_token():
    w = dataclasses.replace(default_workload("nlp_transformer"), mode="infer")
    t = plan(w, GPU).throughput
    assert "prefill_time_s" not in t and "decode_tokens_per_s" not in t
    assert t["samples_per_s_per_gpu"].value is None  # no forward figure for BERT
    assert t["bytes_read_per_step"].value == plan(w).vram_per_gpu["weights"].value
