"""Capabilities: one normalised view of "a machine" for comparison and analysis.

The Targets table and the bottleneck analysis both ask the same questions (how many cores, how
much VRAM per GPU, what tensor throughput, what storage...) of three different things: this
machine (a SystemProfile), a tier (seed section 2), or a build (catalog parts). Each is turned
into :class:`Capabilities` once, here, so the rules downstream are written only once.
Values are per node; ``None`` means unknown, with the reason in ``unknown``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from torchrig.catalog.specs import SXM_FORMS
from torchrig.i18n import Msg
from torchrig.labels import CATEGORIES, STORAGE_KINDS, joined
from torchrig.records import field, mutable_record

if TYPE_CHECKING:
    from torchrig.builds.build import Build
    from torchrig.catalog.model import Catalog, Part, Tier
    from torchrig.hardware.model import SystemProfile

SubjectKind = Literal["machine", "tier", "build"]

STORAGE_RANK = {"hdd": 0, "network": 1, "sata-ssd": 2, "nvme": 3}
"""Slowest to fastest local read path; "network" storage depends on the network (seed 2.3)."""


THIS_MACHINE = Msg("This machine", "本机")


@mutable_record
class Capabilities:
    label: Msg  # what findings and tables call the subject: "This machine", a tier, a build
    kind: SubjectKind
    nodes: int = 1
    cpu_name: str | None = None
    cpu_cores: int | None = None
    cpu_threads: int | None = None
    gpu_name: str | None = None
    gpu_part: Part | None = None  # the catalog entry behind the GPU figures, when known
    gpu_count: int = 0
    vram_per_gpu_bytes: int | None = None
    tensor_cores: bool | None = None
    tensor_flops: float | None = None  # dense FP16/BF16 tensor, FP32 accumulate, per GPU
    fp32_flops: float | None = None
    gpu_memory_bandwidth: float | None = None
    compute_capability: str | None = None
    gpu_tdp_w: float | None = None
    gpu_links: list[tuple[int | None, int | None]] = field(default_factory=list)  # (gen, width)
    gpu_interconnect: str | None = None  # "nvlink" or "pcie"
    node_network: str | None = None  # "infiniband", "ethernet" (multi-node)
    node_network_bps: float | None = None  # bits/s per node
    ram_bytes: int | None = None
    memory_type: str | None = None
    swap_bytes: int | None = None
    storage_kind: str | None = None  # fastest local drive: nvme | sata-ssd | hdd | network
    storage_bytes: int | None = None
    storage_free_bytes: int | None = None  # free space on the local drives (this machine only)
    storage_read_bps: float | None = None  # sequential read, bytes/s
    storage_read_basis: Msg | None = None  # where storage_read_bps comes from, for the reader
    shared_storage: bool = False  # a network/distributed file system serves the nodes (seed 2.3)
    psu_w: float | None = None
    cpu_tdp_w: float | None = None
    unknown: dict[str, Msg] = field(default_factory=dict)
    # The parts behind a build's or a tier's figures (a tier's starter build): what a GPU
    # recommendation for the subject must fit (planning/buying_for.py). None for this machine.
    build: Build | None = None

    @property
    def total_vram_bytes(self) -> int | None:
        if self.vram_per_gpu_bytes is None:
            return None
        return self.vram_per_gpu_bytes * self.gpu_count


def _gpu_figures(caps: Capabilities, part: Part) -> None:
    spec = part.gpu
    caps.gpu_part = part
    caps.gpu_name = caps.gpu_name or part.name
    if caps.vram_per_gpu_bytes is None:
        caps.vram_per_gpu_bytes = spec.vram_bytes
    caps.tensor_cores = spec.tensor_cores
    caps.tensor_flops = spec.bf16_tensor_flops or spec.fp16_tensor_flops
    caps.fp32_flops = spec.fp32_flops
    caps.gpu_memory_bandwidth = spec.memory_bandwidth
    caps.compute_capability = caps.compute_capability or spec.compute_capability
    caps.gpu_tdp_w = spec.tdp_w


def from_profile(profile: SystemProfile, catalog: Catalog | None = None,
                 label: Msg = THIS_MACHINE) -> Capabilities:
    """Detected facts first; catalog figures (tensor throughput, bandwidth) for a matched GPU."""
    caps = Capabilities(label=label, kind="machine")
    cpu = profile.cpu
    caps.cpu_name = cpu.model_name
    caps.cpu_cores = cpu.physical_cores
    caps.cpu_threads = cpu.logical_cpus
    if cpu.physical_cores is None:
        caps.unknown["cpu_cores"] = cpu.unknown.get("physical_cores") or Msg(
            "not detected", "未检测到")
    caps.ram_bytes = profile.memory.total_bytes
    caps.memory_type = profile.memory.dimm_type
    caps.swap_bytes = profile.memory.swap_total_bytes
    gpus = [g for g in profile.gpus if g.vendor != "Apple"]
    caps.gpu_count = len(gpus)
    if gpus:
        first = gpus[0]
        caps.gpu_name = first.name
        caps.vram_per_gpu_bytes = min(
            (g.vram_total_bytes for g in gpus if g.vram_total_bytes is not None), default=None)
        caps.compute_capability = first.compute_capability
        caps.gpu_links = [(g.pcie_gen_max, g.pcie_width_max) for g in gpus]
        caps.gpu_interconnect = (
            "nvlink" if any(any(link.active for link in g.nvlinks) for g in gpus) else "pcie")
        # Only a detected machine is matched by name: a build or a tier names its parts' ids,
        # so an export leaves the matcher (and its patterns) unimported (issue 27).
        from torchrig.catalog.matching import match_gpu

        part = match_gpu(catalog, first.name or "", first.vram_total_bytes) if catalog else None
        if part is not None:
            _gpu_figures(caps, part)
        else:
            caps.unknown["tensor_flops"] = Msg(
                f"{first.name or 'this GPU'} is not in the catalog: no sourced peak figures",
                f"{first.name or '这块 GPU'} 不在目录中：没有有出处的峰值数据")
    else:
        caps.unknown["gpu"] = (profile.accelerator.unknown.get("nvml")
                               or Msg("no GPU detected", "未检测到 GPU"))
    caps.shared_storage = any(d.kind == "network" for d in profile.disks)
    local = [d for d in profile.disks if d.kind in STORAGE_RANK]
    if local:
        best = max(local, key=lambda d: (STORAGE_RANK[d.kind], d.total_bytes or 0))
        caps.storage_kind = best.kind
        caps.storage_bytes = sum(d.total_bytes or 0 for d in local) or None
        if all(d.free_bytes is not None for d in local):
            caps.storage_free_bytes = sum(d.free_bytes or 0 for d in local)
    else:
        caps.unknown["storage_kind"] = _undeterminable_kind(profile)
    caps.unknown.setdefault(
        "storage_read_bps", Msg("not measured: run the storage benchmark on the dataset's disk",
                                "未测量：请在数据集所在的磁盘上运行存储基准测试"))
    return caps


def _undeterminable_kind(profile: SystemProfile) -> Msg:
    kinds = sorted({d.kind for d in profile.disks})
    if not kinds:
        return Msg("drive kind not determinable here (no disks)",
                   "无法在这里确定硬盘类型（没有磁盘）")
    return Msg(f"drive kind not determinable here ({joined(STORAGE_KINDS, kinds, 'en', ', ')})",
               f"无法在这里确定硬盘类型（{joined(STORAGE_KINDS, kinds, 'zh', '、')}）")


def from_tier(tier: Tier, catalog: Catalog) -> Capabilities:
    """A tier as its recommended parts and stated minimums (seed section 2)."""
    from torchrig.builds.build import starter_build

    req = tier.requirements
    caps = Capabilities(label=tier.name, kind="tier", nodes=req.nodes[0],
                        build=starter_build(tier))
    choice = tier.part_choice("cpu")
    if choice is not None:
        cpu = catalog.get(choice.recommended)
        caps.cpu_name, caps.cpu_cores, caps.cpu_threads = (
            cpu.name, cpu.cpu.cores, cpu.cpu.threads)
        caps.cpu_tdp_w = cpu.cpu.tdp_w
    else:
        caps.cpu_cores = req.min_cpu_cores
    gpu_choice = tier.part_choice("gpu")
    caps.gpu_count = req.gpus_per_node[0]
    if gpu_choice is not None:
        _gpu_figures(caps, catalog.get(gpu_choice.recommended))
    caps.vram_per_gpu_bytes = caps.vram_per_gpu_bytes or req.min_vram_bytes
    caps.ram_bytes = req.min_ram_bytes
    caps.memory_type = req.memory_type
    kinds = [k for k in req.storage_kinds if k in STORAGE_RANK]
    if kinds:
        caps.storage_kind = max(kinds, key=STORAGE_RANK.__getitem__)
    caps.storage_bytes = req.storage_bytes
    caps.shared_storage = "distributed" in req.storage_kinds
    if "nvlink" in req.interconnect:
        caps.gpu_interconnect = "nvlink"
    elif caps.gpu_count > 1 or "pcie" in req.interconnect:
        caps.gpu_interconnect = "pcie"
    if "infiniband" in req.interconnect:
        caps.node_network = "infiniband"
        # The seed names no rate; use the adapter TorchRig's starter build picks for the tier.
        for line in tier.starter_lines:
            part = catalog.parts.get(line.part_id) if line.part_id else None
            if part is not None and part.category == "network" \
                    and part.network.kind == "infiniband":
                caps.node_network_bps = part.network.rate_bits_per_s
    return caps


def from_build(build: Build, catalog: Catalog) -> Capabilities:
    """A build's per-node figures from its catalog parts ("cluster" lines are shared by all
    nodes and only count for storage/network). Custom lines carry no specs: they are listed
    as unknown so the user sees why a figure is missing."""
    # The build's name is the user's own text: it reads the same in both languages.
    caps = Capabilities(label=Msg.verbatim(build.name) if build.name else Msg("Build", "配置单"),
                        kind="build", nodes=build.nodes, build=build)
    ram = 0
    drives: list[tuple[int, float | None, int]] = []  # (rank, read rate, bytes)
    custom = set()
    for item in build.line_items:
        if item.part_id is None:
            custom.add(item.category)
            if item.category == "storage-system":
                caps.shared_storage = True
            continue
        part = catalog.get(item.part_id)
        qty = item.quantity
        if part.category == "cpu":
            spec = part.cpu
            caps.cpu_name = part.name if qty == 1 else f"{qty}x {part.name}"
            caps.cpu_cores = (spec.cores or 0) * qty if spec.cores else None
            caps.cpu_threads = (spec.threads or 0) * qty if spec.threads else None
            caps.cpu_tdp_w = spec.tdp_w * qty if spec.tdp_w else None
            caps.memory_type = caps.memory_type or (spec.memory_types[0]
                                                    if spec.memory_types else None)
        elif part.category == "gpu" and item.scope == "node":
            caps.gpu_count += qty
            _gpu_figures(caps, part)
            caps.gpu_links.extend([(part.gpu.pcie_gen, part.gpu.pcie_lanes)] * qty)
            caps.gpu_interconnect = caps.gpu_interconnect or (
                "nvlink" if part.gpu.form_factor in SXM_FORMS else "pcie")
        elif part.category == "memory":
            total = part.memory.total_bytes
            if total:
                ram += total * qty
            caps.memory_type = part.memory.memory_type or caps.memory_type
        elif part.category == "storage":
            drive = part.storage
            kind = drive.kind or ""
            if kind in STORAGE_RANK:
                drives.append((STORAGE_RANK[kind], drive.seq_read,
                               (drive.capacity_bytes or 0) * qty))
        elif part.category == "psu":
            caps.psu_w = (part.psu.wattage_w or 0) * qty or None
        elif part.category == "network":
            adapter = part.network
            if adapter.kind == "nvlink-bridge":
                caps.gpu_interconnect = "nvlink"
            elif adapter.kind in ("infiniband", "ethernet"):
                caps.node_network = adapter.kind
                caps.node_network_bps = adapter.rate_bits_per_s
    caps.ram_bytes = ram or None
    if drives:
        rank, rate, _ = max(drives, key=lambda d: (d[0], d[1] or 0))
        caps.storage_kind = next(k for k, v in STORAGE_RANK.items() if v == rank)
        caps.storage_bytes = sum(d[2] for d in drives) or None
        caps.storage_read_bps = rate
        caps.storage_read_basis = Msg("catalog sequential read of the fastest drive",
                                      "目录中最快硬盘的顺序读速度")
    for key, value in (("cpu_cores", caps.cpu_cores), ("ram_bytes", caps.ram_bytes),
                       ("vram_per_gpu_bytes", caps.vram_per_gpu_bytes)):
        if value is None:
            caps.unknown[key] = (
                Msg("given by a custom line (no catalog specs): "
                    + joined(CATEGORIES, sorted(custom), "en", ", "),
                    "由自定义条目提供（无目录规格）："
                    + joined(CATEGORIES, sorted(custom), "zh", "、"))
                if custom else Msg("no such part", "没有这类部件"))
    return caps
