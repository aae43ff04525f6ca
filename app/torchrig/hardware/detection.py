"""detect(): run every probe, each in its own guard, and assemble a SystemProfile.

A probe that crashes (a kernel file in an unexpected format, a broken driver binding) costs
only its own component: the reason goes to ``profile.probe_errors`` and every other probe still
runs. Callers can therefore call :func:`detect` without a try/except.
"""

from __future__ import annotations

import dataclasses
import datetime
import socket
import time
from collections.abc import Callable
from typing import Any

from torchrig.hardware import cpu, gpu_nvml, gpu_torch, memory, merge, software, storage
from torchrig.hardware.model import (
    AcceleratorStack,
    CpuInfo,
    GpuInfo,
    MemoryInfo,
    SoftwareInfo,
    SystemProfile,
)
from torchrig.hardware.sections import PROBES
from torchrig.hardware.sysfs import LINUX_ROOTS, FsRoots
from torchrig.i18n import Msg

# Fields that are not detection results and so carry no "unknown" reason when empty.
_NOT_DETECTED = frozenset({"catalog_id", "unknown", "index", "sources", "nvlinks"})
NO_REASON = Msg("not determined", "未能确定")


def detect(
    *,
    use_torch: bool = False,
    nvml: bool = True,
    roots: FsRoots | None = None,
    torch_module: Any | None = None,
) -> SystemProfile:
    """Describe this machine. Never raises.

    use_torch: also import torch (seconds) to learn what this torch build can use.
    nvml: query NVIDIA GPUs through NVML (milliseconds; no effect without an NVIDIA driver).
    roots / torch_module: test hooks (a fake /proc + /sys tree, a fake torch).
    """
    started = time.perf_counter()
    roots = roots or LINUX_ROOTS
    profile = SystemProfile(created=_now_utc())
    errors = profile.probe_errors

    profile.hostname = _guard(errors, "hostname", socket.gethostname) or None
    torch_seen: gpu_torch.TorchGpus | None = None
    # torch first when requested, so the CPU probe can read torch's thread count.
    if use_torch:
        torch_seen = _guard(
            errors, "torch", lambda: gpu_torch.probe_torch(profile.accelerator, torch_module)
        )
    else:
        for name in gpu_torch.TORCH_FIELDS:
            profile.accelerator.unknown[name] = merge.NOT_PROBED

    profile.cpu = _guard(errors, "cpu", lambda: cpu.probe_cpu(roots)) or CpuInfo()
    profile.memory = _guard(errors, "memory", lambda: memory.probe_memory(roots)) or MemoryInfo()
    profile.disks = _guard(errors, "storage", lambda: storage.probe_storage(roots)) or []
    profile.software = (
        _guard(errors, "software", lambda: software.probe_software(roots)) or SoftwareInfo()
    )

    nvml_gpus: list[GpuInfo] = []
    if nvml:
        nvml_gpus = _guard(errors, "nvml", lambda: gpu_nvml.probe_nvml(profile.accelerator)) or []
    else:
        profile.accelerator.nvml_available = False
        profile.accelerator.unknown["nvml"] = Msg("NVML not queried (nvml=False)",
                                                  "未查询 NVML（nvml=False）")
    if "nvml" in errors:
        profile.accelerator.nvml_available = False
        profile.accelerator.unknown["nvml"] = probe_failed("NVML", errors["nvml"])
    if use_torch and torch_seen is None:
        torch_seen = gpu_torch.TorchGpus(
            cuda_unusable_reason=Msg.verbatim(errors["torch"]) if "torch" in errors else None)
    profile.gpus = (
        _guard(errors, "gpu_merge", lambda: merge.merge_gpus(nvml_gpus, torch_seen)) or nvml_gpus
    )
    if not profile.gpus:
        reason = no_gpu_reason(profile.accelerator, use_torch)
        profile.accelerator.unknown.setdefault("gpus", reason)

    _fill_missing_reasons(profile)
    profile.detection_seconds = round(time.perf_counter() - started, 4)
    return profile


def no_gpu_reason(stack: AcceleratorStack, use_torch: bool) -> Msg:
    """Why the GPU list is empty, from what each probe said."""
    parts: list[Msg] = []
    if "nvml" in stack.unknown:
        parts.append(stack.unknown["nvml"])
    elif stack.nvml_available:
        parts.append(Msg("NVML lists no NVIDIA GPU", "NVML 没有列出 NVIDIA GPU"))
    if use_torch:
        parts.append(stack.unknown.get("cuda_available")
                     or Msg("torch lists no GPU", "torch 没有列出 GPU"))
    else:
        parts.append(Msg("torch not probed", "未探测 torch"))
    return Msg("; ".join(p.en for p in parts), "；".join(p.zh for p in parts))


def probe_failed(probe: str, error: str) -> Msg:
    """A crashed probe's reason; ``error`` is the exception as Python wrote it."""
    name = PROBES.get(probe, Msg.verbatim(probe))
    return Msg(f"{name.en} probe failed: {error}", f"{name.zh}探测失败：{error}")


def _guard(errors: dict[str, str], name: str, probe: Callable[[], Any]) -> Any:
    try:
        return probe()
    except Exception as exc:
        errors[name] = f"{type(exc).__name__}: {exc}"[:300]
        return None


def _now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _fill_missing_reasons(profile: SystemProfile) -> None:
    """Keep the model's promise that every None field has a reason: a probe that crashed, or
    one that forgot a field, leaves a generic reason rather than a silent None."""
    components: list[tuple[str, Any]] = [
        ("cpu", profile.cpu),
        ("memory", profile.memory),
        ("software", profile.software),
        ("nvml", profile.accelerator),
    ]
    components += [("storage", disk) for disk in profile.disks]
    components += [("gpu_merge", gpu) for gpu in profile.gpus]
    if "torch" in profile.probe_errors:
        for name in gpu_torch.TORCH_FIELDS:
            if getattr(profile.accelerator, name) is None:
                profile.accelerator.unknown.setdefault(
                    name, probe_failed("torch", profile.probe_errors["torch"]))
    for probe, component in components:
        default = (probe_failed(probe, profile.probe_errors[probe])
                   if probe in profile.probe_errors else NO_REASON)
        for field in dataclasses.fields(component):
            if field.name in _NOT_DETECTED:
                continue
            if getattr(component, field.name) is None:
                component.unknown.setdefault(field.name, default)
