"""NVML probe against a fake pynvml: every failure mode maps to a reason, never a raise."""

from __future__ import annotations

import pynvml as real_pynvml
import pytest
from hwfakes import FakeNvml, nvml_gpu

from torchrig.hardware.gpu_nvml import _init_reason, format_cuda_version, probe_nvml
from torchrig.hardware.model import AcceleratorStack


def test_module_missing(install_nvml):
    install_nvml(None)
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []
    assert stack.nvml_available is False
    assert "nvidia-ml-py is not installed" in stack.unknown["nvml"].en
    assert "NVML unavailable" in stack.unknown["driver_version"].en


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        ("NVMLError_LibraryNotFound", "libnvidia-ml not found"),
        ("NVMLError_DriverNotLoaded", "driver is not loaded"),
        ("NVMLError_NoPermission", "no permission"),
        ("NVMLError_Unknown", "unknown error"),
    ],
)
def test_init_failures(install_nvml, error, expected):
    fake = install_nvml(FakeNvml([nvml_gpu(0)], init_error=error))
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []
    assert stack.nvml_available is False
    assert expected in stack.unknown["nvml"].en
    assert fake.shutdowns == 0  # nothing to shut down when init failed


def test_real_binding_error_classes_map_to_reasons():
    """The reasons key on nvidia-ml-py's real class names, not only on the fake's."""
    exc = real_pynvml.NVMLError_LibraryNotFound()
    assert "libnvidia-ml not found" in _init_reason(real_pynvml, exc).en
    exc = real_pynvml.NVMLError_DriverNotLoaded()
    assert "not loaded" in _init_reason(real_pynvml, exc).en


def test_every_call_raising_after_init(install_nvml):
    fake = install_nvml(FakeNvml([nvml_gpu(0)], fail_all=True))
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []
    assert stack.nvml_available is True
    assert stack.unknown["driver_version"].en == "nvmlSystemGetDriverVersion: Unknown Error"
    assert "Unknown Error" in stack.unknown["cuda_driver_version"].en
    assert "nvmlDeviceGetCount" in stack.unknown["gpu_count"].en
    assert fake.shutdowns == 1


def test_every_device_call_raising_leaves_reasons(install_nvml):
    failing = {key: "NVMLError_Unknown" for key in nvml_gpu(0)}
    failing.update(links=0)
    install_nvml(FakeNvml([failing]))
    stack = AcceleratorStack()
    [gpu] = probe_nvml(stack)
    for field in (
        "name", "uuid", "vram_total_bytes", "vram_free_bytes", "compute_capability",
        "sm_count", "pcie_gen_current", "pcie_gen_max", "pcie_width_current",
        "pcie_width_max", "power_limit_w", "mig_enabled",
    ):  # fmt: skip
        assert getattr(gpu, field) is None, field
        assert "Unknown Error" in gpu.unknown[field].en, field
    assert gpu.vendor == "NVIDIA" and gpu.sources == ["nvml"]
    assert stack.driver_version == "550.54.15"


def test_two_gpus_with_nvlink(install_nvml):
    fake = install_nvml(
        FakeNvml(
            [
                nvml_gpu(0, name=b"NVIDIA A100-SXM4-80GB", cc=(8, 0), links=12, link_version=4,
                         mig=[0, 0], total=80 * 1024**3),
                nvml_gpu(1, name=b"NVIDIA A100-SXM4-80GB", cc=(8, 0), links=12, link_version=4,
                         mig=[0, 0], total=80 * 1024**3),
            ]
        )
    )  # fmt: skip
    stack = AcceleratorStack()
    gpus = probe_nvml(stack)
    assert stack.nvml_available is True
    assert stack.driver_version == "550.54.15"  # bytes decoded
    assert stack.cuda_driver_version == "12.4"
    assert [g.index for g in gpus] == [0, 1]
    first = gpus[0]
    assert first.name == "NVIDIA A100-SXM4-80GB" and isinstance(first.name, str)
    assert first.uuid == "GPU-00000000-1111-2222-3333-444455556666"
    assert first.vram_total_bytes == 80 * 1024**3
    assert first.vram_free_bytes == 79 * 1024**3
    assert first.compute_capability == "8.0"
    assert (first.pcie_gen_current, first.pcie_gen_max) == (1, 4)
    assert (first.pcie_width_current, first.pcie_width_max) == (16, 16)
    assert first.power_limit_w == 450.0  # mW -> W
    assert first.mig_enabled is False
    assert len(first.nvlinks) == 12
    assert all(link.active and link.version == 3 for link in first.nvlinks)  # enum 4 = 3.0
    assert first.sm_count is None and "MIG" in first.unknown["sm_count"].en
    assert "nvlinks" not in first.unknown
    assert fake.shutdowns == 1


def test_mig_on_and_sm_count_when_driver_answers(install_nvml):
    install_nvml(FakeNvml([nvml_gpu(0, mig=[1, 1], sm=98)]))
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.mig_enabled is True
    assert gpu.sm_count == 98
    assert "sm_count" not in gpu.unknown


def test_nvlink_error_other_than_not_supported_is_reported(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])

    def broken_state(handle, link):
        raise fake.NVMLError_NoPermission()

    fake.nvmlDeviceGetNvLinkState = broken_state
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.nvlinks == []
    assert "Insufficient Permissions" in gpu.unknown["nvlinks"].en


def test_unexpected_exception_still_shuts_down(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])

    def explode():
        raise RuntimeError("binding bug")

    fake.nvmlDeviceGetCount = explode
    install_nvml(fake)
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []  # a failing call is a reason, not a crash
    assert "binding bug" in stack.unknown["gpu_count"].en
    assert fake.shutdowns == 1


def test_power_falls_back_to_management_limit(install_nvml):
    fake = FakeNvml([nvml_gpu(0, power_mw=300000)])

    def not_supported(handle):
        raise fake.NVMLError_NotSupported()

    fake.nvmlDeviceGetEnforcedPowerLimit = not_supported
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.power_limit_w == 300.0
    assert "power_limit_w" not in gpu.unknown


def test_cuda_version_format():
    assert format_cuda_version(12040) == "12.4"
    assert format_cuda_version(11080) == "11.8"
    assert format_cuda_version(13000) == "13.0"
