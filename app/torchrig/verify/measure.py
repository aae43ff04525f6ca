"""``torchrig verify``: run a workload's own model on this machine and put the measurement
beside the plan, item by item.

1. The model is built from the workload with random weights (no downloads): the vision presets
   and custom ResNets (``layers`` 18/34/50/101/152), the transformer presets and custom
   transformers in the planner's architecture description (BERT, GPT-2 or Llama style), with
   :mod:`torchrig.verify.reference_models` - the code the activation calibration measures.
2. A pilot run at the smallest size (one block, batch 1) measures memory and step time; the
   full size is estimated from it with the planner's own ratios. If the full size would not
   fit in the free memory (CPU: half the available RAM; GPU: 90 % of the free VRAM) or, on the
   CPU, would not finish in the time budget, a reduced copy is measured instead - fewer layers
   first, then a smaller batch - at two sizes along each reduced axis, and every figure is
   extrapolated linearly per layer and per sample. The result says what was reduced and how.
3. Out-of-memory during a run is caught, reported, and the run retried once at half the size.
   Cancel stops at the next module; the model and tensors are freed afterwards (GPU cache
   emptied).

Multi-GPU layouts are measured as one GPU of plain data parallelism: the comparison is with the
plan of the same workload on one GPU (the result says so).
"""

from __future__ import annotations

import datetime as _dt
import gc
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.requirements import plan
from torchrig.planning.workload import (
    CUSTOM,
    LOW_PRECISION,
    VISION_TASKS,
    Workload,
    resolve_model,
)
from torchrig.verify.compare import Measured, VerifyResult, compare
from torchrig.verify.measured_layout import default_source, denoiser_only, single_gpu
from torchrig.verify.sources import REFERENCE, VERIFY_IMAGE_SIZE, ModelSource
from torchrig.verify.timefit import budget_step_s, extrapolate_time

if TYPE_CHECKING:
    from torchrig.planning.device import DeviceSpec
    from torchrig.verify.probe import CudaMemory, ProbeResult, ProbeSpec, Size

CPU_MEMORY_SHARE = 0.5
"""Share of the available RAM a CPU verification may plan to use: the rest of the machine
keeps working while it runs."""
CUDA_MEMORY_SHARE = 0.9
"""Share of the free VRAM a GPU verification may plan to use (vLLM's default 0.9)."""
CPU_TIME_BUDGET_S = 25.0
GPU_TIME_BUDGET_S = 20.0
"""Estimated run time of the measured sizes together; a size that would take longer is
reduced (keeps a CPU verification within a minute, a GPU one within 30 s)."""
SECOND_PILOT_BELOW_S = 2.0
"""A pilot step faster than this gets a second pilot at twice the samples (see verify)."""
MIN_STEPS = 3
"""A warm-up step (saved bytes, optimizer states), a memory step and at least one timed step."""
MAX_STEPS = 1000

UNSUPPORTED_PRECISIONS = ("int8", "int4")


class VerifyError(InputError):
    """A verification that cannot run or finish; ``msg`` carries both languages."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(msg.en)
        self.msg = msg


@dataclass(frozen=True)
class VerifyProgress:
    """Progress record: ``done`` of ``total`` runs, and what is running now."""

    done: int
    total: int
    message: Msg


@dataclass
class Runtime:
    """Where tensors go and how memory is read. ``memory`` is None on the CPU; on CUDA it wraps
    ``torch.cuda`` (tests give a stand-in)."""

    device: str
    kind: str
    name: str
    memory: CudaMemory | None
    free_bytes: int

    @classmethod
    def for_device(cls, device: str) -> Runtime:
        from torchrig.bench.settings import device_kind, resolve_device
        from torchrig.bench.timing import free_memory_bytes
        from torchrig.verify.probe import CudaMemory

        device = resolve_device(device)
        kind = device_kind(device)
        if kind == "cuda":
            import torch

            memory = CudaMemory(device)
            return cls(device, kind, torch.cuda.get_device_name(device), memory, memory.free())
        if kind == "mps":
            name = "Apple GPU (MPS)"
        else:
            from torchrig.hardware.cpu import probe_cpu

            name = probe_cpu().model_name or "CPU"
        return cls(device, kind, name, None, free_memory_bytes(device))


# --- the model a workload describes ---------------------------------------------------------


@dataclass(frozen=True)
class ModelPlan:
    """How to build the workload's model: its full size, and what it is."""

    layers: int | None  # reducible blocks (None: a CNN, reduced by batch only)
    description: Msg
    seq_axis: bool = False  # a transformer: sizes carry a sequence length
    seq_reducible: bool = False  # fused attention: memory and FLOPs linear in tokens
    attention: str | None = None
    """The attention the runs take (workload_fields.MEASURED_ATTENTIONS; None: not a
    transformer of known attention, e.g. a factory's)."""
    image_size: int | None = None
    """Pixels per side of the images verify feeds (None: not a vision model, or the user's
    batch() makes the inputs); the plan scales the measured figures from it."""


def check_supported(w: Workload, source: ModelSource = REFERENCE, kind: str = "cpu") -> None:
    """Refuse what verify cannot build or run, with the reason."""
    if w.precision in LOW_PRECISION:
        raise VerifyError(Msg(
            f"precision {w.precision} runs in a serving engine (TensorRT-LLM, vLLM, SGLang) on "
            "fp8/fp4 tensor cores; verify runs fp32, tf32, amp_fp16, amp_bf16 and bf16",
            f"精度 {w.precision} 在推理服务引擎（TensorRT-LLM、vLLM、SGLang）的 fp8/fp4 Tensor "
            "Core 上运行；验证支持 fp32、tf32、amp_fp16、amp_bf16 和 bf16"))
    if w.precision in UNSUPPORTED_PRECISIONS and kind != "cuda":
        raise VerifyError(Msg(
            f"precision {w.precision} (QLoRA, 4/8-bit weights) needs bitsandbytes, which runs "
            "on CUDA GPUs: it cannot be measured on this device",
            f"精度 {w.precision}（QLoRA、4/8 位权重）需要 bitsandbytes，它只能在 CUDA GPU 上运行："
            "此设备无法测量"))
    if w.precision in UNSUPPORTED_PRECISIONS:
        raise VerifyError(Msg(
            f"precision {w.precision} needs a quantization library (bitsandbytes, GPTQ); verify "
            "runs fp32, tf32, amp_fp16, amp_bf16 and bf16",
            f"精度 {w.precision} 需要量化库（bitsandbytes、GPTQ）；验证支持 fp32、tf32、"
            "amp_fp16、amp_bf16 和 bf16"))
    if w.is_lora and source.kind not in ("transformers", "diffusers", "factory"):
        raise VerifyError(Msg(
            "LoRA is measured with peft on your real model: give --hf-config (transformers "
            "and peft installed) or --model-factory",
            "LoRA 通过 peft 在你的真实模型上测量：请提供 --hf-config（需安装 transformers 与 peft）"
            "或 --model-factory"))
    if w.task == "image_generation" and not w.is_training:
        raise VerifyError(Msg(
            "verify measures a diffusion model's training step (the denoiser on latents); "
            "generation - the denoising steps, guidance and the VAE decoding - is not measured "
            "yet: plan it, or verify the same model with --mode finetune",
            "验证测量扩散模型的训练步（去噪网络处理潜变量）；生成过程（去噪步数、引导与 VAE 解码）"
            "暂不测量：请使用规划，或以 --mode finetune 验证同一模型"))
    if w.is_training and w.optimizer == "adam_8bit":
        raise VerifyError(Msg("8-bit Adam needs bitsandbytes; verify runs sgd, sgd_momentum "
                              "and adamw", "8 位 Adam 需要 bitsandbytes；验证支持 sgd、"
                              "sgd_momentum 和 adamw"))
    if source.kind == "reference":
        model_plan(w)


def model_plan(w: Workload) -> ModelPlan:
    from torchrig.verify.reference_models import RESNET_BLOCKS

    m = resolve_model(w)
    if m.arch is not None:
        a = m.arch
        what = "custom" if w.model == CUSTOM else w.model
        # The reference model's sdpa runs without attention dropout (reference_models.py):
        # its fused kernels on CUDA and the CPU alike.
        return ModelPlan(a.layers, seq_axis=True, seq_reducible=w.attention == "sdpa",
                         attention=w.attention, description=Msg(
            f"{what}: {a.style}-style transformer, {a.layers} layers, hidden {a.hidden}, "
            f"{a.heads} heads ({a.kv_heads} K/V), MLP {a.ffn}, vocabulary {a.vocab}, "
            f"{w.attention} attention",
            f"{what}：{a.style} 风格 Transformer，{a.layers} 层，隐藏 {a.hidden}，{a.heads} 个头"
            f"（{a.kv_heads} 个 K/V），MLP {a.ffn}，词表 {a.vocab}，{w.attention} 注意力"))
    image = w.image_size or VERIFY_IMAGE_SIZE
    if w.model == "vit-b-16":
        return ModelPlan(12, Msg("ViT-B/16 as torchvision builds it",
                                 "ViT-B/16（与 torchvision 结构相同）"), image_size=image)
    if w.model in ("resnet18", "resnet50", "resnet152"):
        return ModelPlan(None, Msg(f"ResNet-{w.model[6:]} as torchvision builds it",
                                   f"ResNet-{w.model[6:]}（与 torchvision 结构相同）"),
                         image_size=image)
    if w.model == "nature-cnn":
        return ModelPlan(None, Msg("Nature DQN CNN with actor and critic heads",
                                   "Nature DQN 卷积网络（含 actor 与 critic 头）"))
    if w.model == CUSTOM and w.task in VISION_TASKS and w.layers in RESNET_BLOCKS \
            and w.task != "reinforcement_learning":
        return ModelPlan(None, Msg(f"custom model built as ResNet-{w.layers} (layers "
                                   f"{w.layers})", f"自定义模型按 ResNet-{w.layers} 构建"
                                   f"（layers {w.layers}）"), image_size=image)
    raise VerifyError(Msg(
        f"verify cannot build model {w.model!r} for task {w.task}: give a preset, a custom "
        "transformer (layers, hidden, heads) or a custom ResNet (layers 18, 34, 50, 101 or 152)",
        f"无法为任务 {w.task} 构建模型 {w.model!r}：请用预设、自定义 Transformer（layers、hidden、"
        "heads）或自定义 ResNet（layers 为 18、34、50、101 或 152）"))


def probe_spec(w: Workload, kind: str) -> ProbeSpec:
    """Model builder, inputs and step settings for the probes (imports torch)."""
    import torch

    from torchrig.verify import reference_models as vm
    from torchrig.verify.probe import ProbeSpec, precision_plan

    m = resolve_model(w)
    ckpt = w.gradient_checkpointing
    if m.arch is not None:
        a = m.arch
        head = "cls" if (a.style == "bert" and w.mode == "finetune") else \
            "last" if w.task == "llm_inference" else "lm"
        seq = w.seq_len or 1

        def build(layers: int | None) -> torch.nn.Module:
            shape = vm.Shape(layers or a.layers, a.hidden, a.heads, a.kv_heads, a.ffn, a.vocab,
                             max(a.max_positions, seq))
            return vm.TransformerModel(a.style, shape, w.attention, head, ckpt)

        def inputs(size: Size, device: str, dtype: torch.dtype) -> torch.Tensor:
            del dtype  # token ids
            gen = torch.Generator().manual_seed(0)
            tokens = (size.batch, size.seq or seq)
            return torch.randint(0, a.vocab, tokens, generator=gen).to(device)

        def kept(model: torch.nn.Module) -> list[torch.nn.Module]:
            return list(model.blocks) if ckpt else []  # type: ignore[arg-type]
    else:
        image = w.image_size or VERIFY_IMAGE_SIZE
        channels = m.channels

        def build(layers: int | None) -> torch.nn.Module:
            if w.model == "vit-b-16":
                return vm.VitModel(image=image, layers=layers or 12, checkpointing=ckpt)
            if w.model == "nature-cnn":
                return vm.NatureCnnPolicy()
            depth = int(w.model[6:]) if w.model.startswith("resnet") else int(w.layers or 0)
            net = vm.resnet(depth)
            return vm.CheckpointedSequential(net) if ckpt else net

        def inputs(size: Size, device: str, dtype: torch.dtype) -> torch.Tensor:
            gen = torch.Generator().manual_seed(0)
            x = torch.randn(size.batch, channels, image, image, generator=gen)
            return x.to(device=device, dtype=dtype)

        def kept(model: torch.nn.Module) -> list[torch.nn.Module]:
            if not ckpt:
                return []
            if isinstance(model, vm.VitModel):
                return list(model.blocks)
            if isinstance(model, vm.CheckpointedSequential):
                n, k = len(model.body), model.segments
                size = n // k
                # checkpoint_sequential keeps the input of each segment but the last.
                return [model.body[i * size] for i in range(k - 1)]
            return []

    return ProbeSpec(build=build, inputs=inputs, optimizer=w.optimizer,
                     precision=precision_plan(w.precision, kind), training=w.is_training,
                     checkpoint_inputs=kept, checkpointing=ckpt)


def library_plan(source: ModelSource, w: Workload, kind: str) -> tuple[ModelPlan, ProbeSpec]:
    """Model plan and probe spec of a library or factory model (imports torch and the
    library; LibraryMissing when the library cannot be used here)."""
    import torch

    from torchrig.verify import library_models as lm
    from torchrig.verify.probe import ProbeSpec, precision_plan

    if source.kind == "diffusers":
        from torchrig.verify.diffusion_models import diffusers_model

        built = diffusers_model(source, w)
    else:
        built = lm.library_model(source, w)
    loss_of = built.loss or lm.loss_of
    dtype_of: dict[str, torch.dtype] = {}

    def inputs(size: Size, device: str, dtype: torch.dtype) -> object:
        dtype_of["model"] = dtype
        x, targets = built.batch(size.batch, size.seq)
        return lm.to_device(x, device, dtype), lm.to_device(targets, device, dtype)

    spec = ProbeSpec(
        build=built.build, inputs=inputs, optimizer=w.optimizer,
        precision=precision_plan(w.precision, kind), training=w.is_training,
        # Library checkpointing (Hugging Face's gradient_checkpointing_enable) keeps each
        # block's input as a saved tensor already: nothing to add by hand.
        checkpoint_inputs=lambda _m: [], checkpointing=w.gradient_checkpointing,
        call=lambda model, batch: lm.call(model, batch[0]),  # type: ignore[index]
        loss=lambda out, batch: loss_of(out, batch[1]),  # type: ignore[index]
        frozen_16bit=w.is_lora and source.kind in ("transformers", "diffusers"))
    # The builder's description names the library and class (or file and function) already.
    # Shorter sequences stand for the full length only where memory is linear in the tokens:
    # fused attention, and off CUDA without attention dropout (see LibraryModel).
    linear = w.attention == "sdpa" and (kind == "cuda" or built.attention_dropout == 0.0)
    attention = None
    if source.kind == "transformers":
        # Off CUDA, sdpa with attention dropout in training takes its math path, which keeps
        # the probabilities (LibraryModel.attention_dropout).
        attention = w.attention if w.attention == "eager" or linear or not w.is_training \
            else "sdpa_math"
    plan_ = ModelPlan(built.layers, built.description, seq_axis=built.seq_axis,
                      seq_reducible=built.seq_axis and linear, attention=attention,
                      image_size=built.image_size)
    return plan_, spec


def choose_model(source: ModelSource | None, w: Workload, kind: str
                 ) -> tuple[ModelSource, ModelPlan, ProbeSpec]:
    """The model to run: the given source, or TorchRig's reference model when its library
    cannot be used here and a reference model of the workload exists (the fallback named)."""
    from torchrig.verify.library_models import LibraryMissing

    source = source or REFERENCE
    if source.kind != "reference":
        try:
            mp, spec = library_plan(source, w, kind)
            return source, mp, spec
        except LibraryMissing as missing:
            try:
                model_plan(w)
            except VerifyError:
                raise VerifyError(Msg(f"{source.label}: {missing.msg.en}",
                                      f"{source.label}：{missing.msg.zh}")) from None
            source = ModelSource("reference", name=source.label, fallback=missing.msg)
            check_supported(w, source, kind)
    mp = model_plan(w)
    if source.kind == "reference" and source.fallback is None:
        source = ModelSource("reference", fallback=Msg(
            "asked for with --reference-model", "按 --reference-model 的要求"))
    description = Msg(f"{mp.description.en} - {source.describe().en}",
                      f"{mp.description.zh} - {source.describe().zh}")
    return source, ModelPlan(mp.layers, description, mp.seq_axis, mp.seq_reducible,
                             mp.attention, mp.image_size), probe_spec(w, kind)


def smallest_batch(spec: ProbeSpec, layers: int | None) -> int:
    """2 when the model trains through BatchNorm (one value per channel - a 1x1 map at batch
    1 - is an error in train mode), else 1. Built on the meta device: no memory, no time."""
    import torch

    from torchrig.verify.library_models import has_batchnorm

    if not spec.training:
        return 1
    try:
        with torch.device("meta"):
            model = spec.build(layers)
    except Exception:  # a model that cannot be built on meta: assume the safe side
        return 2
    return 2 if has_batchnorm(model) else 1


# --- sizes ----------------------------------------------------------------------------------


def variant(w: Workload, size: Size, full_layers: int | None) -> tuple[Workload, float]:
    """The workload at a reduced size for the planner, and a factor for what the planner
    cannot express (a ViT with fewer blocks: scaled by the block share)."""
    doc = w.to_dict()
    doc["batch_size"] = size.batch
    if size.seq is not None:
        doc["seq_len"] = size.seq
    factor = 1.0
    m = resolve_model(w)
    if size.layers is not None and full_layers and size.layers != full_layers:
        if m.arch is not None:
            a = m.arch
            doc.update(model=CUSTOM, style=a.style, layers=size.layers, hidden=a.hidden,
                       heads=a.heads, kv_heads=a.kv_heads, vocab=a.vocab, ffn=a.ffn,
                       params=None)
        else:
            factor = size.layers / full_layers
    return Workload.from_dict(doc, where="workload"), factor


def planned_cost(w: Workload, size: Size, full_layers: int | None
                 ) -> tuple[float | None, float | None]:
    """(bytes, FLOPs per step) the planner expects at ``size`` on one device, without the CUDA
    context and allocator headroom; None where the planner cannot tell."""
    v, factor = variant(w, size, full_layers)
    req = plan(v)
    items = req.vram_per_gpu
    if items["activations"].value is None:
        body = None
    else:
        body = sum(i.value or 0.0 for k, i in items.items()
                   if k not in ("total", "overhead", "fragmentation")) * factor
    flops_item = req.throughput.get("flops_per_sample")
    flops = None if flops_item is None or flops_item.value is None \
        else flops_item.value * size.batch * factor
    return body, flops


def halvings(n: int, low: int) -> list[int]:
    """n//2, n//4, ... down to ``low`` (inclusive when reached)."""
    out, k = [], n // 2
    while k >= low:
        out.append(k)
        k //= 2
    return out


PILOT_SEQ = 64
"""Tokens per sequence of the pilot run when the sequence can be shortened."""


def ladder(full: Size, seq_reducible: bool) -> list[list[Size]]:
    """The size sets to try, largest first: the full size; fewer layers at the full batch (two
    layer counts); then, at the fewest layers, a smaller batch (two batches), then a shorter
    sequence at batch 1 (two lengths; fused attention only, where memory and FLOPs grow
    linearly with the tokens)."""
    from torchrig.verify.probe import Size

    top = (full.batch, full.seq)
    pairs: list[list[tuple[int, int | None]]] = []
    for b2 in halvings(full.batch, 2):
        pairs.append([(max(1, b2 // 2), full.seq), (b2, full.seq)])
    if seq_reducible and full.seq is not None:
        for s2 in halvings(full.seq, 16):
            pairs.append([(1, max(8, s2 // 2)), (1, s2)])

    def grid(layers: list[int | None], points: list[tuple[int, int | None]]) -> list[Size]:
        return [Size(lay, b, sq) for lay in layers for b, sq in points]

    out = [[full]]
    if full.layers is not None:
        out += [grid([max(1, l2 // 2), l2], [top]) for l2 in halvings(full.layers, 2)]
    fewest: list[int | None] = [None]
    if full.layers is not None:
        fewest = [full.layers] if full.layers == 1 else [1, 2]
    out += [grid(fewest, pair) for pair in pairs]
    return out


def at_least(steps: list[list[Size]], min_batch: int) -> list[list[Size]]:
    """Every set with its batches raised to ``min_batch`` or more, keeping as many distinct
    batches as it had (two points still fit a line per sample); duplicate sets dropped."""
    from torchrig.verify.probe import Size

    out: list[list[Size]] = []
    for sizes in steps:
        batches = sorted({s.batch for s in sizes})
        if batches[0] < min_batch:
            raised = {b: max(min_batch + i, b) for i, b in enumerate(batches)}
            sizes = [Size(s.layers, raised[s.batch], s.seq) for s in sizes]
        if sizes not in out:
            out.append(sizes)
    return out


def choose_sizes(steps: list[list[Size]], fits_memory: Callable[[list[Size]], bool],
                 fits_time: Callable[[list[Size]], bool]) -> list[Size] | None:
    """The first set on the ladder that fits in memory and time; the smallest one when only
    memory allows it (it runs, slowly); None when even that does not fit in memory."""
    for sizes in steps:
        if fits_memory(sizes) and fits_time(sizes):
            return sizes
    return steps[-1] if fits_memory(steps[-1]) else None


def tokens(size: Size) -> int:
    """The second axis of extrapolation: samples, or tokens when sequences were shortened."""
    return size.batch * (size.seq or 1)


def extrapolate(probes: list[ProbeResult], target: Size,
                extra_times: Sequence[ProbeResult] = ()) -> Measured:
    """Every figure at ``target``, linear in layers and in samples (tokens) through the probes,
    bilinear when both were reduced (memory and FLOPs are linear in both); the step time from
    a fixed + per-FLOP fit through the probes and ``extra_times`` (the pilot runs)
    (:mod:`torchrig.verify.timefit`)."""
    fields = ("weights", "gradients", "optimizer_states", "activations", "temporaries",
              "forward_flops", "saved_bytes")
    layer_values = sorted({p.size.layers for p in probes if p.size.layers is not None})
    x_values = sorted({tokens(p.size) for p in probes})
    x_target = tokens(target)
    out: dict[str, float | None] = {}
    for name in fields:
        grid = {(p.size.layers, tokens(p.size)): _field(p, name) for p in probes}
        if any(v is None for v in grid.values()):
            out[name] = None
            continue

        def along_x(layers: int | None,
                    grid: dict[tuple[int | None, int], float | None] = grid) -> float:
            if len(x_values) == 1:
                return float(grid[(layers, x_values[0])] or 0.0)
            x1, x2 = x_values
            v1, v2 = grid[(layers, x1)] or 0.0, grid[(layers, x2)] or 0.0
            return float(v1 + (x_target - x1) * (v2 - v1) / (x2 - x1))

        if len(layer_values) < 2:
            out[name] = along_x(layer_values[0] if layer_values else None)
        else:
            l1, l2 = layer_values
            v1, v2 = along_x(l1), along_x(l2)
            assert target.layers is not None
            out[name] = v1 + (target.layers - l1) * (v2 - v1) / (l2 - l1)
    largest = max(probes, key=lambda p: (p.size.layers or 0, tokens(p.size)))
    # A peak is not linear in the size (it moves between phases), so the step's peak is the
    # extrapolated steady items plus the extrapolated temporaries on top of them; reserved
    # memory keeps the largest run's reserved/allocated ratio.
    steady = sum(out[k] or 0.0 for k in ("weights", "gradients", "optimizer_states",
                                           "activations"))
    step_peak = None if out["temporaries"] is None else steady + max(0.0, out["temporaries"])
    reserved = None
    if step_peak is not None and largest.reserved_peak and largest.step_peak:
        reserved = step_peak * largest.reserved_peak / largest.step_peak
    flops = out["forward_flops"] or 0.0
    runs = {p.size: p for p in [*extra_times, *probes]}  # one point per size
    time = extrapolate_time([(p.forward_flops, p.step_s) for p in runs.values()], flops)
    fit = time.fit
    return Measured(
        weights=out["weights"] or 0.0, gradients=out["gradients"] or 0.0,
        optimizer_states=out["optimizer_states"] or 0.0,
        activations=out["activations"] or 0.0, step_peak=step_peak,
        reserved_peak=reserved, outside_allocator=largest.outside_allocator,
        forward_flops=flops,
        saved_bytes=out["saved_bytes"] or 0.0, batch=target.batch,
        phases=largest.phases, phases_size=(largest.size.layers, largest.size.batch),
        step_s=time.step_s, step_s_low=time.low_s, step_s_high=time.high_s,
        time_factor=time.factor, time_fit_error=None if fit is None else fit.max_error,
        time_fixed_s=None if fit is None else fit.fixed_s,
        time_per_flop_s=None if fit is None else fit.per_flop_s)


def _field(probe: ProbeResult, name: str) -> float | None:
    if name != "temporaries":
        return float(getattr(probe, name))
    if probe.step_peak is None:
        return None
    steady = probe.weights + probe.gradients + probe.optimizer_states + probe.activations
    return max(0.0, probe.step_peak - steady)


def reduction_note(full: Size, sizes: list[Size]) -> Msg | None:
    if sizes == [full]:
        return None
    layers = sorted({s.layers for s in sizes if s.layers is not None})
    batches = sorted({s.batch for s in sizes})
    seqs = sorted({s.seq for s in sizes if s.seq is not None})
    en: list[str] = []
    zh: list[str] = []

    def both(values: list[int], joiner: str) -> str:
        return joiner.join(str(v) for v in values)

    if full.layers is not None and layers != [full.layers]:
        en.append(f"{both(layers, ' and ')} of {full.layers} layers, extrapolated per layer")
        zh.append(f"{both(layers, ' 和 ')} 层（共 {full.layers} 层），按每层外推")
    if batches != [full.batch]:
        en.append(f"batch {both(batches, ' and ')} instead of {full.batch}, extrapolated per "
                  "sample")
        zh.append(f"批大小 {both(batches, ' 和 ')}（原为 {full.batch}），按每样本外推")
    if full.seq is not None and seqs != [full.seq]:
        en.append(f"sequences of {both(seqs, ' and ')} tokens instead of {full.seq}, "
                  "extrapolated per token (attention's FLOPs grow with the square of the "
                  "length, so the FLOPs and time come out low)")
        zh.append(f"序列长度 {both(seqs, ' 和 ')}（原为 {full.seq}），按每 token 外推"
                  "（注意力 FLOPs 随长度平方增长，因此 FLOPs 与时间偏低）")
    n = len(sizes)
    return Msg(f"reduced copy measured ({n} runs): {'; '.join(en)} - linear through the "
               "measured sizes",
               f"测量了缩小的副本（{n} 次运行）：{'；'.join(zh)}，按测量点线性外推")


# --- the run --------------------------------------------------------------------------------


def verify(workload: Workload, device: str = "cpu", steps: int = MIN_STEPS,
           cancel: threading.Event | None = None,
           progress: Callable[[VerifyProgress], None] | None = None,
           runtime: Runtime | None = None, gpu: DeviceSpec | None = None,
           source: ModelSource | None = None, quick: bool = False) -> VerifyResult:
    """Measure ``workload`` on ``device`` and compare with its plan.

    ``runtime`` defaults to :meth:`Runtime.for_device`; ``gpu`` is the planner's description of
    this GPU, for a throughput prediction (None: memory only). ``source``: whose model
    (:mod:`torchrig.verify.sources`; :data:`~torchrig.verify.sources.REFERENCE` asks for
    TorchRig's reference model; None: the preset's library model where one exists,
    :func:`~torchrig.verify.measured_layout.default_source`). ``quick``: only the
    smallest sizes on the ladder (a smoke test of the whole path). Raises
    :class:`VerifyError` for what cannot be measured, :class:`~torchrig.bench.base.Cancelled`
    on cancel.
    """
    if not MIN_STEPS <= steps <= MAX_STEPS:
        raise InputError(f"steps must be between {MIN_STEPS} and {MAX_STEPS}, got {steps}")
    started = time.perf_counter()
    cancel = cancel or threading.Event()
    report = progress or (lambda _p: None)
    single, layout_note = single_gpu(workload.validate())
    single, denoiser_note = denoiser_only(single)
    source = source or default_source(single)
    check_supported(single, source, runtime.kind if runtime else
                    ("cuda" if device.startswith("cuda") else "cpu"))
    try:
        import torch
    except ImportError:
        raise VerifyError(Msg("verify needs PyTorch, which is not installed",
                              "验证需要 PyTorch，但未安装")) from None
    from torchrig.verify.probe import Size

    rt = runtime or Runtime.for_device(device)
    used, mp, spec = choose_model(source, single, rt.kind)
    min_batch = smallest_batch(spec, 1 if mp.layers is not None else None)
    full = Size(mp.layers, single.batch_size, single.seq_len if mp.seq_axis else None)
    notes = [n for n in (layout_note, denoiser_note, spec.frozen_note()) if n is not None]
    req = plan(single, gpu)
    share = CUDA_MEMORY_SHARE if rt.kind == "cuda" else CPU_MEMORY_SHARE
    memory_budget = share * rt.free_bytes
    time_budget = CPU_TIME_BUDGET_S if rt.kind == "cpu" else GPU_TIME_BUDGET_S
    torch.manual_seed(0)

    pilot_size = Size(1 if mp.layers is not None else None, min_batch,
                      min(full.seq, PILOT_SEQ) if mp.seq_reducible and full.seq else full.seq)
    pilot_cost = planned_cost(single, pilot_size, mp.layers)
    if pilot_cost[0] is not None and pilot_cost[0] > memory_budget:
        raise VerifyError(_too_big(pilot_cost[0], memory_budget, rt.kind))
    from torchrig.verify.cpu_16bit import too_slow

    if (slow := too_slow(spec, rt.kind, pilot_cost[1], MIN_STEPS + 1)) is not None:
        raise VerifyError(slow)
    report(VerifyProgress(0, 2, Msg("pilot run: smallest size", "试运行：最小规模")))
    pilot = _run_guarded(spec, pilot_size, rt, MIN_STEPS, cancel)
    pilots = [pilot]
    if pilot.step_s < SECOND_PILOT_BELOW_S and not quick:
        # A second point, twice the samples, so the time estimate has a fixed cost per step
        # and a cost per FLOP (one small run is mostly fixed cost).
        pilots.append(_run_guarded(spec, Size(pilot_size.layers, 2 * min_batch,
                                              pilot_size.seq), rt, MIN_STEPS, cancel))
    pilot_points = [(p.forward_flops, p.step_s) for p in pilots]

    def estimate(size: Size) -> tuple[float, float]:
        """(bytes, seconds per step) at ``size``: the pilot scaled by the planner's ratio, or
        proportionally (an over-estimate) where the planner cannot tell."""
        bytes_now, flops_now = planned_cost(single, size, mp.layers)
        layers = size.layers / pilot_size.layers if size.layers and pilot_size.layers else 1.0
        proportional = tokens(size) / tokens(pilot_size) * layers
        peak = pilot.reserved_peak or pilot.step_peak or 0.0
        mem = peak * (bytes_now / pilot_cost[0] if bytes_now and pilot_cost[0]
                      else proportional)
        ratio = flops_now / pilot_cost[1] if flops_now and pilot_cost[1] else proportional
        return mem, budget_step_s(pilot_points, ratio, layers)

    def fits_memory(grid: list[Size]) -> bool:
        return max(estimate(s)[0] for s in grid) <= memory_budget

    def fits_time(grid: list[Size]) -> bool:
        # Per run: the FLOP count (~1/3 step), a warm-up, a memory step, the timed steps.
        return sum(estimate(s)[1] * (steps + 1) for s in grid) <= time_budget

    steps_down = at_least(ladder(full, mp.seq_reducible), min_batch)
    if quick:
        steps_down = steps_down[-1:]
    sizes = choose_sizes(steps_down, fits_memory, fits_time)
    if sizes is None:
        raise VerifyError(_too_big(max(estimate(s)[0] for s in steps_down[-1]), memory_budget,
                                   rt.kind))
    probes: list[ProbeResult] = []
    try:
        probes = _run_sizes(spec, sizes, rt, steps, cancel, report, pilots)
    except _OutOfMemory as first:
        # Retry once with the next smaller set on the ladder.
        position = steps_down.index(sizes)
        if position + 1 >= len(steps_down):
            raise VerifyError(first.msg) from None
        smaller = steps_down[position + 1]
        notes.append(Msg(f"out of memory at {_size_text(first.size)}; retried smaller",
                         f"在 {_size_text(first.size, 'zh')} 时内存不足；已缩小后重试"))
        sizes = smaller
        try:
            probes = _run_sizes(spec, sizes, rt, steps, cancel, report, pilots)
        except _OutOfMemory as second:
            raise VerifyError(second.msg) from None
    measured = extrapolate(probes, full, pilots)
    reduction = reduction_note(full, sizes)
    return compare(
        workload=workload, verified=single, requirements=req, measured=measured,
        device=rt.device, device_kind=rt.kind, device_name=rt.name,
        torch_version=str(torch.__version__), steps=steps,
        sizes=[(s.layers, s.batch, s.seq) for s in sizes], reduction=reduction,
        model=mp.description, precision_note=spec.precision.describe(), notes=notes,
        wall_s=time.perf_counter() - started, date=_dt.date.today().isoformat(),
        attention_used=mp.attention, image_size_used=mp.image_size,
        source={"kind": used.kind, "label": used.label if used.kind != "reference" or
                not used.name else f"TorchRig reference model (instead of {used.name})",
                "fallback": None if used.fallback is None else used.fallback.to_dict()})


class _OutOfMemory(Exception):
    def __init__(self, size: Size, msg: Msg) -> None:
        super().__init__(msg.en)
        self.size, self.msg = size, msg


def _run_guarded(spec: ProbeSpec, size: Size, rt: Runtime, steps: int,
                 cancel: threading.Event) -> ProbeResult:
    from torchrig.bench.timing import is_out_of_memory, release_device_memory
    from torchrig.verify.probe import run_probe

    try:
        return run_probe(spec, size, rt.device, steps, cancel, rt.memory)
    except Exception as exc:
        if not is_out_of_memory(exc):
            raise
        release_device_memory(rt.device)
        raise _OutOfMemory(size, Msg(
            f"out of memory at {_size_text(size)}: {str(exc).splitlines()[0][:200]}",
            f"{_size_text(size, 'zh')} 时内存不足：{str(exc).splitlines()[0][:200]}")) from None
    finally:
        gc.collect()


def _run_sizes(spec: ProbeSpec, sizes: list[Size], rt: Runtime, steps: int,
               cancel: threading.Event, report: Callable[[VerifyProgress], None],
               pilots: list[ProbeResult]) -> list[ProbeResult]:
    out = []
    for i, size in enumerate(sizes):
        report(VerifyProgress(i + 1, len(sizes) + 1, Msg(
            f"run {i + 1} of {len(sizes)}: {_size_text(size)}",
            f"第 {i + 1}/{len(sizes)} 次运行：{_size_text(size, 'zh')}")))
        done = next((p for p in pilots if p.size == size), None)
        if done is not None and steps == MIN_STEPS:
            out.append(done)
            continue
        out.append(_run_guarded(spec, size, rt, steps, cancel))
    report(VerifyProgress(len(sizes) + 1, len(sizes) + 1, Msg("done", "完成")))
    return out


def _size_text(size: Size, lang: str = "en") -> str:
    if lang == "zh":
        layers = f"{size.layers} 层，" if size.layers is not None else ""
        seq = f"，序列 {size.seq}" if size.seq is not None else ""
        return f"{layers}批大小 {size.batch}{seq}"
    layers = f"{size.layers} layer{'s' if size.layers != 1 else ''}, " \
        if size.layers is not None else ""
    seq = f", {size.seq} tokens" if size.seq is not None else ""
    return f"{layers}batch {size.batch}{seq}"


def _too_big(need: float, budget: float, kind: str) -> Msg:
    from torchrig.units import fmt_gib

    where, where_zh = ("VRAM", "显存") if kind == "cuda" else ("RAM", "内存")
    return Msg(
        f"even the smallest copy of this model needs about {fmt_gib(need)}, more than the "
        f"{fmt_gib(budget)} of free {where} verify may use",
        f"即使最小的模型副本也约需 {fmt_gib(need)}，超过验证可用的 {fmt_gib(budget)} 空闲"
        f"{where_zh}")


def device_for_plan(device: str) -> DeviceSpec | None:
    """The planner's description of a CUDA device (detected, matched to the catalog for its
    peak FLOP/s), for a throughput prediction; None for a CPU or an unmatched GPU."""
    if not device.startswith("cuda"):
        return None
    from torchrig.builds.capabilities import from_profile
    from torchrig.catalog import load_catalog
    from torchrig.hardware import detect
    from torchrig.planning.device import subject_device

    spec = subject_device(from_profile(detect(use_torch=True), load_catalog()))
    return spec if spec is not None and spec.peak_flops else None
