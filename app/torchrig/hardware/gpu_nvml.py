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
from torchrig.i18n import Msg

# Reasons for the init failures a user can act on; class names as nvidia-ml-py defines them.
_INIT_REASONS = {
    "NVMLError_LibraryNotFound": Msg(
        "NVIDIA driver library libnvidia-ml not found (no NVIDIA driver installed)",
        "找不到 NVIDIA 驱动库 libnvidia-ml（未安装 NVIDIA 驱动）"),
    "NVMLError_DriverNotLoaded": Msg("NVIDIA kernel driver is not loaded",
                                     "NVIDIA 内核驱动未加载"),
    "NVMLError_NoPermission": Msg("no permission to query the NVIDIA driver (NVML)",
                                  "没有查询 NVIDIA 驱动（NVML）的权限"),
    "NVMLError_LibRmVersionMismatch": Msg(
        "NVML library and kernel driver versions differ (driver updated without a reboot?)",
        "NVML 库与内核驱动版本不一致（更新驱动后没有重启？）"),
    "NVMLError_Unknown": Msg("NVML failed to initialise (unknown error)",
                             "NVML 初始化失败（未知错误）"),
}

# nvmlDeviceGetNvLinkVersion returns an enum (NVML_NVLINK_VERSION_*), not the version itself.
_NVLINK_ENUM_TO_MAJOR = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5, 8: 6}

def probe_nvml(stack: AcceleratorStack) -> list[GpuInfo]:
    """Fill the driver fields of ``stack`` and return one :class:`GpuInfo` per NVML device."""
    try:
        import pynvml
    except ImportError:
        _unavailable(stack, Msg("nvidia-ml-py is not installed (Python module pynvml missing)",
                                "未安装 nvidia-ml-py（缺少 Python 模块 pynvml）"))
        return []
    except Exception as exc:  # a broken install raises anything at import time
        _unavailable(stack, Msg(f"importing pynvml failed: {_short(exc)}",
                                f"导入 pynvml 失败：{_short(exc)}"))
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


def _unavailable(stack: AcceleratorStack, reason: Msg) -> None:
    stack.nvml_available = False
    stack.unknown["nvml"] = reason
    for name in ("driver_version", "cuda_driver_version"):
        stack.unknown.setdefault(name, Msg("NVML unavailable: ", "NVML 不可用：") + reason)


def _init_reason(pynvml: Any, exc: BaseException) -> Msg:
    for class_name, reason in _INIT_REASONS.items():
        cls = getattr(pynvml, class_name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            return reason
    return Msg(f"NVML init failed: {_short(exc)}", f"NVML 初始化失败：{_short(exc)}")


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
            gpu.unknown["name"] = Msg("no NVML handle: ", "无法取得 NVML 句柄：") + gpu.unknown[
                "handle"]
        else:
            _read_gpu(pynvml, handle, gpu)
        gpus.append(gpu)
    return gpus


def format_cuda_version(value: int) -> str:
    """NVML encodes the CUDA version as 1000 * major + 10 * minor: 12040 -> "12.4"."""
    return f"{value // 1000}.{(value % 1000) // 10}"


def _query(
    unknown: dict[str, Msg], field: str, pynvml: Any, function: str, *args: Any
) -> Any | None:
    """Call one NVML function; on failure record ``field``'s reason and return None."""
    fn: Callable[..., Any] | None = getattr(pynvml, function, None)
    if fn is None:
        unknown[field] = Msg(f"{function} missing from this nvidia-ml-py (too old)",
                             f"此 nvidia-ml-py 版本没有 {function}（版本太旧）")
        return None
    try:
        return fn(*args)
    except Exception as exc:
        unknown[field] = _call_failed(function, exc)
        return None


def _call_failed(call: str, exc: BaseException) -> Msg:
    """NVML's own error text ("Not Supported", "Insufficient Permissions") is English and is
    what a user searches for, so both languages keep it."""
    return Msg(f"{call}: {_short(exc)}", f"{call} 调用失败：{_short(exc)}")


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
    detail = gpu.unknown.get("sm_count") or Msg("no multiprocessorCount in the answer",
                                                "返回结果中没有 multiprocessorCount")
    gpu.unknown["sm_count"] = Msg(
        "NVML reports SMs only for MIG devices ({detail}); torch's multi_processor_count "
        "gives it when torch is probed",
        "NVML 只为 MIG 设备报告 SM 数量（{detail}）；探测 torch 时由其 "
        "multi_processor_count 给出").format(detail=detail)


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
            gpu.unknown["mig_enabled"] = _call_failed("nvmlDeviceGetMigMode", exc)
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
                gpu.unknown["nvlinks"] = _call_failed(f"nvmlDeviceGetNvLinkState({link})", exc)
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
