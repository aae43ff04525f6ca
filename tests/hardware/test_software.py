"""Software probe: os-release, container hints, versions from metadata (no imports)."""

from __future__ import annotations

import platform
import sys
from importlib import metadata

from torchrig.hardware.software import parse_os_release, probe_software

OS_RELEASE = '''PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
# a comment
ID=ubuntu
'''


def test_os_release_and_container_hints(tree):
    tree.write("etc/os-release", OS_RELEASE)
    tree.write("proc/1/cgroup", "0::/\n")
    info = probe_software(tree.roots, system="Linux")
    assert (info.os_name, info.os_version) == ("Ubuntu", "22.04.4 LTS (Jammy Jellyfish)")
    assert info.in_container is False
    assert info.python_version == platform.python_version()

    tree.write("proc/1/cgroup", "12:cpu:/kubepods/burstable/pod1/abc\n")
    assert probe_software(tree.roots, system="Linux").in_container is True


def test_container_marker_files(tree):
    tree.write("etc/os-release", OS_RELEASE)
    tree.write("run/.containerenv", "")
    assert probe_software(tree.roots, system="Linux").in_container is True


def test_missing_os_release(tree):
    info = probe_software(tree.roots, system="Linux")
    assert info.os_name == "Linux"
    assert info.os_version is None and "os-release" in info.unknown["os_version"].en


def test_parse_os_release_quotes():
    fields = parse_os_release("NAME='Arch Linux'\nBUILD_ID=rolling\nBAD LINE\n")
    assert fields == {"NAME": "Arch Linux", "BUILD_ID": "rolling"}


def test_versions_come_from_metadata_without_importing(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    info = probe_software()
    assert info.nvml_library == metadata.version("nvidia-ml-py")
    try:
        expected = metadata.version("torch")
    except metadata.PackageNotFoundError:
        expected = None
    assert info.torch_version == expected
    assert "torch" not in sys.modules


def test_missing_distribution_has_a_reason(monkeypatch):
    real = metadata.version

    def version(name: str) -> str:
        if name == "nvidia-ml-py":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)
    info = probe_software(system="Windows")
    assert info.nvml_library is None
    assert "nvidia-ml-py is not installed" in info.unknown["nvml_library"].en
    assert info.os_name == "Windows"
    assert info.unknown["in_container"].en == "not checked on Windows"
