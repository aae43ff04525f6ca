"""Latent diffusion workloads (Stable Diffusion U-Nets, DiT): memory, FLOPs and generation time.

A latent diffusion model trains or runs its denoiser on VAE latents 8x smaller than the image
on each side; the VAE and the text encoder(s) are frozen but stay in GPU memory. The figures
here come from the presets' measured entries (``scripts/calibrate_diffusion.py``): saved bytes
per sample at the preset's resolution, scaled by latent area (fused attention keeps a
per-position log-sum-exp, not the score matrix, so memory grows linearly with the area),
and forward FLOPs split into a part linear in the area and self-attention's quadratic part.

Functions return plain values and bilingual notes; :mod:`torchrig.planning.requirements`
turns them into breakdown items.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.presets import DiffusionFacts, ModelPreset
from torchrig.planning.workload import Dataset, Workload
from torchrig.units import fmt_gib

TEXT_TOKENS = 77
"""CLIP's context length: every Stable Diffusion prompt is padded to 77 tokens."""


def facts(preset: ModelPreset | None) -> DiffusionFacts | None:
    return None if preset is None else preset.diffusion


def area_scale(w: Workload, preset: ModelPreset) -> float:
    ref = preset.image_size or 1
    return ((w.image_size or ref) / ref) ** 2


def guided(w: Workload, f: DiffusionFacts) -> bool:
    return f.guidance if w.guidance is None else w.guidance


def steps(w: Workload) -> int:
    """Denoising steps per image: the workload's, or 50 (the default of diffusers' Stable
    Diffusion, SDXL and DiT pipelines, whose default guidance scales - 7.5, 5.0, 4.0 - also
    turn classifier-free guidance on; and of the benchmarks the presets are checked against)."""
    return w.denoising_steps or 50


def frozen_encoder_bytes(w: Workload, f: DiffusionFacts) -> tuple[float, Msg]:
    """The VAE and text encoder(s) held in GPU memory, frozen. Under mixed precision diffusers'
    training scripts cast them to the 16-bit weight type; only fp32/tf32 keeps them at 4 B."""
    per = 4.0 if w.precision in ("fp32", "tf32") else 2.0
    params = f.vae_params + f.text_encoder_params
    text = (Msg(f" + text encoder(s) {f.text_encoder_params / 1e6:.0f}M",
                f" + 文本编码器 {f.text_encoder_params / 1e6:.0f}M")
            if f.text_encoder_params else Msg(" (class-conditional: no text encoder)",
                                              "（类别条件：无文本编码器）"))
    return params * per, Msg(
        f"frozen VAE {f.vae_params / 1e6:.1f}M{text.en} parameters at {per:g} B/param",
        f"冻结的 VAE {f.vae_params / 1e6:.1f}M{text.zh} 参数，每参数 {per:g} 字节")


def _vae_precision(precision: str) -> str:
    """The frozen VAE runs in the 16-bit weight type under mixed precision (diffusers' scripts
    cast it; DiT's runs under autocast), in fp32 only for an fp32 run."""
    return "fp32" if precision == "fp32" else "bf16"


_PRECISION_ZH = {"amp": "自动混合精度", "fp32": "FP32", "bf16": "BF16"}
"""The calibration's precision keys as Chinese text reads them."""


def training_activation_bytes(w: Workload, preset: ModelPreset, precision: str
                              ) -> tuple[float, float, Msg]:
    """(saved bytes with the workload's checkpointing, saved bytes without, note) for one
    micro-batch. The frozen VAE encodes the batch before the denoiser runs, so the peak is the
    larger of the denoiser's saved tensors and the encoder's working set."""
    f = preset.diffusion
    assert f is not None
    acts = f.precisions[precision]
    scale = area_scale(w, preset)
    b = w.batch_size
    full = acts.bytes_per_sample * scale * b + acts.bytes_per_step
    if w.gradient_checkpointing:
        saved = acts.checkpointed_bytes_per_sample * scale * b + acts.checkpointed_bytes_per_step
        how = Msg("; checkpointing every ResNet and transformer block (diffusers)",
                  "；对每个 ResNet 块和 Transformer 块做检查点（diffusers）")
    else:
        saved, how = full, Msg("", "")
    encode = 0.0 if w.precomputed_latents else \
        f.vae_encode_peak_bytes[_vae_precision(precision)] * scale * b
    per = (acts.checkpointed_bytes_per_sample if w.gradient_checkpointing
           else acts.bytes_per_sample)
    note = Msg(
        f"measured {fmt_gib(per)}/sample at {preset.image_size}px ({precision}, fused "
        f"attention), scaled by latent area to {w.image_size}px, x batch {b}{how.en}; "
        + ("latents precomputed: no VAE encoding" if w.precomputed_latents else
           f"the VAE encoding the batch first needs {fmt_gib(encode)} (the larger of the two "
           "counts)"),
        f"{preset.image_size}px 下实测每样本 {fmt_gib(per)}"
        f"（{_PRECISION_ZH.get(precision, precision)}，融合注意力），按潜空间"
        f"面积缩放至 {w.image_size}px，× 批大小 {b}{how.zh}；"
        + ("潜变量已预先计算：无需 VAE 编码" if w.precomputed_latents else
           f"VAE 先编码该批需 {fmt_gib(encode)}（取二者较大者）"))
    return max(saved, encode), max(full, encode), note


def inference_activation_bytes(w: Workload, preset: ModelPreset, precision: str
                               ) -> tuple[float, Msg]:
    """Working set of generation: the denoiser's forward on the batch (twice as many latents
    with classifier-free guidance), or the VAE decoding the batch at the end, the larger."""
    f = preset.diffusion
    assert f is not None
    scale = area_scale(w, preset)
    copies = 2 if guided(w, f) else 1
    denoise = f.precisions[precision].inference_peak_bytes_per_sample * scale * w.batch_size \
        * copies
    decode = f.vae_decode_peak_bytes[_vae_precision(precision)] * scale * w.batch_size
    cfg = Msg(" x 2 (classifier-free guidance)" if copies == 2 else "",
              " × 2（无分类器引导）" if copies == 2 else "")
    return max(denoise, decode), Msg(
        f"denoiser forward working set (measured peak of live tensors) x batch {w.batch_size}"
        f"{cfg.en} = {fmt_gib(denoise)}, or the VAE decoding the batch {fmt_gib(decode)}, the "
        "larger", f"去噪网络前向工作集（实测活跃张量峰值）× 批大小 {w.batch_size}{cfg.zh} = "
        f"{fmt_gib(denoise)}，或 VAE 解码该批 {fmt_gib(decode)}，取较大者")


def text_encoder_flops(f: DiffusionFacts) -> float:
    """2 FLOPs per weight per token over the 77-token prompt."""
    return 2.0 * f.text_encoder_params * TEXT_TOKENS


def training_flops_per_sample(w: Workload, preset: ModelPreset) -> tuple[float, Msg]:
    """Denoiser forward + backward (3x forward; LoRA's frozen base computes input gradients
    only, 2x), checkpointing's extra forward, plus the frozen VAE encoding the image and the
    text encoder reading the caption (forward only)."""
    f = preset.diffusion
    assert f is not None
    fwd = f.forward_flops_at(w.image_size or preset.image_size or 1, preset.image_size or 1)
    factor = 2.0 if w.is_lora else 3.0
    ck = 4 / 3 if w.gradient_checkpointing else 1.0
    encode = 0.0 if w.precomputed_latents else \
        f.vae_encode_flops * area_scale(w, preset) + text_encoder_flops(f)
    total = factor * fwd * ck + encode
    how = Msg("LoRA: 2" if w.is_lora else "3", "LoRA：2" if w.is_lora else "3")
    return total, Msg(
        f"{how.en} x denoiser forward {fwd / 1e9:,.0f} GFLOP at {w.image_size}px (measured at "
        f"{preset.image_size}px; attention part grows with the square of the latent area)"
        + (" x 4/3 (checkpointing)" if ck > 1 else "")
        + (" (latents and text features precomputed)" if w.precomputed_latents else
           f" + frozen VAE encoder and text encoder {encode / 1e9:,.0f} GFLOP"),
        f"{how.zh} × 去噪网络前向 {fwd / 1e9:,.0f} GFLOP（{w.image_size}px；在 "
        f"{preset.image_size}px 实测，注意力部分随潜空间面积平方增长）"
        + (" × 4/3（检查点）" if ck > 1 else "")
        + ("（潜变量与文本特征已预先计算）" if w.precomputed_latents else
           f" + 冻结的 VAE 编码器与文本编码器 {encode / 1e9:,.0f} GFLOP"))


def generation_flops_per_image(w: Workload, preset: ModelPreset, n_steps: int | None = None,
                               guidance: bool | None = None) -> float:
    """Denoiser forwards over the steps (doubled by classifier-free guidance), the VAE decoder
    once, the text encoder once per prompt (and once for the empty prompt with guidance)."""
    f = preset.diffusion
    assert f is not None
    cfg = 2 if (guided(w, f) if guidance is None else guidance) else 1
    fwd = f.forward_flops_at(w.image_size or preset.image_size or 1, preset.image_size or 1)
    n = steps(w) if n_steps is None else n_steps
    return (n * cfg * fwd + f.vae_decode_flops * area_scale(w, preset)
            + cfg * text_encoder_flops(f))


def inference_utilisation(preset: ModelPreset, default: float) -> tuple[float, Msg]:
    """Share of the dense peak eager generation reaches: derived from the preset's published
    end-to-end time where it has one (small U-Nets at batch 1 run far below the training
    utilisation), else ``default``."""
    f = preset.diffusion
    assert f is not None
    ref = f.inference_reference
    if ref is None:
        return default, Msg(f"assumed {default:.0%} of the dense peak, as for training",
                            f"假设达到稠密峰值的 {default:.0%}（与训练相同）")
    image = preset.image_size or 1
    base = Workload(task="image_generation", mode="infer", model=preset.id, precision="bf16",
                    optimizer="adamw", batch_size=1, image_size=image,
                    dataset=Dataset(samples=0, sample_bytes=0))
    flops = generation_flops_per_image(base, preset, ref.steps, f.guidance)
    util = flops / (ref.seconds_per_image * ref.peak_flops)
    return util, Msg(f"{util:.1%} of peak, derived from a published run: {ref.source}",
                     f"峰值的 {util:.1%}，由公开测量推得：{ref.source}")
