"""Training throughput: compute-bound at an assumed share of the dense tensor peak (MFU,
docs/estimation.md sec. 5), memory-bound for CNNs (scaled from NVIDIA's ResNet-50 AMP A100
measurement), data-parallel scaling efficiency from the scaling model (:mod:`.scaling`), and
the CPU environment simulation that bounds reinforcement learning (EnvPool's Atari rate).
Inference goes to :mod:`torchrig.planning.requirements.serving`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.presets import Calibration
from torchrig.planning.requirements import fp8_training, pipeline_schedule
from torchrig.planning.requirements.activations import cal_precision, logit_width
from torchrig.planning.requirements.assumptions import (
    ATARI_ENV_SOURCE,
    ATARI_FRAMES_PER_S_PER_CORE,
    CNN_COMPUTE_REFERENCE,
    CNN_REFERENCE,
    DEFAULT_ENV_PROCESSES,
    FRAME_SKIP,
    MFU,
    MFU_RANGE,
)
from torchrig.planning.requirements.flops import training_flops_per_sample
from torchrig.planning.requirements.serving import inference_throughput
from torchrig.planning.requirements.types import Assumption, Item
from torchrig.planning.workload import ResolvedModel, Workload

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec


def throughput_items(w: Workload, model: ResolvedModel, cal: Calibration | None,
                     gpu: DeviceSpec | None, vram: dict[str, Item],
                     assumptions: list[Assumption]) -> tuple[dict[str, Item], float | None]:
    """Speed and time of the run on ``gpu`` (inference: :func:`inference_throughput`), and the
    samples per second of all GPUs together (None when unknown)."""
    no_gpu = Msg("no GPU chosen: pick one to estimate speed", "未选择 GPU：选择后可估算速度")
    if not w.is_training:
        return inference_throughput(w, model, gpu, vram, assumptions, no_gpu)
    items: dict[str, Item] = {}
    flops, flops_note = training_flops_per_sample(w, model, cal)
    items["flops_per_sample"] = Item(flops, flops_note)
    per_gpu: float | None = None
    if fp8_training.is_fp8_training(w) and model.arch is not None:
        per_gpu = _fp8_rate(w, model, gpu, items, assumptions, no_gpu)
    else:
        peak, key = (gpu.peak_for(w.precision) if gpu else (None, ""))
        items["peak_flops"] = Item(peak, _peak_note(w, gpu, key, no_gpu))
        items["utilisation"] = _utilisation(assumptions)
        if gpu is None or flops is None or peak is None:
            items["samples_per_s_per_gpu"] = Item(None, _unknown_rate(gpu, peak, key, no_gpu))
        else:
            per_gpu, note = _per_gpu_rate(w, model, cal, gpu, (peak, key), flops, assumptions)
            items["samples_per_s_per_gpu"] = Item(per_gpu, note)
    scaling = _scaling_efficiency(w, gpu, per_gpu)
    items["scaling_efficiency"] = scaling
    total, total_note = _all_gpus(w, per_gpu, scaling)
    if w.offload != "none" and gpu is not None and per_gpu is not None and total is not None:
        total, total_note = _offloaded(w, model, gpu, per_gpu, scaling, total, total_note,
                                       items, assumptions)
    if w.task == "reinforcement_learning":
        env = _environment_rate(w, assumptions)
        items["environment_steps_per_s"] = env
        if total is not None and env.value is not None and env.value < total:
            total = env.value
            total_note = Msg("bound by the CPU environment simulation (GPU side would do more)",
                             "受 CPU 环境模拟限制（GPU 端本可更快）")
    items["samples_per_s"] = Item(total, total_note)
    items.update(_run_time(w, model, per_gpu, total))
    return items, total


def _fp8_rate(w: Workload, model: ResolvedModel, gpu: DeviceSpec | None,
              items: dict[str, Item], assumptions: list[Assumption], no_gpu: Msg
              ) -> float | None:
    """fp8 training (Transformer Engine): the linear GEMMs at the fp8 peak, the rest at the
    bf16 peak, both at :data:`fp8_training.FP8_TRAINING_UTILISATION` (docs/estimation.md sec.
    14.2); a pipeline stage does 1/p of it. Fills the peak, utilisation and per-GPU items and
    returns the per-GPU rate (None when a peak or the GPU is unknown)."""
    assert model.arch is not None
    u = fp8_training.FP8_TRAINING_UTILISATION
    fp8_flops, bf16_flops = fp8_training.flop_split(w, model.arch, model.seq_len or 1,
                                                    logit_width(w, model.arch))
    share = fp8_flops / (fp8_flops + bf16_flops)
    items["fp8_flops_share"] = Item(share, Msg(
        "6 x the blocks' linear weights per token in fp8; attention (12·L·s·h) and the head in "
        "bf16", "每 token 6 × 各层线性权重为 fp8；注意力（12·L·s·h）和输出头为 bf16"))
    fp8_peak = gpu.peak_flops.get("fp8") if gpu else None
    bf16_peak = gpu.peak_flops.get("bf16") if gpu else None
    items["peak_flops"] = Item(fp8_peak, Msg(
        f"{gpu.name}: dense fp8 peak (linear GEMMs); bf16 {_tflops(bf16_peak, 'unknown')} "
        "for the rest" if gpu else no_gpu.en,
        f"{gpu.name}：稠密 fp8 峰值（线性层 GEMM）；其余 bf16 {_tflops(bf16_peak, '未知')}"
        if gpu else no_gpu.zh))
    items["utilisation"] = Item(u, Msg(
        f"fitted {u:.1%} of each peak ({fp8_training.FP8_UTILISATION_SOURCE.en})",
        f"拟合为各峰值的 {u:.1%}（{fp8_training.FP8_UTILISATION_SOURCE.zh}）"))
    assumptions.append(Assumption("fp8_training", Msg(
        f"fp8 training as Transformer Engine runs it: {share:.0%} of the FLOPs (the linear "
        f"layers' GEMMs) at the fp8 peak, the rest at the bf16 peak, both at {u:.1%} "
        f"(fitted: {fp8_training.FP8_UTILISATION_SOURCE.en}); fp32 master weights and "
        "optimizer states as amp_bf16, plus an fp8 copy of each linear weight",
        f"按 Transformer Engine 方式的 fp8 训练：{share:.0%} 的 FLOPs（线性层 GEMM）按 fp8 峰值，"
        f"其余按 bf16 峰值，均取 {u:.1%}（拟合自：{fp8_training.FP8_UTILISATION_SOURCE.zh}）；fp32 "
        "主权重和优化器状态同 amp_bf16，另加每个线性权重的 fp8 副本"), u))
    if gpu is None or fp8_peak is None or bf16_peak is None:
        why = no_gpu if gpu is None else Msg(
            f"unknown: {gpu.name} has no dense fp8 and bf16 figures (fp8 needs Ada, Hopper or "
            "Blackwell tensor cores)", f"未知：{gpu.name} 没有稠密 fp8 与 bf16 数据（fp8 需要 "
            "Ada、Hopper 或 Blackwell Tensor Core）")
        items["samples_per_s_per_gpu"] = Item(None, why)
        return None
    per_gpu = fp8_training.step_rate(fp8_flops, bf16_flops, fp8_peak, bf16_peak)
    note = Msg(f"compute-bound: 1 / (fp8 FLOPs / (fp8 peak x {u:.1%}) + bf16 FLOPs / (bf16 "
               f"peak x {u:.1%}))", f"计算受限：1 / (fp8 FLOPs / (fp8 峰值 × {u:.1%}) + bf16 "
               f"FLOPs / (bf16 峰值 × {u:.1%}))")
    per_gpu, note = _pipelined(w, per_gpu, note, assumptions)
    items["samples_per_s_per_gpu"] = Item(per_gpu, note)
    return per_gpu


def _tflops(value: float | None, unknown: str) -> str:
    return unknown if value is None else f"{value / 1e12:,.0f} TFLOP/s"


def _peak_note(w: Workload, gpu: DeviceSpec | None, key: str, no_gpu: Msg) -> Msg:
    peak_note = Msg(f"{gpu.name}: dense {key} peak" if gpu else no_gpu.en,
                    f"{gpu.name}：稠密 {key} 峰值" if gpu else no_gpu.zh)
    if gpu is not None and gpu.tensor_cores is False and w.precision.startswith("amp"):
        peak_note = Msg(f"{peak_note.en}; no tensor cores, so AMP speeds little up (seed 3.1 "
                        "assumes them)", f"{peak_note.zh}；无张量核心，AMP 提速有限（文档 3.1 "
                        "的说法以其为前提）")
    return peak_note


def _utilisation(assumptions: list[Assumption]) -> Item:
    """The assumed share of the dense peak (:data:`MFU`)."""
    item = Item(MFU, Msg(
        f"assumed {MFU:.0%} of peak (published measurements imply {MFU_RANGE[0]:.0%}-"
        f"{MFU_RANGE[1]:.0%})", f"假设达到峰值的 {MFU:.0%}（公开测量对应 {MFU_RANGE[0]:.0%}-"
        f"{MFU_RANGE[1]:.0%}）"))
    assumptions.append(Assumption("mfu", Msg(
        f"training reaches {MFU:.0%} of the dense tensor peak (30% Lambda BERT-base A100, 48% "
        "NVIDIA BERT-large A100; matmuls alone reach 80-87%)",
        f"训练达到稠密张量峰值的 {MFU:.0%}（Lambda BERT-base A100 为 30%，NVIDIA BERT-large "
        "A100 为 48%；纯矩阵乘可达 80-87%）"), MFU))
    return item


def _unknown_rate(gpu: DeviceSpec | None, peak: float | None, key: str, no_gpu: Msg) -> Msg:
    """Why the samples per second per GPU are unknown."""
    if gpu is None:
        return no_gpu
    if peak is None:
        return Msg(f"unknown: no dense {key} figure for {gpu.name} (bf16 needs Ampere or "
                   "newer)", f"未知：{gpu.name} 没有稠密 {key} 数据（bf16 需 Ampere 或更新）")
    return Msg("unknown: the model's FLOPs are unknown", "未知：模型 FLOPs 未知")


def _per_gpu_rate(w: Workload, model: ResolvedModel, cal: Calibration | None,
                  gpu: DeviceSpec, peak_key: tuple[float, str], flops: float,
                  assumptions: list[Assumption]) -> tuple[float, Msg]:
    """Samples per second one GPU trains: compute-bound at :data:`MFU` of the peak (a CNN in
    TF32 or FP32: at :data:`CNN_COMPUTE_REFERENCE`'s share), or memory-bound for a CNN where
    that is slower; a pipeline stage computes :func:`pipeline_schedule.busy_share` of the
    time."""
    peak, key = peak_key
    per_gpu = peak * MFU / flops
    note = Msg(f"compute-bound: peak x {MFU:.0%} / FLOPs per sample",
               f"计算受限：峰值 × {MFU:.0%} / 每样本 FLOPs")
    # Calibrated on an image classifier: detection heads and RL's small CNNs keep MFU.
    cnn_share = (_cnn_compute_share(key, cal)
                 if model.family == "cnn" and w.task == "image_classification" else None)
    if cnn_share is not None:
        per_gpu = peak * cnn_share / flops
        note = Msg(f"compute-bound: {key} peak x {cnn_share:.1%} / FLOPs per sample (the share "
                   f"NVIDIA's ResNet-50 {key.upper()} measurement reaches)",
                   f"计算受限：{key} 峰值 × {cnn_share:.1%} / 每样本 FLOPs（NVIDIA ResNet-50 "
                   f"{key.upper()} 实测达到的比例）")
        assumptions.append(Assumption("cnn_compute", Msg(
            f"CNN convolutions in {key.upper()} reach {cnn_share:.1%} of the peak (NVIDIA "
            "DeepLearningExamples ResNet-50 v1.5: 938 img/s TF32 on A100, 367 img/s FP32 on "
            "V100)", f"CNN 卷积在 {key.upper()} 下达到峰值的 {cnn_share:.1%}（NVIDIA "
            "DeepLearningExamples ResNet-50 v1.5：A100 TF32 每秒 938 张，V100 FP32 每秒 367 张）"),
            cnn_share))
    if model.family == "cnn" and gpu.memory_bandwidth_bps:
        memory_bound = _cnn_memory_bound(w, model, cal, gpu.memory_bandwidth_bps)
        if memory_bound is not None and memory_bound < per_gpu:
            per_gpu = memory_bound
            note = Msg("memory-bound: bandwidth / traffic per image (traffic per activation "
                       "byte from NVIDIA's ResNet-50 AMP A100 measurement)",
                       "内存带宽受限：带宽 / 每图流量（每激活字节流量取自 NVIDIA ResNet-50 "
                       "AMP A100 实测）")
            assumptions.append(Assumption("cnn_traffic", Msg(
                "CNN memory traffic per image scales with its activation bytes, calibrated "
                "on ResNet-50 AMP A100 (2470 img/s); published CNN throughputs on other GPUs "
                "differ from this model by up to +-55%",
                "CNN 每图内存流量与激活字节成比例，以 ResNet-50 AMP A100（2470 img/s）标定；"
                "其他 GPU 的公开数据与此模型相差可达 ±55%")))
    elif model.family == "cnn" and w.task == "image_classification":
        # Without the bandwidth the memory bound, which usually decides a CNN, cannot be
        # applied: say the figure is a ceiling (issue 24: a card with no bandwidth in the
        # catalog came out faster than an A100 and was recommended first).
        note = Msg(f"{note.en}; {gpu.name}'s memory bandwidth is unknown, so the memory bound "
                   "that usually limits a CNN is not applied: an upper bound",
                   f"{note.zh}；{gpu.name} 的显存带宽未知，无法套用通常限制 CNN 的带宽上限：此为"
                   "上界")
    per_gpu, note = _pipelined(w, per_gpu, note, assumptions)
    if w.task == "reinforcement_learning":
        note = Msg(f"{note.en}; GPU side only - the environment simulation usually limits",
                   f"{note.zh}；仅 GPU 端 - 通常受环境模拟限制")
    return per_gpu, note


def _pipelined(w: Workload, per_gpu: float, note: Msg, assumptions: list[Assumption]
               ) -> tuple[float, Msg]:
    """A pipeline stage's rate: every GPU holds 1/p of the layers and does 1/p of a sample's
    FLOPs, so ``per_gpu`` (one GPU's share of the FLOPs of all) stands, less the bubble
    of the 1F1B schedule, plain or interleaved, where each stage waits
    (:mod:`.pipeline_schedule`)."""
    if w.pp_size <= 1:
        return per_gpu, note
    m, v = w.grad_accumulation, pipeline_schedule.chunks(w)
    source, kind = pipeline_schedule.PIPELINE_SOURCE, Msg("", "")
    chunked, sends = Msg("", ""), Msg("", "")
    if v > 1:
        source, kind = pipeline_schedule.INTERLEAVED_SOURCE, Msg("interleaved ", "交错 ")
        chunked = Msg(f", each GPU holding {v} model chunks (Megatron-LM's virtual pipeline "
                      "stages)", f"，每 GPU {v} 个模型块（Megatron-LM 的虚拟流水线阶段）")
        sends = Msg(f" ({v} times those of 1F1B)", f"（为 1F1B 的 {v} 倍）")
    assumptions.append(Assumption("pipeline_schedule", Msg(
        f"pipeline parallelism runs the {kind.en}1F1B schedule with a flush per step "
        f"({source.en}) over the {m} gradient-accumulation micro-batch"
        f"{'es' if m != 1 else ''} of each step{chunked.en}; activations sent between "
        f"stages{sends.en} are not counted",
        f"流水线并行按每步清空的{kind.zh}1F1B 调度（{source.zh}），每步 {m} 个梯度累积微批次"
        f"{chunked.zh}；阶段间发送的激活{sends.zh}未计入"),
        pipeline_schedule.busy_share(w)))
    busy = pipeline_schedule.busy_note(w)
    return (per_gpu * pipeline_schedule.busy_share(w),
            Msg(f"{note.en}; {busy.en}", f"{note.zh}；{busy.zh}"))


def _offloaded(w: Workload, model: ResolvedModel, gpu: DeviceSpec, per_gpu: float,
               scaling: Item, total: float, note: Msg, items: dict[str, Item],
               assumptions: list[Assumption]) -> tuple[float, Msg]:
    """ZeRO-Offload's wait per optimizer step (:mod:`.offload_time`) as its own item, and the
    samples per second of all GPUs slowed by it: an optimizer step is m micro-batches at the
    scaling efficiency, then the wait."""
    from torchrig.planning.requirements.offload_time import offload_item

    compute = w.batch_size / per_gpu
    eff = scaling.value if scaling.value is not None else 1.0
    item, share = offload_item(w, model, compute, gpu.host_link,
                               w.grad_accumulation * compute / eff, assumptions)
    items["offload_time_s"] = item
    return total * share, Msg(f"{note.en} x {share:.0%} (the rest waits for ZeRO-Offload)",
                              f"{note.zh} × {share:.0%}（其余时间等待 ZeRO-Offload）")


def _all_gpus(w: Workload, per_gpu: float | None, scaling: Item) -> tuple[float | None, Msg]:
    """Samples per second of every data-parallel rank, at the scaling efficiency.

    ``per_gpu`` is one GPU's share (its peak x MFU over a whole sample's FLOPs), so all GPUs
    together do ``per_gpu`` x GPUs: MFU is counted over every GPU (PaLM appendix B), and a
    tensor-parallel group of t GPUs shares each sample's FLOPs, doing t x ``per_gpu`` as one
    data-parallel rank. Dividing by t as well (issue 24) made a TP group no faster than one
    GPU."""
    total = None if per_gpu is None else per_gpu * w.total_gpus
    total_note = Msg("unknown", "未知")
    if total is not None:
        eff = scaling.value if scaling.value is not None else 1.0
        total *= eff
        total_note = Msg(f"x {w.data_parallel} data-parallel ranks x {eff:.0%} scaling "
                         "efficiency", f"× {w.data_parallel} 个数据并行进程 × {eff:.0%} 扩展效率")
    return total, total_note


def _run_time(w: Workload, model: ResolvedModel, per_gpu: float | None, total: float | None
              ) -> dict[str, Item]:
    """Step time, tokens per second, and the time of one epoch and of the whole run."""
    items: dict[str, Item] = {}
    # A model-parallel group (t x p GPUs) works on one micro-batch together, at t x p x the
    # per-GPU rate (which holds the pipeline's bubble): the step time is a micro-batch's share.
    mp = max(1, w.tp_size) * max(1, w.pp_size)
    step = None if per_gpu is None else w.batch_size / (per_gpu * mp)
    group = Msg("", "")
    if w.pp_size > 1:
        group = Msg(f" / {mp} model-parallel GPUs ({w.tp_size} tensor x {w.pp_size} pipeline)",
                    f" / {mp} 个模型并行 GPU（{w.tp_size} 张量 × {w.pp_size} 流水线）")
    elif w.tp_size > 1:
        group = Msg(f" / {w.tp_size} tensor-parallel GPUs", f" / {w.tp_size} 个张量并行 GPU")
    items["step_time_s"] = Item(step, Msg(
        "micro-batch / samples per second per GPU" + group.en,
        "微批次 / 每 GPU 每秒样本数" + group.zh))
    tokens = None
    if total is not None and model.seq_len:
        tokens = total * model.seq_len
    items["tokens_per_s"] = Item(tokens, Msg("samples/s x sequence length",
                                             "每秒样本数 × 序列长度"))
    epoch = None
    if total and w.dataset.samples:
        epoch = w.dataset.samples / total
    items["time_per_epoch_s"] = Item(epoch, Msg(
        f"{w.dataset.samples:,} samples / samples per second",
        f"{w.dataset.samples:,} 个样本 / 每秒样本数"))
    items["total_time_s"] = Item(None if epoch is None else epoch * w.epochs, Msg(
        f"x {w.epochs:g} epochs", f"× {w.epochs:g} 个 epoch"))
    return items


def _scaling_efficiency(w: Workload, gpu: DeviceSpec | None, per_gpu: float | None) -> Item:
    """Data-parallel efficiency from the scaling model (:mod:`.scaling`) over the GPU's links;
    gradients are synchronised once per optimizer step (after the accumulation)."""
    dp = w.data_parallel
    if dp <= 1 and w.tp_size <= 1:
        return Item(1.0, Msg("one data-parallel rank: no gradient synchronisation",
                             "单个数据并行进程：无需梯度同步"))
    if gpu is None or per_gpu is None:
        return Item(None, Msg("unknown without a GPU and its speed", "未选择 GPU，未知"))
    if gpu.intra_link is None or (w.nodes > 1 and gpu.inter_link is None):
        return Item(None, Msg(
            "not modelled for this link (unknown GPU links): time assumes perfect scaling, an "
            "upper bound", "此链路未建模（GPU 链路未知）：时间按理想扩展计算，为上界"))
    if w.tp_size * w.pp_size > 1:
        return _model_parallel_efficiency(w, gpu, per_gpu)
    if w.strategy == "expert_parallel":  # the MoE all-to-alls the passes wait for (issue 24)
        from torchrig.planning.requirements.expert_parallel_step import expert_parallel_efficiency

        return expert_parallel_efficiency(w, gpu, per_gpu)
    # The scaling model (and its collective maths) only once a GPU's links are known.
    from torchrig.planning.requirements.scaling import scaling_curve

    compute = w.batch_size / per_gpu  # one micro-batch: the curve runs the step's m of them
    try:
        point = scaling_curve(w, compute, gpu.intra_link, [w.total_gpus], w.gpus_per_node,
                              gpu.inter_link, gpu.nics_per_node)[0]
    except InputError as exc:
        return Item(None, Msg(f"not modelled: {exc}; time assumes perfect scaling",
                              f"未建模：{exc}；时间按理想扩展计算"))
    links = gpu.intra_link.name + (f" + {gpu.inter_link.name}" if w.nodes > 1 and gpu.inter_link
                                   else "")
    return Item(point.efficiency, Msg(
        f"scaling model over {links}: {point.comm_time_s * 1e3:.1f} ms of gradient traffic per "
        "optimizer step, partly hidden behind backward (an upper bound: communication only)",
        f"扩展模型（{links}）：每个优化器步梯度通信 {point.comm_time_s * 1e3:.1f} ms，部分与反向"
        "重叠（上界：只计通信）"))


def _model_parallel_efficiency(w: Workload, gpu: DeviceSpec, per_gpu: float) -> Item:
    """Tensor / pipeline parallelism: the TP all-reduces the passes wait for, then the
    data-parallel gradient sync of each rank's 1/(t*p) share (:func:`model_parallel_step`)."""
    assert gpu.intra_link is not None
    mp = w.tp_size * w.pp_size
    if w.tp_size > w.gpus_per_node:
        return Item(None, Msg(
            f"not modelled: tensor parallelism over {w.tp_size} GPUs spans nodes of "
            f"{w.gpus_per_node}; time assumes perfect scaling",
            f"未建模：{w.tp_size} 个 GPU 的张量并行跨越了每节点 {w.gpus_per_node} 个 GPU 的节点；"
            "时间按理想扩展计算"))
    from torchrig.planning.requirements.scaling import model_parallel_step

    compute = w.batch_size * w.grad_accumulation / (per_gpu * mp)
    step = model_parallel_step(w, compute, gpu.intra_link, gpu.inter_link, gpu.nics_per_node)
    return Item(compute / step.step_time_s, Msg(
        f"scaling model over {gpu.intra_link.name}: {step.tp_comm_s * 1e3:.1f} ms of "
        f"tensor-parallel all-reduces the passes wait for, {step.dp_comm_s * 1e3:.1f} ms of "
        f"gradient traffic over {w.data_parallel} data-parallel ranks, partly hidden behind "
        "backward (an upper bound: communication only)",
        f"扩展模型（{gpu.intra_link.name}）：前向反向需等待的张量并行 all-reduce "
        f"{step.tp_comm_s * 1e3:.1f} ms，{w.data_parallel} 个数据并行进程间梯度通信 "
        f"{step.dp_comm_s * 1e3:.1f} ms，部分与反向重叠（上界：只计通信）"))


def _environment_rate(w: Workload, assumptions: list[Assumption]) -> Item:
    """Environment steps per second the CPUs simulate: one core per environment process."""
    cores = (w.num_workers or DEFAULT_ENV_PROCESSES) * w.nodes
    per_core = w.env_steps_per_s_per_core
    if per_core is None:
        if w.model != "nature-cnn":
            return Item(None, Msg(
                "unknown: give env_steps_per_s_per_core for this environment",
                "未知：请为该环境给出 env_steps_per_s_per_core"))
        per_core = ATARI_FRAMES_PER_S_PER_CORE / FRAME_SKIP
        source = Msg(f"Atari, {ATARI_ENV_SOURCE.en}", f"Atari，{ATARI_ENV_SOURCE.zh}")
    else:
        source = Msg("your figure", "你提供的数值")
    assumptions.append(Assumption("environment_rate", Msg(
        f"{per_core:,.0f} environment steps/s per core ({source.en})",
        f"每核每秒 {per_core:,.0f} 个环境步（{source.zh}）"), per_core))
    return Item(cores * per_core, Msg(
        f"{cores} environment processes (one core each) x {per_core:,.0f} steps/s ({source.en})",
        f"{cores} 个环境进程（各占一核）× 每秒 {per_core:,.0f} 步（{source.zh}）"))


def _cnn_compute_share(key: str, cal: Calibration | None) -> float | None:
    """The share of the ``key`` peak ResNet-50 reached in NVIDIA's measurement
    (:data:`CNN_COMPUTE_REFERENCE`), counted with the planner's own FLOPs per image."""
    ref = CNN_COMPUTE_REFERENCE.get(key)
    if ref is None or cal is None:
        return None
    rate, ref_peak, ref_id = ref
    vc = cal.vision.get(ref_id)
    if vc is None or not vc.forward_flops_per_sample:
        return None
    return rate * 3 * vc.forward_flops_per_sample / ref_peak


def _cnn_memory_bound(w: Workload, model: ResolvedModel, cal: Calibration | None,
                      bandwidth: float) -> float | None:
    rate, ref_bw, ref_id = CNN_REFERENCE
    if cal is None or model.preset is None or ref_id not in cal.vision:
        return None
    ref = cal.vision[ref_id].precisions["amp"].bytes_per_sample
    traffic_per_byte = ref_bw / rate / ref
    vc = cal.vision.get(model.preset.id)
    if vc is None:
        return None
    image = w.image_size or vc.image_size
    acts = vc.precisions[cal_precision(w)].bytes_per_sample * (image / vc.image_size) ** 2
    if w.gradient_checkpointing:
        acts *= 4 / 3
    return bandwidth / (acts * traffic_per_byte)
