"""The verdicts a researcher acts on (issue 15): each example that used to be wrong, with the
right verdict and a fix that works when applied."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from torchrig.builds.build import load_build
from torchrig.builds.capabilities import from_build, from_profile
from torchrig.catalog import load_catalog
from torchrig.cli import main
from torchrig.findings import Severity
from torchrig.hardware.model import CpuInfo, DiskInfo, GpuInfo, MemoryInfo, SystemProfile
from torchrig.planning.analysis import analyze, recommend
from torchrig.planning.device import DeviceSpec, device_spec
from torchrig.planning.gpu_choice import gpu_options
from torchrig.planning.links import LINKS
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.assumptions import ATARI_FRAMES_PER_S_PER_CORE, FRAME_SKIP
from torchrig.planning.requirements.scaling import scaling_curve
from torchrig.planning.solver import solve
from torchrig.planning.workload import load_workload
from torchrig.units import TB, GiB

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _workload(name):
    return load_workload(ROOT / "workloads" / f"{name}.json")


def _rtx4090(catalog, ram=64 * GiB):
    profile = SystemProfile(
        cpu=CpuInfo(model_name="Test CPU", physical_cores=16, logical_cpus=32),
        memory=MemoryInfo(total_bytes=ram, swap_total_bytes=8 * GiB),
        gpus=[GpuInfo(index=0, name="NVIDIA GeForce RTX 4090", vendor="NVIDIA",
                      vram_total_bytes=24 * GiB, compute_capability="8.9", pcie_gen_max=4,
                      pcie_width_max=16)],
        disks=[DiskInfo(mountpoint="/data", kind="nvme", total_bytes=4 * TB)],
    )
    return from_profile(profile, catalog)


# --- Llama-2-7B LoRA b4 s2048 checkpointing on an RTX 4090 -----------------------------------


def test_lora_on_a_4090_is_tight_not_a_blocker(catalog):
    w = _workload("llama2-7b-lora")
    assert (w.batch_size, w.seq_len, w.gradient_checkpointing) == (4, 2048, True)
    req = plan(w, device_spec(catalog.get("nvidia-rtx-4090")))
    assert req.vram_total > 24 * GiB >= req.vram_without_margin
    assert req.vram_verdict == "tight"
    found = {f.code: f for f in analyze(w, _rtx4090(catalog), catalog).findings}
    assert "analysis.vram" not in found
    tight = found["analysis.vram_tight"]
    assert tight.severity is Severity.WARNING
    assert "micro-batch 3 x 2 accumulation steps" in tight.fix.en


def test_the_solver_offers_batch_3_with_accumulation_and_it_fits(catalog):
    w = _workload("llama2-7b-lora")
    gpu = device_spec(catalog.get("nvidia-rtx-4090"))
    answer = solve(w, gpu, catalog)
    first = answer.settings[0]
    assert dict(first.fields) == {"batch_size": 3, "grad_accumulation": 2}
    applied = first.apply(w)
    assert plan(applied, gpu).vram_verdict == "fits"
    exact = answer.settings[1]
    assert dict(exact.fields) == {"batch_size": 2, "grad_accumulation": 2}
    assert exact.apply(w).global_batch == w.global_batch  # keeps the global batch exactly
    # Settings come before other GPUs, and each change carries its time cost.
    kinds = [c.kind for c in answer.changes]
    assert kinds == sorted(kinds, key=lambda k: k != "setting")
    assert all(c.time_ratio is not None for c in answer.settings)


def test_the_professional_tier_runs_it_with_its_4090(catalog):
    rec = recommend(_workload("llama2-7b-lora"), catalog)
    assert rec.tier is not None and rec.tier.id == "professional"


# --- inference prefill across tensor-parallel GPUs -------------------------------------------


def test_70b_prefill_on_4_h200_takes_about_6_s_and_fewer_gpus_are_slower(catalog):
    w = _workload("llama2-70b-inference-bf16-tp4")
    h200 = device_spec(catalog.get("nvidia-h200-sxm"))
    four = plan(w, h200).throughput["prefill_time_s"].value
    two = plan(replace(w, gpus_per_node=2, tp_size=2), h200).throughput["prefill_time_s"].value
    # 16 prompts x 4096 tokens x (2 x 69B + attention) = 9.8 PFLOP at 60% of 4 x 989.5 TFLOP/s
    # (the prefill share fitted in docs/estimation.md sec. 8.6): 4.1 s; Megatron's 2 all-reduces
    # of 4096 x 8192 bf16 activations per layer go over NVLink 4 (450 GB/s x 0.82, 10 us).
    n = 80 * (8192 * (8192 + 2 * 1024) + 8192 * 8192 + 3 * 8192 * 28672) + 32000 * 8192
    flops = (2 * n + 4 * 80 * 8192 * 4096) * 4096

    def prefill(t):
        ring = 4096 * 8192 * 2 * 2 * (t - 1) / t
        return 16 * (flops / (0.6 * t * 989.5e12) + 2 * 80 * (10e-6 + ring / (450e9 * 0.82)))

    assert four == pytest.approx(prefill(4), rel=1e-9)
    assert 4.5 < four < 5.0
    assert two == pytest.approx(prefill(2), rel=1e-9)
    assert two > 1.8 * four


# --- chunked prefill for serving -------------------------------------------------------------


def test_llama3_8b_int4_serving_8x8192_fits_a_4090_with_chunked_prefill(catalog):
    w = _workload("llama3-8b-inference-int4")
    assert (w.batch_size, w.seq_len) == (8, 8192)
    req = plan(w, device_spec(catalog.get("nvidia-rtx-4090")))
    assert 15 * GiB < req.vram_total < 17.5 * GiB
    assert req.vram_verdict == "fits"
    assert req.vram_per_gpu["kv_cache"].value == 131_072 * 8192 * 8  # vLLM: 128 KiB/token
    assert "chunked prefill" in req.vram_per_gpu["activations"].note.en
    t = req.throughput
    assert t["max_concurrent_sequences"].value >= 8
    assert 0 < t["time_to_first_token_s"].value < t["prefill_time_s"].value
    # Decode reads weights + KV once per step: bounded by the 4090's 1008 GB/s.
    read = req.vram_per_gpu["weights"].value + req.vram_per_gpu["kv_cache"].value
    assert t["decode_tokens_per_s"].value <= 1008e9 / read * 8 + 1e-6


# --- weights memory-mapped for inference -----------------------------------------------------


def test_70b_inference_on_the_enterprise_build_has_no_ram_blocker(catalog):
    build = load_build(ROOT / "builds" / "enterprise.json", catalog)
    caps = from_build(build, catalog)
    analysis = analyze(_workload("llama2-70b-inference-bf16-tp4"), caps, catalog)
    assert analysis.requirements.system_ram["model_load"].value == 0
    assert "memory-mapped" in analysis.requirements.system_ram["model_load"].note.en
    assert "analysis.ram" not in {f.code for f in analysis.findings}


def test_a_ram_blocker_for_inference_does_not_suggest_the_dataset_cache(catalog):
    w = _workload("llama2-70b-inference-bf16-tp4")
    caps = _rtx4090(catalog, ram=4 * GiB)
    caps.gpu_count = 4
    found = {f.code: f for f in analyze(w, caps, catalog).findings}
    assert "dataset" not in found["analysis.ram"].fix.en


# --- overkill and the cheapest GPU weigh time, not memory only -------------------------------


def test_overkill_advice_never_names_a_gpu_that_is_much_slower(catalog):
    w = _workload("imagenet-resnet50-amp-8gpu")
    a100 = device_spec(catalog.get("nvidia-a100-80gb-sxm"))
    here = plan(w, a100).throughput["total_time_s"].value
    slow = {o.part.id: o for o in gpu_options(w, catalog, "USD")}
    assert slow["nvidia-rtx-4060-ti-16gb"].time_s > 1.25 * here
    profile = SystemProfile(
        cpu=CpuInfo(model_name="EPYC", physical_cores=128, logical_cpus=256),
        memory=MemoryInfo(total_bytes=1024 * GiB),
        gpus=[GpuInfo(index=i, name="NVIDIA A100-SXM4-80GB", vendor="NVIDIA",
                      vram_total_bytes=80 * GiB, compute_capability="8.0")
              for i in range(8)],
        disks=[DiskInfo(mountpoint="/data", kind="nvme", total_bytes=30 * TB)])
    found = {f.code: f for f in analyze(w, from_profile(profile, catalog), catalog).findings}
    overkill = found.get("analysis.overkill_gpu")
    assert overkill is None or "4060" not in overkill.fix.en


def test_the_best_value_gpu_is_priced_per_unit_of_work(catalog):
    w = _workload("imagenet-resnet50-amp-8gpu")
    # Among the cards a buyer can put 8 of in one node (GeForce open-air coolers cannot go
    # side by side: gpu_choice.buyable_for); the 5070 Ti is cheaper per image but not one.
    options = [o for o in gpu_options(w, catalog, "USD") if o.verdict == "fits"
               and o.price_per_throughput is not None and o.buyable]
    assert "nvidia-rtx-5070-ti" not in {o.part.id for o in options}
    rec = recommend(w, catalog, currency="USD")
    best = min(options, key=lambda o: o.price_per_throughput)
    assert rec.gpu is not None and rec.gpu.id == best.part.id
    cheapest = min(options, key=lambda o: o.price)
    assert best.time_s <= cheapest.time_s


def test_a_time_target_rules_out_slow_gpus(catalog):
    w = _workload("imagenet-resnet50-amp-8gpu")
    target = 24 * 3600.0
    options = gpu_options(w, catalog, "USD", time_target_s=target)
    assert all(o.meets_target == (o.time_s <= target) for o in options if o.time_s)
    rec = recommend(w, catalog, time_target_s=target, currency="USD")
    if rec.gpu is not None:
        chosen = next(o for o in options if o.part.id == rec.gpu.id)
        assert chosen.meets_target


# --- multi-GPU time uses the scaling model ---------------------------------------------------


def test_multi_gpu_throughput_uses_the_scaling_models_efficiency(catalog):
    w = _workload("imagenet-resnet50-amp-8gpu")
    a100 = device_spec(catalog.get("nvidia-a100-80gb-sxm"))
    assert a100.intra_link == LINKS["nvlink3"]
    t = plan(w, a100).throughput
    per_gpu = t["samples_per_s_per_gpu"].value
    step = w.batch_size / per_gpu
    eff = scaling_curve(w, step, LINKS["nvlink3"], [8], 8)[0].efficiency
    assert t["scaling_efficiency"].value == pytest.approx(eff)
    assert t["samples_per_s"].value == pytest.approx(per_gpu * 8 * eff)
    # Over PCIe the same job scales worse, so it takes longer.
    pcie = replace(a100, intra_link=LINKS["pcie4_x16"])
    assert plan(w, pcie).throughput["total_time_s"].value > t["total_time_s"].value


def test_resnet50_on_8_a100_stays_an_upper_bound_of_nvidias_measurement(catalog):
    """NVIDIA DeepLearningExamples (PyTorch 21.03): ResNet-50 AMP on 8x A100 80GB, 16,621 img/s
    (2,470 on one). The scaling model counts communication only, which NVLink hides here, so the
    plan stays an upper bound ~19% above: the measured loss is the data pipeline (the analysis
    flags the CPU cores it needs), not gradient traffic (planning/requirements/scaling.py)."""
    w = _workload("imagenet-resnet50-amp-8gpu")
    t = plan(w, device_spec(catalog.get("nvidia-a100-80gb-sxm"))).throughput
    assert t["samples_per_s_per_gpu"].value == pytest.approx(2470, rel=0.01)
    assert 16_621 < t["samples_per_s"].value < 1.2 * 16_621


def test_unknown_links_say_the_time_is_an_upper_bound():
    w = _workload("imagenet-resnet50-amp-8gpu")
    gpu = DeviceSpec("GPU", 80 * GiB, {"fp16": 312e12}, 2039e9, True)
    item = plan(w, gpu).throughput["scaling_efficiency"]
    assert item.value is None and "perfect scaling" in item.note.en


# --- detection: whole-model FLOPs ------------------------------------------------------------

V100_SXM2 = DeviceSpec("Tesla V100 SXM2", 16 * GiB, {"fp32": 15.7e12}, 900e9, True)
"""NVIDIA V100 datasheet: 15.7 TFLOP/s FP32, 900 GB/s (SXM2)."""


@pytest.mark.parametrize("preset, seconds_per_iter", [
    ("faster-rcnn-r50-fpn", 0.210),  # Detectron2 MODEL_ZOO.md, Faster R-CNN R50-FPN 1x
    ("retinanet-r50-fpn", 0.205),  # Detectron2 MODEL_ZOO.md, RetinaNet R50 1x
    ("mask-rcnn-r50-fpn", 0.261),  # Detectron2 MODEL_ZOO.md, Mask R-CNN R50-FPN 1x
])
def test_detection_training_speed_matches_detectron2_model_zoo(preset, seconds_per_iter):
    """Detectron2 trained these on 8 V100s, 2 images per GPU, fp32 (PyTorch 1.3): 16 images per
    iteration. The planner counts the whole model's FLOPs (torchvision's published count), so it
    lands within 35% of the measured rate; the backbone alone (what it used to count) is more
    than twice too fast."""
    w = replace(_workload("coco-detection-r50"), model=preset, precision="fp32")
    t = plan(w, V100_SXM2).throughput
    measured_per_gpu = 16 / seconds_per_iter / 8
    assert t["samples_per_s_per_gpu"].value == pytest.approx(measured_per_gpu, rel=0.35)
    backbone = plan(replace(w, model="resnet50"), V100_SXM2).throughput
    assert backbone["samples_per_s_per_gpu"].value > 2 * measured_per_gpu


# --- reinforcement learning: bound by the CPU environments -----------------------------------


def test_ppo_atari_is_bound_by_the_environment_steps_per_core(catalog):
    """EnvPool's README: a Python subprocess vector env steps Atari at 18,249 frames/s on 12
    cores; PPO runs 8 environments. 10M steps then take about an hour, not 110 s."""
    w = _workload("rl-ppo-atari")
    t = plan(w, device_spec(catalog.get("nvidia-rtx-4090"))).throughput
    per_core = ATARI_FRAMES_PER_S_PER_CORE / FRAME_SKIP
    assert per_core == pytest.approx(380.2, rel=1e-3)
    assert t["samples_per_s"].value == pytest.approx(8 * per_core)
    assert t["samples_per_s_per_gpu"].value > 10 * t["samples_per_s"].value
    assert t["total_time_s"].value == pytest.approx(10_000_000 / (8 * per_core))
    assert "CPU environment" in t["samples_per_s"].note.en
    faster = plan(replace(w, num_workers=32), device_spec(catalog.get("nvidia-rtx-4090")))
    assert faster.throughput["total_time_s"].value == pytest.approx(
        t["total_time_s"].value / 4)


# --- plan --recommend: every GPU by time and money --------------------------------------------


def test_plan_recommend_prices_each_gpu_at_the_users_hourly_rate(capsys):
    code = main(["plan", "--workload", str(ROOT / "workloads" / "imagenet-resnet50-amp-8gpu.json"),
                 "--recommend", "--gpu-hour-price", "nvidia-a100-80gb-sxm=1.8",
                 "--time-target-hours", "3", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    advice = json.loads(out)["recommendation"]
    gpus = {g["part"]: g for g in advice["gpus"]}
    a100 = gpus["nvidia-a100-80gb-sxm"]
    epoch_s = a100["time_s"] / 90  # the workload's 90 epochs
    assert float(a100["cost_per_epoch"]) == pytest.approx(1.8 * 8 * epoch_s / 3600, rel=1e-6)
    assert a100["meets_target"] is (a100["time_s"] <= 3 * 3600)
    assert gpus["nvidia-rtx-4060-ti-16gb"]["meets_target"] is False
    assert advice["tier"] is not None and advice["time_target_s"] == 3 * 3600
    best = gpus[advice["best_value_gpu"]]
    assert best["vram_verdict"] == "fits" and best["meets_target"] is not False


def test_plan_recommend_converts_prices_with_the_users_exchange_rate(capsys):
    argv = ["plan", "--task", "image_classification", "--recommend", "--currency", "CNY",
            "--json"]
    assert main([*argv, "--cny-per-usd", "7.1"]) == 0
    gpus = {g["part"]: g for g in json.loads(capsys.readouterr()[0])["recommendation"]["gpus"]}
    assert gpus["nvidia-rtx-4090"]["price"] == "12999"  # its own CNY launch price
    assert float(gpus["nvidia-rtx-5090"]["price"]) == pytest.approx(1999 * 7.1)
    assert main(argv) == 0
    gpus = {g["part"]: g for g in json.loads(capsys.readouterr()[0])["recommendation"]["gpus"]}
    assert gpus["nvidia-rtx-5090"]["price"] is None  # USD only and no rate: unknown
    assert main([*argv, "--gpu-hour-price", "nvidia-rtx-4090"]) == 2
    assert "PART_ID=AMOUNT" in capsys.readouterr()[1]


# --- the solver beyond micro-batches ----------------------------------------------------------


def test_solver_shards_over_the_gpus_already_there_before_other_gpus(catalog):
    w = replace(load_workload(ROOT / "workloads" / "llama2-7b-full-zero3-8xa100.json"),
                strategy="ddp")
    gpu = device_spec(catalog.get("nvidia-rtx-4090"))
    answer = solve(w, gpu)
    assert answer.verdict == "does_not_fit"
    by_fields = {tuple(sorted(c.fields.items())): c for c in answer.settings}
    zero3 = by_fields[(("strategy", "zero3"),)]
    assert zero3.verdict == "fits" and zero3.apply(w).strategy == "zero3"
    offload = by_fields[(("offload", "optimizer"), ("strategy", "zero2"))]
    # The offload's time cost includes the PCIe traffic of every optimizer step.
    assert "PCIe" in offload.time_note.en
    single = solve(replace(w, gpus_per_node=1), gpu)
    kinds = {tuple(sorted(c.fields)) for c in single.settings}
    assert ("strategy",) not in kinds  # no ZeRO stage without other GPUs to shard over
    assert ("offload", "strategy") in kinds
    ratio = {tuple(sorted(c.fields)): c.time_ratio for c in single.settings}
    assert ratio[("offload", "strategy")] > 1.0  # offload costs time on one GPU


def test_solver_for_inference_splits_over_the_gpus_or_quantizes(catalog):
    w = replace(_workload("llama2-70b-inference-bf16-tp4"), strategy="ddp", tp_size=1,
                batch_size=4)
    answer = solve(w, device_spec(catalog.get("nvidia-a100-80gb-sxm")))
    fields = [dict(c.fields) for c in answer.settings]
    assert {"strategy": "tensor_parallel", "tp_size": 4} in fields
    assert {"precision": "int4"} in fields
    tp = next(c for c in answer.settings if c.fields.get("tp_size") == 4)
    # Serving is judged by its time per output token: 4 requests at 4096 tokens read the bf16
    # weights (2 x 68,976,648,192 B) and the cache (327,680 B per token) at 65% of 2039 GB/s;
    # over 4 GPUs each reads a quarter and adds 2 all-reduces per layer over NVLink 3 (300 GB/s
    # x 0.78, 10 us each).
    read = 2 * 68_976_648_192 + 327_680 * 4096 * 4
    one = read / (2039e9 * 0.65)
    four = read / 4 / (2039e9 * 0.65) + 2 * 80 * (10e-6 + 4 * 8192 * 2 * 2 * 3 / 4 / (300e9 * 0.78))
    assert tp.time_ratio == pytest.approx(four / one, rel=1e-9)
    # Beside it, the deployment's tokens/s (issue 24): 4 replicas of 4 requests at `one` each
    # step before, one group of 4 requests at `four` after.
    assert tp.rate_ratio == pytest.approx((4 / four) / (4 * 4 / one), rel=1e-9)
    assert tp.time_text("en").startswith(
        f"time per output token ×{four / one:.2f}, tokens/s ×{one / (4 * four):.2f}, ")


# --- a best-value GPU a buyer can act on ------------------------------------------------------


def _cheapest_per_work(options):
    priced = [o for o in options if o.verdict == "fits" and o.price_per_throughput is not None]
    return min(priced, key=lambda o: o.price_per_throughput)


def test_a_module_is_the_best_value_only_for_a_baseboard_sized_node(catalog):
    # Issue 24: a one-card LoRA job got "best value: B200 SXM6 module", which no one can buy
    # for a workstation. SXM/OAM modules come on 4- or 8-GPU baseboards (HGX), so a node of 1
    # or 2 GPUs is offered PCIe cards only; a node of 8 may get the module (a whole server).
    from dataclasses import replace as with_
    from decimal import Decimal

    from torchrig.planning.gpu_choice import best_value, buyable_for

    b200 = catalog.get("nvidia-b200-sxm")
    assert b200.gpu.form_factor == "sxm6"
    for gpus, module_allowed in ((1, False), (2, False), (4, True), (8, True)):
        w = with_(_workload("llama2-7b-lora"), gpus_per_node=gpus)
        options = gpu_options(w, catalog, "USD")
        # Make the module the cheapest per unit of work by far (one dollar).
        options = [with_(o, price=Decimal(1)) if o.part.id == b200.id else o
                   for o in options]
        assert _cheapest_per_work(options).part.id == b200.id
        best = best_value(options)
        assert best is not None
        if module_allowed:
            assert best.part.id == b200.id, gpus
        else:
            cards = [o for o in options if o.part.gpu.form_factor == "pcie"]
            assert best.part.id == _cheapest_per_work(cards).part.id, gpus
        assert buyable_for(b200, w) is module_allowed
    jetson = next(p for p in catalog.by_category("gpu") if p.gpu.form_factor == "module")
    assert not buyable_for(jetson, w)


def test_the_pick_for_a_node_of_three_or_more_cards_passes_the_cooling_check(catalog):
    # An 8-GPU DiT job was recommended the RTX PRO 6000 Workstation Edition: 600 W with an
    # open-air cooler, which the build check itself advises against three or more of side by
    # side (compat.gpu_cooling). The picker and the checker must agree: from three cards a node
    # on, the pick has a cooler that stacks (blower, passive, liquid), whatever it costs.
    from dataclasses import replace as with_
    from decimal import Decimal

    from torchrig.builds.build import Build, LineItem
    from torchrig.builds.compat import check_build
    from torchrig.planning.gpu_choice import best_value

    open_air = catalog.get("nvidia-rtx-pro-6000-blackwell")
    assert open_air.gpu.cooling == "open-air" and open_air.gpu.form_factor == "pcie"
    for gpus, open_air_allowed in ((1, True), (2, True), (3, False), (8, False)):
        w = with_(_workload("llama2-7b-lora"), gpus_per_node=gpus)
        options = [with_(o, price=Decimal(1)) if o.part.id == open_air.id else o
                   for o in gpu_options(w, catalog, "USD")]
        assert _cheapest_per_work(options).part.id == open_air.id
        best = best_value(options)
        assert best is not None
        assert (best.part.id == open_air.id) is open_air_allowed, gpus
        if best.part.gpu.form_factor == "pcie":
            node = Build(name="t", nodes=1, currency="USD",
                         line_items=[LineItem(part_id=best.part.id, quantity=gpus)])
            codes = {f.code for f in check_build(node, catalog)}
            assert ("compat.gpu_cooling" in codes) is (best.part.id == open_air.id
                                                      and gpus >= 3), gpus


def test_the_solver_speaks_of_time_per_output_token_for_serving(catalog):
    # Issue 24: the serving solver offered "time x0.16". For LLM inference the time compared is
    # the time per output token (a decode step); training keeps "time".
    from torchrig.planning.workload import default_workload

    w = default_workload("llm_inference")  # Llama 3 8B in bf16, one GPU: 16 GB of weights
    assert w.gpus_per_node == 1
    answer = solve(w, device_spec(catalog.get("nvidia-rtx-4060-ti-16gb")), catalog)
    assert answer.changes
    for change in answer.changes:
        if change.time_ratio is not None:
            assert change.time_text("en").startswith(
                f"time per output token ×{change.time_ratio:.2f}, tokens/s ×")
            assert change.time_text("zh").startswith("每输出 token 时间 ×")
    # One GPU per node: the "fastest" and "best value" GPUs offered are cards, not modules.
    offered = [catalog.get(c.part_id) for c in answer.changes if c.kind == "gpu"]
    assert offered and all(p.gpu.form_factor == "pcie" for p in offered)
    train = solve(_workload("llama2-7b-full-zero3-8xa100"),
                  device_spec(catalog.get("nvidia-rtx-4060-ti-16gb")))
    timed = [c for c in train.changes if c.time_ratio is not None]
    assert timed and all(c.time_text("en").startswith("time ×") for c in timed)
