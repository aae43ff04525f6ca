"""The training-path branches issue 24 names, each against a hand computation: N GPUs, multi-node,
tensor and pipeline parallelism > 1, the data-parallel host RAM, ZeRO-Offload's PCIe time per
step and the allocator margin without the CUDA context.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.device import DeviceSpec
from torchrig.planning.gpu_choice import run_time
from torchrig.planning.links import LINKS
from torchrig.planning.presets import get_preset
from torchrig.planning.requirements import plan
from torchrig.planning.solver import solve
from torchrig.planning.workload import workload_from_options
from torchrig.units import GiB

MiB = 1024 * 1024
LLAMA2_7B = 6_738_415_616  # parameters of Llama-2-7B (its config.json, counted by the preset)
NVLINK4_BUSBW = 450e9 * 0.82  # docs/estimation.md sec. 6: NVLink 4 per direction x 0.82
NDR_BUSBW = 50e9 * 0.8  # InfiniBand NDR, 400 Gb/s, x 0.8
H100 = DeviceSpec("H100 SXM5 80GB", 80 * GiB, {"bf16": 989.4e12 / 2, "fp16": 989.4e12 / 2},
                  3.35e12, True, LINKS["nvlink4"], LINKS["ib_ndr"])


def _last_bucket(grad_bytes: int) -> int:
    """DDP's last bucket: what is left after the 1 MiB first bucket and the 25 MiB ones."""
    rest = (grad_bytes - MiB) % (25 * MiB)
    return rest or 25 * MiB


def _tail(busy: float, backward_share: float, grads: int, factor: float, busbw: float,
          latency: float) -> float:
    """Hand timeline of the last two DDP buckets when the link outpaces backward (every earlier
    bucket is done before the next is ready): the last 25 MiB bucket is ready ``last`` bytes
    before backward ends; the last bucket starts when both backward and it are done."""
    last = _last_bucket(grads)
    backward = busy * backward_share
    before_last = busy - backward * last / grads
    full = factor * 25 * MiB / busbw + latency
    return max(busy, before_last + full) + factor * last / busbw + latency


def _llama(**options) -> object:
    base = dict(task="llm_finetune_full", model="llama-2-7b", precision="amp_bf16", batch=1)
    base.update(options)
    return workload_from_options(**base)


def test_n_gpus_multiply_the_per_gpu_rate_at_the_scaling_efficiency():
    # ResNet-50 AMP on 4 A100s over NVLink 3 (busbw 234e9, 10 us): 256 / 2470 s of compute;
    # the last 22,536,352 B bucket of its fp32 gradients is exposed: 2 x 3/4 x 22,536,352 /
    # 234e9 + 10 us.
    a100 = DeviceSpec("A100", 80 * GiB, {"fp16": 312e12, "tf32": 156e12}, 2039e9, True,
                      LINKS["nvlink3"])
    w = workload_from_options(task="image_classification", model="resnet50",
                              precision="amp_fp16", batch=256, gpus=4)
    t = plan(w, a100).throughput
    compute = 256 / t["samples_per_s_per_gpu"].value
    assert compute == pytest.approx(256 / 2470)
    exposed = 1.5 * 22_536_352 / (300e9 * 0.78) + 10e-6
    assert t["scaling_efficiency"].value == pytest.approx(compute / (compute + exposed))
    assert t["samples_per_s"].value == pytest.approx(4 * 2470 * compute / (compute + exposed))


def test_tensor_parallel_training_waits_for_its_all_reduces():
    # Llama-2-7B, TP 2 x DP 4 on 8 H100s. Per micro-batch each GPU takes part in 4 all-reduces
    # per layer x 32 layers of b x s x h bf16 activations, each moving 2(t-1)/t = 1 of them:
    # 128 x 1 x s x 4096 x 2 B, at NVLink 4's busbw + 10 us each. The TP group trains at 2 x the
    # per-GPU rate; gradients (fp32 under PyTorch AMP, half per TP rank: 4P/2) are all-reduced
    # over 4 ranks inside the node behind backward (3/4 of the passes: checkpointing is the
    # task's default) but for the tail: the last bucket is only 1,581,056 B, so the 25 MiB one
    # before it is still on the link when backward ends.
    w = _llama(gpus=8, strategy="tensor_parallel", tp_size=2)
    assert w.gradient_checkpointing and w.grad_accumulation == 1
    req = plan(w, H100)
    t = req.throughput
    s = w.seq_len
    compute = 1 / (t["samples_per_s_per_gpu"].value * 2)
    assert t["step_time_s"].value == pytest.approx(compute)
    tp = 128 * s * 4096 * 2 / NVLINK4_BUSBW + 128 * 10e-6
    grads = LLAMA2_7B * 4 // 2
    assert _last_bucket(grads) == 1_581_056
    step = _tail(compute + tp, 3 / 4, grads, 2 * 3 / 4, NVLINK4_BUSBW, 10e-6)
    assert t["scaling_efficiency"].value == pytest.approx(compute / step)
    # 8 GPUs x the per-GPU rate x that efficiency (not divided by t: issue 24)
    assert t["samples_per_s"].value == pytest.approx(
        8 * t["samples_per_s_per_gpu"].value * t["scaling_efficiency"].value)


@pytest.mark.parametrize("accumulation", [1, 6])
def test_pipeline_parallel_training_syncs_half_the_gradients(accumulation):
    # PP 2 x DP 4, m micro-batches a step: a stage is busy m / (m + 1) of the step (1F1B) and
    # holds half the gradients; no TP all-reduces. The step is m + 1 slots; the sync of 4P/2
    # bytes over 4 ranks hides only behind the last slot's backward (the first stage runs it
    # last), so: m slots + the last slot's DDP timeline.
    w = dataclasses.replace(_llama(gpus=8, strategy="pipeline_parallel", pp_size=2),
                            grad_accumulation=accumulation)
    t = plan(w, H100).throughput
    one_gpu = plan(_llama(gpus=1, strategy="ddp"), H100).throughput
    m = accumulation
    assert t["samples_per_s_per_gpu"].value == pytest.approx(
        one_gpu["samples_per_s_per_gpu"].value * m / (m + 1))
    compute = m / (t["samples_per_s_per_gpu"].value * 2)  # the step's m micro-batches of 1
    slot = compute / (m + 1)
    step = m * slot + _tail(slot, 3 / 4, LLAMA2_7B * 4 // 2, 2 * 3 / 4, NVLINK4_BUSBW, 10e-6)
    assert t["scaling_efficiency"].value == pytest.approx(compute / step)


def test_tensor_parallel_across_two_nodes_shares_the_network_port():
    # 2 nodes x 8 H100, TP 8 inside each node, DP 2 across: 8 rings (one per TP rank) leave
    # each node through its one NDR port: busbw 40e9 / 8 = 5e9 per ring; latency 20 us.
    # Gradients 4P/8 = 3,369,207,808 B; 2 ranks: factor 1. The link is slower than backward
    # produces gradients, so from the second bucket on it never idles:
    #   step = forward + backward x 26 MiB / G + (G - 1 MiB) / 5e9 + (buckets - 1) x 20 us
    # with forward + backward = compute + TP all-reduces, backward = 3/4 of that
    # (checkpointing, the task's default).
    w = _llama(gpus=8, nodes=2, strategy="tensor_parallel", tp_size=8)
    t = plan(w, H100).throughput
    s = w.seq_len
    compute = 1 / (t["samples_per_s_per_gpu"].value * 8)
    tp = 128 * s * 4096 * 2 * (2 * 7 / 8) / NVLINK4_BUSBW + 128 * 10e-6
    grads = LLAMA2_7B * 4 // 8
    assert grads == 3_369_207_808
    buckets = 1 + -(-(grads - MiB) // (25 * MiB))
    busy = compute + tp
    step = busy / 4 + busy * 3 / 4 * 26 * MiB / grads + (grads - MiB) / (NDR_BUSBW / 8) \
        + (buckets - 1) * 20e-6
    assert t["scaling_efficiency"].value == pytest.approx(compute / step)


def test_data_parallel_host_ram_loads_the_model_once_per_process():
    # DDP: each of the node's 4 processes reads the fp32 checkpoint: 4 x 25,557,032 x 4 B.
    # ZeRO-3 loads once (rank 0 / sharded loading).
    w = workload_from_options(task="image_classification", model="resnet50", gpus=4)
    assert plan(w).system_ram["model_load"].value == 4 * 25_557_032 * 4
    z3 = _llama(gpus=8, strategy="zero3")
    assert plan(z3).system_ram["model_load"].value == LLAMA2_7B * 2  # bf16 file, one copy
    # per node: two nodes of 4 still load 4 copies in each
    two = workload_from_options(task="image_classification", model="resnet50", gpus=4, nodes=2)
    assert plan(two).system_ram["model_load"].value == 4 * 25_557_032 * 4


def test_zero_offload_time_counts_the_pcie_traffic_of_every_step():
    # The solver's ZeRO-2 + optimizer offload on one 24 GB GPU: each optimizer step moves 16-bit
    # gradients down (hidden behind backward) and 16-bit weights up after CPU Adam, 2 B x P over
    # PCIe 4 x16 at 31.5e9 x 0.8 (assumed: this GPU names no host link), Adam at DeepSpeed PR
    # #735's 11.6e9 / 8.2 parameters/s (docs/estimation.md sec. 6.2). The plan holds that wait
    # (offload_time_s) and the solver takes the plan's time as it is: counted once (issue 24).
    w = dataclasses.replace(_llama(gpus=1, strategy="ddp"), batch_size=1)
    gpu = DeviceSpec("RTX 4090", 24 * GiB, {"bf16": 165.2e12, "fp16": 165.2e12}, 1008e9, True)
    answer = solve(w, gpu)
    offload = next(c for c in answer.settings if c.fields.get("offload") == "optimizer")
    changed = offload.apply(w)
    req = plan(changed, gpu)
    params = get_preset("llama-2-7b").params
    per_step = 2 * params / (31.5e9 * 0.8) + params / (11.6e9 / 8.2)
    assert req.throughput["offload_time_s"].value == pytest.approx(per_step)
    assert offload.time_s == pytest.approx(run_time(req))


def test_allocator_margin_leaves_out_the_cuda_context():
    # 10 % of every allocation but the 1 GiB CUDA context (docs/estimation.md sec. 13).
    for w in (_llama(gpus=8, strategy="zero3"),
              workload_from_options(task="image_classification", model="resnet50", gpus=2)):
        v = plan(w).vram_per_gpu
        body = sum(i.value or 0.0 for k, i in v.items()
                   if k not in ("overhead", "fragmentation", "total"))
        assert v["overhead"].value == GiB
        assert v["fragmentation"].value == pytest.approx(0.1 * body)
        assert v["total"].value == pytest.approx(1.1 * body + GiB)


def test_tensor_parallel_over_every_gpu_has_only_its_all_reduces():
    # TP 8 on one node of 8: one data-parallel rank, no gradient sync; the step is the compute
    # plus the TP all-reduces, over 2 accumulation steps: 2 x (128 x 1 x s x 4096 x 2 B x
    # 2 x 7/8 / busbw + 128 x 10 us).
    from torchrig.planning.requirements.scaling import model_parallel_step

    w = dataclasses.replace(_llama(gpus=8, strategy="tensor_parallel", tp_size=8),
                            grad_accumulation=2)
    s = w.seq_len
    step = model_parallel_step(w, 0.5, LINKS["nvlink4"], None)
    tp = 2 * (128 * s * 4096 * 2 * 1.75 / NVLINK4_BUSBW + 128 * 10e-6)
    assert step.tp_comm_s == pytest.approx(tp)
    assert step.dp_comm_s == 0.0
    assert step.step_time_s == pytest.approx(0.5 + tp)


def test_pipeline_parallel_across_two_nodes_shares_the_port_between_two_rings():
    # PP 2 x DP 8 on 2 nodes of 8: 4 data-parallel ranks per node, so the 8 ranks' rings cross
    # the network; each node holds 2 pipeline positions, one ring each: 40e9 / 2 = 20e9 B/s per
    # ring; latency 20 us. One micro-batch a step: 2 slots of 0.5 s of the 1 s step compute.
    # Gradients 4P/2 = 13.5e9 B: 1.18 s on the link, more than the 0.375 s the last slot's
    # backward (3/4 of it, checkpointing) produces them in, so from the second bucket on the
    # link never idles: the first slot 0.5 + forward 0.125 + 0.375 x 26 MiB / G + 1.75 x
    # (G - 1 MiB) / busbw + latencies.
    from torchrig.planning.requirements.scaling import model_parallel_step

    w = _llama(gpus=8, nodes=2, strategy="pipeline_parallel", pp_size=2)
    step = model_parallel_step(w, 1.0, LINKS["nvlink4"], LINKS["ib_ndr"])
    grads = LLAMA2_7B * 4 // 2
    assert step.dp_comm_s == pytest.approx(
        2 * 7 / 8 * grads / (NDR_BUSBW / 2) + (1 + -(-(grads - MiB) // (25 * MiB))) * 20e-6)
    buckets = 1 + -(-(grads - MiB) // (25 * MiB))
    assert step.step_time_s == pytest.approx(
        0.5 + 0.125 + 0.375 * 26 * MiB / grads + 1.75 * (grads - MiB) / (NDR_BUSBW / 2)
        + (buckets - 1) * 20e-6)
    # eight ports a node (a DGX) give each of the two rings 4 x 40e9, more than NVLink's
    # 369e9 busbw inside the node: min(369e9, 8 x 40e9 / 2) = 160e9
    eight = model_parallel_step(w, 1.0, LINKS["nvlink4"], LINKS["ib_ndr"], nics_per_node=8)
    assert eight.dp_comm_s == pytest.approx(
        2 * 7 / 8 * grads / (8 * NDR_BUSBW / 2) + buckets * 20e-6)
    # without the network it cannot be modelled
    with pytest.raises(Exception, match="span several nodes"):
        model_parallel_step(w, 1.0, LINKS["nvlink4"], None)


def test_model_parallel_step_without_checkpointing_and_beyond_a_node():
    # The same PP 2 x DP 8 run without checkpointing: backward is 2/3 of the last 0.5 s slot,
    # forward 1/3, so the second bucket is ready at 0.5 + 1/6 + 1/3 x 26 MiB / G.
    from torchrig.errors import InputError
    from torchrig.planning.requirements.scaling import model_parallel_step

    w = dataclasses.replace(_llama(gpus=8, nodes=2, strategy="pipeline_parallel", pp_size=2),
                            gradient_checkpointing=False)
    step = model_parallel_step(w, 1.0, LINKS["nvlink4"], LINKS["ib_ndr"])
    grads = LLAMA2_7B * 4 // 2
    buckets = 1 + -(-(grads - MiB) // (25 * MiB))
    assert step.step_time_s == pytest.approx(
        0.5 + 1 / 6 + 1 / 3 * 26 * MiB / grads + 1.75 * (grads - MiB) / (NDR_BUSBW / 2)
        + (buckets - 1) * 20e-6)
    # a tensor-parallel group larger than a node is refused with the sizes
    wide = _llama(gpus=8, nodes=2, strategy="tensor_parallel", tp_size=16)
    with pytest.raises(InputError, match="tensor parallelism over 16 GPUs spans nodes of 8"):
        model_parallel_step(wide, 1.0, LINKS["nvlink4"], LINKS["ib_ndr"])
