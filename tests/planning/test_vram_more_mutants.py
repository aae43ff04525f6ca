"""GPU memory items the first vram round left unasserted: the Chinese notes of the CUDA
context, fragmentation, AdamW step and LM-head transient, expert parallelism, a diffusion
model's frozen encoders and EMA, ZeRO-1/2's fused step and QLoRA's quantized base, with bytes
worked out in the test (mutation testing, issue 28). Rules: docs/estimation.md sec. 2 (model
states, LoRA, AdamW step temporaries, expert parallelism: each GPU holds 1/ep of the routed
experts and all the rest) and sec. 13 (1 GiB CUDA context, 10 % fragmentation headroom).

Figures (Hugging Face configs and model cards): Llama-2-7B 6,738,415,616 parameters, its
linear layers 6,476,005,376 (test_model_states_mutants.py), rank-16 LoRA 39,976,960;
Mixtral-8x7B 46,702,792,704 parameters, 32 x 8 x 3 x 4096 x 14336 = 45,097,156,608 of them
in routed experts; Stable Diffusion 1.5: UNet 859,520,964, VAE 83,653,863 and CLIP ViT-L/14
text encoder 123,060,480 parameters.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.requirements import plan
from torchrig.planning.workload import default_workload
from torchrig.units import GiB

P7 = 6_738_415_616
LINEAR7 = 6_476_005_376
A16 = 39_976_960
MIXTRAL = 46_702_792_704
# what one GPU of 8 holds: the 1,605,636,096 non-expert parameters + 1/8 of the experts
MIXTRAL_SHARE8 = 1_605_636_096 + 45_097_156_608 // 8


def _plan(task: str, **changes):
    return plan(dataclasses.replace(default_workload(task), **changes))


def _mixtral(task: str = "llm_finetune_full", **changes):
    return _plan(task, model="custom", layers=32, hidden=4096, heads=32, kv_heads=8,
                 ffn=14336, vocab=32000, tied_embeddings=False, experts=8, active_experts=2,
                 expert_ffn=14336, max_positions=32768, **changes)


def test_cuda_context_and_fragmentation_notes_and_assumptions():
    req = _plan("llm_finetune_lora")
    v = req.vram_per_gpu
    assert v["overhead"].value == 1 * GiB
    assert v["overhead"].note.en == ("CUDA context + cuBLAS/cuDNN/NCCL workspaces: assumption "
                                     "1 GiB per GPU (recent drivers: ~0.3-1 GiB)")
    assert v["overhead"].note.zh == ("CUDA 上下文 + cuBLAS/cuDNN/NCCL 工作区：假设每 GPU 1 GiB"
                                     "（新驱动约 0.3-1 GiB）")
    assert v["fragmentation"].note.en == ("10% allocator headroom (vLLM's default "
                                          "gpu_memory_utilization = 0.9)")
    assert v["fragmentation"].note.zh == "10% 分配器余量（vLLM 默认 gpu_memory_utilization = 0.9）"
    a = {x.key: x for x in req.assumptions}
    assert a["cuda_overhead"].value == 1 * GiB
    assert a["cuda_overhead"].text.en == ("CUDA context and library workspaces take 1 GiB per "
                                          "GPU (not measured; the benchmark measures it)")
    assert a["cuda_overhead"].text.zh == ("CUDA 上下文和库工作区每 GPU 占 1 GiB"
                                          "（未实测；基准测试会测量）")
    assert a["fragmentation"].value == 0.10
    assert a["fragmentation"].text.en == "10% of the allocations is kept free for " \
        "fragmentation and peaks"
    assert a["fragmentation"].text.zh == "保留分配量的 10% 应对碎片和峰值"
    assert v["total"].note.zh == "以上各项之和"


def test_adamw_step_note_and_lm_head_transient():
    v = _plan("llm_finetune_lora").vram_per_gpu  # AMP bf16, batch 4, seq 2048
    step = v["optimizer_step_transient"]
    assert step.value == 4 * A16
    assert step.note.en == ("AdamW foreach step (PyTorch's CUDA default): one temporary the size "
                            "of the updated parameters' moments; counted on top of activations "
                            "to stay conservative (the two do not peak together; fused=True "
                            "avoids it)")
    assert step.note.zh == ("AdamW foreach 步骤（PyTorch CUDA 默认）："
                            "一份与参数动量同大小的临时张量；为保守起见与激活相加"
                            "（二者并不同时达到峰值；fused=True 可避免）")
    # the fp32 gradient of the fp32 logits + its 16-bit cast: 4 x 2048 x 32000 x (4 + 2)
    t = v["backward_transient"]
    assert t.value == 4 * 2048 * 32000 * 6
    assert t.note.en == ("gradient of the fp32 logits (and its 16-bit cast) while the LM head "
                         "runs backward")
    assert t.note.zh == "输出头反向时 fp32 logits 的梯度（及其 16 位转换）"
    assert "backward_transient" not in _plan("nlp_transformer").vram_per_gpu  # pooled head


@pytest.mark.parametrize("strategy", ["zero1", "zero2", "zero3"])
def test_zero_uses_deepspeeds_fused_adam(strategy):
    step = _plan("llm_finetune_full", strategy=strategy).vram_per_gpu["optimizer_step_transient"]
    assert step.value == 0.0
    assert step.note.en == "DeepSpeed's fused Adam needs no full-size temporaries"
    assert step.note.zh == "DeepSpeed 融合 Adam 无需整份临时张量"


def test_zero1_and_zero2_states_on_eight_gpus():
    z1 = _plan("llm_finetune_full", strategy="zero1").vram_per_gpu
    # stage 1 keeps the 16-bit gradients whole, + the fp32 gradient shard 4P/8
    assert (z1["weights"].value, z1["gradients"].value) == (2 * P7, 2 * P7 + 4 * P7 / 8)
    assert z1["optimizer_states"].value == 12 * P7 / 8
    # neither DDP buckets nor a gather buffer; DeepSpeed's reduce bucket (5e8 x 2 B) apart
    assert z1["comm_buffers"].value == 0.0
    assert z1["zero_reduce_bucket"].value == 2 * 500_000_000
    z2 = _plan("llm_finetune_full", strategy="zero2").vram_per_gpu
    assert (z2["weights"].value, z2["gradients"].value) == (2 * P7, 2 * P7 / 8 + 4 * P7 / 8)


def test_expert_parallel_training_holds_a_share_of_the_experts():
    req = _mixtral(strategy="expert_parallel", ep_size=8, gpus_per_node=8)
    v = req.vram_per_gpu
    # PyTorch AMP under expert parallelism (no ZeRO): 4 + 4 + 8 B per parameter held
    assert v["weights"].value == pytest.approx(4 * MIXTRAL_SHARE8, rel=1e-12)
    assert v["gradients"].value == pytest.approx(4 * MIXTRAL_SHARE8, rel=1e-12)
    assert v["optimizer_states"].value == pytest.approx(8 * MIXTRAL_SHARE8, rel=1e-12)
    ep = ("; routed experts split over 8 GPUs (expert parallel): 16% of the parameters per GPU")
    ep_zh = "；路由专家切分到 8 个 GPU（专家并行）：每 GPU 持有 16% 的参数"
    for key in ("weights", "gradients", "optimizer_states"):
        assert v[key].note.en.endswith(ep), key
        assert v[key].note.zh.endswith(ep_zh), key
    # AdamW's foreach temporary covers the parameters this GPU updates, its share only
    assert v["optimizer_step_transient"].value == pytest.approx(4 * MIXTRAL_SHARE8, rel=1e-12)
    ema = _mixtral(strategy="expert_parallel", ep_size=8, gpus_per_node=8, ema=True)
    assert ema.vram_per_gpu["ema_weights"].value == pytest.approx(4 * MIXTRAL_SHARE8, rel=1e-12)


def test_without_expert_parallelism_the_whole_moe_is_held():
    v = _mixtral(strategy="zero3", gpus_per_node=8).vram_per_gpu
    assert v["weights"].value == pytest.approx(2 * MIXTRAL / 8, rel=1e-12)
    assert "expert parallel" not in v["weights"].note.en
    assert "专家并行" not in v["weights"].note.zh


def test_expert_parallel_inference_weights():
    v = _mixtral("llm_inference", strategy="expert_parallel", ep_size=8, gpus_per_node=8,
                 seq_len=4096).vram_per_gpu
    assert v["weights"].value == pytest.approx(2 * MIXTRAL_SHARE8, rel=1e-12)
    assert v["weights"].note.en == ("2 B/param (bf16/fp16); routed experts split over 8 GPUs "
                                    "(expert parallel): 16% of the parameters per GPU")
    assert v["weights"].note.zh == ("每参数 2 字节（bf16/fp16）；路由专家切分到 8 个 GPU"
                                    "（专家并行）：每 GPU 持有 16% 的参数")


def test_diffusion_full_training_frozen_encoders_and_ema():
    v = _plan("image_generation", ema=True).vram_per_gpu  # SD 1.5, AMP fp16, AdamW
    assert v["weights"].value == 4 * 859_520_964
    # VAE and text encoder stay frozen in 16 bit
    assert v["frozen_encoders"].value == 2 * (83_653_863 + 123_060_480) == 413_428_686
    assert v["ema_weights"].value == 4 * 859_520_964
    assert v["ema_weights"].note.zh == "训练权重的 fp32 指数滑动平均（每参数 4 字节）"
    assert "ema_weights" not in _plan("image_generation").vram_per_gpu


def test_diffusion_lora_adapts_the_attention_projections():
    v = _plan("image_generation", lora_rank=4).vram_per_gpu
    # SD 1.5's attention projections: 199,296 adapter parameters per rank (model_presets.json)
    adapters = 4 * 199_296
    assert v["weights"].value == 2 * 859_520_964 + 4 * adapters
    assert v["weights"].note.en == ("frozen base 2.000 B/param (AMP (fp16)) + 0.8M LoRA "
                                    "parameters (rank 4, attention projections) in fp32")
    assert v["weights"].note.zh == ("冻结基座每参数 2.000 字节（自动混合精度（fp16））+ 0.8M LoRA "
                                    "参数（秩 4，注意力投影层）fp32")
    assert v["optimizer_states"].value == 8 * adapters
    assert v["optimizer_step_transient"].value == 4 * adapters


def test_qlora_base_is_quantized():
    v = _plan("llm_finetune_lora", precision="int4").vram_per_gpu
    base = LINEAR7 * 33 / 64 + (P7 - LINEAR7) * 2  # 3,864,010,752 B
    assert v["weights"].value == base + 4 * A16
    assert v["weights"].note.en.startswith("frozen base 0.516 B/param (INT4 weights) + 40.0M "
                                           "LoRA parameters")
    assert v["weights"].note.zh.startswith("冻结基座每参数 0.516 字节（INT4 权重）")
    sgd = _plan("llm_finetune_lora", precision="int8", optimizer="sgd_momentum").vram_per_gpu
    assert sgd["weights"].value == LINEAR7 + (P7 - LINEAR7) * 2 + 4 * A16
    assert sgd["optimizer_states"].value == 4 * A16
    assert sgd["optimizer_states"].note.en == "4 B per adapter parameter (SGD with momentum)"
    assert sgd["optimizer_states"].note.zh == "每个适配器参数 4 字节（带动量的 SGD）"
    assert "optimizer_step_transient" not in sgd


def test_unknown_activations_make_the_plan_incomplete():
    req = _plan("image_classification", model="custom", params=5_000_000)
    assert req.vram_per_gpu["activations"].value is None
    assert "vram_per_gpu.activations" in req.incomplete
    assert _plan("image_classification").incomplete == []


# --------------------------------------------------------------------------- second round


def test_tensor_parallel_full_training_splits_the_states_and_the_ema():
    v = _plan("llm_finetune_full", strategy="tensor_parallel", tp_size=4, gpus_per_node=4,
              ema=True).vram_per_gpu
    # PyTorch AMP without ZeRO: 4 + 4 + 8 B per parameter, over 4 GPUs
    assert v["weights"].value == 4 * P7 / 4
    assert v["gradients"].value == 4 * P7 / 4
    assert v["optimizer_states"].value == 8 * P7 / 4
    assert v["ema_weights"].value == 4 * P7 / 4


def test_two_pipeline_stages_in_the_chinese_note_and_no_comm_buffers():
    v = _plan("llm_inference", strategy="pipeline_parallel", pp_size=2,
              gpus_per_node=2).vram_per_gpu
    assert v["weights"].note.zh == "每参数 2 字节（bf16/fp16）；切分到 2 个 GPU"
    assert (v["comm_buffers"].value, v["comm_buffers"].note.en, v["comm_buffers"].note.zh) == (
        0.0, "none", "无")


def test_items_of_zero_add_nothing_to_the_headroom_and_the_total():
    v = _plan("llm_inference").vram_per_gpu  # gradients, states, comm buffers: 0
    body = (v["weights"].value + v["activations"].value + v["kv_cache"].value)
    assert v["fragmentation"].value == pytest.approx(0.10 * body, abs=1e-3)
    assert v["total"].value == pytest.approx(1.1 * body + 1 * GiB, abs=1e-3)


def test_lora_on_an_expert_parallel_moe_keeps_a_share_of_the_base():
    common = dict(lora_rank=16, seq_len=2048, batch_size=1, gpus_per_node=8)
    ep = _mixtral("llm_finetune_lora", strategy="expert_parallel", ep_size=8, **common)
    ddp = _mixtral("llm_finetune_lora", strategy="ddp", **common)
    # the 16-bit base: all of it under DDP, this GPU's share under expert parallelism (the
    # adapters are the same in both, whatever their count)
    assert ddp.vram_per_gpu["weights"].value - ep.vram_per_gpu["weights"].value == \
        pytest.approx(2 * (MIXTRAL - MIXTRAL_SHARE8), rel=1e-12)
