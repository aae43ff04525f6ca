"""torch probe with a fake torch object, and the NVML + torch merge by UUID."""

from __future__ import annotations

import uuid

import pytest
from hwfakes import FakeNvml, TorchUuid, fake_torch, nvml_gpu

from torchrig.hardware.gpu_nvml import probe_nvml
from torchrig.hardware.gpu_torch import format_cudnn_version, normalize_uuid, probe_torch
from torchrig.hardware.merge import NOT_PROBED, merge_gpus
from torchrig.hardware.model import AcceleratorStack, GpuInfo

UUID_A = "GPU-00000000-1111-2222-3333-444455556666"  # NVML index 0 (first PCI bus)
UUID_B = "GPU-00000001-1111-2222-3333-444455556666"  # NVML index 1


def _props(name: str, uuid_text: str, *, sms: int = 128, total: int = 24 * 1024**3) -> dict:
    return {
        "name": name,
        "total_memory": total,
        "major": 8,
        "minor": 9,
        "multi_processor_count": sms,
        "uuid": TorchUuid(uuid_text),
    }


def _nvml_pair(install_nvml) -> list[GpuInfo]:
    install_nvml(
        FakeNvml(
            [
                nvml_gpu(0, name=b"NVIDIA GeForce RTX 4090"),
                nvml_gpu(1, name=b"NVIDIA GeForce RTX 3060", total=12 * 1024**3),
            ]
        )
    )
    return probe_nvml(AcceleratorStack())


def test_torch_fields_from_a_cuda_build():
    torch = fake_torch([_props("NVIDIA GeForce RTX 4090", UUID_A)], cudnn=90100)
    stack = AcceleratorStack()
    seen = probe_torch(stack, torch)
    assert stack.torch_loaded is True
    assert (stack.torch_cuda_version, stack.torch_hip_version) == ("12.4", None)
    assert stack.cudnn_version == "9.1.0"
    assert stack.cuda_available is True and stack.mps_available is False
    [gpu] = seen.gpus
    assert gpu.torch_device == "cuda:0" and gpu.torch_usable is True
    assert gpu.uuid == UUID_A and gpu.sm_count == 128 and gpu.compute_capability == "8.9"


def test_merge_by_uuid_with_reordered_indices(install_nvml):
    nvml = _nvml_pair(install_nvml)
    # torch lists the second PCI GPU first (CUDA's own ordering may do that), so the index
    # positions of the two probes disagree and only the UUID pairs them correctly.
    torch = fake_torch(
        [
            _props("NVIDIA GeForce RTX 3060", UUID_B, sms=28, total=12 * 1024**3),
            _props("NVIDIA GeForce RTX 4090", UUID_A),
        ]
    )
    seen = probe_torch(AcceleratorStack(), torch)
    gpus = merge_gpus(nvml, seen, environ={})
    assert len(gpus) == 2  # one entry per physical GPU
    by_name = {g.name: g for g in gpus}
    assert by_name["NVIDIA GeForce RTX 4090"].torch_device == "cuda:1"
    assert by_name["NVIDIA GeForce RTX 3060"].torch_device == "cuda:0"
    assert [g.index for g in gpus] == [0, 1]  # NVML (PCI) order kept
    assert gpus[0].name == "NVIDIA GeForce RTX 4090"
    assert all(g.sources == ["nvml", "torch"] and g.torch_usable for g in gpus)
    # torch fills what NVML cannot: the SM count, and its reason goes away.
    assert by_name["NVIDIA GeForce RTX 3060"].sm_count == 28
    assert "sm_count" not in by_name["NVIDIA GeForce RTX 3060"].unknown
    assert gpus[0].power_limit_w == 450.0  # NVML facts kept


def test_gpu_hidden_by_cuda_visible_devices(install_nvml):
    nvml = _nvml_pair(install_nvml)
    torch = fake_torch([_props("NVIDIA GeForce RTX 3060", UUID_B)])
    seen = probe_torch(AcceleratorStack(), torch)
    gpus = merge_gpus(nvml, seen, environ={"CUDA_VISIBLE_DEVICES": "1"})
    hidden, visible = gpus
    assert visible.torch_device == "cuda:0" and visible.torch_usable is True
    assert hidden.torch_device is None and hidden.torch_usable is False
    assert "CUDA_VISIBLE_DEVICES='1'" in hidden.unknown["torch_usable"].en
    assert hidden.sources == ["nvml"]
    assert "torch does not see this GPU" in hidden.unknown["sm_count"].en


def test_cuda_failing_to_initialise_is_a_reason(install_nvml):
    nvml = _nvml_pair(install_nvml)
    warning = "CUDA initialization: The NVIDIA driver on your system is too old"
    torch = fake_torch([], available=False, warning=warning)
    stack = AcceleratorStack()
    seen = probe_torch(stack, torch)
    assert stack.cuda_available is False
    assert "driver on your system is too old" in stack.unknown["cuda_available"].en
    gpus = merge_gpus(nvml, seen, environ={})
    assert all(g.torch_usable is False for g in gpus)
    assert "too old" in gpus[0].unknown["torch_usable"].en


def test_is_available_raising_is_caught():
    stack = AcceleratorStack()
    seen = probe_torch(stack, fake_torch([], available=RuntimeError("CUDA error: busy")))
    assert stack.cuda_available is False and "busy" in stack.unknown["cuda_available"].en
    assert seen.gpus == []


def test_device_properties_failing_for_one_device():
    torch = fake_torch([_props("NVIDIA GeForce RTX 4090", UUID_A), RuntimeError("ECC error")])
    seen = probe_torch(AcceleratorStack(), torch)
    good, bad = seen.gpus
    assert good.torch_usable is True
    assert bad.torch_usable is False and "ECC error" in bad.unknown["name"].en


def test_cpu_only_build():
    stack = AcceleratorStack()
    seen = probe_torch(stack, fake_torch([], cuda=None, cudnn=None, available=False))
    assert stack.cuda_available is False
    assert "CPU-only" in stack.unknown["cuda_available"].en
    assert "no cuDNN" in stack.unknown["cudnn_version"].en
    assert seen.cuda_unusable_reason and "CPU-only" in seen.cuda_unusable_reason.en


def test_rocm_gpu_comes_from_torch_only(install_nvml):
    install_nvml(FakeNvml([], init_error="NVMLError_LibraryNotFound"))
    nvml = probe_nvml(AcceleratorStack())
    torch = fake_torch(
        [{"name": "AMD Instinct MI300X", "total_memory": 192 * 1024**3,
          "multi_processor_count": 304, "gcnArchName": "gfx942:sramecc+:xnack-",
          "major": 9, "minor": 4, "uuid": "58ff1a2b3c4d5e6f"}],
        cuda=None, hip="6.2.41133", cudnn=None,
    )  # fmt: skip
    stack = AcceleratorStack()
    gpus = merge_gpus(nvml, probe_torch(stack, torch), environ={})
    [gpu] = gpus
    assert stack.torch_hip_version == "6.2.41133"
    assert gpu.vendor == "AMD" and gpu.compute_capability == "gfx942"
    assert gpu.torch_device == "cuda:0" and gpu.sources == ["torch"]


def test_apple_mps_is_one_gpu_with_unknown_vram():
    stack = AcceleratorStack()
    seen = probe_torch(stack, fake_torch([], cuda=None, cudnn=None, available=False, mps=True))
    [gpu] = merge_gpus([], seen, environ={})
    assert stack.mps_available is True
    assert (gpu.vendor, gpu.torch_device, gpu.torch_usable) == ("Apple", "mps", True)
    assert gpu.vram_total_bytes is None and "unified memory" in gpu.unknown["vram_total_bytes"].en


def test_mig_instance_attaches_to_its_parent(install_nvml):
    install_nvml(FakeNvml([nvml_gpu(0, name=b"NVIDIA A100-SXM4-40GB", mig=[1, 1])]))
    nvml = probe_nvml(AcceleratorStack())
    torch = fake_torch(
        [{"name": "NVIDIA A100-SXM4-40GB MIG 1g.5gb", "total_memory": 4 * 1024**3,
          "major": 8, "minor": 0, "multi_processor_count": 14,
          "uuid": "MIG-11111111-2222-3333-4444-555555555555"}]
    )  # fmt: skip
    gpus = merge_gpus(nvml, probe_torch(AcceleratorStack(), torch), environ={})
    [gpu] = gpus
    assert gpu.torch_device == "cuda:0" and "MIG instance" in gpu.unknown["torch_device"].en


def test_torch_not_probed_marks_fields(install_nvml):
    nvml = _nvml_pair(install_nvml)
    gpus = merge_gpus(nvml, None)
    assert all(g.torch_usable is None and g.unknown["torch_usable"] == NOT_PROBED for g in gpus)


def test_old_torch_without_uuid_matches_a_lone_gpu_by_name(install_nvml):
    install_nvml(FakeNvml([nvml_gpu(0, name=b"NVIDIA GeForce RTX 4090")]))
    nvml = probe_nvml(AcceleratorStack())
    props = _props("NVIDIA GeForce RTX 4090", UUID_A)
    del props["uuid"]
    gpus = merge_gpus(nvml, probe_torch(AcceleratorStack(), fake_torch([props])), environ={})
    assert len(gpus) == 1 and gpus[0].torch_device == "cuda:0"


@pytest.mark.parametrize(
    "value",
    [
        UUID_A,
        UUID_A.upper(),
        UUID_A.removeprefix("GPU-"),
        UUID_A.encode(),
        TorchUuid(UUID_A),
        uuid.UUID(UUID_A.removeprefix("GPU-")).bytes,
    ],
)
def test_uuid_spellings_normalise_to_one(value):
    assert normalize_uuid(value) == UUID_A


def test_uuid_edge_cases():
    assert normalize_uuid("") is None
    assert normalize_uuid("MIG-11111111-2222-3333-4444-555555555555").startswith("MIG-")
    assert normalize_uuid("58FF1A2B") == "58ff1a2b"


def test_cudnn_version_encodings():
    assert format_cudnn_version(8907) == "8.9.7"
    assert format_cudnn_version(90100) == "9.1.0"
    assert format_cudnn_version(91002) == "9.10.2"
