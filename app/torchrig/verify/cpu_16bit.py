"""A CPU run that computes its matmuls in 16 bit without the instructions for it (torch-only).

On the CPU verify computes AMP's matmuls in fp32 and keeps their 16-bit copies
(:class:`~torchrig.verify.cuda_emulation.FastCudaEmulation`), except where it cannot: with
gradient checkpointing the casts must be exact (:class:`CudaEmulation`), and a model cast to
bf16 computes in bf16. A CPU without native bf16 (AVX512_BF16, AMX, Arm BF16) then converts
element by element, 10-100x slower than fp32: the shipped Llama-2-7B LoRA workload (AMP,
checkpointing) spent more than two minutes in its one-layer, 64-token pilot on this project's
2-core EPYC. So before the pilot, verify times a small bf16 matmul here and, when the pilot
alone would run past :data:`PILOT_LIMIT_S`, refuses with the figure and what to do instead.
"""

from __future__ import annotations

import time

import torch

from torchrig.bench.benchmarks.cpufeatures import native_16bit
from torchrig.i18n import Msg
from torchrig.verify.probe import ProbeSpec

PILOT_LIMIT_S = 120.0
"""The most the smallest run may take here before verify refuses (its whole budget is 25 s;
the smallest run is allowed to overrun it, not by minutes)."""

_SIDE = 256


def software_16bit(spec: ProbeSpec, kind: str) -> bool:
    """Whether this run computes its matmuls in 16 bit on a CPU that has no native bf16."""
    if kind != "cpu":
        return False
    p = spec.precision
    sixteen = p.model_dtype == torch.bfloat16 or (
        p.emulate and p.autocast is not None and spec.checkpointing)
    return sixteen and not native_16bit(None, "bf16")


def bf16_matmul_flops_per_s() -> float:
    """This CPU's bf16 matmul rate: the best of three 256 x 256 x 256 products, timed."""
    a = torch.randn(_SIDE, _SIDE).to(torch.bfloat16)
    b = torch.randn(_SIDE, _SIDE).to(torch.bfloat16)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        torch.mm(a, b)
        best = min(best, time.perf_counter() - start)
    return 2 * _SIDE**3 / max(best, 1e-9)


def too_slow(spec: ProbeSpec, kind: str, pilot_step_flops: float | None,
             steps: int) -> Msg | None:
    """The refusal when the pilot's ``steps`` steps of ``pilot_step_flops`` would take longer
    than :data:`PILOT_LIMIT_S` at this CPU's bf16 rate (None: it will not, or the planner has
    no FLOP count to tell)."""
    if not pilot_step_flops or not software_16bit(spec, kind):
        return None
    seconds = steps * pilot_step_flops / bf16_matmul_flops_per_s()
    if seconds <= PILOT_LIMIT_S:
        return None
    minutes = seconds / 60
    return Msg(
        f"this CPU has no native bf16, so this run computes its matmuls in bf16 in software "
        f"(AMP with gradient checkpointing, or a bf16 model): even the smallest copy would take "
        f"about {minutes:,.0f} min here; measure it on a GPU, or with --checkpointing off or "
        "--precision fp32 (their saved bytes differ from this plan's)",
        f"此 CPU 没有原生 bf16，本次运行要用软件计算 bf16 矩阵乘（启用梯度检查点的 AMP，或 bf16 "
        f"模型）：即使最小的副本在此也约需 {minutes:,.0f} 分钟；请在 GPU 上测量，或用 "
        "--checkpointing off 或 --precision fp32 测量（其保存的字节数与本规划不同）")
