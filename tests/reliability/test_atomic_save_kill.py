"""Saving survives SIGKILL at any moment: the file is the complete old or the complete new one.

A child process saves two large documents in turn, as fast as it can; the test kills it after a
random delay, 30 times, and looks at what is on disk. A killed save may leave its temp file
(``.<name>.<pid>.<random>.tmp``); the next successful save of the same file removes it, so at
most one is ever there.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from fuzz_targets import REPO, catalog, samples

from torchrig import jsonio
from torchrig.builds.build import Build, LineItem, load_build, save_build

CHILD = r"""
import sys
from pathlib import Path

from torchrig.jsonio import atomic_write_json
from torchrig.builds.build import Build, LineItem, save_build

path, mode = Path(sys.argv[1]), sys.argv[2]
if mode == "build":
    docs = [Build(name=f"version {v}", notes="n" * 20_000, line_items=[
        LineItem(part_id="nvidia-rtx-4090", quantity=1 + (i + v) % 7, note=f"{v}" * 2000)
        for i in range(500)]) for v in (0, 1)]
    save = save_build
else:
    docs = [{"format": "x", "version": 1, "blob": f"{v}" * 4_000_000} for v in (0, 1)]
    def save(doc, target):
        atomic_write_json(target, doc)
print("ready", flush=True)
i = 0
while True:
    save(docs[i % 2], path)
    print("saved", flush=True)
    i += 1
"""

ITERATIONS = 30


def _expected(mode: str) -> list[bytes]:
    """The two documents the child writes, rendered the way the app renders them."""
    if mode == "build":
        builds = [Build(name=f"version {v}", notes="n" * 20_000, line_items=[
            LineItem(part_id="nvidia-rtx-4090", quantity=1 + (i + v) % 7, note=f"{v}" * 2000)
            for i in range(500)]) for v in (0, 1)]
        return [jsonio.dumps(b.to_dict()).encode("utf-8") for b in builds]
    docs = [{"format": "x", "version": 1, "blob": f"{v}" * 4_000_000} for v in (0, 1)]
    return [jsonio.dumps(d).encode("utf-8") for d in docs]


def _temp_pattern(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(f".{name}.") + r"(\d+)\.[a-z0-9_]+\.tmp")


@pytest.mark.slow
def test_sigkill_during_save_never_leaves_a_torn_file(tmp_path: Path) -> None:
    """30 kills, alternating save_build of a 1 MB build and atomic_write_json of 4 MB."""
    rng = random.Random(20260101)
    env = dict(os.environ, PYTHONPATH=str(REPO / "app"))
    killed_mid_write = 0
    killed: set[int] = set()
    iteration = 0
    # 30 kills; more (up to 60) only if none has yet landed while a temp file existed (about
    # one kill in five does), so the test always exercises an interrupted write.
    while iteration < ITERATIONS or (killed_mid_write == 0 and iteration < 2 * ITERATIONS):
        iteration += 1
        mode = ("build", "json")[iteration % 2]
        path = tmp_path / f"{mode}.json"
        expected = _expected(mode)
        if not path.exists():
            path.write_bytes(expected[1])
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), mode], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None and child.stdout.readline() == "ready\n"
            time.sleep(rng.uniform(0.0, 0.1))
            alive = child.poll() is None
        finally:
            child.send_signal(signal.SIGKILL)  # a no-op for a child already gone
            out, err = child.communicate(timeout=30)
        # Still saving when killed: a child that died on its own would prove nothing.
        assert alive and child.returncode == -signal.SIGKILL, err
        saves = out.count("saved\n")
        killed.add(child.pid)
        assert path.read_bytes() in expected
        temps = [p.name for p in tmp_path.iterdir() if p.name.startswith(f".{path.name}.")]
        pids = set()
        for name in temps:
            match = _temp_pattern(path.name).fullmatch(name)
            assert match is not None, name
            pids.add(int(match.group(1)))
        # Temp files come only from killed saves, and a completed save tidied every older
        # one: after it, the killed child's own temp file at most is left.
        assert pids <= killed, temps
        if saves:
            assert pids <= {child.pid}, temps
        killed_mid_write += child.pid in pids
    assert killed_mid_write >= 1
    for mode in ("build", "json"):
        jsonio.atomic_write_bytes(tmp_path / f"{mode}.json", _expected(mode)[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["build.json", "json.json"]


# --- the cleanup of stale temp files ---------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait(timeout=30)
    return child.pid


def _temp(folder: Path, name: str, pid: int, tag: str = "abc123") -> Path:
    path = folder / f".{name}.{pid}.{tag}.tmp"
    path.write_bytes(b'{"half": ')
    return path


def test_next_save_removes_temp_files_of_dead_writers_only(tmp_path: Path) -> None:
    path = tmp_path / "build.json"
    build = Build(name="b", line_items=[LineItem(part_id="nvidia-rtx-4090")])
    dead = _temp(tmp_path, path.name, _dead_pid())
    alive_other = _temp(tmp_path, path.name, os.getppid())  # a save in progress elsewhere
    alive_self = _temp(tmp_path, path.name, os.getpid(), "zz9")  # another thread of ours
    other_file = _temp(tmp_path, "other.json", _dead_pid())
    lookalike = tmp_path / f".{path.name}.12.ab.cd.tmp"  # not a name mkstemp gives us
    lookalike.write_bytes(b"")
    save_build(build, path)
    left = {p.name for p in tmp_path.iterdir()}
    assert dead.name not in left
    assert {alive_other.name, alive_self.name, other_file.name, lookalike.name, path.name} == left


def test_a_day_old_temp_file_is_stale_even_if_its_pid_lives(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    old = _temp(tmp_path, path.name, os.getppid())
    day_ago = time.time() - jsonio.STALE_TEMP_AGE_S - 60
    os.utime(old, (day_ago, day_ago))
    assert jsonio.remove_stale_temp_files(path) == [old]
    assert not old.exists()


def test_loading_never_deletes_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "build.json"
    path.write_bytes(samples("build")[0])
    stale = _temp(tmp_path, path.name, _dead_pid())
    load_build(path, catalog())
    assert stale.exists()


def test_cleanup_problems_never_fail_a_save(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.json"
    stale = _temp(tmp_path, path.name, _dead_pid())
    real_unlink = Path.unlink

    def refuse(self: Path, *args: object, **kwargs: object) -> None:
        if self == stale:
            raise PermissionError(13, "Permission denied", str(self))
        real_unlink(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "unlink", refuse)
    jsonio.atomic_write_json(path, {"a": 1})
    assert path.read_text(encoding="utf-8") == '{\n  "a": 1\n}\n' and stale.exists()


def test_save_into_missing_or_read_only_folder_keeps_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unwritable folder (simulated: root writes anywhere): InputError, old file intact."""
    from torchrig.errors import InputError

    path = tmp_path / "keep.json"
    path.write_bytes(b"old")

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # jsonio imports tempfile when it saves (not every process that reads a file pays for it)
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(InputError, match="Permission denied"):
        jsonio.atomic_write_json(path, {"new": True})
    assert path.read_bytes() == b"old"
    monkeypatch.undo()
    with pytest.raises(InputError, match="does not exist"):
        jsonio.atomic_write_json(tmp_path / "no" / "x.json", {})


def test_a_failing_write_removes_its_temp_and_keeps_the_old_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Disk full during fsync: the old file stays and the temp file goes."""
    from torchrig.errors import InputError

    path = tmp_path / "keep.json"
    path.write_bytes(b"old")

    def full(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonio.os, "fsync", full)
    with pytest.raises(InputError, match="No space left"):
        jsonio.atomic_write_json(path, {"new": True})
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
