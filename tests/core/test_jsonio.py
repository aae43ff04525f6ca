from __future__ import annotations

import json

import pytest

from torchrig import jsonio
from torchrig.errors import InputError


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_atomic_write_replaces_and_keeps_no_temp(tmp_path):
    target = tmp_path / "b.json"
    jsonio.atomic_write_json(target, {"format": "x", "version": 1, "name": "旧"})
    jsonio.atomic_write_json(target, {"format": "x", "version": 1, "name": "新"})
    assert json.loads(target.read_text(encoding="utf-8"))["name"] == "新"
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]


def test_atomic_write_to_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        jsonio.atomic_write_json(tmp_path / "nope" / "b.json", {})


def test_atomic_write_refuses_nan_and_leaves_old_file(tmp_path):
    target = _write(tmp_path / "b.json", '{"old": true}')
    with pytest.raises(ValueError):
        jsonio.atomic_write_json(target, {"x": float("nan")})
    assert target.read_text(encoding="utf-8") == '{"old": true}'


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{", "not valid JSON"),
        ('{"format": "x", "version": 1, "v": NaN}', "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"format": "y", "version": 1}', "'format' is 'y'"),
        ('{"format": "x", "version": "1"}', "positive integer"),
        ('{"format": "x", "version": 9}', "version 9 is newer"),
        ("[" * 100 + "]" * 100, "nested"),
    ],
)
def test_load_versioned_rejects_bad_documents(tmp_path, text, match):
    path = _write(tmp_path / "f.json", text)
    before = path.read_bytes()
    with pytest.raises(InputError, match=match):
        jsonio.load_versioned(path, "x", 2)
    assert path.read_bytes() == before  # a file that fails to load is never modified


def test_load_versioned_migrates_old_versions(tmp_path):
    path = _write(tmp_path / "f.json", '{"format": "x", "version": 1, "a": 1}')
    data = jsonio.load_versioned(path, "x", 2, {1: lambda d: {**d, "b": d["a"] + 1}})
    assert data == {"format": "x", "version": 2, "a": 1, "b": 2}


def test_non_utf8_and_oversized_files_are_refused(tmp_path):
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="not UTF-8"):
        jsonio.load_versioned(binary, "x", 1)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (jsonio.MAX_FILE_BYTES + 1))
    with pytest.raises(InputError, match="larger than"):
        jsonio.load_versioned(big, "x", 1)
    with pytest.raises(InputError, match="no such file"):
        jsonio.load_versioned(tmp_path / "missing.json", "x", 1)


def test_field_readers_name_the_field():
    with pytest.raises(InputError, match="'qty' must be at least 1"):
        jsonio.get_num({"qty": 0}, "qty", "line 2", minimum=1)
    with pytest.raises(InputError, match="'qty' must be a whole number"):
        jsonio.get_num({"qty": 1.5}, "qty", "line 2", integer=True)
    with pytest.raises(InputError, match="'qty' must be a number"):
        jsonio.get_num({"qty": True}, "qty", "line 2")
    with pytest.raises(InputError, match="'name' must be text"):
        jsonio.get_str({"name": 3}, "name", "build")
    assert jsonio.get_num({}, "x", "w", optional=True) is None
