"""GPU memory per GPU: model states, activations, the backward and optimizer-step
transients, the KV cache, communication buffers, the CUDA context and the allocator's
fragmentation headroom, summed into the total the VRAM verdict compares with the GPU.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.labels import OPTIMIZERS, PRECISIONS, label
from torchrig.planning import diffusion
from torchrig.planning.presets import Calibration
from torchrig.planning.requirements import fp8_training
from torchrig.planning.requirements.activations import (
    Activations,
    inference_activations,
    training_activations,
)
from torchrig.planning.requirements.assumptions import CUDA_OVERHEAD_BYTES, FRAGMENTATION_FRACTION
from torchrig.planning.requirements.estimators import (
    MAX_LIVE_PARAMETERS,
    PREFETCH_BUCKET_ELEMENTS,
    REDUCE_BUCKET_ELEMENTS,
)
from torchrig.planning.requirements.largest_layer import LayerEstimate, estimate_largest_layer
from torchrig.planning.requirements.model_states import (
    ModelStates,
    expert_parallel_share,
    inference_weight_bytes,
    lora_trainable_params,
    model_state_bytes,
    optimizer_state_bytes_per_param,
    quantized_weight_bytes,
)
from torchrig.planning.requirements.serving import kv_cache_item
from torchrig.planning.requirements.types import Assumption, Item
from torchrig.planning.workload import QUANTIZED, TEXT_TASKS, ResolvedModel, Workload
from torchrig.records import record


@record
class VramExtras:
    activations: Activations
    states: ModelStates | None


def vram_items(w: Workload, model: ResolvedModel, cal: Calibration | None,
               assumptions: list[Assumption], incomplete: list[str]
               ) -> tuple[dict[str, Item], VramExtras]:
    """GPU memory per GPU, item by item (ordered as the plan shows them), and the pieces the
    seed claims reuse."""
    mp = w.tp_size * w.pp_size
    ep = expert_parallel_share(w, model)
    states: ModelStates | None = None
    comm = Item(0.0, Msg("none", "无"))
    if not w.is_training:
        items = _inference_weights(w, model, mp, ep)
        acts = inference_activations(w, model, cal)
    elif w.is_lora:
        items = _lora_states(w, model, mp, ep)
        acts = training_activations(w, model, cal)
    else:
        states = model_state_bytes(model.params * ep, w.precision, w.optimizer, w.strategy,
                                   w.data_parallel, mp)
        items = _trained_states(w, model, states, ep)
        items.update(_fp8_items(w, model, mp))
        if w.strategy == "ddp" and w.data_parallel > 1:
            comm = _ddp_buckets(items["gradients"].value)
        acts = training_activations(w, model, cal)
    if w.is_training and w.strategy == "zero3":
        comm = _zero3_gather_buffer(w, model, model.params * ep / mp, assumptions)
    items.update(_frozen_and_ema(w, model, mp, ep))
    items.update(_activation_items(acts, incomplete))
    step = _optimizer_step_transient(w, model, mp, ep)
    if step is not None:
        items["optimizer_step_transient"] = step
    items["kv_cache"] = kv_cache_item(w, model)
    items["comm_buffers"] = comm
    if w.is_training and w.strategy in ("zero1", "zero2", "zero3"):
        items["zero_reduce_bucket"] = _zero_reduce_bucket()
    items["overhead"] = _cuda_overhead(assumptions)
    items["fragmentation"] = _fragmentation(items, assumptions)
    items["total"] = _total(items, incomplete)
    return items, VramExtras(acts, states)


def _expert_note(w: Workload, ep: float) -> Msg:
    """What expert parallelism leaves on one GPU (empty without it)."""
    if ep < 1.0:
        return Msg(f"; routed experts split over {w.ep_size} GPUs (expert parallel): "
                   f"{ep:.0%} of the parameters per GPU",
                   f"；路由专家切分到 {w.ep_size} 个 GPU（专家并行）：每 GPU 持有 "
                   f"{ep:.0%} 的参数")
    return Msg("", "")


def _inference_weights(w: Workload, model: ResolvedModel, mp: int, ep: float
                       ) -> dict[str, Item]:
    """Inference: the weights (split over the model-parallel GPUs), no gradients or states."""
    ep_note = _expert_note(w, ep)
    wb, note = inference_weight_bytes(w, model)
    return {
        "weights": Item(wb * ep / mp, Msg(
            f"{note.en}" + (f"; split over {mp} GPUs" if mp > 1 else "") + ep_note.en,
            f"{note.zh}" + (f"；切分到 {mp} 个 GPU" if mp > 1 else "") + ep_note.zh)),
        "gradients": Item(0.0, Msg("inference: none", "推理：无")),
        "optimizer_states": Item(0.0, Msg("inference: none", "推理：无")),
    }


def _lora_states(w: Workload, model: ResolvedModel, mp: int, ep: float) -> dict[str, Item]:
    """LoRA: the frozen base (16-bit or quantized) plus fp32 adapters, which alone have
    gradients and optimizer states."""
    if w.precision in QUANTIZED:
        base, base_per = quantized_weight_bytes(model, w.precision)
    else:
        base_per = 4.0 if w.precision in ("fp32", "tf32") else 2.0
        base = model.params * base_per
    adapters = lora_trainable_params(w, model)
    where = (Msg("attention projections", "注意力投影层") if model.arch is None
             else Msg("all linear layers", "全部线性层"))
    st = optimizer_state_bytes_per_param(w.optimizer, 4)
    return {
        "weights": Item((base * ep + adapters * 4.0) / mp, Msg(
            f"frozen base {base_per:.3f} B/param ({label(PRECISIONS, w.precision, 'en')}) + "
            f"{adapters / 1e6:.1f}M LoRA parameters (rank {w.lora_rank}, {where.en}) in fp32",
            f"冻结基座每参数 {base_per:.3f} 字节（{label(PRECISIONS, w.precision, 'zh')}）+ "
            f"{adapters / 1e6:.1f}M LoRA 参数（秩 {w.lora_rank}，{where.zh}）fp32")),
        "gradients": Item(adapters * 4.0 / mp, Msg(
            "fp32 gradients of the adapters only", "仅适配器的 fp32 梯度")),
        "optimizer_states": Item(adapters * st / mp, Msg(
            f"{st:g} B per adapter parameter ({label(OPTIMIZERS, w.optimizer, 'en')})",
            f"每个适配器参数 {st:g} 字节（{label(OPTIMIZERS, w.optimizer, 'zh')}）")),
    }


def _trained_states(w: Workload, model: ResolvedModel, states: ModelStates, ep: float
                    ) -> dict[str, Item]:
    """Full training: the model states on the GPU, or what CPU offload leaves there."""
    if w.offload != "none":
        return _offloaded_states(w, model)
    wn, gn, sn = states.note_weights, states.note_gradients, states.note_states
    if ep < 1.0:
        ep_note = _expert_note(w, ep)
        wn, gn, sn = (Msg(m.en + ep_note.en, m.zh + ep_note.zh) for m in (wn, gn, sn))
    return {"weights": Item(states.weights, wn), "gradients": Item(states.gradients, gn),
            "optimizer_states": Item(states.optimizer_states, sn)}


def _fp8_items(w: Workload, model: ResolvedModel, mp: int) -> dict[str, Item]:
    """fp8 training (Transformer Engine): the linear weights' fp8 copies and the delayed-scaling
    state (docs/estimation.md sec. 14.1); nothing for any other precision."""
    if not fp8_training.is_fp8_training(w) or model.arch is None:
        return {}
    arch = model.arch
    linear = arch.total_matmul_params() / mp
    split = Msg(f"; split over {mp} model-parallel GPUs" if mp > 1 else "",
                f"；切分到 {mp} 个模型并行 GPU" if mp > 1 else "")
    gemms = fp8_training.linear_gemms(arch)
    return {
        "fp8_weight_copies": Item(fp8_training.weight_copy_bytes(arch, mp), Msg(
            f"{fp8_training.FP8_WEIGHT_COPY_BYTES:g} B x {linear / 1e9:.2f}B linear-layer "
            "weights: the fp8 copy Transformer Engine makes for each GEMM and keeps for "
            f"backward{split.en}",
            f"{fp8_training.FP8_WEIGHT_COPY_BYTES:g} 字节 × {linear / 1e9:.2f}B 线性层权重："
            f"Transformer Engine 为每个 GEMM 生成并保留到反向的 fp8 副本{split.zh}")),
        "fp8_scaling_state": Item(fp8_training.scaling_state_bytes(arch, mp), Msg(
            f"{gemms} fp8 GEMMs x {fp8_training.SCALED_TENSORS_PER_GEMM} tensors x "
            f"({fp8_training.AMAX_HISTORY_LEN} amax history + scale + inverse scale) x 4 B "
            "(delayed scaling)",
            f"{gemms} 个 fp8 GEMM × {fp8_training.SCALED_TENSORS_PER_GEMM} 个张量 × "
            f"（{fp8_training.AMAX_HISTORY_LEN} 项 amax 历史 + 缩放 + 逆缩放）× 4 字节"
            "（延迟缩放）")),
    }


def _offloaded_states(w: Workload, model: ResolvedModel) -> dict[str, Item]:
    """ZeRO-Offload keeps the optimizer states and gradients in CPU RAM, ZeRO-Infinity the
    weights too (gathered per layer); otherwise 16-bit weights stay on the GPU."""
    n = w.data_parallel
    if w.offload == "optimizer_and_params":
        weights = Item(0.0, Msg("offloaded to CPU RAM (ZeRO-Infinity); gathered per layer",
                                "卸载到 CPU 内存（ZeRO-Infinity）；逐层收集"))
    else:
        weights = Item(2.0 * model.params / (n if w.strategy == "zero3" else 1), Msg(
            "16-bit weights on the GPU (DeepSpeed estimator: 2 B/param"
            + (" / ranks)" if w.strategy == "zero3" else ")"),
            "GPU 上保留 16 位权重（DeepSpeed 估算器：每参数 2 字节）"))
    return {
        "weights": weights,
        "gradients": Item(0.0, Msg("reduced into CPU RAM as they are produced (ZeRO-Offload)",
                                   "生成后即归约到 CPU 内存（ZeRO-Offload）")),
        "optimizer_states": Item(0.0, Msg("offloaded to CPU RAM (ZeRO-Offload)",
                                          "卸载到 CPU 内存（ZeRO-Offload）")),
    }


def _ddp_buckets(gradients: float | None) -> Item:
    return Item(gradients, Msg(
        "DDP gradient buckets: a second copy of the gradients "
        "(gradient_as_bucket_view=True removes it)",
        "DDP 梯度桶：梯度的第二份拷贝（gradient_as_bucket_view=True 可省去）"))


def _zero3_gather_buffer(w: Workload, model: ResolvedModel, params: float,
                         assumptions: list[Assumption]) -> Item:
    """What stage 3 gathers on the GPU at once: the module in use (at most the largest layer)
    and the prefetched parameters behind it (:data:`PREFETCH_BUCKET_ELEMENTS`), never more than
    :data:`MAX_LIVE_PARAMETERS`, in 16 bit; plus the largest layer's 16-bit gradient before
    its reduce-scatter. With the layer known this is DeepSpeed's estimator's 4 x largest layer
    plus the prefetch bucket; a language model given by its parameter count gets its largest
    layer estimated (:mod:`.largest_layer`, an assumption); otherwise, with no layer shapes, it
    is the most stage 3 lets live."""
    largest = model.largest_layer_params
    if largest:
        return _gather_item(largest, params, Msg(
            f"ZeRO-3 gathered parameters: the largest layer ({largest / 1e6:.1f}M) ",
            f"ZeRO-3 收集的参数：最大层（{largest / 1e6:.1f}M）"))
    guess = (estimate_largest_layer(model.params, w.hidden, w.vocab, w.ffn)
             if w.task in TEXT_TASKS else None)
    if guess is not None:
        assumptions.append(_largest_layer_assumption(guess))
        mil = guess.largest / 1e6
        return _gather_item(guess.largest, params, Msg(
            f"ZeRO-3 gathered parameters: the largest layer, estimated ({mil:.1f}M, see "
            "assumptions) ", f"ZeRO-3 收集的参数：最大层，估计值（{mil:.1f}M，见假设）"))
    live = min(params, MAX_LIVE_PARAMETERS)
    return Item(2.0 * live, Msg(
        "ZeRO-3 gathered parameters, upper bound: layer shapes unknown, so the most stage 3 "
        f"keeps live (stage3_max_live_parameters = 1e9, or the whole model: {live / 1e6:,.0f}M) "
        "in 16 bit",
        "ZeRO-3 收集的参数（上界）：层形状未知，按 ZeRO-3 最多保留的参数计（"
        f"'stage3_max_live_parameters' = 1e9，或整个模型：{live / 1e6:,.0f}M），16 位"))


def _gather_item(largest: int, params: float, head: Msg) -> Item:
    """2 x min(largest + prefetch bucket, max live, params) + 2 x largest (16 bit)."""
    live = min(largest + PREFETCH_BUCKET_ELEMENTS, MAX_LIVE_PARAMETERS, params)
    return Item(2.0 * live + 2.0 * largest, Msg(
        head.en + "+ the 5e7-parameter prefetch bucket in 16 bit, and the largest layer's 16-bit "
        "gradient (DeepSpeed's estimator counts 4 B x largest layer; stage3 defaults)",
        head.zh + "+ 5e7 参数的预取桶（16 位），以及最大层的 16 位梯度（DeepSpeed 估算器计 4 字节 "
        "× 最大层；stage3 默认值）"))


def _largest_layer_assumption(g: LayerEstimate) -> Assumption:
    """The estimated largest layer, how it was formed and how to give the real shape."""
    def src(part: str, en: str, zh: str) -> tuple[str, str]:
        return ("given", "已给出") if part in g.given else (en, zh)
    bn = g.params / 1e9
    h_en, h_zh = src("hidden", f"GPT-3 paper Table 2.1, interpolated for {bn:.2f}B parameters",
                     f"GPT-3 论文表 2.1 中 {bn:.2f}B 参数的插值")
    f_en, f_zh = src("ffn", "4 x hidden, as there", "4 × 隐藏维度，同该表")
    v_en, v_zh = src("vocab", "the planner's custom-model default", "本工具自定义模型默认值")
    return Assumption("zero3_largest_layer", Msg(
        f"ZeRO-3 gather buffer: layer shapes not given, largest layer estimated at "
        f"{g.largest / 1e6:.1f}M parameters = max(vocab {g.vocab:,} x hidden {g.hidden:,}, "
        f"hidden x ffn {g.ffn:,}); hidden: {h_en}; ffn: {f_en}; vocab: {v_en} "
        "(docs/estimation.md sec. 1.2). Give the real shape with --layers --hidden --heads "
        "(and --vocab, --ffn)",
        f"ZeRO-3 收集缓冲：未给出层形状，最大层估计为 {g.largest / 1e6:.1f}M 参数 = max(词表 "
        f"{g.vocab:,} × 隐藏维度 {g.hidden:,}, 隐藏维度 × 前馈宽度 {g.ffn:,})；隐藏维度：{h_zh}；"
        f"前馈宽度：{f_zh}；词表：{v_zh}（估算文档第 1.2 节）。用 --layers --hidden --heads"
        "（及 --vocab、--ffn）给出实际形状"), float(g.largest))


def _zero_reduce_bucket() -> Item:
    """DeepSpeed's gradient reduction bucket, allocated at its full size by every stage (not a
    model state: DeepSpeed's estimators leave it out)."""
    return Item(2.0 * REDUCE_BUCKET_ELEMENTS, Msg(
        "DeepSpeed gradient reduction bucket: reduce_bucket_size = 5e8 elements in 16 bit, "
        "allocated whole whatever the model's size (its default; stages 1-2 take two with "
        "overlap_comm)",
        "DeepSpeed 梯度归约桶：'reduce_bucket_size' = 5e8 个 16 位元素，无论模型大小整块分配"
        "（其默认值；阶段 1-2 开启 'overlap_comm' 时为两个）"))


def _frozen_and_ema(w: Workload, model: ResolvedModel, mp: int, ep: float) -> dict[str, Item]:
    """A diffusion model's frozen encoders, and the fp32 EMA copy of the trained weights this
    GPU holds (``ep``: its share under expert parallelism)."""
    items: dict[str, Item] = {}
    f = diffusion.facts(model.preset)
    if f is not None:
        frozen, frozen_note = diffusion.frozen_encoder_bytes(w, f)
        items["frozen_encoders"] = Item(frozen, frozen_note)
    if w.ema:
        trained = lora_trainable_params(w, model) if w.is_lora else model.params * ep / mp
        items["ema_weights"] = Item(trained * 4.0, Msg(
            "fp32 exponential moving average of the trained weights (4 B/param)",
            "训练权重的 fp32 指数滑动平均（每参数 4 字节）"))
    return items


def _activation_items(acts: Activations, incomplete: list[str]) -> dict[str, Item]:
    """Saved activations (unknown ones make the plan incomplete) and the LM head's backward
    transient."""
    if acts.bytes is None:
        incomplete.append("vram_per_gpu.activations")
    items = {"activations": Item(acts.bytes, acts.note)}
    if acts.transient:
        items["backward_transient"] = Item(acts.transient, Msg(
            "gradient of the fp32 logits (and its 16-bit cast) while the LM head runs backward",
            "输出头反向时 fp32 logits 的梯度（及其 16 位转换）"))
    return items


def _cuda_overhead(assumptions: list[Assumption]) -> Item:
    """The CUDA context and library workspaces (:data:`CUDA_OVERHEAD_BYTES`)."""
    assumptions.append(Assumption("cuda_overhead", Msg(
        "CUDA context and library workspaces take 1 GiB per GPU (not measured; the benchmark "
        "measures it)", "CUDA 上下文和库工作区每 GPU 占 1 GiB（未实测；基准测试会测量）"),
        CUDA_OVERHEAD_BYTES))
    return Item(float(CUDA_OVERHEAD_BYTES), Msg(
        "CUDA context + cuBLAS/cuDNN/NCCL workspaces: assumption 1 GiB per GPU (recent "
        "drivers: ~0.3-1 GiB)", "CUDA 上下文 + cuBLAS/cuDNN/NCCL 工作区：假设每 GPU 1 GiB"
        "（新驱动约 0.3-1 GiB）"))


def _fragmentation(items: dict[str, Item], assumptions: list[Assumption]) -> Item:
    """:data:`FRAGMENTATION_FRACTION` of everything allocated so far but the CUDA context."""
    body = sum(i.value or 0.0 for k, i in items.items() if k != "overhead")
    assumptions.append(Assumption("fragmentation", Msg(
        "10% of the allocations is kept free for fragmentation and peaks",
        "保留分配量的 10% 应对碎片和峰值"), FRAGMENTATION_FRACTION))
    return Item(body * FRAGMENTATION_FRACTION, Msg(
        "10% allocator headroom (vLLM's default gpu_memory_utilization = 0.9)",
        "10% 分配器余量（vLLM 默认 gpu_memory_utilization = 0.9）"))


def _total(items: dict[str, Item], incomplete: list[str]) -> Item:
    return Item(sum(i.value or 0.0 for i in items.values()), Msg(
        "sum of the items above" + (" (incomplete: some items unknown)" if incomplete else ""),
        "以上各项之和" + ("（不完整：部分项未知）" if incomplete else "")))


def _optimizer_step_transient(w: Workload, model: ResolvedModel, mp: int, ep: float
                              ) -> Item | None:
    """Temporaries of the optimizer step. torch.optim.Adam/AdamW's foreach implementation (the
    CUDA default) builds one full tensor list (sqrt of the second moments) the size of the
    parameters it updates; SGD with momentum updates in place. Measured on the CPU with the
    profiler (docs/calibration.md, "End-to-end check")."""
    if not w.is_training or w.optimizer != "adamw":
        return None
    if w.strategy in ("zero1", "zero2", "zero3") and not w.is_lora:
        return Item(0.0, Msg("DeepSpeed's fused Adam needs no full-size temporaries",
                             "DeepSpeed 融合 Adam 无需整份临时张量"))
    if w.is_lora:
        params = lora_trainable_params(w, model) / mp
        elem = 4.0
    else:
        # Only the parameters this GPU updates: under expert parallelism its share ``ep``
        # (the whole MoE model's moments were counted before, issue 28).
        params = model.params * ep / mp
        elem = 2.0 if w.precision == "bf16" else 4.0
    return Item(params * elem, Msg(
        "AdamW foreach step (PyTorch's CUDA default): one temporary the size of the updated "
        "parameters' moments; counted on top of activations to stay conservative (the two do "
        "not peak together; fused=True avoids it)",
        "AdamW foreach 步骤（PyTorch CUDA 默认）：一份与参数动量同大小的临时张量；为保守起见与激活"
        "相加（二者并不同时达到峰值；fused=True 可避免）"))
