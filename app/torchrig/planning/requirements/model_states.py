"""Model states per GPU (ZeRO paper sec. 3.1, 5): weights, gradients and optimizer states
under each precision and ZeRO stage, sharded by tensor / pipeline / expert parallelism; the
weights of an inference model (16-bit, or weight-only int8/int4 as bitsandbytes, GPTQ and AWQ
store them); and the trainable parameters of a LoRA run.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.labels import OPTIMIZERS, label
from torchrig.planning import diffusion
from torchrig.planning.requirements.assumptions import INT4_GROUP, NVFP4_BLOCK
from torchrig.planning.workload import ResolvedModel, Workload
from torchrig.records import record


@record
class ModelStates:
    weights: float
    gradients: float
    optimizer_states: float
    note_weights: Msg
    note_gradients: Msg
    note_states: Msg


def optimizer_state_bytes_per_param(optimizer: str, state_bytes: int) -> float:
    """Optimizer state per parameter: SGD none, momentum one buffer, Adam/AdamW two moments,
    8-bit Adam two 1-byte moments (bitsandbytes; block-wise scales are negligible)."""
    if optimizer == "adam_8bit":
        return 2.0
    return {"sgd": 0, "sgd_momentum": 1, "adamw": 2}[optimizer] * float(state_bytes)


def model_state_bytes(params: float, precision: str, optimizer: str, strategy: str,
                      data_parallel: int, model_parallel: int = 1) -> ModelStates:
    """Per-GPU weights, gradients and optimizer states.

    fp32/tf32: 4 + 4 + states. PyTorch AMP under DDP keeps fp32 parameters and gradients
    (4 + 4 + fp32 states). DeepSpeed-style mixed precision under ZeRO keeps 16-bit parameters
    and gradients plus K bytes of fp32 master copy and states (2 + 2 + K, K = 12 for Adam; ZeRO
    paper, arXiv 1910.02054). Pure bf16 keeps everything in bf16. ZeRO stage 1 shards the
    states over ``data_parallel`` ranks, stage 2 also the gradients, stage 3 also the weights;
    tensor / pipeline parallelism split everything over ``model_parallel``.

    DeepSpeed's mixed precision also turns each rank's 16-bit gradient shard into an fp32 one
    for the optimizer step (``single_partition_of_fp32_groups[i].grad`` in stage_1_and_2.py):
    4 B per parameter of the shard, the "4_grads_32bit" of
    estimate_zero2_model_states_mem_needs, so ZeRO-2 is its 2P + 18P/N. Stage 1 keeps the
    16-bit gradients whole (only the states are partitioned). ZeRO-3's gradients are 4 B per
    parameter of the shard, as estimate_zero3_model_states_mem_needs counts them (18P/N in
    all); docs/estimation.md sec. 1.2 says where stage3.py's own buffers differ.
    """
    zero = strategy in ("zero1", "zero2", "zero3")
    # fp8 training (Transformer Engine) keeps the weights, gradients, master copy and states
    # of amp_bf16; its fp8 weight copies are their own item (fp8_training.weight_copy_bytes).
    fp8 = precision == "fp8"
    mixed = precision in ("amp_fp16", "amp_bf16") or fp8
    if precision == "bf16":
        w, g, state_elem, master = 2.0, 2.0, 2, 0.0
        layout = Msg("pure bf16: weights, gradients and optimizer states all 2 bytes",
                     "纯 bf16：权重、梯度和优化器状态均为 2 字节")
    elif mixed and zero:
        w, g, state_elem, master = 2.0, 2.0, 4, 4.0
        layout = Msg("ZeRO mixed precision: 16-bit weights and gradients, fp32 master copy "
                     "and states (ZeRO paper sec. 3.1)",
                     "ZeRO 混合精度：16 位权重和梯度，fp32 主副本与状态（ZeRO 论文 3.1 节）")
    else:
        w, g, state_elem, master = 4.0, 4.0, 4, 0.0
        layout = (Msg("PyTorch AMP keeps fp32 weights and gradients; autocast makes 16-bit "
                      "copies (counted with activations)",
                      "PyTorch AMP 保留 fp32 权重和梯度；autocast 生成 16 位副本（计入激活）")
                  if mixed else Msg("fp32 weights and gradients", "fp32 权重和梯度"))
    if fp8:
        layout = Msg(f"fp8 training (Transformer Engine) keeps amp_bf16's layout: {layout.en}; "
                     "the linear layers' fp8 weight copies are a separate item",
                     f"fp8 训练（Transformer Engine）沿用 amp_bf16 的布局：{layout.zh}；线性层的 "
                     "fp8 权重副本单独计算")
    states = master + optimizer_state_bytes_per_param(optimizer, state_elem)
    n = max(1, data_parallel)
    shard_w = n if strategy == "zero3" else 1
    shard_g = n if strategy in ("zero2", "zero3") else 1
    shard_s = n if zero else 1
    mp = max(1, model_parallel)
    per = params / mp
    grads = per * g / shard_g
    if mixed and zero:
        # ZeRO-1/2: + the fp32 gradient shard the optimizer steps on; ZeRO-3: the estimator's
        # 4 B per parameter of the shard in all
        grads = 4.0 * per / n if strategy == "zero3" else grads + 4.0 * per / n
    shard_note = {
        "zero1": Msg(f"optimizer states sharded over {n} ranks (ZeRO-1)",
                     f"优化器状态分片到 {n} 个进程（ZeRO-1）"),
        "zero2": Msg(f"states and gradients sharded over {n} ranks (ZeRO-2)",
                     f"状态和梯度分片到 {n} 个进程（ZeRO-2）"),
        "zero3": Msg(f"weights, gradients and states sharded over {n} ranks (ZeRO-3 / FSDP)",
                     f"权重、梯度和状态分片到 {n} 个进程（ZeRO-3 / FSDP）"),
    }.get(strategy, Msg("replicated on every data-parallel GPU", "每个数据并行 GPU 各存一份"))
    if mp > 1:
        shard_note = Msg(f"split over {mp} model-parallel GPUs, replicated over {n} "
                         "data-parallel ranks",
                         f"按 {mp} 个模型并行 GPU 切分，在 {n} 个数据并行进程间复制")
    state_note = Msg(
        f"{states:g} B/param ({label(OPTIMIZERS, optimizer, 'en')}); {shard_note.en}",
        f"每参数 {states:g} 字节（{label(OPTIMIZERS, optimizer, 'zh')}）；{shard_note.zh}")
    return ModelStates(
        weights=per * w / shard_w, gradients=grads,
        optimizer_states=per * states / shard_s,
        note_weights=Msg(f"{w:g} B/param; {layout.en}; {shard_note.en}",
                         f"每参数 {w:g} 字节；{layout.zh}；{shard_note.zh}"),
        note_gradients=_gradient_note(g, shard_note, mixed and zero, strategy),
        note_states=state_note,
    )


def _gradient_note(g: float, shard_note: Msg, fp32_shard: bool, strategy: str) -> Msg:
    if not fp32_shard:
        return Msg(f"{g:g} B/param; {shard_note.en}", f"每参数 {g:g} 字节；{shard_note.zh}")
    if strategy == "zero3":
        return Msg("4 B/param / ranks, as DeepSpeed's estimator counts ZeRO-3's gradients (18 "
                   f"B/param in all: 2 weights + 4 gradients + 12 master copy and moments); "
                   f"{shard_note.en}",
                   "每参数 4 字节 / 进程数，按 DeepSpeed 估算器对 ZeRO-3 梯度的计法（共每参数 "
                   f"18 字节：2 权重 + 4 梯度 + 12 主副本与动量）；{shard_note.zh}")
    return Msg(f"{g:g} B/param 16-bit + the rank's fp32 gradient shard for the optimizer step "
               f"(4 B/param / ranks, DeepSpeed's 4_grads_32bit); {shard_note.en}",
               f"每参数 {g:g} 字节 16 位 + 本进程供优化器步使用的 fp32 梯度分片（每参数 4 字节 / "
               f"进程数，同 DeepSpeed 估算器）；{shard_note.zh}")


def expert_parallel_share(w: Workload, model: ResolvedModel) -> float:
    """Share of the parameters one GPU holds: expert parallelism gives each of ``ep_size`` GPUs
    1/ep of the routed experts and a full copy of everything else (attention, shared experts,
    embeddings)."""
    if w.strategy != "expert_parallel" or model.arch is None or not model.params:
        return 1.0
    experts = model.arch.routed_expert_params()
    return (model.params - experts + experts / w.ep_size) / model.params


def lora_trainable_params(w: Workload, model: ResolvedModel) -> float:
    """Adapter parameters of a LoRA run: every linear layer of a transformer's blocks, or a
    diffusion denoiser's attention projections (the count per rank is measured)."""
    f = diffusion.facts(model.preset)
    if f is not None:
        return float(f.lora_params_per_rank * (w.lora_rank or 0))
    assert model.arch is not None
    return float(model.arch.lora_params(w.lora_rank or 0))


def inference_weight_bytes(w: Workload, model: ResolvedModel) -> tuple[float, Msg]:
    p = model.params
    if w.precision in ("fp32", "tf32"):
        return 4.0 * p, Msg("4 B/param (fp32)", "每参数 4 字节（fp32）")
    if w.precision in ("amp_fp16", "amp_bf16"):
        return 6.0 * p, Msg("fp32 weights + 16-bit autocast copies (6 B/param); cast the model "
                            "to bf16 to need 2", "fp32 权重 + 16 位 autocast 副本（每参数 6 字节）"
                            "；把模型转为 bf16 只需 2 字节")
    if w.precision == "bf16":
        return 2.0 * p, Msg("2 B/param (bf16/fp16)", "每参数 2 字节（bf16/fp16）")
    total, per = quantized_weight_bytes(model, w.precision)
    scale = {"int4": Msg(f", fp16 scale per {INT4_GROUP} weights",
                         f"，每 {INT4_GROUP} 个权重一个 fp16 缩放"),
             "fp4": Msg(f", NVFP4: one fp8 scale per {NVFP4_BLOCK} values",
                        f"，NVFP4：每 {NVFP4_BLOCK} 个值一个 fp8 缩放")}.get(w.precision,
                                                                        Msg("", ""))
    # 0.5625 B (fp4) needs four decimals; int8 and int4 keep the three they always showed.
    digits = 3 if w.precision in ("int8", "int4") else 4
    return total, Msg(
        f"{per:.{digits}f} B/param for the transformer's linear layers ({w.precision}"
        f"{scale.en}); embeddings, norms and LM head stay 16-bit",
        f"线性层每参数 {per:.{digits}f} 字节（{w.precision}{scale.zh}）；嵌入、归一化和输出头"
        "保持 16 位")


def quantized_weight_bytes(model: ResolvedModel, precision: str) -> tuple[float, float]:
    """(bytes, bytes per quantized weight) of an int8/int4 (weight-only) or fp8/fp4 model: the
    blocks' linear layers are quantized, embeddings, norms and the LM head stay 16-bit (as
    bitsandbytes, GPTQ and AWQ leave them, and NVIDIA's ModelOpt FP8/NVFP4 checkpoints, whose
    quantization excludes the lm_head). fp8: 1 B (a per-tensor fp32 scale, negligible); fp4:
    0.5 B + one fp8 (1 B) scale per :data:`NVFP4_BLOCK` values (NVIDIA's NVFP4 format)."""
    per = {"int8": 1.0, "fp8": 1.0, "int4": 0.5 + 2.0 / INT4_GROUP,
           "fp4": 0.5 + 1.0 / NVFP4_BLOCK}[precision]
    quantized = float(model.params)
    if model.arch is not None:
        quantized = float(model.arch.layers * model.arch.layer_matmul_params())
    return quantized * per + (model.params - quantized) * 2.0, per
