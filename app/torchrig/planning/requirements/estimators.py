"""Reference estimators (for comparison, as their authors compute them): DeepSpeed's
ZeRO-2 / ZeRO-3 model-states estimators and HF accelerate's ``estimate-memory``. The plan shows
what they would print beside its own figure; the host RAM of CPU offload uses DeepSpeed's.
"""

from __future__ import annotations

# DeepSpeed's ZeRO defaults (deepspeed/runtime/zero/config.py and offload_config.py), which the
# planner uses where a run does not set them: the gradient reduction bucket, the stage-3
# prefetch bucket and the most gathered parameters stage 3 keeps live.
REDUCE_BUCKET_ELEMENTS = 500_000_000
"""``reduce_bucket_size`` (5e8 elements): stage_1_and_2.py allocates one such 16-bit buffer
(two with ``overlap_comm``, off by default for stages 1 and 2) whatever the model's size, and
stage3.py one for contiguous gradients."""
PREFETCH_BUCKET_ELEMENTS = 50_000_000
"""``stage3_prefetch_bucket_size`` (5e7 elements)."""
MAX_LIVE_PARAMETERS = 1_000_000_000
"""``stage3_max_live_parameters`` (1e9 elements)."""


def deepspeed_zero2_estimate(params: float, gpus_per_node: int, nodes: int, cpu_offload: bool,
                             buffer_factor: float = 1.5) -> tuple[int, int]:
    """DeepSpeed's estimate_zero2_model_states_mem_needs (current code, after PR #5099):
    returns (cpu_bytes, gpu_bytes)."""
    total = gpus_per_node * nodes
    if cpu_offload:
        return int(params * max(4 * total, 16) * buffer_factor), int(2 * params)
    return int(params * 4 * gpus_per_node * buffer_factor), int(2 * params + int(18 * params
                                                                                   / total))


def deepspeed_zero3_estimate(params: float, largest_layer: float, gpus_per_node: int,
                             nodes: int, offload_optimizer: bool, offload_params: bool,
                             zero_init: bool = True,
                             buffer_factor: float = 1.5) -> tuple[int, int]:
    """DeepSpeed's estimate_zero3_model_states_mem_needs: returns (cpu_bytes, gpu_bytes)."""
    total = gpus_per_node * nodes
    per_node = 1 / nodes
    largest = 4 * largest_layer
    if offload_optimizer:
        if offload_params:
            gpu = largest
            cpu = (params * 18 * per_node if zero_init
                   else params * max(4 * gpus_per_node, 18 * per_node)) * buffer_factor
        else:
            gpu = largest + int(2 * params / total)
            cpu = (params * 16 * per_node if zero_init
                   else params * max(4 * gpus_per_node, 16 * per_node)) * buffer_factor
    else:
        gpu = largest + int(18 * params / total)
        cpu = (largest_layer * 4 * gpus_per_node if zero_init
               else params * 4 * gpus_per_node) * buffer_factor
    return int(cpu), int(gpu)


def accelerate_estimate(total_fp32_bytes: float, precision: str) -> tuple[float, float]:
    """HF accelerate ``estimate-memory``: (model bytes, "training using Adam" bytes).

    It sizes all parameters and buffers at the dtype, and its training column is the largest
    of four equal-sized components - 4x the fp32 size, 2x for fp16/bf16 - not a sum.
    """
    divisor = {"fp32": 1, "tf32": 1, "amp_fp16": 2, "amp_bf16": 2, "bf16": 2, "int8": 4,
               "int4": 8, "fp8": 4, "fp4": 8}[precision]
    model = total_fp32_bytes / divisor
    training = 4 * total_fp32_bytes if divisor == 1 else 2 * total_fp32_bytes
    return model, training
