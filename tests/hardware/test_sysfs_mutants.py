"""Kernel-file helpers and the PCIe rate table, exact values for every branch (mutation
testing, issue 28). Sources: the kernel's cpu-list syntax (Documentation/admin-guide/
kernel-parameters.rst, "cpu lists", including the ``:stride`` form), sysfs cache sizes
("32K"), /proc/mounts octal escapes, and docs/hardware-sources.md sec. 3 for PCIe lane rates.
"""

from __future__ import annotations

import errno

import pytest

from torchrig.hardware import sysfs
from torchrig.hardware.pcie import LANE_BYTES_PER_S, link_bytes_per_s
from torchrig.hardware.sysfs import (
    FsRoots,
    list_dir,
    parse_cpu_list,
    parse_size,
    read_bytes,
    read_int,
    read_text,
    unescape_mount_field,
    unreadable,
)
from torchrig.i18n import Msg


def test_fs_roots_default_and_under(tmp_path):
    roots = FsRoots()
    assert (roots.proc, roots.sys, roots.etc, roots.root) == (
        sysfs.Path("/proc"), sysfs.Path("/sys"), sysfs.Path("/etc"), sysfs.Path("/"))
    fake = FsRoots.under(tmp_path)
    assert (fake.proc, fake.sys, fake.etc, fake.root) == (
        tmp_path / "proc", tmp_path / "sys", tmp_path / "etc", tmp_path)


def test_read_text_strips_and_replaces_bad_utf8(tmp_path):
    (tmp_path / "f").write_bytes(b"  caf\xe9 \n")
    got = read_text(tmp_path / "f")
    assert got.text == "caf\ufffd" and got.reason is None and got.ok is True
    assert read_text(tmp_path / "none").ok is False


def test_read_text_reads_at_most_max_bytes(tmp_path):
    (tmp_path / "f").write_text("abcdef")
    assert read_text(tmp_path / "f", max_bytes=3).text == "abc"
    data, reason = read_bytes(tmp_path / "f", max_bytes=4)
    assert (data, reason) == (b"abcd", None)


def test_read_text_default_limit_is_one_mebibyte(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * ((1 << 20) + 5))
    assert len(read_text(tmp_path / "f").text) == 1 << 20
    data, _ = read_bytes(tmp_path / "f")
    assert len(data) == 1 << 20


def test_unreadable_reasons(tmp_path):
    p = tmp_path / "attr"
    assert unreadable(p, FileNotFoundError()) == Msg(f"{p} not present", f"{p} 不存在")
    assert unreadable(p, PermissionError()) == Msg(f"{p} not readable without root",
                                                   f"{p} 需要 root 权限才能读取")
    assert unreadable(p, OSError(errno.EIO, "Input/output error")) == Msg(
        f"{p}: Input/output error", f"{p} 读取失败（EIO）")
    # No errno: the exception's own text and type name.
    assert unreadable(p, OSError("odd")) == Msg(f"{p}: odd", f"{p} 读取失败（OSError）")


def test_read_bytes_missing_file(tmp_path):
    assert read_bytes(tmp_path / "x") == (None, Msg(f"{tmp_path / 'x'} not present",
                                                    f"{tmp_path / 'x'} 不存在"))


def test_read_int_first_word_and_bad_content(tmp_path):
    (tmp_path / "a").write_text("42 extra\n")
    assert read_int(tmp_path / "a") == (42, None)
    (tmp_path / "b").write_text("   \n")  # empty after stripping: no first word
    value, reason = read_int(tmp_path / "b")
    assert value is None
    assert reason == Msg(f"{tmp_path / 'b'}: unexpected content ''",
                         f"{tmp_path / 'b'}：内容不符合预期 ''")
    (tmp_path / "c").write_text("x" * 50)
    _, reason = read_int(tmp_path / "c")
    assert reason.en == f"{tmp_path / 'c'}: unexpected content {'x' * 40!r}"  # first 40 chars
    assert read_int(tmp_path / "missing") == (None, Msg(f"{tmp_path / 'missing'} not present",
                                                        f"{tmp_path / 'missing'} 不存在"))


@pytest.mark.parametrize(("text", "cpus"), [
    ("0", {0}),
    ("0-3", {0, 1, 2, 3}),
    ("0-3,8,10-11", {0, 1, 2, 3, 8, 10, 11}),
    (" 2 , 5 \n", {2, 5}),
    ("0-7:2", {0, 2, 4, 6}),  # stride 2
    ("1-9:3", {1, 4, 7}),
    ("0-3:0", {0, 1, 2, 3}),  # stride 0 read as 1
    ("0,,1", {0, 1}),  # empty pieces skipped
    ("", set()),
])
def test_parse_cpu_list(text, cpus):
    assert parse_cpu_list(text) == cpus


def test_parse_cpu_list_rejects_garbage():
    with pytest.raises(ValueError):
        parse_cpu_list("a-b")


@pytest.mark.parametrize(("text", "size"), [
    ("32K", 32 * 1024), ("32k", 32 * 1024), ("48M", 48 * 1024**2), ("2G", 2 * 1024**3),
    ("512", 512), (" 1024K \n", 1024 * 1024), ("", None), ("   ", None), ("K", None),
    ("abc", None), ("12T", None),
])
def test_parse_size(text, size):
    assert parse_size(text) == size


def test_list_dir_sorted_or_empty(tmp_path):
    for name in ("b", "a", "c"):
        (tmp_path / name).mkdir()
    assert list_dir(tmp_path) == ["a", "b", "c"]
    assert list_dir(tmp_path / "missing") == []
    (tmp_path / "file").write_text("")
    assert list_dir(tmp_path / "file") == []  # not a directory


@pytest.mark.parametrize(("text", "plain"), [
    ("/mnt/my\\040disk", "/mnt/my disk"),
    ("a\\011b\\012c\\134d", "a\tb\nc\\d"),
    ("no-escapes", "no-escapes"),
    ("tail\\04", "tail\\04"),  # too short to be an escape
    ("x\\abcd", "x\\abcd"),  # not digits
    ("\\040\\040", "  "),
])
def test_unescape_mount_field(text, plain):
    assert unescape_mount_field(text) == plain


# --------------------------------------------------------------------------- PCIe


def test_pcie_lane_rates_are_the_documented_ones():
    # docs/hardware-sources.md sec. 3: x16 = 15.75 (gen3), 31.5 (gen4), 63 GB/s (gen5) per
    # direction after 128b/130b: 8 / 16 / 32 GT/s x 128/130 / 8 bits = 0.985 / 1.969 / 3.938 GB/s
    assert LANE_BYTES_PER_S == {3: 0.985e9, 4: 1.969e9, 5: 3.938e9}
    assert link_bytes_per_s(3, 16) == pytest.approx(15.76e9)
    assert link_bytes_per_s(4, 16) == pytest.approx(31.504e9)
    assert link_bytes_per_s(5, 8) == pytest.approx(31.504e9)
    assert link_bytes_per_s(4, 1) == pytest.approx(1.969e9)


@pytest.mark.parametrize(("gen", "width"), [(None, 16), (2, 16), (6, 16), (4, None), (4, 0)])
def test_pcie_unknown_gen_or_width_is_unknown(gen, width):
    assert link_bytes_per_s(gen, width) is None

