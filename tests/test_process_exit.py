"""A CLI export ends without the interpreter's teardown (issue 27: about 25 ms of a 10-line
quote's process), and only when nothing can be lost (torchrig/process_exit.py): its output line
is flushed, atexit handlers run, and a file the process opened for writing and left open keeps
the normal exit, which flushes it. Each case is a fresh process through the module's entry point
(``python -m torchrig.cli``'s code path), as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "builds" / "pro-dual-4090.json"

CHILD = textwrap.dedent(
    """
    import atexit, sys
    from torchrig.cli import entry_point  # first, as the entry point's module is
    marks = sys.argv[1]
    atexit.register(lambda: open(marks + ".atexit", "w").close())

    class Teardown:  # freed only by the interpreter's teardown
        def __del__(self, _open=open, _path=marks + ".teardown"):
            _open(_path, "w").close()

    kept = Teardown()
    if sys.argv[2] == "leave-a-file-open":
        left = open(marks + ".open", "w")
        left.write("buffered, not flushed")  # opened during the run: only a teardown flushes it
    if sys.argv[2] == "leave-a-thread-running":
        import os, threading, time
        def late():  # still running when the quote is written
            while not os.path.exists(sys.argv[-2]):
                time.sleep(0.01)
            time.sleep(0.2)
            open(marks + ".thread", "w").close()
        threading.Thread(target=late).start()  # not a daemon: the normal exit waits for it
    sys.argv = ["torchrig", *sys.argv[3:]]
    entry_point()
    """
)


def _run(tmp_path: Path, mode: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "app")}
    return subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "mark"), mode, *args],
                          env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="needs /proc (Linux)")
def test_an_export_skips_the_teardown_and_keeps_the_rest(tmp_path):
    out = tmp_path / "quote.pdf"
    done = _run(tmp_path, "plain", "export", str(BUILD), "-o", str(out), "--invariant")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out} ({out.stat().st_size / 1000:.0f} kB)\n"  # flushed
    assert out.read_bytes().startswith(b"%PDF") and out.read_bytes().rstrip().endswith(b"%%EOF")
    assert (tmp_path / "mark.atexit").exists()  # atexit handlers ran
    assert not (tmp_path / "mark.teardown").exists()  # the teardown did not


def test_a_file_left_open_for_writing_keeps_the_normal_exit(tmp_path):
    out = tmp_path / "quote.pdf"
    done = _run(tmp_path, "leave-a-file-open", "export", str(BUILD), "-o", str(out),
                "--invariant")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mark.open").read_text() == "buffered, not flushed"
    assert (tmp_path / "mark.teardown").exists()


def test_a_thread_still_running_keeps_the_normal_exit(tmp_path):
    out = tmp_path / "quote.pdf"
    done = _run(tmp_path, "leave-a-thread-running", "export", str(BUILD), "-o", str(out),
                "--invariant")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mark.thread").exists()  # the exit waited for the thread to finish


def test_a_failed_export_exits_normally_with_its_code(tmp_path):
    done = _run(tmp_path, "plain", "export", str(tmp_path / "missing.json"), "-o",
                str(tmp_path / "quote.pdf"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no such file" in done.stderr
    assert (tmp_path / "mark.teardown").exists()  # nothing marked done: the usual exit
