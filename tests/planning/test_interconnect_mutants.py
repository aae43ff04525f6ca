"""Interconnect bytes per step for data, tensor, pipeline and expert parallelism, each figure
worked out by hand (mutation testing, issue 28). Formulas: docs/estimation.md (gradients to
synchronise G; ring all-reduce 2(n-1)/n; ZeRO-3 3Psi, ZeRO paper sec. 7; Megatron TP: 2
all-reduces of b*s*h per layer forward, 2 backward).

Llama-2-7B (its Hugging Face config): 6,738,415,616 parameters, 32 layers, hidden 4096.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.i18n import Msg
from torchrig.planning.requirements.interconnect import gradient_sync_bytes, interconnect_items
from torchrig.planning.workload import default_workload, resolve_model

P = 6_738_415_616
LORA_R16 = 39_976_960  # adapters at rank 16, counted in test_requirements_plan.py


def _full(**changes):
    """Llama-2-7B full fine-tune (default: bf16 AMP, ZeRO-3, 8 GPUs), changed as given."""
    w = dataclasses.replace(default_workload("llm_finetune_full"), **changes)
    assert w.model == "llama-2-7b"
    return w


# --------------------------------------------------------------------------- gradient bytes


@pytest.mark.parametrize(("precision", "strategy", "elem"), [
    ("fp32", "ddp", 4), ("tf32", "ddp", 4),
    ("amp_bf16", "ddp", 4),  # DDP reduces param.grad in its dtype: fp32 under AMP
    ("amp_fp16", "ddp", 4),
    ("amp_bf16", "zero1", 2), ("amp_fp16", "zero2", 2), ("amp_bf16", "zero3", 2),
    ("fp32", "zero2", 4),  # ZeRO in fp32 reduces fp32
    ("bf16", "ddp", 2),
])
def test_gradient_bytes_per_precision_and_strategy(precision, strategy, elem):
    assert gradient_sync_bytes(_full(precision=precision, strategy=strategy)) == P * elem


def test_gradient_bytes_split_over_tensor_and_pipeline_ranks():
    tp = _full(strategy="tensor_parallel", tp_size=4, precision="bf16")
    assert gradient_sync_bytes(tp) == P * 2 / 4
    pp = _full(strategy="pipeline_parallel", pp_size=2, precision="fp32")
    assert gradient_sync_bytes(pp) == P * 4 / 2
    # both (not a valid workload, but the division is by t x p): 2 x 2 = 4
    both = dataclasses.replace(tp, tp_size=2, pp_size=2)
    assert gradient_sync_bytes(both) == P * 2 / 4


def test_gradient_bytes_of_lora_and_inference():
    lora = default_workload("llm_finetune_lora")
    assert gradient_sync_bytes(lora) == LORA_R16 * 4  # fp32 adapters only
    assert gradient_sync_bytes(dataclasses.replace(lora, tp_size=2, strategy="tensor_parallel")) \
        == LORA_R16 * 4 / 2
    assert gradient_sync_bytes(default_workload("llm_inference")) == 0.0


# --------------------------------------------------------------------------- items


def test_ddp_ring_volume_per_gpu():
    w = _full(strategy="ddp", precision="bf16", gpus_per_node=8)
    items = interconnect_items(w, resolve_model(w))
    # G = 2P; volume = 2 x 7/8 x 2P = 3.5P
    assert items["gradient_bytes"].value == 2 * P
    assert items["bytes_per_step_per_gpu"].value == pytest.approx(3.5 * P)
    assert items["bytes_per_step_per_gpu"].note.en.startswith("ring all-reduce: 2(n-1)/n")
    assert items["tensor_parallel_bytes_per_step_per_gpu"].value == 0.0
    assert items["expert_parallel_bytes_per_step_per_gpu"].value == 0.0


def test_zero3_volume_is_three_psi():
    w = _full(strategy="zero3", precision="amp_bf16", gpus_per_node=4)
    items = interconnect_items(w, resolve_model(w))
    # 3 x 3/4 x P x 2 B = 4.5P
    assert items["bytes_per_step_per_gpu"].value == pytest.approx(4.5 * P)
    assert "3Ψ" in items["bytes_per_step_per_gpu"].note.en
    for precision in ("fp32", "tf32"):  # 4 B weights
        w32 = dataclasses.replace(w, precision=precision)
        assert interconnect_items(w32, resolve_model(w32))["bytes_per_step_per_gpu"].value == \
            pytest.approx(9.0 * P)


def test_one_rank_or_inference_syncs_nothing():
    one = _full(strategy="ddp", gpus_per_node=1)
    items = interconnect_items(one, resolve_model(one))
    assert items["bytes_per_step_per_gpu"].value == 0.0
    assert items["bytes_per_step_per_gpu"].note.en == (
        "no data-parallel synchronisation (1 rank or inference)")
    inf = dataclasses.replace(default_workload("llm_inference"), gpus_per_node=4)
    assert interconnect_items(inf, resolve_model(inf))["bytes_per_step_per_gpu"].value == 0.0
    # Tensor parallel over all 8 GPUs leaves one data-parallel rank: nothing to all-reduce.
    tp = _full(strategy="tensor_parallel", tp_size=8, gpus_per_node=8)
    assert interconnect_items(tp, resolve_model(tp))["bytes_per_step_per_gpu"].value == 0.0


def test_tensor_parallel_activation_bytes_training():
    # Training: 4 all-reduces per layer (2 forward, 2 backward) x 32 layers x b 4 x s 4096 x
    # h 4096 x 2 B (bf16) x ring 2 x (t-1)/t with t = 4 -> 2 x 3/4 = 1.5.
    w = _full(strategy="tensor_parallel", tp_size=4, gpus_per_node=4, precision="amp_bf16",
              batch_size=4, seq_len=4096)
    got = interconnect_items(w, resolve_model(w))["tensor_parallel_bytes_per_step_per_gpu"]
    assert got.value == pytest.approx(4 * 32 * 4 * 4096 * 4096 * 2 * 1.5)
    assert got.note.en == "Megatron TP: 2 all-reduces of b·s·h activations per layer forward, " \
        "2 backward"
    # fp32 activations are 4 B: twice as much
    w32 = dataclasses.replace(w, precision="fp32")
    assert interconnect_items(w32, resolve_model(w32))[
        "tensor_parallel_bytes_per_step_per_gpu"].value == pytest.approx(2 * got.value)


def test_tensor_parallel_activation_bytes_inference():
    # Inference: forward only (2 all-reduces per layer); t = 2 -> ring 2 x 1/2 = 1.
    w = dataclasses.replace(default_workload("llm_inference"), model="llama-2-7b",
                            strategy="tensor_parallel", tp_size=2, gpus_per_node=2,
                            batch_size=8, seq_len=1024, precision="bf16")
    got = interconnect_items(w, resolve_model(w))["tensor_parallel_bytes_per_step_per_gpu"]
    assert got.value == pytest.approx(2 * 32 * 8 * 1024 * 4096 * 2 * 1.0)
    assert got.note.en.endswith("; inference: forward only, per prefill of the batch")
    assert got.note.zh.endswith("；推理：仅前向，按一批预填充计")


def test_expert_parallel_all_to_all_bytes():
    # A custom MoE transformer: 6 layers of which 2 dense -> 4 MoE layers, hidden 512, 2 of 8
    # experts active per token; batch 2 x 1024 tokens = 2,048 tokens, bf16 AMP (2 B), ep 4.
    w = dataclasses.replace(
        default_workload("llm_finetune_full"), model="custom", params=None, layers=6,
        dense_layers=2, hidden=512, heads=8, kv_heads=8, vocab=1000, ffn=1024, experts=8,
        active_experts=2, expert_ffn=1024, strategy="expert_parallel", ep_size=4,
        gpus_per_node=8, batch_size=2, seq_len=1024, precision="amp_bf16",
        gradient_checkpointing=False)
    model = resolve_model(w)
    got = interconnect_items(w, model)["expert_parallel_bytes_per_step_per_gpu"]
    # 2 all-to-alls x 2 passes (training) x 4 MoE layers x 2,048 tokens x 2 experts x 512
    # x 2 B x (4-1)/4 = 50,331,648
    assert got.value == pytest.approx(2 * 2 * 4 * 2048 * 2 * 512 * 2 * 0.75) == 50_331_648
    assert got.note.en == ("all-to-all: 2 per MoE layer forward and 2 backward x 2,048 tokens x "
                           "2 experts x hidden 512 x 2 B x (ep-1)/ep")
    # Checkpointing re-runs the forward in backward, its two all-to-alls too (issue 24): 3
    # passes, 50,331,648 x 3/2 = 75,497,472.
    ckpt = dataclasses.replace(w, gradient_checkpointing=True)
    got = interconnect_items(ckpt, model)["expert_parallel_bytes_per_step_per_gpu"]
    assert got.value == pytest.approx(2 * 3 * 4 * 2048 * 2 * 512 * 2 * 0.75) == 75_497_472
    assert got.note.en == ("all-to-all: 2 per MoE layer forward, 2 backward and 2 recomputing the "
                           "forward (checkpointing) x 2,048 tokens x 2 experts x hidden 512 x 2 B "
                           "x (ep-1)/ep")
    # Inference: one pass (half); fp32 (4 B) doubles the bytes; the serving group's batch is
    # spread over its 4 GPUs, each sending its 512 tokens (issue 24): 50,331,648 / 2 x 2 / 4
    inf = dataclasses.replace(w, task="llm_inference", mode="infer", precision="fp32")
    got = interconnect_items(inf, resolve_model(inf))["expert_parallel_bytes_per_step_per_gpu"]
    assert got.value == pytest.approx(12_582_912)
    assert got.note.en.startswith("all-to-all: 2 per MoE layer x 512 tokens (the batch's over 4 "
                                  "GPUs) x 2 experts")
    assert got.note.zh.startswith("all-to-all：每个 MoE 层前向 2 次 × 512 token（整批分到 4 个 "
                                  "GPU）")
    # Not expert parallel: none.
    ddp = dataclasses.replace(w, strategy="ddp", ep_size=1)
    got = interconnect_items(ddp, resolve_model(ddp))["expert_parallel_bytes_per_step_per_gpu"]
    assert (got.value, got.note.en) == (0.0, "no expert parallelism")


# --------------------------------------------------------------------------- second round


def test_two_ranks_synchronise():
    w = _full(strategy="ddp", precision="bf16", gpus_per_node=2)
    # 2 x 1/2 x 2P = 2P
    assert interconnect_items(w, resolve_model(w))["bytes_per_step_per_gpu"].value == \
        pytest.approx(2 * P)


def test_lora_gradients_over_pipeline_stages():
    lora = dataclasses.replace(default_workload("llm_finetune_lora"), strategy="pipeline_parallel",
                               pp_size=4, gpus_per_node=4)
    assert gradient_sync_bytes(lora) == LORA_R16 * 4 / 4


def test_tf32_activations_are_4_bytes_for_tp_and_ep():
    w = _full(strategy="tensor_parallel", tp_size=2, gpus_per_node=2, precision="tf32",
              batch_size=1, seq_len=1024)
    got = interconnect_items(w, resolve_model(w))["tensor_parallel_bytes_per_step_per_gpu"]
    # 4 x 32 layers x 1 x 1024 x 4096 x 4 B x 2 x 1/2
    assert got.value == pytest.approx(4 * 32 * 1024 * 4096 * 4 * 1.0)
    assert got.note.zh == "Megatron 张量并行：每层前向 2 次、反向 2 次 b·s·h 激活 all-reduce"


def test_one_rank_note_in_chinese_and_gradient_note():
    one = _full(strategy="ddp", gpus_per_node=1)
    items = interconnect_items(one, resolve_model(one))
    assert items["bytes_per_step_per_gpu"].note.zh == "无数据并行同步（单进程或推理）"
    assert items["gradient_bytes"].note.en == (
        "gradients each data-parallel rank synchronises per step")
    assert items["gradient_bytes"].note.zh == "每个数据并行进程每步同步的梯度字节"


def test_ring_and_zero3_notes():
    ddp = _full(strategy="ddp", gpus_per_node=2)
    assert interconnect_items(ddp, resolve_model(ddp))["bytes_per_step_per_gpu"].note == Msg(
        "ring all-reduce: 2(n-1)/n x gradient bytes sent per GPU (ZeRO-1/2: "
        "reduce-scatter + all-gather, the same 2Ψ)",
        "环形 all-reduce：每 GPU 发送 2(n-1)/n × 梯度字节（ZeRO-1/2 同为 2Ψ）")
    z3 = _full(strategy="zero3", gpus_per_node=2)
    assert interconnect_items(z3, resolve_model(z3))["bytes_per_step_per_gpu"].note == Msg(
        "ZeRO-3: all-gather weights (forward, backward) + reduce-scatter gradients "
        "= 3Ψ (ZeRO paper sec. 7)",
        "ZeRO-3：前向、反向各一次参数 all-gather + 梯度 reduce-scatter = 3Ψ（ZeRO 论文第 7 节）")
