"""Scaling model: published vectors and efficiencies, with the tolerance stated in scaling.py.

Tolerance: the model counts communication only, so it is an upper bound; for the published
communication-limited cases it must land 0-10 percentage points above the measurement.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from torchrig.errors import InputError
from torchrig.planning.device import DeviceSpec
from torchrig.planning.links import LINKS
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.scaling import (
    allreduce_time,
    interconnect_for_target,
    measured_link,
    scaling_curve,
)
from torchrig.planning.workload import default_workload, workload_from_options
from torchrig.units import GiB

TOLERANCE_POINTS = 0.10


def test_bert_large_allreduce_vector():
    # docs/estimation.md sec. 6: 1.34 GB of gradients, 8 GPUs: 10.2 ms at 230 GB/s, 117 ms at 20.
    assert allreduce_time(1.34e9, 8, 230e9) * 1e3 == pytest.approx(10.2, abs=0.05)
    assert allreduce_time(1.34e9, 8, 20e9) * 1e3 == pytest.approx(117, abs=0.5)


def test_nccl_tests_busbw_convention():
    # nccl-tests: 1 GiB all-reduce on 8 ranks in 10 ms -> algbw 107.37 GB/s, busbw 187.90 GB/s;
    # the model's time at that busbw must give the 10 ms back.
    algbw = GiB / 0.010
    assert algbw / 1e9 == pytest.approx(107.37, abs=0.01)
    busbw = algbw * 2 * 7 / 8
    assert busbw / 1e9 == pytest.approx(187.90, abs=0.01)
    assert allreduce_time(GiB, 8, busbw) == pytest.approx(0.010)


def test_link_table_uses_the_measured_nvlink_fractions():
    assert LINKS["nvlink3"].busbw_bps == pytest.approx(235e9, rel=0.01)
    assert LINKS["nvlink4"].busbw_bps == pytest.approx(368e9, rel=0.01)
    assert LINKS["pcie4_x16"].bandwidth_bps == 31.5e9
    assert LINKS["ib_ndr"].bandwidth_bps == 50e9
    for link in LINKS.values():
        assert link.source and link.fraction_basis


def _resnet50(precision: str) -> object:
    return workload_from_options(task="image_classification", precision=precision, batch=256)


@pytest.mark.parametrize("case,step_s,link,gpus,inter,nics,published", [
    # ResNet-50 DDP on V100 (AMP, 1200 img/s at batch 256, NVIDIA DLE). V100's NVLink 2 is not
    # in our link table: even PCIe 3, the slowest intra-node link, keeps the model at ~98%.
    ("r50-v100-8", 256 / 1200, "pcie3_x16", 8, None, 1, 0.93),
    ("r50-v100-16-4x100Gb", 256 / 1200, "pcie3_x16", 16, "eth_100g", 4, 0.93),
    # DGX A100, ResNet-50 TF32: 938 img/s on one GPU, 96.6% at 8 (NVIDIA DLE).
    ("r50-a100-tf32-8", 256 / 938, "nvlink3", 8, None, 1, 0.966),
])
def test_published_resnet50_efficiencies(case, step_s, link, gpus, inter, nics, published):
    w = _resnet50("tf32" if "tf32" in case else "amp_fp16")
    point = scaling_curve(w, step_s, LINKS[link], [gpus], 8,
                          LINKS[inter] if inter else None, nics)[0]
    assert published <= point.efficiency <= published + TOLERANCE_POINTS


def test_known_miss_dgx_a100_amp():
    """84.1% measured at 8 GPUs with AMP; the model gives ~99% because the loss is not
    communication (documented in scaling.py): the model stays an upper bound."""
    point = scaling_curve(_resnet50("amp_fp16"), 256 / 2470, LINKS["nvlink3"], [8], 8)[0]
    assert point.efficiency > 0.841 + TOLERANCE_POINTS


def test_bert_one_node_and_two_nodes():
    """pytorch/pytorch#17159: HF BERT, 122 samples/s on one GPU, 90% at 8 GPUs on one node,
    66% at 2 nodes x 8. Assumed (not in the source): BERT-base fp32 gradients, batch 32."""
    w = workload_from_options(task="nlp_transformer", precision="fp32", batch=32, gpus=8)
    step = 32 / 122
    one_node = scaling_curve(w, step, LINKS["nvlink3"], [8], 8)[0]
    assert 0.90 <= one_node.efficiency <= 0.90 + TOLERANCE_POINTS
    two = {inter: scaling_curve(w, step, LINKS["nvlink3"], [16], 8, LINKS[inter])[0].efficiency
           for inter in ("eth_10g", "eth_25g", "eth_100g")}
    assert two["eth_25g"] == pytest.approx(0.66, abs=0.05)
    assert two["eth_10g"] < 0.5 < 0.9 < two["eth_100g"]


def test_curve_shape_and_fields():
    w = workload_from_options(task="nlp_transformer", precision="fp32", batch=32, gpus=8)
    points = scaling_curve(w, 0.1, LINKS["pcie4_x16"], [1, 2, 4, 8], 8)
    assert points[0].efficiency == 1.0 and points[0].comm_time_s == 0
    effs = [p.efficiency for p in points]
    assert effs == sorted(effs, reverse=True)
    assert points[-1].samples_per_s == pytest.approx(8 * 32 / points[-1].step_time_s)
    assert set(points[1].to_dict()) == {"gpus", "efficiency", "samples_per_s", "step_time_s",
                                        "comm_time_s"}


def test_curve_from_a_plan():
    a100 = DeviceSpec("A100", 80 * GiB, {"bf16": 312e12, "fp16": 312e12}, 2039e9, True)
    w = default_workload("llm_finetune_full")
    req = plan(w, a100)
    points = scaling_curve(w, req, LINKS["nvlink3"], [8, 16], 8, LINKS["ib_hdr"], 8)
    assert 0 < points[1].efficiency <= points[0].efficiency <= 1
    with pytest.raises(InputError, match="no step time"):
        scaling_curve(w, plan(w), LINKS["nvlink3"], [8], 8)


def test_slowest_link_meeting_the_target():
    w = workload_from_options(task="nlp_transformer", precision="fp32", batch=32, gpus=8)
    step = 32 / 122
    assert interconnect_for_target(w, step, 8, 8).id == "pcie3_x16"
    assert interconnect_for_target(w, step, 16, 8, 0.8, LINKS["nvlink3"]).id == "eth_100g"
    # A tiny step cannot hide 438 MB of gradients on any listed network.
    assert interconnect_for_target(w, 1e-4, 16, 8, 0.99, LINKS["nvlink3"]) is None


def test_measured_busbw_replaces_the_catalog_figure():
    summary = SimpleNamespace(busbw_at_largest=20e9, latency_s=30e-6, largest_bytes=2**28)
    report = SimpleNamespace(summary={"all_reduce": summary},
                             transport=SimpleNamespace(world_size=8, nnodes=1))
    link = measured_link(report, LINKS["pcie4_x16"])
    assert link.busbw_bps == 20e9 and link.latency_s == 30e-6
    w = workload_from_options(task="nlp_transformer", model="bert-large", precision="fp32",
                              batch=8, gpus=8)
    slow = scaling_curve(w, 0.05, link, [8], 8)[0]
    fast = scaling_curve(w, 0.05, LINKS["nvlink3"], [8], 8)[0]
    # 1.34 GB at 20 GB/s (117 ms) + 30 us for each of the 54 25-MB buckets.
    assert slow.comm_time_s == pytest.approx(allreduce_time(1.3406e9, 8, 20e9, 30e-6, 54),
                                             rel=0.001)
    assert slow.efficiency < fast.efficiency


def test_link_limits_are_input_errors():
    w = default_workload("nlp_transformer")
    with pytest.raises(InputError, match="at most 2 GPUs"):
        scaling_curve(w, 0.1, LINKS["nvlink3_ga102"], [4], 4)
    with pytest.raises(InputError, match="inter-node link"):
        scaling_curve(w, 0.1, LINKS["nvlink3"], [16], 8)
    with pytest.raises(InputError, match="target efficiency"):
        interconnect_for_target(w, 0.1, 8, 8, 1.5)
