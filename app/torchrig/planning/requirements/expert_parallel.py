"""Expert parallelism's all-to-alls, in bytes and in time (docs/estimation.md sec. 12.1).

Each MoE layer sends every token's hidden state to the GPUs holding its top-k experts and the
experts' outputs back: a *dispatch* and a *combine* all-to-all (GShard, arXiv 2006.16668 sec.
2.2; DeepSpeed-MoE, arXiv 2201.05596 sec. 5). Backward runs the transposed all-to-all of each
(DeepSpeed's ``_AllToAll.backward`` is another all-to-all, deepspeed/moe/sharded_moe.py), and
activation checkpointing re-runs the forward's two. A GPU holding ``tokens`` sends
tokens x top-k x hidden x element bytes per all-to-all, (ep-1)/ep of it to other GPUs.

Neither Megatron-Core nor DeepSpeed-MoE overlaps these with compute by default: DeepSpeed calls
``all_to_all_single`` synchronously inside the layer; Megatron-Core's
``overlap_moe_expert_parallel_comm`` ("Overlap EP A2A communications with independent
computations of different micro-batches", megatron/core/model_parallel_config.py) defaults to
False and came in v0.14 (megatron/core/transformer/moe/README.md). So the time adds to the
compute, as Megatron's tensor-parallel all-reduces do (:func:`.scaling.model_parallel_step`).

Time over the link, nccl-tests' convention (src/alltoall.cu: busbw = algbw x (n-1)/n): an
all-to-all of S bytes per GPU takes S x (n-1)/n / busbw. An EP group inside one node uses the
node's GPU link. Across nodes each GPU's share for the other nodes' GPUs leaves through the
node's network ports, which all the node's GPUs use at once: the slower of the two parts sets
the time. The all-to-all is taken to reach the same share of a link as an all-reduce (an
assumption: no all-to-all measurement is kept).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.planning.workload import ResolvedModel, Workload

if TYPE_CHECKING:
    from torchrig.planning.links import Link
    from torchrig.planning.presets import TransformerArch

A2A_PER_MOE_LAYER = 2
"""Dispatch and combine (GShard sec. 2.2)."""


def ep_group(w: Workload) -> int:
    """GPUs of one expert-parallel group (1 without expert parallelism)."""
    return w.ep_size if w.strategy == "expert_parallel" else 1


def passes(w: Workload) -> int:
    """Times the MoE layers' all-to-all pair runs per micro-batch: forward; in training also
    backward, and the forward again when activations are checkpointed (recomputed)."""
    if not w.is_training:
        return 1
    return 3 if w.gradient_checkpointing else 2


def element_bytes(w: Workload) -> float:
    """Bytes of one activation element sent (16-bit, 4 under fp32/tf32)."""
    return 4.0 if w.precision in ("fp32", "tf32") else 2.0


def all_to_all_payload(w: Workload, arch: TransformerArch, tokens: float) -> float:
    """Bytes one all-to-all holds on a GPU with ``tokens`` tokens: each goes to its top-k
    experts (tokens x k x hidden x element), (ep-1)/ep of it to other GPUs."""
    return tokens * arch.active_experts * arch.hidden * element_bytes(w)


def tokens_per_gpu(w: Workload, model: ResolvedModel) -> float:
    """Tokens one GPU holds: its micro-batch in training; in serving the group's batch is
    spread over its e GPUs (:mod:`.serving_time`)."""
    tokens = w.batch_size * (model.seq_len or 1)
    return tokens if w.is_training else tokens / ep_group(w)


def bytes_per_micro_batch(w: Workload, model: ResolvedModel) -> float:
    """Bytes one GPU sends to other GPUs per micro-batch (training) or per forward of the batch
    (inference): 2 x passes x MoE layers x payload x (ep-1)/ep."""
    arch, e = model.arch, ep_group(w)
    if arch is None or e <= 1:
        return 0.0
    tokens = tokens_per_gpu(w, model)
    return (A2A_PER_MOE_LAYER * passes(w) * arch.moe_layers
            * all_to_all_payload(w, arch, tokens) * (e - 1) / e)


def all_to_all_seconds(payload: float, e: int, gpus_per_node: int, intra: Link,
                       inter: Link | None, nics_per_node: int) -> float:
    """One all-to-all of ``payload`` bytes per GPU over an EP group of ``e`` GPUs.

    Inside a node: payload x (e-1)/e / busbw + latency. Across nodes (the group takes whole
    nodes, min(e, GPUs per node) of it in each): the in-node peers' share over the GPU link and
    the other nodes' share, payload x (e - in-node)/e from every GPU of the node, through its
    ``nics_per_node`` ports; the slower part, plus the larger latency."""
    if e <= 1:
        return 0.0
    in_node = min(e, gpus_per_node)
    local = payload * (in_node - 1) / e / intra.busbw_bps
    if in_node == e:
        return local + intra.latency_s
    if inter is None:
        from torchrig.errors import InputError

        raise InputError(f"an expert-parallel group of {e} GPUs spans nodes of "
                         f"{gpus_per_node}: give the inter-node link")
    remote = (payload * (e - in_node) / e * gpus_per_node
              / (max(1, nics_per_node) * inter.busbw_bps))
    return max(local, remote) + max(intra.latency_s, inter.latency_s)


def micro_batch_seconds(w: Workload, model: ResolvedModel, intra: Link, inter: Link | None,
                        nics_per_node: int) -> float:
    """Seconds of all-to-all in one training micro-batch on one GPU (the passes wait for it)."""
    arch, e = model.arch, ep_group(w)
    if arch is None or e <= 1:
        return 0.0
    payload = all_to_all_payload(w, arch, w.batch_size * (model.seq_len or 1))
    one = all_to_all_seconds(payload, e, w.gpus_per_node, intra, inter, nics_per_node)
    return A2A_PER_MOE_LAYER * passes(w) * arch.moe_layers * one
