"""NVIDIA GPUs through NVML (``pynvml`` from the nvidia-ml-py package), without torch.

NVML answers in milliseconds and needs only the driver, so it is the fast path for NVIDIA
facts. Everything about it can be missing: the Python module, the driver library
(libnvidia-ml), a loaded kernel driver, permission, or a single call on a given GPU generation.
Each case becomes a reason in ``unknown`` instead of an exception:

- module/library/driver/permission problems: ``AcceleratorStack.nvml_available = False`` and
  ``accelerator.unknown["nvml"]`` says which;
- a failing per-GPU call: that field stays None and ``gpu.unknown[field]`` holds NVML's text.

PCIe links train down to a lower generation and width when the GPU is idle to save power, so
the *current* link read here is usually below the *max*; the max says what the slot can do.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from torchrig.hardware.model import AcceleratorStack, GpuInfo, NvLinkInfo

# Reasons for the init failures a user can act on; class names as nvidia-ml-py defines them.
_INIT_REASONS = {
    "NVMLError_LibraryNotFound": (
        "NVIDIA driver library libnvidia-ml not found (no NVIDIA driver installed)"
    ),
    "NVMLError_DriverNotLoaded": "NVIDIA kernel driver is not loaded",
    "NVMLError_NoPermission": "no permission to query the NVIDIA driver (NVML)",
    "NVMLError_LibRmVersionMismatch": (
        "NVML library and kernel driver versions differ (driver updated without a reboot?)"
    ),
    "NVMLError_Unknown": "NVML failed to initialise (unknown error)",
}

# nvmlDeviceGetNvLinkVersion returns an enum (NVML_NVLINK_VERSION_*), not the version itself.
_NVLINK_ENUM_TO_MAJOR = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5, 8: 6}

def probe_nvml(stack: AcceleratorStack) -> list[GpuInfo]:
    """Fill the driver fields of ``stack`` and return one :class:`GpuInfo` per NVML device."""
    try:
        import pynvml
    except ImportError:
        _unavailable(stack, "nvidia-ml-py is not installed (Python module pynvml missing)")
        return []
    except Exception as exc:  # a broken install raises anything at import time
        _unavailable(stack, f"importing pynvml failed: {_short(exc)}")
        return []

    try:
        pynvml.nvmlInit()
    except Exception as exc:
        _unavailable(stack, _init_reason(pynvml, exc))
        return []
    try:
        stack.nvml_available = True
        return _read_all(pynvml, stack)
    finally:
        # A failing shutdown leaves nothing the user could act on.
        with contextlib.suppress(Exception):
            pynvml.nvmlShutdown()


def _unavailable(stack: AcceleratorStack, reason: str) -> None:
    stack.nvml_available = False
    stack.unknown["nvml"] = reason
    for name in ("driver_version", "cuda_driver_version"):
        stack.unknown.setdefault(name, f"NVML unavailable: {reason}")


def _init_reason(pynvml: Any, exc: BaseException) -> str:
    for class_name, reason in _INIT_REASONS.items():
        cls = getattr(pynvml, class_name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return reason
    return f"NVML init failed: {_short(exc)}"


def _short(exc: BaseException) -> str:
    """Error text that never raises itself (NVMLError.__str__ calls back into the library)."""
    try:
        text = str(exc)
    except Exception:
        text = ""
    text = text or type(exc).__name__
    return text[:200]


def _decode(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _read_all(pynvml: Any, stack: AcceleratorStack) -> list[GpuInfo]:
    driver = _query(stack.unknown, "driver_version", pynvml, "nvmlSystemGetDriverVersion")
    stack.driver_version = _decode(driver) if driver is not None else None
    cuda = _query(
        stack.unknown, "cuda_driver_version", pynvml, "nvmlSystemGetCudaDriverVersion_v2"
    )
    if cuda is not None:
        stack.cuda_driver_version = format_cuda_version(int(cuda))

    count = _query(stack.unknown, "gpu_count", pynvml, "nvmlDeviceGetCount")
    if count is None:
        return []
    gpus: list[GpuInfo] = []
    for index in range(int(count)):
        gpu = GpuInfo(index=index, vendor="NVIDIA", sources=["nvml"])
        handle = _query(gpu.unknown, "handle", pynvml, "nvmlDeviceGetHandleByIndex", index)
        if handle is None:
            gpu.unknown["name"] = f"no NVML handle: {gpu.unknown['handle']}"
        else:
            _read_gpu(pynvml, handle, gpu)
        gpus.append(gpu)
    return gpus


def format_cuda_version(value: int) -> str:
    """NVML encodes the CUDA version as 1000 * major + 10 * minor: 12040 -> "12.4"."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def _query(
    unknown: dict[str, str], field: str, pynvml: Any, function: str, *args: Any
) -> Any | None:
    """Call one NVML function; on failure record ``field``'s reason and return None."""
    fn: Callable[..., Any] | None = getattr(pynvml, function, None)
    if fn is None:
        unknown[field] = f"{function} missing from this nvidia-ml-py (too old)"
        return None
    try:
        return fn(*args)
    except Exception as exc:
        unknown[field] = f"{function}: {_short(exc)}"
        return None


def _read_gpu(pynvml: Any, handle: Any, gpu: GpuInfo) -> None:
    unknown = gpu.unknown
    name = _query(unknown, "name", pynvml, "nvmlDeviceGetName", handle)
    gpu.name = _decode(name) if name is not None else None
    uuid = _query(unknown, "uuid", pynvml, "nvmlDeviceGetUUID", handle)
    gpu.uuid = _decode(uuid) if uuid is not None else None

    memory = _query(unknown, "vram_total_bytes", pynvml, "nvmlDeviceGetMemoryInfo", handle)
    if memory is not None:
        gpu.vram_total_bytes = int(memory.total)
        gpu.vram_free_bytes = int(memory.free)
    else:
        unknown["vram_free_bytes"] = unknown["vram_total_bytes"]

    capability = _query(
        unknown, "compute_capability", pynvml, "nvmlDeviceGetCudaComputeCapability", handle
    )
    if capability is not None:
        major, minor = capability
        gpu.compute_capability = f"{int(major)}.{int(minor)}"

    _sm_count(pynvml, handle, gpu)
    _pcie(pynvml, handle, gpu)

    # Enforced = the limit in effect (lowest of user, board and thermal limits), in mW.
    power = _query(unknown, "power_limit_w", pynvml, "nvmlDeviceGetEnforcedPowerLimit", handle)
    if power is None:
        power = _query(
            unknown, "power_limit_w", pynvml, "nvmlDeviceGetPowerManagementLimit", handle
        )
    if power is not None:
        gpu.power_limit_w = int(power) / 1000.0
        unknown.pop("power_limit_w", None)

    _mig(pynvml, handle, gpu)
    _nvlinks(pynvml, handle, gpu)


def _sm_count(pynvml: Any, handle: Any, gpu: GpuInfo) -> None:
    """NVML has no SM count for a whole GPU: nvmlDeviceGetNumGpuCores counts CUDA cores, and
    nvmlDeviceGetAttributes (whose ``multiprocessorCount`` is the SM count) is documented for
    MIG device handles only. Use it when the driver answers; otherwise torch fills it in."""
    attributes = _query(gpu.unknown, "sm_count", pynvml, "nvmlDeviceGetAttributes", handle)
    count = getattr(attributes, "multiprocessorCount", None) if attributes is not None else None
    if isinstance(count, int) and count > 0:
        gpu.sm_count = count
        return
    detail = gpu.unknown.get("sm_count", "no multiprocessorCount in the answer")
    gpu.unknown["sm_count"] = (
        f"NVML reports SMs only for MIG devices ({detail}); torch's multi_processor_count "
        "gives it when torch is probed"
    )


def _pcie(pynvml: Any, handle: Any, gpu: GpuInfo) -> None:
    fields = (
        ("pcie_gen_current", "nvmlDeviceGetCurrPcieLinkGeneration"),
        ("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration"),
        ("pcie_width_current", "nvmlDeviceGetCurrPcieLinkWidth"),
        ("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth"),
    )
    for field, function in fields:
        value = _query(gpu.unknown, field, pynvml, function, handle)
        if value is not None:
            setattr(gpu, field, int(value))


def _mig(pynvml: Any, handle: Any, gpu: GpuInfo) -> None:
    try:
        current, _pending = pynvml.nvmlDeviceGetMigMode(handle)
    except Exception as exc:
        if _is(pynvml, exc, "NVMLError_NotSupported"):
            gpu.mig_enabled = False  # a GPU without MIG support is not in MIG mode
        else:
            gpu.unknown["mig_enabled"] = f"nvmlDeviceGetMigMode: {_short(exc)}"
        return
    enable = getattr(pynvml, "NVML_DEVICE_MIG_ENABLE", 1)
    gpu.mig_enabled = int(current) == int(enable)


def _nvlinks(pynvml: Any, handle: Any, gpu: GpuInfo) -> None:
    """Ask link 0, 1, ... until the driver says there is no such link."""
    max_links = int(getattr(pynvml, "NVML_NVLINK_MAX_LINKS", 18))
    for link in range(max_links):
        try:
            state = pynvml.nvmlDeviceGetNvLinkState(handle, link)
        except Exception as exc:
            if not (
                _is(pynvml, exc, "NVMLError_NotSupported")
                or _is(pynvml, exc, "NVMLError_InvalidArgument")
            ):
                gpu.unknown["nvlinks"] = f"nvmlDeviceGetNvLinkState({link}): {_short(exc)}"
            return
        info = NvLinkInfo(link=link, active=bool(state))
        try:
            info.version = _NVLINK_ENUM_TO_MAJOR.get(
                int(pynvml.nvmlDeviceGetNvLinkVersion(handle, link))
            )
        except Exception:
            info.version = None  # an inactive link has no version to report
        gpu.nvlinks.append(info)


def _is(pynvml: Any, exc: BaseException, class_name: str) -> bool:
    cls = getattr(pynvml, class_name, None)
    return isinstance(cls, type) and isinstance(exc, cls)
