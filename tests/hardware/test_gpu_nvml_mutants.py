"""NVML probe boundaries (hardware/gpu_nvml.py) against the fake pynvml of hwfakes: every
reason text in both languages, each fallback, and the NVLink walk.

Sources for the expected values: nvidia-ml-py's own constants (``NVML_NVLINK_VERSION_X_Y``
enum values, ``NVML_DEVICE_MIG_ENABLE``), the NVML API reference (power limits in mW, CUDA
version as 1000 x major + 10 x minor, nvmlDeviceGetMigMode returning (current, pending)), and
the messages' rules in gpu_nvml.py's docstrings; arithmetic is worked in the comments.
"""

from __future__ import annotations

import sys
import types

import pynvml as real_pynvml
import pytest
from hwfakes import FakeNvml, nvml_gpu

from torchrig.hardware.gpu_nvml import probe_nvml
from torchrig.hardware.model import AcceleratorStack
from torchrig.i18n import Msg


def _probe(install_nvml, *gpus: dict, **fake_args):
    fake = install_nvml(FakeNvml(list(gpus), **fake_args))
    stack = AcceleratorStack()
    return fake, stack, probe_nvml(stack)


def _raise(fake: FakeNvml, name: str):
    def call(*_args):
        raise getattr(fake, name)()
    return call


# --------------------------------------------------------------------------- no NVML at all


def _unavailable_reasons(stack: AcceleratorStack, reason: Msg) -> None:
    assert stack.nvml_available is False
    assert stack.unknown["nvml"] == reason
    prefixed = Msg("NVML unavailable: " + reason.en, "NVML 不可用：" + reason.zh)
    assert stack.unknown["driver_version"] == prefixed
    assert stack.unknown["cuda_driver_version"] == prefixed


def test_module_missing_reason(install_nvml):
    install_nvml(None)
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []
    _unavailable_reasons(stack, Msg("nvidia-ml-py is not installed (Python module pynvml missing)",
                                    "未安装 nvidia-ml-py（缺少 Python 模块 pynvml）"))


def test_a_broken_install_that_raises_on_import(monkeypatch):
    class Broken:
        """A finder whose module raises while importing, as a half-installed package does."""

        def find_spec(self, name, path=None, target=None):
            if name == "pynvml":
                raise OSError("libnvidia-ml.so.1: wrong ELF class")
            return None

    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Broken(), *sys.meta_path])
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []
    _unavailable_reasons(stack, Msg("importing pynvml failed: libnvidia-ml.so.1: wrong ELF class",
                                    "导入 pynvml 失败：libnvidia-ml.so.1: wrong ELF class"))


def test_an_earlier_reason_for_the_driver_fields_is_kept(install_nvml):
    install_nvml(None)
    earlier = Msg("set by another probe", "由其他探测设置")
    stack = AcceleratorStack(unknown={"driver_version": earlier})
    probe_nvml(stack)
    assert stack.unknown["driver_version"] == earlier
    assert stack.unknown["cuda_driver_version"].en.startswith("NVML unavailable: ")


@pytest.mark.parametrize(("error", "en", "zh"), [
    ("NVMLError_LibraryNotFound",
     "NVIDIA driver library libnvidia-ml not found (no NVIDIA driver installed)",
     "找不到 NVIDIA 驱动库 libnvidia-ml（未安装 NVIDIA 驱动）"),
    ("NVMLError_DriverNotLoaded", "NVIDIA kernel driver is not loaded", "NVIDIA 内核驱动未加载"),
    ("NVMLError_NoPermission", "no permission to query the NVIDIA driver (NVML)",
     "没有查询 NVIDIA 驱动（NVML）的权限"),
    ("NVMLError_LibRmVersionMismatch",
     "NVML library and kernel driver versions differ (driver updated without a reboot?)",
     "NVML 库与内核驱动版本不一致（更新驱动后没有重启？）"),
    ("NVMLError_Unknown", "NVML failed to initialise (unknown error)",
     "NVML 初始化失败（未知错误）"),
])
def test_init_failure_reasons(install_nvml, error, en, zh):
    fake = FakeNvml([nvml_gpu(0)], init_error=error)
    # the fake has no LibRmVersionMismatch class; nvidia-ml-py does (NVML_ERROR_LIB_RM_VERSION
    # _MISMATCH = 18)
    fake.NVMLError_LibRmVersionMismatch = type("NVMLError_LibRmVersionMismatch",
                                               (fake.NVMLError,), {})
    install_nvml(fake)
    stack = AcceleratorStack()
    assert probe_nvml(stack) == []
    _unavailable_reasons(stack, Msg(en, zh))


def test_an_init_error_without_a_named_reason_quotes_nvml(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlInit = _raise(fake, "NVMLError_NotSupported")  # not in the reason table
    fake.NVMLError_NoPermission = None  # a binding without that class: skipped, not a crash
    install_nvml(fake)
    stack = AcceleratorStack()
    probe_nvml(stack)
    _unavailable_reasons(stack, Msg("NVML init failed: Not Supported",
                                    "NVML 初始化失败：Not Supported"))


def test_error_texts_that_fail_or_are_empty_or_long(install_nvml):
    class Unprintable(Exception):
        def __str__(self) -> str:  # NVMLError.__str__ calls back into the library
            raise RuntimeError("library gone")

    for exc, shown in ((Unprintable(), "Unprintable"), (RuntimeError(""), "RuntimeError"),
                       (RuntimeError("x" * 250), "x" * 200)):  # at most 200 characters
        fake = FakeNvml([nvml_gpu(0)])

        def init(exc=exc):
            raise exc

        fake.nvmlInit = init
        install_nvml(fake)
        stack = AcceleratorStack()
        probe_nvml(stack)
        assert stack.unknown["nvml"] == Msg(f"NVML init failed: {shown}",
                                            f"NVML 初始化失败：{shown}")


# --------------------------------------------------------------------------- system calls


def test_a_call_missing_from_an_old_binding(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlSystemGetCudaDriverVersion_v2 = None  # added in nvidia-ml-py 11.x
    install_nvml(fake)
    stack = AcceleratorStack()
    [gpu] = probe_nvml(stack)
    assert stack.cuda_driver_version is None and stack.driver_version == "550.54.15"
    assert stack.unknown["cuda_driver_version"] == Msg(
        "nvmlSystemGetCudaDriverVersion_v2 missing from this nvidia-ml-py (too old)",
        "此 nvidia-ml-py 版本没有 nvmlSystemGetCudaDriverVersion_v2（版本太旧）")


def test_a_failing_call_names_itself_in_both_languages(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlSystemGetDriverVersion = _raise(fake, "NVMLError_NoPermission")
    install_nvml(fake)
    stack = AcceleratorStack()
    probe_nvml(stack)
    assert stack.driver_version is None
    assert stack.unknown["driver_version"] == Msg(
        "nvmlSystemGetDriverVersion: Insufficient Permissions",
        "nvmlSystemGetDriverVersion 调用失败：Insufficient Permissions")
    assert stack.cuda_driver_version == "12.4"  # 12040 = 1000 x 12 + 10 x 4


def test_driver_text_as_str_or_undecodable_bytes(install_nvml):
    fake = FakeNvml([nvml_gpu(0, name="NVIDIA L4", uuid=b"GPU-\xff")])
    fake.nvmlSystemGetDriverVersion = lambda: "535.104.05"  # newer bindings return str
    fake.nvmlSystemGetCudaDriverVersion_v2 = lambda: 12020.0  # a float is read as an int
    install_nvml(fake)
    stack = AcceleratorStack()
    [gpu] = probe_nvml(stack)
    assert stack.driver_version == "535.104.05" and stack.cuda_driver_version == "12.2"
    assert gpu.name == "NVIDIA L4"
    assert gpu.uuid == "GPU-\ufffd"  # invalid UTF-8 replaced, not raised


def test_no_count_means_no_gpus(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlDeviceGetCount = _raise(fake, "NVMLError_Unknown")
    install_nvml(fake)
    stack = AcceleratorStack()
    assert probe_nvml(stack) == [] and stack.nvml_available is True
    assert stack.unknown["gpu_count"] == Msg("nvmlDeviceGetCount: Unknown Error",
                                             "nvmlDeviceGetCount 调用失败：Unknown Error")
    assert fake.shutdowns == 1


def test_a_failing_shutdown_keeps_the_answer(install_nvml):
    fake = FakeNvml([nvml_gpu(0), nvml_gpu(1)])
    fake.nvmlShutdown = _raise(fake, "NVMLError_Unknown")
    install_nvml(fake)
    assert [g.index for g in probe_nvml(AcceleratorStack())] == [0, 1]


# --------------------------------------------------------------------------- per GPU


def test_a_gpu_without_a_handle_says_why_and_the_next_one_is_read(install_nvml):
    fake = FakeNvml([nvml_gpu(0), nvml_gpu(1, name=b"NVIDIA H100 PCIe")])
    real = fake.nvmlDeviceGetHandleByIndex

    def handle(index):
        if index == 0:
            raise fake.NVMLError_NoPermission()
        return real(index)

    fake.nvmlDeviceGetHandleByIndex = handle
    install_nvml(fake)
    first, second = probe_nvml(AcceleratorStack())
    failed = Msg("nvmlDeviceGetHandleByIndex: Insufficient Permissions",
                 "nvmlDeviceGetHandleByIndex 调用失败：Insufficient Permissions")
    assert first.unknown == {"handle": failed,
                             "name": Msg("no NVML handle: " + failed.en,
                                         "无法取得 NVML 句柄：" + failed.zh)}
    assert (first.index, first.vendor, first.sources, first.name) == (0, "NVIDIA", ["nvml"], None)
    assert (second.index, second.name) == (1, "NVIDIA H100 PCIe")


def test_every_field_of_one_gpu(install_nvml):
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(
        0, name=b"NVIDIA GeForce RTX 4090", total=25757220864, cc=(8, 9), gen_now=1, gen_max=4,
        width_now=8, width_max=16, power_mw=312500, sm=128, mig="NVMLError_NotSupported"))
    assert gpu.name == "NVIDIA GeForce RTX 4090" and gpu.uuid == (
        "GPU-00000000-1111-2222-3333-444455556666")
    assert gpu.vram_total_bytes == 25757220864  # the 4090's 24 GiB less the reserved part
    assert gpu.vram_free_bytes == 25757220864 - 1024**3  # the fake has 1 GiB in use
    assert gpu.compute_capability == "8.9"
    assert gpu.sm_count == 128
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max) == (1, 4)
    assert (gpu.pcie_width_current, gpu.pcie_width_max) == (8, 16)
    assert gpu.power_limit_w == 312.5  # 312,500 mW
    assert gpu.mig_enabled is False  # no MIG support: not in MIG mode
    assert gpu.nvlinks == [] and gpu.unknown == {}


def test_no_memory_answer_leaves_both_sizes_unknown_with_one_reason(install_nvml):
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, total="NVMLError_NoPermission"))
    why = Msg("nvmlDeviceGetMemoryInfo: Insufficient Permissions",
              "nvmlDeviceGetMemoryInfo 调用失败：Insufficient Permissions")
    assert gpu.unknown["vram_total_bytes"] == why and gpu.unknown["vram_free_bytes"] == why
    assert gpu.vram_total_bytes is None and gpu.vram_free_bytes is None


def test_one_failing_pcie_call_leaves_only_that_field_unknown(install_nvml):
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, width_now="NVMLError_NotSupported"))
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_max) == (1, 4, 16)
    assert gpu.pcie_width_current is None
    assert gpu.unknown["pcie_width_current"] == Msg(
        "nvmlDeviceGetCurrPcieLinkWidth: Not Supported",
        "nvmlDeviceGetCurrPcieLinkWidth 调用失败：Not Supported")
    assert not {"pcie_gen_current", "pcie_gen_max", "pcie_width_max"} & set(gpu.unknown)


def test_power_limits_enforced_first_then_management_then_a_reason(install_nvml):
    fake = FakeNvml([nvml_gpu(0, power_mw=250000)])
    fake.nvmlDeviceGetEnforcedPowerLimit = lambda handle: 200000  # a user cap below 250 W
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.power_limit_w == 200.0

    fake = FakeNvml([nvml_gpu(0, power_mw="NVMLError_NotSupported")])
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.power_limit_w is None
    # both calls failed: the second one's reason is the one kept
    assert gpu.unknown["power_limit_w"] == Msg(
        "nvmlDeviceGetPowerManagementLimit: Not Supported",
        "nvmlDeviceGetPowerManagementLimit 调用失败：Not Supported")


def test_sm_count_reasons(install_nvml):
    tail = Msg("); torch's multi_processor_count gives it when torch is probed",
               "）；探测 torch 时由其 multi_processor_count 给出")

    def reason(detail: Msg) -> Msg:
        return Msg("NVML reports SMs only for MIG devices (", "NVML 只为 MIG 设备报告 SM 数量（"
                   ) + detail + tail

    _, _, [call_failed] = _probe(install_nvml, nvml_gpu(0))  # the fake: NotSupported
    assert call_failed.sm_count is None
    assert call_failed.unknown["sm_count"] == reason(Msg(
        "nvmlDeviceGetAttributes: Not Supported",
        "nvmlDeviceGetAttributes 调用失败：Not Supported"))

    no_count = Msg("no multiprocessorCount in the answer", "返回结果中没有 multiprocessorCount")
    for answer in (0, None, "132"):  # zero, missing, not an int
        _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, sm=answer))
        assert gpu.sm_count is None and gpu.unknown["sm_count"] == reason(no_count), answer
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlDeviceGetAttributes = lambda handle: types.SimpleNamespace()
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.unknown["sm_count"] == reason(no_count)

    _, _, [one] = _probe(install_nvml, nvml_gpu(0, sm=1))  # the smallest real count
    assert one.sm_count == 1 and "sm_count" not in one.unknown


def test_mig_mode_current_not_pending(install_nvml):
    enable = real_pynvml.NVML_DEVICE_MIG_ENABLE  # 1 in nvidia-ml-py
    _, _, [pending_on] = _probe(install_nvml, nvml_gpu(0, mig=[0, enable]))
    assert pending_on.mig_enabled is False  # enabled after the next reset only
    _, _, [on] = _probe(install_nvml, nvml_gpu(0, mig=(enable, 0)))
    assert on.mig_enabled is True


def test_mig_enable_value_defaults_to_nvmls_one(install_nvml, monkeypatch):
    monkeypatch.delattr(FakeNvml, "NVML_DEVICE_MIG_ENABLE")
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, mig=[1, 1]))
    assert gpu.mig_enabled is True
    _, _, [off] = _probe(install_nvml, nvml_gpu(0, mig=[0, 0]))
    assert off.mig_enabled is False


def test_a_mig_error_other_than_not_supported_is_a_reason(install_nvml):
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, mig="NVMLError_NoPermission"))
    assert gpu.mig_enabled is None
    assert gpu.unknown["mig_enabled"] == Msg(
        "nvmlDeviceGetMigMode: Insufficient Permissions",
        "nvmlDeviceGetMigMode 调用失败：Insufficient Permissions")


# --------------------------------------------------------------------------- NVLink


def test_nvlink_versions_from_the_bindings_enum(install_nvml):
    """nvidia-ml-py's NVML_NVLINK_VERSION_<major>_<minor> constants name the major version."""
    enums = {value: int(name.split("_")[3]) for name, value in vars(real_pynvml).items()
             if name.startswith("NVML_NVLINK_VERSION_") and name != "NVML_NVLINK_VERSION_INVALID"}
    assert enums == {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 5, 8: 6}  # 1.0 2.0 2.2 3.0 ... 6.0
    for enum, major in enums.items():
        _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, links=1, link_version=enum))
        assert [(link.link, link.version) for link in gpu.nvlinks] == [(0, major)]
    for enum in (0, 9):  # INVALID, and one newer than this table
        _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, links=1, link_version=enum))
        assert gpu.nvlinks[0].version is None


def test_inactive_links_and_a_failing_version_call(install_nvml):
    fake = FakeNvml([nvml_gpu(0, links=3)])
    fake.nvmlDeviceGetNvLinkState = lambda handle, link: (
        fake._raise("NVMLError_NotSupported") if link >= 3 else [1, 0, 1][link])

    def version(handle, link):
        if link == 1:
            raise fake.NVMLError_NotSupported()  # an inactive link has no version
        return 6

    fake.nvmlDeviceGetNvLinkVersion = version
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert [(link.link, link.active, link.version) for link in gpu.nvlinks] == [
        (0, True, 4), (1, False, None), (2, True, 4)]
    assert "nvlinks" not in gpu.unknown


def test_the_walk_stops_at_invalid_argument_too(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlDeviceGetNvLinkState = lambda handle, link: (
        fake._raise("NVMLError_InvalidArgument") if link >= 2 else 1)
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert len(gpu.nvlinks) == 2 and "nvlinks" not in gpu.unknown


def test_a_link_error_names_the_link_and_keeps_the_links_before_it(install_nvml):
    fake = FakeNvml([nvml_gpu(0)])
    fake.nvmlDeviceGetNvLinkState = lambda handle, link: (
        fake._raise("NVMLError_Unknown") if link == 2 else 1)
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert [link.link for link in gpu.nvlinks] == [0, 1]
    assert gpu.unknown["nvlinks"] == Msg("nvmlDeviceGetNvLinkState(2): Unknown Error",
                                         "nvmlDeviceGetNvLinkState(2) 调用失败：Unknown Error")


def test_the_walk_asks_at_most_the_bindings_link_count(install_nvml, monkeypatch):
    # An H100 SXM has 18 links; the fake answers for as many as asked.
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, links=40))
    assert len(gpu.nvlinks) == FakeNvml.NVML_NVLINK_MAX_LINKS == 18
    monkeypatch.setattr(FakeNvml, "NVML_NVLINK_MAX_LINKS", 36)  # nvidia-ml-py 12.x's value
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, links=40))
    assert len(gpu.nvlinks) == 36
    monkeypatch.delattr(FakeNvml, "NVML_NVLINK_MAX_LINKS")  # an old binding: 18
    _, _, [gpu] = _probe(install_nvml, nvml_gpu(0, links=40))
    assert len(gpu.nvlinks) == 18


def test_a_binding_without_the_not_supported_class(install_nvml):
    fake = FakeNvml([nvml_gpu(0, mig="NVMLError_NoPermission")])
    del fake.NVMLError_NotSupported  # an old or trimmed binding: the class is not there
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())  # no AttributeError
    assert gpu.unknown["mig_enabled"].en == "nvmlDeviceGetMigMode: Insufficient Permissions"


def test_a_function_the_binding_does_not_have_at_all(install_nvml, monkeypatch):
    monkeypatch.delattr(FakeNvml, "nvmlSystemGetCudaDriverVersion_v2")
    install_nvml(FakeNvml([nvml_gpu(0)]))
    stack = AcceleratorStack()
    [gpu] = probe_nvml(stack)  # no AttributeError
    assert stack.unknown["cuda_driver_version"].en == (
        "nvmlSystemGetCudaDriverVersion_v2 missing from this nvidia-ml-py (too old)")


def test_a_power_limit_read_on_the_second_try_leaves_no_reason_behind(install_nvml):
    fake = FakeNvml([nvml_gpu(0, power_mw=350000, sm=84)])  # SMs answered: no reason there
    fake.nvmlDeviceGetEnforcedPowerLimit = _raise(fake, "NVMLError_NotSupported")
    install_nvml(fake)
    [gpu] = probe_nvml(AcceleratorStack())
    assert gpu.power_limit_w == 350.0
    assert gpu.unknown == {}  # the first call's reason is dropped, under no other key
