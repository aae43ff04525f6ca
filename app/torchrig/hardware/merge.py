"""One GpuInfo per physical GPU, from what NVML and torch each saw.

The two enumerate differently: NVML by PCI bus, CUDA fastest-first by default (unless
CUDA_DEVICE_ORDER=PCI_BUS_ID), and CUDA_VISIBLE_DEVICES may hide GPUs from torch or renumber
them. Index positions therefore mean nothing across the two; the GPU UUID is the only safe key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from torchrig.hardware.gpu_torch import TorchGpus, normalize_uuid
from torchrig.hardware.model import GpuInfo
from torchrig.i18n import Msg

NOT_PROBED = Msg("torch not probed (detection with use_torch=True / --torch fills this)",
                 "未探测 torch（使用 use_torch=True 或 --torch 探测即可补全）")

NVML_ONLY_REASON = Msg("only NVIDIA's NVML reports this, and NVML did not list this GPU",
                       "只有 NVIDIA 的 NVML 报告这一项，而 NVML 没有列出这块 GPU")

# Facts torch never reports: a GPU NVML did not list (ROCm, MPS, NVML missing) lacks them.
_NVML_ONLY = ("vram_free_bytes", "pcie_gen_current", "pcie_gen_max", "pcie_width_current",
              "pcie_width_max", "power_limit_w", "mig_enabled")

# Facts torch can add to an NVML entry (NVML's own value wins when both exist).
_FILLABLE = ("name", "uuid", "vram_total_bytes", "compute_capability", "sm_count")


def merge_gpus(
    nvml_gpus: list[GpuInfo],
    torch_gpus: TorchGpus | None,
    *,
    environ: Mapping[str, str] | None = None,
) -> list[GpuInfo]:
    """Merge by UUID; ``torch_gpus`` is None when torch was not probed.

    Result order: NVML's (PCI bus) order, then GPUs only torch saw (ROCm, MPS, unmatched).
    ``GpuInfo.index`` is the position in that list, so it equals the NVML / nvidia-smi index
    for NVIDIA GPUs; ``torch_device`` carries torch's own numbering.
    """
    environ = os.environ if environ is None else environ
    merged = list(nvml_gpus)
    if torch_gpus is None:
        for gpu in merged:
            gpu.unknown.setdefault("torch_device", NOT_PROBED)
            gpu.unknown.setdefault("torch_usable", NOT_PROBED)
        return _renumber(merged)

    remaining = list(torch_gpus.gpus)
    for gpu in merged:
        match = _take_match(gpu, remaining, nvml_count=len(nvml_gpus))
        if match is not None:
            _absorb(gpu, match)
    for leftover in list(remaining):
        host = _mig_host(leftover, merged)
        if host is not None:
            _absorb(host, leftover)
            instance = leftover.name or leftover.uuid
            host.unknown["torch_device"] = Msg(
                f"torch addresses a MIG instance of this GPU ({instance})",
                f"torch 使用的是这块 GPU 的一个 MIG 实例（{instance}）")
            remaining.remove(leftover)
    merged.extend(remaining)

    hidden = _not_visible_reason(torch_gpus, environ)
    for gpu in merged:
        if "nvml" not in gpu.sources:
            for name in _NVML_ONLY:
                if getattr(gpu, name) is None:
                    gpu.unknown.setdefault(name, NVML_ONLY_REASON)
        if "torch" not in gpu.sources:
            gpu.torch_usable = False
            gpu.unknown["torch_device"] = gpu.unknown["torch_usable"] = hidden
            if gpu.sm_count is None:
                gpu.unknown["sm_count"] = Msg(
                    "NVML reports SMs only for MIG devices, and torch does not see this GPU",
                    "NVML 只为 MIG 设备报告 SM 数量，而 torch 看不到这块 GPU")
    return _renumber(merged)


def _take_match(gpu: GpuInfo, candidates: list[GpuInfo], *, nvml_count: int) -> GpuInfo | None:
    key = normalize_uuid(gpu.uuid) if gpu.uuid else None
    if key is not None:
        for candidate in candidates:
            if candidate.uuid is not None and normalize_uuid(candidate.uuid) == key:
                candidates.remove(candidate)
                return candidate
    # Old torch without device UUIDs: only a lone GPU of the same name is an unambiguous match.
    no_uuid = [c for c in candidates if c.uuid is None and c.vendor == gpu.vendor]
    if nvml_count == 1 and len(no_uuid) == 1 and no_uuid[0].name == gpu.name:
        candidates.remove(no_uuid[0])
        return no_uuid[0]
    return None


def _absorb(gpu: GpuInfo, seen_by_torch: GpuInfo) -> None:
    for name in _FILLABLE:
        if getattr(gpu, name) is None and getattr(seen_by_torch, name) is not None:
            setattr(gpu, name, getattr(seen_by_torch, name))
            gpu.unknown.pop(name, None)
    gpu.torch_device = seen_by_torch.torch_device
    gpu.torch_usable = seen_by_torch.torch_usable
    gpu.unknown.pop("torch_device", None)
    gpu.unknown.pop("torch_usable", None)
    for source in seen_by_torch.sources:
        if source not in gpu.sources:
            gpu.sources.append(source)


def _mig_host(torch_gpu: GpuInfo, nvml_gpus: list[GpuInfo]) -> GpuInfo | None:
    """With MIG on, CUDA lists MIG instances (UUID "MIG-...", name "<GPU> MIG 1g.10gb"),
    which no NVML GPU UUID matches; attach one to its parent GPU instead of listing it as a
    second physical GPU."""
    is_mig = (torch_gpu.uuid or "").startswith("MIG-") or " MIG " in f"{torch_gpu.name} "
    if not is_mig:
        return None
    base_name = (torch_gpu.name or "").split(" MIG ")[0]
    for gpu in nvml_gpus:
        if gpu.mig_enabled and gpu.torch_device is None and gpu.name == base_name:
            return gpu
    return None


def _not_visible_reason(torch_gpus: TorchGpus, environ: Mapping[str, str]) -> Msg:
    if torch_gpus.cuda_unusable_reason:
        return Msg("torch cannot use CUDA: ", "torch 无法使用 CUDA：") + (
            torch_gpus.cuda_unusable_reason)
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return Msg(f"not visible to torch (CUDA_VISIBLE_DEVICES={visible!r})",
                   f"torch 看不到（CUDA_VISIBLE_DEVICES={visible!r}）")
    return Msg("not visible to torch (no CUDA device with this UUID)",
               "torch 看不到（没有这个 UUID 的 CUDA 设备）")


def _renumber(gpus: list[GpuInfo]) -> list[GpuInfo]:
    for position, gpu in enumerate(gpus):
        gpu.index = position
    return gpus
