"""Requirements: what a workload needs from a machine, each figure with the reason behind it.

:func:`plan` is pure and fast (the GUI re-plans on every keystroke): no I/O beyond the cached
preset file, no torch. Every number is a breakdown item with a note saying where it comes from;
figures that rest on an assumption name it in ``assumptions``; what cannot be known is None with
the reason. Formulas and published figures come from ``estimation.md`` (ZeRO, Korthikanti,
vLLM, DeepSpeed, nccl-tests); activation coefficients are *measured* by
``scripts/calibrate_activations.py`` and read from the presets file.

Units are SI base units throughout (bytes, bytes/s, FLOP, FLOP/s, seconds).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.labels import OPTIMIZERS, PRECISIONS, label
from torchrig.planning import diffusion
from torchrig.planning.device import DeviceSpec
from torchrig.planning.presets import (
    Calibration,
    ModelPreset,
    TransformerArch,
    TransformerCal,
    VisionCal,
    load_calibration,
)
from torchrig.planning.workload import (
    QUANTIZED,
    TEXT_TASKS,
    ResolvedModel,
    Workload,
    resolve_model,
)
from torchrig.units import GB, GiB, fmt_gb, fmt_gib

# --- assumptions (each one is shown to the user with its basis) --------------------------------

CUDA_OVERHEAD_BYTES = 1 * GiB
"""CUDA context, kernels and cuBLAS/cuDNN/NCCL workspaces per GPU process. Not measured here:
recent drivers with lazy module loading need roughly 0.3-1 GiB; we take the top of that range.
The benchmark measures it on a real GPU."""

FRAGMENTATION_FRACTION = 0.10
"""Headroom for the caching allocator's fragmentation and for peaks between steps: the 10% vLLM
leaves by default (gpu_memory_utilization = 0.9)."""

PREFETCH_FACTOR = 2
"""torch.utils.data.DataLoader's default batches prefetched per worker."""

WORKERS_PER_GPU = 4
"""~4 DataLoader workers per GPU is common advice (estimation.md sec. 4); NVIDIA uses 8-10."""

DECODE_RATE_PER_CORE = (150.0, 300.0)
"""JPEG decode + RandomResizedCrop + normalize, images/s per core: an ESTIMATE with no primary
source (single-thread decode alone measures 360-864 img/s, ternaus/imread_benchmark)."""

OS_BASELINE_BYTES = 2 * GiB
RUNTIME_PER_PROCESS_BYTES = 1 * GiB
"""Host RAM for the OS and for each GPU process's Python + PyTorch + CUDA runtime: assumptions,
not measurements."""

MFU = 0.40
MFU_RANGE = (0.30, 0.49)
"""Fraction of the dense tensor peak a training step reaches (model FLOPs utilisation).
Published measurements imply 30% (Lambda: BERT-base SQuAD fp16 on A100, 443 samples/s) to 48%
(NVIDIA DLE: BERT-large seq 128 AMP on A100, 580 seq/s); matmuls alone reach 80-87% of peak
(estimation.md sec. 5). A model, not a measurement of your GPU."""

CNN_REFERENCE = (2470.0, 2039e9, "resnet50")
"""NVIDIA DeepLearningExamples ResNet-50 v1.5 AMP on A100 80GB: 2470 img/s at 2039 GB/s.
CNN training is bound by memory traffic, not by tensor FLOPs (the same ResNet-50 reaches only
6-31% of the tensor peak across GPUs); the planner's memory-side estimate scales the traffic
per image implied by this measurement with each model's measured activation bytes."""

PREFILL_CHUNK_TOKENS = 2048
"""Tokens per prefill chunk: an assumption. Serving engines prefill long prompts in chunks
(vLLM's chunked prefill; the chunk is its max_num_batched_tokens setting), so activation memory
does not grow with the prompt."""

GPU_MEMORY_UTILIZATION = 0.9
"""Share of a GPU's memory a serving engine takes (vLLM's gpu_memory_utilization default):
weights, activations and the CUDA context first, the KV cache gets what is left of it."""

INT4_GROUP = 128
"""Weight-only int4 (GPTQ/AWQ style): one fp16 scale per group of 128 weights (assumption)."""

HOST_STORAGE_BYTES_PER_TOKEN = 4
"""Pre-tokenized text on disk: int32 token ids (assumption for text datasets)."""

IMAGE_TASKS = ("image_classification", "detection_segmentation", "image_generation")

ATARI_FRAMES_PER_S_PER_CORE = 18_249 / 12
FRAME_SKIP = 4
ATARI_ENV_SOURCE = Msg(
    "EnvPool README benchmark (sail-sg/envpool): ALE Atari with wrappers, Python subprocess "
    "vector env (gym.vector) 18,249 frames/s on a 12-core i7-8750H laptop; one environment "
    "step = 4 frames (frame skip 4)",
    "EnvPool README 基准（sail-sg/envpool）：带包装器的 ALE Atari，Python 子进程向量环境"
    "（gym.vector）在 12 核 i7-8750H 笔记本上 18,249 帧/秒；一个环境步 = 4 帧（跳帧 4）")
"""Environment steps per second one CPU core simulates for Atari under the common Python
subprocess vector env: 18,249 / 12 frames/s per core / 4 frames per step = 380 steps/s."""

DEFAULT_ENV_PROCESSES = 8
"""PPO on Atari runs 8 parallel environments (Schulman et al. 2017, arXiv 1707.06347, table 5):
one core each under a subprocess vector env."""


# --- public data types ----------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One figure of a breakdown: value in SI units (None = unknown) and why."""

    value: float | None
    note: Msg


@dataclass(frozen=True)
class Assumption:
    key: str
    text: Msg
    value: float | None = None


@dataclass(frozen=True)
class SeedClaim:
    """A number the seed document states, beside what the planner computes for this workload."""

    section: str
    claim: Msg
    seed_value: str
    computed: float | None
    unit: str
    note: Msg


@dataclass(frozen=True)
class Requirements:
    """Everything :func:`plan` computes. Sections are ordered dicts of :class:`Item`; each has a
    "total" item where a total makes sense."""

    workload: Workload
    device: DeviceSpec | None
    vram_per_gpu: dict[str, Item]
    system_ram: dict[str, Item]
    storage: dict[str, Item]
    cpu: dict[str, Item]
    interconnect: dict[str, Item]
    throughput: dict[str, Item]
    assumptions: list[Assumption]
    seed_claims: list[SeedClaim]
    references: dict[str, Item]
    incomplete: list[str]
    rules_of_thumb: list[dict[str, Any]]

    @property
    def vram_total(self) -> float:
        return float(self.vram_per_gpu["total"].value or 0.0)

    @property
    def vram_without_margin(self) -> float:
        """What the run allocates without the fragmentation margin (a safety margin)."""
        return self.vram_total - float(self.vram_per_gpu["fragmentation"].value or 0.0)

    @property
    def fits(self) -> bool | None:
        if self.device is None or self.device.vram_bytes is None:
            return None
        return self.vram_total <= self.device.vram_bytes

    @property
    def vram_verdict(self) -> str | None:
        """"fits", "tight" (only the safety margin is short: it runs, one allocator spike from
        out-of-memory), "does_not_fit", or None without a GPU of known memory."""
        return vram_verdict(self.vram_total, self.vram_without_margin,
                            None if self.device is None else self.device.vram_bytes)

    def to_dict(self) -> dict[str, Any]:
        """The ``torchrig plan --json`` document (see docs/plan-json.md)."""
        out: dict[str, Any] = {
            "format": "torchrig.plan", "version": 1,
            "workload": self.workload.to_dict(),
            "device": None if self.device is None else {
                "name": self.device.name, "vram_bytes": self.device.vram_bytes,
                "peak_flops": dict(self.device.peak_flops),
                "memory_bandwidth_bps": self.device.memory_bandwidth_bps,
                "tensor_cores": self.device.tensor_cores,
                "intra_link": None if self.device.intra_link is None
                else self.device.intra_link.id,
                "inter_link": None if self.device.inter_link is None
                else self.device.inter_link.id,
            },
        }
        for name in ("vram_per_gpu", "system_ram", "storage", "cpu", "interconnect",
                     "throughput", "references"):
            out[name] = _section_dict(getattr(self, name))
        out["fits_in_vram"] = self.fits
        out["vram_verdict"] = self.vram_verdict
        out["incomplete"] = list(self.incomplete)
        out["rules_of_thumb"] = [dict(r) for r in self.rules_of_thumb]
        out["assumptions"] = [
            {"key": a.key, "text": a.text.to_dict(), "value": a.value} for a in self.assumptions
        ]
        out["seed_claims"] = [
            {"section": c.section, "claim": c.claim.to_dict(), "seed_value": c.seed_value,
             "computed": c.computed, "unit": c.unit, "note": c.note.to_dict()}
            for c in self.seed_claims
        ]
        return out


def vram_verdict(total: float, without_margin: float, vram: float | None) -> str | None:
    if vram is None:
        return None
    if total <= vram:
        return "fits"
    return "tight" if without_margin <= vram else "does_not_fit"


def _section_dict(items: Mapping[str, Item]) -> dict[str, Any]:
    out: dict[str, Any] = {k: _json_number(i.value) for k, i in items.items()}
    out["notes"] = {k: i.note.to_dict() for k, i in items.items()}
    return out


def _json_number(value: float | None) -> float | int | None:
    if value is None:
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(value)


# --- model states (ZeRO paper sec. 3.1, 5) -------------------------------------------------------


@dataclass(frozen=True)
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
    """
    zero = strategy in ("zero1", "zero2", "zero3")
    mixed = precision in ("amp_fp16", "amp_bf16")
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
    states = master + optimizer_state_bytes_per_param(optimizer, state_elem)
    n = max(1, data_parallel)
    shard_w = n if strategy == "zero3" else 1
    shard_g = n if strategy in ("zero2", "zero3") else 1
    shard_s = n if zero else 1
    mp = max(1, model_parallel)
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
    per = params / mp
    state_note = Msg(
        f"{states:g} B/param ({label(OPTIMIZERS, optimizer, 'en')}); {shard_note.en}",
        f"每参数 {states:g} 字节（{label(OPTIMIZERS, optimizer, 'zh')}）；{shard_note.zh}")
    return ModelStates(
        weights=per * w / shard_w, gradients=per * g / shard_g,
        optimizer_states=per * states / shard_s,
        note_weights=Msg(f"{w:g} B/param; {layout.en}; {shard_note.en}",
                         f"每参数 {w:g} 字节；{layout.zh}；{shard_note.zh}"),
        note_gradients=Msg(f"{g:g} B/param; {shard_note.en}",
                           f"每参数 {g:g} 字节；{shard_note.zh}"),
        note_states=state_note,
    )


# --- reference estimators (for comparison, as their authors compute them) ----------------------


def deepspeed_zero2_estimate(params: float, gpus_per_node: int, nodes: int, cpu_offload: bool,
                             buffer_factor: float = 1.5) -> tuple[int, int]:
    """DeepSpeed's estimate_zero2_model_states_mem_needs (current code, after PR #5099):
    returns (cpu_bytes, gpu_bytes)."""
    total = gpus_per_node * nodes
    if cpu_offload:
        return int(params * max(4 * total, 16) * buffer_factor), int(2 * params)
    return int(params * 4 * gpus_per_node * buffer_factor), int(2 * params + int(18 * params
                                                                                   / total))


def deepspeed_zero3_estimate(params: float, largest_layer: float, gpus_per_node: int,
                             nodes: int, offload_optimizer: bool, offload_params: bool,
                             zero_init: bool = True,
                             buffer_factor: float = 1.5) -> tuple[int, int]:
    """DeepSpeed's estimate_zero3_model_states_mem_needs: returns (cpu_bytes, gpu_bytes)."""
    total = gpus_per_node * nodes
    per_node = 1 / nodes
    largest = 4 * largest_layer
    if offload_optimizer:
        if offload_params:
            gpu = largest
            cpu = (params * 18 * per_node if zero_init
                   else params * max(4 * gpus_per_node, 18 * per_node)) * buffer_factor
        else:
            gpu = largest + int(2 * params / total)
            cpu = (params * 16 * per_node if zero_init
                   else params * max(4 * gpus_per_node, 16 * per_node)) * buffer_factor
    else:
        gpu = largest + int(18 * params / total)
        cpu = (largest_layer * 4 * gpus_per_node if zero_init
               else params * 4 * gpus_per_node) * buffer_factor
    return int(cpu), int(gpu)


def accelerate_estimate(total_fp32_bytes: float, precision: str) -> tuple[float, float]:
    """HF accelerate ``estimate-memory``: (model bytes, "training using Adam" bytes).

    It sizes all parameters and buffers at the dtype, and its training column is the largest
    of four equal-sized components - 4x the fp32 size, 2x for fp16/bf16 - not a sum.
    """
    divisor = {"fp32": 1, "tf32": 1, "amp_fp16": 2, "amp_bf16": 2, "bf16": 2, "int8": 4,
               "int4": 8}[precision]
    model = total_fp32_bytes / divisor
    training = 4 * total_fp32_bytes if divisor == 1 else 2 * total_fp32_bytes
    return model, training


def lora_trainable_params(w: Workload, model: ResolvedModel) -> float:
    """Adapter parameters of a LoRA run: every linear layer of a transformer's blocks, or a
    diffusion denoiser's attention projections (the count per rank is measured)."""
    f = diffusion.facts(model.preset)
    if f is not None:
        return float(f.lora_params_per_rank * (w.lora_rank or 0))
    assert model.arch is not None
    return float(model.arch.lora_params(w.lora_rank or 0))


def kv_cache_bytes(arch: TransformerArch, tokens: int, batch: int,
                   bytes_per_element: float) -> float:
    """vLLM (arXiv 2309.06180, sec. 3): 2 x layers x KV heads x head size x bytes x tokens."""
    return arch.kv_cache_bytes_per_token(bytes_per_element) * tokens * batch


def korthikanti_layer_bytes(seq: int, batch: int, hidden: int, heads: int, tp: int = 1,
                            sequence_parallel: bool = False, recompute: str = "none",
                            attention_scores: bool = True) -> float:
    """Korthikanti et al. (arXiv 2205.05198) Table 2: activation bytes per transformer layer
    with 16-bit activations and 1-byte dropout masks. ``attention_scores=False`` drops the
    5as/h term, which fused (flash) attention does not store."""
    sbh = seq * batch * hidden
    scores = 5 * heads * seq / hidden if attention_scores else 0.0
    if recompute == "full":
        return 2.0 * sbh
    if recompute == "selective":
        return 34.0 * sbh / tp
    if sequence_parallel:
        return sbh * (34 / tp + scores / tp)
    if tp > 1:
        return sbh * (10 + 24 / tp + scores / tp)
    return sbh * (34 + scores)


# --- activations ---------------------------------------------------------------------------


def _cal_precision(w: Workload) -> str:
    """Which calibration column applies: fp32 (also tf32), amp (autocast, also the compute of
    QLoRA-style quantized bases) or bf16 (whole model in 16 bit)."""
    if w.precision in ("fp32", "tf32"):
        return "fp32"
    if w.precision == "bf16" or (not w.is_training and w.precision in QUANTIZED):
        return "bf16"
    return "amp"


def _head_kind(w: Workload, arch: TransformerArch) -> str:
    """BERT fine-tuned for a sentence task has a pooled classifier; everything else computes
    logits over the vocabulary (masked or causal LM)."""
    return "cls" if (arch.style == "bert" and w.mode == "finetune") else "lm"


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
    elem = 4.0 if _cal_precision(w) == "fp32" else 2.0
    notes: list[Msg] = []
    if arch.style == "llama" and w.attention == "sdpa" and arch.kv_dim < arch.q_dim:
        per_token -= 2 * elem * (arch.q_dim - arch.kv_dim)
        notes.append(Msg("sdpa keeps grouped K/V at the KV width",
                         "sdpa 以 KV 宽度保存分组 K/V"))
    if arch.activation == "gelu_new":
        per_token += 3 * elem * arch.activation_ffn
        notes.append(Msg("gelu_new keeps 3 more FFN-wide tensors",
                         "gelu_new 额外保存 3 个 FFN 宽度的张量"))
    return per_token, Msg("; ".join(n.en for n in notes), "；".join(n.zh for n in notes))


def _mlm_loss_extra_per_token(w: Workload, arch: TransformerArch, head: str) -> float:
    """BERT's masked-LM loss under AMP: the 16-bit logits are cast to fp32 for the loss and
    both stay saved, 6 bytes per vocabulary entry per token where the calibration has 4."""
    if arch.style == "bert" and head == "lm" and _cal_precision(w) == "amp":
        return 2.0 * arch.vocab
    return 0.0


@dataclass(frozen=True)
class Activations:
    bytes: float | None
    note: Msg
    without_checkpointing: float | None = None
    transient: float = 0.0  # backward peak on top of the saved bytes (LM head gradients)


def transformer_activations(w: Workload, arch: TransformerArch, seq: int,
                            cal: Calibration | None, checkpointing: bool) -> Activations:
    """Saved-for-backward bytes per GPU for one micro-batch, from measured coefficients."""
    prec = _cal_precision(w)
    head = _head_kind(w, arch)
    tc: TransformerCal | None = cal.transformer_cal(arch.style, w.attention, head, prec) \
        if cal else None
    if tc is None:
        return Activations(None, Msg(
            "not calibrated for this architecture: run scripts/calibrate_activations.py",
            "该结构未校准：请运行 scripts/calibrate_activations.py"))
    b = w.batch_size
    per_token, fixes = layer_bytes_per_token(w, arch, tc, seq)
    layer = per_token * seq * b
    tp = w.tp_size
    if tp > 1:
        # Megatron TP splits all but the layer norms, dropout masks and residuals: scale the
        # measured figure by Korthikanti's TP ratio.
        scores = (5 * arch.heads * seq / arch.hidden) if w.attention == "eager" else 0.0
        layer *= (10 + 24 / tp + scores / tp) / (34 + scores)
    outside = (tc.outside_bytes_per_sequence(arch, seq)
               + _mlm_loss_extra_per_token(w, arch, head) * seq) * b
    copies = 0.0
    if prec == "amp" and not w.is_lora and w.strategy not in ("zero1", "zero2", "zero3"):
        # Autocast keeps a 16-bit copy of every matmul weight for backward (the calibration
        # measures this as the batch-independent part).
        matmul = arch.total_matmul_params() + (arch.vocab * arch.hidden if head == "lm" else 0)
        copies = 2.0 * matmul / (tp * w.pp_size)
        outside += copies
    layers = arch.layers
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
        transient = b * seq * arch.vocab * (4 + (0 if prec == "fp32" else act))
    ratio = Msg("", "")
    if tp > 1:
        ratio = Msg(f"; x Korthikanti's TP ratio for t={tp}",
                    f"；乘以 Korthikanti 张量并行比例（t={tp}）")
    pp = Msg("", "")
    if w.pp_size > 1:
        pp = Msg(f"; 1F1B pipeline: the first stage holds {w.pp_size} micro-batches of "
                 f"{layers // w.pp_size} layers = all layers' worth (Korthikanti sec. 4.2.3)",
                 f"；1F1B 流水线：第一阶段保存 {w.pp_size} 个微批次 × {layers // w.pp_size} 层 "
                 "= 全部层的量（Korthikanti 4.2.3 节）")
    ck = Msg("", "")
    if checkpointing:
        ck = Msg("; checkpointing: each layer keeps only its input, one layer is recomputed "
                 "at a time", "；检查点：每层只保存输入，反向时每次重算一层")
    if fixes.en:
        ck = Msg(f"{ck.en}; {fixes.en}", f"{ck.zh}；{fixes.zh}")
    minimum = layers * korthikanti_layer_bytes(
        seq, b, arch.hidden, arch.heads, tp, attention_scores=w.attention == "eager",
        recompute="full" if checkpointing else "none")
    # The calibration's keys (architecture style, attention kernel, precision class) are codes.
    calibrated = ", ".join(key.upper() for key in (arch.style, w.attention, prec))
    cp = Msg("", "")
    if copies:
        cp = Msg(f" (incl. {fmt_gib(copies)} of 16-bit autocast weight copies)",
                 f"（含 {fmt_gib(copies)} 的 16 位 autocast 权重副本）")
    note = Msg(
        f"measured {per_token:,.0f} B/token/layer ({calibrated}) x "
        f"{seq} tokens x batch {b} x {layers} layers + embeddings/head "
        f"{fmt_gib(outside)}{cp.en}{ratio.en}{pp.en}{ck.en}; Korthikanti's 16-bit minimum "
        f"{fmt_gib(minimum)}",
        f"实测每层每 token {per_token:,.0f} 字节（{calibrated}）× "
        f"{seq} token × 批大小 {b} × {layers} 层 + 嵌入/输出头 {fmt_gib(outside)}"
        f"{cp.zh}{ratio.zh}{pp.zh}{ck.zh}；Korthikanti 16 位理论下限 {fmt_gib(minimum)}")
    return Activations(saved, note, full, transient)


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


def vision_activations(w: Workload, model: ResolvedModel, cal: Calibration | None,
                       checkpointing: bool) -> Activations:
    vc: VisionCal | None = None
    if cal is not None and model.preset is not None:
        vc = cal.vision.get(model.preset.id)
    published = model.preset.activation_bytes_per_sample if model.preset else None
    if vc is None and published is not None and model.preset is not None:
        ref = model.preset.image_size or 1
        image = w.image_size or ref
        b = published * (image / ref) ** 2 * w.batch_size
        return Activations(b, Msg(
            f"published figure {fmt_gib(published)}/image at {ref}px (see the preset's "
            f"source), scaled by image area to {image}px, x batch {w.batch_size}"
            + ("; checkpointing not modelled for this model" if checkpointing else ""),
            f"公开数据每图 {fmt_gib(published)}（{ref}px，见预设来源），按面积缩放至 {image}px，"
            f"× 批大小 {w.batch_size}" + ("；此模型未建模检查点" if checkpointing else "")), b)
    if vc is None:
        if w.activation_bytes_per_sample is not None:
            b = w.activation_bytes_per_sample * w.batch_size
            return Activations(b, Msg(
                f"your figure {fmt_gib(w.activation_bytes_per_sample)}/sample x batch "
                f"{w.batch_size}", f"你提供的每样本 {fmt_gib(w.activation_bytes_per_sample)} × "
                f"批大小 {w.batch_size}"), b)
        return Activations(None, Msg(
            "unknown for a custom model: give activation_bytes_per_sample (measure it with "
            "scripts/calibrate_activations.py's method)",
            "自定义模型未知：请提供 activation_bytes_per_sample（可用校准脚本的方法测量）"))
    prec = _cal_precision(w)
    pc = vc.precisions[prec]
    image = w.image_size or vc.image_size
    if model.family == "vit":
        patch = 16
        scale = ((image // patch) ** 2 + 1) / ((vc.image_size // patch) ** 2 + 1)
        how = Msg("scaled by token count", "按 token 数缩放")
    else:
        scale = (image / vc.image_size) ** 2
        how = Msg("scaled by image area", "按图像面积缩放")
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


def inference_activations(w: Workload, model: ResolvedModel,
                          cal: Calibration | None) -> Activations:
    """Working set of a forward pass without autograd: one layer's (one block's) tensors at a
    time. Estimated from the training measurements of one layer - an upper bound, since
    inference frees tensors as it goes. A transformer's prompts are prefilled in chunks of
    :data:`PREFILL_CHUNK_TOKENS` (chunked prefill, as vLLM and SGLang schedule it), so the
    working set is one chunk's, however long and many the prompts are."""
    prec = _cal_precision(w)
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


# --- FLOPs ---------------------------------------------------------------------------------


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
        arch, seq = model.arch, model.seq_len or 1
        n = arch.forward_matmul_params(lm_head=_head_kind(w, arch) == "lm")
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
    if w.forward_flops_per_sample is not None:
        return 3 * w.forward_flops_per_sample * ck, Msg(
            f"3 x your forward figure{ck_note.en}", f"3 × 你提供的前向 FLOPs{ck_note.zh}")
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


# --- the planner ---------------------------------------------------------------------------


def plan(workload: Workload, gpu: DeviceSpec | None = None) -> Requirements:
    """Requirements of ``workload``; with ``gpu``, also throughput, time and fit."""
    w = workload.validate()
    model = resolve_model(w)
    cal = load_calibration()
    assumptions: list[Assumption] = []
    incomplete: list[str] = []

    vram, extras = _vram(w, model, cal, assumptions, incomplete)
    throughput, samples_per_s = _throughput(w, model, cal, gpu, vram, assumptions)
    interconnect = _interconnect(w, model)
    system_ram = _system_ram(w, model, assumptions)
    storage = _storage(w, model, samples_per_s)
    cpu = _cpu(w, samples_per_s, assumptions)
    references = _references(w, model)
    claims = _seed_claims(w, model, cal, vram, extras)
    rules = _rules_of_thumb(w, gpu)
    return Requirements(
        workload=w, device=gpu, vram_per_gpu=vram, system_ram=system_ram, storage=storage,
        cpu=cpu, interconnect=interconnect, throughput=throughput,
        assumptions=_dedupe(assumptions), seed_claims=claims, references=references,
        incomplete=incomplete, rules_of_thumb=rules,
    )


def _dedupe(assumptions: list[Assumption]) -> list[Assumption]:
    seen: dict[str, Assumption] = {}
    for a in assumptions:
        seen.setdefault(a.key, a)
    return list(seen.values())


@dataclass(frozen=True)
class _VramExtras:
    activations: Activations
    states: ModelStates | None


def expert_parallel_share(w: Workload, model: ResolvedModel) -> float:
    """Share of the parameters one GPU holds: expert parallelism gives each of ``ep_size`` GPUs
    1/ep of the routed experts and a full copy of everything else (attention, shared experts,
    embeddings)."""
    if w.strategy != "expert_parallel" or model.arch is None or not model.params:
        return 1.0
    experts = model.arch.routed_expert_params()
    return (model.params - experts + experts / w.ep_size) / model.params


def _weight_bytes_inference(w: Workload, model: ResolvedModel) -> tuple[float, Msg]:
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
    return total, Msg(
        f"{per:.3f} B/param for the transformer's linear layers ({w.precision}"
        f"{', fp16 scale per 128 weights' if w.precision == 'int4' else ''}); embeddings, "
        "norms and LM head stay 16-bit",
        f"线性层每参数 {per:.3f} 字节（{w.precision}）；嵌入、归一化和输出头保持 16 位")


def quantized_weight_bytes(model: ResolvedModel, precision: str) -> tuple[float, float]:
    """(bytes, bytes per quantized weight) of a weight-only int8/int4 model: the blocks' linear
    layers are quantized, embeddings, norms and the LM head stay 16-bit (as bitsandbytes, GPTQ
    and AWQ leave them)."""
    per = 1.0 if precision == "int8" else 0.5 + 2.0 / INT4_GROUP
    quantized = float(model.params)
    if model.arch is not None:
        quantized = float(model.arch.layers * model.arch.layer_matmul_params())
    return quantized * per + (model.params - quantized) * 2.0, per


def _vram(w: Workload, model: ResolvedModel, cal: Calibration | None,
          assumptions: list[Assumption], incomplete: list[str]
          ) -> tuple[dict[str, Item], _VramExtras]:
    mp = w.tp_size * w.pp_size
    ep = expert_parallel_share(w, model)
    ep_note = Msg("", "")
    if ep < 1.0:
        ep_note = Msg(f"; routed experts split over {w.ep_size} GPUs (expert parallel): "
                      f"{ep:.0%} of the parameters per GPU",
                      f"；路由专家切分到 {w.ep_size} 个 GPU（专家并行）：每 GPU 持有 "
                      f"{ep:.0%} 的参数")
    items: dict[str, Item] = {}
    states: ModelStates | None = None
    comm = 0.0
    comm_note = Msg("none", "无")
    if not w.is_training:
        wb, note = _weight_bytes_inference(w, model)
        items["weights"] = Item(wb * ep / mp, Msg(
            f"{note.en}" + (f"; split over {mp} GPUs" if mp > 1 else "") + ep_note.en,
            f"{note.zh}" + (f"；切分到 {mp} 个 GPU" if mp > 1 else "") + ep_note.zh))
        items["gradients"] = Item(0.0, Msg("inference: none", "推理：无"))
        items["optimizer_states"] = Item(0.0, Msg("inference: none", "推理：无"))
        acts = inference_activations(w, model, cal)
    elif w.is_lora:
        if w.precision in QUANTIZED:
            base, base_per = quantized_weight_bytes(model, w.precision)
        else:
            base_per = 4.0 if w.precision in ("fp32", "tf32") else 2.0
            base = model.params * base_per
        adapters = lora_trainable_params(w, model)
        where = (Msg("attention projections", "注意力投影层") if model.arch is None
                 else Msg("all linear layers", "全部线性层"))
        items["weights"] = Item((base * ep + adapters * 4.0) / mp, Msg(
            f"frozen base {base_per:.3f} B/param ({label(PRECISIONS, w.precision, 'en')}) + "
            f"{adapters / 1e6:.1f}M LoRA parameters (rank {w.lora_rank}, {where.en}) in fp32",
            f"冻结基座每参数 {base_per:.3f} 字节（{label(PRECISIONS, w.precision, 'zh')}）+ "
            f"{adapters / 1e6:.1f}M LoRA 参数（秩 {w.lora_rank}，{where.zh}）fp32"))
        items["gradients"] = Item(adapters * 4.0 / mp, Msg(
            "fp32 gradients of the adapters only", "仅适配器的 fp32 梯度"))
        st = optimizer_state_bytes_per_param(w.optimizer, 4)
        items["optimizer_states"] = Item(adapters * st / mp, Msg(
            f"{st:g} B per adapter parameter ({label(OPTIMIZERS, w.optimizer, 'en')})",
            f"每个适配器参数 {st:g} 字节（{label(OPTIMIZERS, w.optimizer, 'zh')}）"))
        acts = _training_activations(w, model, cal)
    else:
        states = model_state_bytes(model.params * ep, w.precision, w.optimizer, w.strategy,
                                   w.data_parallel, mp)
        weights, grads, opt = states.weights, states.gradients, states.optimizer_states
        wn, gn, sn = states.note_weights, states.note_gradients, states.note_states
        if ep < 1.0:
            wn, gn, sn = (Msg(m.en + ep_note.en, m.zh + ep_note.zh) for m in (wn, gn, sn))
        if w.offload != "none":
            n = w.data_parallel
            opt = 0.0
            grads = 0.0
            sn = Msg("offloaded to CPU RAM (ZeRO-Offload)", "卸载到 CPU 内存（ZeRO-Offload）")
            gn = Msg("reduced into CPU RAM as they are produced (ZeRO-Offload)",
                     "生成后即归约到 CPU 内存（ZeRO-Offload）")
            if w.offload == "optimizer_and_params":
                weights = 0.0
                wn = Msg("offloaded to CPU RAM (ZeRO-Infinity); gathered per layer",
                         "卸载到 CPU 内存（ZeRO-Infinity）；逐层收集")
            else:
                weights = 2.0 * model.params / (n if w.strategy == "zero3" else 1)
                wn = Msg("16-bit weights on the GPU (DeepSpeed estimator: 2 B/param"
                         + (" / ranks)" if w.strategy == "zero3" else ")"),
                         "GPU 上保留 16 位权重（DeepSpeed 估算器：每参数 2 字节）")
        items["weights"] = Item(weights, wn)
        items["gradients"] = Item(grads, gn)
        items["optimizer_states"] = Item(opt, sn)
        if w.strategy == "ddp" and w.data_parallel > 1:
            comm = grads
            comm_note = Msg("DDP gradient buckets: a second copy of the gradients "
                            "(gradient_as_bucket_view=True removes it)",
                            "DDP 梯度桶：梯度的第二份拷贝（gradient_as_bucket_view=True 可省去）")
        acts = _training_activations(w, model, cal)
    if w.strategy == "zero3" and model.largest_layer_params:
        comm = 4.0 * model.largest_layer_params
        comm_note = Msg("ZeRO-3 gather buffer: 4 B x largest layer (DeepSpeed estimator)",
                        "ZeRO-3 收集缓冲：4 字节 × 最大层参数（DeepSpeed 估算器）")
    f = diffusion.facts(model.preset)
    if f is not None:
        frozen, frozen_note = diffusion.frozen_encoder_bytes(w, f)
        items["frozen_encoders"] = Item(frozen, frozen_note)
    if w.ema:
        trained = lora_trainable_params(w, model) if w.is_lora else model.params / mp
        items["ema_weights"] = Item(trained * 4.0, Msg(
            "fp32 exponential moving average of the trained weights (4 B/param)",
            "训练权重的 fp32 指数滑动平均（每参数 4 字节）"))
    if acts.bytes is None:
        incomplete.append("vram_per_gpu.activations")
    items["activations"] = Item(acts.bytes, acts.note)
    if acts.transient:
        items["backward_transient"] = Item(acts.transient, Msg(
            "gradient of the fp32 logits (and its 16-bit cast) while the LM head runs backward",
            "输出头反向时 fp32 logits 的梯度（及其 16 位转换）"))
    step = _optimizer_step_transient(w, model, mp)
    if step is not None:
        items["optimizer_step_transient"] = step
    items["kv_cache"] = _kv_item(w, model)
    items["comm_buffers"] = Item(comm, comm_note)
    items["overhead"] = Item(float(CUDA_OVERHEAD_BYTES), Msg(
        "CUDA context + cuBLAS/cuDNN/NCCL workspaces: assumption 1 GiB per GPU (recent "
        "drivers: ~0.3-1 GiB)", "CUDA 上下文 + cuBLAS/cuDNN/NCCL 工作区：假设每 GPU 1 GiB"
        "（新驱动约 0.3-1 GiB）"))
    assumptions.append(Assumption("cuda_overhead", Msg(
        "CUDA context and library workspaces take 1 GiB per GPU (not measured; the benchmark "
        "measures it)", "CUDA 上下文和库工作区每 GPU 占 1 GiB（未实测；基准测试会测量）"),
        CUDA_OVERHEAD_BYTES))
    body = sum(i.value or 0.0 for k, i in items.items() if k != "overhead")
    items["fragmentation"] = Item(body * FRAGMENTATION_FRACTION, Msg(
        "10% allocator headroom (vLLM's default gpu_memory_utilization = 0.9)",
        "10% 分配器余量（vLLM 默认 gpu_memory_utilization = 0.9）"))
    assumptions.append(Assumption("fragmentation", Msg(
        "10% of the allocations is kept free for fragmentation and peaks",
        "保留分配量的 10% 应对碎片和峰值"), FRAGMENTATION_FRACTION))
    items["total"] = Item(sum(i.value or 0.0 for i in items.values()), Msg(
        "sum of the items above" + (" (incomplete: some items unknown)" if incomplete else ""),
        "以上各项之和" + ("（不完整：部分项未知）" if incomplete else "")))
    return items, _VramExtras(acts, states)


def _optimizer_step_transient(w: Workload, model: ResolvedModel, mp: int) -> Item | None:
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
        params = model.params / mp
        elem = 2.0 if w.precision == "bf16" else 4.0
    return Item(params * elem, Msg(
        "AdamW foreach step (PyTorch's CUDA default): one temporary the size of the updated "
        "parameters' moments; counted on top of activations to stay conservative (the two do "
        "not peak together; fused=True avoids it)",
        "AdamW foreach 步骤（PyTorch CUDA 默认）：一份与参数动量同大小的临时张量；为保守起见与激活"
        "相加（二者并不同时达到峰值；fused=True 可避免）"))


def _training_activations(w: Workload, model: ResolvedModel,
                          cal: Calibration | None) -> Activations:
    if model.preset is not None and model.preset.diffusion is not None:
        saved, full, note = diffusion.training_activation_bytes(w, model.preset,
                                                                _cal_precision(w))
        return Activations(saved, note, full)
    if model.arch is not None and model.family == "transformer":
        return transformer_activations(w, model.arch, model.seq_len or 1, cal,
                                       w.gradient_checkpointing)
    if model.family in ("cnn", "vit"):
        return vision_activations(w, model, cal, w.gradient_checkpointing)
    if w.activation_bytes_per_sample is not None:
        b = w.activation_bytes_per_sample * w.batch_size
        return Activations(b, Msg("your figure x batch", "你提供的数值 × 批大小"), b)
    return Activations(None, Msg(
        "unknown: give activation_bytes_per_sample for a custom model",
        "未知：自定义模型请提供 activation_bytes_per_sample"))


def kv_share_per_gpu(w: Workload, arch: TransformerArch) -> float:
    """Share of the KV cache one GPU holds: tensor parallelism splits the KV heads (a head
    cannot be split, so fewer heads than GPUs are replicated; a latent cache is replicated),
    pipeline parallelism the layers."""
    share = 1.0
    if w.tp_size > 1 and not arch.is_mla:
        share = max(1, arch.kv_heads // w.tp_size) / arch.kv_heads
    return share / w.pp_size


def _kv_item(w: Workload, model: ResolvedModel) -> Item:
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
        f"{w.batch_size}（vLLM 论文第 3 节）"))


def _throughput(w: Workload, model: ResolvedModel, cal: Calibration | None,
                gpu: DeviceSpec | None, vram: dict[str, Item],
                assumptions: list[Assumption]) -> tuple[dict[str, Item], float | None]:
    items: dict[str, Item] = {}
    no_gpu = Msg("no GPU chosen: pick one to estimate speed", "未选择 GPU：选择后可估算速度")
    if not w.is_training:
        return _inference_throughput(w, model, gpu, vram, assumptions, no_gpu)
    flops, flops_note = training_flops_per_sample(w, model, cal)
    items["flops_per_sample"] = Item(flops, flops_note)
    peak, key = (gpu.peak_for(w.precision) if gpu else (None, ""))
    peak_note = Msg(f"{gpu.name}: dense {key} peak" if gpu else no_gpu.en,
                    f"{gpu.name}：稠密 {key} 峰值" if gpu else no_gpu.zh)
    if gpu is not None and gpu.tensor_cores is False and w.precision.startswith("amp"):
        peak_note = Msg(f"{peak_note.en}; no tensor cores, so AMP speeds little up (seed 3.1 "
                        "assumes them)", f"{peak_note.zh}；无张量核心，AMP 提速有限（文档 3.1 "
                        "的说法以其为前提）")
    items["peak_flops"] = Item(peak, peak_note)
    items["utilisation"] = Item(MFU, Msg(
        f"assumed {MFU:.0%} of peak (published measurements imply {MFU_RANGE[0]:.0%}-"
        f"{MFU_RANGE[1]:.0%})", f"假设达到峰值的 {MFU:.0%}（公开测量对应 {MFU_RANGE[0]:.0%}-"
        f"{MFU_RANGE[1]:.0%}）"))
    assumptions.append(Assumption("mfu", Msg(
        f"training reaches {MFU:.0%} of the dense tensor peak (30% Lambda BERT-base A100, 48% "
        "NVIDIA BERT-large A100; matmuls alone reach 80-87%)",
        f"训练达到稠密张量峰值的 {MFU:.0%}（Lambda BERT-base A100 为 30%，NVIDIA BERT-large "
        "A100 为 48%；纯矩阵乘可达 80-87%）"), MFU))
    per_gpu: float | None = None
    if gpu is None or flops is None or peak is None:
        if gpu is None:
            reason = no_gpu
        elif peak is None:
            reason = Msg(f"unknown: no dense {key} figure for {gpu.name} (bf16 needs Ampere or "
                         "newer)", f"未知：{gpu.name} 没有稠密 {key} 数据（bf16 需 Ampere 或更新）")
        else:
            reason = Msg("unknown: the model's FLOPs are unknown", "未知：模型 FLOPs 未知")
        items["samples_per_s_per_gpu"] = Item(None, reason)
    else:
        per_gpu = peak * MFU / flops
        note = Msg(f"compute-bound: peak x {MFU:.0%} / FLOPs per sample",
                   f"计算受限：峰值 × {MFU:.0%} / 每样本 FLOPs")
        if model.family == "cnn" and gpu.memory_bandwidth_bps:
            memory_bound = _cnn_memory_bound(w, model, cal, gpu.memory_bandwidth_bps)
            if memory_bound is not None and memory_bound < per_gpu:
                per_gpu = memory_bound
                note = Msg("memory-bound: bandwidth / traffic per image (traffic per activation "
                           "byte from NVIDIA's ResNet-50 AMP A100 measurement)",
                           "内存带宽受限：带宽 / 每图流量（每激活字节流量取自 NVIDIA ResNet-50 "
                           "AMP A100 实测）")
                assumptions.append(Assumption("cnn_traffic", Msg(
                    "CNN memory traffic per image scales with its activation bytes, calibrated "
                    "on ResNet-50 AMP A100 (2470 img/s); published CNN throughputs on other GPUs "
                    "differ from this model by up to +-55%",
                    "CNN 每图内存流量与激活字节成比例，以 ResNet-50 AMP A100（2470 img/s）标定；"
                    "其他 GPU 的公开数据与此模型相差可达 ±55%")))
        if w.pp_size > 1:
            per_gpu /= w.pp_size
        if w.task == "reinforcement_learning":
            note = Msg(f"{note.en}; GPU side only - the environment simulation usually limits",
                       f"{note.zh}；仅 GPU 端 - 通常受环境模拟限制")
        items["samples_per_s_per_gpu"] = Item(per_gpu, note)
    total = None if per_gpu is None else per_gpu * w.total_gpus / max(1, w.tp_size)
    scaling = _scaling_efficiency(w, gpu, per_gpu)
    items["scaling_efficiency"] = scaling
    total_note = Msg("unknown", "未知")
    if total is not None:
        eff = scaling.value if scaling.value is not None else 1.0
        total *= eff
        total_note = Msg(f"x {w.data_parallel} data-parallel ranks x {eff:.0%} scaling "
                         "efficiency", f"× {w.data_parallel} 个数据并行进程 × {eff:.0%} 扩展效率")
    if w.task == "reinforcement_learning":
        env = _environment_rate(w, assumptions)
        items["environment_steps_per_s"] = env
        if total is not None and env.value is not None and env.value < total:
            total = env.value
            total_note = Msg("bound by the CPU environment simulation (GPU side would do more)",
                             "受 CPU 环境模拟限制（GPU 端本可更快）")
    items["samples_per_s"] = Item(total, total_note)
    step = None if per_gpu is None else w.batch_size / per_gpu
    items["step_time_s"] = Item(step, Msg("micro-batch / samples per second per GPU",
                                          "微批次 / 每 GPU 每秒样本数"))
    tokens = None
    if total is not None and model.seq_len:
        tokens = total * model.seq_len
    items["tokens_per_s"] = Item(tokens, Msg("samples/s x sequence length",
                                             "每秒样本数 × 序列长度"))
    epoch = None
    if total and w.dataset.samples:
        epoch = w.dataset.samples / total
    items["time_per_epoch_s"] = Item(epoch, Msg(
        f"{w.dataset.samples:,} samples / samples per second",
        f"{w.dataset.samples:,} 个样本 / 每秒样本数"))
    items["total_time_s"] = Item(None if epoch is None else epoch * w.epochs, Msg(
        f"x {w.epochs:g} epochs", f"× {w.epochs:g} 个 epoch"))
    return items, total


def _scaling_efficiency(w: Workload, gpu: DeviceSpec | None, per_gpu: float | None) -> Item:
    """Data-parallel efficiency from the scaling model (planning/scaling.py) over the GPU's
    links; gradients are synchronised once per optimizer step (after the accumulation)."""
    from torchrig.planning.scaling import scaling_curve

    dp = w.data_parallel
    if dp <= 1:
        return Item(1.0, Msg("one data-parallel rank: no gradient synchronisation",
                             "单个数据并行进程：无需梯度同步"))
    if gpu is None or per_gpu is None:
        return Item(None, Msg("unknown without a GPU and its speed", "未选择 GPU，未知"))
    if w.tp_size * w.pp_size > 1 or gpu.intra_link is None \
            or (w.nodes > 1 and gpu.inter_link is None):
        return Item(None, Msg(
            "not modelled for this layout or link (unknown GPU links or model parallelism): "
            "time assumes perfect scaling, an upper bound",
            "此布局或链路未建模（GPU 链路未知或使用模型并行）：时间按理想扩展计算，为上界"))
    compute = w.batch_size * w.grad_accumulation / per_gpu
    try:
        point = scaling_curve(w, compute, gpu.intra_link, [w.total_gpus], w.gpus_per_node,
                              gpu.inter_link)[0]
    except InputError as exc:
        return Item(None, Msg(f"not modelled: {exc}; time assumes perfect scaling",
                              f"未建模：{exc}；时间按理想扩展计算"))
    links = gpu.intra_link.name + (f" + {gpu.inter_link.name}" if w.nodes > 1 and gpu.inter_link
                                   else "")
    return Item(point.efficiency, Msg(
        f"scaling model over {links}: {point.comm_time_s * 1e3:.1f} ms of gradient traffic per "
        "optimizer step, partly hidden behind backward (an upper bound: communication only)",
        f"扩展模型（{links}）：每个优化器步梯度通信 {point.comm_time_s * 1e3:.1f} ms，部分与反向"
        "重叠（上界：只计通信）"))


def _environment_rate(w: Workload, assumptions: list[Assumption]) -> Item:
    """Environment steps per second the CPUs simulate: one core per environment process."""
    cores = (w.num_workers or DEFAULT_ENV_PROCESSES) * w.nodes
    per_core = w.env_steps_per_s_per_core
    if per_core is None:
        if w.model != "nature-cnn":
            return Item(None, Msg(
                "unknown: give env_steps_per_s_per_core for this environment",
                "未知：请为该环境给出 env_steps_per_s_per_core"))
        per_core = ATARI_FRAMES_PER_S_PER_CORE / FRAME_SKIP
        source = Msg(f"Atari, {ATARI_ENV_SOURCE.en}", f"Atari，{ATARI_ENV_SOURCE.zh}")
    else:
        source = Msg("your figure", "你提供的数值")
    assumptions.append(Assumption("environment_rate", Msg(
        f"{per_core:,.0f} environment steps/s per core ({source.en})",
        f"每核每秒 {per_core:,.0f} 个环境步（{source.zh}）"), per_core))
    return Item(cores * per_core, Msg(
        f"{cores} environment processes (one core each) x {per_core:,.0f} steps/s ({source.en})",
        f"{cores} 个环境进程（各占一核）× 每秒 {per_core:,.0f} 步（{source.zh}）"))


def _cnn_memory_bound(w: Workload, model: ResolvedModel, cal: Calibration | None,
                      bandwidth: float) -> float | None:
    rate, ref_bw, ref_id = CNN_REFERENCE
    if cal is None or model.preset is None or ref_id not in cal.vision:
        return None
    ref = cal.vision[ref_id].precisions["amp"].bytes_per_sample
    traffic_per_byte = ref_bw / rate / ref
    vc = cal.vision.get(model.preset.id)
    if vc is None:
        return None
    image = w.image_size or vc.image_size
    acts = vc.precisions[_cal_precision(w)].bytes_per_sample * (image / vc.image_size) ** 2
    if w.gradient_checkpointing:
        acts *= 4 / 3
    return bandwidth / (acts * traffic_per_byte)


def _inference_throughput(w: Workload, model: ResolvedModel, gpu: DeviceSpec | None,
                          vram: dict[str, Item], assumptions: list[Assumption],
                          no_gpu: Msg) -> tuple[dict[str, Item], float | None]:
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
    items["samples_per_s_per_gpu"] = Item(per_gpu, Msg(
        f"forward FLOPs at {MFU:.0%} of peak" if per_gpu else "unknown",
        f"前向 FLOPs，按峰值的 {MFU:.0%}" if per_gpu else "未知"))
    total = None if per_gpu is None else per_gpu * w.total_gpus
    items["samples_per_s"] = Item(total, Msg("all GPUs", "全部 GPU"))
    return items, total


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
    items: dict[str, Item] = {}
    seq, batch, tp = w.seq_len or 1, w.batch_size, max(1, w.tp_size)
    bw = gpu.memory_bandwidth_bps if gpu else None
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
    upper = None if not bw or not read else bw / read * batch
    items["tokens_per_s_upper_bound"] = Item(upper, Msg(
        "memory bandwidth / bytes read per step x batch (bandwidth-bound decoding; "
        "estimation.md sec. 7)" if upper else no_gpu.en,
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


def _interconnect(w: Workload, model: ResolvedModel) -> dict[str, Item]:
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
    tp_bytes = 0.0
    if w.tp_size > 1 and model.arch is not None:
        t = w.tp_size
        act = 4.0 if w.precision in ("fp32", "tf32") else 2.0
        calls = 4 if w.is_training else 2
        tp_bytes = calls * model.arch.layers * w.batch_size * (model.seq_len or 1) \
            * model.arch.hidden * act * 2 * (t - 1) / t
    items["expert_parallel_bytes_per_step_per_gpu"] = _all_to_all_item(w, model)
    items["tensor_parallel_bytes_per_step_per_gpu"] = Item(tp_bytes, Msg(
        "Megatron TP: 2 all-reduces of b·s·h activations per layer forward, 2 backward"
        + ("" if w.is_training else "; inference: forward only, per prefill of the batch"),
        "Megatron 张量并行：每层前向 2 次、反向 2 次 b·s·h 激活 all-reduce"
        + ("" if w.is_training else "；推理：仅前向，按一批预填充计")))
    return items


def _all_to_all_item(w: Workload, model: ResolvedModel) -> Item:
    """Expert parallelism sends each token's hidden state to the GPUs holding its experts and
    back (two all-to-alls per MoE layer; backward repeats both), (ep-1)/ep of it off-GPU."""
    arch = model.arch
    if w.strategy != "expert_parallel" or arch is None:
        return Item(0.0, Msg("no expert parallelism", "无专家并行"))
    act = 4.0 if w.precision in ("fp32", "tf32") else 2.0
    passes = 2 if w.is_training else 1
    ep = w.ep_size
    tokens = w.batch_size * (model.seq_len or 1)
    volume = (2 * passes * arch.moe_layers * tokens * arch.active_experts * arch.hidden * act
              * (ep - 1) / ep)
    return Item(volume, Msg(
        f"all-to-all: 2 per MoE layer{' forward and 2 backward' if passes == 2 else ''} x "
        f"{tokens:,} tokens x {arch.active_experts} experts x hidden {arch.hidden} x {act:g} B "
        f"x (ep-1)/ep", f"all-to-all：每个 MoE 层前向 2 次{'、反向 2 次' if passes == 2 else ''}"
        f" × {tokens:,} token × {arch.active_experts} 个专家 × 隐藏维 {arch.hidden} × {act:g} 字节"
        " × (ep-1)/ep"))


def _batch_tensor_bytes(w: Workload, model: ResolvedModel) -> tuple[float, Msg]:
    """One collated sample as the DataLoader hands it over."""
    if w.task in TEXT_TASKS:
        seq = model.seq_len or 1
        return seq * 8.0 * 2, Msg("token ids + attention mask, int64",
                                  "token ID 与注意力掩码，int64")
    decoded = _decoded_bytes(w, model)
    return decoded * 4.0, Msg("float32 image tensor after ToTensor/normalize (4 x uint8)",
                              "ToTensor/归一化后的 float32 图像张量（uint8 的 4 倍）")


def _decoded_bytes(w: Workload, model: ResolvedModel) -> float:
    if w.dataset.decoded_bytes is not None:
        return w.dataset.decoded_bytes
    if w.task in TEXT_TASKS:
        return (model.seq_len or 1) * 8.0
    image = w.image_size or 224
    return float(image * image * model.channels)


def _system_ram(w: Workload, model: ResolvedModel,
                assumptions: list[Assumption]) -> dict[str, Item]:
    items: dict[str, Item] = {}
    g = w.gpus_per_node
    decoded = _decoded_bytes(w, model)
    if w.dataset.cache_in_ram:
        items["dataset_cache"] = Item(w.dataset.samples * decoded, Msg(
            f"{w.dataset.samples:,} samples x {decoded:,.0f} B decoded (per node: shuffling "
            "needs every sample on every node)",
            f"{w.dataset.samples:,} 个样本 × 解码后 {decoded:,.0f} 字节（每节点：随机打乱需要"
            "每个节点都有全部样本）"))
    else:
        items["dataset_cache"] = Item(0.0, Msg("not cached in RAM (read from storage)",
                                               "不缓存到内存（从存储读取）"))
    sample, sample_note = _batch_tensor_bytes(w, model)
    workers = w.num_workers if w.num_workers is not None else WORKERS_PER_GPU
    if w.task == "reinforcement_learning" or not w.is_training and w.task in (
            *TEXT_TASKS, "image_generation"):
        loader = 0.0
        loader_note = Msg("no DataLoader (environment simulation or served requests)",
                          "无 DataLoader（环境模拟或在线请求）")
        pinned = 0.0
    else:
        loader = g * workers * PREFETCH_FACTOR * w.batch_size * sample
        loader_note = Msg(
            f"{g} GPU x {workers} workers x prefetch {PREFETCH_FACTOR} x batch "
            f"{w.batch_size} x {sample:,.0f} B ({sample_note.en})",
            f"{g} GPU × {workers} 个 worker × 预取 {PREFETCH_FACTOR} × 批大小 {w.batch_size} × "
            f"{sample:,.0f} 字节（{sample_note.zh}）")
        pinned = g * PREFETCH_FACTOR * w.batch_size * sample
        assumptions.append(Assumption("workers", Msg(
            f"{workers} DataLoader workers per GPU"
            + ("" if w.num_workers is not None else " (common advice: ~4)"),
            f"每 GPU {workers} 个 DataLoader worker"
            + ("" if w.num_workers is not None else "（常见建议约 4 个）")), workers))
    items["dataloader"] = Item(loader, loader_note)
    items["pinned_buffers"] = Item(pinned, Msg(
        "page-locked copies of the batches in flight (pin_memory), 2 per GPU",
        "传输中批次的锁页副本（pin_memory），每 GPU 2 个"))
    stored = 2.0 if (model.arch is not None and w.task in TEXT_TASKS
                     and model.arch.style != "bert") else 4.0
    if w.precision in QUANTIZED:
        stored = {"int8": 1.0, "int4": 0.5}[w.precision]
    one_copy = model.params * stored
    copies = 1 if (w.strategy in ("zero3", "tensor_parallel", "pipeline_parallel")
                   or w.offload != "none") else g
    if not w.is_training:
        items["model_load"] = Item(0.0, Msg(
            f"weights ({fmt_gb(one_copy)}) memory-mapped from safetensors and streamed to the "
            "GPU: they pass through the reclaimable page cache, no copy is held in RAM",
            f"权重（{fmt_gb(one_copy)}）以 safetensors 内存映射方式流式载入 GPU：只经过可回收的"
            "页缓存，内存中不保留副本"))
    else:
        items["model_load"] = Item(one_copy * copies, Msg(
            f"weights read into RAM once per loading process: {copies} x {fmt_gb(one_copy)} "
            f"({stored:g} B/param as stored)"
            + ("; sharded/rank-0 loading" if copies == 1 and g > 1 else ""),
            f"每个加载进程把权重读入内存一次：{copies} × {fmt_gb(one_copy)}（存储时每参数 "
            f"{stored:g} 字节）"))
    offload = 0.0
    offload_note = Msg("no CPU offload", "无 CPU 卸载")
    if w.offload != "none":
        if w.strategy == "zero2":
            offload = deepspeed_zero2_estimate(model.params, g, w.nodes, True)[0]
        else:
            offload = deepspeed_zero3_estimate(
                model.params, model.largest_layer_params or 0, g, w.nodes, True,
                w.offload == "optimizer_and_params")[0]
        offload_note = Msg("DeepSpeed's estimator for the offloaded states (x1.5 buffer factor)",
                           "DeepSpeed 估算器给出的卸载状态（含 1.5 倍缓冲系数）")
    items["cpu_offload"] = Item(float(offload), offload_note)
    items["os_and_runtime"] = Item(float(OS_BASELINE_BYTES + g * RUNTIME_PER_PROCESS_BYTES), Msg(
        f"assumption: 2 GiB OS + 1 GiB per GPU process (Python, PyTorch, CUDA runtime) x {g}",
        f"假设：操作系统 2 GiB + 每个 GPU 进程 1 GiB（Python、PyTorch、CUDA 运行时）× {g}"))
    assumptions.append(Assumption("os_runtime", Msg(
        "host RAM baseline: 2 GiB for the OS + 1 GiB per GPU process (not measured)",
        "内存基线：操作系统 2 GiB + 每个 GPU 进程 1 GiB（未实测）"),
        OS_BASELINE_BYTES + g * RUNTIME_PER_PROCESS_BYTES))
    items["total"] = Item(sum(i.value or 0.0 for i in items.values()), Msg(
        "per node, sum of the items above", "每节点，以上各项之和"))
    return items


def _storage(w: Workload, model: ResolvedModel, samples_per_s: float | None
             ) -> dict[str, Item]:
    items: dict[str, Item] = {}
    dataset = w.dataset.samples * w.dataset.sample_bytes
    items["dataset_bytes"] = Item(dataset, Msg(
        f"{w.dataset.samples:,} samples x {w.dataset.sample_bytes:,.0f} B on disk",
        f"{w.dataset.samples:,} 个样本 × 磁盘上 {w.dataset.sample_bytes:,.0f} 字节"))
    stored = 2.0 if (model.arch is not None and w.task in TEXT_TASKS
                     and model.arch.style != "bert") else 4.0
    if w.precision in QUANTIZED:
        stored = {"int8": 1.0, "int4": 0.5}[w.precision]
    items["model_bytes"] = Item(model.params * stored, Msg(
        f"model file, {stored:g} B/param", f"模型文件，每参数 {stored:g} 字节"))
    if w.is_training:
        if w.is_lora:
            trainable = lora_trainable_params(w, model)
            per = trainable * (4 + optimizer_state_bytes_per_param(w.optimizer, 4))
            note = Msg("adapters + their optimizer states (the base stays unchanged)",
                       "适配器及其优化器状态（基座不变）")
        else:
            per = model.params * (4 + optimizer_state_bytes_per_param(
                w.optimizer, 2 if w.precision == "bf16" else 4))
            note = Msg("fp32 weights + optimizer states, to resume training",
                       "fp32 权重 + 优化器状态，用于恢复训练")
        items["checkpoint_bytes"] = Item(per * w.checkpoints_kept, Msg(
            f"{note.en}: {fmt_gb(per)} x {w.checkpoints_kept} kept",
            f"{note.zh}：{fmt_gb(per)} × 保留 {w.checkpoints_kept} 个"))
    else:
        items["checkpoint_bytes"] = Item(0.0, Msg("inference: none", "推理：无"))
    rate_source = samples_per_s if samples_per_s is not None else w.target_samples_per_s
    rate = None
    if rate_source is not None and not w.dataset.cache_in_ram:
        rate = rate_source * w.dataset.sample_bytes
    if not w.dataset.sample_bytes:
        rate_note = Msg("no dataset is read from storage", "不从存储读取数据集")
        rate = 0.0
    elif w.dataset.cache_in_ram:
        rate_note = Msg("dataset cached in RAM after the first epoch",
                        "首个 epoch 后数据集缓存于内存")
        rate = 0.0
    elif rate is None:
        rate_note = Msg("unknown: pick a GPU or give target_samples_per_s",
                        "未知：请选择 GPU 或给出 target_samples_per_s")
    else:
        src = "estimated throughput" if samples_per_s is not None else "your target rate"
        src_zh = "估算吞吐" if samples_per_s is not None else "你的目标速率"
        rate_note = Msg(f"{src} {rate_source:,.0f} samples/s x {w.dataset.sample_bytes:,.0f} B "
                        "(all nodes together)",
                        f"{src_zh} {rate_source:,.0f} 样本/秒 × {w.dataset.sample_bytes:,.0f} 字节"
                        "（全部节点合计）")
    items["read_rate_bps"] = Item(rate, rate_note)
    items["total"] = Item(dataset + (items["model_bytes"].value or 0.0)
                          + (items["checkpoint_bytes"].value or 0.0), Msg(
        "dataset + model + checkpoints", "数据集 + 模型 + 检查点"))
    return items


def _cpu(w: Workload, samples_per_s: float | None,
         assumptions: list[Assumption]) -> dict[str, Item]:
    items: dict[str, Item] = {}
    g = w.gpus_per_node
    items["main_processes"] = Item(float(g), Msg("one process per GPU", "每 GPU 一个进程"))
    rate = samples_per_s if samples_per_s is not None else w.target_samples_per_s
    if w.task in IMAGE_TASKS and w.is_training and not w.dataset.cache_in_ram:
        low, high = DECODE_RATE_PER_CORE
        if rate is None:
            items["decode_cores"] = Item(None, Msg(
                "unknown: pick a GPU or give target_samples_per_s",
                "未知：请选择 GPU 或给出 target_samples_per_s"))
        else:
            per_node = rate / w.nodes
            items["decode_cores"] = Item(per_node / low, Msg(
                f"{per_node:,.0f} img/s per node / {low:.0f} img/s per core (ESTIMATE with no "
                f"primary source: 150-300 img/s; at 300: {per_node / high:.1f} cores)",
                f"每节点 {per_node:,.0f} 图/秒 / 每核 {low:.0f} 图/秒（无一手来源的估计："
                f"150-300 图/秒；按 300 计需 {per_node / high:.1f} 核）"))
            assumptions.append(Assumption("decode_rate", Msg(
                "one core decodes and augments 150-300 images/s (estimate, no primary source)",
                "每核每秒解码增强 150-300 张图（估计，无一手来源）"), low))
    elif w.task == "reinforcement_learning":
        envs = w.num_workers or DEFAULT_ENV_PROCESSES
        items["decode_cores"] = Item(float(envs), Msg(
            f"environment simulation: {envs} environment processes, one core each (more "
            "processes on more cores raise the environment steps per second)",
            f"环境模拟：{envs} 个环境进程，各占一核（更多核心上的更多进程可提高每秒环境步数）"))
    else:
        items["decode_cores"] = Item(0.0, Msg(
            "pre-tokenized text or cached data: loading is light (Dettmers: 1-2 cores/GPU)",
            "预分词文本或已缓存数据：加载开销小（Dettmers：每 GPU 1-2 核）"))
    decode = items["decode_cores"].value
    items["cores_needed"] = Item(
        None if decode is None else float(math.ceil(decode) + g), Msg(
            "decode cores + one main process per GPU, per node",
            "每节点：解码核数 + 每 GPU 一个主进程"))
    return items


def _rules_of_thumb(w: Workload, gpu: DeviceSpec | None) -> list[dict[str, Any]]:
    g = w.gpus_per_node
    vram = gpu.vram_bytes if gpu else None
    return [
        {"topic": "cpu_cores", "source": "Puget Systems", "value": max(4 * g, 16 if g > 1 else 4),
         "text": Msg(">= 4 cores per GPU, 16+ for a multi-GPU workstation",
                     "每 GPU 至少 4 核，多 GPU 工作站 16 核以上").to_dict()},
        {"topic": "cpu_cores", "source": "Tim Dettmers", "value": 2 * g,
         "text": Msg("1-2 cores per GPU when data is preprocessed",
                     "数据已预处理时每 GPU 1-2 核").to_dict()},
        {"topic": "cpu_cores", "source": "seed 1.1", "value": 8,
         "text": Msg(">= 8 cores with SMT", "至少 8 核且支持超线程").to_dict()},
        {"topic": "ram", "source": "Tim Dettmers", "value": vram,
         "text": Msg("RAM >= the largest GPU's VRAM", "内存 ≥ 最大 GPU 显存").to_dict()},
        {"topic": "ram", "source": "Puget Systems", "value": None if vram is None
         else 2 * vram * g,
         "text": Msg("RAM >= 2x total VRAM", "内存 ≥ 显存总量的 2 倍").to_dict()},
        {"topic": "ram", "source": "seed 1.2", "value": 32 * GB,
         "text": Msg(">= 32 GB, enable swap", "至少 32 GB，并启用交换空间").to_dict()},
    ]


def _references(w: Workload, model: ResolvedModel) -> dict[str, Item]:
    """What two well-known estimators would print, to show why our figure differs."""
    items: dict[str, Item] = {}
    fp32_total = model.params * 4.0 + model.buffer_bytes
    acc_model, acc_train = accelerate_estimate(fp32_total, w.precision)
    items["accelerate_model_bytes"] = Item(acc_model, Msg(
        "HF accelerate estimate-memory: parameters + buffers at the dtype",
        "HF accelerate estimate-memory：参数 + 缓冲区（按数据类型）"))
    items["accelerate_training_bytes"] = Item(acc_train if w.is_training else None, Msg(
        "its 'training using Adam' column: the largest of four components, no activations or "
        "overhead (ours sums them)", "其“Adam 训练”列：四个组件的最大值，不含激活和开销"
        "（本工具逐项相加）"))
    if w.strategy in ("zero2", "zero3") and w.is_training and not w.is_lora:
        g, nodes = w.gpus_per_node, w.nodes
        if w.strategy == "zero2":
            cpu, gpu = deepspeed_zero2_estimate(model.params, g, nodes, w.offload != "none")
        elif model.largest_layer_params:
            cpu, gpu = deepspeed_zero3_estimate(
                model.params, model.largest_layer_params, g, nodes, w.offload != "none",
                w.offload == "optimizer_and_params")
        else:
            cpu = gpu = None  # type: ignore[assignment]
        note = Msg("DeepSpeed's model-states estimator (no activations), per GPU / per node",
                   "DeepSpeed 模型状态估算器（不含激活），每 GPU / 每节点")
        items["deepspeed_gpu_bytes"] = Item(None if gpu is None else float(gpu), note)
        items["deepspeed_cpu_bytes"] = Item(None if cpu is None else float(cpu), note)
    return items


# --- the seed document's claims ----------------------------------------------------------------


def _seed_claims(w: Workload, model: ResolvedModel, cal: Calibration | None,
                 vram: dict[str, Item], extras: _VramExtras) -> list[SeedClaim]:
    claims: list[SeedClaim] = []
    seed_ds = 100_000 * 224 * 224 * 3
    decoded = _decoded_bytes(w, model)
    mine = Msg("", "")
    if w.dataset.samples and w.task in IMAGE_TASKS:
        mine = Msg(f"; this workload: {w.dataset.samples:,} x {decoded:,.0f} B = "
                   f"{fmt_gb(w.dataset.samples * decoded)}",
                   f"；本工作负载：{w.dataset.samples:,} × {decoded:,.0f} 字节 = "
                   f"{fmt_gb(w.dataset.samples * decoded)}")
    claims.append(SeedClaim(
        "seed 1.2", Msg("100,000 RGB images of 224x224 need about 15 GB of RAM",
                        "10 万张 224×224 RGB 图像约需 15GB 内存"),
        "~15 GB", float(seed_ds), "B",
        Msg(f"100,000 x 150,528 B (uint8) = {fmt_gb(seed_ds, 2)} ({fmt_gib(seed_ds, 2)}); as "
            f"float32 tensors 4x that{mine.en}",
            f"100,000 × 150,528 字节（uint8）= {fmt_gb(seed_ds, 2)}（{fmt_gib(seed_ds, 2)}）；"
            f"若存为 float32 张量则为 4 倍{mine.zh}")))
    if w.is_training and not w.is_lora and w.precision in ("fp32", "tf32", "amp_fp16",
                                                          "amp_bf16"):
        fp32 = _vram_body(dataclasses.replace(w, precision="fp32"), model, cal)
        amp = _vram_body(dataclasses.replace(w, precision="amp_bf16"), model, cal)
        saving = None if not fp32 or amp is None else 1 - amp / fp32
        states = extras.states
        claims.append(SeedClaim(
            "seed 3.1", Msg("mixed precision cuts memory by 50%", "混合精度减少 50% 显存"),
            "-50%", None if saving is None else -saving, "fraction",
            Msg("this workload, fp32 vs AMP: weights, gradients and Adam states stay fp32 "
                "(16 B/param either way); only activations shrink (~half)"
                + ("" if states is None else ""),
                "本工作负载 fp32 与 AMP 对比：权重、梯度和 Adam 状态仍为 fp32（两种方式均为每参数 "
                "16 字节）；只有激活减半左右")))
    if w.is_training and extras.activations.without_checkpointing:
        on = _activation_bytes(dataclasses.replace(w, gradient_checkpointing=True), model, cal)
        off = extras.activations.without_checkpointing
        saving = None if on is None or not off else 1 - on / off
        claims.append(SeedClaim(
            "seed 3.3", Msg("gradient checkpointing: 60-80% less memory, 10-20% more time",
                            "梯度检查点：显存减少 60%-80%，时间增加 10%-20%"),
            "-60..-80%, +10..20%", None if saving is None else -saving, "fraction",
            Msg("activation saving computed for this workload; the recompute costs one extra "
                "forward, ~+33% compute (Chen et al.), more than the seed's 10-20%",
                "按本工作负载计算的激活节省；重算需多一次前向，约增加 33% 计算量（Chen 等），"
                "高于文档所说的 10%-20%")))
    return claims


def _activation_bytes(w: Workload, model: ResolvedModel, cal: Calibration | None
                      ) -> float | None:
    return _training_activations(w, model, cal).bytes


def _vram_body(w: Workload, model: ResolvedModel, cal: Calibration | None) -> float | None:
    """Weights + gradients + states + activations of a variant of the workload."""
    states = model_state_bytes(model.params, w.precision, w.optimizer, w.strategy,
                               w.data_parallel, w.tp_size * w.pp_size)
    acts = _activation_bytes(w, model, cal)
    if acts is None:
        return None
    return states.weights + states.gradients + states.optimizer_states + acts
