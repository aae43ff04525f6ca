"""Requirement breakdowns as chart data, shared by the Wizard chart and the PDF.

Charts are drawn twice (QPainter on screen, reportlab in the PDF) from the same numbers, so the
two never disagree: this module decides which items stack into which bar and in what order.
"""

from __future__ import annotations

from dataclasses import dataclass

from torchrig.i18n import Msg
from torchrig.planning.capabilities import Capabilities
from torchrig.planning.requirements import Requirements

LABELS: dict[str, Msg] = {
    "weights": Msg("weights", "权重"),
    "gradients": Msg("gradients", "梯度"),
    "optimizer_states": Msg("optimizer states", "优化器状态"),
    "activations": Msg("activations", "激活"),
    "kv_cache": Msg("KV cache", "KV 缓存"),
    "comm_buffers": Msg("communication buffers", "通信缓冲"),
    "overhead": Msg("CUDA context + framework", "CUDA 上下文与框架"),
    "fragmentation": Msg("fragmentation margin", "碎片余量"),
    "dataset_cache": Msg("dataset cache", "数据集缓存"),
    "dataloader": Msg("DataLoader workers", "DataLoader 进程"),
    "pinned_buffers": Msg("pinned buffers", "锁页缓冲"),
    "model_load": Msg("model load copy", "模型加载副本"),
    "cpu_offload": Msg("CPU offload", "CPU 卸载"),
    "os_and_runtime": Msg("OS and runtime", "系统与运行时"),
    "dataset_bytes": Msg("dataset", "数据集"),
    "model_bytes": Msg("model", "模型"),
    "checkpoint_bytes": Msg("checkpoints", "检查点"),
    "main_processes": Msg("training processes", "训练进程"),
    "decode_cores": Msg("data decoding", "数据解码"),
}

GROUPS: dict[str, tuple[Msg, str, tuple[str, ...]]] = {
    "vram": (Msg("VRAM per GPU", "单卡显存"), "B",
             ("weights", "gradients", "optimizer_states", "activations", "kv_cache",
              "comm_buffers", "overhead", "fragmentation")),
    "ram": (Msg("System RAM", "系统内存"), "B",
            ("dataset_cache", "dataloader", "pinned_buffers", "model_load", "cpu_offload",
             "os_and_runtime")),
    "storage": (Msg("Storage", "存储"), "B", ("dataset_bytes", "model_bytes", "checkpoint_bytes")),
    "cpu": (Msg("CPU cores", "CPU 核心"), "cores", ("main_processes", "decode_cores")),
}


@dataclass(frozen=True)
class Segment:
    key: str
    label: Msg
    amount: float


@dataclass(frozen=True)
class Bar:
    """One stacked bar. ``capacity`` is what the subject offers (a marker), when known."""

    group: str
    title: Msg
    unit: str  # "B" or "cores"
    segments: tuple[Segment, ...]
    capacity: float | None
    capacity_label: str

    @property
    def total(self) -> float:
        return sum(s.amount for s in self.segments)


def requirement_bars(req: Requirements, caps: Capabilities | None = None) -> list[Bar]:
    """VRAM, RAM, storage and CPU bars from a plan; zero items are left out."""
    sections = {"vram": req.vram_per_gpu, "ram": req.system_ram, "storage": req.storage,
                "cpu": req.cpu}
    capacity = {
        "vram": caps.vram_per_gpu_bytes if caps else None,
        "ram": caps.ram_bytes if caps else None,
        "storage": caps.storage_bytes if caps else None,
        "cpu": caps.cpu_cores if caps else None,
    }
    bars = []
    for group, (title, unit, keys) in GROUPS.items():
        section = sections[group]
        segments = tuple(
            Segment(k, LABELS[k], float(section[k].value))
            for k in keys if k in section and section[k].value)
        if not segments:
            continue
        bars.append(Bar(group, title, unit, segments, capacity[group],
                        caps.label if caps else ""))
    return bars
