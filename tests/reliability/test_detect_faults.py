"""detect() under injected faults: always a complete profile, every unknown with its reason.

tests/hardware covers each probe's own failure modes with fakes that behave like the real
libraries. This file injects the faults a real machine can combine at the level a user meets
them (``detect()``, its JSON form, its text summary): no NVML module, an NVML binding whose every
call raises anything, torch without CUDA, CUDA failing to initialise, no or unreadable
/proc and /sys, MIG mode.
"""

from __future__ import annotations

import builtins
import dataclasses
import importlib.abc
import json
import os
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from torchrig.hardware import SystemProfile, detect, format_profile_text
from torchrig.hardware.detection import NO_REASON
from torchrig.hardware.sysfs import FsRoots

_NOT_DETECTED = {"unknown", "catalog_id", "index", "sources", "nvlinks"}


def _unexplained(profile: SystemProfile) -> list[str]:
    """Fields that are None without a specific reason in their component's ``unknown``."""
    components: list[tuple[str, Any]] = [
        ("cpu", profile.cpu), ("memory", profile.memory), ("accelerator", profile.accelerator),
        ("software", profile.software)]
    components += [(f"disks[{i}]", d) for i, d in enumerate(profile.disks)]
    components += [(f"gpus[{i}]", g) for i, g in enumerate(profile.gpus)]
    bad = []
    for where, component in components:
        for f in dataclasses.fields(component):
            if f.name in _NOT_DETECTED or getattr(component, f.name) is not None:
                continue
            reason = component.unknown.get(f.name)
            if not reason or reason == NO_REASON:
                bad.append(f"{where}.{f.name}")
    return bad


def _checked(profile: SystemProfile) -> SystemProfile:
    """What every faulty detection must still give: reasons, JSON, a round trip, the text."""
    assert _unexplained(profile) == []
    if not profile.gpus:
        assert profile.accelerator.unknown.get("gpus")
    if not profile.disks:
        assert profile.probe_errors.get("storage"), "no disks and no reason"
    text = json.dumps(profile.to_dict(), allow_nan=False)
    assert SystemProfile.from_dict(json.loads(text)) == profile
    for lang in ("en", "zh"):
        assert format_profile_text(profile, lang=lang)
    return profile


# --- fake NVML bindings --------------------------------------------------------------------------


class _UnprintableError(Exception):
    """NVMLError.__str__ calls back into the library; when that is broken, str() raises."""

    def __str__(self) -> str:
        raise RuntimeError("str() of this error fails too")


class HostileNvml(types.ModuleType):
    """A ``pynvml`` whose every function raises ``error``; ``init_ok`` lets nvmlInit pass."""

    def __init__(self, error: Callable[[], BaseException], init_ok: bool) -> None:
        super().__init__("pynvml")
        self._error, self._init_ok = error, init_ok

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "nvmlInit" and self._init_ok:
            return lambda: None

        def fail(*_args: Any, **_kwargs: Any) -> Any:
            raise self._error()

        return fail


class MigNvml(types.ModuleType):
    """One A100 in MIG mode; answers what NVML answers for it (SM count: NotSupported)."""

    NVML_DEVICE_MIG_ENABLE = 1

    class NVMLError(Exception):
        pass

    class NVMLError_NotSupported(NVMLError):  # noqa: N801 - nvidia-ml-py's own spelling
        pass

    def __init__(self) -> None:
        super().__init__("pynvml")

    def nvmlInit(self) -> None:  # noqa: N802 - mirrors the binding
        pass

    def nvmlShutdown(self) -> None:  # noqa: N802
        pass

    def __getattr__(self, name: str) -> Any:
        answers: dict[str, Any] = {
            "nvmlSystemGetDriverVersion": b"550.54.15",
            "nvmlSystemGetCudaDriverVersion_v2": 12040,
            "nvmlDeviceGetCount": 1,
            "nvmlDeviceGetHandleByIndex": "handle",
            "nvmlDeviceGetName": b"NVIDIA A100-SXM4-40GB",
            "nvmlDeviceGetUUID": b"GPU-00000000-1111-2222-3333-444455556666",
            "nvmlDeviceGetMemoryInfo": types.SimpleNamespace(total=40 * 2**30, free=39 * 2**30,
                                                             used=2**30),
            "nvmlDeviceGetCudaComputeCapability": (8, 0),
            "nvmlDeviceGetCurrPcieLinkGeneration": 4,
            "nvmlDeviceGetMaxPcieLinkGeneration": 4,
            "nvmlDeviceGetCurrPcieLinkWidth": 16,
            "nvmlDeviceGetMaxPcieLinkWidth": 16,
            "nvmlDeviceGetEnforcedPowerLimit": 400_000,
            "nvmlDeviceGetMigMode": (1, 1),
        }
        if name in answers:
            return lambda *_args: answers[name]
        if name.startswith("nvml"):
            def unsupported(*_args: Any) -> Any:
                raise MigNvml.NVMLError_NotSupported("Not Supported")
            return unsupported
        raise AttributeError(name)


@pytest.fixture
def nvml(monkeypatch: pytest.MonkeyPatch) -> Callable[[Any], None]:
    def install(module: Any) -> None:
        monkeypatch.setitem(sys.modules, "pynvml", module)

    return install


# --- fake torch ----------------------------------------------------------------------------------


def fake_torch(*, cuda: str | None, available: Callable[[], bool],
               devices: list[Any] | None = None) -> Any:
    devices = devices or []

    def properties(index: int) -> Any:
        item = devices[index]
        if isinstance(item, BaseException):
            raise item
        return types.SimpleNamespace(**item)

    return types.SimpleNamespace(
        __version__="2.13.0",
        version=types.SimpleNamespace(cuda=cuda, hip=None),
        backends=types.SimpleNamespace(
            cudnn=types.SimpleNamespace(version=lambda: 90100 if cuda else None),
            mps=types.SimpleNamespace(is_available=lambda: False)),
        cuda=types.SimpleNamespace(is_available=available, device_count=lambda: len(devices),
                                   get_device_properties=properties),
        get_num_threads=lambda: 2,
    )


def _init_warning() -> bool:
    warnings.warn("CUDA initialization: The NVIDIA driver on your system is too old "
                  "(found version 10020)", UserWarning, stacklevel=2)
    return False


def _raise(exc: BaseException) -> Callable[[], bool]:
    def fail() -> bool:
        raise exc

    return fail


# --- file systems without /proc and /sys ---------------------------------------------------------


@pytest.fixture
def unreadable(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Make everything under a folder unreadable: chmod 000, plus refusing the calls that read
    files and folders (root, which tests may run as, ignores permission bits)."""
    folders: list[Path] = []

    def under(path: Any) -> bool:
        try:
            text = os.fsdecode(path)
        except TypeError:
            return False
        return any(text == str(f) or text.startswith(str(f) + os.sep) for f in folders)

    def guard(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if not isinstance(path, int) and under(path):
                raise PermissionError(13, "Permission denied", os.fsdecode(path))
            return real(path, *args, **kwargs)

        return call

    for module, name in ((builtins, "open"), (os, "open"), (os, "stat"), (os, "lstat"),
                         (os, "listdir"), (os, "scandir"), (os, "readlink")):
        monkeypatch.setattr(module, name, guard(getattr(module, name)))

    def make(folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        folders.append(folder)
        folder.chmod(0)

    yield make
    for folder in folders:
        folder.chmod(0o700)


# --- the faults ----------------------------------------------------------------------------------


def test_nvml_module_missing(nvml: Callable[[Any], None]) -> None:
    nvml(None)
    profile = _checked(detect())
    assert profile.accelerator.nvml_available is False
    assert "not installed" in profile.accelerator.unknown["nvml"].en
    assert "not installed" in profile.accelerator.unknown["gpus"].en


def test_nvml_import_raising_something_odd(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broken install: the import itself raises OSError (libnvidia-ml cannot be loaded)."""

    class Broken(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, *_args: Any) -> Any:
            if name == "pynvml":
                raise OSError("libnvidia-ml.so.1: cannot open shared object file")
            return None

    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Broken(), *sys.meta_path])
    profile = _checked(detect())
    assert "libnvidia-ml.so.1" in profile.accelerator.unknown["nvml"].en


@pytest.mark.parametrize("init_ok", [False, True], ids=["init-fails", "calls-fail"])
@pytest.mark.parametrize("error", [
    lambda: RuntimeError("driver exploded"),
    lambda: OSError(5, "Input/output error"),
    lambda: MemoryError(),
    _UnprintableError,
], ids=["RuntimeError", "OSError", "MemoryError", "unprintable"])
def test_nvml_raising_on_every_call(nvml: Callable[[Any], None], init_ok: bool,
                                    error: Callable[[], BaseException]) -> None:
    nvml(HostileNvml(error, init_ok))
    profile = _checked(detect())
    assert profile.gpus == []
    if not init_ok:
        assert profile.accelerator.nvml_available is False
        assert profile.accelerator.unknown["nvml"].en


def test_torch_without_cuda(nvml: Callable[[Any], None]) -> None:
    nvml(None)
    profile = _checked(detect(use_torch=True, torch_module=fake_torch(
        cuda=None, available=lambda: False)))
    assert profile.accelerator.cuda_available is False
    assert "CPU-only" in profile.accelerator.unknown["cuda_available"].en
    assert "CPU-only" in profile.accelerator.unknown["gpus"].en


@pytest.mark.parametrize(("available", "expected"), [
    (_init_warning, "driver on your system is too old"),
    (_raise(RuntimeError("CUDA error: all CUDA-capable devices are busy")), "busy"),
    (_raise(_UnprintableError()), "is_available() failed"),
], ids=["init-warning", "is-available-raises", "unprintable-error"])
def test_cuda_present_but_failing_to_initialise(nvml: Callable[[Any], None], available: Any,
                                                expected: str) -> None:
    nvml(None)
    profile = _checked(detect(use_torch=True, torch_module=fake_torch(
        cuda="12.4", available=available)))
    assert profile.accelerator.cuda_available is False
    assert profile.accelerator.torch_cuda_version == "12.4"
    got = profile.accelerator.unknown.get("cuda_available")
    reason = got.en if got else profile.probe_errors["torch"]
    assert expected in reason


def test_cuda_device_failing_after_init(nvml: Callable[[Any], None]) -> None:
    nvml(None)
    torch = fake_torch(cuda="12.4", available=lambda: True,
                       devices=[RuntimeError("CUDA error: uncorrectable ECC error")])
    profile = _checked(detect(use_torch=True, torch_module=torch))
    [gpu] = profile.gpus
    assert gpu.torch_usable is False and "ECC" in gpu.unknown["name"].en


def test_gpu_seen_by_torch_alone(nvml: Callable[[Any], None]) -> None:
    """CUDA works but NVML is absent: the NVML-only fields say so."""
    nvml(None)
    device = {"name": "NVIDIA GeForce RTX 4090", "total_memory": 24 * 2**30, "major": 8,
              "minor": 9, "multi_processor_count": 128,
              "uuid": "GPU-00000000-1111-2222-3333-444455556666"}
    profile = _checked(detect(use_torch=True, torch_module=fake_torch(
        cuda="12.4", available=lambda: True, devices=[device])))
    [gpu] = profile.gpus
    assert gpu.torch_usable is True and gpu.sm_count == 128
    assert "NVML did not list this GPU" in gpu.unknown["pcie_gen_max"].en


def test_torch_not_importable(monkeypatch: pytest.MonkeyPatch, nvml: Callable[[Any], None]) -> None:
    nvml(None)
    monkeypatch.setitem(sys.modules, "torch", None)
    profile = _checked(detect(use_torch=True))
    assert "torch could not be imported" in profile.accelerator.unknown["cuda_available"].en


def test_no_proc_or_sys(tmp_path: Path, nvml: Callable[[Any], None]) -> None:
    nvml(None)
    empty = tmp_path / "empty"
    empty.mkdir()
    profile = _checked(detect(roots=FsRoots.under(empty)))
    assert "not present" in profile.cpu.unknown["model_name"].en
    assert profile.cpu.logical_cpus == os.cpu_count()  # psutil still answers


def test_unreadable_proc_and_sys(tmp_path: Path, nvml: Callable[[Any], None],
                                 unreadable: Callable[[Path], None]) -> None:
    nvml(None)
    root = tmp_path / "root"
    for sub in ("proc", "sys", "etc"):
        (root / sub).mkdir(parents=True)
    (root / "proc" / "cpuinfo").write_text("model name\t: Never Read CPU\n")
    unreadable(root)
    profile = _checked(detect(roots=FsRoots.under(root)))
    assert profile.cpu.model_name != "Never Read CPU"
    assert "not readable" in profile.cpu.unknown["model_name"].en


def test_mig_mode(nvml: Callable[[Any], None]) -> None:
    nvml(MigNvml())
    instance = {"name": "NVIDIA A100-SXM4-40GB MIG 1g.5gb", "total_memory": 4 * 2**30,
                "major": 8, "minor": 0, "multi_processor_count": 14,
                "uuid": "MIG-11111111-2222-3333-4444-555555555555"}
    profile = _checked(detect(use_torch=True, torch_module=fake_torch(
        cuda="12.4", available=lambda: True, devices=[instance])))
    [gpu] = profile.gpus
    assert gpu.mig_enabled is True
    assert "MIG" in gpu.unknown["torch_device"].en


def test_everything_failing_at_once(tmp_path: Path, nvml: Callable[[Any], None],
                                    unreadable: Callable[[Path], None]) -> None:
    nvml(HostileNvml(_UnprintableError, init_ok=True))
    root = tmp_path / "root"
    unreadable(root)
    profile = _checked(detect(use_torch=True, roots=FsRoots.under(root), torch_module=fake_torch(
        cuda="12.4", available=_raise(_UnprintableError()))))
    assert profile.gpus == [] and profile.accelerator.cuda_available is False
