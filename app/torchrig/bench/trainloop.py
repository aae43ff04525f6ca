"""One timed training configuration (model, precision), shared by train and checkpointing.

A step is what a real loop does: zero grads, forward (under autocast for AMP), loss, backward
(through GradScaler for fp16 on CUDA), optimizer step. Memory is measured two ways: the bytes
autograd saves for backward (saved_tensors_hooks, exact on every device) and, on CUDA, the
allocator's peak during a step (what decides whether a batch fits).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torchrig.bench.base import BenchContext
from torchrig.bench.nets import BatchMaker, SavedTensorMeter
from torchrig.bench.timing import free_memory_bytes, median, synchronize, time_calls
from torchrig.i18n import Msg


@dataclass(frozen=True)
class PhaseResult:
    step_s: float
    samples_per_s: float
    repeats: int
    saved_bytes: int
    peak_bytes: int | None  # CUDA allocator peak during a step; None elsewhere
    amp_dtype: str | None


def amp_dtype_name(kind: str) -> str:
    """fp16 on GPUs (tensor cores, GradScaler), bf16 on CPUs (no fp16 kernels worth using)."""
    return "bf16" if kind == "cpu" else "fp16"


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


def run_phase(
    ctx: BenchContext,
    model: Any,
    inputs: Any,
    targets: Any,
    *,
    amp: bool,
    slice_s: float,
    batch: int,
) -> PhaseResult:
    """One untimed step (also measuring saved activations), then timed steps within
    ``slice_s``; the CUDA peak is taken over the timed steps."""
    import torch
    from torch.nn import functional as F  # noqa: N812

    kind = ctx.kind
    dtype_name = amp_dtype_name(kind) if amp else None
    dtype = torch.bfloat16 if dtype_name == "bf16" else torch.float16
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = None
    if amp and kind == "cuda":
        # GradScaler support for MPS is recent and uneven across torch versions; the timing
        # of an fp16 step does not depend on it, so MPS runs without one.
        scaler = torch.amp.GradScaler("cuda")

    def forward_loss() -> Any:
        with torch.amp.autocast(kind, dtype=dtype) if amp else contextlib.nullcontext():
            out = model(inputs)
            return F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), targets.reshape(-1))

    def step(hooks: Callable[[], Any] = contextlib.nullcontext) -> None:
        opt.zero_grad(set_to_none=True)
        with hooks():
            loss = forward_loss()
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()

    model.train()
    # The first step allocates optimizer state and picks kernels, so it is not timed; the
    # saved-tensor meter rides along on it (its hooks cost nothing measurable) so a phase
    # needs only one untimed step - on a loaded 2-core machine every step counts.
    meter = SavedTensorMeter(model.parameters())
    t0 = time.perf_counter()
    step(meter.hooks)
    synchronize(ctx.device)
    first_s = time.perf_counter() - t0
    ctx.check()
    if kind == "cuda":
        torch.cuda.reset_peak_memory_stats(ctx.device)
    # At least two timed steps when they fit the slice; on a slow or busy CPU one has to do.
    min_reps = 2 if first_s * 2 <= slice_s else 1
    samples = time_calls(step, ctx, min_reps=min_reps, max_reps=200, max_s=max(0.0, slice_s))
    peak = int(torch.cuda.max_memory_allocated(ctx.device)) if kind == "cuda" else None
    t = median(samples)
    return PhaseResult(step_s=t, samples_per_s=batch / t, repeats=len(samples),
                       saved_bytes=meter.bytes, peak_bytes=peak, amp_dtype=dtype_name)
