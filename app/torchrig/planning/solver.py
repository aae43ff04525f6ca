"""The sizing solver: when a workload does not fit a GPU, search the settings before the hardware.

Order (cheapest for the researcher first): the largest micro-batch that fits with gradient
accumulation keeping the global batch; gradient checkpointing; 8-bit optimizer states; ZeRO
stages across the GPUs already there; ZeRO-Offload to CPU RAM; mixed precision; LoRA / QLoRA;
for inference (in serving words), fewer requests at once, tensor parallelism over the GPUs
already there, an fp8 KV cache, fp8 / fp4 or int8 / int4 weights, tensor parallelism over more
GPUs of the node and a shorter context. Every candidate is re-planned (never assumed) and
carries its time cost from the same models (for serving: time per output token, output tokens/s
and time to first token); when no single setting is enough, or every one that is adds GPUs,
the settings that keep the GPUs are combined. Only then are other GPUs listed
(:mod:`torchrig.planning.gpu_choice`).

The answer is a list of :class:`Change` - workload fields and their new values - that a face
(the Wizard's "Apply" buttons, ``torchrig plan``) applies with :meth:`Change.apply`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.device import DeviceSpec
from torchrig.planning.gpu_choice import BASEBOARD_GPUS, gpu_options, pick_gpu, run_time
from torchrig.planning.requirements import Requirements, plan
from torchrig.planning.requirements.serving_time import serving_peak
from torchrig.planning.workload import LOW_PRECISION, Workload, resolve_model
from torchrig.units import fmt_gib, fmt_seconds

if TYPE_CHECKING:
    from torchrig.catalog.model import Catalog, Part

SOLVER_CHOICES = 6
"""Settings listed at most: the first that fit, in the search order."""

NODE_GPUS = max(BASEBOARD_GPUS)
"""The most GPUs one node holds (an 8-GPU HGX baseboard): tensor parallelism stays inside a
node, where its two all-reduces per layer run over NVLink or PCIe, not the network."""


@dataclass(frozen=True)
class Change:
    """One re-planned change that makes the workload fit.

    Attributes:
        kind: "setting" (same GPU) or "gpu" (another catalog GPU, ``part_id``).
        fields: workload fields and their new values; :meth:`apply` returns the changed
            workload.
        vram_needed: per GPU after the change; verdict: "fits" (or "tight").
        time_s / time_ratio: the run's time after the change and against the current plan
            (None when unknown); time_note says what the time cost is made of.
        rate_ratio / ttft_ratio: serving only (None otherwise or when unknown): the
            deployment's output tokens/s and the time to first token against the current
            plan, so that a shorter time per output token bought with fewer tokens/s shows.
    """

    kind: str
    label: Msg
    fields: Mapping[str, Any]
    vram_needed: float
    verdict: str | None
    time_s: float | None
    time_ratio: float | None
    time_note: Msg
    part_id: str | None = None
    time_label: Msg = Msg("time", "时间")
    rate_ratio: float | None = None
    ttft_ratio: float | None = None

    def time_text(self, lang: str) -> str:
        """"time x0.50" in the words of the run's time: a training run's whole time, a
        served request's time per output token (then the output tokens/s and the time to first
        token beside it), an image's generation time."""
        if self.time_ratio is None:
            return Msg(f"{self.time_label.en} unknown", f"{self.time_label.zh}未知").get(lang)
        parts = [f"{self.time_label.get(lang)} ×{self.time_ratio:.2f}"]
        for ratio, words in ((self.rate_ratio, Msg("tokens/s", "每秒 token")),
                             (self.ttft_ratio, Msg("time to first token", "首 token 时间"))):
            if ratio is not None:
                parts.append(f"{words.get(lang)} ×{ratio:.2f}")
        return ("，" if lang == "zh" else ", ").join(parts)

    def apply(self, w: Workload) -> Workload:
        return replace(w, **dict(self.fields)).validate()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label.to_dict(), "fields": dict(self.fields),
                "vram_needed": self.vram_needed, "vram_verdict": self.verdict,
                "time_s": self.time_s, "time_ratio": self.time_ratio,
                "tokens_per_s_ratio": self.rate_ratio, "ttft_ratio": self.ttft_ratio,
                "time_note": self.time_note.to_dict(), "part": self.part_id}


@dataclass(frozen=True)
class SolverAnswer:
    """Attributes: verdict of the workload as given, its need and the GPU's memory, and the
    changes that fit (settings first, then GPUs)."""

    verdict: str | None
    vram_needed: float
    vram: float | None
    changes: list[Change] = field(default_factory=list)

    @property
    def settings(self) -> list[Change]:
        return [c for c in self.changes if c.kind == "setting"]

    def to_dict(self) -> dict[str, Any]:
        return {"vram_verdict": self.verdict, "vram_needed": self.vram_needed,
                "vram": self.vram, "changes": [c.to_dict() for c in self.changes]}


def _try(w: Workload, fields: Mapping[str, Any], device: DeviceSpec | None
         ) -> tuple[Workload, Requirements] | None:
    try:
        candidate = replace(w, **dict(fields)).validate()
        return candidate, plan(candidate, device)
    except InputError:
        return None  # a setting this workload cannot take is simply not offered


def time_label(w: Workload) -> Msg:
    """What :func:`torchrig.planning.gpu_choice.run_time` times for ``w``, in words: serving
    is judged by its time per output token (a decode step at its requests at once), not by a
    "run"."""
    if w.is_training:
        return Msg("time", "时间")
    if w.task == "llm_inference":
        return Msg("time per output token", "每输出 token 时间")
    return Msg("time per batch", "每批时间")


def _time(w: Workload, req: Requirements) -> float | None:
    if w.task == "llm_inference":
        tpot = req.throughput.get("time_per_output_token_s")
        return None if tpot is None else tpot.value
    return run_time(req)  # ZeRO-Offload's wait is in the plan's own time (offload_time_s)


def _serving_ratios(w: Workload, req: Requirements, base_req: Requirements
                    ) -> tuple[float | None, float | None]:
    """Serving: the deployment's output tokens/s and the time to first token after a change,
    against the current plan (the planner's own figures, sec. 8.6); None for other tasks."""
    if w.task != "llm_inference":
        return None, None

    def ratio(key: str) -> float | None:
        new, old = req.throughput.get(key), base_req.throughput.get(key)
        if new is None or old is None or new.value is None or not old.value:
            return None
        return new.value / old.value

    return ratio("output_tokens_per_s"), ratio("time_to_first_token_s")


def _time_note(w: Workload, base: Workload, req: Requirements) -> Msg:
    notes = []
    if w.gradient_checkpointing and not base.gradient_checkpointing:
        notes.append(Msg("checkpointing repeats the forward pass (+1/3 compute)",
                         "检查点重算一次前向（计算量 +1/3）"))
    wait = req.throughput.get("offload_time_s")
    if w.offload != base.offload and wait is not None and wait.value is not None:
        notes.append(Msg(f"offload waits {fmt_seconds(wait.value)} per optimizer step for the "
                         "PCIe host copies and CPU Adam",
                         f"卸载每个优化器步等待 {fmt_seconds(wait.value, 'zh')}（PCIe 主机拷贝"
                         "与 CPU Adam）"))
    if w.batch_size < base.batch_size and w.task == "llm_inference":
        notes.append(Msg("each decode step reads the same weights for fewer requests: each "
                         "token comes sooner, fewer tokens per second in all",
                         "每个解码步读取同样的权重，却只为更少的请求生成 token：单个 token "
                         "更快，总的每秒 token 更少"))
    elif w.batch_size < base.batch_size and not w.is_training:
        notes.append(Msg("smaller batches use the GPU less fully (not modelled)",
                         "更小的批次对 GPU 利用更不充分（未建模）"))
    elif w.batch_size < base.batch_size:
        notes.append(Msg("smaller micro-batches use the GPU less fully (not modelled)",
                         "更小的微批次对 GPU 利用更不充分（未建模）"))
    if not notes:
        return Msg("re-planned with the same throughput model", "按同一吞吐模型重新估算")
    return Msg("; ".join(n.en for n in notes), "；".join(n.zh for n in notes))


def _fits(req: Requirements, vram: float) -> bool:
    return req.vram_total <= vram


_Planned = tuple[Workload, Requirements]


def _largest_batch(w: Workload, device: DeviceSpec | None, vram: float
                   ) -> tuple[_Planned | None, _Planned | None]:
    """(the largest micro-batch below the current one that fits, found by bisection - memory
    grows with the micro-batch -, and the largest divisor of the current micro-batch at or
    below it, so accumulation keeps the global batch exactly)."""
    def attempt(m: int) -> tuple[Workload, Requirements] | None:
        accumulation = w.grad_accumulation * math.ceil(w.batch_size / m) if w.is_training \
            else 1
        tried = _try(w, {"batch_size": m, "grad_accumulation": accumulation}, device)
        return tried if tried is not None and _fits(tried[1], vram) else None

    low, high, best = 1, w.batch_size - 1, None
    while low <= high:
        middle = (low + high) // 2
        found = attempt(middle)
        if found is not None:
            best, low = found, middle + 1
        else:
            high = middle - 1
    if best is None:
        return None, None
    largest = best[0].batch_size
    divisor = max(d for d in range(1, largest + 1) if w.batch_size % d == 0)
    return best, (best if divisor == largest else attempt(divisor))


def _batch_label(w: Workload, base: Workload) -> Msg:
    if not w.is_training:
        return Msg(f"{w.batch_size} requests at once instead of {base.batch_size}",
                   f"同时处理的请求由 {base.batch_size} 个减为 {w.batch_size} 个")
    same = w.global_batch == base.global_batch
    keep = Msg("keeps the global batch", "保持全局批大小") if same else Msg(
        f"global batch {w.global_batch} instead of {base.global_batch}",
        f"全局批大小变为 {w.global_batch}（原为 {base.global_batch}）")
    return Msg(f"micro-batch {w.batch_size} x {w.grad_accumulation} accumulation steps "
               f"({keep.en})",
               f"微批次 {w.batch_size} × 梯度累积 {w.grad_accumulation} 步（{keep.zh}）")


def _setting_candidates(w: Workload, device: DeviceSpec | None = None
                        ) -> list[tuple[Msg, dict[str, Any]]]:
    """Single changes in the search order (each re-planned by the caller)."""
    out: list[tuple[Msg, dict[str, Any]]] = []
    arch = resolve_model(w).arch
    if arch is not None and arch.is_moe and w.total_gpus > 1 and w.strategy == "ddp" \
            and not w.is_lora:
        ep = max(n for n in range(1, w.total_gpus + 1)
                 if w.total_gpus % n == 0 and arch.experts % n == 0)
        if ep > 1:
            out.append((Msg(f"expert parallel: the experts split over {ep} GPUs",
                            f"专家并行：专家切分到 {ep} 块 GPU"),
                        {"strategy": "expert_parallel", "ep_size": ep}))
    if w.is_training:
        if not w.gradient_checkpointing:
            out.append((Msg("gradient checkpointing", "梯度检查点"),
                        {"gradient_checkpointing": True}))
        if w.optimizer == "adamw":
            out.append((Msg("8-bit Adam optimizer states", "8 位 Adam 优化器状态"),
                        {"optimizer": "adam_8bit"}))
        order = ("ddp", "zero1", "zero2", "zero3")
        if w.data_parallel > 1 and w.strategy in order and not w.is_lora:
            for stage in order[order.index(w.strategy) + 1:]:
                out.append((Msg(f"ZeRO stage {stage[-1]} across the {w.total_gpus} GPUs",
                                f"在 {w.total_gpus} 块 GPU 间使用 ZeRO 第 {stage[-1]} 阶段"),
                            {"strategy": stage}))
        if not w.is_lora and w.offload == "none":
            stage = w.strategy if w.strategy in ("zero2", "zero3") else "zero2"
            out.append((Msg("ZeRO-Offload: optimizer states to CPU RAM",
                            "ZeRO-Offload：优化器状态卸载到内存"),
                        {"strategy": stage, "offload": "optimizer"}))
            out.append((Msg("ZeRO-Infinity: optimizer states and weights to CPU RAM",
                            "ZeRO-Infinity：优化器状态和权重卸载到内存"),
                        {"strategy": "zero3", "offload": "optimizer_and_params"}))
        if w.precision in ("fp32", "tf32"):
            out.append((Msg("mixed precision (AMP bf16)", "混合精度（AMP bf16）"),
                        {"precision": "amp_bf16"}))
        if w.task == "llm_finetune_full":
            out.append((Msg("LoRA (rank 16) instead of a full fine-tune",
                            "用 LoRA（秩 16）代替全量微调"),
                        {"task": "llm_finetune_lora", "lora_rank": 16, "strategy": "ddp",
                         "offload": "none"}))
        if w.task == "image_generation" and not w.precomputed_latents:
            out.append((Msg("encode the images to VAE latents beforehand",
                            "预先把图像编码为 VAE 潜变量"), {"precomputed_latents": True}))
        if w.task == "image_generation" and not w.is_lora:
            # diffusers' train_text_to_image_lora.py default: rank 4 on the attention.
            out.append((Msg("LoRA (rank 4, attention projections) instead of a full fine-tune",
                            "用 LoRA（秩 4，注意力投影层）代替全量微调"),
                        {"lora_rank": 4, "strategy": "ddp", "offload": "none"}))
        if w.task == "llm_finetune_lora" and w.precision not in ("int4", "int8"):
            out.append((Msg("QLoRA: 4-bit frozen base", "QLoRA：4 位冻结基座"),
                        {"precision": "int4"}))
    else:
        out.extend(_serving_candidates(w, device))
    return out


def _more_tensor_parallel(w: Workload, device: DeviceSpec | None
                          ) -> tuple[Msg, dict[str, Any]] | None:
    """Serving over more GPUs: the smallest tensor-parallel size above the current one that
    fits, of the sizes that tile a node (2, 4, 8; at most the GPUs the node's link connects),
    re-planned by the serving model (weights and KV heads split, two all-reduces per layer).
    The node keeps its GPUs where they are a multiple of the new size (fewer replicas),
    otherwise it holds exactly one group. None when no size fits (or the workload is not
    data- or tensor-parallel serving)."""
    if device is None or device.vram_bytes is None or w.task != "llm_inference" \
            or w.strategy not in ("ddp", "tensor_parallel"):
        return None
    now = w.tp_size if w.strategy == "tensor_parallel" else w.gpus_per_node
    link = device.intra_link
    most = min(NODE_GPUS, link.max_gpus if link is not None and link.max_gpus else NODE_GPUS)
    for t in (t for t in range(now + 1, most + 1) if NODE_GPUS % t == 0):
        gpus = w.gpus_per_node if w.gpus_per_node % t == 0 else t
        fields = {"strategy": "tensor_parallel", "tp_size": t, "gpus_per_node": gpus}
        tried = _try(w, fields, device)
        if tried is None or not _fits(tried[1], device.vram_bytes):
            continue
        more = gpus - w.gpus_per_node
        extra = Msg("", "") if more == 0 else Msg(
            f" ({more} more GPU{'s' if more > 1 else ''} per node)", f"（每节点多 {more} 块 GPU）")
        return (Msg(f"tensor parallel over {t} GPUs{extra.en}",
                    f"在 {t} 块 GPU 上做张量并行{extra.zh}"), fields)
    return None


def _serving_candidates(w: Workload, device: DeviceSpec | None
                        ) -> list[tuple[Msg, dict[str, Any]]]:
    """Inference moves, in serving words: tensor parallelism over the GPUs there, an 8-bit KV
    cache, fp8 / fp4 weights where the tensor cores have them, weight-only int8 / int4,
    tensor parallelism over more GPUs and a shorter context. (Fewer requests at once is the
    micro-batch search.)"""
    out: list[tuple[Msg, dict[str, Any]]] = []
    if w.gpus_per_node > 1 and w.strategy == "ddp":
        out.append((Msg(f"tensor parallel over the {w.gpus_per_node} GPUs",
                        f"在 {w.gpus_per_node} 块 GPU 上做张量并行"),
                    {"strategy": "tensor_parallel", "tp_size": w.gpus_per_node}))
    llm = w.task == "llm_inference"
    if llm and w.kv_cache_dtype != "fp8":
        out.append((Msg("fp8 KV cache (half the bytes of a 16-bit one)",
                        "fp8 KV 缓存（字节数为 16 位的一半）"), {"kv_cache_dtype": "fp8"}))
    # Bytes of a quantized linear-layer weight (docs/estimation.md sec. 8.1): a move is offered
    # only when it stores the weights in fewer bytes than now.
    size = {"fp8": 1.0, "int8": 1.0, "fp4": 0.5625, "int4": 0.515625}
    for bits in size:
        if size[bits] >= size.get(w.precision, 2.0):
            continue
        if bits in LOW_PRECISION and (not llm or device is None
                                      or serving_peak(replace(w, precision=bits), device)[0]
                                      is None):
            continue  # fp8 / fp4 only where the tensor cores compute in them
        out.append((Msg(f"{bits} weights and activations (TensorRT-LLM, vLLM)",
                        f"{bits} 权重与激活（TensorRT-LLM、vLLM）") if bits in LOW_PRECISION else
                    Msg(f"{bits} weights (weight-only quantization)",
                        f"{bits} 权重（仅权重量化）"), {"precision": bits}))
    more = _more_tensor_parallel(w, device)
    if more is not None:
        out.append(more)
    if llm and w.seq_len and w.seq_len >= 2048:
        shorter = w.seq_len // 2
        out.append((Msg(f"a {shorter:,}-token context instead of {w.seq_len:,}",
                        f"上下文由 {w.seq_len:,} 个 token 缩短为 {shorter:,} 个"),
                    {"seq_len": shorter}))
    return out


def solve(w: Workload, device: DeviceSpec | None, catalog: Catalog | None = None,
          currency: str = "USD", buyable: Callable[[Part], bool] | None = None,
          **gpu_choice: Any) -> SolverAnswer:
    """Changes that make ``w`` fit ``device``: settings first, then other GPUs - among those
    ``buyable`` allows when given (the subject's machine: planning/buying_for.py)."""
    base_req = plan(w, device)
    vram = None if device is None else device.vram_bytes
    answer = SolverAnswer(base_req.vram_verdict, base_req.vram_total, vram)
    if vram is None or base_req.vram_verdict == "fits":
        return answer
    base_time = _time(w, base_req)

    def change(label: Msg, candidate: Workload, req: Requirements) -> Change:
        fields = {k: getattr(candidate, k) for k in _CHANGEABLE
                  if getattr(candidate, k) != getattr(w, k)}
        time = _time(candidate, req)
        ratio = None if time is None or not base_time else time / base_time
        rate, ttft = _serving_ratios(w, req, base_req)
        return Change("setting", label, fields, req.vram_total, req.vram_verdict, time, ratio,
                      _time_note(candidate, w, req), time_label=time_label(w), rate_ratio=rate,
                      ttft_ratio=ttft)

    changes: list[Change] = []
    if w.batch_size > 1:
        for found in _largest_batch(w, device, vram):
            if found is not None and all(found[0].batch_size != c.fields.get("batch_size")
                                         for c in changes):
                changes.append(change(_batch_label(found[0], w), *found))
    for label, fields in _setting_candidates(w, device):
        tried = _try(w, fields, device)
        if tried is not None and _fits(tried[1], vram):
            changes.append(change(label, *tried))
    if all("gpus_per_node" in c.fields for c in changes):
        # Nothing fits on the GPUs there (or only with more of them): combine what keeps them.
        combined = _combine(w, device, vram)
        if combined is not None:
            labels, candidate, req = combined
            changes.append(change(Msg(" + ".join(m.en for m in labels),
                                      " + ".join(m.zh for m in labels)), candidate, req))
    changes = changes[:SOLVER_CHOICES]
    if catalog is not None:
        options = [o if buyable is None else replace(o, buyable=buyable(o.part))
                   for o in gpu_options(w, catalog, currency, **gpu_choice)
                   if o.verdict == "fits" and o.part.gpu.vram_bytes != vram]
        picks = []
        pick = pick_gpu(options)
        best = None if pick is None else pick.option
        if pick is not None:
            picks.append((pick.option, pick.text))
        timed = [o for o in options if o.time_s is not None and o.buyable]
        if timed:
            fastest = min(timed, key=lambda o: o.time_s or 0.0)
            if best is None or fastest.part.id != best.part.id:
                picks.append((fastest, Msg("fastest", "最快")))
        for option, why in picks:
            time = _time(w, option.requirements) if w.task == "llm_inference" else option.time_s
            ratio = None if time is None or not base_time else time / base_time
            rate, ttft = _serving_ratios(w, option.requirements, base_req)
            changes.append(Change(
                "gpu", Msg(f"{option.part.name} ({fmt_gib(option.part.gpu.vram_bytes or 0, 0)}"
                           f", {why.en})", f"{option.part.name}（"
                           f"{fmt_gib(option.part.gpu.vram_bytes or 0, 0)}，{why.zh}）"),
                {}, option.need, option.verdict, time, ratio,
                Msg("re-planned on that GPU", "按该 GPU 重新估算"), option.part.id,
                time_label(w), rate, ttft))
    return replace(answer, changes=changes)


_CHANGEABLE = ("task", "precision", "optimizer", "batch_size", "grad_accumulation",
               "gradient_checkpointing", "gpus_per_node", "strategy", "tp_size", "ep_size",
               "offload", "lora_rank", "kv_cache_dtype", "seq_len")


def _combine(w: Workload, device: DeviceSpec | None, vram: float
             ) -> tuple[list[Msg], Workload, Requirements] | None:
    """No single setting is enough on the GPUs there: add those that keep the GPUs one by one
    (each that the workload accepts), stopping as soon as it fits, then shrink the micro-batch
    with accumulation. The labels name the final state only: a move a later one undid (fp8
    and int8 weights before int4) is not named."""
    moves: list[tuple[Mapping[str, Any], Msg]] = []

    def final(candidate: Workload) -> list[Msg]:
        return [label for fields, label in moves
                if all(getattr(candidate, k) == v for k, v in fields.items())]

    current = w
    for label, fields in _setting_candidates(w, device):
        if "gpus_per_node" in fields:
            continue
        tried = _try(current, fields, device)
        if tried is None:
            continue
        current, req = tried
        moves.append((fields, label))
        if _fits(req, vram):
            return final(current), current, req
    if current.batch_size > 1:
        found = _largest_batch(current, device, vram)[0]
        if found is not None:
            moves.append(({"batch_size": found[0].batch_size}, _batch_label(found[0], current)))
            return final(found[0]), *found
    return None


__all__ = ["Change", "SolverAnswer", "solve"]
