"""jsonio's limits at their edges, found unpinned by mutation testing (scripts/mutate.py
jsonio): the 64-bit integer range, float overflow, nesting depth 64, the size limit to the
byte, duplicate keys, lone surrogates, version numbers, migrations, and the save path's
permissions, links, temp files and field readers. The limits are the module's documented
constants (MAX_DEPTH = 64, MAX_FILE_BYTES, MAX_INT_DIGITS = 19); the 64-bit bounds are
-2**63 and 2**63 - 1.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from torchrig import jsonio
from torchrig.errors import InputError


def _parse(text: str) -> Any:
    return jsonio.parse_json_text(text, "f.json")


# --- numbers ----------------------------------------------------------------------------------


def test_the_64_bit_integer_range_to_the_last_value() -> None:
    assert _parse("9223372036854775807") == 2**63 - 1
    assert _parse("-9223372036854775808") == -(2**63)
    with pytest.raises(InputError, match="integer 9223372036854775808 is outside the 64-bit"):
        _parse("9223372036854775808")
    with pytest.raises(InputError, match="integer -9223372036854775809 is outside"):
        _parse("-9223372036854775809")


def test_a_long_integer_is_shown_cut_to_24_characters() -> None:
    digits = "1" * 30
    with pytest.raises(InputError) as info:
        _parse(digits)
    assert f"integer {'1' * 24}... is outside the 64-bit range" in str(info.value)


def test_a_float_that_would_be_infinite_is_refused() -> None:
    assert _parse("1e308") == 1e308
    assert _parse("-1.5") == -1.5
    with pytest.raises(InputError, match="number 1e309 is too large for a 64-bit float"):
        _parse("1e309")
    with pytest.raises(InputError, match="NaN is not a number JSON allows"):
        _parse("NaN")


# --- structure -------------------------------------------------------------------------------


def test_nesting_of_64_levels_is_read_and_65_refused() -> None:
    # A value counts as a level of its own: 64 empty lists, or 63 around a number.
    assert _parse("[" * 64 + "]" * 64) is not None
    assert _parse("[" * 63 + "1" + "]" * 63) is not None
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        _parse("[" * 65 + "]" * 65)
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        _parse("[" * 64 + "1" + "]" * 64)
    # Objects count the same as lists.
    assert _parse('{"a": ' * 63 + "1" + "}" * 63) is not None
    with pytest.raises(InputError, match="deeper than 64"):
        _parse('{"a": ' * 64 + "1" + "}" * 64)


def test_depth_counts_the_deepest_branch_not_the_first() -> None:
    # Each container and each value inside one is a level: [1, [2, [3]], 4] reaches the 3
    # inside the third list at level 4, whatever comes after it.
    assert jsonio._depth([1, [2, [3]], 4], 64) == 4
    assert jsonio._depth([[[3]], 1], 64) == 4
    assert jsonio._depth({"a": 1, "b": {"c": [1]}}, 64) == 4
    assert jsonio._depth(7, 64) == 1
    assert jsonio._depth([[[[1]]]], 2) == 3  # stops just past the limit


def test_nesting_past_the_interpreter_limit_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="f.json: JSON nested too deeply"):
        _parse("[" * 100_000)


def test_a_key_given_twice_is_refused_by_name() -> None:
    with pytest.raises(InputError, match="the key 'tax_rate' appears twice in one object"):
        _parse('{"tax_rate": "0.13", "tax_rate": "0"}')
    long_key = "k" * 81
    with pytest.raises(InputError) as info:
        _parse(json.dumps({"x": 1}).replace("}", f', "{long_key}": 1, "{long_key}": 2}}'))
    assert repr("k" * 80) in str(info.value)  # shown cut to 80 characters, quoted
    with pytest.raises(InputError) as info:
        _parse('{"a\\nb": 1, "a\\nb": 2}')
    assert "the key 'a\\nb' appears twice" in str(info.value)  # escaped, quoted once
    assert _parse('{"a": {"k": 1}, "b": {"k": 2}}') == {"a": {"k": 1}, "b": {"k": 2}}


def test_lone_surrogates_are_refused_wherever_they_hide() -> None:
    assert _parse('["\\ud83d\\ude00"]') == ["\U0001F600"]  # a proper pair is one character
    for text in ('"\\ud800"', '{"k": "\\udfff"}', '{"\\ud800": 1}', '[[["x", "\\udc00"]]]'):
        with pytest.raises(InputError, match="half a UTF-16 surrogate pair"):
            _parse(text)


def test_the_surrogate_scan_looks_at_keys_values_and_lists() -> None:
    lone = "\ud800"
    assert jsonio._has_lone_surrogate({lone: 1})
    assert jsonio._has_lone_surrogate({"k": [1, {"j": lone}]})
    assert not jsonio._has_lone_surrogate({"k": [1, {"j": "ok"}], "n": None})


# --- files --------------------------------------------------------------------------------------


def test_the_size_limit_holds_to_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b"[1]" + b" " * 7)  # 10 bytes
    assert jsonio.read_text_file(path, max_bytes=10) == "[1]" + " " * 7
    with pytest.raises(InputError, match="larger than the"):
        jsonio.read_text_file(path, max_bytes=9)


def test_the_size_message_gives_megabytes(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b" " * 2_500_000)
    with pytest.raises(InputError) as info:
        jsonio.read_file_bytes(path, 2_000_000)
    assert str(info.value) == (f"{path}: file is 2.5 MB, larger than the 2 MB limit for this "
                               "kind of file")


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_a_file_that_says_it_is_empty_is_still_read_within_the_limit() -> None:
    # /proc files report size 0 yet hold text: the read itself is bounded too.
    with pytest.raises(InputError, match="file is over 0.0 MB, larger than the 0 MB"):
        jsonio.read_file_bytes(Path("/proc/self/status"), 10)
    assert jsonio.read_file_bytes(Path("/proc/self/status"), 1_000_000)


def test_folders_and_pipes_are_not_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a folder, not a file"):
        jsonio.read_text_file(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is not a regular file"):
        jsonio.read_text_file(fifo)


def test_a_byte_order_mark_is_dropped_and_a_bad_byte_located(tmp_path: Path) -> None:
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf[1]")
    assert jsonio.read_text_file(bom) == "[1]"
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"[1, \xff]")
    with pytest.raises(InputError, match="not UTF-8 text \\(bad byte at offset 4\\)"):
        jsonio.read_text_file(bad)


# --- versions -----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, -1, True, 1.0, None])
def test_versions_must_be_positive_integers(version: Any) -> None:
    with pytest.raises(InputError, match="field 'version' must be a positive integer"):
        jsonio.upgrade_document({"format": "x", "version": version}, "x", 3)


def test_version_one_and_the_current_version_are_read() -> None:
    doc = {"format": "x", "version": 3, "a": 1}
    assert jsonio.upgrade_document(doc, "x", 3) == doc
    assert jsonio.upgrade_document({"format": "x", "version": 1}, "x", 1) == {
        "format": "x", "version": 1}


def test_migrations_run_in_order_on_a_copy() -> None:
    seen: list[int] = []

    def step(n: int) -> jsonio.Migration:
        def run(d: dict[str, Any]) -> dict[str, Any]:
            seen.append(d["version"])
            d["steps"] = [*d.get("steps", []), n]
            return d
        return run

    original = {"format": "x", "version": 1}
    out = jsonio.upgrade_document(original, "x", 3, {1: step(1), 2: step(2)})
    assert out == {"format": "x", "version": 3, "steps": [1, 2]}
    assert seen == [1, 2] and original == {"format": "x", "version": 1}


def test_a_version_without_a_migration_can_no_longer_be_read() -> None:
    with pytest.raises(InputError, match="doc: x version 2 can no longer be read"):
        jsonio.upgrade_document({"format": "x", "version": 2}, "x", 3, {1: dict}, where="doc")
    with pytest.raises(InputError, match="version 4 is newer than this TorchRig understands "
                       "\\(version 3\\)"):
        jsonio.upgrade_document({"format": "x", "version": 4}, "x", 3)


def test_the_format_field_is_compared_exactly() -> None:
    with pytest.raises(InputError, match="field 'format' is None, expected 'x'"):
        jsonio.upgrade_document({"version": 1}, "x", 1)
    with pytest.raises(InputError, match="expected a JSON object, found list"):
        jsonio.upgrade_document([], "x", 1)


# --- saving -----------------------------------------------------------------------------------


def test_saved_text_is_indented_utf8_with_a_final_newline(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    jsonio.atomic_write_json(target, {"name": "报价", "n": [1]})
    assert target.read_bytes() == '{\n  "name": "报价",\n  "n": [\n    1\n  ]\n}\n'.encode()


def test_a_replaced_file_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    target.write_text("{}", encoding="utf-8")
    target.chmod(0o640)
    jsonio.atomic_write_bytes(target, b"[]")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_bytes() == b"[]"


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    target = tmp_path / "new.json"
    jsonio.atomic_write_bytes(target, b"[]")
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~jsonio._UMASK


def test_a_link_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    jsonio.atomic_write_bytes(link, b"[1]")
    assert link.is_symlink() and real.read_bytes() == b"[1]"


def test_read_only_files_folders_and_pipes_are_not_replaced(tmp_path: Path) -> None:
    locked = tmp_path / "locked.json"
    locked.write_text("{}", encoding="utf-8")
    locked.chmod(0o444)
    with pytest.raises(InputError, match="the file is read-only"):
        jsonio.atomic_write_bytes(locked, b"[]")
    assert locked.read_text(encoding="utf-8") == "{}"
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(InputError, match="is a folder, not a file"):
        jsonio.atomic_write_bytes(tmp_path / "dir.json", b"[]")
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(InputError, match="is not a regular file"):
        jsonio.atomic_write_bytes(tmp_path / "pipe.json", b"[]")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.json", "locked.json",
                                                          "pipe.json"]


def test_stale_temp_files_go_and_live_ones_stay(tmp_path: Path) -> None:
    target = tmp_path / "b.json"
    dead = tmp_path / ".b.json.999999999.abc_1.tmp"  # no such process
    mine = tmp_path / f".b.json.{os.getpid()}.def2.tmp"
    old_mine = tmp_path / f".b.json.{os.getpid()}.old3.tmp"
    other = tmp_path / ".c.json.999999999.abc.tmp"  # another file's
    for temp in (dead, mine, old_mine, other):
        temp.write_bytes(b"x")
    day_ago = time.time() - jsonio.STALE_TEMP_AGE_S - 60
    os.utime(old_mine, (day_ago, day_ago))
    assert sorted(jsonio.remove_stale_temp_files(target)) == sorted([dead, old_mine])
    assert mine.exists() and other.exists() and not dead.exists()


def test_unused_names_count_up_from_two(tmp_path: Path) -> None:
    first = tmp_path / "b.json"
    assert jsonio.unused_name(first) == first
    first.write_text("", encoding="utf-8")
    assert jsonio.unused_name(first) == tmp_path / "b-2.json"
    (tmp_path / "b-2.json").symlink_to(tmp_path / "nowhere")  # a dangling link is taken too
    assert jsonio.unused_name(first) == tmp_path / "b-3.json"


# --- field readers ------------------------------------------------------------------------------


def test_check_keys_names_the_first_unknown_field() -> None:
    jsonio.check_keys({"a": 1}, {"a", "b"}, "f")
    with pytest.raises(InputError, match="f: unknown field 'part'"):
        jsonio.check_keys({"zz": 1, "part": 1, "a": 1}, {"a"}, "f")


def test_req_and_get_str() -> None:
    assert jsonio.req({"k": None}, "k", "w") is None
    with pytest.raises(InputError, match="w: missing field 'k'"):
        jsonio.req({}, "k", "w")
    assert jsonio.get_str({"k": None}, "k", "w", default="d") == "d"
    assert jsonio.get_str({}, "k", "w", default="") == ""
    with pytest.raises(InputError, match="w: missing field 'k'"):
        jsonio.get_str({"k": None}, "k", "w")
    assert jsonio.get_str({"k": "x" * 10}, "k", "w", max_len=10) == "x" * 10
    with pytest.raises(InputError, match="field 'k' is longer than 10 characters"):
        jsonio.get_str({"k": "x" * 11}, "k", "w", max_len=10)
    with pytest.raises(InputError, match="field 'k' must be text, got int"):
        jsonio.get_str({"k": 3}, "k", "w")


def test_get_num_limits_are_inclusive() -> None:
    assert jsonio.get_num({"n": 1}, "n", "w", minimum=1, maximum=5) == 1
    assert jsonio.get_num({"n": 5}, "n", "w", minimum=1, maximum=5) == 5
    with pytest.raises(InputError, match="'n' must be at least 1, got 0.5"):
        jsonio.get_num({"n": 0.5}, "n", "w", minimum=1)
    with pytest.raises(InputError, match="'n' must be at most 5, got 5.5"):
        jsonio.get_num({"n": 5.5}, "n", "w", maximum=5)
    with pytest.raises(InputError, match="'n' must be at least -2, got -3"):
        jsonio.get_num({"n": -3}, "n", "w", minimum=-2)


def test_get_num_defaults_missing_and_whole_numbers() -> None:
    assert jsonio.get_num({}, "n", "w", default=2.5) == 2.5
    assert jsonio.get_num({"n": None}, "n", "w", default=3) == 3
    assert jsonio.get_num({"n": None}, "n", "w", optional=True) is None
    with pytest.raises(InputError, match="w: missing field 'n'"):
        jsonio.get_num({}, "n", "w")
    whole = jsonio.get_num({"n": 4.0}, "n", "w", integer=True)
    assert whole == 4 and isinstance(whole, int)
    assert isinstance(jsonio.get_num({"n": 4.0}, "n", "w"), float)
    with pytest.raises(InputError, match="'n' must be a finite number"):
        jsonio.get_num({"n": float("inf")}, "n", "w")
    with pytest.raises(InputError, match="'n' must be a number, got '4'"):
        jsonio.get_num({"n": "4"}, "n", "w")


# --- what the mutation run of jsonio found next -----------------------------------------------


def test_long_numbers_are_cut_at_24_characters() -> None:
    exactly = "1" * 24
    with pytest.raises(InputError) as info:
        _parse(exactly)
    assert f"integer {exactly} is outside" in str(info.value)  # 24: shown whole, no "..."
    longer = "9" * 25
    with pytest.raises(InputError) as info:
        _parse(longer)
    assert f"integer {'9' * 24}... is outside" in str(info.value)
    big = "1234567890123456789012345e300"  # 29 characters, above the float range
    with pytest.raises(InputError) as info:
        _parse(big)
    assert f"number {big[:24]} is too large" in str(info.value)


def test_megabytes_are_rounded_from_a_million_bytes(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b" " * 2_950_000)
    with pytest.raises(InputError) as info:
        jsonio.read_file_bytes(path, 1_500_000)
    # 2,950,000 B = 2.95 MB -> "3.0"; the 1,500,000 B limit = 1.5 MB -> "2" (half to even).
    assert str(info.value) == (f"{path}: file is 3.0 MB, larger than the 2 MB limit for this "
                               "kind of file")


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_the_growing_file_message_names_the_file() -> None:
    with pytest.raises(InputError) as info:
        jsonio.read_file_bytes(Path("/proc/self/status"), 10)
    assert str(info.value).startswith("/proc/self/status: file is over ")


def test_a_file_without_write_bits_is_read_only_even_to_root(tmp_path: Path) -> None:
    # r-xr-xr-x: executable bits set, no write bit anywhere.
    target = tmp_path / "locked.json"
    target.write_text("{}", encoding="utf-8")
    target.chmod(0o555)
    with pytest.raises(InputError, match="the file is read-only"):
        jsonio.atomic_write_bytes(target, b"[]")
    assert target.read_text(encoding="utf-8") == "{}"


def test_a_failed_rename_removes_its_temp_file(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "b.json"
    seen: list[str] = []

    def failing_replace(src: str, dst: object) -> None:
        seen.append(os.path.basename(src))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonio.os, "replace", failing_replace)
    with pytest.raises(InputError, match="b.json: could not be written \\(No space left on "
                       "device\\)"):
        jsonio.atomic_write_bytes(target, b"[]")
    # The temp file was .<name>.<pid>.<random>.tmp beside the target, and is gone.
    (name,) = seen
    assert name.startswith(f".b.json.{os.getpid()}.") and name.endswith(".tmp")
    assert list(tmp_path.iterdir()) == []


def test_a_temp_file_of_a_live_process_stays() -> None:
    import tempfile as tf
    with tf.TemporaryDirectory() as folder:
        live = Path(folder) / ".b.json.1.abc.tmp"  # pid 1 is always running
        live.write_bytes(b"x")
        assert jsonio.remove_stale_temp_files(Path(folder) / "b.json") == []
        assert live.exists()


def test_default_names_in_messages(tmp_path: Path) -> None:
    assert jsonio.get_str({"k": "x" * 10_000}, "k", "w") == "x" * 10_000
    with pytest.raises(InputError, match="longer than 10000 characters"):
        jsonio.get_str({"k": "x" * 10_001}, "k", "w")
    with pytest.raises(InputError, match="^document: field 'format' is 'y'"):
        jsonio.upgrade_document({"format": "y", "version": 1}, "x", 1)
    bad = tmp_path / "f.json"
    bad.write_text('{"format": "y", "version": 1}', encoding="utf-8")
    with pytest.raises(InputError, match=f"^{re.escape(str(bad))}: field .format. is .y."):
        jsonio.load_versioned(bad, "x", 1)
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=f"^{re.escape(str(bad))}: not valid JSON"):
        jsonio.load_versioned(bad, "x", 1)


# --- the error paths of reading and saving (docs/testing.md sec. 13.8) --------------------------


def test_a_path_through_a_file_is_refused_with_the_systems_reason(tmp_path: Path) -> None:
    # "f.txt/x.json": stat() fails with ENOTDIR, not "no such file".
    (tmp_path / "f.txt").write_text("x")
    bad = tmp_path / "f.txt" / "x.json"
    with pytest.raises(InputError) as read:
        jsonio.read_file_bytes(bad, 100)
    assert str(read.value) == f"{bad}: cannot read (Not a directory)"
    with pytest.raises(InputError) as write:
        jsonio.atomic_write_bytes(bad, b"{}")
    assert str(write.value) == f"{bad}: cannot write (Not a directory)"


def test_a_file_that_cannot_be_opened_names_why(tmp_path: Path, monkeypatch) -> None:
    f = tmp_path / "a.json"
    f.write_text("{}")

    def refuse(*_a: object, **_k: object) -> None:
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(jsonio, "open", refuse, raising=False)  # root may open anything
    with pytest.raises(InputError) as err:
        jsonio.read_file_bytes(f, 100)
    assert str(err.value) == f"{f}: cannot read (Permission denied)"


def test_a_file_that_grew_after_stat_is_read_only_to_the_limit(tmp_path: Path,
                                                               monkeypatch) -> None:
    # stat() says 10 bytes, the file holds 3 MB: the read stops at the limit + 1 byte, so the
    # message says "over 1.0 MB" (1,000,001 bytes read), not the 3.0 MB a full read would give.
    f = tmp_path / "grows.json"
    f.write_bytes(b" " * 3_000_000)
    real = Path.stat

    def small(self: Path, *a: object, **k: object) -> os.stat_result:
        st = real(self, *a, **k)
        if self == f:
            return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid,
                                   st.st_gid, 10, int(st.st_atime), int(st.st_mtime),
                                   int(st.st_ctime)))
        return st
    monkeypatch.setattr(Path, "stat", small)
    with pytest.raises(InputError) as err:
        jsonio.read_file_bytes(f, 1_000_000)
    assert str(err.value) == (f"{f}: file is over 1.0 MB, larger than the 1 MB limit for this "
                              "kind of file")


def test_a_missing_folder_is_named_as_given(tmp_path: Path, monkeypatch) -> None:
    # A relative path is not made absolute in the message (nor resolved: only links are).
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as err:
        jsonio.atomic_write_bytes(Path("nope/x.json"), b"{}")
    assert str(err.value) == "nope/x.json: folder nope does not exist"


def test_the_temp_file_is_made_next_to_the_file(tmp_path: Path, monkeypatch) -> None:
    # The documented ".<name>.<pid>.<random>.tmp next to path": the rename must stay within
    # one file system. A failing rename shows where the temp file was made, and it is removed.
    target = tmp_path / "b.json"
    seen: list[Path] = []

    def fail(src: str, dst: object) -> None:
        seen.append(Path(src))
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(jsonio.os, "replace", fail)
    with pytest.raises(InputError) as err:
        jsonio.atomic_write_bytes(target, b"{}")
    assert str(err.value) == f"{target}: could not be written (No space left on device)"
    assert seen[0].parent == tmp_path
    assert re.fullmatch(rf"\.b\.json\.{os.getpid()}\.[a-z0-9_]+\.tmp", seen[0].name)
    assert os.listdir(tmp_path) == []


def test_a_temp_file_that_cannot_be_made_names_why(tmp_path: Path, monkeypatch) -> None:
    import tempfile

    def refuse(*_a: object, **_k: object) -> None:
        raise OSError(30, "Read-only file system")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(InputError) as err:
        jsonio.atomic_write_bytes(tmp_path / "c.json", b"{}")
    assert str(err.value) == (f"{tmp_path / 'c.json'}: cannot write in {tmp_path} "
                              "(Read-only file system)")


def test_an_interrupted_save_removes_its_temp_file(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "d.json"
    target.write_text("old")

    def interrupt(_fd: int) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(jsonio.os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        jsonio.atomic_write_bytes(target, b"new")
    assert os.listdir(tmp_path) == ["d.json"] and target.read_text() == "old"


def test_a_temp_file_gone_before_cleanup_does_not_hide_the_error(tmp_path: Path,
                                                                 monkeypatch) -> None:
    # The rename fails and the temp file cannot be removed either: the save's own error is
    # what the user sees, not the cleanup's.
    def fail(_src: str, _dst: object) -> None:
        raise OSError(5, "Input/output error")

    def gone(_name: str) -> None:
        raise FileNotFoundError(2, "No such file or directory")
    monkeypatch.setattr(jsonio.os, "replace", fail)
    monkeypatch.setattr(jsonio.os, "unlink", gone)
    with pytest.raises(InputError, match=r"could not be written \(Input/output error\)"):
        jsonio.atomic_write_bytes(tmp_path / "e.json", b"{}")


def test_a_temp_file_exactly_a_day_old_is_kept(tmp_path: Path, monkeypatch) -> None:
    # Stale means older than STALE_TEMP_AGE_S (24 h); this process's own temp file at exactly
    # 24 h is kept, one second more is removed.
    now = 2_000_000_000
    monkeypatch.setattr(jsonio.time, "time", lambda: float(now))
    temp = tmp_path / f".f.json.{os.getpid()}.abc.tmp"
    temp.write_text("")
    os.utime(temp, (now - 24 * 3600, now - 24 * 3600))
    assert jsonio.remove_stale_temp_files(tmp_path / "f.json") == []
    os.utime(temp, (now - 24 * 3600 - 1, now - 24 * 3600 - 1))
    assert jsonio.remove_stale_temp_files(tmp_path / "f.json") == [temp]


def test_unrelated_names_do_not_stop_the_cleanup(tmp_path: Path, monkeypatch) -> None:
    # A dead process's temp file listed after another file is still removed.
    dead = tmp_path / ".g.json.999999999.abc.tmp"
    dead.write_text("")
    (tmp_path / "notes.txt").write_text("")
    monkeypatch.setattr(jsonio.os, "listdir", lambda _f: ["notes.txt", dead.name])
    assert jsonio.remove_stale_temp_files(tmp_path / "g.json") == [dead]


def test_each_migration_runs_once_in_order() -> None:
    calls: list[int] = []

    def step(v: int):
        def run(doc: dict) -> dict:
            assert v not in calls, f"migration {v} ran twice"
            calls.append(v)
            return {**doc, f"from_{v}": True}
        return run
    out = jsonio.upgrade_document({"format": "x", "version": 1}, "x", 4,
                                  {1: step(1), 2: step(2), 3: step(3)})
    assert calls == [1, 2, 3]
    assert out == {"format": "x", "version": 4, "from_1": True, "from_2": True, "from_3": True}


def test_a_temp_file_that_cannot_be_removed_does_not_stop_the_others(tmp_path: Path,
                                                                     monkeypatch) -> None:
    first = tmp_path / ".h.json.999999998.aaa.tmp"
    second = tmp_path / ".h.json.999999999.bbb.tmp"
    for f in (first, second):
        f.write_text("")
    monkeypatch.setattr(jsonio.os, "listdir", lambda _f: [first.name, second.name])
    real = Path.unlink

    def stuck(self: Path, *a: object, **k: object) -> None:
        if self == first:
            raise PermissionError(1, "Operation not permitted")
        real(self, *a, **k)
    monkeypatch.setattr(Path, "unlink", stuck)
    assert jsonio.remove_stale_temp_files(tmp_path / "h.json") == [second]
    assert first.exists() and not second.exists()


def test_a_scalar_at_the_depth_limit_does_not_end_the_depth_check() -> None:
    # 62 wrapping lists, then [1, [2]]: the 1 sits at depth 64 (the limit, allowed) and is
    # met before the [2], whose 2 is at depth 65: refused.
    text = "[" * 62 + "[1, [2]]" + "]" * 62
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        _parse(text)
    assert _parse("[" * 62 + "[1, 2]" + "]" * 62) is not None  # 64 deep: fine
