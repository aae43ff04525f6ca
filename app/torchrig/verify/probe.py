"""One measured run of a workload's model at one size (layers, batch): the torch side of
``torchrig verify``.

A probe builds the model with random weights, runs ``steps`` real steps and measures:

* step 1 (warm-up; the optimizer creates its states): the bytes autograd saves for backward
  (:class:`~torchrig.verify.reference_models.SavedTensorCounter`), and after it the gradient and
  optimizer-state bytes, read from the tensors themselves;
* step 2 (memory): on CUDA the allocator's statistics per phase - allocated after, and peak
  allocated / reserved during, forward, backward and the optimizer step, with the peaks reset
  between phases (the CPU has no allocator statistics: there it is one more step, and an
  inference pass's working set is the peak of the tensors it creates,
  :mod:`~torchrig.verify.live_memory`);
* steps 3..N (timed): the median step time.

Precision follows the plan: fp32 / tf32 weights, ``torch.autocast`` for AMP (fp16 with a
``GradScaler``, bf16 without), or the whole model cast to bf16. On the CPU, AMP runs under
:class:`~torchrig.verify.cuda_emulation.CudaEmulation` so the tensors kept are the ones a GPU
would keep (the CPU's own autocast keeps different ones), which is what the plan predicts.

Every module checks the cancel token before it runs, so Cancel takes effect within one block.
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812 - the name PyTorch's docs use

from torchrig.bench.base import Cancelled
from torchrig.i18n import Msg
from torchrig.verify.compare import EMULATED_AMP, MODEL_BF16, TF32_MATMULS, Phase
from torchrig.verify.cuda_emulation import CudaEmulation, FastCudaEmulation
from torchrig.verify.reference_models import SavedTensorCounter, forward_flops


@dataclass(frozen=True)
class Size:
    """A probe's size: transformer/ViT blocks (None: the model has no layer count to reduce)
    and the batch."""

    layers: int | None
    batch: int
    seq: int | None = None  # tokens per sequence (transformers)


@dataclass(frozen=True)
class ProbeResult:
    """What one probe measured, bytes and seconds. ``step_peak`` is the most memory allocated at
    any moment of a step (everything: weights, states, activations, temporaries)."""

    size: Size
    weights: float
    gradients: float
    optimizer_states: float
    activations: float
    step_peak: float | None
    reserved_peak: float | None
    outside_allocator: float | None
    step_s: float
    forward_flops: float
    saved_bytes: float
    phases: tuple[Phase, ...] = field(default_factory=tuple)


class CudaMemory:
    """The allocator statistics a probe reads, over ``torch.cuda`` (tests pass a fake ``api``
    with the same functions)."""

    def __init__(self, device: str, api: Any = None) -> None:
        self.device = device
        self.api = api if api is not None else torch.cuda

    def synchronize(self) -> None:
        self.api.synchronize(self.device)

    def reset_peak(self) -> None:
        self.api.reset_peak_memory_stats(self.device)

    def allocated(self) -> int:
        return int(self.api.memory_allocated(self.device))

    def peak_allocated(self) -> int:
        return int(self.api.max_memory_allocated(self.device))

    def peak_reserved(self) -> int:
        return int(self.api.max_memory_reserved(self.device))

    def reserved(self) -> int:
        return int(self.api.memory_reserved(self.device))

    def used_on_device(self) -> int:
        """Device memory in use by every process (total - free)."""
        free, total = self.api.mem_get_info(self.device)
        return int(total) - int(free)

    def free(self) -> int:
        return int(self.api.mem_get_info(self.device)[0])

    def empty_cache(self) -> None:
        self.api.empty_cache()


@dataclass(frozen=True)
class PrecisionPlan:
    """How a workload precision runs on a device kind."""

    model_dtype: torch.dtype
    autocast: torch.dtype | None  # None: no autocast (with emulate: the 16-bit type emulated)
    scaler: bool  # GradScaler (fp16 autocast on CUDA)
    emulate: bool  # not CUDA: emulate CUDA's kernels (autocast's op lists, 1-byte dropout masks)
    tf32: bool

    def describe(self) -> str:
        if self.emulate and self.autocast is not None:
            return EMULATED_AMP.en
        if self.autocast is not None:
            name = "fp16" if self.autocast == torch.float16 else "bf16"
            return f"torch.autocast({name})" + (" + GradScaler" if self.scaler else "")
        if self.model_dtype == torch.bfloat16:
            return MODEL_BF16.en
        return TF32_MATMULS.en if self.tf32 else "fp32"


def precision_plan(precision: str, kind: str) -> PrecisionPlan:
    """fp32/tf32: fp32 weights; amp_fp16/amp_bf16: autocast (GradScaler for fp16 on CUDA); bf16:
    the model cast to bf16. On the CPU, AMP is emulated (see the module docstring)."""
    amp = {"amp_fp16": torch.float16, "amp_bf16": torch.bfloat16}.get(precision)
    model_dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    if kind != "cuda":
        # CUDA kernels are emulated on every other device, AMP or not: CPU dropout keeps a
        # 4-byte mask where CUDA keeps 1 byte.
        return PrecisionPlan(model_dtype, None if amp is None else torch.bfloat16, False, True,
                             False)
    return PrecisionPlan(model_dtype, amp, amp == torch.float16 and kind == "cuda", False,
                         precision == "tf32")


def make_optimizer(name: str, params: Any) -> torch.optim.Optimizer:
    """The planned optimizer with ``foreach=True``: the implementation PyTorch picks on CUDA,
    whose temporaries the plan counts, also on the CPU."""
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-4, foreach=True)
    momentum = 0.9 if name == "sgd_momentum" else 0.0
    return torch.optim.SGD(params, lr=1e-3, momentum=momentum, foreach=True)


def _bytes(tensors: Any) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _cancel_hooks(model: nn.Module, cancel: threading.Event) -> list[Any]:
    """Raise Cancelled before the next module runs forward, and when backward reaches the next
    module's output (a gradient hook on it: no effect on what autograd saves)."""

    def check(*_args: Any) -> None:
        if cancel.is_set():
            raise Cancelled

    def watch_backward(_module: nn.Module, _args: Any, out: Any) -> None:
        if isinstance(out, torch.Tensor) and out.requires_grad:
            out.register_hook(check)

    handles = [m.register_forward_pre_hook(check) for m in model.modules()]
    handles += [m.register_forward_hook(watch_backward) for m in model.modules()]
    return handles


@dataclass
class ProbeSpec:
    """What a probe needs to know about the model and the step (built by verify.py)."""

    build: Callable[[int | None], nn.Module]
    inputs: Callable[[Size, str, torch.dtype], Any]
    optimizer: str
    precision: PrecisionPlan
    training: bool
    checkpoint_inputs: Callable[[nn.Module], list[nn.Module]]
    """The blocks a checkpointed model runs through torch.utils.checkpoint (their inputs are
    what checkpointing keeps); empty without checkpointing."""
    checkpointing: bool = False
    call: Callable[[nn.Module, Any], Any] | None = None
    """Runs the model on what ``inputs`` made (None: ``model(inputs)``)."""
    loss: Callable[[Any, Any], torch.Tensor] | None = None
    """The loss of (output, inputs) (None: :func:`_loss` of the output)."""
    frozen_16bit: bool = False
    """LoRA under AMP: the frozen base in the 16-bit type, the adapters in fp32 - what the plan
    counts (docs/estimation.md: 2 B per frozen parameter) and how PEFT's recipes load a base
    model (``torch_dtype=torch.bfloat16``); built in fp32 it held twice the plan's weights."""

    def frozen_note(self) -> Msg | None:
        """What the result says when the frozen base is held in 16 bit (:attr:`frozen_16bit`)."""
        if not (self.frozen_16bit and self.precision.autocast is not None):
            return None
        return Msg("LoRA: the frozen base held in 16 bit and the adapters in fp32, as the plan "
                   "counts them and PEFT's recipes load the model",
                   "LoRA：冻结的基座以 16 位保存、适配器为 fp32，与规划的计法及 PEFT 示例加载模型"
                   "的方式一致")

    def run(self, model: nn.Module, inputs: Any) -> Any:
        return model(inputs) if self.call is None else self.call(model, inputs)

    def loss_of(self, output: Any, inputs: Any) -> torch.Tensor:
        return _loss(output) if self.loss is None else self.loss(output, inputs)


def run_probe(spec: ProbeSpec, size: Size, device: str, steps: int, cancel: threading.Event,
              memory: CudaMemory | None = None) -> ProbeResult:
    """Build, run ``steps`` (>= 3) steps, measure, and free everything again (also on error).

    ``memory``: CUDA allocator statistics (None on the CPU: the profiler is used).
    """
    model: nn.Module | None = None
    failure: Exception | None = None
    try:
        model = spec.build(size.layers).to(device=device, dtype=spec.precision.model_dtype)
        if spec.frozen_16bit and spec.precision.autocast is not None:
            for param in model.parameters():
                if not param.requires_grad:
                    param.data = param.data.to(spec.precision.autocast)
        with _tf32(spec.precision.tf32 and memory is not None):
            return _measure(spec, model, size, device, steps, cancel, memory)
    except Exception as exc:
        # The traceback's frames hold the model, optimizer and activations: drop them so the
        # memory is free before the cache is emptied (out of memory, Cancel).
        failure = exc.with_traceback(None)
    finally:
        del model
        gc.collect()
        if memory is not None:
            memory.empty_cache()
    raise failure


@contextlib.contextmanager
def _tf32(enabled: bool) -> Iterator[None]:
    previous = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = enabled or previous
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous


def _measure(spec: ProbeSpec, model: nn.Module, size: Size, device: str, steps: int,
             cancel: threading.Event, memory: CudaMemory | None) -> ProbeResult:
    handles = _cancel_hooks(model, cancel)
    try:
        inputs = spec.inputs(size, device, spec.precision.model_dtype)
        model.train(spec.training)
        weights = _bytes(model.parameters()) + _bytes(model.buffers())
        flops = float(_forward_flops(spec, model, inputs))
        model.train(spec.training)
        if not spec.training:
            return _measure_inference(spec, model, size, inputs, steps, cancel, memory,
                                      weights, flops, device)
        return _measure_training(spec, model, size, inputs, steps, cancel, memory, weights,
                                 flops, device)
    finally:
        for handle in handles:
            handle.remove()


def _forward_flops(spec: ProbeSpec, model: nn.Module, inputs: Any) -> int:
    """FLOPs of one forward pass (torch.utils.flop_counter: matmuls, convolutions and
    attention, 2 per multiply-add)."""
    if spec.call is None:
        return forward_flops(model, inputs)
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        spec.run(model, inputs)
    return int(counter.get_total_flops())


def _autocast(plan: PrecisionPlan, device: str, fast: bool,
              on_save: Callable[[torch.Tensor], None] | None = None) -> Any:
    """The precision context of a step. ``fast``: emulate with fp32 matmuls (not with
    checkpointing); ``on_save`` then sees what matmul-class ops keep for backward."""
    if plan.emulate:
        if plan.autocast is None or not fast:
            return CudaEmulation(plan.autocast)
        return FastCudaEmulation(plan.autocast, on_save)
    if plan.autocast is not None:
        return torch.autocast("cuda", dtype=plan.autocast)
    return contextlib.nullcontext()


def _loss(out: torch.Tensor) -> torch.Tensor:
    """Transformers compute their own loss (fp32, as Hugging Face's); other models get a
    cross-entropy over their outputs with fixed pseudo-random targets."""
    if out.dim() == 0:
        return out
    generator = torch.Generator(device="cpu").manual_seed(0)
    targets = torch.randint(0, out.shape[-1], (out.shape[0],), generator=generator)
    return F.cross_entropy(out.float(), targets.to(out.device))


def _measure_training(spec: ProbeSpec, model: nn.Module, size: Size, inputs: Any,
                      steps: int, cancel: threading.Event, memory: CudaMemory | None,
                      weights: int, flops: float, device: str) -> ProbeResult:
    plan = spec.precision
    fast = not spec.checkpointing
    # Only what trains (LoRA freezes the base model): the optimizer keeps no state for the rest.
    opt = make_optimizer(spec.optimizer, [p for p in model.parameters() if p.requires_grad])
    scaler = torch.amp.GradScaler("cuda") if plan.scaler else None
    phases: list[Phase] = []

    def forward() -> torch.Tensor:
        return spec.loss_of(spec.run(model, inputs), inputs)

    def backward(loss: torch.Tensor) -> None:
        (scaler.scale(loss) if scaler is not None else loss).backward()

    def optimizer_step() -> None:
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        # The whole step runs under the precision context: a checkpointed block recomputes its
        # forward during backward and must see the same casts.
        with _autocast(plan, device, fast):
            loss = forward()
            backward(loss)
        optimizer_step()

    # Step 1: saved-for-backward bytes, then the state the step leaves behind.
    counter = SavedTensorCounter(model)
    kept = spec.checkpoint_inputs(model)
    counted = [m.register_forward_pre_hook(lambda _m, args: counter.count(args[0]))
               for m in kept]
    opt.zero_grad(set_to_none=True)
    precision_context = _autocast(plan, device, fast, counter.count)
    with precision_context:
        with counter.counting():
            loss = forward()
        for handle in counted:
            handle.remove()
        if isinstance(precision_context, CudaEmulation):
            # Weight copies made inside checkpointed blocks are not saved tensors, but the
            # autocast cache keeps them alive until backward.
            for copy in precision_context.cached_copies():
                counter.count(copy)
        activations_allocated = None
        if memory is not None:
            memory.synchronize()
        backward(loss)
    del loss
    optimizer_step()
    gradients = _bytes(p.grad for p in model.parameters() if p.grad is not None)
    states = _bytes(t for st in opt.state.values() for t in st.values()
                    if torch.is_tensor(t))
    _check(cancel)

    # Step 2: memory.
    opt.zero_grad(set_to_none=True)
    step_peak: float | None
    reserved_peak = outside = None
    if memory is not None:
        memory.synchronize()
        base = memory.allocated()
        memory.reset_peak()
        with _autocast(plan, device, fast):
            loss = forward()
            memory.synchronize()
            after_forward = memory.allocated()
            phases.append(Phase("forward", after_forward, memory.peak_allocated(),
                                memory.peak_reserved()))
            activations_allocated = after_forward - base
            memory.reset_peak()
            backward(loss)
            del loss
        memory.synchronize()
        phases.append(Phase("backward", memory.allocated(), memory.peak_allocated(),
                            memory.peak_reserved()))
        memory.reset_peak()
        optimizer_step()
        memory.synchronize()
        phases.append(Phase("optimizer", memory.allocated(), memory.peak_allocated(),
                            memory.peak_reserved()))
        step_peak = float(max(p.peak_allocated for p in phases))
        reserved_peak = float(max(p.peak_reserved for p in phases))
        outside = float(max(0, memory.used_on_device() - memory.reserved()))
    else:
        # The CPU has no allocator statistics, and the profiler's allocation events miss
        # some kernels' buffers (bf16 convolutions): no peak on the CPU, only saved bytes.
        step_peak = None
        step()
    _check(cancel)

    # Steps 3..N: time.
    times = []
    for _ in range(max(1, steps - 2)):
        t0 = time.perf_counter()
        step()
        if memory is not None:
            memory.synchronize()
        times.append(time.perf_counter() - t0)
        _check(cancel)
    activations = counter.result.total if activations_allocated is None \
        else activations_allocated
    return ProbeResult(
        size=size, weights=float(weights), gradients=float(gradients),
        optimizer_states=float(states), activations=float(activations), step_peak=step_peak,
        reserved_peak=reserved_peak, outside_allocator=outside,
        step_s=float(statistics.median(times)), forward_flops=flops,
        saved_bytes=float(counter.result.total), phases=tuple(phases))


def _measure_inference(spec: ProbeSpec, model: nn.Module, size: Size, inputs: Any,
                       steps: int, cancel: threading.Event, memory: CudaMemory | None,
                       weights: int, flops: float, device: str) -> ProbeResult:
    def forward() -> None:
        with torch.no_grad(), _autocast(spec.precision, device, True):
            spec.run(model, inputs)

    forward()
    _check(cancel)
    reserved_peak = outside = None
    phases: tuple[Phase, ...] = ()
    if memory is not None:
        memory.synchronize()
        base = memory.allocated()
        memory.reset_peak()
        forward()
        memory.synchronize()
        phase = Phase("forward", memory.allocated(), memory.peak_allocated(),
                      memory.peak_reserved())
        phases = (phase,)
        working = phase.peak_allocated - base
        step_peak = float(phase.peak_allocated)
        reserved_peak = float(phase.peak_reserved)
        outside = float(max(0, memory.used_on_device() - memory.reserved()))
    else:
        # No allocator statistics: the tensors the pass creates, counted as they live and die
        # (verify/live_memory.py).
        from torchrig.verify.live_memory import peak_live_bytes

        existing = [*model.parameters(), *model.buffers(), *_tensors(inputs)]
        working = peak_live_bytes(forward, existing)
        step_peak = None
    times = []
    for _ in range(max(1, steps - 2)):
        _check(cancel)
        t0 = time.perf_counter()
        forward()
        if memory is not None:
            memory.synchronize()
        times.append(time.perf_counter() - t0)
    return ProbeResult(
        size=size, weights=float(weights), gradients=0.0, optimizer_states=0.0,
        activations=float(working), step_peak=step_peak, reserved_peak=reserved_peak,
        outside_allocator=outside, step_s=float(statistics.median(times)),
        forward_flops=flops, saved_bytes=0.0, phases=phases)


def _tensors(value: Any) -> list[torch.Tensor]:
    """The tensors in a batch (tuples, lists, dicts of them)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in _tensors(item)]
    return []


def _check(cancel: threading.Event) -> None:
    if cancel.is_set():
        raise Cancelled
