"""Training throughput and run time on a GPU given by hand, with rates worked out in the test
(mutation testing, issue 28). Rules: docs/estimation.md sec. 3.2 (samples/s per GPU = dense
peak x MFU / FLOPs per sample, MFU = 0.40; a pipeline of p stages keeps m / (m + p - 1) of it,
the 1F1B bubble over the m accumulation micro-batches, sec. 6; the total is per-GPU rate x GPUs
x scaling efficiency; step time = micro-batch / (per-GPU rate x t x p); epoch = samples /
total) and sec. 3.3 (the CNN memory-traffic model: NVIDIA's ResNet-50
AMP A100 measurement, 2470 img/s at 2039 GB/s).

The GPU is made up with round figures so each rate can be read off: 320 TFLOP/s dense
fp16/bf16, 160 tf32, 20 fp32, 2039 GB/s (the A100 80GB's bandwidth, so that ResNet-50 AMP lands
on NVIDIA's 2470 img/s).
"""

from __future__ import annotations

import dataclasses

import pytest

from torchrig.planning.device import DeviceSpec
from torchrig.planning.links import LINKS
from torchrig.planning.requirements import plan
from torchrig.planning.requirements.scaling import scaling_curve
from torchrig.planning.workload import default_workload, workload_from_options
from torchrig.units import GiB

GPU = DeviceSpec("Test GPU", 80 * GiB, {"fp32": 20e12, "tf32": 160e12, "fp16": 320e12,
                                         "bf16": 320e12}, 2039e9, True, LINKS["nvlink3"])
MFU = 0.40
# BERT-base fine-tuned at seq 128 (test_flops_mutants.py): 12 x (4 x 768^2 + 2 x 768 x 3072)
# matmul weights, (6N + 12·L·s·h) x s.
BERT_FLOPS = (6 * 12 * (4 * 768**2 + 2 * 768 * 3072) + 12 * 12 * 768 * 128) * 128
# Llama-2-7B full fine-tune at seq 2048 with checkpointing (x 4/3).
N7 = 32 * (4 * 4096**2 + 3 * 4096 * 11008) + 32000 * 4096
LLAMA_FLOPS = (6 * N7 + 12 * 32 * 4096 * 2048) * 2048 * 4 / 3


def _t(w, gpu=GPU):
    return plan(w, gpu).throughput


def test_one_gpu_compute_bound_rate_and_run_time():
    w = default_workload("nlp_transformer")  # BERT-base, AMP fp16, batch 32, 67,349 x 3 epochs
    t = _t(w)
    rate = 320e12 * MFU / BERT_FLOPS
    assert t["flops_per_sample"].value == BERT_FLOPS
    assert t["peak_flops"].value == 320e12
    assert (t["peak_flops"].note.en, t["peak_flops"].note.zh) == (
        "Test GPU: dense fp16 peak", "Test GPU：稠密 fp16 峰值")
    assert t["utilisation"].value == MFU
    assert t["utilisation"].note.en == "assumed 40% of peak (published measurements imply " \
        "30%-49%)"
    assert t["utilisation"].note.zh == "假设达到峰值的 40%（公开测量对应 30%-49%）"
    assert t["samples_per_s_per_gpu"].value == pytest.approx(rate, rel=1e-12)
    assert t["samples_per_s_per_gpu"].note.en == "compute-bound: peak x 40% / FLOPs per sample"
    assert t["samples_per_s_per_gpu"].note.zh == "计算受限：峰值 × 40% / 每样本 FLOPs"
    assert t["scaling_efficiency"].value == 1.0
    assert t["scaling_efficiency"].note.en == "one data-parallel rank: no gradient " \
        "synchronisation"
    assert t["samples_per_s"].value == pytest.approx(rate, rel=1e-12)
    assert t["samples_per_s"].note.en == "x 1 data-parallel ranks x 100% scaling efficiency"
    assert t["samples_per_s"].note.zh == "× 1 个数据并行进程 × 100% 扩展效率"
    assert t["step_time_s"].value == pytest.approx(32 / rate, rel=1e-12)
    assert t["step_time_s"].note.en == "micro-batch / samples per second per GPU"
    assert t["tokens_per_s"].value == pytest.approx(rate * 128, rel=1e-12)
    assert t["time_per_epoch_s"].value == pytest.approx(67_349 / rate, rel=1e-12)
    assert t["time_per_epoch_s"].note.en == "67,349 samples / samples per second"
    assert t["total_time_s"].value == pytest.approx(3 * 67_349 / rate, rel=1e-12)
    assert (t["total_time_s"].note.en, t["total_time_s"].note.zh) == ("x 3 epochs", "× 3 个 epoch")
    req = plan(w, GPU)
    mfu = next(a for a in req.assumptions if a.key == "mfu")
    assert mfu.value == MFU
    assert mfu.text.en.startswith("training reaches 40% of the dense tensor peak (30% Lambda")


def test_tensor_parallel_group_does_t_times_one_gpu():
    # 4 GPUs in one tensor-parallel group: each GPU computes a quarter of every sample, so the
    # group trains 4 x (peak x MFU / FLOPs) samples/s (MFU counts every GPU, PaLM appendix B).
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="tensor_parallel",
                            tp_size=4, gpus_per_node=4)
    t = _t(w)
    per_gpu = 320e12 * MFU / LLAMA_FLOPS
    assert t["samples_per_s_per_gpu"].value == pytest.approx(per_gpu, rel=1e-12)
    # One data-parallel rank: nothing to sync, but the passes wait for Megatron's all-reduces:
    # 4 per layer x 32 layers of 1 x 2048 x 4096 bf16 activations, 2 x 3/4 of them each, over
    # NVLink 3 (busbw 234e9) + 10 us each (issue 24; before, 100 %).
    compute = 1 / (4 * per_gpu)
    tp = 128 * 2048 * 4096 * 2 * 1.5 / (300e9 * 0.78) + 128 * 10e-6
    eff = compute / (compute + tp)
    assert t["scaling_efficiency"].value == pytest.approx(eff, rel=1e-12)
    assert t["samples_per_s"].value == pytest.approx(4 * per_gpu * eff, rel=1e-12)
    assert t["step_time_s"].value == pytest.approx(1 / (4 * per_gpu), rel=1e-12)
    assert t["step_time_s"].note.en == ("micro-batch / samples per second per GPU / 4 "
                                        "tensor-parallel GPUs")
    assert t["step_time_s"].note.zh == "微批次 / 每 GPU 每秒样本数 / 4 个张量并行 GPU"
    assert t["tokens_per_s"].value == pytest.approx(4 * per_gpu * eff * 2048, rel=1e-12)
    assert t["time_per_epoch_s"].value == pytest.approx(52_002 / (4 * per_gpu * eff),
                                                        rel=1e-12)


def test_tensor_parallel_over_two_data_parallel_ranks():
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="tensor_parallel",
                            tp_size=2, gpus_per_node=4)
    t = _t(w)
    per_gpu = 320e12 * MFU / LLAMA_FLOPS
    eff = t["scaling_efficiency"].value  # modelled since issue 24 (test_train24_branches.py)
    assert 0 < eff < 1
    assert t["scaling_efficiency"].note.en.startswith(
        "scaling model over NVLink 3 (A100): ")
    assert "tensor-parallel all-reduces" in t["scaling_efficiency"].note.en
    assert t["samples_per_s"].value == pytest.approx(4 * per_gpu * eff, rel=1e-12)
    assert t["samples_per_s"].note.en == \
        f"x 2 data-parallel ranks x {eff:.0%} scaling efficiency"


@pytest.mark.parametrize(("accumulation", "stages"), [(1, 2), (4, 2), (8, 4)])
def test_pipeline_stage_idles_for_the_bubble(accumulation, stages):
    # 1F1B: a step lasts m + p - 1 micro-batch slots and each stage works in m of them
    # (Narayanan et al. 2021 sec. 2.2.1): m = 1, p = 2 is half busy, m = 4 four fifths, m = 8
    # over 4 stages 8/11. One pipeline over all GPUs: no data-parallel sync, no TP.
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="pipeline_parallel",
                            pp_size=stages, gpus_per_node=stages,
                            grad_accumulation=accumulation)
    t = _t(w)
    busy = {(1, 2): 1 / 2, (4, 2): 4 / 5, (8, 4): 8 / 11}[(accumulation, stages)]
    per_gpu = 320e12 * MFU / LLAMA_FLOPS * busy
    assert t["samples_per_s_per_gpu"].value == pytest.approx(per_gpu, rel=1e-12)
    assert t["scaling_efficiency"].value == pytest.approx(1.0)
    assert t["samples_per_s"].value == pytest.approx(stages * per_gpu, rel=1e-12)
    # the pipeline works on a micro-batch together: a micro-batch's share of the step
    assert t["step_time_s"].value == pytest.approx(1 / (per_gpu * stages), rel=1e-12)
    assert t["step_time_s"].note.en == ("micro-batch / samples per second per GPU / "
                                        f"{stages} model-parallel GPUs (1 tensor x {stages} "
                                        "pipeline)")
    assert t["samples_per_s_per_gpu"].note.en.endswith(
        f"; x {accumulation} / ({accumulation} + {stages} - 1) = {busy:.0%} busy: "
        f"{accumulation} micro-batch{'es' if accumulation > 1 else ''} per step through "
        f"{stages} pipeline stages, the rest is the bubble of the 1F1B schedule (Narayanan "
        "et al. 2021, sec. 2.2.1)")
    assumed = {a.key: a for a in plan(w, GPU).assumptions}["pipeline_schedule"]
    assert assumed.value == pytest.approx(busy)


def test_pipeline_of_more_stages_is_faster_with_enough_micro_batches():
    # The old rule (rate / p) made 4 stages no faster than one GPU; with 32 micro-batches the
    # 4-GPU pipeline does 4 x 32/35 of one GPU's samples per second.
    one = _t(dataclasses.replace(default_workload("llm_finetune_full"), gpus_per_node=1,
                                 grad_accumulation=32))
    four = _t(dataclasses.replace(default_workload("llm_finetune_full"),
                                  strategy="pipeline_parallel", pp_size=4, gpus_per_node=4,
                                  grad_accumulation=32))
    assert four["samples_per_s"].value == pytest.approx(
        one["samples_per_s"].value * 4 * 32 / 35, rel=1e-12)


def test_data_parallel_scales_at_the_scaling_models_efficiency():
    w = dataclasses.replace(default_workload("nlp_transformer"), gpus_per_node=8,
                            grad_accumulation=2)
    t = _t(w)
    rate = 320e12 * MFU / BERT_FLOPS
    # the efficiency is the scaling model's (tests/planning/test_scaling_*.py) for one
    # micro-batch of 32 / per-GPU rate, the optimizer step running the workload's 2 of them
    point = scaling_curve(plan(w).workload, 32 / rate, LINKS["nvlink3"], [8], 8, None)[0]
    assert 0 < point.efficiency < 1
    assert t["scaling_efficiency"].value == pytest.approx(point.efficiency, rel=1e-9)
    assert t["scaling_efficiency"].note.en.startswith(
        f"scaling model over NVLink 3 (A100): {point.comm_time_s * 1e3:.1f} ms of gradient")
    assert t["samples_per_s"].value == pytest.approx(8 * rate * point.efficiency, rel=1e-9)
    assert t["time_per_epoch_s"].value == pytest.approx(
        67_349 / (8 * rate * point.efficiency), rel=1e-9)


def test_data_parallel_without_links_is_not_modelled():
    w = dataclasses.replace(default_workload("nlp_transformer"), gpus_per_node=2)
    no_link = dataclasses.replace(GPU, intra_link=None)
    t = _t(w, no_link)
    rate = 320e12 * MFU / BERT_FLOPS
    assert t["scaling_efficiency"].value is None
    assert t["scaling_efficiency"].note.en == (
        "not modelled for this link (unknown GPU links): time assumes perfect scaling, an "
        "upper bound")
    assert t["samples_per_s"].value == pytest.approx(2 * rate, rel=1e-12)
    # two nodes need the network too
    two_nodes = dataclasses.replace(w, gpus_per_node=1, nodes=2)
    assert _t(two_nodes)["scaling_efficiency"].value is None
    with_net = dataclasses.replace(GPU, inter_link=LINKS["ib_hdr"])
    eff = _t(two_nodes, with_net)["scaling_efficiency"]
    assert eff.value is not None and 0 < eff.value < 1
    assert "NVLink 3 (A100) + InfiniBand HDR (200 Gb/s)" in eff.note.en


def test_a_bridge_for_two_cannot_join_four():
    w = dataclasses.replace(default_workload("nlp_transformer"), gpus_per_node=4)
    bridged = dataclasses.replace(GPU, intra_link=LINKS["nvlink3_ga102"])
    eff = _t(w, bridged)["scaling_efficiency"]
    assert eff.value is None
    assert eff.note.en.startswith("not modelled: ")
    assert eff.note.en.endswith("; time assumes perfect scaling")
    assert eff.note.zh.endswith("；时间按理想扩展计算")


def test_without_a_gpu_or_a_peak_the_rate_is_unknown_and_says_why():
    w = default_workload("nlp_transformer")
    t = _t(w, None)
    assert t["samples_per_s_per_gpu"].value is None
    assert t["samples_per_s_per_gpu"].note.en == "no GPU chosen: pick one to estimate speed"
    assert t["peak_flops"].note.zh == "未选择 GPU：选择后可估算速度"
    assert t["samples_per_s"].value is None
    assert t["step_time_s"].value is None and t["time_per_epoch_s"].value is None
    assert t["total_time_s"].value is None
    dp = dataclasses.replace(w, gpus_per_node=2)
    assert _t(dp, None)["scaling_efficiency"].note.en == "unknown without a GPU and its speed"
    turing = DeviceSpec("Old GPU", 16 * GiB, {"fp32": 8e12, "fp16": 65e12}, 320e9, True)
    t = _t(dataclasses.replace(w, precision="amp_bf16"), turing)
    assert t["samples_per_s_per_gpu"].value is None
    assert t["samples_per_s_per_gpu"].note.en == (
        "unknown: no dense bf16 figure for Old GPU (bf16 needs Ampere or newer)")
    assert t["samples_per_s_per_gpu"].note.zh == ("未知：Old GPU 没有稠密 bf16 数据"
                                                  "（bf16 需 Ampere 或更新）")


def test_unknown_flops_are_explained():
    w = workload_from_options(task="image_classification", model="custom", params=5_000_000,
                              image_size=64)
    t = _t(w)
    assert t["samples_per_s_per_gpu"].value is None
    assert t["samples_per_s_per_gpu"].note.en == "unknown: the model's FLOPs are unknown"


def test_no_tensor_cores_under_amp_gets_a_note():
    plain = DeviceSpec("Plain GPU", 16 * GiB, {"fp32": 10e12, "fp16": 20e12}, 500e9, False)
    note = _t(default_workload("nlp_transformer"), plain)["peak_flops"].note
    assert note.en == ("Plain GPU: dense fp16 peak; no tensor cores, so AMP speeds little up "
                       "(seed 3.1 assumes them)")
    assert note.zh == ("Plain GPU：稠密 fp16 峰值；无张量核心，AMP 提速有限（文档 3.1 的说法以其"
                       "为前提）")
    fp32 = dataclasses.replace(default_workload("nlp_transformer"), precision="fp32")
    assert _t(fp32, plain)["peak_flops"].note.en == "Plain GPU: dense fp32 peak"


def test_resnet50_amp_is_memory_bound_at_nvidias_figure():
    # Compute-bound: 320e12 x 0.4 / (3 x 8,178,368,512) = 5,217 img/s; the traffic model gives
    # NVIDIA's 2470 img/s at the A100's 2039 GB/s, which is lower and wins.
    w = default_workload("image_classification")
    req = plan(w, GPU)
    t = req.throughput
    assert t["samples_per_s_per_gpu"].value == pytest.approx(2470, rel=1e-12)
    assert t["samples_per_s_per_gpu"].note.en.startswith("memory-bound: bandwidth / traffic per")
    assert any(a.key == "cnn_traffic" for a in req.assumptions)
    assert t["step_time_s"].value == pytest.approx(256 / 2470, rel=1e-12)
    assert t["tokens_per_s"].value is None  # no sequence
    # twice the bandwidth, twice the rate; 448 px: four times the activations
    fast = dataclasses.replace(GPU, memory_bandwidth_bps=2 * 2039e9)
    assert _t(w, fast)["samples_per_s_per_gpu"].value == pytest.approx(4940, rel=1e-12)
    big = dataclasses.replace(w, image_size=448)
    assert _t(big)["samples_per_s_per_gpu"].value == pytest.approx(2470 / 4, rel=1e-12)
    ck = dataclasses.replace(w, gradient_checkpointing=True)
    assert _t(ck)["samples_per_s_per_gpu"].value == pytest.approx(2470 * 3 / 4, rel=1e-12)


def test_resnet18_traffic_scales_with_its_measured_activations():
    # calibration (model_presets.json): AMP saved bytes per image, ResNet-18 11,892,736 and
    # ResNet-50 43,757,568
    w = dataclasses.replace(default_workload("image_classification"), model="resnet18")
    expected = 2470 * 43_757_568 / 11_892_736
    compute = 320e12 * MFU / (3 * 3_628_146_688)
    assert expected < compute
    assert _t(w)["samples_per_s_per_gpu"].value == pytest.approx(expected, rel=1e-12)
    # fp32: the fp32 column of ResNet-18 (22,179,840 B) against ResNet-50's AMP reference; at
    # 20 TFLOP/s fp32 the compute bound is lower and wins. An image classifier in fp32 computes
    # at the share NVIDIA's ResNet-50 FP32 V100 measurement reaches: 367 img/s x 3 x its
    # 8,178,368,512 forward FLOPs / 15.7e12 (docs/estimation.md sec. 3.3).
    fp32 = dataclasses.replace(w, precision="fp32")
    t = _t(fp32)
    share = 367 * 3 * 8_178_368_512 / 15.7e12
    assert t["samples_per_s_per_gpu"].value == pytest.approx(20e12 * share / (3 * 3_628_146_688),
                                                             rel=1e-12)
    assert t["samples_per_s_per_gpu"].note.en.startswith("compute-bound")
    no_bw = dataclasses.replace(GPU, memory_bandwidth_bps=None)
    unbounded = _t(w, no_bw)["samples_per_s_per_gpu"]
    assert unbounded.value == pytest.approx(compute, rel=1e-12)
    assert unbounded.note.en.endswith("memory bandwidth is unknown, so the memory bound that "
                                      "usually limits a CNN is not applied: an upper bound")
    assert "上界" in unbounded.note.zh
    assert "unknown" not in _t(w)["samples_per_s_per_gpu"].note.en  # with the bandwidth


def test_reinforcement_learning_is_bound_by_the_environments():
    # EnvPool's Atari rate: 18,249 frames/s on 12 cores, frame skip 4 -> 380.1875 steps/s per
    # core; 8 environment processes by default.
    w = default_workload("reinforcement_learning")
    req = plan(w, GPU)
    t = req.throughput
    env = t["environment_steps_per_s"]
    assert env.value == pytest.approx(8 * 18_249 / 12 / 4, rel=1e-12)
    assert env.note.en.startswith("8 environment processes (one core each) x 380 steps/s (Atari")
    assert t["samples_per_s"].value == env.value
    assert t["samples_per_s"].note.en == ("bound by the CPU environment simulation (GPU side "
                                          "would do more)")
    assert t["samples_per_s_per_gpu"].note.en.endswith(
        "; GPU side only - the environment simulation usually limits")
    assert next(a for a in req.assumptions if a.key == "environment_rate").value == \
        pytest.approx(18_249 / 12 / 4, rel=1e-12)
    # two nodes of 4 processes at your rate of 1000 steps/s per core
    own = dataclasses.replace(w, num_workers=4, nodes=2, env_steps_per_s_per_core=1000.0)
    env = _t(own)["environment_steps_per_s"]
    assert env.value == 8 * 1000.0
    assert env.note.en == "8 environment processes (one core each) x 1,000 steps/s (your figure)"
    assert env.note.zh == "8 个环境进程（各占一核）× 每秒 1,000 步（你提供的数值）"
    # a fast environment leaves the GPU side as the bound
    fast = dataclasses.replace(w, env_steps_per_s_per_core=1e9)
    t = _t(fast)
    assert t["samples_per_s"].value < t["environment_steps_per_s"].value
    assert t["samples_per_s"].note.en.startswith("x 1 data-parallel ranks")


def test_an_environment_without_a_rate_is_unknown():
    w = workload_from_options(task="reinforcement_learning", model="custom", params=1_000_000,
                              image_size=84)
    w = dataclasses.replace(w, forward_flops_per_sample=1e8)
    t = _t(w)
    env = t["environment_steps_per_s"]
    assert env.value is None
    assert env.note.en == "unknown: give env_steps_per_s_per_core for this environment"
    # the GPU side stands when the environment's rate is unknown
    assert t["samples_per_s"].value == pytest.approx(20e12 * MFU / 3e8, rel=1e-12)


def test_no_dataset_no_epoch_time():
    w = dataclasses.replace(default_workload("nlp_transformer"),
                            dataset=dataclasses.replace(default_workload("nlp_transformer")
                                                        .dataset, samples=0))
    t = _t(w)
    assert t["time_per_epoch_s"].value is None and t["total_time_s"].value is None


# --------------------------------------------------------------------------- second round


def test_notes_in_both_languages():
    w = default_workload("nlp_transformer")
    t = _t(w)
    assert t["tokens_per_s"].note.en == "samples/s x sequence length"
    assert t["tokens_per_s"].note.zh == "每秒样本数 × 序列长度"
    assert t["time_per_epoch_s"].note.zh == "67,349 个样本 / 每秒样本数"
    assert t["step_time_s"].note.zh == "微批次 / 每 GPU 每秒样本数"
    assert t["scaling_efficiency"].note.zh == "单个数据并行进程：无需梯度同步"
    none = _t(w, None)
    assert (none["samples_per_s"].note.en, none["samples_per_s"].note.zh) == ("unknown", "未知")
    req = plan(w, GPU)
    mfu = next(a for a in req.assumptions if a.key == "mfu")
    assert mfu.text.en == ("training reaches 40% of the dense tensor peak (30% Lambda BERT-base "
                           "A100, 48% NVIDIA BERT-large A100; matmuls alone reach 80-87%)")
    assert mfu.text.zh == ("训练达到稠密张量峰值的 40%（Lambda BERT-base A100 为 30%，NVIDIA "
                           "BERT-large A100 为 48%；纯矩阵乘可达 80-87%）")
    custom = workload_from_options(task="image_classification", model="custom",
                                   params=5_000_000, image_size=64)
    assert _t(custom)["samples_per_s_per_gpu"].note.zh == "未知：模型 FLOPs 未知"


def test_memory_bound_note_and_assumption_in_both_languages():
    req = plan(default_workload("image_classification"), GPU)
    note = req.throughput["samples_per_s_per_gpu"].note
    assert note.en == ("memory-bound: bandwidth / traffic per image (traffic per activation byte "
                       "from NVIDIA's ResNet-50 AMP A100 measurement)")
    assert note.zh == ("内存带宽受限：带宽 / 每图流量（每激活字节流量取自 NVIDIA ResNet-50 "
                       "AMP A100 实测）")
    a = next(x for x in req.assumptions if x.key == "cnn_traffic")
    assert a.text.en == ("CNN memory traffic per image scales with its activation bytes, "
                         "calibrated on ResNet-50 AMP A100 (2470 img/s); published CNN "
                         "throughputs on other GPUs differ from this model by up to +-55%")
    assert a.text.zh == ("CNN 每图内存流量与激活字节成比例，以 ResNet-50 AMP A100（2470 img/s）"
                         "标定；其他 GPU 的公开数据与此模型相差可达 ±55%")


def test_two_tensor_parallel_gpus_are_named_in_the_step_note():
    w = dataclasses.replace(default_workload("llm_finetune_full"), strategy="tensor_parallel",
                            tp_size=2, gpus_per_node=2)
    note = _t(w)["step_time_s"].note
    assert note.en == "micro-batch / samples per second per GPU / 2 tensor-parallel GPUs"
    assert note.zh == "微批次 / 每 GPU 每秒样本数 / 2 个张量并行 GPU"


def test_scaling_needs_a_known_rate_and_no_pipeline():
    turing = DeviceSpec("Old GPU", 16 * GiB, {"fp32": 8e12, "fp16": 65e12}, 320e9, True,
                        LINKS["pcie3_x16"])
    w = dataclasses.replace(default_workload("nlp_transformer"), gpus_per_node=2,
                            precision="amp_bf16")
    eff = _t(w, turing)["scaling_efficiency"]
    assert eff.value is None
    assert (eff.note.en, eff.note.zh) == ("unknown without a GPU and its speed", "未选择 GPU，未知")
    # two pipelines of two stages: data-parallel and model parallel, modelled since issue 24
    pp = dataclasses.replace(default_workload("llm_finetune_full"), strategy="pipeline_parallel",
                             pp_size=2, gpus_per_node=4)
    eff = _t(pp)["scaling_efficiency"]
    assert 0 < eff.value < 1
    # a pipeline without GPU links is not modelled
    eff = _t(pp, dataclasses.replace(GPU, intra_link=None))["scaling_efficiency"]
    assert eff.value is None
    assert eff.note.zh == "此链路未建模（GPU 链路未知）：时间按理想扩展计算，为上界"
    # two nodes without a node network
    two = dataclasses.replace(default_workload("nlp_transformer"), nodes=2)
    eff = _t(two)["scaling_efficiency"]
    assert eff.note.en.startswith("not modelled for this link")


def test_one_node_names_only_its_intra_link():
    w = dataclasses.replace(default_workload("nlp_transformer"), gpus_per_node=2)
    with_net = dataclasses.replace(GPU, inter_link=LINKS["ib_hdr"])
    eff = _t(w, with_net)["scaling_efficiency"]
    rate = 320e12 * MFU / BERT_FLOPS
    point = scaling_curve(plan(w).workload, 32 / rate, LINKS["nvlink3"], [2], 2, None)[0]
    ms = f"{point.comm_time_s * 1e3:.1f}"
    assert eff.note.en == (f"scaling model over NVLink 3 (A100): {ms} ms of gradient traffic "
                           "per optimizer step, partly hidden behind backward (an upper bound: "
                           "communication only)")
    assert eff.note.zh == (f"扩展模型（NVLink 3 (A100)）：每个优化器步梯度通信 {ms} ms，部分与反向"
                           "重叠（上界：只计通信）")


def test_environment_notes_in_both_languages():
    req = plan(default_workload("reinforcement_learning"), GPU)
    t = req.throughput
    assert t["samples_per_s"].note.zh == "受 CPU 环境模拟限制（GPU 端本可更快）"
    assert t["samples_per_s_per_gpu"].note.zh.endswith("；仅 GPU 端 - 通常受环境模拟限制")
    assert t["environment_steps_per_s"].note.zh.startswith("8 个环境进程（各占一核）× 每秒 380 步"
                                                           "（Atari，")
    a = next(x for x in req.assumptions if x.key == "environment_rate")
    assert a.text.en.startswith("380 environment steps/s per core (Atari, ")
    assert a.text.zh.startswith("每核每秒 380 个环境步（Atari，")
    custom = workload_from_options(task="reinforcement_learning", model="custom",
                                   params=1_000_000, image_size=84)
    env = _t(dataclasses.replace(custom, forward_flops_per_sample=1e8))["environment_steps_per_s"]
    assert env.note.zh == "未知：请为该环境给出 env_steps_per_s_per_core"
    own = dataclasses.replace(custom, forward_flops_per_sample=1e8, env_steps_per_s_per_core=10.0)
    a = next(x for x in plan(own, GPU).assumptions if x.key == "environment_rate")
    assert (a.text.en, a.text.zh) == ("10 environment steps/s per core (your figure)",
                                      "每核每秒 10 个环境步（你提供的数值）")
