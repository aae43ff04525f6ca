"""fp8 training the Transformer Engine way (issue 24, docs/estimation.md sec. 14), against hand
computations: the bytes per parameter, the fp8 weight copies and scaling state, the saved
inputs, the FLOPs split between the fp8 and bf16 peaks, a second branch (tensor parallelism and
8 GPUs) and the refusals (no fp8 tensor cores, fp4 training, non-transformers, LoRA, MoE).

On main every fp8 training workload is refused ("fp8 training with Transformer Engine is not
modelled"), so each test below that plans one fails there.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.errors import InputError
from torchrig.planning.device import DeviceSpec
from torchrig.planning.links import LINKS
from torchrig.planning.plan_output import format_plan_text
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.fp8_training import FP8_TRAINING_UTILISATION
from torchrig.planning.workload import workload_from_options
from torchrig.units import GiB

# Llama-2-7B's shape (its config.json): 32 layers, hidden 4096, 32 heads (no GQA), FFN 11008
# (SwiGLU: gate, up, down), vocabulary 32,000, untied LM head.
L, H, FFN, VOCAB = 32, 4096, 11008, 32_000
LINEAR = L * (4 * H * H + 3 * H * FFN)  # Q, K, V, O + gate, up, down per layer
assert LINEAR == 6_476_005_376
HEAD = VOCAB * H
P = 6_738_415_616  # all parameters (the preset's count; embeddings and norms included)

# H100 SXM dense peaks from NVIDIA's H100 datasheet (the catalog's figures): bf16 989.4
# TFLOP/s, fp8 twice that.
H100 = DeviceSpec("H100 SXM5 80GB", 80 * GiB, {"bf16": 989.4e12, "fp16": 989.4e12,
                                                "fp8": 1978.9e12}, 3.35e12, True,
                  LINKS["nvlink4"], LINKS["ib_ndr"], architecture="Hopper")
A100 = DeviceSpec("A100 SXM4 80GB", 80 * GiB, {"bf16": 312e12, "fp16": 312e12}, 2039e9, True,
                  LINKS["nvlink3"], architecture="Ampere")


def _llama(**options):
    base = dict(task="llm_finetune_full", model="llama-2-7b", precision="fp8", batch=1,
                seq_len=4096, checkpointing=False, gpus=1, strategy="ddp")
    base.update(options)
    return workload_from_options(**base)


def test_fp8_keeps_amp_bf16s_states_and_adds_one_byte_per_linear_weight():
    # PyTorch-AMP layout on one GPU: fp32 weights (4 B) and gradients (4 B), AdamW's two fp32
    # moments (8 B) - 16 B/param as amp_bf16 - plus TE's fp8 copy of each linear weight (1 B)
    # and the delayed-scaling state: 4 GEMMs per layer x 5 tensors x (1024 + 2) fp32.
    fp8 = plan(_llama(), H100).vram_per_gpu
    bf16 = plan(_llama(precision="amp_bf16"), H100).vram_per_gpu
    for key, per_param in (("weights", 4), ("gradients", 4), ("optimizer_states", 8)):
        assert fp8[key].value == pytest.approx(per_param * P)
        assert fp8[key].value == bf16[key].value
    assert fp8["fp8_weight_copies"].value == pytest.approx(1.0 * LINEAR)
    assert fp8["fp8_scaling_state"].value == 4 * L * 5 * (1024 + 2) * 4 == 2_626_560
    assert "fp8_weight_copies" not in bf16


def test_fp8_zero3_keeps_its_copies_whole_per_rank():
    # ZeRO-3 over 8 ranks shards the 18 B/param states (DeepSpeed's estimator), but each rank
    # quantizes the gathered weight and keeps the fp8 copy for backward: LINEAR bytes per GPU.
    v = plan(_llama(gpus=8, strategy="zero3"), H100).vram_per_gpu
    assert v["weights"].value + v["gradients"].value + v["optimizer_states"].value == \
        pytest.approx(18 * P / 8)
    assert v["fp8_weight_copies"].value == pytest.approx(LINEAR)


def test_fp8_saves_the_linear_inputs_in_one_byte_and_no_bf16_copies_of_their_weights():
    # Per token per layer the linear layers save QKV's input (h), the output projection's
    # input (h: 32 heads x 128), the MLP's input (h) and the down projection's input (FFN):
    # one byte each instead of autocast's two. Autocast's bf16 copies of the blocks' linear
    # weights (2 B x LINEAR, counted with activations under DDP) are replaced by the fp8 copy
    # item; the LM head's bf16 copy stays.
    s, b = 4096, 1
    fp8 = plan(_llama(), H100).vram_per_gpu["activations"].value
    amp = plan(_llama(precision="amp_bf16"), H100).vram_per_gpu["activations"].value
    assert amp - fp8 == pytest.approx(L * s * b * (H + H + H + FFN) * 1 + 2 * LINEAR)


def test_fp8_time_runs_the_linear_gemms_at_the_fp8_peak_and_the_rest_at_bf16():
    # Per sequence of 4096 tokens: fp8 6 x LINEAR x s; bf16 the LM head's 6 x V x h and
    # attention's 12 x L x h x s per token (PaLM appendix B), x s. Each at the fitted share.
    s = 4096
    fp8_flops = 6 * LINEAR * s
    bf16_flops = (6 * HEAD + 12 * L * H * s) * s
    u = FP8_TRAINING_UTILISATION
    rate = 1 / (fp8_flops / (1978.9e12 * u) + bf16_flops / (989.4e12 * u))
    t = plan(_llama(), H100).throughput
    assert t["flops_per_sample"].value == pytest.approx(fp8_flops + bf16_flops)
    assert t["fp8_flops_share"].value == pytest.approx(fp8_flops / (fp8_flops + bf16_flops))
    assert t["samples_per_s_per_gpu"].value == pytest.approx(rate)
    assert t["peak_flops"].value == 1978.9e12
    assert t["utilisation"].value == u
    assert t["tokens_per_s"].value == pytest.approx(rate * s)
    # faster than the same run in amp_bf16 (all FLOPs at 40 % of the bf16 peak)
    amp = plan(_llama(precision="amp_bf16"), H100).throughput
    assert amp["samples_per_s_per_gpu"].value == pytest.approx(
        989.4e12 * 0.40 / (fp8_flops + bf16_flops))
    assert t["samples_per_s_per_gpu"].value > amp["samples_per_s_per_gpu"].value


def test_fp8_checkpointing_repeats_the_forward_on_both_parts():
    plain = plan(_llama(), H100).throughput["samples_per_s_per_gpu"].value
    ck = plan(_llama(checkpointing=True), H100).throughput["samples_per_s_per_gpu"].value
    assert ck == pytest.approx(plain * 3 / 4)


def test_fp8_tensor_parallel_splits_the_copies_and_keeps_the_per_gpu_share():
    # TP 2 x DP 4 on 8 H100s: each GPU holds half of every linear weight, so half the fp8
    # copies and half the scaling state (TE's per-rank modules); the per-GPU rate is each
    # GPU's share of a sample's FLOPs (unchanged), the step of the TP pair is batch / (2 x it),
    # and all 8 GPUs together give 8 x it x the scaling efficiency.
    w = _llama(gpus=8, strategy="tensor_parallel", tp_size=2)
    req = plan(w, H100)
    one = plan(_llama(), H100)
    assert req.vram_per_gpu["fp8_weight_copies"].value == pytest.approx(LINEAR / 2)
    assert req.vram_per_gpu["fp8_scaling_state"].value == pytest.approx(2_626_560 / 2)
    per_gpu = req.throughput["samples_per_s_per_gpu"].value
    assert per_gpu == pytest.approx(one.throughput["samples_per_s_per_gpu"].value)
    assert req.throughput["step_time_s"].value == pytest.approx(1 / (2 * per_gpu))
    eff = req.throughput["scaling_efficiency"].value
    assert 0 < eff < 1
    assert req.throughput["samples_per_s"].value == pytest.approx(8 * per_gpu * eff)


def test_fp8_on_eight_gpus_multiplies_the_per_gpu_rate_at_the_efficiency():
    req = plan(_llama(gpus=8), H100)
    t = req.throughput
    assert t["samples_per_s"].value == pytest.approx(
        8 * t["samples_per_s_per_gpu"].value * t["scaling_efficiency"].value)
    # DDP's bucket copy is the fp32 gradients (4 B/param), as under amp_bf16
    assert req.vram_per_gpu["comm_buffers"].value == pytest.approx(4 * P)


def test_fp8_training_on_a_gpu_without_fp8_tensor_cores_has_no_speed_and_says_why():
    t = plan(_llama(), A100).throughput
    assert t["samples_per_s_per_gpu"].value is None
    assert "fp8 needs Ada, Hopper or Blackwell" in t["samples_per_s_per_gpu"].note.en
    assert t["samples_per_s"].value is None


def test_fp8_training_is_named_in_the_plan_text_and_assumptions():
    w = _llama()
    req = plan(w, H100)
    assert any(a.key == "fp8_training" for a in req.assumptions)
    text = format_plan_text(w, req, "en")
    assert "fp8 weight copies" in text and "fp8 scaling state" in text
    assert "Transformer Engine" in text
    d = req.to_dict()
    assert d["vram_per_gpu"]["fp8_weight_copies"] == pytest.approx(LINEAR)
    share = d["throughput"]["fp8_flops_share"]
    assert share == pytest.approx(req.throughput["fp8_flops_share"].value)
    assert 0.5 < share < 1


@pytest.mark.parametrize(("options", "message"), [
    (dict(precision="fp4"), r"fp4 \(NVFP4\) is modelled for task llm_inference only"),
    (dict(task="image_classification", model="resnet50", image_size=224, seq_len=None),
     "fp8 training is modelled for transformer models only"),
    (dict(task="llm_finetune_lora", lora_rank=16), "fp8 LoRA fine-tuning is not modelled"),
    (dict(model="custom", layers=4, hidden=512, heads=8, vocab=1000, experts=8,
          active_experts=2, expert_ffn=256),
     "fp8 training of a mixture of experts is not modelled"),
    (dict(task="nlp_transformer", model="bert-base", mode="infer", seq_len=128),
     "fp8 inference is modelled for task llm_inference only"),
])
def test_fp8_outside_transformer_training_is_refused_with_its_reason(options, message):
    with pytest.raises(InputError, match=f"'precision' {message}"):
        _llama(**options)


def test_fp8_training_of_bert_is_planned():
    # An encoder's linear layers run in fp8 too (TE's TransformerLayer): nlp_transformer
    # training is accepted and has the fp8 items.
    w = workload_from_options(task="nlp_transformer", model="bert-base", precision="fp8",
                              batch=32, seq_len=128)
    v = plan(dataclasses.replace(w), H100).vram_per_gpu
    assert v["fp8_weight_copies"].value == pytest.approx(12 * (4 * 768 * 768 + 2 * 768 * 3072))


def _machine(gpu: str, vram: int, cc: str):
    from torchrig.builds.capabilities import from_profile
    from torchrig.catalog import load_catalog
    from torchrig.hardware.model import CpuInfo, DiskInfo, GpuInfo, MemoryInfo, SystemProfile
    from torchrig.units import TB
    profile = SystemProfile(
        cpu=CpuInfo(model_name="Test CPU", physical_cores=32, logical_cpus=64),
        memory=MemoryInfo(total_bytes=512 * GiB, swap_total_bytes=0),
        gpus=[GpuInfo(index=0, name=gpu, vendor="NVIDIA", vram_total_bytes=vram,
                      compute_capability=cc, pcie_gen_max=4, pcie_width_max=16)],
        disks=[DiskInfo(mountpoint="/data", kind="nvme", total_bytes=4 * TB)],
    )
    catalog = load_catalog()
    return from_profile(profile, catalog), catalog


def test_fp8_training_on_an_a100_is_a_blocker_with_training_advice():
    from torchrig.findings import Severity
    from torchrig.planning.analysis import analyze
    caps, catalog = _machine("NVIDIA A100-SXM4-80GB", 80 * GiB, "8.0")
    assert caps.gpu_part is not None and caps.gpu_part.gpu.architecture == "Ampere"
    found = {f.code: f for f in analyze(_llama(), caps, catalog).findings}
    blocker = found["analysis.tensor_format"]
    assert blocker.severity is Severity.BLOCKER
    assert "Train in amp_bf16" in blocker.fix.en and "Serve" not in blocker.fix.en
    # an H100 has fp8 tensor cores: no such finding
    h100, _ = _machine("NVIDIA H100 80GB HBM3", 80 * GiB, "9.0")
    assert h100.gpu_part is not None and h100.gpu_part.gpu.architecture == "Hopper"
    assert "analysis.tensor_format" not in {
        f.code for f in analyze(_llama(), h100, catalog).findings}


def test_fp8_training_reads_the_16_bit_checkpoint_from_disk():
    # The model file is Llama-2-7B's bf16 checkpoint (2 B/param), not an fp8 one: TE makes
    # its fp8 copies on the GPU. fp8 serving reads a 1 B/param (ModelOpt FP8) file.
    train = plan(_llama(), H100).storage["model_bytes"].value
    serve = plan(workload_from_options(task="llm_inference", model="llama-2-7b",
                                       precision="fp8", batch=1, seq_len=4096),
                 H100).storage["model_bytes"].value
    assert train == pytest.approx(2 * P)
    assert serve == pytest.approx(1 * P)


@pytest.mark.parametrize(("options", "offered", "not_offered"), [
    (dict(), {"fp8", "amp_bf16", "bf16", "fp32"}, {"fp4", "int8", "int4"}),
    (dict(task="image_classification", model="resnet50", image_size=224, seq_len=None,
          precision="amp_fp16"), {"amp_fp16", "tf32"}, {"fp8", "fp4"}),
    (dict(task="llm_finetune_lora", lora_rank=16, precision="amp_bf16"),
     {"int8", "int4", "amp_bf16"}, {"fp8", "fp4"}),
    (dict(task="llm_inference", precision="bf16", checkpointing=None, strategy=None),
     {"fp8", "fp4", "int8", "bf16"}, set()),
])
def test_the_wizard_precision_list_offers_fp8_for_training_only_where_modelled(
        options, offered, not_offered):
    from torchrig.planning.wizard_model import precisions_for
    allowed = set(precisions_for(_llama(**options)))
    assert offered <= allowed
    assert not (not_offered & allowed)


def test_accelerates_figure_for_fp8_training_is_its_bf16_one():
    # accelerate estimate-memory has no fp8 dtype; TE keeps 16-bit weights, so the reference
    # shown is accelerate's bf16 figure: (4 B x P + buffers) / 2, the same as amp_bf16's.
    fp8 = plan(_llama(), H100).references["accelerate_model_bytes"]
    bf16 = plan(_llama(precision="amp_bf16"), H100).references["accelerate_model_bytes"]
    assert fp8.value == bf16.value
    assert fp8.value == pytest.approx(2 * P, rel=1e-3)
    assert "fp8 training" in fp8.note.en


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_header_names_fp8_for_what_it_is_in_training_and_in_inference(lang):
    # fp8 training keeps fp32 master weights (Transformer Engine); fp8 inference keeps weights
    # and activations in fp8: the header must not call a training run's weights fp8.
    train = workload_from_options(task="llm_finetune_full", model="llama-3-8b", precision="fp8",
                                  gpus=8, strategy="zero3")
    infer = workload_from_options(task="llm_inference", model="llama-3-8b", precision="fp8")
    train_head = format_plan_text(train, plan(train), lang).splitlines()[0]
    infer_head = format_plan_text(infer, plan(infer), lang).splitlines()[0]
    expected = {"en": ("FP8 (Transformer Engine: fp8 GEMMs, fp32 master weights)",
                       "FP8 (weights and activations)"),
                "zh": ("FP8（Transformer Engine：fp8 矩阵乘，fp32 主权重）",
                       "FP8（权重与激活）")}[lang]
    assert expected[0] in train_head and expected[1] not in train_head
    assert expected[1] in infer_head and expected[0] not in infer_head


def test_the_chinese_header_uses_chinese_punctuation_throughout():
    # The one-language rule (issue 25) for the plan's first line: full-width colon, commas and
    # parentheses in zh (it had ": ", ", " and a space before "（"); en keeps ASCII.
    w = workload_from_options(task="llm_finetune_full", model="llama-3-8b", gpus=8,
                              strategy="zero3")
    zh = format_plan_text(w, plan(w), "zh").splitlines()[0]
    en = format_plan_text(w, plan(w), "en").splitlines()[0]
    assert zh == ("计划 - 大模型全参数微调：Llama 3 8B（8,030.3M 参数）；微调，"
                  "自动混合精度（bf16），AdamW；每 GPU 批大小 1；8 GPU × 1 个节点，"
                  "ZeRO-3 / FSDP；序列长度 2048；梯度检查点")
    assert en == ("Plan - Full LLM fine-tuning: Llama 3 8B (8,030.3M parameters); fine-tuning, "
                  "AMP (bf16), AdamW; batch 1 per GPU; 8 GPU × 1 node, ZeRO-3 / FSDP; "
                  "sequence 2048; gradient checkpointing")
