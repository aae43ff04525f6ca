"""Fake pynvml and torch for the GPU probes (imported by the tests and their conftest)."""

from __future__ import annotations

import types
import uuid
import warnings

# --------------------------------------------------------------------------- fake pynvml

_NVML_ERRORS = {
    "NVMLError_InvalidArgument": (2, "Invalid Argument"),
    "NVMLError_NotSupported": (3, "Not Supported"),
    "NVMLError_NoPermission": (4, "Insufficient Permissions"),
    "NVMLError_DriverNotLoaded": (9, "Driver Not Loaded"),
    "NVMLError_LibraryNotFound": (12, "NVML Shared Library Not Found"),
    "NVMLError_Unknown": (999, "Unknown Error"),
}


class FakeNvml(types.ModuleType):
    """Enough of nvidia-ml-py's ``pynvml`` for the probe: errors as classes, bytes strings.

    ``gpus`` are dicts of per-device answers; ``init_error`` names an NVMLError class that
    nvmlInit raises; ``fail_all`` makes every call after init raise NVMLError_Unknown.
    """

    NVML_NVLINK_MAX_LINKS = 18
    NVML_DEVICE_MIG_ENABLE = 1

    def __init__(self, gpus: list[dict], *, init_error: str | None = None,
                 fail_all: bool = False) -> None:  # fmt: skip
        super().__init__("pynvml")
        self.gpus = gpus
        self.init_error = init_error
        self.fail_all = fail_all
        self.shutdowns = 0

        class NVMLError(Exception):
            def __init__(self, value: int = 999, text: str = "Unknown Error") -> None:
                super().__init__(text)
                self.value = value

        self.NVMLError = NVMLError
        for name, (value, text) in _NVML_ERRORS.items():
            cls = type(name, (NVMLError,), {})
            setattr(self, name, cls)
            cls.__init__ = lambda obj, v=value, t=text: NVMLError.__init__(obj, v, t)

    def _raise(self, name: str) -> None:
        raise getattr(self, name)()

    def _answer(self, handle: dict, key: str):
        if self.fail_all:
            self._raise("NVMLError_Unknown")
        value = handle.get(key)
        if isinstance(value, str) and value.startswith("NVMLError_"):
            self._raise(value)
        return value

    def nvmlInit(self) -> None:
        if self.init_error:
            self._raise(self.init_error)

    def nvmlShutdown(self) -> None:
        self.shutdowns += 1

    def nvmlSystemGetDriverVersion(self) -> bytes:
        return self._answer({"v": b"550.54.15"}, "v")

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return self._answer({"v": 12040}, "v")

    def nvmlDeviceGetCount(self) -> int:
        return self._answer({"v": len(self.gpus)}, "v")

    def nvmlDeviceGetHandleByIndex(self, index: int) -> dict:
        return self._answer({"v": self.gpus[index]}, "v")

    def nvmlDeviceGetName(self, handle: dict) -> bytes:
        return self._answer(handle, "name")

    def nvmlDeviceGetUUID(self, handle: dict) -> bytes:
        return self._answer(handle, "uuid")

    def nvmlDeviceGetMemoryInfo(self, handle: dict):
        total = self._answer(handle, "total")
        return types.SimpleNamespace(total=total, free=total - 1024**3, used=1024**3)

    def nvmlDeviceGetCudaComputeCapability(self, handle: dict):
        return self._answer(handle, "cc")

    def nvmlDeviceGetAttributes(self, handle: dict):
        count = self._answer(handle, "sm")
        return types.SimpleNamespace(multiprocessorCount=count)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: dict) -> int:
        return self._answer(handle, "gen_now")

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: dict) -> int:
        return self._answer(handle, "gen_max")

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: dict) -> int:
        return self._answer(handle, "width_now")

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: dict) -> int:
        return self._answer(handle, "width_max")

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: dict) -> int:
        return self._answer(handle, "power_mw")

    def nvmlDeviceGetPowerManagementLimit(self, handle: dict) -> int:
        return self._answer(handle, "power_mw")

    def nvmlDeviceGetMigMode(self, handle: dict):
        return self._answer(handle, "mig")

    def nvmlDeviceGetNvLinkState(self, handle: dict, link: int) -> int:
        if self.fail_all:
            self._raise("NVMLError_Unknown")
        if link >= handle.get("links", 0):
            self._raise("NVMLError_NotSupported")
        return 1

    def nvmlDeviceGetNvLinkVersion(self, handle: dict, link: int) -> int:
        return handle.get("link_version", 4)

    # --- state during a benchmark run (bench.machine_state) ---

    def nvmlDeviceGetClockInfo(self, handle: dict, clock: int) -> int:
        return self._answer(handle, {1: "sm_clock", 2: "mem_clock"}[clock])

    def nvmlDeviceGetMaxClockInfo(self, handle: dict, clock: int) -> int:
        return self._answer(handle, {1: "sm_clock_max", 2: "mem_clock_max"}[clock])

    def nvmlDeviceGetTemperature(self, handle: dict, sensor: int) -> int:
        return self._answer(handle, "temperature")

    def nvmlDeviceGetPowerUsage(self, handle: dict) -> int:
        return self._answer(handle, "power_now_mw")

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle: dict) -> int:
        return self._answer(handle, "throttle_mask")

    def nvmlDeviceGetComputeRunningProcesses(self, handle: dict) -> list:
        return [types.SimpleNamespace(pid=pid, usedGpuMemory=used)
                for pid, used in self._answer(handle, "processes") or []]

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: dict) -> list:
        return []


def nvml_gpu(index: int, **overrides) -> dict:
    """A PCIe GPU that answers everything, with NVML's usual quirks (SMs: NotSupported)."""
    gpu = {
        "name": f"NVIDIA Test GPU {index}".encode(),
        "uuid": f"GPU-{index:08x}-1111-2222-3333-444455556666".encode(),
        "total": 24 * 1024**3,
        "cc": (8, 9),
        "sm": "NVMLError_NotSupported",
        "gen_now": 1,
        "gen_max": 4,
        "width_now": 16,
        "width_max": 16,
        "power_mw": 450000,
        "mig": "NVMLError_NotSupported",
        "links": 0,
        "sm_clock": 2520,
        "sm_clock_max": 2520,
        "mem_clock": 10501,
        "mem_clock_max": 10501,
        "temperature": 64,
        "power_now_mw": 300000,
        "throttle_mask": 0,
        "processes": [],
    }
    gpu.update(overrides)
    return gpu


# --------------------------------------------------------------------------- fake torch


def fake_torch(devices: list[dict], *, cuda: str | None = "12.4", hip: str | None = None,
               cudnn: int | None = 90100, available: bool | Exception = True,
               warning: str | None = None, mps: bool = False):  # fmt: skip
    """A torch-like object: version, backends.cudnn/mps, cuda.* over ``devices`` (dicts of
    get_device_properties attributes, in torch's own order)."""

    def is_available() -> bool:
        if warning:
            warnings.warn(warning, UserWarning, stacklevel=2)
        if isinstance(available, Exception):
            raise available
        return available

    def get_device_properties(index: int):
        props = devices[index]
        if isinstance(props, Exception):
            raise props
        return types.SimpleNamespace(**props)

    return types.SimpleNamespace(
        __version__="2.13.0",
        version=types.SimpleNamespace(cuda=cuda, hip=hip),
        backends=types.SimpleNamespace(
            cudnn=types.SimpleNamespace(version=lambda: cudnn),
            mps=types.SimpleNamespace(is_available=lambda: mps),
        ),
        cuda=types.SimpleNamespace(
            is_available=is_available,
            device_count=lambda: len(devices),
            get_device_properties=get_device_properties,
        ),
        get_num_threads=lambda: 4,
    )


class TorchUuid:
    """Like torch's ``_CUDAUUID``: raw 16 bytes in ``.bytes``, str() without "GPU-"."""

    def __init__(self, text: str) -> None:
        self.bytes = uuid.UUID(text.removeprefix("GPU-")).bytes

    def __str__(self) -> str:
        return str(uuid.UUID(bytes=self.bytes))
