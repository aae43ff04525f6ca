"""Two training configurations timed step by step in alternation, shared by train (FP32 vs
AMP) and checkpointing (off vs on).

A step is what a real loop does: zero grads, forward (under autocast for AMP), loss, backward
(through GradScaler for fp16 on CUDA), optimizer step. Ratios come from adjacent A/B pairs
(:func:`run_ab`), so load that changes during the run cannot fake a speed-up; each side's
throughput is then timed on its own, steps back to back, because a step that follows the other
precision's step runs slower (measured on the CPU: FP32 at 0.82x of its steady rate when
interleaved with bf16 steps - caches and oneDNN's kernels are switched every step). Memory is
measured two ways: the bytes autograd saves for backward (saved_tensors_hooks, exact on every
device) and, on CUDA, the allocator's peak during a step (what decides whether a batch fits).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torchrig.bench.base import BenchContext
from torchrig.bench.benchmarks.cpufeatures import native_16bit
from torchrig.bench.benchmarks.nets import BatchMaker, SavedTensorMeter
from torchrig.bench.timing import free_memory_bytes, median, settled, spread, synchronize
from torchrig.i18n import Msg


@dataclass(frozen=True)
class PhaseResult:
    step_s: float
    samples_per_s: float
    repeats: int
    saved_bytes: int
    peak_bytes: int | None  # CUDA allocator peak during a step; None elsewhere
    amp_dtype: str | None
    spread: dict[str, float | int]  # samples/s median, min, max, repeats (timing.spread)


def amp_dtype_name(kind: str) -> str:
    """fp16 on GPUs (tensor cores, GradScaler), bf16 on CPUs (no fp16 kernels worth using)."""
    return "bf16" if kind == "cpu" else "fp16"


def amp_skip_reason(ctx: BenchContext) -> Msg | None:
    """Why AMP is not measured on this device, or None. A CPU runs bf16 autocast natively
    only with bf16 instructions (the rule cpu_matmul and matmul use, cpufeatures.native_16bit);
    without them each bf16 op is converted element by element (an AMP step measured at 34x
    an FP32 step on such a CPU), a figure about emulation that also eats the budget of every
    benchmark after it."""
    if ctx.kind == "cpu" and not native_16bit(ctx.profile, "bf16"):
        return Msg("AMP not measured: this CPU has no native bf16 instructions (avx512_bf16 / "
                   "AMX / Arm BF16), so bf16 autocast would be emulated",
                   "未测 AMP：该 CPU 没有原生 bf16 指令（avx512_bf16 / AMX / Arm BF16），"
                   "bf16 自动混合精度只能模拟运行")
    return None


def amp_note(kind: str) -> Msg:
    if kind == "cpu":
        return Msg("AMP = torch.amp.autocast('cpu', dtype=torch.bfloat16), no GradScaler "
                   "(bf16 has fp32's exponent range)",
                   "AMP = torch.amp.autocast('cpu', dtype=torch.bfloat16)，不用 GradScaler")
    if kind == "cuda":
        return Msg("AMP = torch.amp.autocast('cuda', dtype=torch.float16) + "
                   "torch.amp.GradScaler('cuda')",
                   "AMP = torch.amp.autocast('cuda', dtype=torch.float16) + GradScaler")
    return Msg(f"AMP = torch.amp.autocast('{kind}', dtype=torch.float16), no GradScaler",
               f"AMP = torch.amp.autocast('{kind}', dtype=torch.float16)，不用 GradScaler")


def fit_batch(ctx: BenchContext, model: Any, make: BatchMaker, batch: int) -> int:
    """The preset's batch, capped so a training step fits in free GPU memory.

    Probes one forward + backward at batch 1 and measures its peak with the CUDA allocator;
    the per-sample cost is that peak minus the gradients (allocated once whatever the batch),
    and AdamW's two moment buffers are set aside too. Other devices return ``batch``: host
    memory is rarely the limit at these sizes, and an out-of-memory error still shrinks and
    retries through the runner.
    """
    if ctx.kind != "cuda":
        return batch
    import torch
    from torch.nn import functional as F  # noqa: N812

    param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    x, y = make(1)
    synchronize(ctx.device)
    base = torch.cuda.memory_allocated(ctx.device)
    torch.cuda.reset_peak_memory_stats(ctx.device)
    out = model(x)
    F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1)).backward()
    del out
    synchronize(ctx.device)
    per_sample = max(1, torch.cuda.max_memory_allocated(ctx.device) - base - param_bytes)
    model.zero_grad(set_to_none=True)
    available = free_memory_bytes(ctx.device) * ctx.scale - 3 * param_bytes
    # 0.6: headroom for allocator fragmentation, cuDNN workspaces and AMP's weight copies.
    return max(1, min(batch, int(0.6 * available / per_sample)))


@dataclass(frozen=True)
class Variant:
    """One side of an A/B comparison: AMP or not, and what to switch on the model before
    each of its steps (checkpointing on/off)."""

    amp: bool
    prepare: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class ABResult:
    """Both sides timed step by step, interleaved. ``ratios`` are B's step time / A's, one per
    adjacent pair, so a change in load hits both sides of every ratio alike."""

    a: PhaseResult
    b: PhaseResult
    ratios: tuple[float, ...]

    @property
    def ratio(self) -> float:
        return median(self.ratios)

    def ratio_details(self) -> dict[str, float | int]:
        return {"pairs": len(self.ratios), "median": self.ratio, "min": min(self.ratios),
                "max": max(self.ratios)}


MIN_TIMED_S = 1.0
"""Steps timed alone settle only once they span this long (or half their budget, if less).
Five quick-CNN steps are 0.1 s, shorter than the bursts other work gets from a shared
machine's scheduler (a 2-thread step measured 20 ms, then 450-1,550 ms, then 20 ms again), so
a median of five depended on whether a burst fell inside them: the quick suite's CNN FP32
figure spread 22 % over three runs at load 2.3 (issue 27)."""


def min_window_s(budget_s: float) -> float:
    return min(MIN_TIMED_S, max(0.0, budget_s) / 2)


class _Stepper:
    """Training steps of one precision on a shared model and optimizer."""

    def __init__(self, ctx: BenchContext, model: Any, opt: Any, inputs: Any, targets: Any,
                 variant: Variant) -> None:
        import torch

        self.ctx, self.model, self.opt = ctx, model, opt
        self.inputs, self.targets, self.variant = inputs, targets, variant
        self.dtype_name = amp_dtype_name(ctx.kind) if variant.amp else None
        self.dtype = torch.bfloat16 if self.dtype_name == "bf16" else torch.float16
        # GradScaler support for MPS is recent and uneven across torch versions; the timing
        # of an fp16 step does not depend on it, so MPS runs without one.
        self.scaler = torch.amp.GradScaler("cuda") if variant.amp and ctx.kind == "cuda" \
            else None
        self.times: list[float] = []  # steps interleaved with the other side (for ratios)
        self.alone: list[float] = []  # steps back to back on their own (for throughput)
        self.peak: int | None = None
        self.saved_bytes = 0

    def step(self, hooks: Callable[[], Any] = contextlib.nullcontext) -> None:
        import torch
        from torch.nn import functional as F  # noqa: N812

        self.variant.prepare()
        self.opt.zero_grad(set_to_none=True)
        with hooks(), (torch.amp.autocast(self.ctx.kind, dtype=self.dtype)
                       if self.variant.amp else contextlib.nullcontext()):
            out = self.model(self.inputs)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]).float(),
                                   self.targets.reshape(-1))
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.opt)
            self.scaler.update()
        else:
            loss.backward()
            self.opt.step()

    def first(self) -> float:
        """The untimed first step (kernel selection, optimizer state), measuring saved
        activations on the way; returns its seconds."""
        meter = SavedTensorMeter(self.model.parameters())
        t0 = time.perf_counter()
        self.step(meter.hooks)
        synchronize(self.ctx.device)
        self.saved_bytes = meter.bytes
        return time.perf_counter() - t0

    def timed(self, into: list[float] | None = None) -> None:
        """One timed step, its seconds appended to ``into`` (the interleaved times by
        default)."""
        import torch

        on_cuda = self.ctx.kind == "cuda"
        if on_cuda:
            torch.cuda.reset_peak_memory_stats(self.ctx.device)
        synchronize(self.ctx.device)
        t0 = time.perf_counter()
        self.step()
        synchronize(self.ctx.device)
        (self.times if into is None else into).append(time.perf_counter() - t0)
        if on_cuda:
            peak = int(torch.cuda.max_memory_allocated(self.ctx.device))
            self.peak = max(self.peak or 0, peak)

    def time_alone(self, ctx: BenchContext, budget_s: float, min_steps: int = 3) -> None:
        """Steps back to back until their times settle over a long enough window
        (:func:`min_window_s`) or ``budget_s`` is spent; at least ``min_steps`` so a median
        exists even on a slow device."""
        started = time.perf_counter()
        window = min_window_s(budget_s)
        while True:
            self.timed(into=self.alone)
            ctx.check()
            spent = time.perf_counter() - started
            if len(self.alone) >= min_steps and (
                    (settled(self.alone) and spent >= window)
                    or spent + self.alone[-1] > budget_s):
                return

    def result(self, batch: int) -> PhaseResult:
        """Throughput from the steps timed alone where there are any, else from the
        interleaved ones."""
        times = self.alone or self.times
        t = median(times)
        return PhaseResult(step_s=t, samples_per_s=batch / t, repeats=len(times),
                           saved_bytes=self.saved_bytes, peak_bytes=self.peak,
                           amp_dtype=self.dtype_name, spread=spread(times, batch))


def warm_optimizer() -> None:
    """Build one AdamW before the clock starts: torch's first optimizer imports torch._dynamo
    (measured 11.4 s of a 15 s CNN phase at load 20 on 2 cores), a one-off cost of the
    process, not of a training step (Benchmark.prepare)."""
    import torch

    torch.optim.AdamW([torch.zeros(1, requires_grad=True)], lr=1e-4)


MAX_PAIRS = 200


def run_alone(ctx: BenchContext, model: Any, inputs: Any, targets: Any, variant: Variant, *,
              slice_s: float, batch: int) -> PhaseResult:
    """One side only (AMP not measured on this device): one untimed step, then steps back to
    back until they settle or ``slice_s`` is spent, at least three."""
    import torch

    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    side = _Stepper(ctx, model, opt, inputs, targets, variant)
    started = time.perf_counter()
    side.first()
    ctx.check()
    side.time_alone(ctx, max(0.0, slice_s - (time.perf_counter() - started)))
    return side.result(batch)


class ABRun:
    """:func:`run_ab` in its parts, for a caller that decides between them (checkpointing
    sizes its batch from how long the untimed first steps took): :meth:`start`, then
    :meth:`pairs`, then optionally :meth:`alone`, then :meth:`result`."""

    def __init__(self, ctx: BenchContext, model: Any, inputs: Any, targets: Any, a: Variant,
                 b: Variant) -> None:
        import torch

        self.ctx = ctx
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.sides = (_Stepper(ctx, model, opt, inputs, targets, a),
                      _Stepper(ctx, model, opt, inputs, targets, b))
        self.ratios: list[float] = []
        self.settled = False

    def start(self) -> float:
        """One untimed step of each side; returns their seconds together (an upper bound of
        a pair's: the first steps also pay one-off costs)."""
        took = sum(side.first() for side in self.sides)
        self.ctx.check()
        return took

    def pairs(self, budget_s: float) -> None:
        """Adjacent pairs, order alternating (A B, B A, ...), until their ratio settles or a
        further pair would end past ``budget_s`` seconds from now; at least one pair."""
        started = time.perf_counter()
        sides = self.sides
        while len(self.ratios) < MAX_PAIRS:
            order = sides if len(self.ratios) % 2 == 0 else sides[::-1]
            for side in order:
                side.timed()
                self.ctx.check()
            self.ratios.append(sides[1].times[-1] / sides[0].times[-1])
            pair_s = sides[0].times[-1] + sides[1].times[-1]
            self.settled = settled(self.ratios)
            if self.settled or time.perf_counter() - started + pair_s > budget_s:
                return

    def alone(self, budget_s: float) -> None:
        """Each side's steps back to back, half of ``budget_s`` each (at least three)."""
        for side in self.sides:
            side.time_alone(self.ctx, budget_s / 2)

    def result(self, batch: int) -> ABResult:
        return ABResult(a=self.sides[0].result(batch), b=self.sides[1].result(batch),
                        ratios=tuple(self.ratios))


def run_ab(ctx: BenchContext, model: Any, inputs: Any, targets: Any, a: Variant, b: Variant,
           *, slice_s: float, batch: int, alone_share: float = 0.5) -> ABResult:
    """Time A and B step by step in alternation (A B, B A, A B, ...) until their ratio has
    settled or ``slice_s * (1 - alone_share)`` is spent, after one untimed step of each; at
    least one pair. Then each side's throughput is timed on its own, with ``alone_share`` of
    the slice (or what the pairs left of it) split between the two, at least three steps
    each; ``alone_share=0`` reports throughput from the interleaved steps.

    Timing one side after the other lets any change in load between the phases land in the
    ratio (measured: 0.07x to 2.16x for AMP under load); adjacent pairs share the load, and
    alternating the order cancels a steady drift (a clock ramping, a cache warming).
    """
    run = ABRun(ctx, model, inputs, targets, a, b)
    started = time.perf_counter()
    run.start()
    run.pairs(slice_s * (1 - alone_share) - (time.perf_counter() - started))
    if alone_share > 0:
        # What the pairs left (all of it when they settled early), half to each side.
        run.alone(max(0.0, slice_s - (time.perf_counter() - started)))
    return run.result(batch)
