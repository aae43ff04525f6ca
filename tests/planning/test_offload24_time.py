"""ZeRO-Offload's time in the plan (issue 24, docs/estimation.md sec. 6.2): the host-link copies
and CPU Adam per optimizer step, what hides behind the passes, and the solver reusing the
plan's figure. Expected values are computed by hand in each test."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from tests.planning.plan_cli import plan_json, plan_text

from torchrig.catalog import load_catalog
from torchrig.planning.device import device_spec
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.offload_time import offload_step
from torchrig.planning.solver import solve
from torchrig.planning.workload import Workload, default_workload

# DeepSpeed PR #735: DeepSpeedCPUAdam, 11.6B parameters in 8.2 s (docs/estimation.md sec. 6.2).
_ADAM = 11.6e9 / 8.2  # 1.4146e9 parameters/s per node


def _w(**fields: Any) -> Workload:
    base: dict[str, Any] = dict(strategy="zero2", offload="optimizer", gpus_per_node=1, nodes=1,
                gradient_checkpointing=False, grad_accumulation=1, precision="amp_bf16")
    return replace(default_workload("llm_finetune_full"), **(base | fields)).validate()


def test_optimizer_offload_one_rank_by_hand() -> None:
    # 1e9 parameters, 2 GB/s link: the 16-bit shard is 2 GB = 1.0 s one way. One micro-batch of
    # 3.0 s: backward 2.0 s hides the gradients going down; then CPU Adam 1e9 / 1.4146e9 =
    # 0.7069 s and the weights back up 1.0 s, neither hidden.
    step = offload_step(_w(), 1e9, 1e9, 3.0, 2e9)
    assert step.copy_s == pytest.approx(1.0)
    assert step.cpu_adam_s == pytest.approx(1e9 / _ADAM)
    assert step.exposed_s == pytest.approx(0.70690 + 1.0, rel=1e-4)


def test_parameter_offload_fetches_in_the_passes_and_sends_nothing_up() -> None:
    # ZeRO-3 with the weights offloaded too: forward (1/3 of 1.5 s = 0.5 s) fetches the 1.0 s
    # shard: 0.5 s show; backward (1.0 s) fetches it again and sends the gradients, one each
    # way: 1.0 s, hidden. CPU Adam 0.7069 s; no upload after the step (weights stay on the CPU).
    w = _w(strategy="zero3", offload="optimizer_and_params")
    step = offload_step(w, 1e9, 1e9, 1.5, 2e9)
    assert step.exposed_s == pytest.approx(0.5 + 0.70690, rel=1e-4)
    # The same step with the optimizer only: nothing fetched, backward hides the gradients,
    # the 1.0 s upload is back.
    only = offload_step(_w(strategy="zero3"), 1e9, 1e9, 1.5, 2e9)
    assert only.exposed_s == pytest.approx(0.70690 + 1.0, rel=1e-4)


def test_n_ranks_shrink_the_shard_but_share_the_nodes_cpu() -> None:
    # 4 GPUs on one node: each rank's shard 0.25e9 -> 0.25 s one way; the node's CPU updates
    # all 4 shards: 1e9 / 1.4146e9 = 0.7069 s, as for one rank. 3.0 s compute hides the
    # gradients; the upload is 0.25 s.
    four = offload_step(_w(gpus_per_node=4), 1e9, 1e9, 3.0, 2e9)
    assert four.shard_params == pytest.approx(0.25e9)
    assert four.copy_s == pytest.approx(0.25)
    assert four.exposed_s == pytest.approx(0.70690 + 0.25, rel=1e-4)
    # 2 nodes x 2 GPUs: same shard, but each node's CPU updates only 2 shards: 0.3534 s.
    spread = offload_step(_w(gpus_per_node=2, nodes=2), 1e9, 1e9, 3.0, 2e9)
    assert spread.cpu_adam_s == pytest.approx(0.5e9 / _ADAM)
    assert spread.exposed_s == pytest.approx(0.35345 + 0.25, rel=1e-4)


def test_accumulation_moves_the_gradients_every_micro_batch() -> None:
    # 3 micro-batches of 1.5 s (backward 1.0 s), 1 GB/s: the shard is 2.0 s one way. Each
    # micro-batch's gradients go down: 1.0 s shows each time (3.0 s); the sum coming back up
    # from the second on runs the other way, in parallel. + Adam 0.7069 + upload 2.0.
    step = offload_step(_w(grad_accumulation=3), 1e9, 1e9, 1.5, 1e9)
    assert step.exposed_s == pytest.approx(3.0 + 0.70690 + 2.0, rel=1e-4)
    # Weights offloaded too: forward (0.5 s) fetches 2.0 s: 1.5 s shows every micro-batch;
    # backward fetches 2.0 s up (+ 2.0 s of the sum from the second on) against 2.0 s down:
    # 1.0 s, then 3.0 s. (1.5 + 1.0) + 2 x (1.5 + 3.0) = 11.5 s + Adam 0.7069, no upload.
    w = _w(grad_accumulation=3, strategy="zero3", offload="optimizer_and_params")
    assert offload_step(w, 1e9, 1e9, 1.5, 1e9).exposed_s == pytest.approx(11.5 + 0.70690,
                                                                           rel=1e-4)


def test_fp32_training_moves_four_bytes_a_parameter() -> None:
    step = offload_step(_w(precision="fp32"), 1e9, 1e9, 30.0, 2e9)
    assert step.copy_s == pytest.approx(2.0)  # 4 B x 1e9 / 2e9 B/s


# Llama 2 7B on one RTX 4090, ZeRO-2 with the optimizer offloaded (the example).
_LLAMA_4090 = ("--task", "llm_finetune_full", "--model", "llama-2-7b", "--strategy", "zero2",
               "--gpus", "1", "--offload", "optimizer", "--gpu", "nvidia-rtx-4090")


def test_the_plan_carries_the_wait_and_its_time_by_hand(capsys: Any) -> None:
    doc = plan_json(capsys, *_LLAMA_4090)
    t = doc["throughput"]
    params = 6_738_415_616  # Llama 2 7B with its LM head (the plan's parameter line)
    assert doc["parameters"]["total"] == params
    link = 31.5e9 * 0.8  # PCIe 4.0 x16 per direction x 0.8 (planning/links.py)
    copy = 2 * params / link  # 0.535 s, under backward's 3/4 of the 1.77 s micro-batch
    wait = params / _ADAM + copy  # CPU Adam 4.763 s + the upload 0.535 s = 5.298 s
    assert t["offload_time_s"] == pytest.approx(wait, rel=1e-6)
    assert doc["device"]["host_link"] == "pcie4_x16"  # the 4090's own, from the catalog
    micro = 1 / t["samples_per_s_per_gpu"]  # batch 1, one rank, no accumulation
    assert copy < 0.75 * micro
    samples = 52_002 * 3
    assert t["total_time_s"] == pytest.approx(samples * (micro + wait), rel=1e-6)
    assert "cpu_adam" in [a["key"] for a in doc["assumptions"]]
    text = plan_text(capsys, *_LLAMA_4090)
    assert "ZeRO-Offload wait per step" in text and "CPU Adam 4.8 s" in text


def test_no_offload_no_wait_item() -> None:
    gpu = device_spec(load_catalog().get("nvidia-rtx-4090"))
    req = plan(_w(offload="none"), gpu)
    assert "offload_time_s" not in req.throughput


def test_solver_takes_the_plans_time_without_adding_its_own() -> None:
    gpu = device_spec(load_catalog().get("nvidia-rtx-4090"))
    w = _w(offload="none", gradient_checkpointing=True)
    answer = solve(w, gpu)
    offload = next(c for c in answer.changes if c.fields.get("offload") == "optimizer")
    req = plan(offload.apply(w), gpu)
    assert offload.time_s == pytest.approx(req.throughput["total_time_s"].value, rel=1e-9)
    assert "offload waits 5.3 s per optimizer step" in offload.time_note.en
