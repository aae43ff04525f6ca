"""Expert parallelism in time (issue 24; docs/estimation.md sec. 12.1): the MoE layers'
all-to-alls in the training step and an expert-parallel group as one serving group, each figure
worked out by hand here.

Mixtral-8x7B (its Hugging Face config): 32 layers, all MoE, hidden 4096, 8 experts of FFN 14336,
2 active per token, 32 heads, 8 KV heads of 128, vocabulary 32,000, untied; 46,702,792,704
parameters of which 32 x 8 x 3 x 4096 x 14336 = 45,097,156,608 in the routed experts.

Links (docs/estimation.md sec. 6, planning/links.py): NVLink 4 450 GB/s x 0.82 = 369 GB/s busbw,
10 us per collective; InfiniBand NDR 50 GB/s x 0.8 = 40 GB/s per port, 20 us. One all-to-all
of S bytes per GPU over n GPUs takes S x (n-1)/n / busbw (nccl-tests src/alltoall.cu: busbw =
algbw x (n-1)/n) + latency.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.device import DeviceSpec
from torchrig.planning.links import LINKS
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.expert_parallel import micro_batch_seconds
from torchrig.planning.workload import default_workload, resolve_model
from torchrig.units import GiB

MiB = 1024 * 1024
NVLINK4 = 450e9 * 0.82  # 369 GB/s
NDR = 50e9 * 0.8  # 40 GB/s per port
H100 = DeviceSpec("H100 SXM5 80GB", 80 * GiB, {"bf16": 989.4e12, "fp16": 989.4e12},
                  3.35e12, True, LINKS["nvlink4"], LINKS["ib_ndr"], architecture="Hopper")
# What one of 8 GPUs holds: the 1,605,636,096 non-expert parameters + 1/8 of the experts.
MIXTRAL_SHARE8 = 1_605_636_096 + 45_097_156_608 // 8
MIXTRAL = dict(model="custom", layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336,
               vocab=32000, tied_embeddings=False, experts=8, active_experts=2,
               expert_ffn=14336, max_positions=32768)
# One all-to-all's payload on a GPU holding one 4096-token sequence, top-2, bf16:
# 4096 tokens x 2 experts x 4096 hidden x 2 B = 67,108,864 B.
S = 4096 * 2 * 4096 * 2


def _train(**changes):
    """Mixtral-8x7B full training, AMP bf16, batch 1 x 4096 tokens, no checkpointing."""
    base = dict(MIXTRAL, precision="amp_bf16", batch_size=1, seq_len=4096,
                gradient_checkpointing=False, strategy="expert_parallel", ep_size=8,
                gpus_per_node=8)
    base.update(changes)
    return dataclasses.replace(default_workload("llm_finetune_full"), **base).validate()


def _a2a(w) -> float:
    return micro_batch_seconds(w, resolve_model(w), LINKS["nvlink4"], LINKS["ib_ndr"], 1)


# --------------------------------------------------------------------------- training table

@pytest.mark.parametrize(("changes", "expected"), [
    # EP 2 on 2 GPUs: 2 all-to-alls x 2 passes x 32 layers = 128, each S x 1/2 / 369e9 + 10 us
    # = 90.93 us + 10 us -> 12.92 ms.
    (dict(ep_size=2, gpus_per_node=2), 128 * (S * 1 / 2 / NVLINK4 + 10e-6)),
    # EP 8 inside one node: S x 7/8 / 369e9 = 159.13 us + 10 us, x 128 -> 21.65 ms.
    (dict(), 128 * (S * 7 / 8 / NVLINK4 + 10e-6)),
    # EP 8 across two nodes of 4 GPUs, one NDR port each: 3 peers over NVLink (S x 3/8 /
    # 369e9 = 68.2 us), 4 on the other node: every GPU of the node sends S x 4/8 through the
    # one port, 4 x 33,554,432 B / 40e9 = 3.355 ms, the slower; + the larger latency 20 us,
    # x 128 -> 432 ms.
    (dict(gpus_per_node=4, nodes=2), 128 * (S * 4 / 8 * 4 / NDR + 20e-6)),
    # Top-1 instead of top-2 halves the payload: S/2 x 7/8 / 369e9 = 79.57 us + 10 us -> 11.46 ms.
    (dict(active_experts=1), 128 * (S / 2 * 7 / 8 / NVLINK4 + 10e-6)),
    # Checkpointing re-runs the forward's two all-to-alls in backward: 3 passes, 192 calls.
    (dict(gradient_checkpointing=True), 192 * (S * 7 / 8 / NVLINK4 + 10e-6)),
    # EP 1 is data parallelism: no all-to-all.
    (dict(strategy="ddp", ep_size=1), 0.0),
])
def test_all_to_all_seconds_per_micro_batch(changes, expected):
    assert _a2a(_train(**changes)) == pytest.approx(expected, rel=1e-9)


def test_all_to_all_volume_per_micro_batch():
    # EP 2: 128 x S x 1/2 = 4,294,967,296 B; EP 8: 128 x S x 7/8 = 7,516,192,768 B (the 7.5 GB
    # the plan showed before issue 24, now also in the time); top-1 halves it.
    for changes, expected in ((dict(ep_size=2, gpus_per_node=2), 4_294_967_296),
                              (dict(), 7_516_192_768), (dict(active_experts=1), 3_758_096_384)):
        got = plan(_train(**changes)).interconnect["expert_parallel_bytes_per_step_per_gpu"]
        assert got.value == expected


def _last_bucket(grad_bytes: int) -> int:
    rest = (grad_bytes - MiB) % (25 * MiB)
    return rest or 25 * MiB


def test_the_training_step_waits_for_the_all_to_alls():
    # Mixtral EP 8 on one node of 8 H100s. One micro-batch computes c (the plan's per-GPU rate,
    # its MFU model is not under test here) and waits 21.65 ms of all-to-all (above); the fp32
    # gradients of a GPU's share, 4 x 7,242,780,672 B, are all-reduced over the 8 ranks bucket
    # by bucket behind backward (2/3 of the busy time). The link (1.75 x 25 MiB / 369e9 + 10 us
    # = 134 us a bucket) outpaces backward (0.5 ms per 25 MiB), so only the tail is exposed:
    # the last 25 MiB bucket is ready `last` bytes before backward ends, the last bucket after.
    w = _train()
    t = plan(w, H100).throughput
    c = 4096 * 1 / (t["samples_per_s_per_gpu"].value * 4096)
    busy = c + 128 * (S * 7 / 8 / NVLINK4 + 10e-6)
    grads = 4 * MIXTRAL_SHARE8
    last = _last_bucket(grads)
    before_last = busy - busy * 2 / 3 * last / grads
    full = 1.75 * 25 * MiB / NVLINK4 + 10e-6
    step = max(busy, before_last + full) + 1.75 * last / NVLINK4 + 10e-6
    assert t["scaling_efficiency"].value == pytest.approx(c / step, rel=1e-9)
    assert t["scaling_efficiency"].value < 0.98  # the old model: 0.99994, the all-to-all free
    note = t["scaling_efficiency"].note.en
    assert "21.6 ms of expert-parallel all-to-all per optimizer step" in note
    assert "not overlapped as Megatron-Core and DeepSpeed-MoE run by default" in note
    assert "专家并行 all-to-all 21.6 ms" in t["scaling_efficiency"].note.zh


def test_across_two_nodes_the_network_sets_the_pace():
    # EP 8 over 2 nodes of 4: 432 ms of all-to-all per micro-batch against 21.65 ms inside one
    # node, so the two-node efficiency is the lower, by at least the all-to-all's share.
    one = plan(_train(), H100).throughput["scaling_efficiency"].value
    two_w = _train(gpus_per_node=4, nodes=2)
    two = plan(two_w, H100).throughput
    c = 1 / two["samples_per_s_per_gpu"].value
    assert two["scaling_efficiency"].value <= c / (c + 128 * (S * 4 / 8 * 4 / NDR + 20e-6))
    assert two["scaling_efficiency"].value < one - 0.2
    # 128 x (4 x 33,554,432 / 40e9 + 20 us) = 432.06 ms
    assert "432.1 ms of expert-parallel all-to-all" in two["scaling_efficiency"].note.en
    assert "NVLink 4 (H100/H200 SXM) + InfiniBand NDR" in two["scaling_efficiency"].note.en


# --------------------------------------------------------------------------- serving

def _serve(**changes):
    """Mixtral-8x7B served in bf16 with EP 8 on 8 H100s: 64 requests at once, 1,024-token
    prompts, 1,024 output tokens."""
    base = dict(MIXTRAL, precision="bf16", batch_size=64, seq_len=1024, output_tokens=1024,
                strategy="expert_parallel", ep_size=8, gpus_per_node=8)
    base.update(changes)
    return dataclasses.replace(default_workload("llm_inference"), **base).validate()


# Active matmul weights per token: 32 x (attention 41,943,040 + 2 experts x 3 x 4096 x 14336
# + router 32,768) + LM head 32,000 x 4096 = 12,748,587,008.
N = 32 * (41_943_040 + 2 * 3 * 4096 * 14336 + 4096 * 8) + 32000 * 4096
KV_TOKEN = 2 * 32 * 8 * 128 * 2  # 131,072 B


def test_an_expert_parallel_group_is_one_serving_group():
    t = plan(_serve(), H100).throughput
    # Each GPU reads its weights (2 B x its share) and the KV cache of its 64/8 = 8 requests at
    # the mean context 1,024 + 512: 14,485,561,344 + 8 x 1,536 x 131,072 = 16,096,174,080 B.
    read = 2 * MIXTRAL_SHARE8 + 8 * 1536 * KV_TOKEN
    assert read == 16_096_174_080
    assert t["bytes_read_per_step"].value == pytest.approx(read, rel=1e-12)
    # Decode step: memory 16,096,174,080 / (3.35e12 x 0.65) = 7.392 ms > compute (2N +
    # 4·32·4096·1536) x 8 requests / (989.4e12 x 0.33) = 0.645 ms; + 2 all-to-alls x 32 layers
    # of each GPU's 8 tokens: 8 x 2 x 4096 x 2 = 131,072 B x 7/8 / 369e9 + 10 us = 10.31 us.
    memory = read / (3.35e12 * 0.65)
    a2a = 64 * (8 * 2 * 4096 * 2 * 7 / 8 / NVLINK4 + 10e-6)
    tpot = memory + a2a
    assert t["time_per_output_token_s"].value == pytest.approx(tpot, rel=1e-9)
    assert "the MoE layers' all-to-alls (8 requests per GPU of 8)" in \
        t["time_per_output_token_s"].note.en
    # Prefill per request, the 8 GPUs on different prompts at once: FLOPs (2N + 4·32·4096·1024)
    # x 1024 / (989.4e12 x 0.6 x 8) + the prompt's all-to-alls / 8: 64 x (1,024 x 2 x 4096 x
    # 2 x 7/8 / 369e9 + 10 us) / 8. Output: 64 x 1024 / (64 x prefill + 1024 x tpot) = 7,594
    # tokens/s from ONE serving group (8 groups of 64 requests before: 33,298).
    prefill = ((2 * N + 4 * 32 * 4096 * 1024) * 1024 / (989.4e12 * 0.6 * 8)
               + 64 * (1024 * 2 * 4096 * 2 * 7 / 8 / NVLINK4 + 10e-6) / 8)
    rate = 64 * 1024 / (64 * prefill + 1024 * tpot)
    assert t["output_tokens_per_s"].value == pytest.approx(rate, rel=1e-9)
    assert rate == pytest.approx(7594, abs=1)
    assert t["output_tokens_per_s"].note.en.startswith("1 serving group(s) x 64 requests")
    assert t["prefill_time_s"].note.en == ("FLOPs / (60% of the dense peak x 8 expert-parallel "
                                           "GPUs) + the MoE layers' all-to-alls")


@pytest.mark.parametrize(("changes", "groups"), [
    (dict(), 1),                           # 8 GPUs / EP 8
    (dict(nodes=2), 2),                    # 16 GPUs / EP 8
    (dict(ep_size=4), 2),                  # 8 GPUs / EP 4
    (dict(ep_size=2), 4),                  # 8 GPUs / EP 2
    (dict(strategy="ddp", ep_size=1), 8),  # one copy per GPU (93 GB: its KV does not fit)
])
def test_serving_groups_are_gpus_over_the_group(changes, groups):
    t = plan(_serve(**changes), H100).throughput
    assert t["output_tokens_per_s"].note.en.startswith(f"{groups} serving group(s)")
    if changes.get("strategy") != "ddp":
        assert f"on each of {groups} serving group(s)" in t["max_output_tokens_per_s"].note.en


def test_serving_across_two_nodes_pays_the_network_in_every_decode_step():
    # EP 8 over 2 nodes of 4: each GPU's 8 tokens, 131,072 B: 3/8 to its node's peers, 4/8 to
    # the other node through one NDR port shared by 4 GPUs: 4 x 65,536 / 40e9 = 6.55 us, + 20 us,
    # x 64 all-to-alls = 1.70 ms, against 0.66 ms inside one node.
    one = plan(_serve(), H100).throughput["time_per_output_token_s"].value
    two = plan(_serve(gpus_per_node=4, nodes=2), H100).throughput
    inside = 64 * (131_072 * 7 / 8 / NVLINK4 + 10e-6)
    across = 64 * (131_072 * 4 / 8 * 4 / NDR + 20e-6)
    assert two["time_per_output_token_s"].value - one == pytest.approx(across - inside, rel=1e-9)
