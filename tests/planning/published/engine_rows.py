"""SGLang and vLLM serving rows of the published reference table (issue 24;
docs/published-reference.md sec. 2): the SGLang team's own offline comparison of SGLang v0.3.0
with vLLM v0.6.0 on ShareGPT prompts.

ShareGPT requests have varied lengths; the harness plans one request length, the mean. The mean
output comes from the row's own table (output tokens/s over requests/s); the table prints no
input length, so the mean input is taken from the SGLang maintainer's ShareGPT run with the same
``sglang.bench_serving`` (written in each row's ``assumed``).
"""

from __future__ import annotations

from typing import Any

from published.row_types import Row, Serving, Source, Tolerance

SGLANG_VS_VLLM = ("https://github.com/sgl-project/sglang/blob/"
                  "120affb9613cc3f5bcd055ec09c7621d3ced0ebc/benchmark/benchmark_vllm_060/README.md")
SHAREGPT_RUN = "https://github.com/sgl-project/sglang/issues/1639"
SHAREGPT_INPUT = 227
"""Mean ShareGPT prompt: 453,502 input tokens over 2,000 prompts (226.75) in the SGLang
maintainer's run of ``sglang.bench_serving --dataset-name sharegpt`` (sglang issue #1639,
2024-10-17), rounded."""

ENGINE_TOL = Tolerance(0.25, (
    "the same table's two engines differ by 3.6-4.2 % on one setup (SGLang 4281.51 vs vLLM "
    "4132.37 output tok/s, 3856.01 vs 3700.64), but the planner plans ShareGPT's varied "
    "requests at their mean length and the mean input is taken from another run: the serving "
    "rows' 25 %"))

_VERSION = ("SGLang v0.3.0 and vLLM v0.6.0 (vLLM with --num-scheduler-steps 10), "
            "README at sglang commit 120affb")


def _engine(rid: str, engine: str, model: str, gpu: str, tp: int, table: str,
            req_per_s: float, out_per_s: float) -> Row:
    setup: dict[str, Any] = {"task": "llm_inference", "mode": "infer", "model": model,
                             "gpus_per_node": tp, "nodes": 1}
    if tp > 1:
        setup |= {"strategy": "tensor_parallel", "tp_size": tp}
    output = round(out_per_s / req_per_s)
    return Row(
        id=rid, kind="serving",
        source=Source(SGLANG_VS_VLLM, f"'Offline benchmark results' > '{table}', row RPS inf, "
                      f"5000 prompts, {engine}: request throughput {req_per_s}, output token "
                      f"throughput {out_per_s}", _VERSION),
        gpu=gpu, setup=setup, published=out_per_s, unit="output tokens/s",
        compared="output_tokens_per_s",
        serving=Serving(SHAREGPT_INPUT, output, "bf16", "auto", 5000),
        derivation=f"mean output per request = {out_per_s} / {req_per_s} = "
                   f"{out_per_s / req_per_s:.2f} -> {output} tokens",
        hand={"req_per_s": req_per_s, "out_per_s": out_per_s},
        tolerance=ENGINE_TOL, role="check",
        assumed=f"ShareGPT ({SHAREGPT_INPUT}-token mean prompt from {SHAREGPT_RUN}, "
                f"{output}-token mean output from the row) planned as one length; the model's "
                "bf16 weights and cache (both engines' default dtype, none stated); 'A100 80G' "
                "and 'H100 80G' planned as the SXM cards (the form factor is not stated); the "
                "llama-3-8b / llama-3-70b presets stand for Llama 3.1 8B / 70B Instruct (same "
                "shapes); vLLM ran with --max_model_len 4096 and SGLang --mem-frac 0.88 at TP 4")


_8B, _70B = "Llama 3.1 8B Instruct 1 x A100 80G", "Llama 3.1 70B Instruct 4 x H100 80G"
_A100, _H100 = "nvidia-a100-80gb-sxm", "nvidia-h100-sxm"

SERVING_ENGINES: tuple[Row, ...] = (
    _engine("sglang-v0.3-8b-a100-sharegpt", "SGLang", "llama-3-8b", _A100, 1, _8B,
            22.03, 4281.51),
    _engine("vllm-v0.6-8b-a100-sharegpt", "vLLM", "llama-3-8b", _A100, 1, _8B, 21.27, 4132.37),
    _engine("sglang-v0.3-70b-h100tp4-sharegpt", "SGLang", "llama-3-70b", _H100, 4, _70B,
            19.84, 3856.01),
    _engine("vllm-v0.6-70b-h100tp4-sharegpt", "vLLM", "llama-3-70b", _H100, 4, _70B,
            19.04, 3700.64),
)
