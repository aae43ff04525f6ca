"""plan(): breakdowns, sharding, LoRA, inference, throughput, output, speed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from torchrig.planning.device import DeviceSpec
from torchrig.planning.plan_output import format_plan_text
from torchrig.planning.presets import get_preset, load_calibration
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.assumptions import MFU_RANGE
from torchrig.planning.workload import default_workload, load_workload, workload_from_options
from torchrig.units import GB, GiB

# Dense peaks and bandwidths from the project's docs/hardware-sources.md sec. 1.
A100 = DeviceSpec("A100 80GB SXM4", 80 * GiB, {"fp32": 19.5e12, "tf32": 156e12, "fp16": 312e12,
                                               "bf16": 312e12}, 2039e9, True)
RTX4090 = DeviceSpec("RTX 4090", 24 * GiB, {"fp32": 82.6e12, "tf32": 82.6e12, "fp16": 165.2e12,
                                            "bf16": 165.2e12}, 1008e9, True)
RTX3090 = DeviceSpec("RTX 3090", 24 * GiB, {"fp32": 35.6e12, "tf32": 35.6e12, "fp16": 71e12,
                                            "bf16": 71e12}, 936e9, True)
H100 = DeviceSpec("H100 SXM5", 80 * GiB, {"fp32": 67e12, "tf32": 494.7e12, "fp16": 989.4e12,
                                          "bf16": 989.4e12}, 3350e9, True)
SAMPLES = sorted((Path(__file__).resolve().parents[2] / "workloads").glob("*.json"))
VRAM_KEYS = ("weights", "gradients", "optimizer_states", "activations", "kv_cache",
             "comm_buffers", "overhead", "fragmentation", "total")


def test_breakdown_sums_to_total():
    req = plan(default_workload("nlp_transformer"))
    items = req.vram_per_gpu
    for key in VRAM_KEYS:
        assert key in items and items[key].note.en
    assert items["total"].value == pytest.approx(
        sum(i.value for k, i in items.items() if k != "total"))
    assert req.system_ram["total"].value == pytest.approx(
        sum(i.value for k, i in req.system_ram.items() if k != "total"))


def test_zero3_shards_everything_and_adds_the_gather_buffer():
    w = default_workload("llm_finetune_full")  # Llama-2-7B, ZeRO-3, 8 GPUs, bf16 AMP
    p = get_preset("llama-2-7b").params
    v = plan(w).vram_per_gpu
    assert v["weights"].value == pytest.approx(2 * p / 8)
    # 4 B per parameter of the shard, as DeepSpeed's ZeRO-3 estimator counts (18P/8 in all)
    assert v["gradients"].value == pytest.approx(4 * p / 8)
    assert v["optimizer_states"].value == pytest.approx(12 * p / 8)
    # DeepSpeed's estimator's 4 x largest layer (the 32000 x 4096 embedding) + the 5e7-element
    # stage-3 prefetch bucket in 16 bit; the 5e8-element reduce bucket is its own item
    assert v["comm_buffers"].value == 4 * 32000 * 4096 + 2 * 50_000_000
    assert v["zero_reduce_bucket"].value == 2 * 500_000_000


def test_ddp_keeps_fp32_states_and_a_bucket_copy():
    w = workload_from_options(task="image_classification", gpus=4)
    p = get_preset("resnet50").params
    v = plan(w).vram_per_gpu
    assert v["weights"].value == 4 * p and v["gradients"].value == 4 * p
    assert v["optimizer_states"].value == 4 * p  # SGD momentum
    assert v["comm_buffers"].value == 4 * p  # DDP bucket copy of the gradients


def test_lora_trains_only_the_adapters():
    w = default_workload("llm_finetune_lora")  # Llama-2-7B, rank 16, AMP bf16, AdamW, 1 GPU
    # Adapters counted by hand (docs/estimation.md sec. 2, "LoRA parameter count": rank x
    # (in + out) per adapted matrix, every linear layer of every block). Llama-2-7B: hidden
    # 4096, 32 KV heads x 128 = 4096, ffn 11008, 32 layers (its Hugging Face config.json).
    #   q, k, v, o: 4 x (4096 + 4096)         = 32,768
    #   gate, up:   2 x (4096 + 11008)        = 30,208
    #   down:       1 x (11008 + 4096)        = 15,104
    #   per layer: 78,080 x rank 16 = 1,249,280; x 32 layers = 39,976,960
    adapters = 39_976_960
    params = 6_738_415_616  # the config's parameter count
    v = plan(w).vram_per_gpu
    assert v["gradients"].value == 4 * adapters  # fp32 gradients of the adapters only
    assert v["optimizer_states"].value == 8 * adapters  # AdamW: two fp32 moments
    assert v["weights"].value == 2 * params + 4 * adapters  # 16-bit base + fp32 adapters
    # QLoRA-style int4 base (sec. 8.1): the blocks' linear weights at 0.5 + 2/128 = 33/64 B,
    # the rest (embeddings, LM head, norms) 16-bit.
    #   linear per layer: 4 x 4096 x 4096 + 3 x 4096 x 11008 = 202,375,168; x 32 = 6,476,005,376
    #   int4 bytes: 6,476,005,376 x 33 / 64 = 3,339,190,272
    #   the rest: 6,738,415,616 - 6,476,005,376 = 262,410,240 params x 2 B = 524,820,480
    q = plan(dataclasses.replace(w, precision="int4")).vram_per_gpu
    assert q["weights"].value == 3_339_190_272 + 524_820_480 + 4 * adapters
    assert q["gradients"].value == 4 * adapters


def test_offload_moves_states_to_cpu_ram():
    w = workload_from_options(task="llm_finetune_full", strategy="zero3", offload="optimizer")
    req = plan(w)
    assert req.vram_per_gpu["optimizer_states"].value == 0
    p = get_preset("llama-2-7b").params
    assert req.system_ram["cpu_offload"].value == int(p * 16 * 1.5)


def test_tensor_parallel_inference_splits_weights_and_cache():
    one = plan(workload_from_options(task="llm_inference", model="llama-2-70b", batch=8))
    four = plan(workload_from_options(task="llm_inference", model="llama-2-70b", batch=8,
                                      gpus=4, strategy="tensor_parallel", tp_size=4))
    assert four.vram_per_gpu["weights"].value == pytest.approx(
        one.vram_per_gpu["weights"].value / 4)
    assert four.vram_per_gpu["kv_cache"].value == pytest.approx(
        one.vram_per_gpu["kv_cache"].value / 4)


def test_quantized_inference_weights():
    w = workload_from_options(task="llm_inference", model="llama-3-8b", precision="int8")
    arch = get_preset("llama-3-8b").arch
    quantized = arch.layers * arch.layer_matmul_params()
    expected = quantized * 1 + (get_preset("llama-3-8b").params - quantized) * 2
    assert plan(w).vram_per_gpu["weights"].value == expected


@pytest.mark.parametrize("task,kept", [
    # checkpoint_sequential's equal-count segments: ResNet-50's early blocks are the largest,
    # so the biggest recomputed segment still holds ~half of the activations.
    ("image_classification", 0.70),
    ("nlp_transformer", 0.40),
])
def test_checkpointing_cuts_activations(task, kept):
    w = default_workload(task)
    off = plan(dataclasses.replace(w, gradient_checkpointing=False))
    on = plan(dataclasses.replace(w, gradient_checkpointing=True))
    assert on.vram_per_gpu["activations"].value < kept * off.vram_per_gpu["activations"].value
    assert on.throughput["flops_per_sample"].value == pytest.approx(
        off.throughput["flops_per_sample"].value * 4 / 3)


def test_amp_halves_activations_not_adam_states():
    w = workload_from_options(task="nlp_transformer", precision="fp32", gpus=1)
    fp32 = plan(w).vram_per_gpu
    amp = plan(dataclasses.replace(w, precision="amp_bf16")).vram_per_gpu
    states = ("weights", "gradients", "optimizer_states")
    assert sum(fp32[k].value for k in states) == sum(amp[k].value for k in states)
    assert amp["activations"].value < 0.75 * fp32["activations"].value


def test_seed_claims_are_compared_not_copied():
    req = plan(default_workload("llm_finetune_lora"))
    sections = {c.section for c in req.seed_claims}
    assert {"seed 1.2", "seed 3.3"} <= sections
    amp = next(c for c in plan(default_workload("llm_finetune_full")).seed_claims
               if c.section == "seed 3.1")
    # With Adam the fp32 states dominate: AMP saves nothing near the seed's 50%. Under ZeRO-3
    # DeepSpeed's mixed precision even holds more per parameter than fp32 (its estimator's
    # 18 B vs 4 + 4 + 8 = 16 B, / 8 ranks); only the activations shrink.
    assert 0 < amp.computed < 0.25
    ckpt = next(c for c in req.seed_claims if c.section == "seed 3.3")
    assert -1 < ckpt.computed < -0.5


def test_no_gpu_means_no_speed_with_a_reason():
    req = plan(default_workload("image_classification"))
    item = req.throughput["samples_per_s_per_gpu"]
    assert item.value is None and "GPU" in item.note.en
    assert req.fits is None
    assert req.storage["read_rate_bps"].value is None
    target = dataclasses.replace(default_workload("image_classification"),
                                 target_samples_per_s=2470.0)
    assert plan(target).storage["read_rate_bps"].value == pytest.approx(2470 * 110_000)


def test_imagenet_read_rate_and_cpu_cores():
    # docs/estimation.md sec. 4: 2470 img/s x ~110 KB = ~272 MB/s.
    req = plan(default_workload("image_classification"), A100)
    assert req.storage["read_rate_bps"].value == pytest.approx(272e6, rel=0.01)
    assert req.cpu["decode_cores"].value == pytest.approx(2470 / 150, rel=0.01)
    assert req.cpu["cores_needed"].value == 18


def test_cnn_throughput_against_published_measurements():
    """Memory-traffic model calibrated on NVIDIA's A100 figure; Lambda's measurements on other
    GPUs land within the documented band (docs/calibration.md)."""
    w = default_workload("image_classification")
    a100 = plan(w, A100).throughput["samples_per_s_per_gpu"].value
    assert a100 == pytest.approx(2470, rel=0.01)
    assert plan(w, RTX4090).throughput["samples_per_s_per_gpu"].value == pytest.approx(
        1301, rel=0.10)
    for gpu, measured in ((RTX3090, 905), (H100, 2616)):
        model = plan(w, gpu).throughput["samples_per_s_per_gpu"].value
        assert measured / 1.6 < model < measured * 1.6


def test_transformer_throughput_range_brackets_published_figures():
    # NVIDIA DLE BERT-large pre-training, seq 128, AMP on A100: 580 seq/s per GPU.
    w = workload_from_options(task="nlp_transformer", model="bert-large", mode="train",
                              seq_len=128, batch=64)
    flops = plan(w, A100).throughput["flops_per_sample"].value
    low, high = (A100.peak_flops["fp16"] * u / flops for u in MFU_RANGE)
    assert low < 580 < high * 1.01


def test_inference_speed_is_bandwidth_bound():
    w = workload_from_options(task="llm_inference", model="llama-2-7b", seq_len=2048)
    req = plan(w, A100)
    read = req.throughput["bytes_read_per_step"].value
    assert read == pytest.approx(2 * get_preset("llama-2-7b").params + 1 * GiB)
    assert req.throughput["tokens_per_s_upper_bound"].value == pytest.approx(2039e9 / read)


def test_missing_precision_peak_is_explained():
    turing = DeviceSpec("GTX 1660 Super", 6 * GiB, {"fp32": 5.03e12, "fp16": 10.05e12},
                        336e9, False)
    req = plan(workload_from_options(task="nlp_transformer", precision="amp_bf16"), turing)
    assert req.throughput["samples_per_s_per_gpu"].value is None
    assert "no dense bf16 figure" in req.throughput["samples_per_s_per_gpu"].note.en
    fp16 = plan(default_workload("nlp_transformer"), turing)
    assert "no tensor cores" in fp16.throughput["peak_flops"].note.en


def test_fit_against_a_device():
    big = plan(workload_from_options(task="llm_finetune_full", model="llama-2-13b", gpus=1,
                                     strategy="ddp"), A100)
    assert big.fits is False  # 13B x 16 B/param = 208 GB
    small = plan(default_workload("nlp_transformer"), RTX4090)
    assert small.fits is True


def test_custom_model_without_activation_figure_is_incomplete():
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000)
    req = plan(w)
    assert req.vram_per_gpu["activations"].value is None
    assert req.incomplete == ["vram_per_gpu.activations"]
    # The total is the sum of the items that are known (the unknown one counts as nothing).
    known = [i.value for k, i in req.vram_per_gpu.items() if k != "total" and i.value]
    assert req.vram_per_gpu["total"].value == pytest.approx(sum(known))
    assert req.vram_per_gpu["weights"].value == 4 * 5_000_000  # fp32 weights of 5M params
    assert json.loads(json.dumps(req.to_dict(), allow_nan=False))["vram_per_gpu"][
        "activations"] is None
    given = plan(dataclasses.replace(w, activation_bytes_per_sample=1e6))
    assert given.vram_per_gpu["activations"].value == 1e6 * w.batch_size


def test_custom_transformer_uses_the_fitted_coefficients():
    w = workload_from_options(task="llm_finetune_full", model="custom", layers=2, hidden=64,
                              heads=4, vocab=96, seq_len=32, batch=1, precision="fp32",
                              gpus=1, strategy="ddp", checkpointing=False)
    tc = load_calibration().transformer_cal("llama", "sdpa", "lm", "fp32")
    arch = dataclasses.replace(get_preset("llama-2-7b").arch, layers=2, hidden=64, heads=4,
                               kv_heads=4, ffn=256, vocab=96, max_positions=32)
    expected = 2 * tc.layer_bytes_per_token(arch, 32) * 32 + tc.outside_bytes_per_sequence(
        arch, 32)
    assert plan(w).vram_per_gpu["activations"].value == pytest.approx(expected)


def test_json_document():
    req = plan(default_workload("llm_inference"), A100)
    doc = json.loads(json.dumps(req.to_dict(), allow_nan=False))
    assert doc["format"] == "torchrig.plan"
    for key in ("vram_per_gpu", "system_ram", "storage", "cpu", "interconnect", "throughput",
                "assumptions", "seed_claims", "references", "fits_in_vram", "workload"):
        assert key in doc
    assert set(VRAM_KEYS) <= set(doc["vram_per_gpu"])
    assert doc["vram_per_gpu"]["notes"]["kv_cache"]["zh"]
    assert {"dataset_bytes", "checkpoint_bytes", "read_rate_bps"} <= set(doc["storage"])
    assert all(a["text"]["en"] for a in doc["assumptions"])


@pytest.mark.parametrize("lang,words", [
    ("en", ["VRAM per GPU", "GiB", "Total", "Storage", "seed 3.3"]),
    ("zh", ["每 GPU 显存", "GiB", "合计", "存储", "种子文档 3.3 节"])])
def test_text_output(lang, words):
    w = default_workload("llm_finetune_lora")
    text = format_plan_text(w, plan(w, A100), lang)
    for word in words:
        assert word in text


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_workloads_plan(path):
    w = load_workload(path)
    req = plan(w, A100)
    assert req.vram_per_gpu["total"].value > 1 * GiB
    assert not req.incomplete
    json.dumps(req.to_dict(), allow_nan=False)
    assert format_plan_text(w, req, "zh")


def test_storage_checkpoints():
    w = default_workload("nlp_transformer")
    p = get_preset("bert-base").params
    assert plan(w).storage["checkpoint_bytes"].value == p * (4 + 8) * 3
    assert plan(w).storage["dataset_bytes"].value == 67_349 * 512
    assert plan(w).storage["total"].value > 1 * GB
