"""FLOPs of one training sample: 6N + 12·L·s·h per token for transformers (PaLM appendix B;
4N + attention under LoRA), 3 x the forward FLOPs for vision models (counted by
torch.utils.flop_counter, or published), checkpointing's recompute included as hardware work.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning import diffusion
from torchrig.planning.presets import Calibration, TransformerArch
from torchrig.planning.requirements.activations import logit_width
from torchrig.planning.workload import ResolvedModel, Workload


def training_flops_per_sample(w: Workload, model: ResolvedModel,
                              cal: Calibration | None) -> tuple[float | None, Msg]:
    """Model FLOPs of one training sample (forward + backward), checkpointing recompute
    included as hardware work."""
    ck = 4 / 3 if w.gradient_checkpointing else 1.0
    ck_note = Msg(" x 4/3 (checkpointing repeats the forward)" if ck > 1 else "",
                  " × 4/3（检查点重算一次前向）" if ck > 1 else "")
    if model.preset is not None and model.preset.diffusion is not None:
        return diffusion.training_flops_per_sample(w, model.preset)
    if model.arch is not None and model.family == "transformer":
        total, note = _transformer_flops(w, model.arch, model.seq_len or 1, ck, ck_note)
        if w.forward_flops_per_sample is not None and w.measured_seq_len is not None:
            return _measured_transformer_flops(w, model.arch, model.seq_len or 1, total, note)
        return total, note
    if w.forward_flops_per_sample is not None:
        forward, how = _given_forward(w, model)
        return 3 * forward * ck, Msg(f"3 x {how.en}{ck_note.en}", f"3 × {how.zh}{ck_note.zh}")
    return _vision_flops(w, model, cal, ck, ck_note)


def _given_forward(w: Workload, model: ResolvedModel) -> tuple[float, Msg]:
    """The user's or the measured forward FLOPs per sample (not a transformer), a vision
    model's scaled from the measured image size to the planned one (a CNN's by the area, a
    ViT's by its tokens: the attention's seq^2 part is left out, under 10 % at 224px)."""
    from torchrig.planning.requirements.activations import image_scale, measurement_source

    assert w.forward_flops_per_sample is not None
    if w.measured_device is None:
        return w.forward_flops_per_sample, Msg("your forward figure", "你提供的前向 FLOPs")
    src = measurement_source(w)
    forward = w.forward_flops_per_sample
    per = f"{forward / 1e9:,.3f} GFLOP"
    measured, image = w.measured_image_size, w.image_size
    if measured is None or image is None or image == measured or \
            model.family not in ("cnn", "vit"):
        at = f" at {measured}px" if measured else ""
        return forward, Msg(f"forward {per}/sample {src.en}{at}",
                            f"{src.zh}的每样本前向 {per}" + (f"（{measured}px）" if measured
                                                              else ""))
    scale, how = image_scale(model.family, image, measured)
    return forward * scale, Msg(
        f"forward {per}/sample {src.en} at {measured}px, {how.en} to {image}px (x {scale:.4g})",
        f"{src.zh}的每样本前向 {per}（{measured}px），{how.zh}至 {image}px（× {scale:.4g}）")


def _transformer_flops(w: Workload, arch: TransformerArch, seq: int, ck: float, ck_note: Msg
                       ) -> tuple[float, Msg]:
    # The head's matmul: the vocabulary for an LM head, the labels for a classifier.
    n = arch.forward_matmul_params(lm_head=False) + logit_width(w, arch) * arch.hidden
    attn = 12 * arch.layers * arch.hidden * seq
    if w.is_lora:
        # Frozen base: backward computes input gradients only (no weight gradients).
        per_token = (4 * n + 8 * arch.layers * arch.hidden * seq)
        base = Msg(f"LoRA: (4N + attention) per token, N = {n / 1e9:.2f}B matmul params",
                   f"LoRA：每 token (4N + 注意力)，N = {n / 1e9:.2f}B")
    else:
        per_token = 6 * n + attn
        base = Msg(f"6N + 12·L·s·h per token (PaLM appendix B), N = {n / 1e9:.2f}B matmul "
                   "params", f"每 token 6N + 12·L·s·h（PaLM 附录 B），N = {n / 1e9:.2f}B")
    total = per_token * seq * ck
    return total, Msg(f"{base.en} x {seq} tokens{ck_note.en}",
                      f"{base.zh} × {seq} token{ck_note.zh}")


def _formula_forward(w: Workload, arch: TransformerArch, seq: int) -> float:
    """The formula's forward FLOPs of one sample: (2N + 4·L·s·h) per token (a third of the
    training figure's 6N + 12·L·s·h)."""
    n = arch.forward_matmul_params(lm_head=False) + logit_width(w, arch) * arch.hidden
    return (2 * n + 4 * arch.layers * arch.hidden * seq) * seq


def _measured_transformer_flops(w: Workload, arch: TransformerArch, seq: int, formula: float,
                                formula_note: Msg) -> tuple[float, Msg]:
    """The forward FLOPs measured on the user's model (verify --apply) in place of the
    formula's: scaled to the planned length by the formula's forward (per token linear, the
    attention's part per seq^2), x the formula's training / forward ratio (3, LoRA's less,
    checkpointing's recompute)."""
    from torchrig.planning.requirements.activations import measurement_source

    assert w.forward_flops_per_sample is not None and w.measured_seq_len is not None
    src = measurement_source(w)
    s_m = w.measured_seq_len
    forward = w.forward_flops_per_sample
    scale_en = scale_zh = ""
    if seq != s_m:
        ratio = _formula_forward(w, arch, seq) / _formula_forward(w, arch, s_m)
        forward *= ratio
        scale_en = (f", scaled to {seq} tokens by the formula's forward (2N + 4·L·s·h per "
                    f"token: x {ratio:.4g})")
        scale_zh = f"，按公式前向（每 token 2N + 4·L·s·h）缩放至 {seq} token（× {ratio:.4g}）"
    factor = formula / _formula_forward(w, arch, seq)
    measured = w.forward_flops_per_sample / 1e9
    return forward * factor, Msg(
        f"{src.en}: forward {measured:,.3f} GFLOP/sample at {s_m} tokens{scale_en}, x "
        f"{factor:.3g} (the formula's training / forward: {formula_note.en}); the formula "
        f"alone gives {formula / 1e9:,.3f} GFLOP",
        f"{src.zh}：{s_m} token 时每样本前向 {measured:,.3f} GFLOP{scale_zh}，× {factor:.3g}"
        f"（公式的训练 / 前向之比：{formula_note.zh}）；仅按公式为 {formula / 1e9:,.3f} GFLOP")


def _vision_flops(w: Workload, model: ResolvedModel, cal: Calibration | None, ck: float,
                  ck_note: Msg) -> tuple[float | None, Msg]:
    """3 x the forward FLOPs: counted by the calibration, else the preset's published figure."""
    vc = cal.vision.get(model.preset.id) if (cal and model.preset) else None
    if vc is None and model.preset is not None and model.preset.forward_flops_per_sample:
        ref = model.preset.image_size or 1
        image = w.image_size or ref
        fwd = model.preset.forward_flops_per_sample * (image / ref) ** 2
        return 3 * fwd * ck, Msg(
            f"3 x forward {fwd / 1e9:.1f} GFLOP of the whole model (published, at {ref}px, "
            f"scaled by area; backward ~ 2x forward){ck_note.en}",
            f"3 × 整个模型前向 {fwd / 1e9:.1f} GFLOP（公开数据，{ref}px，按面积缩放；反向约为前向"
            f" 2 倍）{ck_note.zh}")
    if vc is None:
        return None, Msg("unknown for a custom model without forward_flops_per_sample",
                         "自定义模型缺少 forward_flops_per_sample，无法估算")
    image = w.image_size or vc.image_size
    scale = (image / vc.image_size) ** 2
    fwd = vc.forward_flops_per_sample * scale
    return 3 * fwd * ck, Msg(
        f"3 x forward {fwd / 1e9:.2f} GFLOP (counted by torch.utils.flop_counter at "
        f"{vc.image_size}px, scaled by area; backward ~ 2x forward){ck_note.en}",
        f"3 × 前向 {fwd / 1e9:.2f} GFLOP（torch.utils.flop_counter 在 {vc.image_size}px 计数，"
        f"按面积缩放；反向约为前向 2 倍）{ck_note.zh}")
