"""Inference: LLM serving (the KV cache in :mod:`.kv_cache`, the calibrated time model of
prefill and decode in :mod:`.serving_time`, docs/estimation.md sec. 8), vision inference at the
dense peak, and image generation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.i18n import Msg
from torchrig.planning import diffusion
from torchrig.planning.presets import ModelPreset, load_calibration
from torchrig.planning.requirements.assumptions import (
    DECODE_BANDWIDTH_UTILISATION,
    DECODE_COMPUTE_UTILISATION,
    GPU_MEMORY_UTILIZATION,
    MFU,
    PREFILL_CHUNK_TOKENS,
    PREFILL_UTILISATION,
)

# The KV cache lives in its own module (the serving time model reads it too); its functions
# are re-exported here, where the planner and the tests have always found them.
from torchrig.planning.requirements.kv_cache import kv_cache_bytes as kv_cache_bytes
from torchrig.planning.requirements.kv_cache import kv_cache_item as kv_cache_item
from torchrig.planning.requirements.kv_cache import kv_share_per_gpu as kv_share_per_gpu
from torchrig.planning.requirements.serving_time import llm_serving_items
from torchrig.planning.requirements.types import Assumption, Item
from torchrig.planning.workload import ResolvedModel, Workload

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec


def inference_throughput(w: Workload, model: ResolvedModel, gpu: DeviceSpec | None,
                         vram: dict[str, Item], assumptions: list[Assumption],
                         no_gpu: Msg) -> tuple[dict[str, Item], float | None]:
    """Inference speed: image generation, LLM serving (no single samples-per-second figure:
    None), or a vision model's forward passes."""
    if model.preset is not None and model.preset.diffusion is not None:
        return _generation(w, model.preset, gpu, assumptions, no_gpu)
    items: dict[str, Item] = {}
    if model.arch is not None and model.arch.style != "bert":
        items.update(llm_serving_items(w, model.arch, gpu, vram, no_gpu))
        assumptions.append(Assumption("serving", Msg(
            f"serving: prompts prefilled in chunks of {PREFILL_CHUNK_TOKENS:,} tokens; the KV "
            f"cache gets what is left of {GPU_MEMORY_UTILIZATION:.0%} of GPU memory (vLLM's "
            f"default gpu_memory_utilization); prefill at {PREFILL_UTILISATION:.0%} of the "
            f"dense peak, decode at {DECODE_BANDWIDTH_UTILISATION:.0%} of the memory bandwidth "
            f"or {DECODE_COMPUTE_UTILISATION:.0%} of the peak, whichever is slower (fitted on "
            "TensorRT-LLM's published Llama 3.1 8B FP8 rates, docs/estimation.md sec. 8.6)",
            f"推理服务：提示按每块 {PREFILL_CHUNK_TOKENS:,} token 分块预填充；KV 缓存使用 "
            f"{GPU_MEMORY_UTILIZATION:.0%} 显存（vLLM 默认 gpu_memory_utilization）中剩余的部分；"
            f"预填充按稠密峰值的 {PREFILL_UTILISATION:.0%}，解码按显存带宽的 "
            f"{DECODE_BANDWIDTH_UTILISATION:.0%}或稠密峰值的 {DECODE_COMPUTE_UTILISATION:.0%}，"
            "取较慢者（按 TensorRT-LLM 公布的 Llama 3.1 8B FP8 速率"
            "拟合，估算参考第 8.6 节）"), GPU_MEMORY_UTILIZATION))
        return items, None
    weights = vram["weights"].value or 0.0
    kv = vram["kv_cache"].value or 0.0
    items["bytes_read_per_step"] = Item(weights + kv, Msg(
        "weights + the whole KV cache are read once per decode step",
        "每个解码步读取一次全部权重和 KV 缓存"))
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
