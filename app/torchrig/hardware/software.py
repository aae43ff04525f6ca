"""Software probe: OS, kernel, Python and the versions of the libraries TorchRig leans on.

Library versions come from installed package metadata, never from importing the package:
importing torch alone takes seconds and would defeat fast detection.
"""

from __future__ import annotations

import os
import platform
from importlib import metadata

from torchrig.hardware.model import SoftwareInfo
from torchrig.hardware.sysfs import LINUX_ROOTS, FsRoots, read_text
from torchrig.i18n import Msg

# cgroup paths that name a container runtime.
_CONTAINER_HINTS = ("docker", "kubepods", "containerd", "libpod", "lxc", "crio")


def probe_software(roots: FsRoots = LINUX_ROOTS, *, system: str | None = None) -> SoftwareInfo:
    system = system or platform.system()
    info = SoftwareInfo(python_version=platform.python_version())
    if system == "Linux":
        _os_linux(info, roots)
        info.kernel = platform.release() or None
        info.in_container = _in_container(roots)
    elif system == "Darwin":
        info.os_name = "macOS"
        info.os_version = platform.mac_ver()[0] or None
        info.kernel = f"Darwin {platform.release()}" if platform.release() else None
        info.unknown["in_container"] = Msg("not checked on macOS", "在 macOS 上不检查")
    elif system == "Windows":
        info.os_name = "Windows"
        info.os_version = platform.release() or None  # "10", "11"
        info.kernel = platform.version() or None  # build number, e.g. "10.0.22631"
        info.unknown["in_container"] = Msg("not checked on Windows", "在 Windows 上不检查")
    else:
        info.os_name = system or None
        info.os_version = platform.release() or None
        info.unknown["in_container"] = (
            Msg(f"not checked on {system}", f"在 {system} 上不检查") if system
            else Msg("not checked on this OS", "在此操作系统上不检查"))
    for name in ("os_name", "os_version", "kernel"):
        if getattr(info, name) is None and name not in info.unknown:
            info.unknown[name] = Msg("not reported by the platform module",
                                     "platform 模块没有报告")

    info.torch_version = _dist_version(info, "torch_version", ("torch",))
    info.pyside6_version = _dist_version(
        info, "pyside6_version", ("PySide6", "PySide6-Essentials"))
    info.nvml_library = _dist_version(info, "nvml_library", ("nvidia-ml-py",))
    if info.nvml_library is None and _has_dist("pynvml"):
        info.unknown["nvml_library"] += Msg(
            " (only the deprecated 'pynvml' shim is; install nvidia-ml-py)",
            "（只安装了已弃用的 pynvml 兼容包；请安装 nvidia-ml-py）")
    return info


def _os_linux(info: SoftwareInfo, roots: FsRoots) -> None:
    got = read_text(roots.etc / "os-release")
    if got.text is None:
        got = read_text(roots.root / "usr/lib/os-release")
    fields = parse_os_release(got.text or "")
    info.os_name = fields.get("NAME") or "Linux"
    info.os_version = fields.get("VERSION") or fields.get("VERSION_ID") or None
    if info.os_version is None:
        info.unknown["os_version"] = got.reason or Msg(
            "os-release has no VERSION (rolling release?)",
            "os-release 中没有 VERSION（滚动发行版？）")


def parse_os_release(text: str) -> dict[str, str]:
    """``KEY="value"`` lines of os-release(5); quotes and comments handled, nothing executed."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[key.strip()] = value.replace('\\"', '"')
    return fields


def _in_container(roots: FsRoots) -> bool:
    # os.path.exists, not Path.exists: an unreadable root means "no marker", not a crash.
    markers = (roots.root / ".dockerenv", roots.root / "run/.containerenv")
    if any(os.path.exists(marker) for marker in markers):
        return True
    cgroup = read_text(roots.proc / "1/cgroup").text or ""
    if any(hint in cgroup for hint in _CONTAINER_HINTS):
        return True
    # systemd's convention: container managers write their name to /run/systemd/container.
    return bool(read_text(roots.root / "run/systemd/container").text)


def _dist_version(info: SoftwareInfo, field: str, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` that is installed (the project name first: it is the one a
    user would install)."""
    for name in names:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        except Exception as exc:  # broken metadata must not break detection
            info.unknown[field] = Msg(f"metadata for {name} unreadable: {exc}",
                                      f"{name} 的包元数据无法读取：{type(exc).__name__}")
            return None
    info.unknown[field] = Msg(f"{names[0]} is not installed", f"未安装 {names[0]}")
    return None


def _has_dist(name: str) -> bool:
    try:
        metadata.version(name)
    except Exception:
        return False
    return True
