"""A collective benchmark's link in the plan (issue 24; docs/estimation.md sec. 6.3): the
scaling efficiency uses the all-reduce busbw measured at the size nearest the workload's
gradient message (no interpolation), inside a node for a one-node report, between nodes
otherwise.

Hand figures. ResNet-50 has 25,557,032 parameters (torchvision). Under AMP, DDP all-reduces
fp32 gradients: 102,228,128 B, in 25 MiB buckets; ZeRO-2 reduces 16-bit ones: 51,114,064 B,
in buckets of 10^9 B (DeepSpeed reduce_bucket_size 5e8 elements x 2 B), so one message of
51,114,064 B = 48.7 MiB. The report (tests/collective_fixture.py) measured all-reduce busbw
5 GB/s at 4 MiB, 20 GB/s at 32 MiB, 24 GB/s at 256 MiB, and 20 us at 1 KiB (its latency).
Nearest by ratio: to 25 MiB, 32/25 = 1.28 beats 25/4 = 6.25; to 48.7 MiB, 48.7/32 = 1.52 beats
256/48.7 = 5.25. Both take the 32 MiB row: B = 20 GB/s, not the 24 GB/s at the largest size.
"""

from __future__ import annotations

import pytest

from collective_fixture import LATENCY_S, collective_report
from torchrig.catalog import load_catalog
from torchrig.planning.device import device_spec
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.measured_network import plan_link
from torchrig.planning.workload import default_workload

MiB = 1024**2
ROWS = {4 * MiB: 5e9, 32 * MiB: 20e9, 256 * MiB: 24e9}
ZERO2_GRADS = 25_557_032 * 2


@pytest.fixture(scope="module")
def rtx4090():
    return device_spec(load_catalog().get("nvidia-rtx-4090"))


def _resnet(**changes):
    w = default_workload("image_classification")
    doc = {**w.to_dict(), **changes}
    return type(w).from_dict(doc, where="test")


def test_the_size_nearest_the_bucket_is_taken_not_the_largest(rtx4090):
    w = _resnet(gpus_per_node=8)
    link = plan_link(collective_report(ROWS), w)
    assert link.busbw_bps == pytest.approx(20e9, rel=1e-9)  # the 32 MiB row, exactly
    assert link.latency_s == pytest.approx(LATENCY_S, rel=1e-9)
    assert link.scope == "intra"
    assert "busbw 20.0 GB/s at 32 MiB" in link.name and "inside one node" in link.name
    assert "2026-12-01 on node0" in link.name
    req = plan(w, rtx4090, link)
    assert req.device.intra_link is link
    assert req.throughput["scaling_efficiency"].note.en.startswith(
        "scaling model over the measured link (collective benchmark of 2026-12-01 on node0")
    # Without the report the catalog's PCIe 4.0 x16 is still the link.
    assert plan(w, rtx4090).device.intra_link.name == "PCIe 4.0 x16"


def test_zero2_sync_time_and_efficiency_follow_the_measured_busbw(rtx4090):
    w = _resnet(gpus_per_node=8, strategy="zero2")
    req = plan(w, rtx4090, plan_link(collective_report(ROWS), w))
    compute = req.throughput["step_time_s"].value  # one GPU's step: what the link is weighed by
    # ZeRO-2: reduce-scatter + all-gather = an all-reduce, not overlapped, one 10^9 B piece,
    # latency twice: 2 (8 - 1) / 8 = 1.75 x 51,114,064 B / 20e9 B/s = 4.4725 ms, + 2 x 20 us.
    comm = 1.75 * ZERO2_GRADS / 20e9 + 2 * 20e-6
    assert comm == pytest.approx(4.5125e-3, rel=1e-4)
    eff = req.throughput["scaling_efficiency"]
    assert eff.value == pytest.approx(compute / (compute + comm), rel=1e-6)
    assert f"{comm * 1e3:.1f} ms of gradient traffic" in eff.note.en


def test_a_report_over_two_nodes_replaces_the_network(rtx4090):
    """16 ranks on 2 nodes, 10 GB/s at 32 MiB: the ring's busbw, ports included, so it counts
    as one port (the workload's 8 NDR ports are replaced); inside each node PCIe 4.0 x16 stays.
    busbw = min(PCIe 4 31.5e9 x 0.8 = 25.2e9, 1 x 10e9) = 10e9; latency max(10 us, 20 us).
    ZeRO-2: 2 (16 - 1) / 16 = 1.875 x 51,114,064 / 10e9 = 9.5839 ms + 2 x 20 us."""
    w = _resnet(gpus_per_node=8, nodes=2, strategy="zero2", network="ib_ndr", nics_per_node=8)
    rows = {4 * MiB: 2e9, 32 * MiB: 10e9, 256 * MiB: 12e9}
    link = plan_link(collective_report(rows, world=16, nnodes=2), w)
    assert link.scope == "inter" and "16 ranks between 2 nodes" in link.name
    assert "on node0, node1" in link.name
    req = plan(w, rtx4090, link)
    assert req.device.inter_link is link and req.device.nics_per_node == 1
    assert req.device.intra_link.name == "PCIe 4.0 x16"
    compute = req.throughput["step_time_s"].value
    comm = 1.875 * ZERO2_GRADS / 10e9 + 2 * 20e-6
    assert req.throughput["scaling_efficiency"].value == pytest.approx(
        compute / (compute + comm), rel=1e-6)
    # The catalog NDR x 8 would give min(25.2e9, 8 x 40e9) = 25.2e9: a higher efficiency.
    assert plan(w, rtx4090).throughput["scaling_efficiency"].value > \
        req.throughput["scaling_efficiency"].value


def test_the_charts_measured_curve_agrees_with_the_plan(rtx4090):
    # The Wizard's and the PDF's "measured" curve reads the same 32 MiB row as the plan (it read
    # the 24 GB/s at the largest size before), so at the workload's 8 GPUs the curve's
    # efficiency is the plan's.
    from torchrig.planning.scaling_series import scaling_series

    w = _resnet(gpus_per_node=8)
    report = collective_report(ROWS)
    req = plan(w, rtx4090, plan_link(report, w))
    measured = next(s for s in scaling_series(w, req, collective_report=report)
                    if s.kind == "measured")
    at_8 = next(p for p in measured.points if p.gpus == 8)
    assert at_8.efficiency == pytest.approx(req.throughput["scaling_efficiency"].value,
                                            rel=1e-9)
