"""YOLOv8 presets: the architecture against Ultralytics' published table, training memory
against MMYOLO's."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from torchrig.cli import main
from torchrig.planning.device import DeviceSpec
from torchrig.planning.presets import get_preset, load_calibration
from torchrig.planning.requirements import plan
from torchrig.planning.workload import load_workload
from torchrig.units import GiB

ROOT = Path(__file__).resolve().parents[2]
A100 = DeviceSpec("A100 80GB SXM", 80 * GiB,
                  {"fp32": 19.5e12, "tf32": 156e12, "fp16": 312e12, "bf16": 312e12}, 2039e9,
                  True)


@pytest.mark.parametrize("pid, params_m, gflops", [
    ("yolov8n", 3.2, 8.7), ("yolov8s", 11.2, 28.6), ("yolov8m", 25.9, 78.9),
])
def test_the_build_matches_ultralytics_table(pid, params_m, gflops):
    """Ultralytics YOLOv8 docs, detection (COCO) at 640 px: params (M) and FLOPs (B), counted
    at 2 per multiply-add on the BatchNorm-fused model; the measured forward uses the same
    convention (BatchNorm is not a multiply-add), so both round to the table's figures."""
    assert round(get_preset(pid).params / 1e6, 1) == params_m
    measured = load_calibration().vision[pid]
    assert measured.image_size == 640
    assert round(measured.forward_flops_per_sample / 1e9, 1) == gflops


@pytest.mark.parametrize("pid, mem_gb", [("yolov8n", 2.8), ("yolov8s", 4.0), ("yolov8m", 7.2)])
def test_training_memory_matches_mmyolo(pid, mem_gb):
    """open-mmlab/mmyolo configs/yolov8/README.md: YOLOv8 on COCO at 640 px, 8x A100, 16 images
    per GPU, AMP, SyncBN: Mem 2.8 / 4.0 / 7.2 GB (mmengine's peak of allocated memory). The
    planner's allocations (model states + measured activations) stay below that - it does not
    model the loss's label assigner or cuDNN's workspaces - and its total, with the CUDA context
    and the 10% margin that cover them, lands within 10% of it."""
    w = replace(load_workload(ROOT / "workloads" / "coco-yolov8m.json"), model=pid)
    req = plan(w, A100)
    measured = mem_gb * GiB
    allocations = req.vram_without_margin - req.vram_per_gpu["overhead"].value
    assert allocations < measured
    assert req.vram_total == pytest.approx(measured, rel=0.10)


def test_the_sample_yolo_workload_plans_on_the_cli(capsys):
    path = ROOT / "workloads" / "coco-yolov8m.json"
    assert main(["plan", "--workload", str(path), "--gpu", "nvidia-a100-80gb-sxm", "--json"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    assert doc["vram_verdict"] == "fits"
    assert doc["throughput"]["samples_per_s"] > 0
    assert "measured" in doc["vram_per_gpu"]["notes"]["activations"]["en"]
