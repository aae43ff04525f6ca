"""Hostile files given to ``plan --hf-config`` (issue 28): the Hugging Face reader goes through
the guarded JSON reader (jsonio) like every other loader, so each is one line and exit 2."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from torchrig.cli import main
from torchrig.errors import InputError
from torchrig.planning.hf_config import load_hf_config

CONFIGS = Path(__file__).parent / "hf_configs"
LLAMA = CONFIGS / "llama-2-7b" / "config.json"


@contextlib.contextmanager
def released_if_blocked(fifo: Path, after_s: float = 20.0) -> Iterator[None]:
    """If a reader blocks on ``fifo`` for ``after_s``, open and close its write end so the
    read ends (EOF) and the test fails on its assertions instead of hanging the run. The wait
    is only a rescue: no assertion depends on how long anything took."""
    done = threading.Event()

    def rescue() -> None:
        if done.wait(after_s):
            return
        while not done.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:  # ENXIO: nobody is reading (yet / any more)
                if exc.errno != errno.ENXIO:
                    return
            done.wait(0.05)

    thread = threading.Thread(target=rescue, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _plan(capsys, path: Path) -> tuple[int, str, str]:
    code = main(["plan", "--hf-config", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line_refusal(code: int, out: str, err: str, path: Path, reason: str) -> None:
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0] == f"torchrig plan: {path}: cannot read the Hugging Face config: {reason}"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_is_refused_without_opening_it(tmp_path, capsys):
    fifo = tmp_path / "config.json"
    os.mkfifo(fifo)
    with released_if_blocked(fifo):
        code, out, err = _plan(capsys, fifo)
        # The folder form (plan --hf-config DIR reads DIR/config.json) takes the same path.
        with pytest.raises(InputError, match="is not a regular file"):
            load_hf_config(tmp_path)
    _assert_one_line_refusal(code, out, err, fifo,
                             "is not a regular file (a device, pipe or socket)")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_dev_zero_is_refused_without_reading_it(capsys):
    code, out, err = _plan(capsys, Path("/dev/zero"))
    _assert_one_line_refusal(code, out, err, Path("/dev/zero"),
                             "is not a regular file (a device, pipe or socket)")


def test_100000_levels_of_nesting_is_refused_not_a_recursion_error(tmp_path, capsys):
    deep = tmp_path / "config.json"
    deep.write_text('{"model_type": "llama", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, out, err = _plan(capsys, deep)
    _assert_one_line_refusal(code, out, err, deep, "JSON nested too deeply")


def test_a_5001_digit_hidden_size_is_refused_not_a_value_error(tmp_path, capsys):
    doc = json.loads(LLAMA.read_text())
    assert doc["hidden_size"] == 4096
    text = json.dumps(doc).replace('"hidden_size": 4096', '"hidden_size": ' + "7" * 5001)
    assert "7" * 5001 in text
    big = tmp_path / "config.json"
    big.write_text(text)
    code, out, err = _plan(capsys, big)
    # jsonio shows the first 24 characters of the number, then "...".
    _assert_one_line_refusal(code, out, err, big, "not valid JSON (integer "
                             + "7" * 24 + "... is outside the 64-bit range)")


def test_a_key_given_twice_is_refused_naming_it(tmp_path, capsys):
    text = LLAMA.read_text()
    twice = tmp_path / "config.json"
    # A second hidden_size ahead of the real one: which would win is the ambiguity.
    twice.write_text(text.replace("{", '{"hidden_size": 1024,', 1))
    code, out, err = _plan(capsys, twice)
    _assert_one_line_refusal(code, out, err, twice,
                             "not valid JSON (the key 'hidden_size' appears twice in one "
                             "object)")


def test_an_oversized_config_is_refused_before_it_is_read(tmp_path, capsys):
    # A real config.json is a few KiB; the reader's limit is 4 MiB (MAX_CONFIG_BYTES).
    huge = tmp_path / "config.json"
    huge.write_bytes(b" " * (4 * 1024 * 1024 + 1))
    code, out, err = _plan(capsys, huge)
    # 4,194,305 bytes = 4.2 MB, the limit 4,194,304 bytes printed as "4 MB".
    _assert_one_line_refusal(code, out, err, huge,
                             "file is 4.2 MB, larger than the 4 MB limit for this kind of file")


def test_the_reference_config_still_reads(capsys):
    """The guard refuses the hostile files, not the real one next to them."""
    assert load_hf_config(LLAMA).fields["hidden"] == 4096
