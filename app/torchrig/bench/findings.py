"""What the measurements mean: findings from a benchmark report (and the machine's profile).

Only measured facts trigger a finding here - a link measured far below its theoretical rate, a
GPU far below its catalog peak, a CPU that cannot feed the measured training rate - each with
the numbers, a fix and the rule's source, in the same Finding model analysis uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.bench.benchmarks.h2d import pcie_rate_bps
from torchrig.bench.machine_state import busy_warnings
from torchrig.bench.report import BenchReport, Measurement
from torchrig.errors import InputError
from torchrig.findings import Finding, Severity, sort_findings
from torchrig.i18n import Msg
from torchrig.units import fmt_flops, fmt_rate

if TYPE_CHECKING:
    from torchrig.hardware.model import GpuInfo, SystemProfile

BELOW_SPEC = 0.5
"""Below half the catalog peak something is wrong (power cap, throttling, a busy GPU, a
wrong catalog match); good runs reach 80-90 % (docs/estimation.md section 5)."""

LINK_BELOW = 0.5
"""Pinned copies normally reach ~80-90 % of the link (H200: 55 of 63 GB/s)."""

HDD_LEVEL_BPS = 300e6
"""Above the fastest 7200 rpm HDD figure (275 MB/s) in docs/hardware-sources.md."""


def bench_findings(
    report: BenchReport,
    profile: SystemProfile | None = None,
    *,
    required_read_bps: float | None = None,
) -> list[Finding]:
    """Findings for ``report``, worst first.

    Args:
        report: a finished (or partial) benchmark report.
        profile: the machine's profile; defaults to the one embedded in the report.
        required_read_bps: the workload's disk read demand (samples/s x sample size), if known.
    """
    if profile is None and report.profile is not None:
        from torchrig.hardware.model import SystemProfile

        try:
            profile = SystemProfile.from_dict(report.profile, "report.profile")
        except InputError:
            profile = None
    found: list[Finding] = []
    found += _busy_findings(report)
    found += _link_findings(report, profile)
    found += _spec_findings(report, profile)
    found += _storage_findings(report, required_read_bps)
    found += _feed_findings(report)
    found += _amp_findings(report)
    return sort_findings(found)


def _busy_findings(report: BenchReport) -> list[Finding]:
    """The run's machine-state warnings (load, other processes, steal, GPU throttling) as one
    finding; reports from before machine_state fall back to the load average they kept."""
    warnings = report.busy_warnings
    numbers: dict[str, float] = {}
    if report.machine_state is None:
        legacy = busy_warnings({"before": {
            "load_average_1min": report.environment.get("load_average_1min"),
            "usable_cpus": report.environment.get("usable_cpus") or _profile_cpus(report)}})
        warnings = legacy
    if not warnings:
        return []
    load = report.environment.get("load_average_1min")
    if isinstance(load, (int, float)):
        numbers["load_average_1min"] = float(load)
    return [Finding(
        code="bench.busy_machine",
        severity=Severity.WARNING,
        title=Msg("The figures are not this machine's best: it was busy during the benchmark",
                  "结果并非本机最佳水平：基准测试期间机器繁忙"),
        detail=Msg(" ".join(w.en for w in warnings), "".join(w.zh for w in warnings)),
        fix=Msg("Close other jobs and run the benchmark again.",
                "关闭其他任务后重新运行基准测试。"),
        source=Msg("benchmark methodology", "基准测试方法"),
        numbers=numbers,
    )]


def _profile_cpus(report: BenchReport) -> int | None:
    """The detected profile's usable (else logical) CPU count, for reports whose environment
    did not keep one."""
    cpu = (report.profile or {}).get("cpu") or {}
    for key in ("usable_cpus", "logical_cpus"):
        value = cpu.get(key) if isinstance(cpu, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _gpu_for(report: BenchReport, profile: SystemProfile | None) -> GpuInfo | None:
    if profile is None or not report.device.startswith("cuda"):
        return None
    for gpu in profile.gpus:
        if gpu.torch_device == report.device:
            return gpu
    return None


def _link_findings(report: BenchReport, profile: SystemProfile | None) -> list[Finding]:
    h2d = report.result("h2d")
    if h2d is None or not h2d.ok:
        return []
    out: list[Finding] = []
    pinned = h2d.measurement("pinned_h2d")
    gen = width = None
    if pinned is not None:
        gen, width = pinned.details.get("pcie_gen"), pinned.details.get("pcie_width")
    gpu = _gpu_for(report, profile)
    if gen is None and gpu is not None:
        gen, width = gpu.pcie_gen_current, gpu.pcie_width_current
    if isinstance(gen, int) and isinstance(width, int) and (width < 16 or gen <= 3):
        link = pcie_rate_bps(gen, width)
        out.append(Finding(
            code="bench.pcie_link",
            severity=Severity.WARNING,
            title=Msg(f"GPU link runs at PCIe gen{gen} x{width}",
                      f"GPU 链路运行于 PCIe {gen}.0 x{width}"),
            detail=Msg(f"Theoretical {fmt_rate(link)} per direction, measured under load. "
                       "Data-parallel training and large batches copied each step feel it.",
                       f"理论单向 {fmt_rate(link)}（负载下读取）。"
                       "数据并行训练和每步拷贝大批量数据时"
                       "会受影响。"),
            fix=Msg("Use a CPU-connected x16 slot; check whether M.2 drives share its lanes and "
                    "the BIOS PCIe generation setting; avoid x1/x4 risers.",
                    "使用直连 CPU 的 x16 插槽；检查 M.2 是否共享通道及 BIOS 的 PCIe 代数设置；"
                    "避免 x1/x4 转接线。"),
            source=Msg("Puget Systems (x8 ~-3 %, gen4 x4 / gen3 x8 ~-10 %); Dettmers",
                       "Puget Systems（x8 约 -3%，gen4 x4 / gen3 x8 约 -10%）；Dettmers"),
            numbers={"pcie_gen": gen, "pcie_width": width, "link_bps": link or 0.0},
        ))
    if pinned is not None and pinned.ratio is not None and pinned.ratio < LINK_BELOW:
        assert pinned.value is not None and pinned.reference is not None
        out.append(Finding(
            code="bench.h2d_slow",
            severity=Severity.BOTTLENECK,
            title=Msg(f"Host-to-GPU copies reach only {pinned.ratio:.0%} of the link",
                      f"主机到 GPU 拷贝仅达链路的 {pinned.ratio:.0%}"),
            detail=Msg(f"Pinned copies measured {fmt_rate(pinned.value)} against "
                       f"{fmt_rate(pinned.reference.value)} theoretical; healthy links reach "
                       "80-90 %.",
                       f"锁页拷贝实测 {fmt_rate(pinned.value)}，理论 "
                       f"{fmt_rate(pinned.reference.value)}；正常链路可达 80-90%。"),
            fix=Msg("Reseat the card, check risers and the slot's electrical width, update the "
                    "BIOS, and check for another process using the GPU or the PCIe switch.",
                    "重新插拔显卡，检查转接线与插槽电气宽度，更新 BIOS，并检查是否有其他进程"
                    "占用 GPU 或 PCIe 交换芯片。"),
            source=Msg("docs/estimation.md sec. 5 (H200 on PCIe 5 x16: 55 of 63 GB/s)",
                       "估算参考第 5 节（H200 在 PCIe 5 x16 上：63 GB/s 中实测 55）"),
            numbers={"measured_bps": pinned.value, "theoretical_bps": pinned.reference.value or 0},
        ))
    pageable = h2d.measurement("pageable_h2d")
    if (pinned is not None and pageable is not None and pinned.value and pageable.value
            and pageable.value < 0.6 * pinned.value):
        out.append(Finding(
            code="bench.pin_memory",
            severity=Severity.ADVICE,
            title=Msg("Use pinned memory for host-to-GPU copies",
                      "主机到 GPU 拷贝请使用锁页内存"),
            detail=Msg(f"Pageable copies ran at {fmt_rate(pageable.value)}, pinned at "
                       f"{fmt_rate(pinned.value)}.",
                       f"可分页内存拷贝 {fmt_rate(pageable.value)}，锁页内存 "
                       f"{fmt_rate(pinned.value)}。"),
            fix=Msg("DataLoader(pin_memory=True) and tensor.to(device, non_blocking=True).",
                    "使用 DataLoader(pin_memory=True) 与 tensor.to(device, non_blocking=True)。"),
            source=Msg("PyTorch docs: pin_memory", "PyTorch 文档：pin_memory"),
            numbers={"pinned_bps": pinned.value, "pageable_bps": pageable.value},
        ))
    return out


def _spec_findings(report: BenchReport, profile: SystemProfile | None) -> list[Finding]:
    if report.device == "cpu":
        return []
    below: list[tuple[str, Measurement]] = []
    matmul = report.result("matmul")
    if matmul is not None:
        below += [("matmul", m) for m in matmul.measurements
                  if m.ratio is not None and m.ratio < BELOW_SPEC]
    membw = report.result("membw")
    if membw is not None:
        m = membw.measurement("copy_rw")
        if m is not None and m.ratio is not None and m.ratio < BELOW_SPEC:
            below.append(("membw", m))
    if not below:
        return []
    parts_en, parts_zh, numbers = [], [], {}
    for _bench, m in below:
        assert m.value is not None and m.reference is not None and m.ratio is not None
        fmt = fmt_flops if m.unit == "FLOP/s" else fmt_rate
        parts_en.append(f"{m.label.en}: {fmt(m.value)} = {m.ratio:.0%} of "
                        f"{fmt(m.reference.value)}")
        parts_zh.append(f"{m.label.zh}：{fmt(m.value)}，为 {fmt(m.reference.value)} 的 "
                        f"{m.ratio:.0%}")
        numbers[f"{m.id}_ratio"] = m.ratio
    gpu = _gpu_for(report, profile)
    power = ""
    if gpu is not None and gpu.power_limit_w:
        power = f" (power limit {gpu.power_limit_w:.0f} W)"
        numbers["power_limit_w"] = gpu.power_limit_w
    return [Finding(
        code="bench.below_spec",
        severity=Severity.WARNING,
        title=Msg(f"GPU runs far below its catalog peak{power}",
                  f"GPU 远低于目录峰值{power}"),
        detail=Msg("; ".join(parts_en) + ". Good runs reach 80-90 %.",
                   "；".join(parts_zh) + "。正常可达 80-90%。"),
        fix=Msg("Check nvidia-smi for a lowered power limit, clocks and temperature (thermal "
                "throttling), other processes on the GPU, and that the catalog entry matches "
                "this card.",
                "用 nvidia-smi 检查功耗上限是否被调低、频率与温度（过热降频）、GPU 上的其他进程，"
                "并确认目录条目与这张卡一致。"),
        source=Msg("docs/estimation.md sec. 5 (A100 87 %, H100 80 % of peak in BF16 GEMM)",
                   "估算参考第 5 节（BF16 GEMM 达到峰值的比例：A100 87%，H100 80%）"),
        numbers=numbers,
    )]


def _storage_findings(report: BenchReport, required_read_bps: float | None) -> list[Finding]:
    storage = report.result("storage")
    if storage is None or not storage.ok:
        return []
    seq = storage.measurement("seq_read")
    if seq is None or seq.value is None:
        return []
    out: list[Finding] = []
    folder = seq.details.get("folder", "")
    if required_read_bps is not None and seq.value < required_read_bps:
        out.append(Finding(
            code="bench.disk_slow",
            severity=Severity.BOTTLENECK,
            title=Msg("The disk reads slower than training needs", "磁盘读取速度低于训练所需"),
            detail=Msg(f"{folder}: measured {fmt_rate(seq.value)} sequential, the workload "
                       f"needs {fmt_rate(required_read_bps)}.",
                       f"{folder}：顺序读实测 {fmt_rate(seq.value)}，工作负载需要 "
                       f"{fmt_rate(required_read_bps)}。"),
            fix=Msg("Put the dataset on an NVMe SSD, cache it in RAM, or store it in fewer, "
                    "larger files (WebDataset / tar shards) and prefetch.",
                    "把数据集放到 NVMe SSD、缓存到内存，"
                    "或改用更少更大的文件（WebDataset / tar 分片）"
                    "并预取。"),
            source="seed 4.3",
            numbers={"measured_bps": seq.value, "required_bps": required_read_bps},
        ))
    elif seq.value < HDD_LEVEL_BPS:
        out.append(Finding(
            code="bench.disk_hdd_level",
            severity=Severity.WARNING,
            title=Msg("Dataset folder reads at hard-disk speed",
                      "数据集文件夹的读取速度只有机械硬盘水平"),
            detail=Msg(f"{folder}: {fmt_rate(seq.value)} sequential (7200 rpm HDDs: "
                       "160-275 MB/s).",
                       f"{folder}：顺序读 {fmt_rate(seq.value)}"
                       "（7200 转机械硬盘：160-275 MB/s）。"),
            fix=Msg("Keep training data on an SSD (NVMe preferred).",
                    "训练数据请放在 SSD 上（优先 NVMe）。"),
            source="seed 4.3; docs/hardware-sources.md sec. 3",
            numbers={"measured_bps": seq.value},
        ))
    if seq.details.get("cached"):
        out.append(Finding(
            code="bench.disk_cached",
            severity=Severity.ADVICE,
            title=Msg("Disk figures may be cache speed", "磁盘数据可能是缓存速度"),
            detail=Msg("The page cache could not be bypassed here, so the read rates may be "
                       "memory speed.", "此处无法绕过页缓存，读取速率可能是内存速度。"),
            fix=Msg("Run the benchmark on Linux, or with a dataset folder on a real disk.",
                    "在 Linux 上运行，或把数据集文件夹放在真实磁盘上。"),
            source=Msg("storage benchmark", "存储基准测试"),
        ))
    return out


def _feed_findings(report: BenchReport) -> list[Finding]:
    dataload = report.result("dataload")
    if dataload is None:
        return []
    out: list[Finding] = []
    best = dataload.measurement("best_rate")
    # Loader rate against the training rate: a headroom check, not a "% of reference".
    train_rate = best.reference.value if best is not None and best.reference else None
    if best is not None and best.value is not None and train_rate and best.value < train_rate:
        assert best.reference is not None
        workers = best.details.get("num_workers")
        out.append(Finding(
            code="bench.cpu_feed",
            severity=Severity.BOTTLENECK if report.device != "cpu" else Severity.WARNING,
            title=Msg("The CPU cannot feed the measured training rate",
                      "CPU 供不上实测的训练速率"),
            detail=Msg(f"Data loading peaked at {best.value:.0f} samples/s (num_workers="
                       f"{workers}); the CNN trains at {best.reference.value:.0f} samples/s. "
                       "The accelerator waits for data.",
                       f"数据加载峰值 {best.value:.0f} 样本/秒（num_workers={workers}）；"
                       f"CNN 训练速率 {best.reference.value:.0f} 样本/秒，加速器在等数据。"),
            fix=Msg("More CPU cores, lighter or GPU-side augmentation (e.g. NVIDIA DALI), or "
                    "pre-decoded / pre-resized data.",
                    "增加 CPU 核心、减轻增强或改在 GPU 上做（如 NVIDIA DALI），"
                    "或预先解码/缩放数据。"),
            source="seed 4.2",
            numbers={"loader_samples_per_s": best.value,
                     "train_samples_per_s": best.reference.value or 0.0},
        ))
    rec = dataload.measurement("recommended_workers")
    if rec is not None and rec.value is not None:
        out.append(Finding(
            code="bench.num_workers",
            severity=Severity.ADVICE,
            title=Msg(f"Use DataLoader(num_workers={rec.value:.0f})",
                      f"建议 DataLoader(num_workers={rec.value:.0f})"),
            detail=Msg("The smallest worker count within 5 % of the best loading rate measured "
                       "here.", "本机实测中达到最佳加载速率 95% 的最小 worker 数。"),
            fix=Msg("Set num_workers in your DataLoader; re-run with your own dataset, whose "
                    "per-sample cost may differ.",
                    "在 DataLoader 中设置 num_workers；"
                    "用自己的数据集再测一次，单样本开销可能不同。"),
            source="seed 4.2",
            numbers={"num_workers": rec.value},
        ))
    return out


def _amp_findings(report: BenchReport) -> list[Finding]:
    train = report.result("train")
    if train is None:
        return []
    out = []
    for net, name in (("cnn", Msg("CNN", "CNN")), ("transformer",
                                                    Msg("transformer", "Transformer"))):
        m = train.measurement(f"{net}_amp_speedup")
        if m is None or m.value is None or m.value >= 1.0:
            continue
        on_cpu = report.device == "cpu"
        out.append(Finding(
            code=f"bench.amp_slower.{net}",
            severity=Severity.ADVICE if on_cpu else Severity.WARNING,
            title=Msg(f"AMP is slower than FP32 for the {name.en} here",
                      f"此处 {name.zh} 的 AMP 比 FP32 更慢"),
            detail=Msg(f"Measured speed-up {m.value:.2f}x; the seed claims 1.3-1.5x.",
                       f"实测加速比 {m.value:.2f} 倍；原文称 1.3-1.5 倍。"),
            fix=Msg("AMP needs tensor cores (Volta and newer; the GTX 1660 Super has none) or, "
                    "on CPUs, native bf16 (AVX512_BF16 / AMX); without them train in FP32.",
                    "AMP 需要张量核心（Volta 及更新；GTX 1660 Super 没有），CPU 上需要原生 bf16"
                    "（AVX512_BF16 / AMX）；否则请用 FP32 训练。"),
            source="seed 3.1",
            numbers={"speedup": m.value},
        ))
    return out
