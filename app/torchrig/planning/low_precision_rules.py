"""Why a workload's fp8 / fp4 precision is refused outside what the planner models: fp4 only
serves (NVFP4, TensorRT-LLM / vLLM / SGLang); fp8 serves and trains transformers the
Transformer Engine way (docs/estimation.md sec. 14). The texts the workload's rules give,
kept apart so workload.py stays a table of rules."""

from __future__ import annotations

REFUSALS: dict[str, str] = {
    "fp4_outside_serving": (
        "fp4 (NVFP4) is modelled for task llm_inference only (TensorRT-LLM, vLLM, SGLang); fp4 "
        "training is not modelled: train in fp8 (Transformer Engine) or amp_bf16"),
    "fp8_inference": (
        "fp8 inference is modelled for task llm_inference only (TensorRT-LLM, vLLM, SGLang)"),
    "fp8_not_transformer": (
        "fp8 training is modelled for transformer models only (Transformer Engine's fp8 linear "
        "layers); train this model in amp_bf16 or amp_fp16"),
    "fp8_lora": (
        "fp8 LoRA fine-tuning is not modelled (the frozen base's fp8 copy and the adapters' "
        "precision are not counted); use amp_bf16, or int8 / int4 for a QLoRA-style base"),
    "fp8_moe": (
        "fp8 training of a mixture of experts is not modelled (the experts' grouped GEMMs and "
        "their fp8 copies are not counted); use amp_bf16"),
}
