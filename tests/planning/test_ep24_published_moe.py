"""A published MoE training rate with expert parallelism, against the planner (issue 24;
docs/estimation.md sec. 12.1).

Source: NVIDIA NeMo AutoModel performance summary, "Pre-Training Performance, System: DGX-H100,
Precision: BF16", https://docs.nvidia.com/nemo/automodel/nightly/performance-summary.html (the
repository's docs/performance-summary.md): Qwen3 MoE 30B, 8 GPUs, GBS 512, MBS 4, GA 16,
sequence 4096, TP 1, PP 1, CP 1, EP 8, FSDP 8, "TE + DeepEP": 21.773 s per global step,
12,040 tokens/s/GPU (277 model TFLOP/s/GPU). Its recipe,
examples/benchmark/configs/qwen3_moe_30b_te_deepep.yaml in NVIDIA-NeMo/Automodel, sets
activation_checkpointing: true and fake_balanced_gate: true.

Tolerance: the planner must land within 20 % below the published rate, and not above it. It
lands 17 % below (9,968 tokens/s/GPU), because it counts more all-to-all than the benchmark
sends: the fake balanced gate routes token i to experts 8i .. 8i+7 (mod 128), eight
consecutive experts that sit on one GPU (16 per GPU), and DeepEP sends a token once per
destination GPU, so the benchmark moves 1/8 of the top-8 x hidden volume the model counts
(Megatron-Core's alltoall dispatcher and DeepSpeed-MoE send one copy per expert; real routing
over 8 GPUs reaches 5.3 of them on average). With 1/8 of the volume the hand estimate is
16 x (1.274 s compute + 0.049 s all-to-all) = 21.2 s per step, 12.4k tokens/s (+3 %). Before
issue 24 the planner took the all-to-all as free and gave 12,859 tokens/s, above a measurement
whose all-to-alls are not free: the upper bound below fails on that code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from torchrig.planning.device import DeviceSpec
from torchrig.planning.hf_config import hf_workload_fields, load_hf_config
from torchrig.planning.links import LINKS
from torchrig.planning.requirements import plan
from torchrig.planning.workload import workload_from_options
from torchrig.units import GiB

SOURCE = "https://docs.nvidia.com/nemo/automodel/nightly/performance-summary.html"
PUBLISHED_TOKENS_PER_S_PER_GPU = 12_040
PUBLISHED_STEP_S = 21.773
# DGX-H100: H100 SXM (dense bf16 989.4 TFLOP/s, 3.35 TB/s, NVLink 4), ConnectX-7 ports.
DGX_H100 = DeviceSpec("H100 SXM5 80GB", 80 * GiB, {"bf16": 989.4e12, "fp16": 989.4e12},
                      3.35e12, True, LINKS["nvlink4"], LINKS["ib_ndr"],
                      architecture="Hopper", nics_per_node=8)
CONFIG = Path(__file__).parent / "hf_configs" / "qwen3-30b-a3b"


def _published_setup():
    fields = hf_workload_fields(load_hf_config(CONFIG), "llm_finetune_full")
    fields.pop("name")
    return workload_from_options(**{
        **fields, "precision": "amp_bf16", "gpus": 8, "batch": 4, "seq_len": 4096,
        "grad_accumulation": 16, "strategy": "expert_parallel", "ep_size": 8,
        "checkpointing": True})


def test_qwen3_30b_a3b_ep8_on_a_dgx_h100():
    w = _published_setup()
    # The setup as published: GBS 512 = 4 x 16 x 8 ranks; 512 x 4096 tokens / 8 GPUs / 21.773 s
    # = 12,040 tokens/s/GPU, the table's figure.
    assert w.global_batch == 512
    from_step = 512 * 4096 / 8 / PUBLISHED_STEP_S
    assert from_step == pytest.approx(PUBLISHED_TOKENS_PER_S_PER_GPU, abs=1)
    t = plan(w, DGX_H100).throughput
    per_gpu = t["tokens_per_s"].value / 8
    ratio = per_gpu / PUBLISHED_TOKENS_PER_S_PER_GPU
    # Within 20 % below; not above (the cause of the -17 %: the module docstring).
    assert 0.80 <= ratio <= 1.0, (per_gpu, SOURCE)
    # The all-to-all the planner counts: 2 x 3 passes (checkpointing) x 48 layers = 288 per
    # micro-batch, each 16,384 tokens x 8 x 2048 x 2 B x 7/8 / 369e9 + 10 us = 1.283 ms; x 16
    # micro-batches = 5,912 ms per step.
    a2a = 16 * 288 * (16384 * 8 * 2048 * 2 * 7 / 8 / (450e9 * 0.82) + 10e-6)
    assert f"{a2a * 1e3:.1f} ms of expert-parallel all-to-all" in t["scaling_efficiency"].note.en
