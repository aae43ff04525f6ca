"""The sizing solver's serving moves in serving words (issue 24): fewer requests at once says
what it costs in serving terms, every serving move shows the deployment's tokens/s and the time
to first token beside the time per output token, a combination names only the state it ends
in, and tensor parallelism over more GPUs of the node is offered.

Every expected figure is worked out here from docs/estimation.md sec. 8.6 (the serving time
model) and sec. 2.4 / 8.1 (KV cache, weights), with the catalog's published GPU figures:
RTX 4090 1,008 GB/s; H100 SXM 3,350 GB/s, 989.4 TFLOP/s dense bf16 (FP32 accumulate),
NVLink 4 at 450 GB/s per direction x 0.82, 10 us per collective.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.catalog.loader import load_catalog
from torchrig.planning.device import device_spec
from torchrig.planning.solver import solve
from torchrig.planning.workload import default_workload
from torchrig.units import GiB

DECODE_BW, PREFILL = 0.65, 0.60  # the fitted shares (sec. 8.6)

# Llama-3-8B in bf16 (sec. 8.1): 6,979,321,856 linear-layer weights + 1,050,939,392 others,
# 2 B each; its KV cache 2 x 32 layers x 8 KV heads x 128 x 2 B per token (sec. 2.4).
W8 = (6_979_321_856 + 1_050_939_392) * 2
KV8 = 2 * 32 * 8 * 128 * 2
# Llama-2-70B in bf16: 68,976,648,192 parameters x 2 B; KV 2 x 80 x 8 x 128 x 2 B per token;
# N = the matmul parameters a token passes (LM head included): 80 layers x (q 8192^2 +
# k, v 2 x 8192 x 1024 + o 8192^2 + MLP 3 x 8192 x 28672) + 32,000 x 8192.
W70 = 68_976_648_192 * 2
KV70 = 2 * 80 * 8 * 128 * 2
N70 = 80 * (8192 * 8192 + 2 * 8192 * 1024 + 8192 * 8192 + 3 * 8192 * 28672) + 32_000 * 8192
H100_BW, H100_BF16 = 3350e9, 989.4e12
NVLINK4_BUSBW, LATENCY = 450e9 * 0.82, 10e-6


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


@pytest.fixture(scope="module")
def h100(catalog):
    gpu = device_spec(catalog.get("nvidia-h100-sxm"))
    assert gpu.memory_bandwidth_bps == H100_BW and gpu.peak_flops["bf16"] == H100_BF16
    assert gpu.intra_link is not None and gpu.intra_link.busbw_bps == NVLINK4_BUSBW
    return gpu


def _llama70(batch: int):
    return dataclasses.replace(default_workload("llm_inference"), model="llama-2-70b",
                               batch_size=batch).validate()


# --- 1 and 2: fewer requests at once, in serving words, with what it does to tokens/s -------

def _sixteen_requests_on_a_4090(catalog):
    gpu = device_spec(catalog.get("nvidia-rtx-4090"))
    w = dataclasses.replace(default_workload("llm_inference"), batch_size=16).validate()
    return [c for c in solve(w, gpu).settings if "batch_size" in c.fields]


def test_fewer_requests_speak_of_requests_not_micro_batches(catalog):
    # The time per output token is modelled with the requests at once (sec. 8.6): the note
    # says what it trades, not a training run's "smaller micro-batches ... (not modelled)".
    fewer = _sixteen_requests_on_a_4090(catalog)
    assert fewer
    for change in fewer:
        note = change.time_note
        assert note.en == ("each decode step reads the same weights for fewer requests: each "
                           "token comes sooner, fewer tokens per second in all")
        assert "请求" in note.zh and "每秒 token" in note.zh, note.zh
        for word in ("micro-batch", "batch", "not modelled"):
            assert word not in note.en, note.en
        for word in ("微批次", "批次", "未建模"):
            assert word not in note.zh, note.zh


def test_fewer_requests_say_what_they_cost_in_tokens_per_second(catalog):
    # Llama-3-8B bf16, 16 requests of 4,096 tokens (no output length: rate = B / TPOT) do not
    # fit a 24 GiB RTX 4090. The decode step reads the weights and B caches at 65 % of
    # 1,008 GB/s (memory-bound: 2N x 16 at 33 % of 165 TFLOP/s is 5 ms, the read 38 ms).
    assert catalog.get("nvidia-rtx-4090").gpu.memory_bandwidth == 1008e9
    w = default_workload("llm_inference")
    assert w.seq_len == 4096 and not w.output_tokens

    def tpot(b: int) -> float:
        return (W8 + KV8 * 4096 * b) / (1008e9 * DECODE_BW)

    fewer = _sixteen_requests_on_a_4090(catalog)
    assert len(fewer) == 2  # the largest that fits, and the largest divisor of 16
    for change in fewer:
        b = change.fields["batch_size"]
        assert b < 16 and change.label.en == f"{b} requests at once instead of 16"
        assert change.time_ratio == pytest.approx(tpot(b) / tpot(16), rel=1e-9)
        rate = (b / tpot(b)) / (16 / tpot(16))
        assert rate < 1  # each token sooner, fewer tokens/s in all: the trade is shown
        assert change.rate_ratio == pytest.approx(rate, rel=1e-9)
        assert change.ttft_ratio == pytest.approx(1.0)  # one prompt on an idle engine
        assert change.time_text("en") == (f"time per output token ×{tpot(b) / tpot(16):.2f}, "
                                          f"tokens/s ×{rate:.2f}, time to first token ×1.00")
        assert change.time_text("zh") == (f"每输出 token 时间 ×{tpot(b) / tpot(16):.2f}，"
                                          f"每秒 token ×{rate:.2f}，首 token 时间 ×1.00")
        assert change.to_dict()["tokens_per_s_ratio"] == change.rate_ratio


def test_training_keeps_its_micro_batch_note_and_no_serving_ratios(catalog):
    w = dataclasses.replace(default_workload("llm_finetune_lora"), model="llama-2-7b",
                            batch_size=16, seq_len=2048).validate()
    answer = solve(w, device_spec(catalog.get("nvidia-rtx-4090")))
    fewer = [c for c in answer.settings if "batch_size" in c.fields]
    assert fewer and all("micro-batches" in c.time_note.en for c in fewer)
    assert all(c.rate_ratio is None and c.ttft_ratio is None for c in answer.changes)
    assert all(", tokens/s" not in c.time_text("en") for c in answer.changes)


# --- 3: a combination names only the state it ends in ----------------------------------------

KV_FP8 = "fp8 KV cache (half the bytes of a 16-bit one)"
INT4 = "int4 weights (weight-only quantization)"


def test_a_combination_names_only_its_final_weights(h100):
    # 32 requests of 4,096 tokens of Llama-2-70B: bf16 weights alone (128.5 GiB) exceed one
    # H100's 80 GiB; fp8 KV + int4 weights fit on it: the combination. It passes through fp8
    # and int8 weights on the way, which its label must not list beside int4.
    answer = solve(_llama70(32), h100)
    combined = [c for c in answer.settings if " + " in c.label.en]
    assert len(combined) == 1
    change = combined[0]
    assert dict(change.fields) == {"precision": "int4", "kv_cache_dtype": "fp8"}
    assert change.label.en == f"{KV_FP8} + {INT4}"
    assert change.label.zh == "fp8 KV 缓存（字节数为 16 位的一半） + int4 权重（仅权重量化）"


def test_a_combination_of_three_names_three_final_settings(h100):
    # 64 requests: with fp8 KV and int4 weights the cache is still 64 x 4,096 x 163,840 B =
    # 40 GiB beside 36 GiB of weights, 1.1 x 76 GiB > 80 GiB: the context is halved too.
    change = next(c for c in solve(_llama70(64), h100).settings if " + " in c.label.en)
    assert dict(change.fields) == {"precision": "int4", "kv_cache_dtype": "fp8",
                                   "seq_len": 2048}
    assert change.label.en == f"{KV_FP8} + {INT4} + a 2,048-token context instead of 4,096"
    # Prompts under 2,048 tokens are not halved: the requests at once go down instead, the
    # same 40 GiB of cache at 256 x 1,024 tokens.
    w = dataclasses.replace(_llama70(256), seq_len=1024).validate()
    change = next(c for c in solve(w, h100).settings if " + " in c.label.en)
    b = change.fields["batch_size"]
    assert b < 256
    assert dict(change.fields) == {"precision": "int4", "kv_cache_dtype": "fp8",
                                   "batch_size": b}
    assert change.label.en == f"{KV_FP8} + {INT4} + {b} requests at once instead of 256"
    assert change.label.zh == ("fp8 KV 缓存（字节数为 16 位的一半） + int4 权重（仅权重量化） + "
                               f"同时处理的请求由 256 个减为 {b} 个")


# --- 4: tensor parallel over more GPUs of the node -------------------------------------------

def _tp_by_hand(t: int, batch: int) -> tuple[float, float, float, float]:
    """(memory per GPU without activations, TPOT ratio, tokens/s ratio, TTFT ratio) of
    Llama-2-70B bf16 over t H100s against one, 4,096-token prompts, no output length."""
    kv = KV70 * 4096 * batch

    def comm(tokens: int) -> float:  # Megatron's 2 all-reduces per layer, ring 2(t-1)/t
        return 2 * 80 * (LATENCY + tokens * 8192 * 2 * 2 * (t - 1) / t / NVLINK4_BUSBW)

    one = (W70 + kv) / (H100_BW * DECODE_BW)
    # Memory-bound at these sizes: even 2 x all 69B parameters x 32 requests at 33 % of the
    # peak (13.5 ms) is below one read of the weights (63 ms).
    assert 2 * 68_976_648_192 * 32 / (H100_BF16 * 0.33) < W70 / (H100_BW * DECODE_BW)
    many = (W70 + kv) / t / (H100_BW * DECODE_BW) + comm(batch)
    prefill = (2 * N70 + 4 * 80 * 4096 * 8192) * 4096 / (H100_BF16 * PREFILL)
    memory = 1.1 * (W70 + kv) / t + GiB  # + 10 % margin, + 1 GiB CUDA context
    return memory, many / one, one / many, (prefill / t + comm(4096)) / prefill


@pytest.mark.parametrize("batch, t", [(1, 2), (32, 4)])
def test_tensor_parallel_over_the_next_size_that_fits(h100, batch, t):
    # One request: half the bf16 weights is 64.2 GiB, x 1.1 + 1 GiB = 71.7 GiB: TP 2 fits.
    # 32 requests: TP 2 holds 64.2 + 20 GiB of cache (lower bound 93.7 GiB with the margin),
    # too much; TP 4 holds half of that.
    memory, tpot, rate, ttft = _tp_by_hand(t, batch)
    assert memory < 80 * GiB
    if t > 2:
        assert _tp_by_hand(t // 2, batch)[0] > 80 * GiB
    answer = solve(_llama70(batch), h100)
    tps = [c for c in answer.settings if "tp_size" in c.fields]
    assert len(tps) == 1
    change = tps[0]
    assert dict(change.fields) == {"gpus_per_node": t, "strategy": "tensor_parallel",
                                   "tp_size": t}
    more = t - 1
    assert change.label.en == (f"tensor parallel over {t} GPUs "
                               f"({more} more GPU{'s' if more > 1 else ''} per node)")
    assert change.label.zh == f"在 {t} 块 GPU 上做张量并行（每节点多 {more} 块 GPU）"
    # Memory per GPU: the weights and the cache split t ways, plus activations under 1 GiB.
    assert memory <= change.vram_needed <= memory + 1.1 * GiB
    assert change.verdict == "fits"
    assert change.time_ratio == pytest.approx(tpot, rel=1e-9)
    assert change.rate_ratio == pytest.approx(rate, rel=1e-9)
    assert change.ttft_ratio == pytest.approx(ttft, rel=1e-9)
    applied = change.apply(_llama70(batch))
    assert (applied.gpus_per_node, applied.tp_size, applied.data_parallel) == (t, t, 1)


def test_tensor_parallel_keeps_the_one_gpu_combination_beside_it(h100):
    # TP 4 needs 3 more H100s: the answer on the one GPU there (fp8 KV + int4) stays offered.
    fields = [dict(c.fields) for c in solve(_llama70(32), h100).settings]
    assert fields == [{"gpus_per_node": 4, "strategy": "tensor_parallel", "tp_size": 4},
                      {"precision": "int4", "kv_cache_dtype": "fp8"}]


def test_no_tensor_parallel_beyond_a_node_or_a_two_way_bridge(catalog, h100):
    # A 16 GiB card: even 8-way, 128.5 / 8 = 16.1 GiB of weights alone exceed it, and the
    # node holds at most 8 GPUs: no tensor-parallel move.
    small = solve(_llama70(1), device_spec(catalog.get("nvidia-rtx-4060-ti-16gb")))
    assert not [c for c in small.settings if "tp_size" in c.fields]
    # A 2-way NVLink bridge connects 2 GPUs: 32 requests need TP 4, so none is offered there.
    bridged = dataclasses.replace(h100, intra_link=dataclasses.replace(h100.intra_link,
                                                                       max_gpus=2))
    assert not [c for c in solve(_llama70(32), bridged).settings if "tp_size" in c.fields]
