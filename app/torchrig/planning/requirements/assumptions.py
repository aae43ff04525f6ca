"""The planner's assumptions: each one is shown to the user with its basis.

Constants that are not measured here - CUDA context size, allocator headroom, DataLoader
workers, decode rates, utilisation of the tensor peak, the CNN reference measurement, serving
engine defaults, the Atari environment rate - each with its docstring naming where the figure
comes from (docs/estimation.md, vLLM, NVIDIA DeepLearningExamples, EnvPool, Schulman et al.).
"""

from __future__ import annotations

from torchrig.i18n import Msg
from torchrig.units import GiB

CUDA_OVERHEAD_BYTES = 1 * GiB
"""CUDA context, kernels and cuBLAS/cuDNN/NCCL workspaces per GPU process. Not measured here:
recent drivers with lazy module loading need roughly 0.3-1 GiB; we take the top of that range.
The benchmark measures it on a real GPU."""

FRAGMENTATION_FRACTION = 0.10
"""Headroom for the caching allocator's fragmentation and for peaks between steps: the 10% vLLM
leaves by default (gpu_memory_utilization = 0.9)."""

PREFETCH_FACTOR = 2
"""torch.utils.data.DataLoader's default batches prefetched per worker."""

WORKERS_PER_GPU = 4
"""~4 DataLoader workers per GPU is common advice (docs/estimation.md sec. 4); NVIDIA uses 8-10."""

DECODE_RATE_PER_CORE = (150.0, 300.0)
"""JPEG decode + RandomResizedCrop + normalize, images/s per core: an ESTIMATE with no primary
source (single-thread decode alone measures 360-864 img/s, ternaus/imread_benchmark)."""

OS_BASELINE_BYTES = 2 * GiB
RUNTIME_PER_PROCESS_BYTES = 1 * GiB
"""Host RAM for the OS and for each GPU process's Python + PyTorch + CUDA runtime: assumptions,
not measurements."""

MFU = 0.40
MFU_RANGE = (0.30, 0.49)
"""Fraction of the dense tensor peak a training step reaches (model FLOPs utilisation).
Published measurements imply 30% (Lambda: BERT-base SQuAD fp16 on A100, 443 samples/s) to 48%
(NVIDIA DLE: BERT-large seq 128 AMP on A100, 580 seq/s); matmuls alone reach 80-87% of peak
(docs/estimation.md sec. 5). A model, not a measurement of your GPU."""

CNN_REFERENCE = (2470.0, 2039e9, "resnet50")
"""NVIDIA DeepLearningExamples ResNet-50 v1.5 AMP on A100 80GB: 2470 img/s at 2039 GB/s.
CNN training is bound by memory traffic, not by tensor FLOPs (the same ResNet-50 reaches only
6-31% of the tensor peak across GPUs); the planner's memory-side estimate scales the traffic
per image implied by this measurement with each model's measured activation bytes."""

CNN_COMPUTE_REFERENCE: dict[str, tuple[float, float, str]] = {
    "tf32": (938.0, 156e12, "resnet50"),
    "fp32": (367.0, 15.7e12, "resnet50"),
}
"""The share of the peak a CNN's convolutions reach without 16-bit tensor cores, from NVIDIA
DeepLearningExamples ResNet-50 v1.5 (PyTorch 21.03, batch 256 TF32 / 112 FP32, one GPU):
938 img/s in TF32 on an A100 80GB (dense TF32 peak 156 TFLOP/s), 367 img/s in FP32 on a V100
16GB of a DGX-1 (15.7 TFLOP/s, V100 SXM2 datasheet). Utilisation = rate x ResNet-50's training
FLOPs per image / peak (about 15% and 57%): TF32 is compute-bound where the memory-traffic model
alone made it 1.34x too fast, FP32 on CUDA cores runs well above the transformers' 40%. AMP
stays on the memory-traffic model (:data:`CNN_REFERENCE`)."""

PREFILL_CHUNK_TOKENS = 2048
"""Tokens per prefill chunk: an assumption. Serving engines prefill long prompts in chunks
(vLLM's chunked prefill; the chunk is its max_num_batched_tokens setting), so activation memory
does not grow with the prompt."""

GPU_MEMORY_UTILIZATION = 0.9
"""Share of a GPU's memory a serving engine takes (vLLM's gpu_memory_utilization default):
weights, activations and the CUDA context first, the KV cache gets what is left of it."""

INT4_GROUP = 128
"""Weight-only int4 (GPTQ/AWQ style): one fp16 scale per group of 128 weights (assumption)."""

NVFP4_BLOCK = 16
"""NVFP4 (Blackwell): one fp8 (E4M3) scale per block of 16 fp4 values, plus one fp32 scale per
tensor (negligible); NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision
Inference" (NVIDIA technical blog, 2025)."""

PREFILL_UTILISATION = 0.60
"""Share of the dense tensor peak a serving engine's prefill reaches: fitted on TensorRT-LLM's
perf-overview, Llama 3.1 8B FP8 on one H100 SXM, 2,048 prompt / 128 output tokens, 3,450 output
tokens/s (docs/estimation.md sec. 8.6)."""

DECODE_BANDWIDTH_UTILISATION = 0.65
"""Share of the memory bandwidth a decode step reaches reading the weights and the KV cache:
fitted on the same table's 128 / 2,048-token row, 22,714 output tokens/s (sec. 8.6)."""

DECODE_COMPUTE_UTILISATION = 0.33
"""Share of the dense tensor peak a decode step's compute reaches when it, not the memory
reading, bounds the step (hundreds to thousands of short sequences at once: skinny GEMMs,
attention and sampling per step): fitted on the table's 128 / 128-token row, 28,312 output
tokens/s at the engine's 2,048 requests at once (sec. 8.6)."""

ENGINE_MAX_BATCH = 2048
"""The most requests a serving engine runs at once however much KV cache is free: TensorRT-LLM's
``max_batch_size`` default (tensorrt_llm/llmapi/llm_args.py)."""

HOST_STORAGE_BYTES_PER_TOKEN = 4
"""Pre-tokenized text on disk: int32 token ids (assumption for text datasets)."""

IMAGE_TASKS = ("image_classification", "detection_segmentation", "image_generation")

ATARI_FRAMES_PER_S_PER_CORE = 18_249 / 12
FRAME_SKIP = 4
ATARI_ENV_SOURCE = Msg(
    "EnvPool README benchmark (sail-sg/envpool): ALE Atari with wrappers, Python subprocess "
    "vector env (gym.vector) 18,249 frames/s on a 12-core i7-8750H laptop; one environment "
    "step = 4 frames (frame skip 4)",
    "EnvPool README 基准（sail-sg/envpool）：带包装器的 ALE Atari，Python 子进程向量环境"
    "（gym.vector）在 12 核 i7-8750H 笔记本上 18,249 帧/秒；一个环境步 = 4 帧（跳帧 4）")
"""Environment steps per second one CPU core simulates for Atari under the common Python
subprocess vector env: 18,249 / 12 frames/s per core / 4 frames per step = 380 steps/s."""

DEFAULT_ENV_PROCESSES = 8
"""PPO on Atari runs 8 parallel environments (Schulman et al. 2017, arXiv 1707.06347, table 5):
one core each under a subprocess vector env."""
