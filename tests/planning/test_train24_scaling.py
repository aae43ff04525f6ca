"""Data-parallel step time bucket by bucket, ZeRO-1/2 and ZeRO-3 / FSDP, against hand-simulated
timelines and NVIDIA DeepLearningExamples' multi-GPU table (issue 24).

Published (NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/README.md,
"Training performance", container 21.03, batch 256 except V100 FP32 112 - configs.yml):
DGX A100 (8x A100 80GB) TF32 938 -> 7248 img/s (96.6 %), AMP 2470 -> 16621 (84.1 %);
DGX-1 (8x V100 16GB) FP32 367 -> 2855 (97.2 %), AMP 1200 -> 8322 (86.7 %).
"""

from __future__ import annotations

import pytest

from torchrig.catalog.loader import load_catalog
from torchrig.planning.device import DeviceSpec, device_spec
from torchrig.planning.links import LINKS, Link
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.scaling import ddp_buckets, scaling_curve, step_time
from torchrig.planning.workload import workload_from_options
from torchrig.units import GiB

MiB = 1024 * 1024
RESNET50_FP32_GRADS = 25_557_032 * 4  # 102,228,128 B (torchvision resnet50 parameters)
TOLERANCE_POINTS = 0.10  # docs/estimation.md sec. 6: 0-10 points above a communication-bound case


def _link(busbw: float, latency: float = 0.0) -> Link:
    return Link("test", "test", busbw, 1.0, latency, "intra", "test", "test")


def test_ddp_buckets_start_with_ddps_1_mib_bucket():
    # reducer.hpp: kDefaultFirstBucketBytes = 1 MiB, then kDefaultBucketBytesCap = 25 MiB.
    # ResNet-50's fp32 gradients: 1 MiB + 3 x 25 MiB + 102,228,128 - 79,691,776 = 22,536,352 B.
    assert ddp_buckets(RESNET50_FP32_GRADS) == [MiB, 25 * MiB, 25 * MiB, 25 * MiB, 22_536_352]
    assert ddp_buckets(0.5 * MiB) == [0.5 * MiB]
    assert ddp_buckets(26 * MiB) == [MiB, 25 * MiB]
    assert ddp_buckets(0) == []
    assert ddp_buckets(1) == [1]


def test_a_bucket_waits_for_its_gradients_or_for_the_link():
    # 51 MiB = 1 + 25 + 25 MiB on 2 GPUs (factor 1); compute 3 ms = forward 1 ms + backward 2 ms,
    # gradients produced evenly over backward. Ready at 1 + 2 x (1, 26, 51) / 51 ms.
    # Fast link (25 MiB in 0.4 ms): each bucket waits for its gradients; only the last one,
    # ready at 3 ms, is exposed: 3.4 ms.
    fast = 25 * MiB / 0.4e-3
    t, comm = step_time(3e-3, 51 * MiB, 2, fast, 0.0)
    assert t == pytest.approx(3.4e-3)
    assert comm == pytest.approx(51 * MiB / fast)
    # Slow link (25 MiB in 1.5 ms): the second bucket starts when ready, 1 + 2 x 26/51 =
    # 2.0196 ms, and the third waits for the link (ready at 3 ms, the link is busy until
    # 3.5196 ms): 2.0196 + 2 x 1.5 = 5.0196 ms.
    slow = 25 * MiB / 1.5e-3
    t, _ = step_time(3e-3, 51 * MiB, 2, slow, 0.0)
    assert t == pytest.approx((1 + 2 * 26 / 51) * 1e-3 + 2 * 1.5e-3)


def test_with_accumulation_ddp_syncs_behind_the_last_micro_batch_only():
    # 4 micro-batches of 3 ms: the first 3 run under no_sync() (nothing to send), the last
    # is the one-micro-batch step above with its buckets - fast link: 3 x 3 + 3.4 = 12.4 ms,
    # slow link: 3 x 3 + 5.0196 ms. Letting the 51 MiB hide behind all 12 ms of backward
    # (what the planner did) would expose only the last bucket's 0.4 ms on either link.
    fast, slow = 25 * MiB / 0.4e-3, 25 * MiB / 1.5e-3
    t, comm = step_time(3e-3, 51 * MiB, 2, fast, 0.0, micro_batches=4)
    assert t == pytest.approx(3 * 3e-3 + 3.4e-3)
    assert comm == pytest.approx(51 * MiB / fast)  # one sync per optimizer step
    t, _ = step_time(3e-3, 51 * MiB, 2, slow, 0.0, micro_batches=4)
    assert t == pytest.approx(3 * 3e-3 + (1 + 2 * 26 / 51) * 1e-3 + 2 * 1.5e-3)
    # ZeRO-1/2: the compute of 4 micro-batches, then the one reduce-scatter + all-gather.
    t, comm = step_time(1.0, 2.5e9, 8, 100e9, 1e-5, strategy="zero1", micro_batches=4)
    assert t == pytest.approx(4.0 + 1.75 * 2.5e9 / 100e9 + 3 * 2 * 1e-5)
    # ZeRO-3 gathers the weights again for every micro-batch: 4 x the one-unit step above.
    t, comm = step_time(1.0, 1e9, 4, 100e9, 0.0, strategy="zero3", micro_batches=4)
    assert comm == pytest.approx(4 * 3 * 0.75 * 1e9 / 1e11)
    assert t == pytest.approx(4 * (1.0 + 3 * 0.75 * 1e9 / 1e11))


@pytest.mark.parametrize("strategy", ["zero1", "zero2"])
def test_zero1_and_2_communication_is_not_overlapped(strategy):
    # DeepSpeed's overlap_comm defaults to off below stage 3 (deepspeed/runtime/zero/config.py):
    # the reduce-scatter + all-gather (2(n-1)/n x G, as an all-reduce) adds to the step, in
    # reduce_bucket_size pieces (5e8 elements x 2 B = 1e9 B), each piece two collectives.
    # 2.5e9 B of 16-bit gradients, 8 GPUs, 100e9 B/s, 10 us: 3 pieces.
    t, comm = step_time(1.0, 2.5e9, 8, 100e9, 1e-5, strategy=strategy)
    assert comm == pytest.approx(1.75 * 2.5e9 / 100e9 + 3 * 2 * 1e-5)
    assert t == pytest.approx(1.0 + comm)
    # at most one bucket: one piece
    _, comm = step_time(1.0, 0.5e9, 8, 100e9, 1e-5, strategy=strategy)
    assert comm == pytest.approx(1.75 * 0.5e9 / 100e9 + 2 * 1e-5)


def test_zero3_with_nothing_to_hide_behind_is_all_communication():
    # compute 0: 2 layers, each collective 3/4 x 1e8 B / 1e11 + 10 us = 0.76 ms; forward gathers
    # 2, backward gathers 2 and reduce-scatters 2: 6 x 0.76 ms, all exposed.
    t, comm = step_time(0.0, 2e8, 4, 100e9, 1e-5, strategy="zero3", layers=2)
    assert comm == pytest.approx(6 * 0.76e-3)
    assert t == pytest.approx(6 * 0.76e-3)


def test_zero3_one_unit_without_layers_hides_nothing():
    # not a transformer: one FSDP unit, its gather, re-gather and reduce-scatter all exposed
    t, comm = step_time(1.0, 1e9, 4, 100e9, 0.0, strategy="zero3")
    assert comm == pytest.approx(3 * 0.75 * 1e9 / 1e11)
    assert t == pytest.approx(1.0 + comm)


def _a100() -> DeviceSpec:
    return device_spec(load_catalog().parts["nvidia-a100-80gb-sxm"])


def _resnet50(precision: str, gpus: int, batch: int = 256) -> object:
    return workload_from_options(task="image_classification", model="resnet50",
                                 precision=precision, batch=batch, gpus=gpus)


def test_dgx_a100_tf32_scaling_within_the_tolerance():
    # 7248 / (8 x 938) = 96.6 %; the model (communication only) lands 0-10 points above.
    req = plan(_resnet50("tf32", 8), _a100())
    eff = req.throughput["scaling_efficiency"].value
    assert 0.966 <= eff <= 0.966 + TOLERANCE_POINTS


def test_dgx1_v100_fp32_scaling_within_the_tolerance():
    # 2855 / (8 x 367) = 97.2 %, batch 112 (configs.yml, DGX1V FP32). DGX-1's NVLink 2 is not in
    # the link table: PCIe 3, the slowest intra link, bounds the loss from below.
    v100 = DeviceSpec("V100 SXM2 16GB", 16 * GiB, {"fp32": 15.7e12, "fp16": 125e12}, 900e9,
                      True, LINKS["pcie3_x16"])
    eff = plan(_resnet50("fp32", 8, 112), v100).throughput["scaling_efficiency"].value
    assert 0.972 <= eff <= 0.972 + TOLERANCE_POINTS


def test_known_miss_amp_8_gpus_is_not_communication():
    """DGX A100 AMP: 84.1 % measured, the model keeps ~99.8 %. Hand bound: the whole all-reduce
    of ResNet-50's fp32 gradients over NVLink 3 (busbw 300e9 x 0.78 = 234e9) takes
    1.75 x 102,228,128 / 234e9 + 5 buckets x 10 us = 0.81 ms, 0.8 % of the 103.6 ms step
    (256 / 2470 img/s): even with no overlap at all, and with NCCL's kernels stopping the
    compute stream for all of it, communication costs < 1 %. The 16 % lost is elsewhere (the
    CPU data pipeline: docs/estimation.md sec. 6)."""
    step = 256 / 2470
    point, = scaling_curve(_resnet50("amp_fp16", 8), step, LINKS["nvlink3"], [8], 8)
    comm = 1.75 * RESNET50_FP32_GRADS / (300e9 * 0.78) + 5 * 10e-6
    assert point.comm_time_s == pytest.approx(comm)
    assert comm / step < 0.01
    assert point.efficiency > 0.841 + TOLERANCE_POINTS  # the known miss, kept visible
    # DGX-1 AMP, 8322 / (8 x 1200) = 86.7 %: the same miss, even over PCIe 3
    v100_point, = scaling_curve(_resnet50("amp_fp16", 8), 256 / 1200, LINKS["pcie3_x16"], [8], 8)
    assert v100_point.efficiency > 0.867 + TOLERANCE_POINTS


def test_two_nodes_expose_the_last_bucket_over_the_network():
    # 16 A100s in 2 nodes, one InfiniBand HDR port each (25e9 x 0.8 = 20e9 B/s busbw, the ring
    # is limited by it; latency 20 us, the larger link's). ResNet-50 AMP: fp32 gradients; a
    # 103.6 ms step hides everything but the last 22,536,352 B bucket:
    # 2 x 15/16 x 22,536,352 / 20e9 + 20 us = 2.1328 ms.
    w = workload_from_options(task="image_classification", model="resnet50",
                              precision="amp_fp16", batch=256, gpus=8, nodes=2)
    a100 = DeviceSpec("A100", 80 * GiB, {"fp16": 312e12, "tf32": 156e12}, 2039e9, True,
                      LINKS["nvlink3"], LINKS["ib_hdr"])
    req = plan(w, a100)
    compute = 256 / req.throughput["samples_per_s_per_gpu"].value
    last = 2 * 15 / 16 * 22_536_352 / 20e9 + 20e-6
    assert req.throughput["scaling_efficiency"].value == pytest.approx(
        compute / (compute + last))
    assert req.throughput["samples_per_s"].value == pytest.approx(
        16 * 256 / (compute + last))
