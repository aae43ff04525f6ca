"""Activations: the bytes a training step saves for backward, and the working set of an
inference forward pass.

Transformers use the coefficients *measured* by ``scripts/calibrate_activations.py`` (read from
the presets file), corrected where a family's Hugging Face code saves more or less, with
Korthikanti et al.'s Table 2 (arXiv 2205.05198) for tensor parallelism and as the 16-bit
minimum; vision models use measured per-sample and per-block figures (checkpointing with
checkpoint_sequential's sqrt(n) segments, Chen et al.) or a published figure; diffusion models
come from :mod:`torchrig.planning.diffusion`.
"""

from __future__ import annotations

import math

from torchrig.i18n import Msg
from torchrig.planning import diffusion
from torchrig.planning.presets import Calibration, TransformerArch, TransformerCal, VisionCal
from torchrig.planning.requirements import dropout_masks, fp8_training
from torchrig.planning.requirements.assumptions import PREFILL_CHUNK_TOKENS
from torchrig.planning.workload import LOW_PRECISION, QUANTIZED, ResolvedModel, Workload
from torchrig.planning.workload import model_head as workload_head
from torchrig.records import record, replace
from torchrig.units import fmt_gib


def korthikanti_layer_bytes(seq: int, batch: int, hidden: int, heads: int, tp: int = 1,
                            sequence_parallel: bool = False, recompute: str = "none",
                            attention_scores: bool = True,
                            dropout: tuple[float, float] = (2.0, 3.0)) -> float:
    """Korthikanti et al. (arXiv 2205.05198) Table 2: activation bytes per transformer layer
    with 16-bit activations and 1-byte dropout masks. ``attention_scores=False`` drops the
    5as/h term, which fused (flash) attention does not store. ``dropout``: the table's dropout
    terms kept, (x sbh, x as^2 b) - (2, 3) as the paper counts them, (0, 0) without dropout
    (:func:`torchrig.planning.requirements.dropout_masks.korthikanti_dropout_terms`)."""
    sbh = seq * batch * hidden
    masks, score_masks = 2.0 - dropout[0], 3.0 - dropout[1]
    scores = (5 - score_masks) * heads * seq / hidden if attention_scores else 0.0
    base = 34.0 - masks
    if recompute == "full":
        return 2.0 * sbh
    if recompute == "selective":
        return base * sbh / tp
    if sequence_parallel:
        return sbh * (base / tp + scores / tp)
    if tp > 1:
        # The residual masks are the part not split (10 = 4 LayerNorm + 2 masks + 4 inputs).
        return sbh * (10 - masks + 24 / tp + scores / tp)
    return sbh * (base + scores)


def cal_precision(w: Workload) -> str:
    """Which calibration column applies: fp32 (also tf32), amp (autocast, also the compute of
    QLoRA-style quantized bases) or bf16 (whole model in 16 bit)."""
    if w.precision in ("fp32", "tf32"):
        return "fp32"
    if w.precision == "bf16" or (not w.is_training and w.precision in (*QUANTIZED,
                                                                          *LOW_PRECISION)):
        return "bf16"
    return "amp"


def model_head(w: Workload, arch: TransformerArch) -> str:
    """The output head the workload is planned with (:func:`workload.model_head`)."""
    return workload_head(w, arch.style)


def head_kind(w: Workload, arch: TransformerArch) -> str:
    """The calibration's head key: "cls" for BERT's pooled sequence classifier (measured),
    "lm" for every other head - measured with logits over the vocabulary, whose width
    :func:`logit_width` replaces for a head with other outputs."""
    return "cls" if (arch.style == "bert"
                     and model_head(w, arch) == "sequence_classification") else "lm"


def logit_width(w: Workload, arch: TransformerArch) -> int:
    """Logits per token the head computes and the fp32 loss saves: the vocabulary (LM), the
    labels (token classification; a sequence classifier other than BERT's scores every token
    and pools the last), 2 (question answering: start and end), 0 (no head, or BERT's pooled
    classifier, measured per sequence)."""
    head = model_head(w, arch)
    labels = w.num_labels or 2
    if head == "lm":
        return arch.vocab
    if head == "question_answering":
        return 2
    if head == "token_classification" or (head == "sequence_classification"
                                          and arch.style != "bert"):
        return labels
    return 0


def layer_bytes_per_token(w: Workload, arch: TransformerArch, tc: TransformerCal,
                          seq: int) -> tuple[float, Msg]:
    """Saved bytes per token of one layer: the calibrated figure, corrected where the Hugging
    Face code of a family saves what the calibration model does not (or less).

    - Grouped-query attention under sdpa saves K and V at the KV width; the calibration model
      repeats them to every head first (as eager attention does).
    - GPT-2's default ``gelu_new`` is a Python expression: autograd keeps three more FFN-wide
      tensors than the fused tanh GELU the calibration uses.
    """
    per_token = tc.layer_bytes_per_token(arch, seq)
    elem = 4.0 if cal_precision(w) == "fp32" else 2.0
    notes: list[Msg] = []
    if arch.style == "llama" and w.attention == "sdpa" and arch.kv_dim < arch.q_dim:
        per_token -= 2 * elem * (arch.q_dim - arch.kv_dim)
        notes.append(Msg("sdpa keeps grouped K/V at the KV width",
                         "sdpa 以 KV 宽度保存分组 K/V"))
    if arch.activation == "gelu_new":
        per_token += 3 * elem * arch.activation_ffn
        notes.append(Msg("gelu_new keeps 3 more FFN-wide tensors",
                         "激活函数 'gelu_new' 额外保存 3 个 FFN 宽度的张量"))
    elif arch.activation == "relu" and not arch.gated_mlp:
        # ReLU's backward reads its output, the tensor the next matmul saves anyway; GELU's
        # reads its input, one more FFN-wide tensor (the calibration's).
        per_token -= elem * arch.activation_ffn
        notes.append(Msg("relu saves its output, which the next matmul keeps anyway",
                         "relu 保存其输出，与下一矩阵乘法保存的相同"))
    if w.is_training:
        masks, why = dropout_masks.correction(w, arch, seq, fp32=elem == 4.0)
        per_token += masks
        if why.en:
            notes.append(why)
    return per_token, Msg("; ".join(n.en for n in notes), "；".join(n.zh for n in notes))


def _mlm_loss_extra_per_token(w: Workload, arch: TransformerArch, head: str) -> float:
    """BERT's masked-LM loss under AMP: the 16-bit logits are cast to fp32 for the loss and
    both stay saved, 6 bytes per vocabulary entry per token where the calibration has 4."""
    if arch.style == "bert" and head == "lm" and cal_precision(w) == "amp":
        return 2.0 * logit_width(w, arch)
    return 0.0


_MLM_TRANSFORM_BYTES = {"fp32": 12.0, "amp": 8.0, "bf16": 6.0}
"""Bytes per hidden unit per token BERT's masked-LM head transform saves beyond the
calibration's plain LM head: the dense layer's output (GELU's input), the GELU output
(LayerNorm's input, fp32 under autocast) and the LayerNorm output the decoder saves in place
of the final hidden state (fp32: 4 + 4 + 4; autocast: 2 + 4 + 2; bf16: 2 + 2 + 2)."""


def _mlm_transform_per_token(w: Workload, arch: TransformerArch, prec: str) -> float:
    """BertForMaskedLM's head runs dense -> GELU -> LayerNorm before the decoder (measured on
    the transformers model, tests/planning/test_cfg24_activations.py); the calibration's BERT
    LM head is the decoder alone. + 8: the LayerNorm's fp32 mean and inverse deviation."""
    if arch.style == "bert" and model_head(w, arch) == "lm":
        return _MLM_TRANSFORM_BYTES[prec] * arch.hidden + 8.0
    return 0.0


@record
class Activations:
    bytes: float | None
    note: Msg
    without_checkpointing: float | None = None
    transient: float = 0.0  # backward peak on top of the saved bytes (LM head gradients)


def autocast_weight_copies(w: Workload, arch: TransformerArch) -> float:
    """Autocast keeps a 16-bit copy of every matmul weight this GPU holds for backward (the
    calibration measures this as the batch-independent part); not under ZeRO or LoRA (none
    are made).
    Under fp8 training the blocks' linear layers hold an fp8 copy instead (its own item,
    fp8_training.weight_copy_bytes); the LM head stays a bf16 autocast matmul."""
    if cal_precision(w) != "amp" or w.is_lora or w.strategy in ("zero1", "zero2", "zero3"):
        return 0.0
    blocks: float = 0 if fp8_training.is_fp8_training(w) else arch.total_matmul_params()
    if blocks and w.strategy == "expert_parallel":
        # Each GPU holds - and so casts - 1/ep of the routed experts (as its weights,
        # model_states.expert_parallel_share); a copy of all of them was counted.
        routed = arch.routed_expert_params()
        blocks -= routed - routed / max(1, w.ep_size)
    matmul = blocks + logit_width(w, arch) * arch.hidden
    return 2.0 * matmul / (w.tp_size * w.pp_size)


def pipeline_held_layers(w: Workload, layers: int) -> float:
    """Layers' worth of one micro-batch's activations the busiest GPU holds. Without a
    pipeline, all of them. In 1F1B the first stage runs min(m, p) forwards (p - 1 warm-up
    micro-batches, capped at the step's m, then one) before its first backward frees one
    (Korthikanti et al. sec. 4.2.3; Megatron's num_warmup_microbatches), each of L/p layers:
    all L layers' worth once m >= p, m/p of it with fewer micro-batches. Interleaved (v > 1):
    :func:`interleaved_held_chunks` chunk forwards of L/(p·v) layers each."""
    p = max(1, w.pp_size)
    if p == 1:
        return float(layers)
    v = max(1, w.vp_size)
    if v > 1:
        return layers * interleaved_held_chunks(w) / (p * v)
    return layers * min(w.grad_accumulation, p) / p


def interleaved_held_chunks(w: Workload) -> int:
    """Chunk forwards (one micro-batch through one of the GPU's v chunks of L/(p·v) layers)
    whose activations the first stage holds at once in the interleaved schedule. Megatron-LM's
    ``forward_backward_pipelining_with_interleaving`` (megatron/core/pipeline_parallel/
    schedules.py, ``get_pp_rank_microbatches``) runs num_warmup_microbatches = (p - rank - 1)
    x 2 + (v - 1) x p chunk forwards before the steady 1F1B part (micro-batch groups of p, its
    default), whose first forward comes before the first backward: on rank 0 2(p - 1) +
    (v - 1)·p + 1. When that reaches the step's m·v chunk forwards, all run in the warm-up and
    all are held."""
    p, v, m = w.pp_size, w.vp_size, w.grad_accumulation
    return min(2 * (p - 1) + (v - 1) * p + 1, m * v)


def transformer_activations(w: Workload, arch: TransformerArch, seq: int,
                            cal: Calibration | None, checkpointing: bool) -> Activations:
    """Saved-for-backward bytes per GPU for one micro-batch, from measured coefficients."""
    prec = cal_precision(w)
    head = head_kind(w, arch)
    tc: TransformerCal | None = cal.transformer_cal(arch.style, w.attention, head, prec) \
        if cal else None
    if tc is None:
        return Activations(None, Msg(
            "not calibrated for this architecture: run scripts/calibrate_activations.py",
            "该结构未校准：请运行 scripts/calibrate_activations.py"))
    b = w.batch_size
    per_token, fixes = layer_bytes_per_token(w, arch, tc, seq)
    per_token, fixes = _fp8_saved_inputs(w, arch, per_token, fixes)
    layer = per_token * seq * b
    tp = w.tp_size
    if tp > 1:
        # Megatron TP splits all but the layer norms, dropout masks and residuals: scale the
        # measured figure by Korthikanti's TP ratio.
        scores = (5 * arch.heads * seq / arch.hidden) if w.attention == "eager" else 0.0
        layer *= (10 + 24 / tp + scores / tp) / (34 + scores)
    width = logit_width(w, arch)
    act_bytes = 4.0 if prec == "fp32" else 2.0
    outside = (tc.outside_bytes_per_sequence(arch, seq, width if head == "lm" else None)
               + _mlm_loss_extra_per_token(w, arch, head) * seq
               + _mlm_transform_per_token(w, arch, prec) * seq
               + dropout_masks.outside_correction(w, arch, seq, model_head(w, arch),
                                                  act_bytes)) * b
    copies = autocast_weight_copies(w, arch)
    outside += copies
    layers = pipeline_held_layers(w, arch.layers)
    full = layers * layer + outside
    if checkpointing:
        boundary = tc.layer_input_bytes_per_hidden * arch.hidden * seq * b
        saved = layers * boundary + layer + outside
    else:
        saved = full
    transient = 0.0
    if head == "lm":
        # Backward of the fp32 loss makes the gradient of the fp32 logits, then its cast.
        act = 4 if prec == "fp32" else 2
        transient = b * seq * width * (4 + (0 if prec == "fp32" else act))
    note = _transformer_note(w, arch, seq, prec, checkpointing, per_token, fixes, outside,
                             copies)
    return Activations(saved, note, full, transient)


def _fp8_saved_inputs(w: Workload, arch: TransformerArch, per_token: float, fixes: Msg
                      ) -> tuple[float, Msg]:
    """fp8 training: the linear layers save their inputs in fp8, 1 byte where the autocast
    calibration saved 2 (:func:`fp8_training.saved_input_saving_per_token`). Unchanged for
    every other precision."""
    saving = fp8_training.saved_input_saving_per_token(w, arch)
    if not saving:
        return per_token, fixes
    note = Msg(f"fp8 training saves the linear layers' inputs in fp8 (-{saving:,.0f} B/token/"
               "layer, Transformer Engine)",
               f"fp8 训练以 fp8 保存线性层输入（每层每 token -{saving:,.0f} 字节，"
               "Transformer Engine）")
    if fixes.en:
        note = Msg(f"{fixes.en}; {note.en}", f"{fixes.zh}；{note.zh}")
    return per_token - saving, note


def _transformer_note(w: Workload, arch: TransformerArch, seq: int, prec: str,
                      checkpointing: bool, per_token: float, fixes: Msg, outside: float,
                      copies: float) -> Msg:
    """How :func:`transformer_activations` got its figure, with Korthikanti's minimum."""
    b, tp, layers = w.batch_size, w.tp_size, arch.layers
    ratio = Msg("", "")
    if tp > 1:
        ratio = Msg(f"; x Korthikanti's TP ratio for t={tp}",
                    f"；乘以 Korthikanti 张量并行比例（t={tp}）")
    pp = _pipeline_note(w, layers)
    ck = Msg("", "")
    if checkpointing:
        ck = Msg("; checkpointing: each layer keeps only its input, one layer is recomputed "
                 "at a time", "；检查点：每层只保存输入，反向时每次重算一层")
    if fixes.en:
        ck = Msg(f"{ck.en}; {fixes.en}", f"{ck.zh}；{fixes.zh}")
    minimum = layers * korthikanti_layer_bytes(
        seq, b, arch.hidden, arch.heads, tp, attention_scores=w.attention == "eager",
        recompute="full" if checkpointing else "none",
        dropout=dropout_masks.korthikanti_dropout_terms(dropout_masks.dropout_of(w, arch)))
    # The calibration's keys (architecture style, attention kernel, precision class) are codes.
    calibrated = ", ".join(key.upper() for key in (arch.style, w.attention, prec))
    cp = Msg("", "")
    if copies:
        cp = Msg(f" (incl. {fmt_gib(copies)} of 16-bit autocast weight copies)",
                 f"（含 {fmt_gib(copies)} 的 16 位 autocast 权重副本）")
    return Msg(
        f"measured {per_token:,.0f} B/token/layer ({calibrated}) x "
        f"{seq} tokens x batch {b} x {layers} layers + embeddings/head "
        f"{fmt_gib(outside)}{cp.en}{ratio.en}{pp.en}{ck.en}; Korthikanti's 16-bit minimum "
        f"{fmt_gib(minimum)}",
        f"实测每层每 token {per_token:,.0f} 字节（{calibrated}）× "
        f"{seq} token × 批大小 {b} × {layers} 层 + 嵌入/输出头 {fmt_gib(outside)}"
        f"{cp.zh}{ratio.zh}{pp.zh}{ck.zh}；Korthikanti 16 位理论下限 {fmt_gib(minimum)}")


def _pipeline_note(w: Workload, layers: int) -> Msg:
    """What the first pipeline stage holds (:func:`pipeline_held_layers`), with the counts."""
    p = w.pp_size
    if p <= 1:
        return Msg("", "")
    if w.vp_size > 1:
        held, size = interleaved_held_chunks(w), layers // (p * w.vp_size)
        share = Msg(" = all layers' worth", " = 全部层的量")
        if held != p * w.vp_size:
            share = Msg(f" = {held}/{p * w.vp_size} of all layers' worth",
                        f" = 全部层的 {held}/{p * w.vp_size}")
        return Msg(
            f"; interleaved pipeline ({w.vp_size} chunks per GPU): the first stage holds "
            f"{held} chunk forwards of {size} layer{'s' if size != 1 else ''} = "
            f"{held * size} layers{share.en} "
            "(Megatron-LM's num_warmup_microbatches + 1)",
            f"；交错流水线（每 GPU {w.vp_size} 个模型块）：第一阶段保存 {held} 个模型块前向 × "
            f"{size} 层 = {held * size} 层{share.zh}"
            "（Megatron-LM 的预热前向数 + 1）")
    held = min(w.grad_accumulation, p)
    worth = (Msg("all layers' worth", "全部层的量") if held == p else
             Msg(f"{held}/{p} of all layers' worth (only {held} micro-batch"
                 f"{'es' if held != 1 else ''} a step)",
                 f"全部层的 {held}/{p}（每步只有 {held} 个微批次）"))
    return Msg(f"; 1F1B pipeline: the first stage holds {held} micro-batch"
               f"{'es' if held != 1 else ''} of {layers // p} layers = {worth.en} "
               "(Korthikanti sec. 4.2.3)",
               f"；1F1B 流水线：第一阶段保存 {held} 个微批次 × {layers // p} 层 "
               f"= {worth.zh}（Korthikanti 4.2.3 节）")


def _checkpoint_segments(units: tuple[tuple[int, int], ...], scale: float,
                         per_block: bool) -> float:
    """Saved bytes per sample with checkpointing, from measured per-unit figures.

    per_block: every block is checkpointed and keeps only its input (transformers, timm).
    Otherwise torch.utils.checkpoint.checkpoint_sequential with sqrt(n) segments (Chen et al.):
    segment inputs + the last segment (not checkpointed) + the largest segment recomputed.
    """
    if not units:
        return 0.0
    if per_block:
        inputs = sum(u[1] for u in units)
        return (inputs + max(u[0] for u in units)) * scale
    n = len(units)
    k = max(1, round(math.sqrt(n)))
    size = math.ceil(n / k)
    segments = [units[i:i + size] for i in range(0, n, size)]
    inputs = sum(seg[0][1] for seg in segments[:-1])
    last = sum(u[0] for u in segments[-1])
    largest = max((sum(u[0] for u in seg) for seg in segments[:-1]), default=0)
    # Backward frees the last segment's tensors before the first recomputation starts.
    checkpointed = inputs + max(last, largest)
    return min(checkpointed, sum(u[0] for u in units)) * scale


def image_scale(family: str, image: int, ref: int) -> tuple[float, Msg]:
    """How a vision model's activations grow from ``ref`` to ``image`` pixels a side: a
    ViT's by its token count (16-pixel patches and the class token), a CNN's by the area."""
    if family == "vit":
        patch = 16
        return (((image // patch) ** 2 + 1) / ((ref // patch) ** 2 + 1),
                Msg("scaled by token count", "按 token 数缩放"))
    return (image / ref) ** 2, Msg("scaled by image area", "按图像面积缩放")


def vision_activations(w: Workload, model: ResolvedModel, cal: Calibration | None,
                       checkpointing: bool) -> Activations:
    """Saved bytes of a CNN or ViT from its calibration (per sample, scaled to the image
    size), else a published or the user's figure."""
    vc: VisionCal | None = None
    if cal is not None and model.preset is not None:
        vc = cal.vision.get(model.preset.id)
    if vc is None:
        return _uncalibrated_vision(w, model, checkpointing)
    prec = cal_precision(w)
    pc = vc.precisions[prec]
    image = w.image_size or vc.image_size
    scale, how = image_scale(model.family, image, vc.image_size)
    per_sample = pc.bytes_per_sample * scale
    full = per_sample * w.batch_size + pc.bytes_per_step
    if checkpointing:
        saved = _checkpoint_segments(pc.units, scale, model.family == "vit") * w.batch_size \
            + pc.bytes_per_step
    else:
        saved = full
    step = Msg("", "")
    if pc.bytes_per_step:
        step = Msg(f" + {fmt_gib(pc.bytes_per_step)} per step (autocast weight copies, "
                   "norm statistics)", f" + 每步 {fmt_gib(pc.bytes_per_step)}"
                   "（autocast 权重副本、归一化统计量）")
    ck = Msg("", "")
    if checkpointing:
        ck = Msg("; checkpointing per block" if model.family == "vit"
                 else "; checkpoint_sequential with sqrt(n) segments (Chen et al.)",
                 "；逐块检查点" if model.family == "vit" else "；checkpoint_sequential 分 √n 段")
    note = Msg(
        f"measured {fmt_gib(pc.bytes_per_sample)}/sample at {vc.image_size}px ({prec.upper()}), "
        f"{how.en} to {image}px, x batch {w.batch_size}{step.en}{ck.en}",
        f"实测 {vc.image_size}px 下每样本 {fmt_gib(pc.bytes_per_sample)}（{prec.upper()}），"
        f"{how.zh}至 {image}px，× 批大小 {w.batch_size}{step.zh}{ck.zh}")
    return Activations(saved, note, full)


def _uncalibrated_vision(w: Workload, model: ResolvedModel, checkpointing: bool
                         ) -> Activations:
    """A vision model without a calibration: the preset's published figure scaled by image
    area, the user's figure, or unknown."""
    published = model.preset.activation_bytes_per_sample if model.preset else None
    if published is not None and model.preset is not None:
        ref = model.preset.image_size or 1
        image = w.image_size or ref
        b = published * (image / ref) ** 2 * w.batch_size
        return Activations(b, Msg(
            f"published figure {fmt_gib(published)}/image at {ref}px (see the preset's "
            f"source), scaled by image area to {image}px, x batch {w.batch_size}"
            + ("; checkpointing not modelled for this model" if checkpointing else ""),
            f"公开数据每图 {fmt_gib(published)}（{ref}px，见预设来源），按面积缩放至 {image}px，"
            f"× 批大小 {w.batch_size}" + ("；此模型未建模检查点" if checkpointing else "")), b)
    if w.activation_bytes_per_sample is not None:
        b = w.activation_bytes_per_sample * w.batch_size
        return Activations(b, _given_figure_note(w), b)
    return Activations(None, Msg(
        "unknown for a custom model: give activation_bytes_per_sample (measure it with "
        "scripts/calibrate_activations.py's method)",
        "自定义模型未知：请提供 activation_bytes_per_sample（可用校准脚本的方法测量）"))


def inference_activations(w: Workload, model: ResolvedModel,
                          cal: Calibration | None) -> Activations:
    """Working set of a forward pass without autograd: one layer's (one block's) tensors at a
    time. Estimated from the training measurements of one layer - an upper bound, since
    inference frees tensors as it goes. A transformer's prompts are prefilled in chunks of
    :data:`PREFILL_CHUNK_TOKENS` (chunked prefill, as vLLM and SGLang schedule it), so the
    working set is one chunk's, however long and many the prompts are."""
    prec = cal_precision(w)
    if model.preset is not None and model.preset.diffusion is not None:
        return Activations(*diffusion.inference_activation_bytes(w, model.preset, prec))
    if model.arch is not None and model.family == "transformer":
        arch = model.arch
        tc = cal.transformer_cal(arch.style, w.attention, "lm", prec) if cal else None
        if tc is None:
            return Activations(None, Msg("not calibrated", "未校准"))
        seq = model.seq_len or 1
        tokens = seq * w.batch_size
        chunk = min(tokens, PREFILL_CHUNK_TOKENS) if arch.style != "bert" else tokens
        per_token, _ = layer_bytes_per_token(w, arch, tc, seq)
        layer = per_token * chunk / max(1, w.tp_size)
        logits = w.batch_size * arch.vocab * 4
        how = (Msg(f"chunked prefill: {chunk:,} of the {tokens:,} prompt tokens at a time",
                   f"分块预填充：每次处理 {tokens:,} 个提示 token 中的 {chunk:,} 个")
               if chunk < tokens else
               Msg(f"prefill of {seq} tokens x batch {w.batch_size}",
                   f"预填充 {seq} token × 批大小 {w.batch_size}"))
        return Activations(layer + logits, Msg(
            f"{how.en}: one layer's tensors ({fmt_gib(layer)}, upper bound from the training "
            "measurement) + fp32 logits of the last position",
            f"{how.zh}：一层的张量（{fmt_gib(layer)}，由训练实测给出的上界）+ 最后位置的 fp32 "
            "logits"))
    vc = cal.vision.get(model.preset.id) if (cal and model.preset) else None
    if vc is None and w.activation_bytes_per_sample is not None:
        # A custom model's working set per sample, given or measured (verify --apply).
        return Activations(w.activation_bytes_per_sample * w.batch_size, _given_figure_note(w))
    if vc is None:
        return Activations(None, Msg("unknown for a custom model", "自定义模型未知"))
    pc = vc.precisions[prec]
    image = w.image_size or vc.image_size
    scale = (image / vc.image_size) ** 2
    largest = max(u[0] + u[1] for u in pc.units) * scale * w.batch_size
    return Activations(largest, Msg(
        f"largest block's tensors and input, measured at {vc.image_size}px, x batch "
        f"{w.batch_size} (upper bound)", f"最大模块的张量及输入（{vc.image_size}px 实测）× "
        f"批大小 {w.batch_size}（上界）"))


def training_activations(w: Workload, model: ResolvedModel,
                         cal: Calibration | None) -> Activations:
    if model.preset is not None and model.preset.diffusion is not None:
        saved, full, note = diffusion.training_activation_bytes(w, model.preset,
                                                                cal_precision(w))
        return Activations(saved, note, full)
    if model.arch is not None and model.family == "transformer":
        formula = transformer_activations(w, model.arch, model.seq_len or 1, cal,
                                          w.gradient_checkpointing)
        if w.activation_bytes_per_sample is not None and w.measured_device is not None:
            return measured_transformer_activations(w, model.arch, model.seq_len or 1, cal,
                                                    formula)
        return formula
    if model.family in ("cnn", "vit"):
        if w.activation_bytes_per_sample is not None and w.measured_device is not None:
            # The planner's own figure, without the user's (its calibration or published
            # figure; unknown for a custom model), beside which the measurement is judged.
            own = replace(w, activation_bytes_per_sample=None)
            return measured_vision_activations(
                w, model, cal, vision_activations(own, model, cal, w.gradient_checkpointing))
        return vision_activations(w, model, cal, w.gradient_checkpointing)
    if w.activation_bytes_per_sample is not None:
        b = w.activation_bytes_per_sample * w.batch_size
        return Activations(b, Msg("your figure x batch", "你提供的数值 × 批大小")
                           if w.measured_device is None else _given_figure_note(w), b)
    return Activations(None, Msg(
        "unknown: give activation_bytes_per_sample for a custom model",
        "未知：自定义模型请提供 activation_bytes_per_sample"))


# --- figures measured on the user's model (torchrig verify --apply) ----------------------------

_FORM = {"sdpa": "sdpa", "sdpa_math": "eager", "eager": "eager"}
"""The planner's attention form of what a measurement ran: sdpa's math path (the CPU with
attention dropout) keeps the probabilities as eager attention does."""


def measurement_source(w: Workload) -> Msg:
    """ "measured on <device>, <date>" of a workload's measured figures (verify --apply)."""
    return Msg(f"measured on {w.measured_device}, {w.measured_date}",
               f"于 {w.measured_device} 实测（{w.measured_date}）")


def _given_figure_note(w: Workload) -> Msg:
    """The note of a per-sample figure the planner takes as it is, x batch."""
    per = fmt_gib(w.activation_bytes_per_sample or 0.0)
    if w.measured_device is None:
        return Msg(f"your figure {per}/sample x batch {w.batch_size}",
                   f"你提供的每样本 {per} × 批大小 {w.batch_size}")
    src = measurement_source(w)
    return Msg(f"{src.en} ({w.measured_precision}, batch {w.measured_batch}): {per}/sample "
               f"x batch {w.batch_size}",
               f"{src.zh}（{w.measured_precision}，批大小 {w.measured_batch}）：每样本 {per} × "
               f"批大小 {w.batch_size}")


def _measured_mismatch(w: Workload) -> Msg | None:
    """Why a transformer's measured figure cannot stand for this plan (None: it can)."""
    if w.measured_attention is None:
        return Msg("the attention it ran is not known", "未知其所用注意力实现")
    if w.measured_seq_len is None or w.measured_batch is None:
        return Msg("its batch or length is not known", "未知其批大小或序列长度")
    return context_mismatch(w)


def context_mismatch(w: Workload) -> Msg | None:
    """Why a measurement's precision, checkpointing or layout does not stand for this plan
    (None: they do): another precision class, checkpointing on one side only, or the plan's
    layers split over tensor or pipeline ranks where verify measured one device."""
    measured = replace(w, precision=w.measured_precision or w.precision)
    if cal_precision(measured) != cal_precision(w):
        return Msg(f"measured at {w.measured_precision}, planned {w.precision} (another "
                   "precision class)", f"实测精度 {w.measured_precision}，规划为 {w.precision}"
                   "（精度类别不同）")
    if bool(w.measured_checkpointing) != w.gradient_checkpointing:
        return Msg("measured with gradient checkpointing "
                   + ("on" if w.measured_checkpointing else "off") + ", planned "
                   + ("on" if w.gradient_checkpointing else "off"),
                   "实测时梯度检查点" + ("开启" if w.measured_checkpointing else "关闭")
                   + "，规划中" + ("开启" if w.gradient_checkpointing else "关闭"))
    if w.tp_size > 1 or w.pp_size > 1:
        return Msg("measured on one device; the plan splits the layers across tensor or "
                   "pipeline ranks", "在单个设备上实测；规划将层拆分到张量或流水线并行的各 rank")
    return None


def measured_transformer_activations(w: Workload, arch: TransformerArch, seq: int,
                                     cal: Calibration | None, formula: Activations
                                     ) -> Activations:
    """A transformer's saved bytes from the figure measured on the user's model (verify
    --apply), where the measurement stands for the plan: the same precision class and
    checkpointing, one device. The measured total at its batch, less the batch-independent
    autocast weight copies, is per sample; where the attention forms differ (a CPU measured
    eager or sdpa's math path, a GPU plan with fused sdpa) it is corrected by the planner's own
    difference of the two forms at the measured length; it is scaled to the planned length by
    the formula's per-token and per-seq^2 split (the ratio of the formula at the two lengths),
    x the planned batch, + the plan's weight copies. Otherwise the formula stands, and says
    why."""
    src = measurement_source(w)
    why = _measured_mismatch(w)
    if why is None and formula.bytes is None:
        why = Msg("the planner cannot scale it (no calibration for this architecture)",
                  "规划无法缩放它（该结构未校准）")
    if why is not None:
        return replace(formula, note=Msg(
            f"{formula.note.en}; the figure {src.en} is not used: {why.en}",
            f"{formula.note.zh}；{src.zh}的数值未采用：{why.zh}"))
    assert w.activation_bytes_per_sample is not None and w.measured_batch is not None
    assert w.measured_seq_len is not None and w.measured_attention is not None
    ck = w.gradient_checkpointing

    def per_sample(form: str, tokens: int) -> float:
        """The formula's bytes per sample (weight copies out) in ``form`` at ``tokens``."""
        one = replace(w, attention=form, batch_size=1, seq_len=tokens)
        got = transformer_activations(one, arch, tokens, cal, ck).bytes
        assert got is not None  # the same calibration as the formula's, which had one
        return got - autocast_weight_copies(one, arch)

    b_m, s_m = w.measured_batch, w.measured_seq_len
    measured_form, planned_form = _FORM[w.measured_attention], w.attention
    # verify measures one device with plain data parallelism, at the measured precision.
    ran = replace(w, precision=w.measured_precision or w.precision,
                              strategy="ddp", tp_size=1, pp_size=1)
    copies_m = autocast_weight_copies(ran, arch)
    total_m = w.activation_bytes_per_sample * b_m
    per_m = max(0.0, (total_m - copies_m) / b_m)
    notes_en = [f"{src.en} ({w.measured_attention} attention, {w.measured_precision}, batch "
                f"{b_m}, {s_m} tokens): {fmt_gib(w.activation_bytes_per_sample)}/sample"]
    notes_zh = [f"{src.zh}（{w.measured_attention} 注意力，{w.measured_precision}，批大小 {b_m}，"
                f"{s_m} token）：每样本 {fmt_gib(w.activation_bytes_per_sample)}"]
    if copies_m:
        notes_en.append(f"less {fmt_gib(copies_m)} of autocast weight copies (per step, not "
                        "per sample)")
        notes_zh.append(f"减去每步 {fmt_gib(copies_m)} 的 autocast 权重副本（不随样本数变化）")
    per = per_m
    if measured_form != planned_form:
        term = per_sample(planned_form, s_m) - per_sample(measured_form, s_m)
        per = max(0.0, per_m + term)
        keeps = measured_form == "eager"
        notes_en.append(
            f"{w.measured_attention} attention {'keeps' if keeps else 'does not keep'} the "
            f"attention probabilities, {planned_form} {'does not' if keeps else 'does'}: "
            f"corrected by the planner's attention term ({'-' if term < 0 else '+'}"
            f"{fmt_gib(abs(term))}/sample at {s_m} tokens, {planned_form} - "
            f"{measured_form} form)")
        notes_zh.append(
            f"{w.measured_attention} 注意力{'保存' if keeps else '不保存'}注意力概率，"
            f"{planned_form} {'不保存' if keeps else '保存'}：按规划的注意力项修正"
            f"（{s_m} token 时每样本 {'-' if term < 0 else '+'}{fmt_gib(abs(term))}，"
            f"{planned_form} 与 {measured_form} 形式之差）")
    if seq != s_m:
        ratio = per_sample(planned_form, seq) / per_sample(planned_form, s_m)
        per *= ratio
        notes_en.append(f"scaled to {seq} tokens by the formula's per-token and per-seq^2 "
                        f"split (x {ratio:.4g})")
        notes_zh.append(f"按公式的每 token 与序列平方两部分缩放至 {seq} token（× {ratio:.4g}）")
    copies_p = autocast_weight_copies(w, arch)
    saved = per * w.batch_size + copies_p
    notes_en.append(f"x batch {w.batch_size}" + (
        f" + {fmt_gib(copies_p)} of autocast weight copies" if copies_p else ""))
    notes_zh.append(f"× 批大小 {w.batch_size}" + (
        f" + {fmt_gib(copies_p)} 的 autocast 权重副本" if copies_p else ""))
    assert formula.bytes is not None
    notes_en.append(f"the formula alone gives {fmt_gib(formula.bytes)}")
    notes_zh.append(f"仅按公式为 {fmt_gib(formula.bytes)}")
    full = saved
    if ck and formula.without_checkpointing is not None and formula.bytes:
        # Without checkpointing: the formula's proportion, the measured run had it on.
        full = formula.without_checkpointing * saved / formula.bytes
    return Activations(saved, Msg("; ".join(notes_en), "；".join(notes_zh)), full,
                       formula.transient)


def measured_vision_activations(w: Workload, model: ResolvedModel, cal: Calibration | None,
                                formula: Activations) -> Activations:
    """A CNN's or ViT's saved bytes from the figure measured on the user's model (verify
    --apply), calibrated preset or not, where the measurement stands for the plan (the same
    precision class and checkpointing, :func:`context_mismatch`): the measured total at its
    batch, less a calibrated preset's batch-independent part (autocast weight copies, norm
    statistics), per sample, scaled from the measured image size to the planned one
    (:func:`image_scale`), x the planned batch, + that part. Where it does not stand, the
    formula (calibration or published figure, ``formula``, computed without the user's
    figure); a custom model, which has none (``formula.bytes`` None), takes the figure as it
    is and says what differs."""
    assert w.activation_bytes_per_sample is not None and w.measured_batch is not None
    src = measurement_source(w)
    why = context_mismatch(w)
    vc = cal.vision.get(model.preset.id) if (cal is not None and model.preset) else None
    has_formula = formula.bytes is not None
    if why is not None and has_formula:
        return replace(formula, note=Msg(
            f"{formula.note.en}; the figure {src.en} is not used: {why.en}",
            f"{formula.note.zh}；{src.zh}的数值未采用：{why.zh}"))
    step = vc.precisions[cal_precision(w)].bytes_per_step if vc is not None else 0.0
    b_m = w.measured_batch
    per_m = (w.activation_bytes_per_sample * b_m - step) / b_m
    en = [f"{src.en} ({w.measured_precision}, batch {b_m}"
          + (f", {w.measured_image_size}px" if w.measured_image_size else "")
          + f"): {fmt_gib(w.activation_bytes_per_sample)}/sample"]
    zh = [f"{src.zh}（{w.measured_precision}，批大小 {b_m}"
          + (f"，{w.measured_image_size}px" if w.measured_image_size else "")
          + f"）：每样本 {fmt_gib(w.activation_bytes_per_sample)}"]
    if step and per_m < 0:
        # The measured total is below the calibration's batch-independent part: the model
        # measured is not the preset's; nothing is subtracted from the user's figure.
        per_m, step = w.activation_bytes_per_sample, 0.0
        en.append("its total is below the preset's per-step part, so none is subtracted")
        zh.append("其总量低于预设的每步部分，故不扣减")
    elif step:
        en.append(f"less {fmt_gib(step)} per step (autocast weight copies, norm statistics)")
        zh.append(f"减去每步 {fmt_gib(step)}（autocast 权重副本、归一化统计量）")
    image = w.image_size or (vc.image_size if vc is not None else None)
    scale = 1.0
    if w.measured_image_size is None:
        en.append("its image size is not recorded: taken at the planned size")
        zh.append("未记录其图像尺寸：按规划尺寸计")
    elif image is not None and image != w.measured_image_size:
        scale, how = image_scale(model.family, image, w.measured_image_size)
        en.append(f"{how.en} to {image}px (x {scale:.4g})")
        zh.append(f"{how.zh}至 {image}px（× {scale:.4g}）")
    saved = per_m * scale * w.batch_size + step
    en.append(f"x batch {w.batch_size}" + (f" + {fmt_gib(step)} per step" if step else ""))
    zh.append(f"× 批大小 {w.batch_size}" + (f" + 每步 {fmt_gib(step)}" if step else ""))
    if why is not None:
        en.append(f"taken as it is although {why.en} (no formula for a custom model)")
        zh.append(f"虽然{why.zh}，仍按原值采用（自定义模型没有公式）")
    if formula.bytes is not None:
        en.append(f"the formula alone gives {fmt_gib(formula.bytes)}")
        zh.append(f"仅按公式为 {fmt_gib(formula.bytes)}")
    full = saved
    if w.gradient_checkpointing and formula.without_checkpointing and formula.bytes:
        # Without checkpointing: the formula's proportion, the measured run had it on.
        full = formula.without_checkpointing * saved / formula.bytes
    return Activations(saved, Msg("; ".join(en), "；".join(zh)), full, formula.transient)
