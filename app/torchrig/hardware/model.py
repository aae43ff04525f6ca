"""SystemProfile: what detection found on a machine, as plain data with a JSON form.

Every field is a value or ``None``; a ``None`` field has its reason in the component's
``unknown`` mapping, so users and scripts can tell "absent" from "could not be read". Reasons
are shown to people, so each is a :class:`~torchrig.i18n.Msg` in both languages, saved as
``{"max_freq_hz": {"en": "...", "zh": "..."}}``; profiles saved before that stored one English
string per reason, which still loads (shown as it is in either language). Units are SI base
units: bytes, hertz, watts; link widths are lane counts.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from torchrig.errors import InputError
from torchrig.i18n import Msg

PROFILE_FORMAT = "torchrig.system-profile"
PROFILE_VERSION = 1


@dataclass
class CpuInfo:
    vendor: str | None = None
    model_name: str | None = None
    architecture: str | None = None  # platform.machine(): x86_64, aarch64, arm64
    physical_cores: int | None = None
    logical_cpus: int | None = None
    usable_cpus: int | None = None  # CPUs this process may run on (affinity / cgroup quota)
    smt_enabled: bool | None = None
    base_freq_hz: float | None = None
    max_freq_hz: float | None = None
    cache_bytes: dict[str, int] = field(default_factory=dict)  # {"L1d": .., "L2": .., "L3": ..}
    # torch-relevant ISA flags only: avx2, avx512f, amx_tile, neon, ...
    isa_features: list[str] = field(default_factory=list)
    numa_nodes: int | None = None
    torch_threads: int | None = None  # torch.get_num_threads(), only when torch is loaded
    unknown: dict[str, Msg] = field(default_factory=dict)


@dataclass
class NvLinkInfo:
    link: int
    active: bool | None = None
    version: int | None = None


@dataclass
class GpuInfo:
    index: int
    name: str | None = None
    vendor: str | None = None  # "NVIDIA", "AMD", "Apple"
    uuid: str | None = None
    sources: list[str] = field(default_factory=list)  # which probes saw it: "nvml", "torch"
    torch_device: str | None = None  # "cuda:0", "mps"
    torch_usable: bool | None = None
    vram_total_bytes: int | None = None
    vram_free_bytes: int | None = None
    compute_capability: str | None = None  # "8.9"
    sm_count: int | None = None
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    power_limit_w: float | None = None
    mig_enabled: bool | None = None
    nvlinks: list[NvLinkInfo] = field(default_factory=list)
    catalog_id: str | None = None  # matching catalog part, filled by the caller that has a catalog
    unknown: dict[str, Msg] = field(default_factory=dict)


@dataclass
class AcceleratorStack:
    """Driver and framework facts that apply to all GPUs."""

    nvml_available: bool = False
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # CUDA version the driver supports, e.g. "12.4"
    torch_loaded: bool = False  # whether torch was imported to fill this in
    torch_cuda_version: str | None = None  # torch.version.cuda
    torch_hip_version: str | None = None  # torch.version.hip (ROCm builds)
    cudnn_version: str | None = None
    cuda_available: bool | None = None
    mps_available: bool | None = None
    unknown: dict[str, Msg] = field(default_factory=dict)


@dataclass
class MemoryInfo:
    total_bytes: int | None = None
    available_bytes: int | None = None
    swap_total_bytes: int | None = None
    swap_used_bytes: int | None = None
    dimm_type: str | None = None  # "DDR5"
    dimm_speed_mts: int | None = None  # MT/s
    unknown: dict[str, Msg] = field(default_factory=dict)


@dataclass
class DiskInfo:
    mountpoint: str
    device: str | None = None
    fstype: str | None = None
    total_bytes: int | None = None  # the filesystem's size
    free_bytes: int | None = None
    device_bytes: int | None = None  # the whole disk under it (a partition's parent), if known
    kind: str = "unknown"  # nvme | ssd | hdd | network | virtual | unknown
    # How the kind was determined, e.g. "/sys/block/sda/queue/rotational = 0".
    kind_basis: Msg = field(default_factory=lambda: Msg("", ""))
    unknown: dict[str, Msg] = field(default_factory=dict)


@dataclass
class SoftwareInfo:
    os_name: str | None = None
    os_version: str | None = None
    kernel: str | None = None
    python_version: str | None = None
    torch_version: str | None = None  # from package metadata: no import needed
    pyside6_version: str | None = None
    nvml_library: str | None = None  # version of nvidia-ml-py, if installed
    in_container: bool | None = None
    unknown: dict[str, Msg] = field(default_factory=dict)


@dataclass
class SystemProfile:
    hostname: str | None = None
    created: str | None = None  # ISO 8601 UTC
    detection_seconds: float | None = None
    cpu: CpuInfo = field(default_factory=CpuInfo)
    memory: MemoryInfo = field(default_factory=MemoryInfo)
    gpus: list[GpuInfo] = field(default_factory=list)
    accelerator: AcceleratorStack = field(default_factory=AcceleratorStack)
    disks: list[DiskInfo] = field(default_factory=list)
    software: SoftwareInfo = field(default_factory=SoftwareInfo)
    probe_errors: dict[str, str] = field(default_factory=dict)  # probe name -> what went wrong

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        return {"format": PROFILE_FORMAT, "version": PROFILE_VERSION, **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "profile") -> SystemProfile:
        """Rebuild a profile (e.g. one embedded in a bench report). Unknown keys are ignored so
        newer minor additions still load; wrong types are refused with the field named."""
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected an object")
        top = _build(_ProfileFields, data, where)
        try:
            return SystemProfile(
                hostname=top.hostname,
                created=top.created,
                detection_seconds=top.detection_seconds,
                cpu=_build(CpuInfo, data.get("cpu", {}), f"{where}.cpu"),
                memory=_build(MemoryInfo, data.get("memory", {}), f"{where}.memory"),
                gpus=[_gpu(g, f"{where}.gpus[{i}]") for i, g in enumerate(data.get("gpus", []))],
                accelerator=_build(
                    AcceleratorStack, data.get("accelerator", {}), f"{where}.accelerator"
                ),
                disks=[
                    _build(DiskInfo, d, f"{where}.disks[{i}]")
                    for i, d in enumerate(data.get("disks", []))
                ],
                software=_build(SoftwareInfo, data.get("software", {}), f"{where}.software"),
                probe_errors=dict(top.probe_errors),
            )
        except (TypeError, ValueError) as exc:
            raise InputError(f"{where}: {exc}") from None

    # Convenience views used by analysis and the GUI.

    @property
    def total_vram_bytes(self) -> int | None:
        sizes = [g.vram_total_bytes for g in self.gpus]
        if not sizes or any(s is None for s in sizes):
            return None
        return sum(s for s in sizes if s is not None)


T = TypeVar("T")


@dataclass
class _ProfileFields:
    """The scalar fields of :class:`SystemProfile`, type-checked like the components."""

    hostname: str | None = None
    created: str | None = None
    detection_seconds: float | None = None
    probe_errors: dict[str, str] = field(default_factory=dict)


def _build(cls: type[T], data: Any, where: str) -> T:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected an object")
    hints = typing.get_type_hints(cls)
    values = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        # Nested dataclasses (GpuInfo.nvlinks) are built by the caller from their objects.
        if f.name != "nvlinks" and not _matches(value, hints[f.name]):
            raise InputError(f"{where}: field '{f.name}' must be {_describe(hints[f.name])}, "
                             f"got {type(value).__name__}")
        values[f.name] = _reasons(value, hints[f.name], f"{where}.{f.name}")
    return cls(**values)


def _reasons(value: Any, hint: Any, where: str) -> Any:
    """JSON reasons (text or ``{"en", "zh"}``) as Msg; every other value as it is."""
    if hint is Msg:
        return Msg.from_json(value, where)
    if hint == dict[str, Msg]:
        return {k: Msg.from_json(v, f"{where}.{k}") for k, v in value.items()}
    return value


def _matches(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a field's annotation (the shapes used in this module)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if origin is list:
        return isinstance(value, list) and all(_matches(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in value.items())
    if hint is Msg:  # checked in full by Msg.from_json
        return isinstance(value, (str, dict))
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and math.isfinite(value))
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if len(args) == 1:
        return f"{_describe(args[0])} or null"
    origin = typing.get_origin(hint)
    if origin is list:
        return f"a list of {_describe(args[0]) if args else 'values'}"
    if origin is dict:
        return "an object"
    return {bool: "true or false", int: "a whole number", float: "a finite number",
            str: "text", Msg: "text"}.get(hint, getattr(hint, "__name__", str(hint)))


def _gpu(data: Any, where: str) -> GpuInfo:
    gpu = _build(GpuInfo, data, where)
    if not isinstance(gpu.nvlinks, list):
        raise InputError(f"{where}: field 'nvlinks' must be a list")
    gpu.nvlinks = [_build(NvLinkInfo, link, f"{where}.nvlinks[{i}]")
                   for i, link in enumerate(gpu.nvlinks)]
    return gpu
