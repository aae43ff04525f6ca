"""The data-parallel scaling model's branches with hand-computed figures (mutation testing,
issue 28). Formulas: docs/estimation.md sec. 6 and scaling.py's docstring - ring all-reduce
2(n-1)/n x bytes / busbw (nccl-tests' bus factor), 25 MiB DDP buckets, the backward window
(2/3 of compute, 3/4 with checkpointing), ZeRO-3's three (n-1)/n collectives.

Links here are made up for round numbers (bandwidth x fraction = busbw), so each expected value
is a few lines of arithmetic written next to it.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from torchrig.errors import InputError
from torchrig.planning.links import LINKS, Link
from torchrig.planning.requirements.scaling import (
    BACKWARD_SHARE,
    BACKWARD_SHARE_CHECKPOINTED,
    DDP_BUCKET_BYTES,
    allreduce_time,
    effective_busbw,
    interconnect_for_target,
    measured_link,
    scaling_curve,
    step_time,
)
from torchrig.planning.workload import default_workload

MiB = 1024**2


def _link(busbw: float, latency: float = 0.0, scope: str = "intra",
          max_gpus: int | None = None, lid: str = "x") -> Link:
    # fraction 0.5 on twice the bandwidth: busbw must be bandwidth x fraction, not either alone.
    return Link(lid, lid, 2 * busbw, 0.5, latency, scope, "test", "test", max_gpus)


def test_constants_are_the_documented_ones():
    assert DDP_BUCKET_BYTES == 25 * 1024 * 1024  # DDP's bucket_cap_mb = 25
    assert abs(BACKWARD_SHARE - 2 / 3) < 1e-12
    assert abs(BACKWARD_SHARE_CHECKPOINTED - 3 / 4) < 1e-12


# --------------------------------------------------------------------------- all-reduce


def test_allreduce_time_ring_factor_and_latency_per_bucket():
    # 2 x 3/4 = 1.5; 1.5 x 8e9 B / 100e9 B/s = 0.12 s; + 3 buckets x 10 us = 0.12003 s
    assert allreduce_time(8e9, 4, 100e9, 1e-5, 3) == pytest.approx(0.12003)
    # 2 GPUs: 2 x 1/2 = 1; 1 x 8e9 / 100e9 = 0.08 s, one bucket's latency by default
    assert allreduce_time(8e9, 2, 100e9, 1e-5) == pytest.approx(0.08001)
    assert allreduce_time(8e9, 1, 100e9, 1e-5, 3) == 0.0  # nothing to reduce on one GPU


# --------------------------------------------------------------------------- bus bandwidth


def test_effective_busbw_inside_one_node_is_the_intra_link():
    intra = _link(100e9)
    assert effective_busbw(8, 8, intra) == pytest.approx(100e9)
    assert effective_busbw(8, 8, intra, _link(10e9, scope="inter")) == pytest.approx(100e9)


def test_effective_busbw_across_nodes_is_capped_by_the_nics():
    intra, net = _link(100e9), _link(10e9, scope="inter")
    # 16 GPUs over 8-GPU nodes: min(100e9, 1 NIC x 10e9) = 10e9; 4 NICs -> 40e9; 20 -> 100e9
    assert effective_busbw(16, 8, intra, net) == pytest.approx(10e9)
    assert effective_busbw(16, 8, intra, net, nics_per_node=4) == pytest.approx(40e9)
    assert effective_busbw(16, 8, intra, net, nics_per_node=20) == pytest.approx(100e9)


def test_effective_busbw_across_nodes_needs_the_network():
    with pytest.raises(InputError, match="16 GPUs span several nodes: give the inter-node link"):
        effective_busbw(16, 8, _link(100e9))
    # exactly one node's worth needs no network
    assert effective_busbw(8, 8, _link(100e9)) == pytest.approx(100e9)


# --------------------------------------------------------------------------- one step, DDP


def test_ddp_communication_hidden_behind_backward_leaves_the_last_bucket():
    # 100 MiB of gradients = buckets of 1 (DDP's first), 25, 25, 25 and 24 MiB; 8 GPUs: factor
    # 2 x 7/8 = 1.75; busbw 100e9; no latency. comm = 1.75 x 104,857,600 / 1e11 = 0.001835008 s;
    # backward (2/3 s) hides all but the last bucket: 1.75 x 25,165,824 / 1e11 = 0.00044040192 s.
    t, comm = step_time(1.0, 100 * MiB, 8, 100e9, 0.0)
    assert comm == pytest.approx(0.001835008)
    assert t == pytest.approx(1.0 + 0.00044040192)


def test_ddp_communication_longer_than_the_window_is_exposed():
    # compute 1.5 ms: forward 0.5 ms, backward 1.0 ms producing 100 MiB evenly. The 1 MiB
    # bucket is ready at 0.51 ms and done at 0.528 ms; the first 25 MiB bucket is ready at
    # 0.5 + 1.0 x 26/100 = 0.76 ms, and from there the link never idles (each 25 MiB bucket
    # takes 0.458752 ms, arriving every 0.25 ms): the step ends at 0.76 ms + the remaining
    # 99 MiB: 0.76e-3 + 1.75 x 99 x 1,048,576 / 1e11 = 2.57665792 ms.
    t, _ = step_time(0.0015, 100 * MiB, 8, 100e9, 0.0)
    assert t == pytest.approx(0.76e-3 + 1.75 * 99 * MiB / 1e11)
    # checkpointing: forward 0.375 ms, backward 1.125 ms: 0.375 + 1.125 x 0.26 = 0.6675 ms
    t, _ = step_time(0.0015, 100 * MiB, 8, 100e9, 0.0, checkpointing=True)
    assert t == pytest.approx(0.6675e-3 + 1.75 * 99 * MiB / 1e11)


def test_ddp_latency_counts_once_per_bucket():
    # 5 buckets x 0.1 ms = 0.5 ms on top of 1.835008 ms; the last bucket pays one latency.
    t, comm = step_time(1.0, 100 * MiB, 8, 100e9, 1e-4)
    assert comm == pytest.approx(0.001835008 + 5e-4)
    assert t == pytest.approx(1.0 + 0.00044040192 + 1e-4)
    # 101 MiB is exactly 1 + 4 x 25 MiB: 5 buckets; one byte more makes a 6th
    _, comm = step_time(1.0, 101 * MiB, 8, 100e9, 1e-4)
    assert comm == pytest.approx(1.75 * 101 * MiB / 1e11 + 5e-4)
    _, comm = step_time(1.0, 101 * MiB + 1, 8, 100e9, 1e-4)
    assert comm == pytest.approx(1.75 * (101 * MiB + 1) / 1e11 + 6e-4)


def test_ddp_small_gradients_are_one_bucket_of_their_own_size():
    # 1 MiB < 25 MiB: the "last bucket" is the whole 1 MiB: 1.75 x 1,048,576 / 1e11
    t, comm = step_time(1.0, 1 * MiB, 8, 100e9, 0.0)
    assert comm == pytest.approx(1.75 * MiB / 1e11)
    assert t == pytest.approx(1.0 + 1.75 * MiB / 1e11)


def test_one_gpu_step_is_the_compute():
    assert step_time(0.5, 100 * MiB, 1, 100e9, 1e-4) == (0.5, 0.0)
    assert step_time(0.5, 100 * MiB, 1, 100e9, 1e-4, strategy="zero3") == (0.5, 0.0)


# --------------------------------------------------------------------------- one step, ZeRO-3


def test_zero3_three_collectives_and_per_layer_latency():
    # 1e9 B of 16-bit weights, 4 GPUs, 10 layers: each collective moves 3/4 x 1e8 B in
    # 0.75 ms + 10 us = 0.76 ms; 30 of them (gather in forward, gather + reduce-scatter in
    # backward) = 0.0228 s. Prefetch hides them behind a 1 s step but three: the first forward
    # gather, the first backward gather (issued when forward ends) and the last reduce-scatter.
    t, comm = step_time(1.0, 1e9, 4, 100e9, 1e-5, strategy="zero3", layers=10)
    assert comm == pytest.approx(0.0228)
    assert t == pytest.approx(1.0 + 3 * 0.00076)
    # compute 10 ms: the link is the bottleneck; forward waits on each gather (10 x 0.76 ms) and
    # computes its last unit (10/3/10 ms) before backward's first gather; then the link runs
    # the other 20 collectives back to back: 30 x 0.76 ms + 0.3333 ms.
    t, _ = step_time(0.01, 1e9, 4, 100e9, 1e-5, strategy="zero3", layers=10)
    assert t == pytest.approx(30 * 0.00076 + 0.01 / 3 / 10)


def test_zero3_without_layers_counts_one_piece():
    # layers None (not a transformer): 3 latencies, first piece = all of it
    t, comm = step_time(1.0, 1e9, 4, 100e9, 1e-5, strategy="zero3")
    assert comm == pytest.approx(0.0225 + 3e-5)
    assert t == pytest.approx(1.0 + 0.0225 + 3e-5)
    t0, _ = step_time(1.0, 1e9, 4, 100e9, 1e-5, strategy="zero3", layers=0)
    assert t0 == pytest.approx(t)


# --------------------------------------------------------------------------- the curve


def test_scaling_curve_points_and_efficiency():
    w = dataclasses.replace(default_workload("image_classification"), batch_size=32)
    intra = _link(100e9, latency=0.0)
    compute = 0.1
    points = scaling_curve(w, compute, intra, [1, 4], gpus_per_node=8)
    assert [p.gpus for p in points] == [1, 4]
    one, four = points
    assert (one.efficiency, one.step_time_s, one.comm_time_s) == (1.0, 0.1, 0.0)
    assert one.samples_per_s == pytest.approx(32 / 0.1)
    # four GPUs: the gradients are ResNet-50's fp32 ones (102,228,128 B = 1 MiB + 3 x 25 MiB +
    # 22,536,352 B); comm hides behind 2/3 of 0.1 s and only the last bucket is exposed:
    # 2 x 3/4 x 22,536,352 / 1e11 = 0.00033804528 s
    last = 1.5 * 22_536_352 / 1e11
    assert four.step_time_s == pytest.approx(0.1 + last)
    assert four.efficiency == pytest.approx(0.1 / (0.1 + last))
    assert four.samples_per_s == pytest.approx(4 * 32 / (0.1 + last))
    assert four.to_dict() == {"gpus": 4, "efficiency": four.efficiency,
                              "samples_per_s": four.samples_per_s,
                              "step_time_s": four.step_time_s, "comm_time_s": four.comm_time_s}


def test_scaling_curve_across_nodes_uses_the_slower_latency():
    w = default_workload("image_classification")
    intra = _link(100e9, latency=1e-5)
    net = _link(100e9, latency=1e-3, scope="inter")
    one_node, = scaling_curve(w, 1.0, intra, [8], 8, net)
    two_nodes, = scaling_curve(w, 1.0, intra, [16], 8, net)
    # Same busbw on both links; what differs is the latency: the last bucket pays 10 us inside
    # one node, 1 ms across nodes (max of the two links').
    # ResNet-50's last bucket: 102,228,128 - 1 MiB - 3 x 25 MiB = 22,536,352 B
    assert DDP_BUCKET_BYTES == 26_214_400
    last_8 = 2 * 7 / 8 * 22_536_352 / 1e11 + 1e-5
    last_16 = 2 * 15 / 16 * 22_536_352 / 1e11 + 1e-3
    assert one_node.step_time_s == pytest.approx(1.0 + last_8)
    assert two_nodes.step_time_s == pytest.approx(1.0 + last_16)


def test_scaling_curve_rejects_bad_counts_and_small_bridges():
    w = default_workload("image_classification")
    with pytest.raises(InputError, match="GPU count must be at least 1, got 0"):
        scaling_curve(w, 1.0, _link(1e9), [0], 8)
    bridge = _link(1e9, max_gpus=2, lid="bridge")
    assert len(scaling_curve(w, 1.0, bridge, [2], 8)) == 1  # 2 GPUs on a 2-way bridge: fine
    with pytest.raises(InputError, match="bridge connects at most 2 GPUs"):
        scaling_curve(w, 1.0, bridge, [3], 8)
    # Across nodes the bridge links only the GPUs of one node: 2 per node is fine.
    net = _link(1e9, scope="inter")
    assert len(scaling_curve(w, 1.0, bridge, [4], 2, net)) == 1


def test_scaling_curve_step_time_must_be_positive():
    w = default_workload("image_classification")
    with pytest.raises(InputError, match="step time must be positive, got 0.0"):
        scaling_curve(w, 0.0, _link(1e9), [2], 8)


def test_scaling_curve_zero3_communicates_the_16bit_weights():
    # ZeRO-3 full fine-tune of Llama-2-7B (6,738,415,616 parameters, bf16 AMP): 2 B each.
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="zero3")
    point, = scaling_curve(w, 10.0, _link(100e9), [8], 8)
    # 3 x 7/8 x 2 x 6,738,415,616 / 1e11 = 0.353766819... s, no latency
    assert point.comm_time_s == pytest.approx(3 * 7 / 8 * 2 * 6_738_415_616 / 1e11)
    fp32 = dataclasses.replace(w, precision="fp32")
    point32, = scaling_curve(fp32, 10.0, _link(100e9), [8], 8)
    assert point32.comm_time_s == pytest.approx(2 * point.comm_time_s)  # 4 B instead of 2


# --------------------------------------------------------------------------- link choice


def test_interconnect_for_target_checks_the_target():
    w = default_workload("image_classification")
    for bad in (0.0, -0.1, 1.01):
        with pytest.raises(InputError, match="target efficiency must be in"):
            interconnect_for_target(w, 1.0, 8, 8, bad)


def test_interconnect_for_target_picks_the_slowest_link_that_is_enough():
    # ResNet-50 fp32 gradients are 25,557,032 x 4 = 102,228,128 B. A 1 s step on 8 GPUs hides
    # all but the last 25 MiB bucket: even PCIe 3 (busbw 12.6e9) gives
    # 1 / (1 + 1.75 x 26,214,400 / 12.6e9 + 10 us) = 99.6 %: the slowest intra link wins.
    w = default_workload("image_classification")
    assert interconnect_for_target(w, 1.0, 8, 8, 0.9).id == "pcie3_x16"
    # A 10 ms step: forward 3.33 ms, backward 6.67 ms; buckets 1 MiB, 3 x 25 MiB, 22,536,352 B,
    # ready at 3.33 + 6.67 x (bytes so far / 102,228,128): 3.40, 5.11, 6.82, 8.53, 10.0 ms.
    #   PCIe 4 (busbw 25.2e9; 25 MiB: 1.75 x 26,214,400 / 25.2e9 + 10 us = 1.830 ms, last
    #   1.575 ms): 5.11 + 3 x 1.830 (the link never idles after the second bucket) = 10.60,
    #   + 1.575 = 12.18 ms: 10 / 12.18 = 82.1 %.
    #   PCIe 5 (50.4e9; 0.920 ms, last 0.793 ms): the third and fourth wait for their
    #   gradients (ends 6.03, 7.74, 9.45); the last ends at 10.0 + 0.793: 10 / 10.79 = 92.7 %.
    assert interconnect_for_target(w, 0.01, 8, 8, 0.9).id == "pcie5_x16"
    assert interconnect_for_target(w, 0.01, 8, 8, 0.8).id == "pcie4_x16"
    # 1 ms steps cannot reach 99 % on any listed link: None.
    assert interconnect_for_target(w, 0.001, 8, 8, 0.99) is None


def test_interconnect_for_target_across_nodes_picks_a_network():
    w = default_workload("image_classification")
    got = interconnect_for_target(w, 1.0, 16, 8, 0.9)
    assert got is not None and got.scope == "inter"
    assert got.id == "eth_10g"  # the slowest network, enough for a 1 s step
    # Across nodes only networks are candidates, whatever links the GPUs inside a node.
    assert interconnect_for_target(w, 1.0, 16, 8, 0.9, intra_link=LINKS["nvlink4"]).id == \
        "eth_10g"


# --------------------------------------------------------------------------- measured link


def _report(busbw: float, nnodes: int | None = 1, world: int = 8, op: str = "all_reduce"):
    summary = SimpleNamespace(busbw_at_largest=busbw, latency_s=3e-5, largest_bytes=1 << 30)
    transport = SimpleNamespace(world_size=world, nnodes=nnodes)
    return SimpleNamespace(summary={op: summary}, transport=transport)


def test_measured_link_takes_the_measured_busbw_and_latency():
    link = measured_link(_report(123e9))
    assert (link.busbw_bps, link.latency_s, link.scope) == (123e9, 3e-5, "intra")
    assert link.id == "measured" and link.name == "measured (8 ranks)"
    assert link.source == "collective benchmark: all-reduce busbw at 1073741824 B"
    assert link.fraction_basis == "measured" and link.achievable_fraction == 1.0
    inter = measured_link(_report(20e9, nnodes=2, world=16))
    assert inter.scope == "inter" and inter.name == "measured (16 ranks)"
    based = measured_link(_report(20e9), base=LINKS["ib_ndr"])
    assert based.id == "measured_ib_ndr" and based.scope == "inter"
    assert measured_link(_report(20e9, nnodes=None)).scope == "intra"


def test_measured_link_refuses_missing_or_empty_results():
    with pytest.raises(InputError, match="collective report has no all_reduce results"):
        measured_link(_report(1e9, op="all_gather"))
    with pytest.raises(InputError, match="busbw at the largest size is not positive"):
        measured_link(_report(0.0))


# --------------------------------------------------------------------------- second round


def test_two_gpus_communicate():
    # 2 GPUs: factor 2 x 1/2 = 1; 1 MiB / 1e11 = 10.48576 us plus one 1 ms latency
    t, comm = step_time(1.0, 1 * MiB, 2, 100e9, 1e-3)
    assert comm == pytest.approx(MiB / 1e11 + 1e-3)  # a 1 MiB payload is one bucket
    assert t == pytest.approx(1.0 + MiB / 1e11 + 1e-3)


def test_scaling_curve_zero3_first_layer_share_and_tf32():
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="zero3")
    point, = scaling_curve(w, 10.0, _link(100e9), [8], 8)
    comm = 3 * 7 / 8 * 2 * 6_738_415_616 / 1e11
    # hidden behind 10 s of compute but for the first of Llama-2-7B's 32 layers
    assert point.step_time_s == pytest.approx(10.0 + comm / 32)
    tf32 = dataclasses.replace(w, precision="tf32")
    assert scaling_curve(tf32, 10.0, _link(100e9), [8], 8)[0].comm_time_s == \
        pytest.approx(2 * comm)  # 4 B weights


def test_scaling_curve_passes_checkpointing_and_nics():
    w = dataclasses.replace(default_workload("image_classification"), gradient_checkpointing=True)
    grads = 25_557_032 * 4  # ResNet-50 fp32 gradients
    comm = 1.75 * grads / 1e9  # 8 GPUs over a 1e9 B/s link: 0.1789 s
    # compute 0.1 s, checkpointed: forward 0.025 s, backward 0.075 s (2/3 would start it at
    # 0.0333). The second bucket is ready at 0.025 + 0.075 x (1 MiB + 25 MiB) / grads, and the
    # link is busy from then on with everything but the first 1 MiB bucket.
    point, = scaling_curve(w, 0.1, _link(1e9), [8], 8)
    second = 0.025 + 0.075 * 26 * 1024 * 1024 / grads
    assert point.step_time_s == pytest.approx(second + comm - 1.75 * 1024 * 1024 / 1e9)
    # 16 GPUs over 2 nodes, network 1e9 B/s per NIC, 4 NICs: busbw min(100e9, 4e9) = 4e9
    net = _link(1e9, scope="inter")
    point, = scaling_curve(w, 10.0, _link(100e9), [16], 8, net, nics_per_node=4)
    assert point.comm_time_s == pytest.approx(2 * 15 / 16 * grads / 4e9)


def test_interconnect_for_target_accepts_a_target_of_one():
    w = default_workload("image_classification")
    # one GPU: no communication, efficiency exactly 1.0 >= 1.0: the slowest link is enough
    assert interconnect_for_target(w, 1.0, 1, 8, 1.0).id == "pcie3_x16"


def test_interconnect_for_target_a_two_way_bridge_serves_two_gpus():
    # 2 GPUs, 10 ms steps of ResNet-50 (102,228,128 B, 4 buckets), window 6.67 ms; exposed is
    # the last bucket (26,214,400 B x factor 1) once the rest hides:
    #   PCIe 4 (25.2e9):   comm 4.10 ms hidden, last 1.040 + 0.01 ms -> 10 / 11.05 = 90.5 %
    #   bridge (43.875e9): comm 2.37 ms hidden, last 0.597 + 0.01 ms -> 10 / 10.61 = 94.3 %
    w = default_workload("image_classification")
    assert interconnect_for_target(w, 0.01, 2, 8, 0.93).id == "nvlink3_ga102"


def test_interconnect_for_target_counts_the_nics():
    # 16 GPUs (2 nodes x 8, NVLink 4 inside), 1 s steps: exposed is the last bucket,
    # 1.875 x 26,214,400 / busbw + 50 us.
    #   10 GbE x 1 NIC (1e9):  49.2 ms -> 95.3 %;  x 4 NICs (4e9): 12.3 ms -> 98.8 %
    #   25 GbE x 1 NIC (2.5e9): 19.7 ms -> 98.1 %
    w = default_workload("image_classification")
    assert interconnect_for_target(w, 1.0, 16, 8, 0.97).id == "eth_25g"
    assert interconnect_for_target(w, 1.0, 16, 8, 0.97, nics_per_node=4).id == "eth_10g"


def test_measured_link_details():
    assert measured_link(_report(0.5)).busbw_bps == 0.5  # small but positive is accepted
    no_nodes = SimpleNamespace(summary=_report(1e9).summary,
                               transport=SimpleNamespace(world_size=4))
    assert measured_link(no_nodes).scope == "intra"  # no nnodes: one node
    with pytest.raises(InputError,
                       match="^collective report: busbw at the largest size is not positive$"):
        measured_link(_report(-1.0))


def test_a_plan_without_step_time_is_refused():
    w = default_workload("image_classification")
    req = SimpleNamespace(throughput={"step_time_s": SimpleNamespace(value=None)})
    with pytest.raises(InputError, match="^no step time: plan with a GPU, or give the step time "
                                         "in seconds$"):
        scaling_curve(w, req, _link(1e9), [2], 8)
    req = SimpleNamespace(throughput={"step_time_s": SimpleNamespace(value=0.5)})
    assert scaling_curve(w, req, _link(1e9), [1], 8)[0].step_time_s == 0.5
