"""Interconnect traffic per step: the gradients a data-parallel rank synchronises (ring
all-reduce 2(n-1)/n, ZeRO-3's 3Ψ, ZeRO paper sec. 7), Megatron tensor parallelism's activation
all-reduces, and expert parallelism's all-to-alls. :mod:`.scaling` turns the gradient bytes
into time over a link.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.requirements import expert_parallel
from torchrig.planning.requirements.model_states import (
    expert_parallel_share,
    lora_trainable_params,
)
from torchrig.planning.requirements.types import Item
from torchrig.planning.workload import ResolvedModel, Workload, resolve_model


def gradient_sync_bytes(w: Workload, model: ResolvedModel | None = None) -> float:
    """Bytes of gradients one data-parallel rank synchronises per step (the all-reduce payload).

    PyTorch DDP reduces ``param.grad`` in its dtype: fp32 under fp32 and AMP, bf16 when the
    model is bf16; DeepSpeed ZeRO reduces 16-bit gradients in mixed precision. LoRA syncs only
    the adapters; tensor / pipeline parallel ranks hold 1/(t*p) of the gradients.
    """
    model = model or resolve_model(w)
    if not w.is_training:
        return 0.0
    if w.is_lora:
        return lora_trainable_params(w, model) * 4.0 / (w.tp_size * w.pp_size)
    mixed = w.precision in ("amp_fp16", "amp_bf16")
    zero = w.strategy in ("zero1", "zero2", "zero3")
    elem = 2.0 if (w.precision == "bf16" or (mixed and zero)) else 4.0
    return model.params * expert_parallel_share(w, model) * elem / (w.tp_size * w.pp_size)


def tensor_parallel_calls(w: Workload, model: ResolvedModel) -> int:
    """Megatron TP all-reduces one GPU takes part in per micro-batch: 2 per layer forward and 2
    backward (training), 2 (inference), over the layers of its pipeline stage."""
    if w.tp_size <= 1 or model.arch is None:
        return 0
    return (4 if w.is_training else 2) * max(1, model.arch.layers // max(1, w.pp_size))


def tensor_parallel_bytes(w: Workload, model: ResolvedModel) -> float:
    """Bytes one GPU sends per micro-batch for Megatron TP: each all-reduce of the b·s·h
    activations moves 2(t-1)/t of them (ring); a pipeline stage runs only its L/p layers."""
    calls = tensor_parallel_calls(w, model)
    if not calls or model.arch is None:
        return 0.0
    t = w.tp_size
    act = 4.0 if w.precision in ("fp32", "tf32") else 2.0
    return calls * w.batch_size * (model.seq_len or 1) * model.arch.hidden * act \
        * 2 * (t - 1) / t


def interconnect_items(w: Workload, model: ResolvedModel) -> dict[str, Item]:
    """Bytes each GPU sends per step: data-parallel, expert-parallel, tensor-parallel."""
    items: dict[str, Item] = {}
    grads = gradient_sync_bytes(w, model)
    n = w.data_parallel
    items["gradient_bytes"] = Item(grads, Msg(
        "gradients each data-parallel rank synchronises per step",
        "每个数据并行进程每步同步的梯度字节"))
    if not w.is_training or n <= 1:
        volume = 0.0
        note = Msg("no data-parallel synchronisation (1 rank or inference)",
                   "无数据并行同步（单进程或推理）")
    elif w.strategy == "zero3":
        elem = 2.0 if w.precision != "fp32" and w.precision != "tf32" else 4.0
        volume = 3 * (n - 1) / n * model.params * elem
        note = Msg("ZeRO-3: all-gather weights (forward, backward) + reduce-scatter gradients "
                   "= 3Ψ (ZeRO paper sec. 7)", "ZeRO-3：前向、反向各一次参数 all-gather + "
                   "梯度 reduce-scatter = 3Ψ（ZeRO 论文第 7 节）")
    else:
        volume = 2 * (n - 1) / n * grads
        note = Msg("ring all-reduce: 2(n-1)/n x gradient bytes sent per GPU (ZeRO-1/2: "
                   "reduce-scatter + all-gather, the same 2Ψ)",
                   "环形 all-reduce：每 GPU 发送 2(n-1)/n × 梯度字节（ZeRO-1/2 同为 2Ψ）")
    items["bytes_per_step_per_gpu"] = Item(volume, note)
    tp_bytes = tensor_parallel_bytes(w, model)
    items["expert_parallel_bytes_per_step_per_gpu"] = _all_to_all_item(w, model)
    items["tensor_parallel_bytes_per_step_per_gpu"] = Item(tp_bytes, Msg(
        "Megatron TP: 2 all-reduces of b·s·h activations per layer forward, 2 backward"
        + ("" if w.is_training else "; inference: forward only, per prefill of the batch"),
        "Megatron 张量并行：每层前向 2 次、反向 2 次 b·s·h 激活 all-reduce"
        + ("" if w.is_training else "；推理：仅前向，按一批预填充计")))
    return items


def _all_to_all_item(w: Workload, model: ResolvedModel) -> Item:
    """Expert parallelism sends each token's hidden state to the GPUs holding its experts and
    back (two all-to-alls per MoE layer; backward repeats both, and so does the recomputed
    forward under checkpointing), (ep-1)/ep of it off-GPU (:mod:`.expert_parallel`)."""
    arch = model.arch
    if w.strategy != "expert_parallel" or arch is None:
        return Item(0.0, Msg("no expert parallelism", "无专家并行"))
    act = expert_parallel.element_bytes(w)
    n = expert_parallel.passes(w)
    tokens = expert_parallel.tokens_per_gpu(w, model)
    extra = {1: ("", ""), 2: (" forward and 2 backward", "、反向 2 次"),
             3: (" forward, 2 backward and 2 recomputing the forward (checkpointing)",
                 "、反向 2 次、重算前向 2 次（检查点）")}[n]
    # Serving: the group's batch is spread over its GPUs, each sends its share's tokens.
    share = Msg("", "") if w.is_training else Msg(
        f" (the batch's over {w.ep_size} GPUs)", f"（整批分到 {w.ep_size} 个 GPU）")
    return Item(expert_parallel.bytes_per_micro_batch(w, model), Msg(
        f"all-to-all: 2 per MoE layer{extra[0]} x {tokens:,.0f} tokens{share.en} x "
        f"{arch.active_experts} experts x hidden {arch.hidden} x {act:g} B x (ep-1)/ep",
        f"all-to-all：每个 MoE 层前向 2 次{extra[1]} × {tokens:,.0f} token{share.zh} × "
        f"{arch.active_experts} 个专家 × 隐藏维 {arch.hidden} × {act:g} 字节 × (ep-1)/ep"))
