"""``torchrig bench`` via run_cli: exit codes, one-line errors, JSON output, Ctrl-C."""

from __future__ import annotations

import _thread
import argparse
import io
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import child_fakes
import pytest

from torchrig.bench.__main__ import main as bench_main
from torchrig.bench.cli import add_bench_arguments, run_cli
from torchrig.bench.report import list_reports, load_report


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_bench_arguments(parser)
    return parser.parse_args(list(argv))


def _cli(*argv: str, registry: str = "child_fakes:AB", env: dict[str, str] | None = None):
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(_args(*argv), registry=registry, detect=False, stdout=out, stderr=err,
                   child_env=env)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("argv", "message"), [
    (("--device", "cuda:3"), "cuda:3"),
    (("--device", "tpu"), "device 'tpu' is not valid"),
    (("--only", "a,zzz"), "unknown benchmark zzz"),
    (("--dataset-dir", "/no/such/dir"), "dataset folder /no/such/dir does not exist"),
    (("--json", "/no/such/dir/out.json"), "folder /no/such/dir does not exist"),
])
def test_bad_input_exits_2_with_one_line(argv, message):
    code, out, err = _cli(*argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("torchrig bench: ") and message in lines[0]
    assert list_reports() == []  # nothing ran, nothing saved


def test_json_path_that_is_a_folder(tmp_path: Path):
    code, _, err = _cli("--json", str(tmp_path))
    assert code == 2 and "is a folder" in err


def test_success_writes_json_and_history(tmp_path: Path):
    target = tmp_path / "out.json"
    code, out, err = _cli("--quick", "--json", str(target), "--only", "b")
    assert code == 0
    report = load_report(target)
    assert [r.id for r in report.results] == ["b"] and report.results[0].ok
    assert report.settings["preset"] == "quick"
    saved = list_reports()
    assert len(saved) == 1 and load_report(saved[0]).to_dict() == report.to_dict()
    assert "[1/1] b 0/3: step 0" in err  # one progress line per step on stderr
    assert "-> Fake b: ok" in err
    assert "Fake b [b]: ok" in out


def test_full_flag_selects_full_preset(tmp_path: Path):
    target = tmp_path / "full.json"
    code, _, _ = _cli("--full", "--json", str(target))
    assert code == 0 and load_report(target).settings["preset"] == "full"


def test_storage_plan_is_announced_before_running(tmp_path: Path):
    from torchrig.bench.benchmarks.storage import BENCHMARK as STORAGE

    assert child_fakes.STORAGE[0].id == STORAGE.id
    code, _, err = _cli("--dataset-dir", str(tmp_path), registry="child_fakes:STORAGE")
    assert code == 0
    assert err.splitlines()[0].startswith("storage: writes ")
    assert str(tmp_path) in err.splitlines()[0]


@pytest.fixture
def ctrl_c_handled():
    """Ctrl-C reaches this process as a KeyboardInterrupt, as in a terminal.

    A process started in the background by a non-interactive shell (``pytest ... &``, a
    mutation or CI runner that does so) inherits SIGINT *ignored*, and Python keeps it
    ignored; ``_thread.interrupt_main()`` then does nothing ("If the given signal isn't
    handled by Python (it was set to signal.SIG_DFL or signal.SIG_IGN), this function does
    nothing", Python docs, _thread). The run was never cancelled: the waiting benchmark was
    stopped by its time budget, the next one ran and the CLI exited 0 - the "exit 0 instead
    of 130 under load" failure. What the test proves, the CLI's answer to a Ctrl-C, needs
    Ctrl-C handled, so the test installs Python's own handler and puts the old one back.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupt_when(marker: Path) -> threading.Thread:
    """Deliver Ctrl-C to the main thread once the child has reached the marked point: the
    child writes the marker inside the benchmark, after its first progress line and figure
    were sent, so the Ctrl-C comes at a known state, never after a guessed sleep."""

    def watch() -> None:
        while not marker.exists():
            time.sleep(0.01)
        _thread.interrupt_main()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.usefixtures("ctrl_c_handled")
def test_ctrl_c_cancels_cleanly_and_still_writes(tmp_path: Path):
    """A real KeyboardInterrupt in the main thread, as Ctrl-C delivers it, once the child is
    inside a benchmark that stops only when cancelled: the outcome depends on no timing."""
    marker = tmp_path / "reached"
    target = tmp_path / "partial.json"
    watcher = _interrupt_when(marker)
    code, out, err = _cli("--json", str(target), registry="child_fakes:CANCEL_WAIT",
                          env={child_fakes.MARKER_ENV: str(marker)})
    watcher.join()
    assert code == 130
    assert "cancelling" in err
    report = load_report(target)
    assert report.cancelled and report.interrupted is None
    assert [r.status for r in report.results] == ["ok", "cancelled", "cancelled"]
    assert report.value("done_first", "x") == 3.0 and report.value("slow", "x") == 7.0
    assert len(list_reports()) == 1
    assert "cancelled" in out


@pytest.mark.usefixtures("ctrl_c_handled")
def test_ctrl_c_kills_a_benchmark_that_ignores_cancel(tmp_path: Path):
    """A benchmark stuck in native code never sees the cancel token: the child is killed
    after the grace period and the report is rebuilt from what had arrived."""
    marker = tmp_path / "reached"
    target = tmp_path / "killed.json"
    watcher = _interrupt_when(marker)
    code, _, _ = _cli("--json", str(target), registry="child_fakes:STUBBORN",
                      env={child_fakes.MARKER_ENV: str(marker)})
    watcher.join()
    assert code == 130
    report = load_report(target)
    assert [r.status for r in report.results] == ["ok", "cancelled", "cancelled"]
    assert report.value("stubborn", "x") == 5.0


def test_a_crashed_child_still_reports_what_it_measured(tmp_path: Path):
    target = tmp_path / "crashed.json"
    code, out, _ = _cli("--json", str(target), registry="child_fakes:CRASH")
    assert code == 0
    report = load_report(target)
    assert [r.state for r in report.results] == ["ok", "error", "skipped"]
    assert report.value("a", "x") == 3.0 and report.value("crash", "x") == 4.0
    assert "SIGKILL" in report.results[1].status
    assert report.interrupted is not None and "SIGKILL" in report.interrupted.en
    assert "interrupted: the benchmark process was ended by SIGKILL" in out


def test_module_entry_point_parses_flags():
    assert bench_main(["--device", "cuda:3"]) == 2


def test_importing_the_bench_package_does_not_load_torch():
    code = ("import sys, torchrig.bench, torchrig.bench.benchmarks.registry, torchrig.bench.cli, "
            "torchrig.bench.findings; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "False"


def test_json_report_is_plain_json(tmp_path: Path):
    target = tmp_path / "plain.json"
    assert _cli("--json", str(target))[0] == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["format"] == "torchrig.bench-report"
    assert data["results"][0]["measurements"][0]["unit"] == "ratio"


def test_unwritable_history_still_writes_json(tmp_path: Path, monkeypatch):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("x")
    monkeypatch.setenv("TORCHRIG_DATA_DIR", str(blocker / "data"))
    target = tmp_path / "kept.json"
    code, out, err = _cli("--json", str(target))
    assert code == 2
    assert load_report(target).results[0].ok  # the measurements were not lost
    assert "cannot create the reports folder" in err
    assert "Fake a [a]: ok" in out


def _no_home(monkeypatch, tmp_path: Path) -> Path:
    """HOME unset and a uid without a passwd entry: Path.home() raises (as under some batch
    schedulers and containers)."""
    import torchrig.paths as paths

    def no_home(cls):
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("TORCHRIG_DATA_DIR")
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(paths.Path, "home", classmethod(no_home))
    monkeypatch.setattr(paths.tempfile, "tempdir", str(tmp_path))
    paths.fallback_dir.cache_clear()
    return paths.fallback_dir()


def test_without_a_home_folder_the_report_is_kept_in_a_working_folder(monkeypatch,
                                                                      tmp_path: Path):
    """bench measured, then crashed in Path.home() and the report was lost."""
    fallback = _no_home(monkeypatch, tmp_path)
    code, out, err = _cli("--quick", "--only", "b")
    assert code == 0, err
    assert f"TorchRig keeps its files in {fallback}" in err
    saved = list_reports()
    assert len(saved) == 1 and saved[0].is_relative_to(fallback)
    assert f"report saved: {saved[0]}" in err


def test_a_report_the_history_cannot_take_is_saved_in_the_working_folder(
        monkeypatch, tmp_path: Path):
    import torchrig.bench.cli as cli_bench
    from torchrig.errors import InputError

    def refuse(report):
        raise InputError("/nowhere/bench: cannot create the reports folder (Read-only)")

    monkeypatch.setattr(cli_bench, "save_to_history", refuse)
    monkeypatch.chdir(tmp_path)
    code, _out, err = _cli("--quick", "--only", "b")
    assert code == 2
    kept = tmp_path / "torchrig-bench-report.json"
    assert f"report saved instead: {kept}" in err
    assert load_report(kept).results[0].id == "b"
