"""The "read a kernel file or give a reason" helpers."""

from __future__ import annotations

import errno

import pytest

from torchrig.hardware import sysfs
from torchrig.hardware.sysfs import (
    parse_cpu_list,
    parse_size,
    read_int,
    read_text,
    unescape_mount_field,
)
from torchrig.i18n import Msg


def test_read_text_value_and_missing(tmp_path):
    (tmp_path / "rotational").write_text("0\n")
    assert read_text(tmp_path / "rotational").text == "0"
    missing = read_text(tmp_path / "nope")
    assert missing.text is None and missing.reason == Msg(f"{tmp_path / 'nope'} not present",
                                                          f"{tmp_path / 'nope'} 不存在")


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "not readable without root"),
        (OSError(errno.ENODEV, "No such device"), "No such device"),
    ],
)
def test_read_text_errors_become_reasons(tmp_path, monkeypatch, error, expected):
    def failing_open(*_args, **_kwargs):
        raise error

    monkeypatch.setattr(sysfs, "open", failing_open, raising=False)
    got = read_text(tmp_path / "DMI")
    assert got.text is None and got.reason is not None and expected in got.reason.en
    data, reason = sysfs.read_bytes(tmp_path / "DMI")
    assert data is None and reason == got.reason


def test_a_system_error_reads_as_its_code_in_chinese(tmp_path, monkeypatch):
    """The OS words its errors in English; the Chinese reason names the errno code."""
    def failing_open(*_args, **_kwargs):
        raise OSError(errno.ENODEV, "No such device")

    monkeypatch.setattr(sysfs, "open", failing_open, raising=False)
    reason = read_text(tmp_path / "DMI").reason
    assert reason is not None and reason.zh == f"{tmp_path / 'DMI'} 读取失败（ENODEV）"


def test_read_int(tmp_path):
    (tmp_path / "freq").write_text("3200000\n")
    (tmp_path / "odd").write_text("fast\n")
    assert read_int(tmp_path / "freq") == (3200000, None)
    value, reason = read_int(tmp_path / "odd")
    assert value is None and reason is not None and "unexpected content" in reason.en


def test_cpu_lists():
    assert parse_cpu_list("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert parse_cpu_list("0-7:2") == {0, 2, 4, 6}
    assert parse_cpu_list("") == set()
    with pytest.raises(ValueError):
        parse_cpu_list("a-b")


def test_sizes():
    assert parse_size("32K") == 32 * 1024
    assert parse_size("48M") == 48 * 1024**2
    assert parse_size("4096") == 4096
    assert parse_size("") is None and parse_size("lots") is None


def test_mount_field_escapes():
    assert unescape_mount_field("/mnt/my\\040data\\011x") == "/mnt/my data\tx"
    assert unescape_mount_field("/plain") == "/plain"
