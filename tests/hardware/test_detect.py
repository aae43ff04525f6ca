"""detect(): guards, the real machine, JSON round-trip, torch kept out, and the text summary."""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from hwfakes import FakeNvml, TorchUuid, fake_torch, nvml_gpu

import torchrig
from torchrig.errors import InputError
from torchrig.hardware import SystemProfile, detect, format_profile_text
from torchrig.hardware import detection as detect_module
from torchrig.hardware.detection import NO_REASON
from torchrig.hardware.sections import profile_sections
from torchrig.i18n import Msg

_SKIP = {"unknown", "catalog_id", "index", "sources", "nvlinks"}


def _missing_without_reason(profile: SystemProfile) -> list[str]:
    """Every None field must have a reason in its component's ``unknown``."""
    components = [("cpu", profile.cpu), ("memory", profile.memory),
                  ("accelerator", profile.accelerator), ("software", profile.software)]
    components += [(f"disks[{i}]", d) for i, d in enumerate(profile.disks)]
    components += [(f"gpus[{i}]", g) for i, g in enumerate(profile.gpus)]  # fmt: skip
    bad = []
    for where, component in components:
        for field in dataclasses.fields(component):
            if field.name in _SKIP or getattr(component, field.name) is not None:
                continue
            reason = component.unknown.get(field.name)
            if not reason or reason == NO_REASON:
                bad.append(f"{where}.{field.name}")
    return bad


def test_real_machine_matches_psutil_and_os(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    profile = detect()
    assert profile.probe_errors == {}
    assert profile.cpu.logical_cpus == os.cpu_count()
    assert profile.memory.total_bytes == psutil.virtual_memory().total
    ours = {d.mountpoint for d in profile.disks} | {d.device for d in profile.disks}
    for part in psutil.disk_partitions(all=False):
        if os.path.isdir(part.mountpoint) and part.fstype not in ("squashfs", "iso9660"):
            assert part.mountpoint in ours or part.device in ours
    assert _missing_without_reason(profile) == []
    created = datetime.datetime.fromisoformat(profile.created or "")
    assert created.utcoffset() == datetime.timedelta(0)
    assert profile.hostname
    assert profile.detection_seconds is not None and 0 < profile.detection_seconds < 5
    if not profile.gpus:
        assert profile.accelerator.unknown["gpus"].en


def test_every_probe_raising_still_gives_a_profile(monkeypatch):
    def boom(*_args, **_kwargs):
        raise RuntimeError("probe exploded")

    for module, name in [
        (detect_module.cpu, "probe_cpu"),
        (detect_module.memory, "probe_memory"),
        (detect_module.storage, "probe_storage"),
        (detect_module.software, "probe_software"),
        (detect_module.gpu_nvml, "probe_nvml"),
        (detect_module.gpu_torch, "probe_torch"),
        (detect_module.merge, "merge_gpus"),
        (detect_module.socket, "gethostname"),
    ]:
        monkeypatch.setattr(module, name, boom)
    profile = detect(use_torch=True)
    assert set(profile.probe_errors) == {
        "cpu", "memory", "storage", "software", "nvml", "torch", "gpu_merge", "hostname",
    }  # fmt: skip
    assert all("probe exploded" in why for why in profile.probe_errors.values())
    assert profile.cpu.unknown["model_name"].en.startswith("CPU probe failed")
    assert profile.memory.unknown["total_bytes"].en.startswith("memory probe failed")
    assert profile.accelerator.nvml_available is False
    assert "NVML probe failed" in profile.accelerator.unknown["nvml"].en
    assert "torch probe failed" in profile.accelerator.unknown["cuda_available"].en
    assert profile.gpus == [] and profile.disks == []
    assert profile.created and profile.detection_seconds is not None
    json.dumps(profile.to_dict(), allow_nan=False)  # still serialisable
    text = format_profile_text(profile)
    assert "probe exploded" in text


def _gpu_profile(install_nvml) -> SystemProfile:
    install_nvml(
        FakeNvml(
            [
                nvml_gpu(0, name=b"NVIDIA H100 80GB HBM3", cc=(9, 0), links=18, link_version=6,
                         mig=[0, 0], total=80 * 1024**3, gen_now=5, gen_max=5, power_mw=700000),
                nvml_gpu(1, name=b"NVIDIA H100 80GB HBM3", cc=(9, 0), links=18, link_version=6,
                         mig=[0, 0], total=80 * 1024**3, gen_now=1, gen_max=5, power_mw=700000),
            ]
        )
    )  # fmt: skip
    devices = [
        {"name": "NVIDIA H100 80GB HBM3", "total_memory": 80 * 1024**3, "major": 9, "minor": 0,
         "multi_processor_count": 132, "uuid": TorchUuid(nvml_gpu(i)["uuid"].decode())}
        for i in (1, 0)
    ]  # fmt: skip
    return detect(use_torch=True, torch_module=fake_torch(devices))


def test_gpus_merged_end_to_end(install_nvml):
    profile = _gpu_profile(install_nvml)
    assert profile.probe_errors == {}
    assert [g.torch_device for g in profile.gpus] == ["cuda:1", "cuda:0"]
    assert all(g.sm_count == 132 and len(g.nvlinks) == 18 for g in profile.gpus)
    assert profile.gpus[0].nvlinks[0].version == 4
    assert profile.accelerator.torch_loaded is True
    assert profile.accelerator.cuda_driver_version == "12.4"
    assert _missing_without_reason(profile) == []


def test_json_round_trip(install_nvml):
    profile = _gpu_profile(install_nvml)
    text = json.dumps(profile.to_dict(), allow_nan=False)
    again = SystemProfile.from_dict(json.loads(text))
    assert again == profile
    assert again.gpus[0].nvlinks[0] == profile.gpus[0].nvlinks[0]

    plain = detect()
    assert SystemProfile.from_dict(json.loads(json.dumps(plain.to_dict()))) == plain
    # Reasons are saved in both languages.
    saved = plain.to_dict()["software"]["unknown"]
    assert all(set(reason) == {"en", "zh"} for reason in saved.values())


def test_a_profile_saved_with_one_language_reasons_still_loads():
    """Profiles (and bench reports embedding them) written before reasons were bilingual
    stored plain English strings: they load, and read the same in either language."""
    old = {"format": "torchrig.system-profile", "version": 1,
           "cpu": {"max_freq_hz": None, "unknown": {"max_freq_hz": "no cpufreq (VM)"}},
           "disks": [{"mountpoint": "/", "kind": "ssd",
                      "kind_basis": "/sys/block/sda/queue/rotational = 0"}]}
    profile = SystemProfile.from_dict(old)
    assert profile.cpu.unknown["max_freq_hz"] == Msg("no cpufreq (VM)", "no cpufreq (VM)")
    assert profile.disks[0].kind_basis.zh == "/sys/block/sda/queue/rotational = 0"
    cpu_rows = {r.label: r.value for r in profile_sections(profile, "zh")[0].rows}
    assert cpu_rows["最高频率"] == "未知（no cpufreq (VM)）"


@pytest.mark.parametrize("bad", [5, {"zh": "只有中文"}, {"en": "x", "zh": 3}, ["x"]])
def test_a_malformed_reason_is_refused_with_its_place(bad):
    with pytest.raises(InputError, match=r"profile\.cpu(\.unknown\.vendor|: field 'unknown')"):
        SystemProfile.from_dict({"cpu": {"unknown": {"vendor": bad}}})


def test_nvml_switched_off(install_nvml):
    fake = install_nvml(FakeNvml([nvml_gpu(0)]))
    profile = detect(nvml=False)
    assert profile.gpus == [] and fake.shutdowns == 0
    assert profile.accelerator.unknown["nvml"].en == "NVML not queried (nvml=False)"


@pytest.mark.parametrize("use_nvml", [True, False])
def test_detect_does_not_import_torch(use_nvml):
    """Checked in a fresh interpreter: other tests in this process may have imported torch."""
    app_dir = str(Path(torchrig.__file__).resolve().parent.parent)
    code = (
        "import sys; from torchrig.hardware import detect; "
        f"p = detect(nvml={use_nvml}); "
        "print('torch' in sys.modules, 'PySide6' in sys.modules, p.cpu.logical_cpus)"
    )
    env = dict(os.environ, PYTHONPATH=app_dir + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
        check=True,
    )  # fmt: skip
    assert out.stdout.split() == ["False", "False", str(os.cpu_count())]


def test_text_summary_for_gpus(install_nvml):
    text = format_profile_text(_gpu_profile(install_nvml))
    for heading in ("CPU", "Memory", "GPU 0: NVIDIA H100 80GB HBM3", "Storage", "Software"):
        assert heading in text
    assert "downclock when idle" in text
    assert "GiB" in text and " GB" in text
    assert "cuda:1" in text


def test_text_summary_without_gpu_and_in_chinese(install_nvml):
    install_nvml(FakeNvml([], init_error="NVMLError_DriverNotLoaded"))
    profile = detect()
    text = format_profile_text(profile)
    assert "No GPU detected (NVIDIA kernel driver is not loaded" in text
    assert "unknown (" in text or not _any_unknown(profile)
    zh = format_profile_text(profile, lang="zh")
    assert "未检测到显卡" in zh and "内存" in zh and "存储" in zh
    assert "NVIDIA 内核驱动未加载" in zh and "kernel driver is not loaded" not in zh


def _any_unknown(profile: SystemProfile) -> bool:
    return bool(profile.cpu.unknown or profile.memory.unknown)
