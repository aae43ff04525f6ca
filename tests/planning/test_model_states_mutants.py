"""Model states per GPU under every precision, ZeRO stage and model-parallel split, the weights
of an inference model and the LoRA and expert-parallel counts, with bytes worked out by hand
(mutation testing, issue 28). Rules: docs/estimation.md sec. 2 (the ZeRO paper's 2 + 2 + K
bytes per parameter, K = 12 for mixed-precision Adam; stage 1 shards the states, stage 2 also
the gradients, stage 3 also the weights; tensor / pipeline parallelism divide everything) and
sec. 8.1 (weight-only int8 / int4: the blocks' linear layers quantized, the rest 16-bit).

Figures from the models' Hugging Face configs: Llama-2-7B has 6,738,415,616 parameters, 32
layers of hidden 4096 and FFN 11008; Mixtral-8x7B has 46,702,792,704 parameters, 32 layers of
hidden 4096 with 8 routed experts of FFN 14336.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.presets import TransformerArch, get_preset
from torchrig.planning.requirements.model_states import (
    expert_parallel_share,
    inference_weight_bytes,
    lora_trainable_params,
    model_state_bytes,
    optimizer_state_bytes_per_param,
    quantized_weight_bytes,
)
from torchrig.planning.workload import ResolvedModel, default_workload, resolve_model

P = 1_000_000.0  # a round parameter count: bytes per parameter read straight off
P7 = 6_738_415_616
# Llama-2-7B's linear layers: 32 x (4 x 4096^2 + 3 x 4096 x 11008) = 32 x 202,375,168.
LINEAR7 = 6_476_005_376


def _bytes(s) -> tuple[float, float, float]:
    return s.weights, s.gradients, s.optimizer_states


# --------------------------------------------------------------------------- optimizer states


@pytest.mark.parametrize(("optimizer", "elem", "expected"), [
    ("sgd", 4, 0.0), ("sgd", 2, 0.0),
    ("sgd_momentum", 4, 4.0), ("sgd_momentum", 2, 2.0),  # one momentum buffer
    ("adamw", 4, 8.0), ("adamw", 2, 4.0),  # two moments
    ("adam_8bit", 4, 2.0), ("adam_8bit", 2, 2.0),  # two 1-byte moments, whatever the elem
])
def test_optimizer_state_bytes_per_param(optimizer, elem, expected):
    assert optimizer_state_bytes_per_param(optimizer, elem) == expected


# --------------------------------------------------------------------------- precision x ZeRO


def test_fp32_ddp_is_replicated_4_4_8():
    s = model_state_bytes(P, "fp32", "adamw", "ddp", 4)
    assert _bytes(s) == (4 * P, 4 * P, 8 * P)
    assert s.note_weights.en == ("4 B/param; fp32 weights and gradients; replicated on every "
                                 "data-parallel GPU")
    assert s.note_weights.zh == "每参数 4 字节；fp32 权重和梯度；每个数据并行 GPU 各存一份"
    assert s.note_gradients.en == "4 B/param; replicated on every data-parallel GPU"
    assert s.note_gradients.zh == "每参数 4 字节；每个数据并行 GPU 各存一份"
    assert s.note_states.en == "8 B/param (AdamW); replicated on every data-parallel GPU"
    assert s.note_states.zh == "每参数 8 字节（AdamW）；每个数据并行 GPU 各存一份"


def test_tf32_counts_as_fp32():
    assert _bytes(model_state_bytes(P, "tf32", "sgd_momentum", "ddp", 2)) == (4 * P, 4 * P, 4 * P)


@pytest.mark.parametrize("precision", ["amp_fp16", "amp_bf16"])
def test_pytorch_amp_under_ddp_keeps_fp32_states(precision):
    s = model_state_bytes(P, precision, "adamw", "ddp", 8)
    assert _bytes(s) == (4 * P, 4 * P, 8 * P)  # no master copy: the weights are fp32 already
    assert s.note_weights.en == (
        "4 B/param; PyTorch AMP keeps fp32 weights and gradients; autocast makes 16-bit copies "
        "(counted with activations); replicated on every data-parallel GPU")
    assert s.note_weights.zh == (
        "每参数 4 字节；PyTorch AMP 保留 fp32 权重和梯度；autocast 生成 16 位副本（计入激活）；"
        "每个数据并行 GPU 各存一份")


def test_zero1_mixed_precision_shards_only_the_states():
    s = model_state_bytes(P, "amp_bf16", "adamw", "zero1", 4)
    # 2 + 2 + (4 master + 8 moments) / 4 ranks; DeepSpeed's fp32 gradient shard 4 / 4 ranks
    assert _bytes(s) == (2 * P, 2 * P + 4 * P / 4, 12 * P / 4)
    assert s.note_weights.en == (
        "2 B/param; ZeRO mixed precision: 16-bit weights and gradients, fp32 master copy and "
        "states (ZeRO paper sec. 3.1); optimizer states sharded over 4 ranks (ZeRO-1)")
    assert s.note_weights.zh == (
        "每参数 2 字节；ZeRO 混合精度：16 位权重和梯度，fp32 主副本与状态（ZeRO 论文 3.1 节）；"
        "优化器状态分片到 4 个进程（ZeRO-1）")
    assert s.note_states.en == "12 B/param (AdamW); optimizer states sharded over 4 ranks (ZeRO-1)"
    assert s.note_states.zh == "每参数 12 字节（AdamW）；优化器状态分片到 4 个进程（ZeRO-1）"


def test_zero2_also_shards_the_gradients():
    s = model_state_bytes(P, "amp_fp16", "adamw", "zero2", 4)
    # DeepSpeed's 2P + 18P/N: 16-bit gradient shard 2/4 + fp32 gradient shard 4/4
    assert _bytes(s) == (2 * P, 2 * P / 4 + 4 * P / 4, 12 * P / 4)
    assert s.note_gradients.en.startswith("2 B/param 16-bit + the rank's fp32 gradient shard")
    assert s.note_gradients.en.endswith("; states and gradients sharded over 4 ranks (ZeRO-2)")
    assert s.note_gradients.zh.endswith("；状态和梯度分片到 4 个进程（ZeRO-2）")


def test_zero3_shards_everything():
    s = model_state_bytes(P, "amp_bf16", "sgd_momentum", "zero3", 4)
    # 16-bit weights and gradients, 4 B master + 4 B momentum, all over 4 ranks
    # ZeRO-3 gradients as DeepSpeed's estimator counts them: 4 B per parameter of the shard
    assert _bytes(s) == (2 * P / 4, 4 * P / 4, 8 * P / 4)
    assert s.note_states.en == ("8 B/param (SGD with momentum); weights, gradients and states "
                                "sharded over 4 ranks (ZeRO-3 / FSDP)")
    assert s.note_states.zh == ("每参数 8 字节（带动量的 SGD）；权重、梯度和状态分片到 4 个进程"
                                "（ZeRO-3 / FSDP）")


def test_pure_bf16_keeps_2_byte_states_also_under_zero3():
    s = model_state_bytes(P, "bf16", "adamw", "zero3", 2)
    assert _bytes(s) == (2 * P / 2, 2 * P / 2, 4 * P / 2)
    assert s.note_weights.en == (
        "2 B/param; pure bf16: weights, gradients and optimizer states all 2 bytes; weights, "
        "gradients and states sharded over 2 ranks (ZeRO-3 / FSDP)")
    assert s.note_weights.zh == (
        "每参数 2 字节；纯 bf16：权重、梯度和优化器状态均为 2 字节；权重、梯度和状态分片到 2 个进程"
        "（ZeRO-3 / FSDP）")


def test_fp32_under_zero2_has_no_master_copy():
    # fp32 is not mixed precision: 4 + 4 + 8 bytes, gradients and states over 2 ranks.
    s = model_state_bytes(P, "fp32", "adamw", "zero2", 2)
    assert _bytes(s) == (4 * P, 4 * P / 2, 8 * P / 2)


def test_zero_on_one_rank_shards_nothing():
    s = model_state_bytes(P, "amp_bf16", "adamw", "zero3", 1)
    assert _bytes(s) == (2 * P, 4 * P, 12 * P)
    assert s.note_states.en.endswith("sharded over 1 ranks (ZeRO-3 / FSDP)")
    # no data-parallel rank at all counts as one
    assert _bytes(model_state_bytes(P, "amp_bf16", "adamw", "zero3", 0)) == (
        2 * P, 4 * P, 12 * P)


def test_model_parallel_divides_everything_and_says_so():
    s = model_state_bytes(P, "fp32", "adamw", "ddp", 3, model_parallel=4)
    assert _bytes(s) == (4 * P / 4, 4 * P / 4, 8 * P / 4)
    assert s.note_gradients.en == ("4 B/param; split over 4 model-parallel GPUs, replicated "
                                   "over 3 data-parallel ranks")
    assert s.note_gradients.zh == ("每参数 4 字节；按 4 个模型并行 GPU 切分，"
                                   "在 3 个数据并行进程间复制")
    # model_parallel 0 counts as 1; the default is 1
    assert _bytes(model_state_bytes(P, "fp32", "sgd", "ddp", 1, 0)) == (4 * P, 4 * P, 0.0)
    assert _bytes(model_state_bytes(P, "fp32", "sgd", "ddp", 1)) == (4 * P, 4 * P, 0.0)


def test_two_model_parallel_gpus_are_named_in_the_note():
    s = model_state_bytes(P, "bf16", "adamw", "ddp", 1, model_parallel=2)
    assert _bytes(s) == (P, P, 2 * P)
    assert s.note_gradients.en == ("2 B/param; split over 2 model-parallel GPUs, replicated "
                                   "over 1 data-parallel ranks")


def test_model_parallel_with_zero1_shards_the_split_states():
    s = model_state_bytes(P, "amp_bf16", "adamw", "zero1", 2, model_parallel=2)
    assert _bytes(s) == (2 * P / 2, 2 * P / 2 + 4 * P / 2 / 2, 12 * P / 2 / 2)


def test_8bit_adam_under_zero_keeps_the_fp32_master():
    s = model_state_bytes(P, "amp_bf16", "adam_8bit", "zero2", 1)
    assert s.optimizer_states == (4 + 2) * P
    assert s.note_states.en.startswith("6 B/param (8-bit Adam); ")
    assert s.note_states.zh.startswith("每参数 6 字节（8 位 Adam）；")


# --------------------------------------------------------------------------- expert parallel

# Mixtral-8x7B (its Hugging Face config): routed experts 32 x 8 x 3 x 4096 x 14336.
MIXTRAL_PARAMS = 46_702_792_704
MIXTRAL_EXPERTS = 45_097_156_608
MIXTRAL = TransformerArch(style="llama", layers=32, hidden=4096, heads=32, kv_heads=8,
                          ffn=14336, vocab=32000, tied_embeddings=False, experts=8,
                          active_experts=2, expert_ffn=14336)


def _resolved(arch: TransformerArch | None, params: int) -> ResolvedModel:
    return ResolvedModel(family="transformer", params=params, largest_layer_params=None,
                         buffer_bytes=0, arch=arch, preset=None, seq_len=4096,
                         image_size=None, channels=3)


def test_expert_parallel_share_keeps_a_full_copy_of_the_rest():
    assert MIXTRAL.routed_expert_params() == 32 * 8 * 3 * 4096 * 14336 == MIXTRAL_EXPERTS
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="expert_parallel",
                            ep_size=8)
    share = expert_parallel_share(w, _resolved(MIXTRAL, MIXTRAL_PARAMS))
    # everything but the experts (1,605,636,096) + one eighth of them (5,637,144,576)
    assert share == pytest.approx(7_242_780_672 / MIXTRAL_PARAMS, rel=1e-12)
    four = dataclasses.replace(w, ep_size=4)
    assert expert_parallel_share(four, _resolved(MIXTRAL, MIXTRAL_PARAMS)) == pytest.approx(
        (1_605_636_096 + 11_274_289_152) / MIXTRAL_PARAMS, rel=1e-12)


def test_expert_parallel_share_is_one_otherwise():
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="expert_parallel",
                            ep_size=8)
    assert expert_parallel_share(dataclasses.replace(w, strategy="zero3"),
                                 _resolved(MIXTRAL, MIXTRAL_PARAMS)) == 1.0
    assert expert_parallel_share(w, _resolved(None, MIXTRAL_PARAMS)) == 1.0
    assert expert_parallel_share(w, _resolved(MIXTRAL, 0)) == 1.0


# --------------------------------------------------------------------------- LoRA


def test_lora_trainable_params_of_a_transformer():
    w = default_workload("llm_finetune_lora")  # Llama-2-7B, rank 16
    # 32 layers x 16 x (4 x 8192 + 3 x 15104), docs/estimation.md sec. 2
    assert lora_trainable_params(w, resolve_model(w)) == 39_976_960.0
    w8 = dataclasses.replace(w, lora_rank=8)
    assert lora_trainable_params(w8, resolve_model(w8)) == 39_976_960 / 2
    # no rank given: no adapters (not a rank of 1)
    assert lora_trainable_params(dataclasses.replace(w, lora_rank=None), resolve_model(w)) == 0.0


def test_lora_trainable_params_of_a_diffusion_denoiser():
    # SD 1.5's attention projections: 199,296 adapter parameters per rank (model_presets.json,
    # counted on diffusers' UNet).
    w = dataclasses.replace(default_workload("image_generation"), lora_rank=4)
    assert lora_trainable_params(w, resolve_model(w)) == 4 * 199_296.0
    no_rank = dataclasses.replace(w, lora_rank=None)
    assert lora_trainable_params(no_rank, resolve_model(w)) == 0.0


# --------------------------------------------------------------------------- inference weights


def _infer(precision: str):
    w = dataclasses.replace(default_workload("llm_inference"), model="llama-2-7b",
                            precision=precision)
    return inference_weight_bytes(w, resolve_model(w))


@pytest.mark.parametrize("precision", ["fp32", "tf32"])
def test_fp32_inference_weights(precision):
    b, note = _infer(precision)
    assert b == 4.0 * P7
    assert (note.en, note.zh) == ("4 B/param (fp32)", "每参数 4 字节（fp32）")


@pytest.mark.parametrize("precision", ["amp_fp16", "amp_bf16"])
def test_autocast_inference_keeps_fp32_weights_and_16bit_copies(precision):
    b, note = _infer(precision)
    assert b == 6.0 * P7
    assert note.en == ("fp32 weights + 16-bit autocast copies (6 B/param); cast the model to "
                       "bf16 to need 2")
    assert note.zh == ("fp32 权重 + 16 位 autocast 副本（每参数 6 字节）；"
                       "把模型转为 bf16 只需 2 字节")


def test_bf16_inference_weights():
    b, note = _infer("bf16")
    assert b == 2.0 * P7
    assert (note.en, note.zh) == ("2 B/param (bf16/fp16)", "每参数 2 字节（bf16/fp16）")


def test_int8_inference_weights():
    b, note = _infer("int8")
    # linear layers at 1 B, the other 262,410,240 parameters (embeddings, norms, head) at 2 B
    assert b == LINEAR7 * 1 + (P7 - LINEAR7) * 2 == 7_000_825_856
    assert note.en == ("1.000 B/param for the transformer's linear layers (int8); embeddings, "
                       "norms and LM head stay 16-bit")
    assert note.zh == "线性层每参数 1.000 字节（int8）；嵌入、归一化和输出头保持 16 位"


def test_int4_inference_weights():
    b, note = _infer("int4")
    # 4 bits + one fp16 scale per 128 weights = 0.5 + 2/128 = 33/64 B
    assert b == LINEAR7 * 33 / 64 + (P7 - LINEAR7) * 2 == 3_864_010_752
    assert note.en == ("0.516 B/param for the transformer's linear layers (int4, fp16 scale per "
                       "128 weights); embeddings, norms and LM head stay 16-bit")
    # the Chinese note now names the scale too (issue 24), as the English one always did
    assert note.zh == ("线性层每参数 0.516 字节（int4，每 128 个权重一个 fp16 缩放）；嵌入、"
                       "归一化和输出头保持 16 位")


def test_quantized_model_without_an_architecture_quantizes_every_weight():
    resnet = get_preset("resnet50")
    model = ResolvedModel(family="cnn", params=resnet.params, largest_layer_params=None,
                          buffer_bytes=0, arch=None, preset=None, seq_len=None,
                          image_size=224, channels=3)
    assert quantized_weight_bytes(model, "int8") == (25_557_032 * 1.0, 1.0)
    assert quantized_weight_bytes(model, "int4") == (25_557_032 * 33 / 64, 33 / 64)


def test_autocast_copies_under_expert_parallel_are_of_this_gpus_experts():
    """Each GPU casts the weights it holds: attention, router, LM head and 1/ep of the routed
    experts (a copy of every expert was counted: 86.7 GiB for Mixtral on each of 8 GPUs)."""
    from torchrig.planning.requirements.activations import autocast_weight_copies

    w = dataclasses.replace(default_workload("llm_finetune_full"), precision="amp_bf16",
                            strategy="expert_parallel", ep_size=8, tp_size=1, pp_size=1)
    attention = 32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096)  # q, k, v (8 K/V heads), o
    router = 32 * 4096 * 8
    lm_head = 32000 * 4096
    mine = attention + router + lm_head + MIXTRAL_EXPERTS / 8
    assert autocast_weight_copies(w, MIXTRAL) == pytest.approx(2 * mine, rel=1e-12)
    # Data parallel holds every expert, so it casts every one.
    ddp = dataclasses.replace(w, strategy="ddp", ep_size=1)
    assert autocast_weight_copies(ddp, MIXTRAL) == pytest.approx(
        2 * (attention + router + lm_head + MIXTRAL_EXPERTS), rel=1e-12)
