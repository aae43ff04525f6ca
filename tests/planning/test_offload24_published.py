"""ZeRO-Offload's plan against figures its authors published (docs/estimation.md sec. 6.2). The
planner's figures are not fitted to these: the CPU-Adam rate is another source's (DeepSpeed
PR #735), the compute the planner's 40 % of the catalog's peak."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from tests.planning.plan_cli import plan_json

from torchrig.planning.requirements.offload_time import offload_step
from torchrig.planning.workload import default_workload

# Ren et al., "ZeRO-Offload: Democratizing Billion-Scale Model Training", USENIX ATC 2021
# (arXiv 2101.06840), abstract: "40 TFlops/GPU on a single NVIDIA V100 GPU for 10B parameter
# model". The model is DeepSpeed's ZeRO-Offload tutorial's (docs/_tutorials/zero-offload.md):
# GPT-2, 50 layers, hidden 4096, 32 heads, micro-batch 10, activation checkpointing, fp16,
# ZeRO-2 with the optimizer on the CPU, one V100 (Megatron-LM's sequence of 1,024 tokens).
_PUBLISHED_TFLOPS = 40.0
_TEN_B_ON_V100 = (
    "--task", "llm_finetune_full", "--model", "custom", "--style", "gpt", "--layers", "50",
    "--hidden", "4096", "--heads", "32", "--vocab", "50257", "--seq-len", "1024",
    "--batch", "10", "--grad-accumulation", "1", "--checkpointing", "on",
    "--precision", "amp_fp16", "--strategy", "zero2", "--offload", "optimizer", "--gpus", "1",
    "--gpu", "nvidia-v100-32gb-pcie")


def test_ten_billion_on_one_v100_near_the_papers_40_tflops(capsys: Any) -> None:
    """The plan's achieved FLOP/s (its FLOPs per sample, recompute included, x samples/s)
    lands at 30.8 TFLOP/s: 23 % under the paper's 40. Tolerance 30 %: the catalog's V100 is the
    PCIe board (112 TFLOP/s fp16 against the DGX-2's SXM3 at 125), and PR #735's CPU is not
    the DGX-2's two 24-core Xeons; the wait (CPU Adam 7.3 s + 1.6 s upload) is 31 % of the
    step. Without the offload wait the plan would say 44.8 (+12 %): the wait is what brings it
    under."""
    doc = plan_json(capsys, *_TEN_B_ON_V100)
    t = doc["throughput"]
    assert doc["parameters"]["total"] == pytest.approx(10.28e9, rel=1e-3)
    achieved = t["flops_per_sample"] * t["samples_per_s"] / 1e12
    assert achieved == pytest.approx(_PUBLISHED_TFLOPS, rel=0.30)
    assert achieved < _PUBLISHED_TFLOPS  # the catalog's slower board: an estimate below
    assert t["offload_time_s"] > 0


def test_cpu_adam_of_llama_2_7b_on_one_node_takes_over_4_s() -> None:
    """ZenFlow (DeepSpeed blog, blogs/deepspeed-zenflow/README.md): Llama-2-7B with ZeRO-Offload
    on 4 A100s, "the CPU path can take longer than 4s while the backward pass takes
    approximately 2s". The node's CPU updates all 4 shards: 6.738e9 / (11.6e9 / 8.2) = 4.76 s,
    and the wait adds the 4 ranks' uploads (0.43 s each at 25.2 GB/s) on top."""
    workload = replace(default_workload("llm_finetune_full"), gpus_per_node=4,
                       strategy="zero2", offload="optimizer").validate()
    step = offload_step(workload, 6.738e9, 6.738e9, 2.0 / 0.75, 31.5e9 * 0.8)
    assert step.cpu_adam_s == pytest.approx(6.738e9 * 8.2 / 11.6e9, rel=1e-9)
    assert step.cpu_adam_s > 4.0
    assert step.exposed_s > 4.0
