"""The Targets table: a subject (this machine, a build) against a tier's requirements.

One row per dimension (CPU cores, GPUs per node, VRAM per GPU, tensor throughput, RAM, storage,
interconnect); each cell says meets / short / exceeds with the numbers. "Exceeds" means at least
twice the target (or a faster class of device), so a user sees where money may be over-spent
(seed 4.1) as well as where a part falls short.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from torchrig.builds.capabilities import STORAGE_RANK, Capabilities
from torchrig.catalog.model import Catalog, Tier
from torchrig.i18n import Msg, pick
from torchrig.labels import INTERCONNECTS, STORAGE_KINDS, cores, joined, label
from torchrig.records import record
from torchrig.units import fmt_gb, fmt_gib

EXCEEDS_FACTOR = 2.0


class Status(str, Enum):
    MEETS = "meets"
    SHORT = "short"
    EXCEEDS = "exceeds"
    UNKNOWN = "unknown"
    NO_TARGET = "no target"

    @property
    def label(self) -> Msg:
        return {
            Status.MEETS: Msg("meets", "满足"),
            Status.SHORT: Msg("short", "不足"),
            Status.EXCEEDS: Msg("exceeds", "超出"),
            Status.UNKNOWN: Msg("unknown", "未知"),
            Status.NO_TARGET: Msg("no target", "无目标"),
        }[self]


@record
class Cell:
    text: str
    status: Status
    value: float | str | None = None


@record
class Row:
    key: str
    dimension: Msg
    target: str
    target_value: float | str | None
    cells: tuple[Cell, ...]  # one per subject, in the order given

    def to_dict(self) -> dict[str, Any]:
        return {
            "dimension": self.key,
            "target": self.target_value,
            "subjects": [{"value": c.value, "status": c.status.value, "text": c.text}
                         for c in self.cells],
        }


def _numeric(value: float | None, target: float | None, text: str,
             upper: float | None = None) -> Cell:
    """``upper`` is the top of a target range (GPUs per node 2-4): within it still meets."""
    if target is None:
        return Cell(text, Status.NO_TARGET, value)
    if value is None:
        return Cell(text, Status.UNKNOWN, value)
    if value < target:
        return Cell(text, Status.SHORT, value)
    ceiling = upper if upper is not None else target
    if value >= EXCEEDS_FACTOR * ceiling and value > ceiling:
        return Cell(text, Status.EXCEEDS, value)
    return Cell(text, Status.MEETS, value)


_WORDS = {
    "unknown": ("unknown", "未知"),
    "no_gpu": ("no GPU", "无 GPU"),
    "no_tc": ("no tensor cores", "无张量核心"),
    "shared": ("shared storage + {text}", "共享存储 + {text}"),
    "no_shared": ("{text} (no shared storage)", "{text}（无共享存储）"),
    "no_network": ("no node network", "无节点间网络"),
    "single_gpu": ("single GPU", "单 GPU"),
}


def _word(lang: str, key: str, **values: object) -> str:
    return pick(_WORDS, key, lang).format(**values)


def _gib(value: float | None, lang: str) -> str:
    return _word(lang, "unknown") if value is None else fmt_gib(value, 0)


def _tflops(value: float | None, lang: str) -> str:
    return _word(lang, "unknown") if value is None else f"{value / 1e12:.1f} TFLOP/s"


def _no_gpu(lang: str) -> Cell:
    return Cell(_word(lang, "no_gpu"), Status.SHORT, 0)


def _tensor_cell(caps: Capabilities, target: float, lang: str) -> Cell:
    """A target of 0 means the tier's GPU has no tensor cores (the seed's GTX 1660 Super)."""
    if caps.gpu_count == 0:
        return _no_gpu(lang)
    if caps.tensor_cores is False:
        return _numeric(0.0, target, _word(lang, "no_tc"))
    return _numeric(caps.tensor_flops, target, _tflops(caps.tensor_flops, lang))


def _storage_text(caps: Capabilities, lang: str) -> str:
    if caps.storage_kind is None:
        reason = caps.unknown.get("storage_kind")
        return reason.get(lang) if reason else _word(lang, "unknown")
    size = f", {fmt_gb(caps.storage_bytes)}" if caps.storage_bytes else ""
    return f"{label(STORAGE_KINDS, caps.storage_kind, lang)}{size}"


def _storage_cell(caps: Capabilities, kinds: tuple[str, ...], min_bytes: int | None,
                  lang: str) -> Cell:
    text = _storage_text(caps, lang)
    if min_bytes and caps.storage_bytes is not None and caps.storage_bytes < min_bytes:
        return Cell(f"{text} (< {fmt_gb(min_bytes, 0)})", Status.SHORT, caps.storage_kind)
    if "distributed" in kinds:
        # Seed 2.3: a shared file system (Ceph) or object store (S3) serves every node.
        if caps.shared_storage:
            return Cell(_word(lang, "shared", text=text), Status.MEETS, "distributed")
        return Cell(_word(lang, "no_shared", text=text), Status.SHORT, caps.storage_kind)
    ranked = [STORAGE_RANK[k] for k in kinds if k in STORAGE_RANK]
    if caps.storage_kind is None or caps.storage_kind not in STORAGE_RANK or not ranked:
        return Cell(text, Status.UNKNOWN, caps.storage_kind)
    mine = STORAGE_RANK[caps.storage_kind]
    if mine < min(ranked):
        return Cell(text, Status.SHORT, caps.storage_kind)
    if mine > max(ranked):
        return Cell(text, Status.EXCEEDS, caps.storage_kind)
    return Cell(text, Status.MEETS, caps.storage_kind)


def _interconnect_text(caps: Capabilities, lang: str) -> str:
    parts = []
    if caps.gpu_count > 1 or caps.gpu_interconnect == "nvlink":
        parts.append(label(INTERCONNECTS, caps.gpu_interconnect, lang)
                     if caps.gpu_interconnect else _word(lang, "unknown"))
    if caps.nodes > 1 or caps.node_network:
        parts.append(label(INTERCONNECTS, caps.node_network, lang)
                     if caps.node_network else _word(lang, "no_network"))
    return " + ".join(parts) if parts else _word(lang, "single_gpu")


def _interconnect_cell(caps: Capabilities, wanted: tuple[str, ...], lang: str) -> Cell:
    text = _interconnect_text(caps, lang)
    if not wanted or wanted == ("pcie",):
        return Cell(text, Status.MEETS, text)
    fast = {"nvlink", "infiniband"} & set(wanted)
    have = {caps.gpu_interconnect, caps.node_network} - {None}
    return Cell(text, Status.MEETS if fast & have else Status.SHORT, text)


def compare(tier: Tier, catalog: Catalog, subjects: list[Capabilities],
            lang: str = "en") -> list[Row]:
    """Rows for the Targets page and the PDF: each subject against ``tier``'s requirements;
    cell texts in ``lang``."""
    from torchrig.builds.capabilities import from_tier

    req = tier.requirements
    tier_caps = from_tier(tier, catalog)
    rows: list[Row] = []

    rows.append(Row(
        "cpu_cores", Msg("CPU cores", "CPU 核心数"),
        f">= {req.min_cpu_cores}" if req.min_cpu_cores else "-", req.min_cpu_cores,
        tuple(_numeric(s.cpu_cores, req.min_cpu_cores,
                       _word(lang, "unknown") if s.cpu_cores is None
                       else cores(s.cpu_cores, lang))
              for s in subjects)))
    lo, hi = req.gpus_per_node
    rows.append(Row(
        "gpus_per_node", Msg("GPUs per node", "每节点 GPU 数"),
        f"{lo}" if lo == hi else f"{lo}-{hi}", lo,
        tuple(_numeric(s.gpu_count, lo, f"{s.gpu_count}", upper=hi) for s in subjects)))
    rows.append(Row(
        "vram_per_gpu", Msg("VRAM per GPU", "单卡显存"),
        f">= {fmt_gib(req.min_vram_bytes, 0)}" if req.min_vram_bytes else "-",
        req.min_vram_bytes,
        tuple(_no_gpu(lang) if s.gpu_count == 0 else
              _numeric(s.vram_per_gpu_bytes, req.min_vram_bytes,
                       _gib(s.vram_per_gpu_bytes, lang)) for s in subjects)))
    target_tensor = tier_caps.tensor_flops
    rows.append(Row(
        "tensor_flops", Msg("Tensor throughput (FP16/BF16 dense, per GPU)",
                            "张量算力（FP16/BF16 稠密，单卡）"),
        (f">= {_tflops(target_tensor, lang)} ({tier_caps.gpu_name})" if target_tensor
         else f"{_word(lang, 'no_tc')} ({tier_caps.gpu_name})"
         if tier_caps.tensor_cores is False else "-"),
        target_tensor,
        tuple(_tensor_cell(s, target_tensor or 0.0, lang) for s in subjects)))
    rows.append(Row(
        "ram", Msg("System RAM (per node)", "系统内存（每节点）"),
        f">= {fmt_gib(req.min_ram_bytes, 0)}", req.min_ram_bytes,
        tuple(_numeric(s.ram_bytes, req.min_ram_bytes, _gib(s.ram_bytes, lang))
              for s in subjects)))
    rows.append(Row(
        "storage", Msg("Storage", "存储"),
        joined(STORAGE_KINDS, req.storage_kinds, lang)
        + (f", >= {fmt_gb(req.storage_bytes, 0)}" if req.storage_bytes else ""),
        ",".join(req.storage_kinds),
        tuple(_storage_cell(s, req.storage_kinds, req.storage_bytes, lang)
              for s in subjects)))
    rows.append(Row(
        "interconnect", Msg("Interconnect", "互联"),
        joined(INTERCONNECTS, req.interconnect, lang) or "-",
        ",".join(req.interconnect),
        tuple(_interconnect_cell(s, req.interconnect, lang) for s in subjects)))
    return rows
