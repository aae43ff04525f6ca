"""The written causes of the serving misses quote today's plan (issue 24, docs/estimation.md
sec. 8.6): a change to the serving model that moves these figures must rewrite the cause.

Each expected figure is the one the cause text states; the implied decode step is worked out
here by hand from the published rate: (B x out / published - B x prefill) / out.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from published.harness import _gpu, _workload, evaluate
from published.reference_rows import ROWS
from published.serving_causes import H200_FIGURES, VLLM_70B_TP4

from torchrig.planning.requirements import plan

BY_ID = {r.id: r for r in ROWS}


def _plan(row_id: str, batch: int) -> dict:
    row = BY_ID[row_id]
    s = row.serving
    assert s is not None
    w = _workload({**row.setup, "precision": s.precision, "kv_cache_dtype": s.kv_cache_dtype,
                   "output_tokens": s.output_tokens, "seq_len": s.input_tokens,
                   "batch_size": batch})
    return plan(w, _gpu(row.gpu)).to_dict()["throughput"]


@pytest.mark.parametrize("row_id", sorted(H200_FIGURES))
def test_the_h200_cause_quotes_todays_plan(row_id):
    fig, row = H200_FIGURES[row_id], BY_ID[row_id]
    result = evaluate(row)
    b = int(fig["b"])
    assert int(re.match(r"(\d+) sequences", result.note).group(1)) == b
    assert result.ratio == pytest.approx(float(fig["ratio"]), abs=0.005)
    t = _plan(row_id, b)
    assert t["bytes_read_per_step"] / 1e9 == pytest.approx(float(fig["read"]), abs=0.05)
    assert t["time_per_output_token_s"] * 1e3 == pytest.approx(float(fig["planned"]), abs=0.05)
    # The step the published rate needs, by hand: B x out / rate is the time of a whole
    # batch's requests; less their prefills, per output token.
    out = row.serving.output_tokens
    prefill = t["prefill_time_s"] / b
    implied = (b * out / row.published - b * prefill) / out
    assert implied * 1e3 == pytest.approx(float(fig["implied"]), abs=0.05)
    assert fig["b"] in row.known_miss and fig["implied"] in row.known_miss


def test_the_vllm_70b_cause_quotes_todays_plan():
    row = BY_ID["vllm-v0.6-70b-h100tp4-sharegpt"]
    assert row.known_miss == VLLM_70B_TP4
    t = _plan(row.id, 1186)
    assert t["time_per_output_token_s"] * 1e3 == pytest.approx(141.2, abs=0.1)
    # 160 all-reduces (2 per layer, 80 layers) of 1,186 x 8,192 x 2 B over NVLink 4:
    # 10 us + 19.43 MB x 2 x 3/4 / 369 GB/s = 88.99 us each, 14.24 ms in all.
    all_reduces = 160 * (10e-6 + 1186 * 8192 * 2 * 1.5 / 369e9)
    assert all_reduces * 1e3 == pytest.approx(14.24, abs=0.01)
    # The rest of the planned step is the compute-bound GEMMs: 141.24 - 14.24 = 127.0 ms.
    assert (t["time_per_output_token_s"] - all_reduces) * 1e3 == pytest.approx(127.0, abs=0.1)
    out = row.serving.output_tokens  # 194 = 3,700.64 / 19.04 tokens per request
    implied = (1186 * out / row.published - t["prefill_time_s"]) / out
    assert implied * 1e3 == pytest.approx(214.3, abs=0.5)
    assert "214 ms" in row.known_miss and "14.2 ms" in row.known_miss


def _variant():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "serving_step_variant.py"
    spec = importlib.util.spec_from_file_location("serving_step_variant", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_candidate_step_is_the_one_the_causes_describe_by_hand():
    # Llama 3.1 8B FP8 on one H200 (1,979 TFLOP/s fp8, 4.8 TB/s), 884 requests at a mean
    # context of 128 + 2,048 / 2 = 1,152 tokens: GEMMs max(9.08 GB / (4.8 TB/s x 0.65),
    # 2N x 884 / (1,979 TFLOP/s x 0.44)), then attention max(884 x 1,152 x 64 KiB / (4.8 TB/s
    # x 0.85), 4·L·h·c x 884 / (1,979 TFLOP/s x 0.44)).
    n = 32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336) + 128256 * 4096
    weights = 6_979_321_856 * 1 + 1_050_939_392 * 2
    gemm = max(weights / (4.8e12 * 0.65), 2 * n * 884 / (1979e12 * 0.44))
    attention = max(884 * 1152 * 2 * 32 * 8 * 128 / (4.8e12 * 0.85),
                    4 * 32 * 4096 * 1152 * 884 / (1979e12 * 0.44))
    assert (gemm + attention) * 1e3 == pytest.approx(31.6, abs=0.05)  # as the cause quotes
    with _variant().kernels_in_sequence(0.44, 0.85, 0.65):
        t = _plan("trt-8b-h200-128-2048", 884)
    assert t["time_per_output_token_s"] == pytest.approx(gemm + attention, rel=1e-9)
    # The planner's own step is back once the block ends.
    assert _plan("trt-8b-h200-128-2048", 884)["time_per_output_token_s"] * 1e3 == (
        pytest.approx(24.3, abs=0.05))


def test_the_candidate_ratios_the_causes_quote():
    quoted = {"trt-8b-h200-128-2048": 1.04, "trt-8b-h200-500-2000": 1.08,
              "vllm-v0.6-70b-h100tp4-sharegpt": 1.42, "sglang-v0.3-70b-h100tp4-sharegpt": 1.36}
    with _variant().kernels_in_sequence(0.44, 0.85, 0.65):
        got = {rid: evaluate(BY_ID[rid]).ratio for rid in quoted}
    assert got == {rid: pytest.approx(x, abs=0.005) for rid, x in quoted.items()}
