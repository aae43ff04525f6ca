"""Written causes of the serving rows that miss (issue 24): what was examined on each published
setup and ruled out, with its figures (docs/estimation.md sec. 8.6, "What the serving misses
are not"). The figures are the planner's own items for the row (``bytes_read_per_step``,
``time_per_output_token_s``, ``prefill_time_s``) and hand arithmetic on them; the candidate step
model quoted here is not the planner's: ``benchmarks/serving_step_variant.py`` runs it and
prints its figures.

The implied step of a row is the decode step the published rate needs with the planner's
concurrency B and prefill per request: (B x out / published - B x prefill) / out.
"""

from __future__ import annotations

_H200_DECODE = (
    "x{ratio} at {b} requests at once; the published rate implies a {implied} ms decode step "
    "where the planner's max(read {read} GB at 0.65 of 4.8 TB/s, compute) gives {planned} ms. "
    "Ruled out: the engine's concurrency (trtllm-bench's calc_engine_setting sizes max batch "
    "from the KV capacity, 0.95 of free memory / (ISL + OSL) tokens rounded up, capped at "
    "4096, and its max_num_tokens of at least 2048 exceeds the decode tokens of a step, so it "
    "holds the planner's {b}); the finite run ({waves} requests in waves, planned wave by wave: "
    "x{wave_ratio}); tensor-parallel all-reduces (TP 1, none). Found: per request the H200's "
    "step (37-45 us) costs about the H100's (43 us at 470 on the 128/2048 calibration row), as "
    "the compute would (same GH100 die and 1,979 TFLOP/s fp8), not 1.43x less as the bandwidth "
    "would. Candidate, not adopted: the step as its kernels in sequence, GEMMs max(weights / "
    "bandwidth, 2N x B / peak) then attention reading the KV cache, refitted on the same three "
    "H100 rows (GEMMs at 0.44 of the peak, attention at 0.85 of the bandwidth) gives {additive} "
    "ms (x{additive_ratio}) and all 33 TensorRT-LLM check rows of sec. 8.6 within x0.91-1.18 "
    "(now x0.79-1.35), but the vLLM / SGLang 70B TP 4 bf16 rows go to x1.42 / x1.36 (SGLang "
    "out of 25 %) and the 0.85 attention share has no source of its own")

H200_FIGURES: dict[str, dict[str, str]] = {
    "trt-8b-h200-128-2048": {
        "ratio": "1.35", "b": "884", "implied": "33.0", "read": "75.8", "planned": "24.3",
        "waves": "3 x 884 + 348 of 3,000", "wave_ratio": "1.32", "additive": "31.6",
        "additive_ratio": "1.04"},
    "trt-8b-h200-500-2000": {
        "ratio": "1.25", "b": "769", "implied": "34.6", "read": "84.7", "planned": "27.1",
        "waves": "3 x 769 + 693 of 3,000", "wave_ratio": "1.25", "additive": "31.8",
        "additive_ratio": "1.08"},
}
"""The figures each H200 cause quotes; tests/planning/test_serve24_miss_causes.py checks the
planner's own ones (ratio, B, bytes read, step) and the implied step against today's plan."""

H200_DECODE_128_2048 = _H200_DECODE.format(**H200_FIGURES["trt-8b-h200-128-2048"])
H200_DECODE_500_2000 = _H200_DECODE.format(**H200_FIGURES["trt-8b-h200-500-2000"])

VLLM_70B_TP4 = (
    "x1.30 (SGLang on the same four H100s x1.24, inside 25 %; TensorRT-LLM's 70B TP 2 H100 "
    "rows x1.10-1.15 pass). The planned decode step at 1,186 requests is compute-bound, "
    "(2N + 4·L·h·c) x B / 4 at 0.33 of 989 TFLOP/s bf16 (127 ms) + 14.2 ms of all-reduces = "
    "141 ms, where the "
    "published rate implies 214 ms with the planned 17.4 ms prefill per request. Ruled out: "
    "vLLM's default max_num_seqs = 256 (vllm/engine/arg_utils.py; the README's command does "
    "not raise it): at 256 the planner gives x1.27 (SGLang x1.22), the compute-bound step "
    "being linear in B; the all-reduces' latency (160 per step x 10 us = 1.6 ms) - the 160 "
    "all-reduces of 1,186 x 8,192 x 2 B = 19.4 MB at 369 GB/s busbw take 14.2 ms and would "
    "have to take 6x that to close the 73 ms; the ShareGPT spread around the planned mean "
    "(the decode step is linear in the context and the prefill's attention term is 0.4 % of "
    "2N at 227 tokens). The step model that explains the H200 rows (kernels in sequence, "
    "GEMMs at 0.44 of the peak) makes this row x1.42. Cause not established")
