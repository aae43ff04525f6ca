"""GPU memory items per strategy, split and offload, with hand-computed bytes (mutation
testing, issue 28). Rules: docs/estimation.md sec. 2 (model states, LoRA, offload, AdamW step
temporaries) and sec. 13 (CUDA context, fragmentation).

Figures: Llama-2-7B has 6,738,415,616 parameters and LoRA rank 16 gives 39,976,960 adapter
parameters (counted by hand in test_requirements_plan.py); Llama-3-8B has 8,030,261,248
(their Hugging Face configs).
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.requirements import plan
from torchrig.planning.workload import default_workload
from torchrig.units import GiB

P7 = 6_738_415_616
A16 = 39_976_960
P8 = 8_030_261_248


def _v(task: str, **changes):
    return plan(dataclasses.replace(default_workload(task), **changes)).vram_per_gpu


# --------------------------------------------------------------------------- offload


def test_zero3_offload_keeps_a_shard_of_16bit_weights():
    v = _v("llm_finetune_full", offload="optimizer")  # ZeRO-3, 8 GPUs
    assert v["weights"].value == 2 * P7 / 8 == 1_684_603_904
    assert v["weights"].note.en == "16-bit weights on the GPU (DeepSpeed estimator: 2 B/param " \
        "/ ranks)"
    assert v["weights"].note.zh == "GPU 上保留 16 位权重（DeepSpeed 估算器：每参数 2 字节）"
    assert (v["gradients"].value, v["optimizer_states"].value) == (0.0, 0.0)
    assert v["gradients"].note.en == "reduced into CPU RAM as they are produced (ZeRO-Offload)"
    assert v["gradients"].note.zh == "生成后即归约到 CPU 内存（ZeRO-Offload）"
    assert v["optimizer_states"].note.en == "offloaded to CPU RAM (ZeRO-Offload)"
    assert v["optimizer_states"].note.zh == "卸载到 CPU 内存（ZeRO-Offload）"


def test_zero2_offload_keeps_all_16bit_weights():
    v = _v("llm_finetune_full", offload="optimizer", strategy="zero2")
    assert v["weights"].value == 2 * P7 == 13_476_831_232
    assert v["weights"].note.en == "16-bit weights on the GPU (DeepSpeed estimator: 2 B/param)"


def test_zero_infinity_offloads_the_weights_too():
    v = _v("llm_finetune_full", offload="optimizer_and_params")
    assert v["weights"].value == 0.0
    assert v["weights"].note.en == "offloaded to CPU RAM (ZeRO-Infinity); gathered per layer"
    assert v["weights"].note.zh == "卸载到 CPU 内存（ZeRO-Infinity）；逐层收集"
    assert v["optimizer_step_transient"].value == 0.0  # DeepSpeed's fused Adam


# --------------------------------------------------------------------------- LoRA


def test_lora_notes_and_16bit_base():
    v = _v("llm_finetune_lora")  # AMP bf16, AdamW, 1 GPU
    assert v["weights"].value == 2 * P7 + 4 * A16 == 13_636_739_072
    assert v["weights"].note.en == ("frozen base 2.000 B/param (AMP (bf16)) + 40.0M LoRA "
                                    "parameters (rank 16, all linear layers) in fp32")
    assert v["weights"].note.zh == ("冻结基座每参数 2.000 字节（自动混合精度（bf16））+ 40.0M LoRA "
                                    "参数（秩 16，全部线性层）fp32")
    assert v["gradients"].note.en == "fp32 gradients of the adapters only"
    assert v["gradients"].note.zh == "仅适配器的 fp32 梯度"
    assert v["optimizer_states"].note.en == "8 B per adapter parameter (AdamW)"
    assert v["optimizer_states"].note.zh == "每个适配器参数 8 字节（AdamW）"


@pytest.mark.parametrize("precision", ["fp32", "tf32"])
def test_lora_fp32_base_is_4_bytes(precision):
    v = _v("llm_finetune_lora", precision=precision)
    assert v["weights"].value == 4 * P7 + 4 * A16 == 27_113_570_304
    assert v["weights"].note.en.startswith("frozen base 4.000 B/param (")


def test_lora_split_over_tensor_parallel_ranks():
    v = _v("llm_finetune_lora", strategy="tensor_parallel", tp_size=2, gpus_per_node=2)
    assert v["weights"].value == (2 * P7 + 4 * A16) / 2 == 6_818_369_536
    assert v["gradients"].value == 4 * A16 / 2 == 79_953_920
    assert v["optimizer_states"].value == 8 * A16 / 2 == 159_907_840
    # AdamW's foreach temporary over the adapters on this rank: 4 B x A / 2
    assert v["optimizer_step_transient"].value == 4 * A16 / 2


def test_lora_with_ema_keeps_an_fp32_copy_of_the_adapters():
    v = _v("llm_finetune_lora", ema=True)
    assert v["ema_weights"].value == 4 * A16
    assert v["ema_weights"].note.en == (
        "fp32 exponential moving average of the trained weights (4 B/param)")


# --------------------------------------------------------------------------- inference


def test_inference_weights_split_over_tensor_parallel_gpus():
    v = _v("llm_inference", strategy="tensor_parallel", tp_size=4, gpus_per_node=4)
    assert v["weights"].value == 2 * P8 / 4 == 4_015_130_624
    assert v["weights"].note.en == "2 B/param (bf16/fp16); split over 4 GPUs"
    assert v["weights"].note.zh == "每参数 2 字节（bf16/fp16）；切分到 4 个 GPU"
    for key in ("gradients", "optimizer_states"):
        assert (v[key].value, v[key].note.en, v[key].note.zh) == (
            0.0, "inference: none", "推理：无")
    assert "optimizer_step_transient" not in v
    one = _v("llm_inference")
    assert one["weights"].value == 2 * P8
    assert one["weights"].note.en == "2 B/param (bf16/fp16)"  # no split on one GPU


def test_inference_weights_split_over_pipeline_stages():
    v = _v("llm_inference", strategy="pipeline_parallel", pp_size=2, gpus_per_node=2)
    assert v["weights"].value == 2 * P8 / 2
    assert v["weights"].note.en == "2 B/param (bf16/fp16); split over 2 GPUs"


# --------------------------------------------------------------------------- DDP / ZeRO-3


def test_ddp_bucket_copy_only_with_several_ranks():
    v = _v("llm_finetune_full", strategy="ddp", precision="bf16", gpus_per_node=2)
    # pure bf16: 2 B gradients, a second copy in the DDP buckets
    assert v["gradients"].value == v["comm_buffers"].value == 2 * P7
    assert v["comm_buffers"].note.en == ("DDP gradient buckets: a second copy of the gradients "
                                         "(gradient_as_bucket_view=True removes it)")
    assert v["comm_buffers"].note.zh == ("DDP 梯度桶：梯度的第二份拷贝"
                                         "（gradient_as_bucket_view=True 可省去）")
    one = _v("llm_finetune_full", strategy="ddp", precision="bf16", gpus_per_node=1)
    assert (one["comm_buffers"].value, one["comm_buffers"].note.en) == (0.0, "none")


def test_zero3_gather_buffer_note():
    v = _v("llm_finetune_full")
    # 4 B x the 32000 x 4096 embedding (DeepSpeed's estimator) + the 5e7 prefetch bucket x 2 B
    assert v["comm_buffers"].value == 4 * 32000 * 4096 + 2 * 50_000_000
    assert v["comm_buffers"].note.en.startswith(
        "ZeRO-3 gathered parameters: the largest layer (131.1M) + the 5e7-parameter prefetch")
    assert v["comm_buffers"].note.zh.startswith("ZeRO-3 收集的参数：最大层（131.1M）")


# --------------------------------------------------------------------------- step, overhead


def test_adamw_step_temporary_per_precision_and_split():
    # DDP, no ZeRO: one tensor the size of the updated parameters' moments
    bf16 = _v("llm_finetune_full", strategy="ddp", precision="bf16", gpus_per_node=1)
    assert bf16["optimizer_step_transient"].value == 2 * P7  # pure bf16: 2 B
    amp = _v("llm_finetune_full", strategy="ddp", precision="amp_bf16", gpus_per_node=1)
    assert amp["optimizer_step_transient"].value == 4 * P7  # fp32 master moments
    tp = _v("llm_finetune_full", strategy="tensor_parallel", tp_size=4, gpus_per_node=4,
            precision="amp_bf16")
    assert tp["optimizer_step_transient"].value == 4 * P7 / 4
    sgd = _v("llm_finetune_full", strategy="ddp", optimizer="sgd", gpus_per_node=1)
    assert "optimizer_step_transient" not in sgd  # SGD with momentum updates in place


def test_overhead_and_fragmentation():
    v = _v("llm_finetune_full")
    assert v["overhead"].value == 1 * GiB
    # 10 % of every allocation but the CUDA context (and of course not of the total)
    body = sum(i.value or 0.0 for k, i in v.items()
               if k not in ("overhead", "fragmentation", "total"))
    assert v["fragmentation"].value == pytest.approx(0.10 * body)
    assert v["total"].value == pytest.approx(body + 1 * GiB + 0.10 * body)
    assert v["total"].note.en == "sum of the items above"


def test_total_says_when_it_is_incomplete():
    v = _v("image_classification", model="custom", params=5_000_000)
    assert v["activations"].value is None
    assert v["total"].note.en == "sum of the items above (incomplete: some items unknown)"
    assert v["total"].note.zh == "以上各项之和（不完整：部分项未知）"
