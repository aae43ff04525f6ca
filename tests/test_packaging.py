"""Packaging: one application id everywhere, icons of the sizes they claim, the install script,
resource lookup in every layout, and the bundle's entry script.

The desktop-file and AppStream validators are Linux tools a CI image may lack; those two tests
skip (naming the missing tool) rather than pass without checking anything.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest

import torchrig
from torchrig import resources
from torchrig.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
LINUX = ROOT / "packaging" / "linux"
APP_ID = torchrig.APP_ID
DESKTOP = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
HICOLOR = LINUX / "icons" / "hicolor"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

needs_bash = pytest.mark.skipif(
    os.name == "nt" or shutil.which("bash") is None, reason="install.sh needs bash (Linux)"
)


def _desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which the PNG spec requires to come first."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR", f"{path}: first chunk is not IHDR"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


# --- one application id -----------------------------------------------------------------------


def test_app_id_is_reverse_dns() -> None:
    parts = APP_ID.split(".")
    assert len(parts) >= 3 and all(parts), APP_ID
    assert all(part.replace("_", "").isalnum() for part in parts), APP_ID


def test_desktop_file_uses_the_app_id() -> None:
    assert DESKTOP.is_file()
    entry = _desktop_entry(DESKTOP)
    assert entry["Icon"] == APP_ID
    assert entry["Type"] == "Application"
    assert entry["Exec"].split()[0] == "torchrig"
    assert entry["GenericName[zh_CN]"] and entry["Comment[zh_CN]"]


def test_metainfo_uses_the_app_id_and_current_version() -> None:
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert root.findtext("icon[@type='stock']") == APP_ID
    newest = root.find("releases/release")
    assert newest is not None and newest.get("version") == torchrig.__version__


def test_metainfo_is_bilingual_with_the_asked_categories() -> None:
    root = ET.parse(METAINFO).getroot()
    for tag in ("name", "summary"):
        langs = {el.get(XML_LANG) for el in root.findall(tag)}
        assert {None, "zh_CN"} <= langs, f"<{tag}> needs en and zh_CN"
    paragraphs = root.findall("description/p")
    assert {p.get(XML_LANG) for p in paragraphs} >= {None, "zh_CN"}
    assert [c.text for c in root.findall("categories/category")] == ["Science", "Development"]
    # AppStream wants absolute public URLs for screenshots; there are none yet.
    assert root.find("screenshots") is None


def test_icon_files_are_named_after_the_app_id() -> None:
    names = {p.name for p in HICOLOR.rglob("*") if p.is_file()}
    assert names == {f"{APP_ID}.png", f"{APP_ID}.svg"}


# --- icons ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ICON_SIZES)
def test_hicolor_png_has_its_folder_size(size: int) -> None:
    path = HICOLOR / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
    assert path.is_file(), path
    assert _png_size(path) == (size, size)


def test_no_hicolor_size_without_a_test() -> None:
    folders = {p.name for p in HICOLOR.iterdir() if p.is_dir()}
    assert folders == {f"{s}x{s}" for s in ICON_SIZES} | {"scalable"}


def test_scalable_icon_is_the_app_icon() -> None:
    scalable = HICOLOR / "scalable" / "apps" / f"{APP_ID}.svg"
    assert scalable.read_bytes() == (ROOT / "resources" / "icons" / "torchrig.svg").read_bytes()


# --- validators (skip when the tool is not installed) -----------------------------------------


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} not installed (Debian/Ubuntu: apt-get install {package})")
    return path


def test_desktop_file_validates() -> None:
    tool = _tool("desktop-file-validate", "desktop-file-utils")
    done = subprocess.run([tool, str(DESKTOP)], capture_output=True, text=True, timeout=30)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "error:" not in report and "warning:" not in report, report


def test_metainfo_validates() -> None:
    tool = _tool("appstreamcli", "appstream")
    done = subprocess.run([tool, "validate", "--no-net", str(METAINFO)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


# --- install.sh -------------------------------------------------------------------------------


def _install(*args: str, destdir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DESTDIR": str(destdir)}
    return subprocess.run(["bash", str(LINUX / "install.sh"), *args], capture_output=True,
                          text=True, env=env, timeout=60)


@needs_bash
def test_install_sh_puts_every_file_in_place_and_uninstall_removes_them(tmp_path: Path) -> None:
    done = _install("/usr", destdir=tmp_path)
    assert done.returncode == 0, done.stderr
    share = tmp_path / "usr" / "share"
    desktop = share / "applications" / DESKTOP.name
    assert desktop.read_bytes() == DESKTOP.read_bytes()
    assert (share / "metainfo" / METAINFO.name).read_bytes() == METAINFO.read_bytes()
    for size in ICON_SIZES:
        icon = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert _png_size(icon) == (size, size)
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()

    done = _install("--uninstall", "/usr", destdir=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


@needs_bash
def test_install_sh_exec_points_the_menu_entry_at_a_program(tmp_path: Path) -> None:
    done = _install("--exec", "/opt/venv/bin/torchrig", "/usr", destdir=tmp_path)
    assert done.returncode == 0, done.stderr
    entry = _desktop_entry(tmp_path / "usr" / "share" / "applications" / DESKTOP.name)
    assert entry["Exec"] == entry["TryExec"] == "/opt/venv/bin/torchrig"
    assert entry["Icon"] == APP_ID


@needs_bash
def test_install_sh_installs_a_bundle_with_launchers(tmp_path: Path) -> None:
    bundle = tmp_path / "dist" / "torchrig"
    (bundle / "_internal").mkdir(parents=True)
    for name in ("torchrig", "torchrig-cli"):
        exe = bundle / name
        exe.write_text("#!/bin/sh\necho bundle-ok\n")
        exe.chmod(0o755)
    stage = tmp_path / "stage"
    done = _install("--bundle", str(bundle), "/opt/tr", destdir=stage)
    assert done.returncode == 0, done.stderr
    launcher = stage / "opt" / "tr" / "bin" / "torchrig"
    assert os.readlink(launcher) == "../lib/torchrig/torchrig"
    out = subprocess.run([str(launcher)], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "bundle-ok"
    entry = _desktop_entry(stage / "opt" / "tr" / "share" / "applications" / DESKTOP.name)
    assert entry["Exec"] == "/opt/tr/bin/torchrig"


@needs_bash
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("relative/prefix",), "absolute path"),
        (("--bundle", "/nonexistent", "/usr"), "not a PyInstaller build"),
        (("--exec", "bin/torchrig", "/usr"), "absolute path"),
        (("--exec", "/my apps/torchrig", "/usr"), "spaces or quotes"),
        ((), "usage"),
    ],
)
def test_install_sh_refuses_bad_arguments(tmp_path: Path, args: tuple[str, ...],
                                          message: str) -> None:
    done = _install(*args, destdir=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr.lower() or message in done.stderr
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


# --- resources_dir() --------------------------------------------------------------------------


@pytest.fixture
def no_override(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """No $TORCHRIG_RESOURCES, and the remembered built-in folder forgotten before and after:
    these tests rearrange the layouts themselves."""
    monkeypatch.delenv(resources.RESOURCES_ENV, raising=False)
    resources.forget_resources_dir()
    yield monkeypatch
    monkeypatch.undo()
    resources.forget_resources_dir()


def _fake_resources(folder: Path) -> Path:
    (folder / "catalog").mkdir(parents=True)
    (folder / "catalog" / "sources.json").write_text("{}")
    return folder


def test_resources_dir_finds_the_catalog_in_the_checkout(no_override: pytest.MonkeyPatch) -> None:
    found = resources.resources_dir()
    assert found == ROOT / "resources"
    assert (found / "catalog" / "sources.json").is_file()
    assert (found / "tiers.json").is_file()


def test_resources_dir_honours_the_environment(no_override: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    no_override.setenv(resources.RESOURCES_ENV, str(tmp_path))
    assert resources.resources_dir() == tmp_path


def test_bundle_resources_come_before_the_checkout(no_override: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    bundled = _fake_resources(tmp_path / "resources")
    no_override.setattr(sys, "frozen", True, raising=False)
    no_override.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources.resources_dir() == bundled


def _fake_wheel_install(site: Path) -> metadata.Distribution:
    """A dist-info whose RECORD lists the resources as wheel data files (``../share/...``
    relative to site-packages), as pip writes it."""
    info = site / "torchrig-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torchrig\nVersion: 0.1.0\n")
    (info / "RECORD").write_text(
        "torchrig/__init__.py,,\n../share/torchrig/resources/catalog/sources.json,,\n"
    )
    _fake_resources(site.parent / "share" / "torchrig" / "resources")
    return metadata.PathDistribution(info)


def test_installed_wheel_resources_are_found_through_the_record(
        no_override: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dist = _fake_wheel_install(tmp_path / "site-packages")
    no_override.setattr(resources, "__file__", str(tmp_path / "site-packages" / "torchrig"
                                                  / "resources.py"))
    no_override.setattr(metadata, "distribution", lambda name: dist)
    assert resources.resources_dir() == tmp_path / "share" / "torchrig" / "resources"


def test_missing_resources_name_every_place_looked(no_override: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    no_override.setattr(resources, "__file__", str(tmp_path / "a" / "b" / "resources.py"))

    def not_installed(name: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(name)

    no_override.setattr(metadata, "distribution", not_installed)
    with pytest.raises(InputError) as info:
        resources.resources_dir()
    assert str(tmp_path / "resources") in str(info.value)
    assert resources.RESOURCES_ENV in str(info.value)
    assert resources.app_icon_path() is None


def test_app_icon_is_found_in_the_checkout(no_override: pytest.MonkeyPatch) -> None:
    icon = resources.app_icon_path()
    assert icon is not None and icon.suffix == ".svg" and icon.is_file()


# --- PyInstaller entry script -----------------------------------------------------------------


@pytest.fixture(scope="module")
def launch() -> ModuleType:
    spec = importlib.util.spec_from_file_location("torchrig_launch",
                                                  ROOT / "packaging" / "launch.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # torchrun's worker command line, then torchrun itself as collective.launch starts it
        (["-u", "-m", "torchrig.bench.collective", "--ops", "all_reduce"],
         ("torchrig.bench.collective", ["--ops", "all_reduce"], True)),
        (["-m", "torch.distributed.run", "--nnodes", "1"],
         ("torch.distributed.run", ["--nnodes", "1"], False)),
        (["-m", "torchrig.bench"], ("torchrig.bench", [], False)),
        # not a module run, or a module the bundle does not offer: the normal entry point
        (["detect", "--json"], None),
        (["-m"], None),
        (["-u"], None),
        ([], None),
        (["-m", "os"], None),
        (["-m", "torch.distributed.runner"], None),
        (["-m", "torchrigx.evil"], None),
    ],
)
def test_bundle_accepts_python_m_only_for_benchmark_modules(
        launch: ModuleType, argv: list[str], expected: object) -> None:
    assert launch.module_invocation(argv) == expected


def test_spec_file_is_valid_python() -> None:
    source = (ROOT / "packaging" / "torchrig.spec").read_text(encoding="utf-8")
    compile(source, "torchrig.spec", "exec")
    assert "TORCHRIG_PACKAGE_TORCH" in source
