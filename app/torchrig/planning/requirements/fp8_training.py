"""fp8 training as NVIDIA Transformer Engine runs it (docs/estimation.md sec. 14).

TE (and Megatron-Core on top of it) computes the GEMMs of a transformer block's linear layers
(QKV, attention output projection, MLP up/gate and down) in fp8 and everything else in bf16:
attention itself (softmax(QK^T)V), norms, activations, the embedding and the LM head. The
weights stay in high precision with fp32 master copies and optimizer states exactly as under
``amp_bf16``; fp8 adds, per linear layer:

- an fp8 copy of the weight, made before the GEMM and held for the backward's input gradient
  (TE "Performance considerations - Memory usage", example 2: "1 MB (weight in FP8)" for a
  1024 x 1024 layer on Hopper/Ada);
- the layer's input saved for the weight gradient in fp8 (1 B per element) in place of the
  16-bit copy autocast saves (same example: "1 MB (input in FP8 saved for backward)");
- the delayed-scaling state: an fp32 amax history of ``amax_history_len`` (1024 by default)
  entries plus a scale and an inverse scale for 3 forward tensors (input, weight, output) and
  2 backward ones (grad output, grad input) per GEMM (TE ``set_meta_tensor``; default
  ``DelayedScaling.amax_history_len = 1024``).

Time: the linear-layer GEMM FLOPs at the GPU's dense fp8 peak and the rest at its bf16 peak,
both at :data:`FP8_TRAINING_UTILISATION`, the share Megatron-Core + TE reaches, fitted on NVIDIA's
published fp8 training table (the calibration row of tests/planning/published/reference_rows.py).

This module keeps every fp8-only term in one place; :mod:`.activations`, :mod:`.vram`,
:mod:`.model_states` and :mod:`.throughput` call it where a term enters.
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.planning.presets import TransformerArch
from torchrig.planning.workload import Workload

FP8_TRAINING_UTILISATION = 0.540
"""Share of each dense peak (fp8 for the linear GEMMs, bf16 for the rest) a Megatron-Core +
Transformer Engine fp8 training step reaches. Fitted on NVIDIA Megatron-Bridge's performance
summary, 25.11 container, DGX-H100, LLAMA3_8B FP8-CS: 14,451 tokens/s/GPU on 8 GPUs (GBS 128,
MBS 1, sequence 8192, FSDP, GA 16), planned through this planner's FLOP count and scaling
model (docs/estimation.md sec. 14.3 works the fit). One share for both peaks: the tables give
no bf16 run of the same setup to separate them."""

FP8_UTILISATION_SOURCE = Msg(
    "NVIDIA Megatron-Bridge performance summary, 25.11 container: LLAMA3_8B FP8-CS on 8x H100 "
    "(DGX-H100), 14,451 tokens/s/GPU",
    "NVIDIA Megatron-Bridge 性能汇总（25.11 容器）：8× H100（DGX-H100）上 LLAMA3_8B FP8-CS，"
    "每 GPU 每秒 14,451 token")

FP8_WEIGHT_COPY_BYTES = 1.0
"""Bytes per linear-layer weight of the fp8 copy TE holds from forward to backward."""

FP8_SAVED_INPUT_BYTES = 1.0
"""Bytes per element of a linear layer's input saved for the weight gradient in fp8."""

AMAX_HISTORY_LEN = 1024
"""``DelayedScaling.amax_history_len``'s default in Transformer Engine (and Megatron-Core's
``fp8_amax_history_len``)."""

SCALED_TENSORS_PER_GEMM = 5
"""fp8 tensors with their own scaling state per GEMM: input, weight and output in forward, grad
output and grad input in backward (TE's ``set_meta_tensor``: num_gemms x 3 and x 2)."""


def is_fp8_training(w: Workload) -> bool:
    return w.precision == "fp8" and w.is_training


def linear_gemms(arch: TransformerArch) -> int:
    """TE modules' GEMMs per model: QKV (one fused LayerNormLinear), the attention output
    projection, and the MLP's two (LayerNormMLP fuses gate and up into fc1) in every layer."""
    return 4 * arch.layers


def weight_copy_bytes(arch: TransformerArch, model_parallel: int) -> float:
    """The fp8 copies of the blocks' linear weights one GPU holds (split by tensor / pipeline
    parallelism; not by ZeRO-3, whose gathered weight is quantized and the copy kept for
    backward)."""
    return FP8_WEIGHT_COPY_BYTES * arch.total_matmul_params() / max(1, model_parallel)


def scaling_state_bytes(arch: TransformerArch, model_parallel: int) -> float:
    """fp32 amax histories, scales and inverse scales of every fp8 tensor (delayed scaling)."""
    per_gemm = SCALED_TENSORS_PER_GEMM * (AMAX_HISTORY_LEN + 2) * 4
    return float(per_gemm * linear_gemms(arch)) / max(1, model_parallel)


def saved_input_elements_per_token(arch: TransformerArch) -> float:
    """Elements per token of one layer that its linear layers save for the weight gradient:
    the QKV input (hidden), the output projection's input (the heads' width), the MLP's input
    (hidden; gate and up share it) and the down projection's input (FFN wide)."""
    return float(arch.hidden + arch.q_dim + arch.hidden + arch.activation_ffn)


def saved_input_saving_per_token(w: Workload, arch: TransformerArch) -> float:
    """Bytes per token per layer fp8 saves against the 16-bit (autocast) calibration: each
    saved linear input drops from 2 bytes to :data:`FP8_SAVED_INPUT_BYTES`. 0 when the run is
    not fp8 training."""
    if not is_fp8_training(w):
        return 0.0
    return (2.0 - FP8_SAVED_INPUT_BYTES) * saved_input_elements_per_token(arch)


def flop_split(w: Workload, arch: TransformerArch, seq: int, head_width: int
               ) -> tuple[float, float]:
    """(fp8 FLOPs, bf16 FLOPs) of one training sample: 6 x the blocks' linear weights per token
    in fp8; the head's matmul (6 x width x hidden) and attention (12·L·s·h per token, PaLM
    appendix B) in bf16. Checkpointing's repeated forward is counted as in
    :mod:`.flops` (x 4/3 on both)."""
    ck = 4 / 3 if w.gradient_checkpointing else 1.0
    fp8 = 6.0 * arch.active_matmul_params() * seq * ck
    bf16 = (6.0 * head_width * arch.hidden + 12.0 * arch.layers * arch.hidden * seq) * seq * ck
    return fp8, bf16


def step_rate(fp8_flops: float, bf16_flops: float, fp8_peak: float, bf16_peak: float
              ) -> float:
    """Samples per second one GPU trains: the fp8 part at the fp8 peak and the bf16 part at
    the bf16 peak, each at :data:`FP8_TRAINING_UTILISATION`, one after the other."""
    u = FP8_TRAINING_UTILISATION
    return 1.0 / (fp8_flops / (fp8_peak * u) + bf16_flops / (bf16_peak * u))
