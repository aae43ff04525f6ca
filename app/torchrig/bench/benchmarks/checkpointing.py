"""Gradient checkpointing on the reference transformer: memory saved and time added.

The seed (3.3) claims 60-80 % less memory for 10-20 % more time; Chen et al. (arXiv 1604.06174)
put the cost at about one extra forward pass (~33 % when backward costs twice a forward). This
measures both on the user's machine with torch.utils.checkpoint (use_reentrant=False) around
every block, the same weights with and without it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress
from torchrig.bench.benchmarks import nets
from torchrig.bench.benchmarks.free_cores import free_threads, threads_note, torch_threads
from torchrig.bench.benchmarks.trainloop import (
    ABResult,
    ABRun,
    Variant,
    fit_batch,
    warm_optimizer,
)
from torchrig.bench.report import Measurement, Reference
from torchrig.i18n import Msg

SEED_MEMORY = Reference(
    kind="seed_claim", label=Msg("seed claim: 60-80 % less memory", "原文说法：显存减少 60%-80%"),
    source="seed 3.3", low=0.6, high=0.8)
SEED_TIME = Reference(
    kind="seed_claim", label=Msg("seed claim: 10-20 % more time", "原文说法：时间增加 10%-20%"),
    source="seed 3.3", low=0.1, high=0.2)

_LAYERS = {"smoke": 2, "quick": 4, "full": 8}
_HOW = {False: Msg("without checkpointing", "不启用检查点"),
        True: Msg("with checkpointing", "启用检查点")}


MIN_PAIRS = 3
"""Pairs the budget must hold for a ratio worth reporting; below that the batch is cut."""
BUDGET_SHARE = 0.8
"""Of the time left after the first pair, what the pairs and the steps alone may spend:
the rest is for the figures and the step in flight (the hard limit is budget + grace)."""


def sized_batch(batch: int, pair_s: float, left_s: float) -> int:
    """The batch that lets :data:`MIN_PAIRS` more pairs fit in ``left_s``, given that one
    timed pair took ``pair_s`` at ``batch``. A smaller batch first pays its own untimed first
    step of each side (about a pair), so it must leave room for MIN_PAIRS + 1 pairs; a step's
    time is taken as proportional to its batch, which overstates a small batch's speed-up and
    so errs on the side of fitting."""
    if pair_s <= 0 or MIN_PAIRS * pair_s <= left_s:
        return batch
    return max(1, min(batch, int(batch * max(0.0, left_s) / ((MIN_PAIRS + 1) * pair_s))))


def _measure(ctx: BenchContext, model: Any, make: nets.BatchMaker, batch: int, off: Variant,
             on: Variant) -> tuple[ABResult, int, tuple[Msg, ...]]:
    """(the interleaved timing, the batch it ran at, notes on how the budget shaped it).

    The first timed pair says how fast this machine is now (the untimed first steps before it
    also pay one-off costs: 1.2 s for a quick pair of about 0.4 s at load 4); where
    :data:`MIN_PAIRS` pairs at the preset's batch would not fit the budget (a loaded machine:
    one run_ab at the preset's size measured nothing before the hard limit, issue 27) the
    batch is cut to fit, and the steps timed alone are left out unless the pairs leave room
    for them. Where the batch stands, that first pair counts."""
    x, y = make(batch)
    run = ABRun(ctx, model, x, y, off, on)
    run.start()
    run.pairs(0.0)  # exactly one pair
    pair_s = run.sides[0].times[-1] + run.sides[1].times[-1]
    notes: list[Msg] = []
    cut = sized_batch(batch, pair_s, ctx.time_left() * BUDGET_SHARE)
    if cut < batch:
        notes.append(Msg(f"batch {cut} instead of {batch}: a pair of steps took {pair_s:.2f} s, "
                         f"so {MIN_PAIRS} pairs at {batch} would not fit the time budget (step "
                         "times are for this batch; the ratios hardly depend on it)",
                         f"批大小 {cut}（而非 {batch}）：一组步耗时 {pair_s:.2f} 秒，"
                         f"按 {batch} 跑 {MIN_PAIRS} 组无法在时间预算内完成"
                         "（步时对应该批大小；比值几乎与之无关）"))
        pair_s *= cut / batch
        batch = cut
        x, y = make(batch)
        run = ABRun(ctx, model, x, y, off, on)
        run.start()
    left = ctx.time_left() * BUDGET_SHARE
    # Steps alone (three of each, about 1.5 pairs) only where the pairs leave room for them.
    alone = left > (MIN_PAIRS + 2) * pair_s
    started = time.perf_counter()
    if not run.settled:
        run.pairs(left / 2 if alone else left)
    if alone:
        run.alone(max(0.0, left - (time.perf_counter() - started)))
    else:
        notes.append(Msg(f"step times are the medians of the {len(run.ratios)} interleaved "
                         "pairs' steps: the budget left no time to time each side alone",
                         f"步时取 {len(run.ratios)} 组交替步的中位数：预算不足以单独计时"))
    if not run.settled:
        ctx.note_budget_stop(Msg(
            f"the time ratio is the median of {len(run.ratios)} pairs, stopped by the time "
            "budget before it settled",
            f"时间比为 {len(run.ratios)} 组的中位数，在稳定前因时间预算停止"))
    return run.result(batch), batch, tuple(notes)


def run(ctx: BenchContext) -> Iterator[Event]:
    import torch

    layers = _LAYERS[ctx.preset] if ctx.kind == "cpu" else 12
    shape = nets.transformer_shape(ctx.kind, ctx.preset, ctx.scale, layers=layers)
    yield Progress("checkpointing", 0, 3, Msg("building the transformer", "构建 Transformer"))
    torch.manual_seed(0)
    model = nets.build_transformer(shape).to(ctx.device)
    make = nets.token_batch_maker(shape, ctx.device)
    # Sized for the run without checkpointing, the one that needs the memory.
    batch = fit_batch(ctx, model, make, shape.batch)
    details = {"batch": batch, "seq": shape.seq, "d_model": shape.d_model,
               "layers": shape.layers}
    yield Progress("checkpointing", 1, 3, Msg("timing with and without, interleaved",
                                              "交替计时：启用与不启用"))

    def switch(on: bool) -> Variant:
        def prepare() -> None:
            model.checkpointing = on
        return Variant(amp=False, prepare=prepare)

    threads_notes: tuple[Msg, ...] = ()
    if ctx.kind == "cpu":  # the cores other work leaves free (free_cores.py says why)
        usable = ctx.usable_cpus()
        threads, other = free_threads(usable)
        threads_notes = (threads_note(threads, usable, other),)
        details["torch_threads"] = threads
    with torch_threads(threads) if ctx.kind == "cpu" else contextlib.nullcontext():
        ab, batch, sizing = _measure(ctx, model, make, batch, switch(False), switch(True))
    details["batch"] = batch
    threads_notes += sizing
    plain, ckpt = ab.a, ab.b
    yield Progress("checkpointing", 2, 3, Msg("results", "结果"))
    for checkpointing, r in ((False, plain), (True, ckpt)):
        how = _HOW[checkpointing]
        tag = "checkpointed" if checkpointing else "plain"
        yield Measurement(
            id=f"step_s_{tag}", label=Msg(f"Step time {how.en}", f"单步时间（{how.zh}）"),
            value=r.step_s, unit="s", notes=threads_notes,
            details={**details, "repeats": r.repeats, "spread_samples_per_s": r.spread})
        yield Measurement(
            id=f"saved_bytes_{tag}",
            label=Msg(f"Activations saved for backward, {how.en}", f"为反向保存的激活（{how.zh}）"),
            value=float(r.saved_bytes), unit="B",
            notes=(Msg("saved_tensors_hooks, each storage once, parameters excluded",
                       "saved_tensors_hooks 统计，每个存储只计一次，不含参数"),))
        if r.peak_bytes is not None:
            yield Measurement(
                id=f"peak_bytes_{tag}",
                label=Msg(f"Peak memory in a step, {how.en}", f"单步峰值显存（{how.zh}）"),
                value=float(r.peak_bytes), unit="B",
                notes=(Msg("torch.cuda.max_memory_allocated; includes weights, gradients and "
                           "AdamW states", "max_memory_allocated；含权重、梯度与 AdamW 状态"),))
    spread_ = ab.ratio_details()
    yield Measurement(
        id="time_added", label=Msg("Time added by checkpointing", "检查点增加的时间"),
        value=ab.ratio - 1, unit="ratio", reference=SEED_TIME,
        notes=(Msg(f"steps with and without alternate (A B, B A, ...); median over "
                   f"{spread_['pairs']} adjacent pairs of the step-time ratio, range "
                   f"{spread_['min'] - 1:+.0%} to {spread_['max'] - 1:+.0%}",
                   f"启用与不启用逐步交替（A B、B A……）；取 {spread_['pairs']} 组相邻步"
                   f"步时比的中位数，范围 {spread_['min'] - 1:+.0%} 至 {spread_['max'] - 1:+.0%}"),
               Msg("Chen et al. (arXiv 1604.06174): about one extra forward pass, ~33 %",
                   "Chen 等（arXiv 1604.06174）：约多一次前向，约 33%")),
        details={"pairs": spread_["pairs"], "median": ab.ratio - 1,
                 "min": spread_["min"] - 1, "max": spread_["max"] - 1},
    )
    if plain.peak_bytes and ckpt.peak_bytes is not None:
        saving = 1 - ckpt.peak_bytes / plain.peak_bytes
        basis = Msg("on the CUDA allocator's peak during a whole step",
                    "基于整步的 CUDA 分配器峰值")
    else:
        saving = 1 - ckpt.saved_bytes / plain.saved_bytes
        basis = Msg("on activations held between forward and backward; the transient "
                    "recomputation of one block during backward is not included",
                    "基于前向与反向之间保留的激活；不含反向时重算单个块的临时内存")
    yield Measurement(
        id="memory_saved", label=Msg("Memory saved by checkpointing", "检查点节省的内存"),
        value=saving, unit="ratio", reference=SEED_MEMORY,
        notes=(basis, Msg("FP32, every block checkpointed (use_reentrant=False)",
                          "FP32，每个块都做检查点（use_reentrant=False）")),
    )
    yield Progress("checkpointing", 3, 3, Msg("done", "完成"))


BENCHMARK = Benchmark(
    id="checkpointing",
    title=Msg("Gradient checkpointing: memory vs time", "梯度检查点：内存与时间"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    prepare=warm_optimizer,
    weight=3.0,
)
