"""Inference: the KV cache (vLLM, arXiv 2309.06180, sec. 3; DeepSeek-V2 sec. 2.1 for latent
attention), what a serving engine gets from one tensor-parallel group - compute-bound prefill,
bandwidth-bound decoding (docs/estimation.md sec. 7), the KV budget of vLLM's
gpu_memory_utilization - vision inference at the dense peak, and image generation.
"""

from __future__ import annotations

import math

from torchrig.i18n import Msg
from torchrig.planning import diffusion
from torchrig.planning.device import DeviceSpec
from torchrig.planning.presets import ModelPreset, TransformerArch, load_calibration
from torchrig.planning.requirements.assumptions import (
    GPU_MEMORY_UTILIZATION,
    MFU,
    PREFILL_CHUNK_TOKENS,
)
from torchrig.planning.requirements.types import Assumption, Item
from torchrig.planning.workload import ResolvedModel, Workload
from torchrig.units import fmt_gib


def kv_cache_bytes(arch: TransformerArch, tokens: int, batch: int,
                   bytes_per_element: float) -> float:
    """vLLM (arXiv 2309.06180, sec. 3): 2 x layers x KV heads x head size x bytes x tokens."""
    return arch.kv_cache_bytes_per_token(bytes_per_element) * tokens * batch


def kv_share_per_gpu(w: Workload, arch: TransformerArch) -> float:
    """Share of the KV cache one GPU holds: tensor parallelism splits the KV heads (a head
    cannot be split, so fewer heads than GPUs are replicated; a latent cache is replicated),
    pipeline parallelism the layers."""
    share = 1.0
    if w.tp_size > 1 and not arch.is_mla:
        share = max(1, arch.kv_heads // w.tp_size) / arch.kv_heads
    return share / w.pp_size


def kv_cache_item(w: Workload, model: ResolvedModel) -> Item:
    arch = model.arch
    if w.is_training or arch is None or arch.style == "bert":
        return Item(0.0, Msg("none (training, or an encoder)", "无（训练或编码器模型）"))
    elem = 4.0 if w.precision in ("fp32", "tf32") else 2.0
    tokens = model.seq_len or 0
    total = arch.kv_cache_bytes_per_sequence(tokens, elem) * w.batch_size
    share = kv_share_per_gpu(w, arch)
    window = Msg("", "")
    if arch.sliding_window and arch.sliding_layers:
        window = Msg(f"; {arch.sliding_layers} sliding-window layers keep {arch.sliding_window:,} "
                     "tokens", f"；{arch.sliding_layers} 个滑动窗口层只保留 "
                     f"{arch.sliding_window:,} 个 token")
    if arch.is_mla:
        return Item(total * share, Msg(
            f"latent attention: {arch.layers} layers x ({arch.kv_lora_rank} latent + "
            f"{arch.rope_head_dim} rotary) x {elem:g} B = "
            f"{arch.kv_cache_bytes_per_token(elem):,.0f} B/token x {tokens} tokens x batch "
            f"{w.batch_size} (DeepSeek-V2 sec. 2.1){window.en}",
            f"潜在注意力：{arch.layers} 层 × （{arch.kv_lora_rank} 潜在 + {arch.rope_head_dim} "
            f"旋转）× {elem:g} 字节 = 每 token {arch.kv_cache_bytes_per_token(elem):,.0f} 字节 × "
            f"{tokens} token × 批大小 {w.batch_size}（DeepSeek-V2 第 2.1 节）{window.zh}"))
    tp, pp = w.tp_size, w.pp_size
    return Item(total * share, Msg(
        f"2 x {arch.layers} layers x {arch.kv_heads} KV heads x {arch.head_dim} x {elem:g} B = "
        f"{arch.kv_cache_bytes_per_token(elem):,.0f} B/token x {tokens} tokens x batch "
        f"{w.batch_size} (vLLM paper sec. 3){window.en}"
        + (f"; split over {tp * pp} GPUs" if tp * pp > 1 else ""),
        f"2 × {arch.layers} 层 × {arch.kv_heads} 个 KV 头 × {arch.head_dim} × {elem:g} 字节 = "
        f"每 token {arch.kv_cache_bytes_per_token(elem):,.0f} 字节 × {tokens} token × 批大小 "
        f"{w.batch_size}（vLLM 论文第 3 节）{window.zh}"
        # The Chinese note left out the window and the split the English one states.
        + (f"；切分到 {tp * pp} 个 GPU" if tp * pp > 1 else "")))


def inference_throughput(w: Workload, model: ResolvedModel, gpu: DeviceSpec | None,
                         vram: dict[str, Item], assumptions: list[Assumption],
                         no_gpu: Msg) -> tuple[dict[str, Item], float | None]:
    """Inference speed: image generation, LLM serving (no single samples-per-second figure:
    None), or a vision model's forward passes."""
    if model.preset is not None and model.preset.diffusion is not None:
        return _generation(w, model.preset, gpu, assumptions, no_gpu)
    items: dict[str, Item] = {}
    weights = vram["weights"].value or 0.0
    kv = vram["kv_cache"].value or 0.0
    read = weights + kv
    items["bytes_read_per_step"] = Item(read, Msg(
        "weights + the whole KV cache are read once per decode step",
        "每个解码步读取一次全部权重和 KV 缓存"))
    if model.arch is not None and model.arch.style != "bert":
        items.update(_serving(w, model.arch, gpu, vram, read, no_gpu))
        assumptions.append(Assumption("serving", Msg(
            f"serving: prompts prefilled in chunks of {PREFILL_CHUNK_TOKENS:,} tokens; the KV "
            f"cache gets what is left of {GPU_MEMORY_UTILIZATION:.0%} of GPU memory (vLLM's "
            "default gpu_memory_utilization); prefill at "
            f"{MFU:.0%} of the dense peak",
            f"推理服务：提示按每块 {PREFILL_CHUNK_TOKENS:,} token 分块预填充；KV 缓存使用 "
            f"{GPU_MEMORY_UTILIZATION:.0%} 显存（vLLM 默认 gpu_memory_utilization）中剩余的部分；"
            f"预填充按稠密峰值的 {MFU:.0%}"), GPU_MEMORY_UTILIZATION))
        return items, None
    per_gpu = _forward_rate(w, model, gpu)
    items["samples_per_s_per_gpu"] = Item(per_gpu, Msg(
        f"forward FLOPs at {MFU:.0%} of peak" if per_gpu else "unknown",
        f"前向 FLOPs，按峰值的 {MFU:.0%}" if per_gpu else "未知"))
    total = None if per_gpu is None else per_gpu * w.total_gpus
    items["samples_per_s"] = Item(total, Msg("all GPUs", "全部 GPU"))
    return items, total


def _forward_rate(w: Workload, model: ResolvedModel, gpu: DeviceSpec | None) -> float | None:
    """Forward passes per second on one GPU at :data:`MFU` of its peak (vision inference)."""
    per_gpu = None
    if gpu and model.preset is not None:
        cal = load_calibration()
        vc = cal.vision.get(model.preset.id) if cal else None
        peak = gpu.peak_for(w.precision)[0]
        ref, flops = ((vc.image_size, vc.forward_flops_per_sample) if vc else
                      (model.preset.image_size, model.preset.forward_flops_per_sample))
        if flops and ref and peak:
            image = w.image_size or ref
            per_gpu = peak * MFU / (flops * (image / ref) ** 2)
    return per_gpu


def _generation(w: Workload, preset: ModelPreset, gpu: DeviceSpec | None,
                assumptions: list[Assumption], no_gpu: Msg
                ) -> tuple[dict[str, Item], float | None]:
    """Image generation: compute-bound denoiser steps, then the VAE decode, per image."""
    items: dict[str, Item] = {}
    f = preset.diffusion
    assert f is not None
    n, cfg = diffusion.steps(w), diffusion.guided(w, f)
    flops = diffusion.generation_flops_per_image(w, preset)
    items["flops_per_sample"] = Item(flops, Msg(
        f"{n} denoising steps x {'2 (classifier-free guidance) x ' if cfg else ''}denoiser "
        f"forward + VAE decode + text encoder, per {w.image_size}px image",
        f"{n} 个去噪步 × {'2（无分类器引导）× ' if cfg else ''}去噪网络前向 + VAE 解码 + 文本编码，"
        f"每张 {w.image_size}px 图像"))
    util, util_note = diffusion.inference_utilisation(preset, MFU)
    items["utilisation"] = Item(util, util_note)
    assumptions.append(Assumption("generation_utilisation", util_note, util))
    peak = gpu.peak_for(w.precision)[0] if gpu else None
    items["peak_flops"] = Item(peak, Msg(f"{gpu.name}: dense peak", f"{gpu.name}：稠密峰值")
                               if gpu else no_gpu)
    per_image = None if not peak else flops / (peak * util)
    items["time_per_image_s"] = Item(per_image, Msg(
        "FLOPs per image / (peak x utilisation); a batch takes proportionally longer"
        if per_image else no_gpu.en,
        "每张图像 FLOPs /（峰值 × 利用率）；一批按比例更久" if per_image else no_gpu.zh))
    per_gpu = None if per_image is None else 1.0 / per_image
    items["samples_per_s_per_gpu"] = Item(per_gpu, Msg("images per second on one GPU",
                                                        "单 GPU 每秒生成图像数")
                                          if per_gpu else no_gpu)
    total = None if per_gpu is None else per_gpu * w.total_gpus
    items["samples_per_s"] = Item(total, Msg("one replica per GPU", "每 GPU 一个副本"))
    images = w.dataset.samples
    items["total_time_s"] = Item(None if not total or not images else images / total, Msg(
        f"{images:,} images (the dataset's sample count) / images per second",
        f"{images:,} 张图像（数据集样本数）/ 每秒图像数"))
    return items, total


def _serving(w: Workload, arch: TransformerArch, gpu: DeviceSpec | None,
             vram: dict[str, Item], read: float, no_gpu: Msg) -> dict[str, Item]:
    """What a serving engine gets from one tensor-parallel group: prefill is compute-bound and
    split over the group's GPUs, decode reads every weight and the KV cache once per step
    (memory-bound until the batch is large), the KV cache fills what memory is left."""
    items = _prefill(w, arch, gpu, no_gpu)
    items.update(_decode(w, arch, gpu, read, no_gpu))
    items.update(_kv_budget(w, arch, gpu, vram, no_gpu))
    return items


def _prefill(w: Workload, arch: TransformerArch, gpu: DeviceSpec | None, no_gpu: Msg
             ) -> dict[str, Item]:
    """Prefill of the batch's prompts, compute-bound at :data:`MFU` of the group's peak."""
    items: dict[str, Item] = {}
    seq, batch, tp = w.seq_len or 1, w.batch_size, max(1, w.tp_size)
    peak = gpu.peak_for(w.precision)[0] if gpu else None
    n = arch.forward_matmul_params(lm_head=True)

    def prefill_flops(sequences: int) -> float:
        # (2N + 4·L·s·h) per token: the causal attention averages s/2 keys per query.
        return float((2 * n + 4 * arch.layers * arch.hidden * seq) * seq * sequences)

    def prefill_time(sequences: int) -> float | None:
        return None if not peak else prefill_flops(sequences) / (peak * MFU * tp)

    flops = prefill_flops(batch)
    items["prefill_flops"] = Item(flops, Msg(
        "(2N + 4·L·s·h) per token x prompt tokens x batch, N = active matmul parameters",
        "每 token (2N + 4·L·s·h) × 提示 token × 批大小，N 为激活的矩阵乘参数"))
    at_peak = Msg(f"FLOPs / ({MFU:.0%} of the dense peak x {tp} tensor-parallel GPUs)",
                  f"FLOPs /（稠密峰值的 {MFU:.0%} × {tp} 个张量并行 GPU）")
    prefill = prefill_time(batch)
    items["prefill_time_s"] = Item(prefill, at_peak if peak else no_gpu)
    items["prefill_tokens_per_s"] = Item(
        None if not prefill else seq * batch / prefill,
        Msg("prompt tokens / prefill time", "提示 token / 预填充时间") if prefill else no_gpu)
    items["time_to_first_token_s"] = Item(prefill_time(1), Msg(
        f"prefill of one {seq:,}-token prompt on an idle engine", f"空闲时一个 {seq:,} token "
        "提示的预填充时间") if peak else no_gpu)
    return items


def _decode(w: Workload, arch: TransformerArch, gpu: DeviceSpec | None, read: float,
            no_gpu: Msg) -> dict[str, Item]:
    """Decoding: bandwidth-bound (``read`` bytes per step) until computing 2N per sequence
    takes longer."""
    items: dict[str, Item] = {}
    batch, tp = w.batch_size, max(1, w.tp_size)
    bw = gpu.memory_bandwidth_bps if gpu else None
    peak = gpu.peak_for(w.precision)[0] if gpu else None
    n = arch.forward_matmul_params(lm_head=True)
    upper = None if not bw or not read else bw / read * batch
    items["tokens_per_s_upper_bound"] = Item(upper, Msg(
        "memory bandwidth / bytes read per step x batch (bandwidth-bound decoding; "
        "docs/estimation.md sec. 7)" if upper else no_gpu.en,
        "显存带宽 / 每步读取字节 × 批大小（解码受带宽限制）" if upper else no_gpu.zh))
    decode = None
    if bw and peak and read:
        step = max(read / bw, 2.0 * n * batch / (peak * MFU * tp))
        decode = batch / step
    items["decode_tokens_per_s"] = Item(decode, Msg(
        f"batch {batch} / step time; a step reads the GPU's weights and KV cache "
        f"({fmt_gib(read)}) or computes 2N per sequence, whichever is slower",
        f"批大小 {batch} / 每步时间；每步读取本 GPU 的权重与 KV 缓存（{fmt_gib(read)}）或每序列"
        "计算 2N，取较慢者") if decode else no_gpu)
    return items


def _kv_budget(w: Workload, arch: TransformerArch, gpu: DeviceSpec | None,
               vram: dict[str, Item], no_gpu: Msg) -> dict[str, Item]:
    """The KV cache gets :data:`GPU_MEMORY_UTILIZATION` of the GPU's memory less the weights,
    activations and CUDA context; how many sequences fit in it."""
    items: dict[str, Item] = {}
    seq = w.seq_len or 1
    vram_bytes = gpu.vram_bytes if gpu else None
    fixed = sum(vram[k].value or 0.0 for k in ("weights", "activations", "overhead"))
    budget = None if vram_bytes is None else max(0.0, vram_bytes * GPU_MEMORY_UTILIZATION
                                                 - fixed)
    items["kv_cache_budget_bytes"] = Item(budget, Msg(
        f"{GPU_MEMORY_UTILIZATION:.0%} of GPU memory - weights, prefill activations and CUDA "
        "overhead", f"显存的 {GPU_MEMORY_UTILIZATION:.0%} - 权重、预填充激活和 CUDA 开销")
        if budget is not None else no_gpu)
    elem = 4.0 if w.precision in ("fp32", "tf32") else 2.0
    per_sequence = arch.kv_cache_bytes_per_sequence(seq, elem) * kv_share_per_gpu(w, arch)
    fit = None if budget is None else float(math.floor(budget / per_sequence))
    items["max_concurrent_sequences"] = Item(fit, Msg(
        f"KV budget / {fmt_gib(per_sequence)} per {seq:,}-token sequence on each GPU",
        f"KV 预算 / 每个 {seq:,} token 序列在每 GPU 上占 {fmt_gib(per_sequence)}")
        if fit is not None else no_gpu)
    return items
