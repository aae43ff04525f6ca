"""Bottleneck analysis: a workload against a machine, a tier or a build -> Findings.

Each rule compares one requirement computed by :func:`~torchrig.planning.requirements.plan`
with one capability of the subject, and reports the numbers, the cheapest fix it can name
(a catalog part or a technique whose effect is re-planned, not assumed), and the rule's source.
Where published rules of thumb disagree (cores per GPU, RAM per VRAM) the finding says so and
warns on the stricter one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from torchrig.builds.capabilities import Capabilities
from torchrig.errors import InputError
from torchrig.findings import Finding, Severity, sort_findings
from torchrig.hardware.pcie import link_bytes_per_s
from torchrig.i18n import Msg, counted, plural
from torchrig.labels import STORAGE_KINDS
from torchrig.planning.device import (
    DeviceSpec,
    link_for,
    missing_tensor_format,
    subject_device,
)
from torchrig.planning.gpu_choice import (
    OVERKILL_TIME_FACTOR,
    GpuOption,
    best_value,
    gpu_options,
    part_price,
    pick_gpu,
    run_time,
)
from torchrig.planning.item_labels import LABELS
from torchrig.planning.requirements import Requirements, plan, vram_verdict
from torchrig.planning.requirements.scaling import interconnect_for_target, scaling_curve
from torchrig.planning.solver import Change, SolverAnswer, solve
from torchrig.planning.workload import Workload
from torchrig.units import fmt_gb, fmt_gib, fmt_rate, fmt_seconds

if TYPE_CHECKING:
    from torchrig.catalog.model import Catalog, Part, Tier
    from torchrig.planning.links import Link

_GPU, _GPUS = Msg("{n} GPU", "{n} 块 GPU"), Msg("{n} GPUs", "{n} 块 GPU")

TIGHT_FRACTION = 0.9
"""Above this share of VRAM or RAM a run is one allocator spike away from out-of-memory."""

OVERKILL_FRACTION = 0.25
"""A workload using under a quarter of a GPU's memory does not need that GPU (seed 4.1)."""

PCIE_SOURCE = Msg("Puget Systems: x8 vs x16 about -3%, gen4 x4 / gen3 x8 about -10%; Dettmers",
                  "Puget Systems：x8 比 x16 约慢 3%，gen4 x4 / gen3 x8 约慢 10%；Dettmers")
TORCH_ARCH_SOURCE = Msg(
    "PyTorch CUDA support matrix: CUDA 13.x wheels build sm_75+; the legacy CUDA 12.6 wheels "
    "(last in 2.14) add 5.0-7.0 (pytorch/pytorch#172352, #190385)",
    "PyTorch CUDA 支持矩阵：CUDA 13.x 安装包编译 sm_75 及以上；旧版 CUDA 12.6 安装包（最后见于 "
    "2.14）另含 5.0-7.0（pytorch/pytorch#172352、#190385）")
WORKLOAD_SOURCE = Msg("workload settings", "工作负载设置")

# Sequential read rates by drive kind, when neither a measurement nor a catalog part says
# more (docs/hardware-sources.md section 3, the low end of each range so a warning is not
# optimistic).
TYPICAL_READ_BPS = {"hdd": 160e6, "sata-ssd": 560e6, "nvme": 3.5e9}
TYPICAL_READ_SOURCE = Msg("docs/hardware-sources.md section 3: 7200 rpm HDD 160-275 MB/s, "
                          "SATA SSD ~560 MB/s, NVMe gen3 ~3.5 GB/s",
                          "硬件参考第 3 节：7200 转机械硬盘 160-275 MB/s，SATA 固态约 560 MB/s，"
                          "NVMe gen3 约 3.5 GB/s")


@dataclass
class Analysis:
    """Attributes: requirements (planned for the subject's GPU), findings (worst first), and
    the sizing solver's answer when the workload does not fit the subject's GPU memory (its
    changes are what the Wizard's "Apply" buttons apply)."""

    subject: Capabilities
    requirements: Requirements
    findings: list[Finding]
    solver: SolverAnswer | None = None


def _f(code: str, sev: Severity, title: tuple[str, str], detail: tuple[str, str],
       fix: tuple[str, str], source: Msg | str, **numbers: float) -> Finding:
    return Finding(code, sev, Msg(*title), Msg(*detail), Msg(*fix), source,
                   {k: float(v) for k, v in numbers.items() if v is not None})


def _value(section: dict, key: str) -> float | None:
    item = section.get(key)
    return None if item is None else item.value


# --- GPU choice: memory, time and money ----------------------------------------------------


def _largest_terms(req: Requirements, lang: str, count: int = 3) -> str:
    """The plan's ``count`` largest memory terms with their sizes, in words: what the memory
    goes to for this workload (an inference plan has no gradients to name)."""
    terms = sorted(((item.value, key) for key, item in req.vram_per_gpu.items()
                    if key not in ("total", "fragmentation") and item.value),
                   reverse=True)[:count]
    sep = "，" if lang == "zh" else ", "
    def words(key: str) -> str:
        text = LABELS.get(key, Msg(key, key)).get(lang)
        # Mid-sentence in English: "weights", but "KV cache" and "CUDA overhead" keep theirs.
        return text if lang == "zh" or text[:2].isupper() else text[0].lower() + text[1:]

    return sep.join(f"{words(key)} {fmt_gib(value)}" for value, key in terms)


def cheapest_gpu_that_fits(w: Workload, catalog: Catalog, currency: str = "USD",
                           cny_per_usd: Decimal | None = None) -> tuple[Part, float] | None:
    """The catalog GPU that runs ``w`` at the lowest price per unit of work (then the fastest,
    then the smallest; :func:`torchrig.planning.gpu_choice.best_value`), with its planned need."""
    best = best_value(gpu_options(w, catalog, currency, cny_per_usd))
    return None if best is None else (best.part, best.need)


def _fix_text(answer: SolverAnswer) -> tuple[str, str]:
    """The solver's changes as one sentence in each language."""
    def one(change: Change, lang: str) -> str:
        ratio = "" if change.time_ratio is None else f", {change.time_text(lang)}"
        return f"{change.label.get(lang)} -> {fmt_gib(change.vram_needed)}{ratio}"

    settings = [c for c in answer.changes if c.kind == "setting"]
    gpus = [c for c in answer.changes if c.kind == "gpu"]
    en = ("Settings that fit (re-planned): " + "; ".join(one(c, "en") for c in settings)
          if settings else "No setting alone or combined is enough (re-planned)")
    zh = ("可行的设置（已重新估算）：" + "；".join(one(c, "zh") for c in settings)
          if settings else "单项或组合设置都不够（已重新估算）")
    if gpus:
        en += "; or another GPU: " + "; ".join(one(c, "en") for c in gpus)
        zh += "；或换用 GPU：" + "；".join(one(c, "zh") for c in gpus)
    return en + ".", zh + "。"


# --- rules -----------------------------------------------------------------------------------


def _gpu_rules(w: Workload, caps: Capabilities, req: Requirements, catalog: Catalog | None,
               answer: SolverAnswer | None) -> list[Finding]:
    out: list[Finding] = []
    if caps.gpu_count == 0:
        out.append(_f(
            "analysis.no_gpu", Severity.BOTTLENECK,
            ("No CUDA GPU", "没有 CUDA GPU"),
            (f"{caps.label.en} has no usable GPU; training runs on the CPU, typically one to two "
             "orders of magnitude slower.",
             f"{caps.label.zh} 没有可用 GPU；训练将在 CPU 上运行，通常慢一到两个数量级。"),
            ("Add an NVIDIA GPU with tensor cores (seed 1.1).",
             "加装带 Tensor Core 的 NVIDIA GPU（种子文档 1.1 节）。"),
            "seed 1.1"))
        return out
    if caps.gpu_count < w.gpus_per_node:
        out.append(_f(
            "analysis.gpu_count", Severity.BLOCKER,
            ("Fewer GPUs than the workload uses", "GPU 数量少于工作负载所需"),
            (f"The workload runs on {plural(w.gpus_per_node, _GPU, _GPUS, 'en')} per node; "
             f"{caps.label.en} has {caps.gpu_count}.",
             f"工作负载每节点使用 {w.gpus_per_node} 块 GPU；"
             f"{caps.label.zh} 只有 {caps.gpu_count} 块。"),
            ("Add GPUs or plan for fewer GPUs per node.", "增加 GPU，或按更少的 GPU 规划。"),
            WORKLOAD_SOURCE, gpus_needed=w.gpus_per_node, gpus=caps.gpu_count))
    need = req.vram_total
    vram = caps.vram_per_gpu_bytes
    if vram is None:
        return out
    verdict = vram_verdict(need, req.vram_without_margin, vram)
    if verdict != "fits" and answer is not None:
        fix = _fix_text(answer)
        margin = need - req.vram_without_margin
        if verdict == "tight":
            out.append(_f(
                "analysis.vram_tight", Severity.WARNING,
                ("GPU memory is tight: only the safety margin is short",
                 "显存很紧：只缺安全余量"),
                (f"Needs {fmt_gib(need)} per GPU with the {fmt_gib(margin)} fragmentation "
                 f"margin, {fmt_gib(req.vram_without_margin)} without it; {caps.gpu_name} has "
                 f"{fmt_gib(vram)}. It runs, one allocator spike away from out-of-memory.",
                 f"含 {fmt_gib(margin)} 碎片余量每块 GPU 需要 {fmt_gib(need)}，不含余量需要 "
                 f"{fmt_gib(req.vram_without_margin)}；{caps.gpu_name} 有 {fmt_gib(vram)}。"
                 "可以运行，但离显存溢出只差一次分配峰值。"),
                fix, Msg("vLLM gpu_memory_utilization = 0.9 (margin); sizing solver",
                    "vLLM gpu_memory_utilization = 0.9（余量）；配置求解器"),
                vram_needed=need, vram=vram, vram_without_margin=req.vram_without_margin))
        else:
            out.append(_f(
                "analysis.vram", Severity.BLOCKER,
                ("Does not fit in GPU memory", "显存不足，无法运行"),
                (f"Needs {fmt_gib(need)} per GPU (largest: {_largest_terms(req, 'en')}); "
                 f"{fmt_gib(req.vram_without_margin)} even without the fragmentation margin; "
                 f"{caps.gpu_name} has {fmt_gib(vram)}.",
                 f"每块 GPU 需要 {fmt_gib(need)}（最大的几项：{_largest_terms(req, 'zh')}），"
                 f"不含碎片余量也需 {fmt_gib(req.vram_without_margin)}；{caps.gpu_name} 只有 "
                 f"{fmt_gib(vram)}。"),
                fix,
                "seed 1.1; ZeRO (arXiv 1910.02054); Korthikanti et al. (arXiv 2205.05198)"
                if w.is_training else
                "seed 1.1; PagedAttention (arXiv 2309.06180)",
                vram_needed=need, vram=vram))
    elif need > TIGHT_FRACTION * vram:
        out.append(_f(
            "analysis.vram_tight", Severity.WARNING,
            ("GPU memory is tight", "显存余量很小"),
            (f"Needs {fmt_gib(need)} of {fmt_gib(vram)} ({need / vram:.0%}); allocator "
             "fragmentation or a longer batch can tip it over.",
             f"需要 {fmt_gib(need)}，共 {fmt_gib(vram)}（{need / vram:.0%}）；碎片或更长的批次"
             "可能导致显存溢出。"),
            ("Leave headroom: gradient checkpointing or AMP (seed 3.1, 3.3).",
             "留出余量：使用梯度检查点或混合精度（种子文档 3.1、3.3 节）。"),
            "seed 3.1, 3.3", vram_needed=need, vram=vram))
    elif need < OVERKILL_FRACTION * vram and catalog is not None and caps.gpu_part is not None:
        smaller = _smaller_gpu_as_fast(w, caps, req, catalog)
        if smaller is not None:
            here = run_time(req)
            slower = (Msg("", "") if smaller.time_s is None or not here else
                      Msg(f" and finishes in {fmt_seconds(smaller.time_s)} (here "
                          f"{fmt_seconds(here)})",
                          f"，用时 {fmt_seconds(smaller.time_s, 'zh')}"
                          f"（当前 {fmt_seconds(here, 'zh')}）"))
            part = smaller.part
            out.append(_f(
                "analysis.overkill_gpu", Severity.OVERKILL,
                ("More GPU than this workload needs", "GPU 配置过剩"),
                (f"Uses {fmt_gib(need)} of {fmt_gib(vram)} ({need / vram:.0%}) per GPU.",
                 f"每块 GPU 只用到 {fmt_gib(need)} / {fmt_gib(vram)}（{need / vram:.0%}）。"),
                (f"{part.name} ({fmt_gib(part.gpu.vram_bytes or 0, 0)}) fits this workload at a "
                 f"lower price{slower.en}; or run larger batches / more experiments.",
                 f"{part.name}（{fmt_gib(part.gpu.vram_bytes or 0, 0)}）即可满足且更便宜"
                 f"{slower.zh}；或增大批次 / 并行更多实验。"),
                "seed 4.1", vram_needed=need, vram=vram))
    device = subject_device(caps)
    why = None if device is None else missing_tensor_format(device, w.precision)
    if why is not None:
        out.append(_f(
            "analysis.tensor_format", Severity.BLOCKER,
            (f"No {w.precision} tensor cores", f"没有 {w.precision} Tensor Core"),
            (f"{why.en[0].upper()}{why.en[1:]}; the plan has no {w.precision} speed for it.",
             f"{why.zh}；该 GPU 无法给出 {w.precision} 速度。"),
            (("Train in amp_bf16 on this GPU, or choose a GPU whose tensor cores compute "
              f"in {w.precision} (Ada, Hopper, Blackwell) for Transformer Engine's fp8.",
              f"在此 GPU 上改用 amp_bf16 训练，或选择支持 {w.precision} 的 GPU（Ada、Hopper、"
              "Blackwell）以使用 Transformer Engine 的 fp8。") if w.is_training else
             ("Serve in bf16 or with int8 / int4 weights on this GPU, or choose a GPU whose "
              f"tensor cores compute in {w.precision}.",
              f"在此 GPU 上改用 bf16 或 int8 / int4 权重，或选择支持 {w.precision} 的 GPU。")),
            Msg("NVIDIA Ada and Hopper architecture whitepapers (FP8); NVIDIA Blackwell "
                "datasheet (FP4)", "NVIDIA Ada、Hopper 架构白皮书（FP8）；NVIDIA Blackwell "
                "数据表（FP4）")))
    if w.precision in ("amp_fp16", "amp_bf16", "bf16") and caps.tensor_cores is False:
        out.append(_f(
            "analysis.no_tensor_cores", Severity.BOTTLENECK,
            ("No tensor cores: AMP gains little speed", "无 Tensor Core：混合精度几乎不提速"),
            (f"{caps.gpu_name} has no tensor cores, so the seed's AMP speed-up (30-50%) does "
             "not apply; memory savings still do.",
             f"{caps.gpu_name} 没有 Tensor Core，种子文档所说的 30-50% 混合精度加速不适用；"
             "显存节省仍然有效。"),
            ("Choose a GPU with tensor cores (Volta or newer) for AMP.",
             "如需混合精度加速，请选择带 Tensor Core 的 GPU（Volta 及更新）。"),
            Msg("seed 3.1; NOTES.md (TU116 has no tensor cores)",
                "种子文档 3.1 节；NOTES.md（TU116 没有张量核心）")))
    if w.precision == "amp_bf16" or w.precision == "bf16":
        cc = _cc(caps.compute_capability)
        if cc is not None and cc < 8.0:
            out.append(_f(
                "analysis.bf16", Severity.WARNING,
                ("BF16 needs Ampere or newer", "BF16 需要 Ampere 或更新架构"),
                (f"{caps.gpu_name} is compute capability {caps.compute_capability}; bf16 "
                 "matmuls are emulated or unsupported before 8.0.",
                 f"{caps.gpu_name} 计算能力为 {caps.compute_capability}；8.0 之前 bf16 矩阵乘"
                 "为模拟或不支持。"),
                ("Use AMP fp16 with a GradScaler.", "改用 AMP fp16 并配合 GradScaler。"),
                Msg("NVIDIA Ampere architecture (sm_80)", "NVIDIA Ampere 架构（sm_80）")))
    cc = _cc(caps.compute_capability)
    if cc is not None and cc < 7.5:
        out.append(_f(
            "analysis.compute_capability", Severity.WARNING if cc >= 5.0 else Severity.BLOCKER,
            ("GPU too old for current PyTorch wheels", "GPU 架构对当前 PyTorch 版本过旧"),
            (f"Compute capability {caps.compute_capability}: current CUDA 13 wheels need 7.5 "
             "(Turing) or newer; the legacy CUDA 12.6 wheels (last in PyTorch 2.14) still "
             "cover 5.0-7.0.",
             f"计算能力 {caps.compute_capability}：当前 CUDA 13 版本需要 7.5（Turing）及以上；"
             "旧版 CUDA 12.6 包（最后为 PyTorch 2.14）仍支持 5.0-7.0。"),
            ("Use the cu126 wheels of PyTorch <= 2.14, or a Turing-or-newer GPU.",
             "使用 PyTorch ≤ 2.14 的 cu126 版本，或换用 Turing 及更新的 GPU。"),
            TORCH_ARCH_SOURCE, compute_capability=cc))
    return out


def _smaller_gpu_as_fast(w: Workload, caps: Capabilities, req: Requirements,
                         catalog: Catalog) -> GpuOption | None:
    """A catalog GPU with less memory, a lower known price, and a run at most
    OVERKILL_TIME_FACTOR slower than on the subject's GPU, that the subject's machine takes
    (planning/buying_for.py): memory alone is not overkill."""
    from torchrig.planning.buying_for import buying_for

    assert caps.gpu_part is not None
    here = part_price(caps.gpu_part, "USD", None)
    time_here = run_time(req)
    buying = buying_for(caps, catalog, w.gpus_per_node)
    candidates = []
    for option in gpu_options(w, catalog, "USD"):
        if option.verdict != "fits" or option.part.id == caps.gpu_part.id \
                or not buying.allows(option.part, w) \
                or (option.part.gpu.vram_bytes or 0) >= (caps.vram_per_gpu_bytes or 0):
            continue
        if option.price is None or (here is not None and option.price >= here):
            continue
        if time_here and (option.time_s is None
                          or option.time_s > OVERKILL_TIME_FACTOR * time_here):
            continue
        candidates.append(option)
    return min(candidates, key=lambda o: o.price or 0) if candidates else None


def _cc(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def _ram_rules(w: Workload, caps: Capabilities, req: Requirements) -> list[Finding]:
    out: list[Finding] = []
    ram = caps.ram_bytes
    need = _value(req.system_ram, "total")
    if ram is None or need is None:
        return out
    if need > ram:
        out.append(_f(
            "analysis.ram", Severity.BLOCKER,
            ("Not enough system RAM", "系统内存不足"),
            (f"Needs {fmt_gib(need)} of RAM (data loading, pinned buffers, cache, offload); "
             f"{caps.label.en} has {fmt_gib(ram)}.",
             f"需要 {fmt_gib(need)} 内存（数据加载、锁页缓冲、缓存、卸载）；"
             f"{caps.label.zh} 只有 {fmt_gib(ram)}。"),
            ((f"Fit at least {fmt_gib(need * 1.25, 0)} of RAM, or do not cache the dataset in "
              "RAM.", f"至少配置 {fmt_gib(need * 1.25, 0)} 内存，或不要把数据集缓存在内存中。")
             if w.dataset.cache_in_ram else
             (f"Fit at least {fmt_gib(need * 1.25, 0)} of RAM.",
              f"至少配置 {fmt_gib(need * 1.25, 0)} 内存。")),
            "seed 1.2", ram_needed=need, ram=ram))
    elif need > TIGHT_FRACTION * ram and not caps.swap_bytes and caps.kind == "machine":
        out.append(_f(
            "analysis.swap", Severity.ADVICE,
            ("RAM is tight and there is no swap", "内存紧张且未启用交换空间"),
            (f"Needs {fmt_gib(need)} of {fmt_gib(ram)}; without swap a spike ends the run.",
             f"需要 {fmt_gib(need)} / {fmt_gib(ram)}；没有交换空间时，一次峰值就会终止训练。"),
            ("Enable swap as a safety net (seed 1.2), or add RAM.",
             "启用交换空间作为保险（种子文档 1.2 节），或增加内存。"),
            "seed 1.2", ram_needed=need, ram=ram))
    if caps.gpu_count and caps.vram_per_gpu_bytes:
        total_vram = caps.vram_per_gpu_bytes * caps.gpu_count
        puget = 2 * total_vram
        dettmers = caps.vram_per_gpu_bytes
        if ram < puget:
            severity = Severity.WARNING if ram < dettmers else Severity.ADVICE
            out.append(_f(
                "analysis.ram_vs_vram", severity,
                ("Less RAM than the rules of thumb for this much VRAM",
                 "相对显存而言内存偏少"),
                (f"RAM {fmt_gib(ram, 0)} vs GPU memory {fmt_gib(total_vram, 0)}. Sources "
                 f"disagree: Puget asks >= 2x total VRAM ({fmt_gib(puget, 0)}), Dettmers >= the "
                 f"largest GPU's VRAM ({fmt_gib(dettmers, 0)}), the seed >= 32 GB. The stricter "
                 "rule is used for this note.",
                 f"内存 {fmt_gib(ram, 0)}，显存合计 {fmt_gib(total_vram, 0)}。各来源说法不一："
                 f"Puget 建议 ≥ 显存总量的 2 倍（{fmt_gib(puget, 0)}），Dettmers 建议 ≥ 单卡显存"
                 f"（{fmt_gib(dettmers, 0)}），种子文档建议 ≥ 32 GB。此处按更严格的规则提示。"),
                (f"Plan for {fmt_gib(puget, 0)} of RAM.", f"建议配置 {fmt_gib(puget, 0)} 内存。"),
                "Puget Systems; Tim Dettmers; seed 1.2", ram=ram, total_vram=total_vram))
    return out


def _cpu_rules(w: Workload, caps: Capabilities, req: Requirements) -> list[Finding]:
    out: list[Finding] = []
    cores = caps.cpu_cores
    if cores is None:
        return out
    needed = _value(req.cpu, "cores_needed")
    if needed and cores < needed:
        out.append(_f(
            "analysis.cpu_feed", Severity.BOTTLENECK,
            ("Too few CPU cores to feed the GPUs", "CPU 核心不足以喂饱 GPU"),
            (f"The data pipeline needs about {math.ceil(needed)} cores at the estimated "
             f"training rate; {caps.label.en} has {cores}.",
             f"按估算的训练速度，数据管线约需 {math.ceil(needed)} 个核心；"
             f"{caps.label.zh} 只有 {cores} 个。"),
            ("Use more DataLoader workers on a CPU with more cores, or preprocess data once "
             "(seed 4.2).",
             "换用核心更多的 CPU 并增加 DataLoader 进程，或预先处理数据（种子文档 4.2 节）。"),
            Msg("seed 4.2; docs/estimation.md section 4 (per-core decode rate is an estimate)",
                "种子文档 4.2 节；估算参考第 4 节（每核解码速率为估计值）"),
            cores_needed=needed, cores=cores))
    if caps.gpu_count == 0:
        return out  # the per-GPU rules are about feeding GPUs
    gpus = caps.gpu_count
    strict = max(4 * gpus, 8)
    if cores < strict and not (needed and cores < needed):
        out.append(_f(
            "analysis.cpu_rule", Severity.WARNING if cores < 2 * gpus else Severity.ADVICE,
            ("Fewer cores than the rules of thumb", "核心数低于经验规则"),
            (f"{cores} cores for {plural(gpus, _GPU, _GPUS, 'en')}. Sources disagree: Puget "
             "asks >= 4 per GPU, Dettmers 1-2 per GPU when data is preprocessed, the seed >= 8 "
             f"with SMT; the stricter ({strict}) is used here.",
             f"{gpus} 块 GPU 配 {cores} 个核心。各来源说法不一：Puget 建议每 GPU ≥ 4 核，Dettmers "
             "认为数据已预处理时每 GPU 1-2 核即可，种子文档建议 ≥ 8 核；"
             f"此处采用更严格的 {strict} 核。"),
            ("Measure with the data-loading benchmark before buying more cores.",
             "购买更多核心前，先用数据加载基准测试实测。"),
            "Puget Systems; Tim Dettmers; seed 1.1", cores=cores, cores_rule=strict))
    return out


def _cluster_storage_rules(w: Workload, caps: Capabilities, req: Requirements
                           ) -> list[Finding]:
    """Several nodes read one dataset: a shared file system must deliver the aggregate rate,
    and without one every node needs its own copy (seed 2.3: Ceph / S3-class storage)."""
    if w.nodes <= 1 or not w.is_training:
        return []
    aggregate = _value(req.storage, "read_rate_bps")  # all nodes together
    dataset = w.dataset.samples * w.dataset.sample_bytes
    rate = (Msg.verbatim(fmt_rate(aggregate)) if aggregate
            else Msg("an unknown rate", "未知的速率"))
    if not caps.shared_storage:
        # Copying a small text corpus to each node is routine; a large image set is not.
        heavy = dataset >= 100e9 or (aggregate or 0.0) >= 1e9
        return [_f(
            "analysis.cluster_storage", Severity.WARNING if heavy else Severity.ADVICE,
            ("No shared storage for a multi-node run", "多节点训练没有共享存储"),
            (f"{w.nodes} nodes read the dataset at about {rate.en} together; without a shared "
             f"file system each node must hold its own copy ({fmt_gb(dataset)}) and keep it "
             "in sync.",
             f"{w.nodes} 个节点合计约以 {rate.zh} 读取数据集；没有共享文件系统时，每个节点都要保存"
             f"一份副本（{fmt_gb(dataset)}）并保持同步。"),
            ("Add a distributed file system or object store (Ceph, S3-class) sized for the "
             "aggregate rate, or stage the dataset to each node's NVMe before training.",
             "增加按合计读取速率规划的分布式文件系统或对象存储（Ceph、S3 类），或在训练前把数据集"
             "拷到每个节点的 NVMe。"),
            "seed 2.3", read_rate_needed=aggregate or 0.0, dataset_bytes=dataset)]
    per_node = (aggregate or 0.0) / w.nodes
    if caps.node_network_bps and per_node * 8 > 0.5 * caps.node_network_bps:
        return [_f(
            "analysis.cluster_storage_network", Severity.BOTTLENECK,
            ("Data reads compete with gradient traffic on the node network",
             "数据读取与梯度同步争用节点网络"),
            (f"Each node reads about {fmt_rate(per_node)} from shared storage: more than half of "
             f"its {caps.node_network_bps / 1e9:g} Gb/s link.",
             f"每个节点从共享存储读取约 {fmt_rate(per_node)}：超过其 "
             f"{caps.node_network_bps / 1e9:g} Gb/s 链路的一半。"),
            ("Use a separate storage network, cache the dataset on local NVMe, or a faster "
             "adapter.", "使用独立的存储网络、把数据集缓存到本地 NVMe，或更换更快的网卡。"),
            "seed 2.3", read_rate_per_node=per_node, network_bps=caps.node_network_bps)]
    if not aggregate or aggregate < 50e6:
        return []  # a trickle (pre-tokenized text): any shared file system keeps up
    return [_f(
        "analysis.cluster_storage_rate", Severity.ADVICE,
        ("Size the shared storage for the aggregate read rate", "按合计读取速率规划共享存储"),
        (f"{w.nodes} nodes read about {rate.en} together from the shared storage; its rate is not "
         "in the build (a custom line has no specs).",
         f"{w.nodes} 个节点合计约以 {rate.zh} 读取共享存储；配置中没有它的速率"
         "（自定义项没有规格）。"),
        ("Check the storage system's sustained read rate with the vendor, then measure it with "
         "the storage benchmark on a node (--dataset-dir on the shared mount).",
         "向厂商确认存储系统的持续读取速率，"
         "再在节点上用存储基准测试实测（--dataset-dir 指向共享挂载）。"),
        "seed 2.3", read_rate_needed=aggregate or 0.0)]


def _storage_rules(w: Workload, caps: Capabilities, req: Requirements) -> list[Finding]:
    out: list[Finding] = _cluster_storage_rules(w, caps, req)
    rate_needed = _value(req.storage, "read_rate_bps")
    total = _value(req.storage, "total")
    rate, basis = caps.storage_read_bps, caps.storage_read_basis
    if rate is None and caps.storage_kind in TYPICAL_READ_BPS:
        rate, basis = TYPICAL_READ_BPS[caps.storage_kind], TYPICAL_READ_SOURCE
    cached = w.dataset.cache_in_ram
    if rate_needed and rate and rate < rate_needed and not cached:
        kind = STORAGE_KINDS.get(caps.storage_kind or "", Msg("drive", "硬盘"))
        out.append(_f(
            "analysis.storage_rate", Severity.BOTTLENECK,
            ("Storage too slow for the data rate", "存储速度跟不上数据读取"),
            (f"Training reads about {fmt_rate(rate_needed)}; the "
             f"{kind.en} reads about {fmt_rate(rate)} ({basis.en if basis else ''}).",
             f"训练约需读取 {fmt_rate(rate_needed)}；该{kind.zh}"
             f"约为 {fmt_rate(rate)}（{basis.zh if basis else ''}）。"),
            ("Put the dataset on an NVMe SSD, or cache it in RAM / tmpfs (seed 1.2, 4.3).",
             "把数据集放到 NVMe SSD 上，或缓存到内存 / tmpfs（种子文档 1.2、4.3 节）。"),
            "seed 4.3", read_rate_needed=rate_needed, read_rate=rate))
    elif caps.storage_kind == "hdd" and not cached:
        out.append(_f(
            "analysis.storage_hdd", Severity.WARNING,
            ("Dataset on a hard disk", "数据集位于机械硬盘"),
            ("Random reads of many small files on an HDD are far slower than its sequential "
             "rate; the seed's 10x NVMe-vs-HDD example applies.",
             "机械硬盘随机读取大量小文件远慢于其顺序读速度；"
             "种子文档中 NVMe 比 HDD 快 10 倍的例子适用。"),
            ("Use NVMe for the training set; keep the HDD for backups (seed 2.2).",
             "训练集放在 NVMe 上；机械硬盘用于备份（种子文档 2.2 节）。"),
            "seed 1.2, 4.3"))
    if total and caps.storage_bytes and total > caps.storage_bytes:
        out.append(_f(
            "analysis.storage_size", Severity.BLOCKER,
            ("Not enough storage for the data and checkpoints", "存储容量不足"),
            (f"Needs {fmt_gb(total)} (dataset, model, checkpoints); {caps.label.en} has "
             f"{fmt_gb(caps.storage_bytes)}.",
             f"需要 {fmt_gb(total)}（数据集、模型、检查点）；"
             f"{caps.label.zh} 只有 {fmt_gb(caps.storage_bytes)}。"),
            ("Add a larger drive.", "增加更大容量的硬盘。"),
            WORKLOAD_SOURCE, storage_needed=total, storage=caps.storage_bytes))
    elif total and caps.storage_free_bytes is not None and total > caps.storage_free_bytes:
        # This machine: its drives may be large enough but already full.
        out.append(_f(
            "analysis.storage_free", Severity.WARNING,
            ("Not enough free disk space for the data and checkpoints", "磁盘剩余空间不足"),
            (f"Needs {fmt_gb(total)} (dataset, model, checkpoints); {caps.label.en} has "
             f"{fmt_gb(caps.storage_free_bytes)} free on its local drives. Unless the dataset "
             "is already on them, it does not fit.",
             f"需要 {fmt_gb(total)}（数据集、模型、检查点）；{caps.label.zh}的本地硬盘剩余 "
             f"{fmt_gb(caps.storage_free_bytes)}。除非数据集已在这些硬盘上，否则放不下。"),
            ("Free space, add a drive, or read the dataset from a network share.",
             "清理空间、增加硬盘，或从网络存储读取数据集。"),
            WORKLOAD_SOURCE, storage_needed=total, storage_free=caps.storage_free_bytes))
    return out


def _pcie_rules(w: Workload, caps: Capabilities) -> list[Finding]:
    """Compare each GPU link with PCIe 4.0 x16, the link Puget's percentages are relative to:
    half of it (gen4 x8 / gen3 x16) costs about 3%, a quarter (gen4 x4 / gen3 x8) about 10%."""
    if caps.kind == "tier":
        return []
    worst: tuple[float, int | None, int | None] | None = None
    reference = link_bytes_per_s(4, 16)
    assert reference is not None
    for gen, width in caps.gpu_links:
        rate = link_bytes_per_s(gen, width)
        if rate is None:
            continue
        share = rate / reference
        if worst is None or share < worst[0]:
            worst = (share, gen, width)
    if worst is None or worst[0] >= 0.99:
        return []
    share, gen, width = worst
    cost = "about 3%" if share >= 0.49 else "about 10% or more"
    cost_zh = "约 3%" if share >= 0.49 else "约 10% 或更多"
    many = caps.gpu_count > 1
    return [_f(
        "analysis.pcie", Severity.ADVICE if share >= 0.49 else Severity.BOTTLENECK,
        ("GPU on a narrower PCIe link than gen4 x16", "GPU 的 PCIe 链路低于 gen4 x16"),
        (f"Slowest GPU link: Gen{gen} x{width} ({share:.0%} of gen4 x16); training loses "
         f"{cost}{', more with several GPUs in data parallel' if many else ''}. A detected link "
         "can read lower at idle: check under load.",
         f"最慢的 GPU 链路：Gen{gen} x{width}（gen4 x16 的 {share:.0%}）；训练约损失 {cost_zh}"
         f"{'，多卡数据并行时影响更大' if many else ''}。空闲时链路会降速，请在负载下确认。"),
        ("Use x16 slots wired to the CPU; M.2 drives can steal lanes from a slot.",
         "使用直连 CPU 的 x16 插槽；M.2 硬盘可能占用插槽通道。"),
        PCIE_SOURCE, link_share=share)]


def _scaling_rules(w: Workload, caps: Capabilities, req: Requirements,
                   measured: Link | None = None) -> list[Finding]:
    if w.total_gpus <= 1 or w.mode == "infer" or not w.is_training:
        return []
    step = _value(req.throughput, "step_time_s")
    if not step:
        return []
    intra, inter = link_for(caps)
    if measured is not None:  # the plan's measured link, in place of the catalog's
        intra, inter = (intra, measured) if measured.scope == "inter" else (measured, inter)
    if intra is None:
        return []
    if w.nodes > 1 and inter is None:
        return [_f(
            "analysis.no_network", Severity.BLOCKER,
            ("Multi-node workload without a node network", "多节点工作负载但没有节点间网络"),
            (f"The workload spans {w.nodes} nodes; {caps.label.en} lists no InfiniBand or Ethernet "
             "adapter.",
             f"工作负载跨 {w.nodes} 个节点；{caps.label.zh} 未列出 InfiniBand 或以太网卡。"),
            ("Add InfiniBand NDR/HDR adapters (seed 2.3).",
             "加装 InfiniBand NDR/HDR 网卡（种子文档 2.3 节）。"),
            "seed 2.3")]
    try:
        point = scaling_curve(w, req, intra, [w.total_gpus], w.gpus_per_node, inter)[0]
    except Exception:
        return []
    if point.efficiency >= 0.8:
        return []
    target = interconnect_for_target(w, req, w.total_gpus, w.gpus_per_node, 0.8,
                                     intra_link=intra)
    link_name = (inter or intra).name
    better = (Msg(f"{target.name} reaches 80% in the model",
                  f"按模型，{target.name} 可达到 80%") if target is not None
              else Msg("no listed link reaches 80%: compute per step is too small for the "
                       "gradient traffic (larger batch, ZeRO/FSDP, or fewer GPUs)",
                       "列出的链路都达不到 80%：每步计算量相对梯度通信太小（可增大批次、使用 "
                       "ZeRO/FSDP 或减少 GPU）"))
    return [_f(
        "analysis.scaling", Severity.BOTTLENECK,
        ("Gradient sync limits multi-GPU scaling", "梯度同步限制多卡扩展效率"),
        (f"Modelled data-parallel efficiency at {w.total_gpus} GPUs over {link_name}: "
         f"{point.efficiency:.0%} (communication {point.comm_time_s * 1e3:.1f} ms per step). The "
         "seed's '>= 80%' (2.3) does not hold for this workload here.",
         f"在 {link_name} 上 {w.total_gpus} 块 GPU 的数据并行效率模型值：{point.efficiency:.0%}"
         f"（每步通信 {point.comm_time_s * 1e3:.1f} ms）。种子文档 2.3 节的“≥ 80%”在此不成立。"),
        (better.en + "; measure with the collective benchmark.",
         better.zh + "；请用集合通信基准实测。"),
        Msg("seed 2.3; scaling model (docs/estimation.md sec. 6); Li et al. VLDB 2020",
            "种子文档 2.3 节；TorchRig 扩展模型（估算参考第 6 节）；Li et al. VLDB 2020"),
        efficiency=point.efficiency, comm_time_s=point.comm_time_s)]


def analyze(workload: Workload, caps: Capabilities, catalog: Catalog | None = None,
            measured_link: Link | None = None) -> Analysis:
    """Plan ``workload`` for the subject's GPU and run every rule; ``measured_link``: a
    collective benchmark's link for the scaling model (planning/requirements/
    measured_network.py)."""
    req = plan(workload, subject_device(caps), measured_link)
    answer = None
    vram = caps.vram_per_gpu_bytes
    if caps.gpu_count and vram is not None \
            and vram_verdict(req.vram_total, req.vram_without_margin, vram) != "fits":
        device = replace(subject_device(caps) or DeviceSpec("GPU", vram), vram_bytes=vram)
        # Another GPU is one the subject's machine takes (its build), as the recommendation;
        # the fit checks behind that are imported only when a plan does not fit.
        from torchrig.planning.buying_for import buying_for

        buying = buying_for(caps, catalog, workload.gpus_per_node) if catalog else None
        answer = solve(workload, device, catalog, buyable=None if buying is None
                       else lambda part: buying.allows(part, workload))
    findings = (_gpu_rules(workload, caps, req, catalog, answer)
                + _ram_rules(workload, caps, req) + _cpu_rules(workload, caps, req)
                + _storage_rules(workload, caps, req) + _pcie_rules(workload, caps)
                + _scaling_rules(workload, caps, req, measured_link))
    return Analysis(caps, req, sort_findings(findings), answer)


@dataclass(frozen=True)
class Recommendation:
    """Attributes: the lowest tier that runs the workload (``tier_gpu``: which of the GPUs the
    tier lists, ``time_s`` the run's time on it, ``tier_layout`` the (nodes, GPUs per node) it
    was planned with: a tier of at most 4 GPUs a node runs an 8-GPU workload as 2 x 4), and
    the catalog GPU of best value."""

    tier: Tier | None
    tier_reason: Msg
    gpu: Part | None
    gpu_vram_needed: float | None
    tier_gpu: Part | None = None
    time_s: float | None = None
    tier_layout: tuple[int, int] | None = None
    gpu_basis: str | None = None
    """How ``gpu`` was chosen (gpu_choice.PICK_BASES): "price" (best value), "fastest" or
    "smallest" (no price to weigh it by)."""


def tier_caps_with_gpu(caps: Capabilities, part: Part) -> Capabilities:
    """The tier's capabilities with one of the GPUs it lists in place of its recommended one."""
    g = part.gpu
    return replace(caps, gpu_part=part, gpu_name=part.name, vram_per_gpu_bytes=g.vram_bytes,
                   tensor_cores=g.tensor_cores,
                   tensor_flops=g.bf16_tensor_flops or g.fp16_tensor_flops,
                   fp32_flops=g.fp32_flops, gpu_memory_bandwidth=g.memory_bandwidth,
                   compute_capability=g.compute_capability, gpu_tdp_w=g.tdp_w)


def recommend(workload: Workload, catalog: Catalog, time_target_s: float | None = None,
              currency: str = "USD", cny_per_usd: Decimal | None = None,
              buyable: Callable[[Part], bool] | None = None) -> Recommendation:
    """The lowest tier with no blocker for ``workload`` - trying every GPU the tier lists, and
    meeting ``time_target_s`` when given - and the catalog GPU of best value that fits it,
    among those ``buyable`` allows when given (the machine in hand: planning/buying_for.py)."""
    from torchrig.builds.capabilities import from_tier

    chosen, reason = None, Msg("No tier runs this workload without a blocker.",
                               "没有任何档位可无阻断地运行此工作负载。")
    if time_target_s is not None:
        reason = Msg("No tier runs this workload without a blocker within the time target.",
                     "没有任何档位能在目标时间内无阻断地运行此工作负载。")
    tier_gpu, tier_time, layout = None, None, None
    network = None
    for tier in catalog.tiers.values():
        req = tier.requirements
        base_caps = from_tier(tier, catalog)
        # Lay the workload's GPUs out as this tier can hold them: up to its GPUs per node,
        # then more nodes where the tier is multi-node (8 GPUs = 2 nodes x 4 on enterprise).
        per_node = min(workload.gpus_per_node, req.gpus_per_node[1])
        nodes = math.ceil(workload.total_gpus / per_node)
        if nodes > req.nodes[1]:
            continue
        laid_out = replace(workload, gpus_per_node=per_node, nodes=nodes)
        base_caps.gpu_count = max(base_caps.gpu_count, per_node)
        base_caps.nodes = max(base_caps.nodes, nodes)
        choice = tier.part_choice("gpu")
        parts: list[Part | None] = [catalog.get(pid)
                                    for pid in (choice.all_ids if choice else ())]
        runs: list[tuple[float, Part | None]] = []
        for part in parts or [None]:  # a tier naming no GPU is checked as it stands
            caps = base_caps if part is None else tier_caps_with_gpu(base_caps, part)
            try:
                result = analyze(laid_out, caps)
            except InputError:  # a layout the planner refuses (e.g. TP size) rules it out
                continue
            if any(f.severity is Severity.BLOCKER for f in result.findings):
                continue
            time = run_time(result.requirements)
            if time_target_s is not None and (time is None or time > time_target_s):
                continue
            runs.append((math.inf if time is None else time, part))
        if runs:
            tier_time, tier_gpu = min(runs, key=lambda r: r[0])
            chosen = tier
            network = link_for(base_caps)[1] if workload.nodes > 1 else None
            layout = (nodes, per_node)
            gpu_name = f" with {tier_gpu.name}" if tier_gpu is not None else ""
            gpu_name_zh = f"（使用 {tier_gpu.name}）" if tier_gpu is not None else ""
            laid = _relaid(workload, nodes, per_node)
            reason = Msg(f"{tier.name.en} (seed {tier.section}){gpu_name}{laid.en} is the "
                         "lowest tier with no blocker for this workload.",
                         f"{tier.name.zh}（种子文档 {tier.section} 节）{gpu_name_zh}{laid.zh}"
                         "是能无阻断运行此工作负载的最低档位。")
            break
    # Across nodes, every GPU is timed over the chosen tier's network (unknown otherwise).
    options = gpu_options(workload, catalog, currency, cny_per_usd,
                          time_target_s=time_target_s, inter_link=network)
    if buyable is not None:
        options = [replace(o, buyable=buyable(o.part)) for o in options]
    pick = pick_gpu(options)
    best = None if pick is None else pick.option
    return Recommendation(chosen, reason, best.part if best else None,
                          best.need if best else None, tier_gpu,
                          None if tier_time is None or math.isinf(tier_time) else tier_time,
                          layout, None if pick is None else pick.basis)


def _relaid(workload: Workload, nodes: int, per_node: int) -> Msg:
    """The layout a tier runs the workload with, said only where it is not the workload's own
    (otherwise "lowest tier Enterprise" would stand beside the subject's "fewer GPUs than the
    workload uses" Blocker with nothing to reconcile them)."""
    if (nodes, per_node) == (workload.nodes, workload.gpus_per_node):
        return Msg("", "")
    return Msg(f", as {counted(nodes, 'node', 'nodes')} x {counted(per_node, 'GPU', 'GPUs')} "
               f"(not {workload.nodes} x {workload.gpus_per_node}: the tier holds at most "
               f"{per_node} per node),",
               f"，按 {nodes} 个节点 × 每节点 {per_node} 块 GPU（而非 {workload.nodes} × "
               f"{workload.gpus_per_node}：该档位每节点最多 {per_node} 块），")


__all__ = ["Analysis", "Recommendation", "analyze", "cheapest_gpu_that_fits", "recommend"]
