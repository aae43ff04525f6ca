"""Data-parallel scaling: how step time and efficiency change with the number of GPUs and the
link between them.

Model (docs/estimation.md sec. 6; Li et al., "PyTorch Distributed", VLDB 2020, arXiv 2006.15704):

    t_step = t_compute + exposed communication

- DDP, bucket by bucket (:func:`_ddp_step`): PyTorch's reducer fills a 1 MiB first bucket,
  then 25 MiB ones, in the order backward produces the gradients (reducer.hpp/.cpp), and
  all-reduces each when its last gradient is ready, one after the other; backward is 2/3 of
  the compute (3/4 with checkpointing). What is exposed is what the link still has to do when
  backward ends - at least the last bucket.
- ZeRO-1/2: DeepSpeed's reduce-scatter + all-gather (2(n-1)/n, as an all-reduce), not
  overlapped (``overlap_comm`` is off by default below stage 3).
- ZeRO-3 / FSDP (:func:`_sharded_step`): one unit per layer, all-gathered in forward and again
  in backward with the next unit prefetched, gradients reduce-scattered per unit.
- Tensor / pipeline parallelism (:func:`model_parallel_step`): Megatron's all-reduces add to
  the compute; each rank's 1/(t*p) of the gradients is synchronised over the data-parallel
  ranks.

Bandwidths follow nccl-tests' *bus bandwidth* convention (busbw = algbw x 2(n-1)/n for
all-reduce): a link's busbw is its per-direction bandwidth x an achievable fraction. Across
nodes a ring is limited by the network: busbw = min(intra-node busbw, NICs per node x NIC
bandwidth x fraction). A measured busbw from ``torchrig bench --collective`` replaces the
catalog figure (:func:`measured_link`).

Tolerance (tests/planning/test_scaling_model.py, test_train24_scaling.py): the model counts
communication only, so it is an upper bound. For the published single-node and InfiniBand
figures it lands 0-10 percentage points above the measurement (ResNet-50 V100 NVLink 93% at 8
and at 16 over 4x100 Gb; DGX A100 ResNet-50 TF32 96.6%; DGX-1 FP32 97.2%; BERT 90% at 8). It
misses ResNet-50 AMP at 8 GPUs (DGX A100 84.1%, DGX-1 86.7% measured, 98-99.8% modelled): that
loss is not communication - all of ResNet-50's gradients cross NVLink 3 in 0.8% of the step,
which also bounds NCCL's kernels slowing the compute - and most likely the CPU data pipeline
(DeepLearningExamples decodes real JPEGs on the CPUs), which the planner has no sourced
per-core rate to bound. BERT's 66% at 2 nodes x 8 is reproduced only with a ~25 Gb/s-class
network and an assumed batch of 32; the source states neither.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from torchrig.collective_math import bus_factor
from torchrig.errors import InputError
from torchrig.planning.links import LINKS, Link
from torchrig.planning.requirements.estimators import REDUCE_BUCKET_ELEMENTS
from torchrig.planning.requirements.interconnect import (
    gradient_sync_bytes,
    tensor_parallel_bytes,
    tensor_parallel_calls,
)
from torchrig.planning.requirements.pipeline_schedule import micro_batch_slots
from torchrig.planning.workload import Workload, resolve_model

if TYPE_CHECKING:
    from torchrig.planning.requirements.types import Requirements

DDP_BUCKET_BYTES = 25 * 1024**2
"""DistributedDataParallel's default bucket_cap_mb = 25."""

DDP_FIRST_BUCKET_BYTES = 1024**2
"""DDP's first bucket (reducer.hpp kDefaultFirstBucketBytes = 1 MiB): the first gradients of
backward go out early."""

ZERO_BUCKET_BYTES = 2 * REDUCE_BUCKET_ELEMENTS
"""DeepSpeed ZeRO-1/2 reduces 16-bit gradients ``reduce_bucket_size`` elements at a time."""

BACKWARD_SHARE = 2 / 3
"""Backward is ~2x the forward pass, so 2/3 of a step's compute overlaps gradient reduction."""

BACKWARD_SHARE_CHECKPOINTED = 3 / 4
"""With checkpointing backward also re-runs the forward: 3 of the 4 passes overlap."""


def measured_link(report: Any, base: Link | None = None, op: str = "all_reduce") -> Link:
    """A link with the busbw and latency a collective benchmark report measured.

    ``report`` is a torchrig.bench collective report; its summary's busbw at the largest size
    is what large gradient buckets see, its smallest-size time is the latency.
    """
    summary = report.summary.get(op)
    if summary is None:
        raise InputError(f"collective report has no {op} results")
    if summary.busbw_at_largest <= 0:
        raise InputError("collective report: busbw at the largest size is not positive")
    world = report.transport.world_size
    nodes = getattr(report.transport, "nnodes", 1) or 1
    template = base or Link("measured", "measured", 0.0, 1.0, 0.0,
                            "inter" if nodes > 1 else "intra", "", "")
    return replace(
        template, id="measured" if base is None else f"measured_{base.id}",
        name=f"measured ({world} ranks)",
        bandwidth_bps=summary.busbw_at_largest, achievable_fraction=1.0,
        latency_s=summary.latency_s,
        source=f"collective benchmark: all-reduce busbw at {summary.largest_bytes} B",
        fraction_basis="measured",
    )


def allreduce_time(n_bytes: float, gpus: int, busbw_bps: float, latency_s: float = 0.0,
                   buckets: int = 1) -> float:
    """Ring all-reduce time: 2(n-1)/n x bytes / busbw + latency per bucket.

    BERT-large's 1.34 GB of fp32 gradients on 8 GPUs: 10.2 ms at 230 GB/s, 117 ms at 20 GB/s.
    """
    if gpus <= 1:
        return 0.0
    return bus_factor("all_reduce", gpus) * n_bytes / busbw_bps + latency_s * buckets


def effective_busbw(gpus: int, gpus_per_node: int, intra: Link,
                    inter: Link | None = None, nics_per_node: int = 1) -> float:
    """Bus bandwidth a ring over ``gpus`` reaches: the intra-node link inside one node; across
    nodes, never more than the node's network ports provide."""
    if gpus <= gpus_per_node or inter is None:
        if gpus > gpus_per_node:
            raise InputError(f"{gpus} GPUs span several nodes: give the inter-node link")
        return intra.busbw_bps
    return min(intra.busbw_bps, nics_per_node * inter.busbw_bps)


@dataclass(frozen=True)
class ScalingPoint:
    gpus: int
    efficiency: float
    samples_per_s: float
    step_time_s: float
    comm_time_s: float

    def to_dict(self) -> dict[str, float]:
        return {"gpus": self.gpus, "efficiency": self.efficiency,
                "samples_per_s": self.samples_per_s, "step_time_s": self.step_time_s,
                "comm_time_s": self.comm_time_s}


def ddp_buckets(grad_bytes: float) -> list[float]:
    """DDP's buckets in the order backward fills them: a 1 MiB first bucket, then 25 MiB ones,
    the rest in the last (reducer.hpp: kDefaultFirstBucketBytes, kDefaultBucketBytesCap;
    buckets are rebuilt after the first step in the order the gradients became ready)."""
    if grad_bytes <= 0:
        return []
    sizes = [min(grad_bytes, float(DDP_FIRST_BUCKET_BYTES))]
    rest = grad_bytes - sizes[0]
    full = int(rest // DDP_BUCKET_BYTES)
    sizes += [float(DDP_BUCKET_BYTES)] * full
    if rest - full * DDP_BUCKET_BYTES > 0:
        sizes.append(rest - full * DDP_BUCKET_BYTES)
    return sizes


def _ddp_step(compute_s: float, grad_bytes: float, gpus: int, busbw_bps: float,
              latency_s: float, backward_share: float) -> tuple[float, float]:
    """Bucket by bucket: each bucket's all-reduce starts when backward has produced its last
    gradient and the previous bucket's all-reduce is done (one NCCL stream). Gradients are
    taken to appear at an even rate over backward (an assumption: the first buckets, the last
    layers, often hold more parameters per FLOP, so they come earlier)."""
    backward = compute_s * backward_share
    forward = compute_s - backward
    link_free = produced = comm = 0.0
    for size in ddp_buckets(grad_bytes):
        produced += size
        ready = forward + backward * produced / grad_bytes
        one = allreduce_time(size, gpus, busbw_bps, latency_s)
        link_free = max(ready, link_free) + one
        comm += one
    return max(compute_s, link_free), comm


def _sharded_step(compute_s: float, weight_bytes: float, gpus: int, busbw_bps: float,
                  latency_s: float, layers: int | None, backward_share: float
                  ) -> tuple[float, float]:
    """ZeRO-3 / FSDP full shard, one unit per layer: forward all-gathers each unit's weights,
    the next unit's overlapping this one's compute (FSDP's implicit forward prefetch; "the 1st
    all-gather will not be able to overlap with anything", PyTorch docs notes/fsdp.rst);
    backward gathers them again (FULL_SHARD reshards after forward, fsdp/api.py), prefetching
    the next unit before this one's gradients are computed (BACKWARD_PRE, FSDP1's default;
    FSDP2 prefetches in reverse forward order), and reduce-scatters each unit's gradients when
    its backward ends. Collectives run one at a time on the link. Without the layers the model
    is one unit and nothing overlaps."""
    units = max(1, layers or 1)
    unit = weight_bytes / units
    gather = bus_factor("all_gather", gpus) * unit / busbw_bps + latency_s
    scatter = bus_factor("reduce_scatter", gpus) * unit / busbw_bps + latency_s
    f = compute_s * (1 - backward_share) / units
    b = compute_s * backward_share / units
    link = ready = gather
    t = 0.0
    for i in range(units):
        begin = max(t, ready)
        if i + 1 < units:
            link = max(link, begin) + gather
            ready = link
        t = begin + f
    link = ready = max(link, t) + gather
    for i in range(units):
        begin = max(t, ready)
        if i + 1 < units:
            link = max(link, begin) + gather
            ready = link
        t = begin + b
        link = max(link, t) + scatter
    return max(t, link), units * (2 * gather + scatter)


def step_time(compute_s: float, grad_bytes: float, gpus: int, busbw_bps: float,
              latency_s: float, strategy: str = "ddp", checkpointing: bool = False,
              layers: int | None = None, micro_batches: int = 1) -> tuple[float, float]:
    """(step time, communication time) for one data-parallel optimizer step on ``gpus`` GPUs;
    ``compute_s`` is one micro-batch's compute and the step runs ``micro_batches`` of them.

    DDP: bucket by bucket behind backward (:func:`_ddp_step`) - the last micro-batch's only:
    with gradient accumulation the others run under ``no_sync()`` (PyTorch's DDP docs; what
    Hugging Face accelerate and Lightning do), so their backward has no gradients to send
    yet. ZeRO-1/2: DeepSpeed's
    reduce-scatter and all-gather in ``reduce_bucket_size`` pieces, not overlapped
    (``overlap_comm`` defaults to off for stages 1 and 2, deepspeed/runtime/zero/config.py).
    ZeRO-3: ``grad_bytes`` is the 16-bit weight size, per layer with prefetch
    (:func:`_sharded_step`)."""
    m = max(1, micro_batches)
    if gpus <= 1:
        return m * compute_s, 0.0
    share = BACKWARD_SHARE_CHECKPOINTED if checkpointing else BACKWARD_SHARE
    if strategy == "zero3":
        # Gathered and reduce-scattered again for every micro-batch.
        t, comm = _sharded_step(compute_s, grad_bytes, gpus, busbw_bps, latency_s, layers,
                                share)
        return m * t, m * comm
    if strategy in ("zero1", "zero2"):
        pieces = max(1, math.ceil(grad_bytes / ZERO_BUCKET_BYTES))
        comm = allreduce_time(grad_bytes, gpus, busbw_bps, latency_s * 2, pieces)
        return m * compute_s + comm, comm
    last, comm = _ddp_step(compute_s, grad_bytes, gpus, busbw_bps, latency_s, share)
    return (m - 1) * compute_s + last, comm


def _inputs(workload: Workload, requirements_or_step_time: Requirements | float
            ) -> tuple[float, float]:
    """(per-GPU compute time of one step, bytes the strategy communicates per step)."""
    if isinstance(requirements_or_step_time, (int, float)):
        compute = float(requirements_or_step_time)
    else:
        value = requirements_or_step_time.throughput.get("step_time_s")
        if value is None or value.value is None:
            raise InputError("no step time: plan with a GPU, or give the step time in seconds")
        compute = float(value.value)
    if compute <= 0:
        raise InputError(f"step time must be positive, got {compute}")
    if workload.strategy == "zero3":
        model = resolve_model(workload)
        elem = 4.0 if workload.precision in ("fp32", "tf32") else 2.0
        return compute, model.params * elem
    return compute, gradient_sync_bytes(workload)


def scaling_curve(workload: Workload, requirements_or_step_time: Requirements | float,
                  link: Link, gpu_counts: list[int], gpus_per_node: int,
                  inter_link: Link | None = None, nics_per_node: int = 1) -> list[ScalingPoint]:
    """Efficiency and throughput of data-parallel training at each GPU count.

    ``link`` connects GPUs inside a node; counts above ``gpus_per_node`` also need
    ``inter_link``. ``requirements_or_step_time``: a plan made with a GPU (its one-GPU step
    time, one micro-batch's, is used) or that time in seconds; an optimizer step runs the
    workload's ``grad_accumulation`` micro-batches (:func:`step_time`)."""
    compute, volume_bytes = _inputs(workload, requirements_or_step_time)
    layers = resolve_model(workload).arch
    points = []
    for gpus in gpu_counts:
        if gpus < 1:
            raise InputError(f"GPU count must be at least 1, got {gpus}")
        if link.max_gpus is not None and min(gpus, gpus_per_node) > link.max_gpus:
            raise InputError(f"{link.name} connects at most {link.max_gpus} GPUs")
        busbw = effective_busbw(gpus, gpus_per_node, link, inter_link, nics_per_node)
        latency = link.latency_s if gpus <= gpus_per_node or inter_link is None \
            else max(link.latency_s, inter_link.latency_s)
        m = workload.grad_accumulation
        t, comm = step_time(compute, volume_bytes, gpus, busbw, latency, workload.strategy,
                            workload.gradient_checkpointing,
                            layers.layers if layers else None, micro_batches=m)
        points.append(ScalingPoint(
            gpus=gpus, efficiency=m * compute / t,
            samples_per_s=gpus * workload.batch_size * m / t, step_time_s=t, comm_time_s=comm,
        ))
    return points


@dataclass(frozen=True)
class ModelParallelStep:
    """One optimizer step of a tensor / pipeline-parallel run: its time, the data-parallel
    gradient traffic and the tensor-parallel activation all-reduces (seconds)."""

    step_time_s: float
    dp_comm_s: float
    tp_comm_s: float


def model_parallel_step(w: Workload, compute_s: float, intra: Link, inter: Link | None,
                        nics_per_node: int = 1) -> ModelParallelStep:
    """Step time of a tensor / pipeline-parallel run over ``w.data_parallel`` ranks.

    Megatron's tensor-parallel all-reduces (:func:`tensor_parallel_bytes`) run inside the
    forward and backward passes, which wait for them (Shoeybi et al. 2019, sec. 3: the f and g
    operators), so their time adds to the compute; they need the TP group inside one node. Each
    rank then synchronises its 1/(t*p) of the gradients with the ranks holding the same part,
    bucket by bucket behind backward (:func:`step_time`). Those rings leave a node through its
    network ports together: one ring per model-parallel position in the node, so each gets
    ``nics_per_node`` x the NIC busbw / min(t*p, GPUs per node). Pipeline send/receive of
    activations is not counted (one b·s·h tensor per stage boundary; with v interleaved chunks
    per GPU v times as many boundaries, not counted either).

    ``compute_s`` is the step's compute on one GPU, the pipeline's bubble included
    (:mod:`.pipeline_schedule`): m + (p - 1) / v micro-batch slots (m + p - 1 in plain 1F1B),
    each with its TP all-reduces. The gradients are synchronised once per optimizer step,
    after the last micro-batch (Megatron and DDP's ``no_sync`` accumulate the others locally),
    so the sync hides only behind that micro-batch's backward; the first stage runs it last.
    Interleaved, that backward is spread over the flush, chunk by chunk: the sync is still
    taken to hide behind one slot's backward (an assumption; a chunk's gradients that are
    ready earlier could start sooner, so it errs towards a slower step).
    """
    model = resolve_model(w)
    mp = w.tp_size * w.pp_size
    g = w.gpus_per_node
    if w.tp_size > g:
        raise InputError(f"tensor parallelism over {w.tp_size} GPUs spans nodes of {g}")
    slots = micro_batch_slots(w)
    tp = 0.0
    calls = tensor_parallel_calls(w, model)
    if calls:
        tp = (tensor_parallel_bytes(w, model) / intra.busbw_bps
              + calls * intra.latency_s) * slots
    dp = w.data_parallel
    if dp <= 1:
        return ModelParallelStep(compute_s + tp, 0.0, tp)
    in_node = max(1, g // mp)
    if dp <= in_node:
        busbw, latency = intra.busbw_bps, intra.latency_s
    elif inter is None:
        raise InputError(f"{dp} data-parallel ranks span several nodes: give the inter-node "
                         "link")
    else:
        busbw = min(intra.busbw_bps, nics_per_node * inter.busbw_bps / min(mp, g))
        latency = max(intra.latency_s, inter.latency_s)
    # Tensor and pipeline parallelism are strategies of their own (a workload's rules), so the
    # data-parallel sync is DDP's, bucket by bucket.
    share = BACKWARD_SHARE_CHECKPOINTED if w.gradient_checkpointing else BACKWARD_SHARE
    slot = (compute_s + tp) / slots
    last, comm = _ddp_step(slot, gradient_sync_bytes(w, model), dp, busbw, latency, share)
    return ModelParallelStep((slots - 1) * slot + last, comm, tp)


def interconnect_for_target(workload: Workload,
                            requirements_or_step_time: Requirements | float, gpus: int,
                            gpus_per_node: int, target_efficiency: float = 0.8,
                            intra_link: Link | None = None,
                            nics_per_node: int = 1) -> Link | None:
    """The slowest listed link that keeps efficiency at ``gpus`` >= ``target_efficiency``.

    Inside one node the candidates are PCIe and NVLink; across nodes they are the networks,
    with ``intra_link`` (default NVLink 4, the H100's) inside each node. None when no
    listed link reaches the target (communication is not the only limit then).
    """
    if not 0 < target_efficiency <= 1:
        raise InputError(f"target efficiency must be in (0, 1], got {target_efficiency}")
    scope = "intra" if gpus <= gpus_per_node else "inter"
    candidates = sorted((lk for lk in LINKS.values() if lk.scope == scope),
                        key=lambda lk: lk.busbw_bps)
    for link in candidates:
        if link.max_gpus is not None and min(gpus, gpus_per_node) > link.max_gpus:
            continue
        if scope == "intra":
            point = scaling_curve(workload, requirements_or_step_time, link, [gpus],
                                  gpus_per_node)[0]
        else:
            point = scaling_curve(workload, requirements_or_step_time,
                                  intra_link or LINKS["nvlink4"], [gpus], gpus_per_node,
                                  link, nics_per_node)[0]
        if point.efficiency >= target_efficiency:
            return link
    return None
