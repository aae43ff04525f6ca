"""GPUs as PyTorch sees them: only run on request, because importing torch takes seconds.

torch is the source of facts NVML cannot give: whether *this* torch build can use the GPU
(CUDA/ROCm build, driver compatibility, CUDA_VISIBLE_DEVICES), the SM count of a whole GPU,
AMD GPUs under ROCm, and Apple's MPS backend. A CUDA stack that fails to initialise is a finding
("torch cannot use this GPU: ..."), never a crash.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from torchrig.hardware.model import AcceleratorStack, GpuInfo
from torchrig.i18n import Msg

# AcceleratorStack fields only the torch probe fills.
TORCH_FIELDS = (
    "torch_cuda_version",
    "torch_hip_version",
    "cudnn_version",
    "cuda_available",
    "mps_available",
)


@dataclass
class TorchGpus:
    """What the torch probe saw, before merging with NVML."""

    gpus: list[GpuInfo] = field(default_factory=list)
    cuda_unusable_reason: Msg | None = None  # why torch cannot use CUDA/ROCm, when it cannot


def probe_torch(stack: AcceleratorStack, torch_module: Any | None = None) -> TorchGpus:
    """Fill torch's fields of ``stack`` and list the devices torch can address.

    ``torch_module`` replaces ``import torch`` (tests pass a small fake object).
    """
    if torch_module is None:
        try:
            import torch as torch_module
        except Exception as exc:  # ImportError, or a broken install (missing .so, ABI)
            reason = _failed("torch could not be imported", "无法导入 torch", exc)
            for name in TORCH_FIELDS:
                stack.unknown[name] = reason
            return TorchGpus(cuda_unusable_reason=reason)
    torch = torch_module
    stack.torch_loaded = True
    result = TorchGpus()

    version = getattr(torch, "version", None)
    stack.torch_cuda_version = _opt_str(getattr(version, "cuda", None))
    stack.torch_hip_version = _opt_str(getattr(version, "hip", None))
    if stack.torch_cuda_version is None:
        stack.unknown["torch_cuda_version"] = Msg("this torch build has no CUDA support",
                                                  "此 torch 构建不支持 CUDA")
    if stack.torch_hip_version is None:
        stack.unknown["torch_hip_version"] = Msg("this torch build has no ROCm support",
                                                 "此 torch 构建不支持 ROCm")
    _cudnn(torch, stack)
    _cuda(torch, stack, result)
    _mps(torch, stack, result)
    return result


def _short(exc: BaseException) -> str:
    try:
        text = str(exc).strip()
    except Exception:  # a broken extension's error may fail even to print itself
        text = ""
    text = text.splitlines()[0] if text else type(exc).__name__
    return text[:200]


def _failed(en: str, zh: str, exc: BaseException | str) -> Msg:
    """"<what> failed: <error>"; the error text comes from torch or the driver, in English,
    and is kept in both languages because it is what a user searches for."""
    detail = exc if isinstance(exc, str) else _short(exc)
    return Msg(f"{en}: {detail}", f"{zh}：{detail}")


def _opt_str(value: Any) -> str | None:
    return str(value) if value else None


def format_cudnn_version(value: int) -> str:
    """cuDNN 8 encodes 8.9.7 as 8907; cuDNN 9 as 90100 (major * 10000 + minor * 100 + patch)."""
    if value >= 10000:
        return f"{value // 10000}.{(value % 10000) // 100}.{value % 100}"
    return f"{value // 1000}.{(value % 1000) // 100}.{value % 100}"


def _cudnn(torch: Any, stack: AcceleratorStack) -> None:
    try:
        version = torch.backends.cudnn.version()
    except Exception as exc:
        stack.unknown["cudnn_version"] = _failed("torch.backends.cudnn.version() failed",
                                                 "torch.backends.cudnn.version() 调用失败", exc)
        return
    if version:
        stack.cudnn_version = format_cudnn_version(int(version))
    else:
        stack.unknown["cudnn_version"] = Msg("this torch build has no cuDNN",
                                             "此 torch 构建不含 cuDNN")


def _cuda(torch: Any, stack: AcceleratorStack, result: TorchGpus) -> None:
    # torch reports a failing CUDA init as a UserWarning ("CUDA initialization: ...") and
    # then returns False; catch it so the user reads the driver's reason, not just "False".
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            available = bool(torch.cuda.is_available())
            error = None
        except Exception as exc:
            available, error = False, _short(exc)
    stack.cuda_available = available
    if not available:
        if error:
            reason = _failed("torch.cuda.is_available() failed",
                             "torch.cuda.is_available() 调用失败", error)
        elif caught:
            reason = _failed("CUDA failed to initialise", "CUDA 初始化失败",
                             str(caught[0].message)[:200])
        elif stack.torch_cuda_version is None and stack.torch_hip_version is None:
            reason = Msg("this torch build is CPU-only (no CUDA or ROCm)",
                         "此 torch 构建只支持 CPU（没有 CUDA 或 ROCm）")
        else:
            reason = Msg("torch.cuda.is_available() is False (no usable GPU or driver)",
                         "torch.cuda.is_available() 为 False（没有可用的 GPU 或驱动）")
        result.cuda_unusable_reason = reason
        stack.unknown["cuda_available"] = reason
        return

    try:
        count = int(torch.cuda.device_count())
    except Exception as exc:
        result.cuda_unusable_reason = _failed("torch.cuda.device_count() failed",
                                              "torch.cuda.device_count() 调用失败", exc)
        stack.unknown["gpu_count"] = result.cuda_unusable_reason
        return
    amd = stack.torch_hip_version is not None
    for index in range(count):
        result.gpus.append(_cuda_device(torch, index, amd))


def _cuda_device(torch: Any, index: int, amd: bool) -> GpuInfo:
    gpu = GpuInfo(
        index=index,
        vendor="AMD" if amd else "NVIDIA",
        sources=["torch"],
        torch_device=f"cuda:{index}",
        torch_usable=True,
    )
    try:
        props = torch.cuda.get_device_properties(index)
    except Exception as exc:
        reason = _failed(f"torch.cuda.get_device_properties({index}) failed",
                         f"torch.cuda.get_device_properties({index}) 调用失败", exc)
        gpu.torch_usable = False
        gpu.unknown.update({name: reason for name in (
            "name", "vram_total_bytes", "vram_free_bytes", "uuid", "compute_capability",
            "sm_count")})
        return gpu
    gpu.name = _opt_str(getattr(props, "name", None))
    total = getattr(props, "total_memory", None)
    gpu.vram_total_bytes = int(total) if total else None
    count = getattr(props, "multi_processor_count", None)
    gpu.sm_count = int(count) if count else None
    if amd:
        # ROCm reports a gfx target (gfx90a, gfx942) where NVIDIA has a compute capability.
        arch = getattr(props, "gcnArchName", None)
        gpu.compute_capability = str(arch).split(":")[0] if arch else None
    else:
        major, minor = getattr(props, "major", None), getattr(props, "minor", None)
        if major is not None and minor is not None:
            gpu.compute_capability = f"{int(major)}.{int(minor)}"
    raw_uuid = getattr(props, "uuid", None)
    gpu.uuid = normalize_uuid(raw_uuid) if raw_uuid is not None else None
    for name, missing in (
        ("name", Msg("torch gave no device name", "torch 没有给出设备名称")),
        ("vram_total_bytes", Msg("torch gave no total_memory", "torch 没有给出 total_memory")),
        ("sm_count", Msg("torch gave no multi_processor_count",
                         "torch 没有给出 multi_processor_count")),
        ("compute_capability", Msg("torch gave no capability", "torch 没有给出计算能力")),
        ("uuid", Msg("this torch version does not expose device UUIDs",
                     "此 torch 版本不提供设备 UUID")),
    ):
        if getattr(gpu, name) is None:
            gpu.unknown[name] = missing
    # torch.cuda.mem_get_info would create a CUDA context (hundreds of MB) just to look.
    gpu.unknown["vram_free_bytes"] = Msg(
        "not read through torch (it would initialise the device)",
        "不通过 torch 读取（那样会初始化设备）")
    return gpu


def normalize_uuid(value: Any) -> str | None:
    """One spelling for GPU UUIDs from NVML ("GPU-8f6d...") and torch (a ``_CUDAUUID`` object
    whose ``bytes`` are the raw 16 bytes, or a plain string without the prefix).

    Returns ``"GPU-<lower-case canonical uuid>"``; MIG instances keep their ``"MIG-"`` prefix.
    Non-UUID identifiers (some ROCm builds) come back lower-cased, unchanged otherwise.
    """
    import uuid as uuid_module

    raw = getattr(value, "bytes", value)
    if isinstance(raw, (bytes, bytearray)):
        if len(raw) == 16:
            return f"GPU-{uuid_module.UUID(bytes=bytes(raw))}"
        raw = bytes(raw).decode("utf-8", "replace")
    text = str(raw).strip().strip("\x00")
    if not text:
        return None
    prefix = "GPU-"
    lowered = text.lower()
    if lowered.startswith("mig-"):
        prefix, text = "MIG-", text[4:]
    elif lowered.startswith("gpu-"):
        text = text[4:]
    try:
        return f"{prefix}{uuid_module.UUID(text)}"
    except ValueError:
        return f"{prefix}{text.lower()}" if lowered.startswith(("gpu-", "mig-")) else text.lower()


def _mps(torch: Any, stack: AcceleratorStack, result: TorchGpus) -> None:
    backend = getattr(getattr(torch, "backends", None), "mps", None)
    if backend is None:
        stack.unknown["mps_available"] = Msg("this torch build has no MPS backend",
                                             "此 torch 构建没有 MPS 后端")
        return
    try:
        stack.mps_available = bool(backend.is_available())
    except Exception as exc:
        stack.unknown["mps_available"] = _failed(
            "torch.backends.mps.is_available() failed",
            "torch.backends.mps.is_available() 调用失败", exc)
        return
    if not stack.mps_available:
        return
    gpu = GpuInfo(
        index=0,
        name="Apple GPU (Metal Performance Shaders)",
        vendor="Apple",
        sources=["torch"],
        torch_device="mps",
        torch_usable=True,
    )
    shared = Msg("Apple GPUs share unified memory with the CPU; no dedicated VRAM size exists",
                 "Apple GPU 与 CPU 共享统一内存，没有独立的显存容量")
    for name in ("vram_total_bytes", "vram_free_bytes"):
        gpu.unknown[name] = shared
    for name in ("uuid", "compute_capability", "sm_count"):
        gpu.unknown[name] = Msg("not reported by torch for MPS devices",
                                "torch 不报告 MPS 设备的这一项")
    result.gpus.append(gpu)
