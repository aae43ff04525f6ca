"""Training throughput and memory of a reference CNN and transformer, FP32 vs AMP.

Answers the seed's claim (3.1: mixed precision is 30-50 % faster and needs 50 % less memory)
on this machine, with the measured figures beside the claim. The CNN's rate is also what the
dataload benchmark checks the CPU can feed (seed 4.2).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from torchrig.bench.base import BenchContext, Benchmark, Event, Progress
from torchrig.bench.benchmarks import nets
from torchrig.bench.benchmarks.free_cores import free_threads, threads_note, torch_threads
from torchrig.bench.benchmarks.trainloop import (
    ABResult,
    PhaseResult,
    Variant,
    amp_note,
    amp_skip_reason,
    fit_batch,
    run_ab,
    run_alone,
    warm_optimizer,
)
from torchrig.bench.report import Measurement, Reference
from torchrig.i18n import Msg

SEED_AMP_SPEEDUP = Reference(
    kind="seed_claim", label=Msg("seed claim: 30-50 % faster", "原文说法：提速 30%-50%"),
    source="seed 3.1", low=1.3, high=1.5)
SEED_AMP_MEMORY = Reference(
    kind="seed_claim", label=Msg("seed claim: 50 % less memory", "原文说法：显存减少 50%"),
    source="seed 3.1", low=0.5, high=0.5)

_NETS = {
    "cnn": Msg("ResNet-like CNN", "类 ResNet 卷积网络"),
    "transformer": Msg("Transformer encoder", "Transformer 编码器"),
}


def _build(ctx: BenchContext, net: str) -> tuple[Any, Any, Any, int, dict[str, Any]]:
    """(model, inputs, targets, batch, shape details) on ctx.device, deterministic."""
    import torch

    torch.manual_seed(0)
    if net == "cnn":
        shape = nets.cnn_shape(ctx.kind, ctx.preset, ctx.scale)
        model = nets.build_cnn(shape).to(ctx.device)
        make = nets.image_batch_maker(shape, ctx.device)
        batch = fit_batch(ctx, model, make, shape.batch)
        details = {"batch": batch, "image": shape.image, "width": shape.width,
                   "blocks": list(shape.blocks)}
    else:
        tshape = nets.transformer_shape(ctx.kind, ctx.preset, ctx.scale)
        model = nets.build_transformer(tshape).to(ctx.device)
        make = nets.token_batch_maker(tshape, ctx.device)
        batch = fit_batch(ctx, model, make, tshape.batch)
        details = {"batch": batch, "seq": tshape.seq, "d_model": tshape.d_model,
                   "layers": tshape.layers, "heads": tshape.heads}
    details["parameters"] = sum(p.numel() for p in model.parameters())
    x, y = make(batch)
    return model, x, y, batch, details


def _memory_measurements(ctx: BenchContext, net: str, fp32: PhaseResult,
                         amp: PhaseResult) -> list[Measurement]:
    out: list[Measurement] = []
    for prec, r in (("fp32", fp32), ("amp", amp)):
        out.append(Measurement(
            id=f"{net}_{prec}_saved_bytes",
            label=Msg(f"{_NETS[net].en}, {prec.upper()}: activations saved for backward",
                      f"{_NETS[net].zh}，{prec.upper()}：为反向保存的激活"),
            value=float(r.saved_bytes), unit="B",
            notes=(Msg("saved_tensors_hooks, each storage once, parameters excluded",
                       "saved_tensors_hooks 统计，每个存储只计一次，不含参数"),),
        ))
        if r.peak_bytes is not None:
            out.append(Measurement(
                id=f"{net}_{prec}_peak_bytes",
                label=Msg(f"{_NETS[net].en}, {prec.upper()}: peak memory in a step",
                          f"{_NETS[net].zh}，{prec.upper()}：单步峰值显存"),
                value=float(r.peak_bytes), unit="B",
                notes=(Msg("torch.cuda.max_memory_allocated after reset_peak_memory_stats; "
                           "includes weights, gradients and AdamW states",
                           "reset_peak_memory_stats 后的 max_memory_allocated；"
                           "含权重、梯度与 AdamW 状态"),),
            ))
    if fp32.peak_bytes and amp.peak_bytes is not None:
        saving = 1 - amp.peak_bytes / fp32.peak_bytes
        basis = Msg("on the CUDA allocator's peak (whole step: weights, gradients, AdamW "
                    "states in fp32 too, which AMP does not shrink)",
                    "基于 CUDA 分配器峰值（整步：含 AMP 不会缩小的 fp32 权重、梯度与 AdamW 状态）")
    elif fp32.saved_bytes:
        saving = 1 - amp.saved_bytes / fp32.saved_bytes
        basis = Msg("on activations saved for backward (no allocator peak on this device)",
                    "基于为反向保存的激活（该设备无分配器峰值）")
    else:
        return out
    out.append(Measurement(
        id=f"{net}_amp_memory_saving",
        label=Msg(f"{_NETS[net].en}: memory saved by AMP", f"{_NETS[net].zh}：AMP 节省的内存"),
        value=saving, unit="ratio", reference=SEED_AMP_MEMORY, notes=(basis,),
    ))
    return out


def _phase_measurement(ctx: BenchContext, net: str, prec: str, r: PhaseResult,
                       details: dict[str, Any], notes: list[Msg]) -> Measurement:
    label = "AMP" if prec == "amp" else "FP32"
    notes = list(notes)
    if prec == "amp":
        notes.append(amp_note(ctx.kind))
    elif ctx.kind == "cuda":
        notes.append(Msg("FP32 with PyTorch defaults: cuDNN convolutions may use TF32 "
                         "on Ampere and newer, matmuls do not",
                         "PyTorch 默认设置下的 FP32：Ampere 及更新 GPU 上卷积可能用 "
                         "TF32，矩阵乘不用"))
    return Measurement(
        id=f"{net}_{prec}",
        label=Msg(f"{_NETS[net].en} training, {label}", f"{_NETS[net].zh}训练，{label}"),
        value=r.samples_per_s, unit="samples/s", notes=tuple(notes),
        details={**details, "step_s": r.step_s, "amp_dtype": r.amp_dtype, "spread": r.spread},
    )


def _speedup(net: str, ab: ABResult) -> Measurement:
    spread_ = ab.ratio_details()
    return Measurement(
        id=f"{net}_amp_speedup",
        label=Msg(f"{_NETS[net].en}: AMP speed-up over FP32",
                  f"{_NETS[net].zh}：AMP 相对 FP32 的加速比"),
        value=1 / ab.ratio, unit="ratio", reference=SEED_AMP_SPEEDUP,
        notes=(Msg(f"FP32 and AMP steps alternate (A B, B A, ...); speed-up = median over "
                   f"{spread_['pairs']} adjacent pairs of FP32 step time / AMP step time, "
                   f"range {1 / spread_['max']:.2f}x-{1 / spread_['min']:.2f}x",
                   f"FP32 与 AMP 逐步交替（A B、B A……）；加速比 = {spread_['pairs']} "
                   f"组相邻步的 FP32 步时 ÷ AMP 步时的中位数，范围 "
                   f"{1 / spread_['max']:.2f}x-{1 / spread_['min']:.2f}x"),),
        details={"pairs": spread_["pairs"], "median": 1 / ab.ratio,
                 "min": 1 / spread_["max"], "max": 1 / spread_["min"]},
    )


def run(ctx: BenchContext) -> Iterator[Event]:
    nets_todo = ("cnn", "transformer")
    steps = len(nets_todo)
    no_amp = amp_skip_reason(ctx)
    if no_amp is not None:
        ctx.note(no_amp)
    threads_notes: list[Msg] = []
    threads = None
    if ctx.kind == "cpu":
        usable = ctx.usable_cpus()
        threads, other = free_threads(usable)
        threads_notes.append(threads_note(threads, usable, other))
    for i, net in enumerate(nets_todo):
        what = Msg(f"{_NETS[net].en}: FP32 and AMP, interleaved",
                   f"{_NETS[net].zh}：FP32 与 AMP 交替") if no_amp is None else Msg(
                   f"{_NETS[net].en}: FP32", f"{_NETS[net].zh}：FP32")
        yield Progress("train", i, steps, what)
        if ctx.out_of_time(0.3):
            ctx.note_budget_stop(Msg(f"{_NETS[net].en} not measured", f"未测{_NETS[net].zh}"))
            break
        with torch_threads(threads) if threads is not None else contextlib.nullcontext():
            model, x, y, batch, details = _build(ctx, net)
            ctx.check()
            slice_s = ctx.time_left() / (steps - i) * 0.8
            ab: ABResult | None = None
            if no_amp is None:
                ab = run_ab(ctx, model, x, y, Variant(amp=False), Variant(amp=True),
                            slice_s=slice_s, batch=batch)
                fp32 = ab.a
            else:
                fp32 = run_alone(ctx, model, x, y, Variant(amp=False), slice_s=slice_s,
                                 batch=batch)
        del model, x, y
        if threads is not None:
            details = {**details, "torch_threads": threads}
        alone = Msg(f"median of {fp32.repeats} steps (AdamW) timed back to back on their own"
                    + (", after the interleaved pairs that give the speed-up" if ab else ""),
                    f"单独连续计时 {fp32.repeats} 步的中位数（AdamW）"
                    + ("，在测加速比的交替步之后" if ab else ""))
        yield _phase_measurement(ctx, net, "fp32", fp32, details, [alone, *threads_notes])
        if ab is None:
            continue
        amp_alone = Msg(f"median of {ab.b.repeats} steps (AdamW) timed back to back on their "
                        "own, after the interleaved pairs that give the speed-up",
                        f"单独连续计时 {ab.b.repeats} 步的中位数（AdamW），在测加速比的交替步之后")
        yield _phase_measurement(ctx, net, "amp", ab.b, details, [amp_alone, *threads_notes])
        yield _speedup(net, ab)
        yield from _memory_measurements(ctx, net, ab.a, ab.b)
    yield Progress("train", steps, steps, Msg("done", "完成"))


BENCHMARK = Benchmark(
    id="train",
    title=Msg("Training step: CNN and transformer, FP32 vs AMP",
              "训练步：CNN 与 Transformer，FP32 对比 AMP"),
    devices=("cpu", "cuda", "mps"),
    run=run,
    prepare=warm_optimizer,
    weight=6.0,
)
