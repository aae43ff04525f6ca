"""Local launcher, cluster command line, failure messages and real gloo runs under torchrun."""

from __future__ import annotations

import contextlib
import glob
import ipaddress
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import psutil
import pytest

from torchrig.bench.collective import launch as collective_launch
from torchrig.bench.collective.launch import (
    CollectiveLaunchError,
    explain_failure,
    launch_local,
    parse_progress,
    resolve_local_run,
    run_collective_cli,
    run_process_tree,
    torchrun_command,
)
from torchrig.bench.collective.report import load_collective_report
from torchrig.bench.collective.worker import FAULT_ENV
from torchrig.collective_math import bus_factor
from torchrig.errors import InputError

SMALL = ["--sizes", "8..4K", "--iters", "3", "--warmup", "1"]


def _log_files() -> set[str]:
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "torchrig-collective-*")))


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _processes_mentioning(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if marker in cmdline and proc.info.get("status") != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


@pytest.fixture
def no_leftovers(tmp_path_factory, monkeypatch):
    """Every test that starts processes must end them all and remove its log file. Temporary
    files go to a folder of the test's own, so runs of other test sessions on the same machine
    (their logs in the shared /tmp) cannot look like this test's leftovers."""
    private = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    monkeypatch.setenv("TMPDIR", str(private))
    me = psutil.Process()
    before = {p.pid for p in me.children(recursive=True)}
    logs = _log_files()
    yield
    left = [p for p in me.children(recursive=True) if p.pid not in before and not _gone(p.pid)]
    assert not left, f"processes left behind: {[p.cmdline() for p in left]}"
    assert _log_files() == logs


# --- the command for a cluster ------------------------------------------------------------------


def test_single_node_command_is_standalone():
    assert torchrun_command(1, 8, None, None, "nccl", "out.json") == (
        "torchrun --standalone --nnodes 1 --nproc-per-node 8 -m torchrig.bench.collective "
        "--backend nccl --json out.json")


def test_multi_node_command_uses_c10d_rendezvous():
    command = torchrun_command(2, 8, "10.0.0.1", 29500, "nccl", "/shared/my results.json",
                               extra_args=["--sizes", "1M..1G"])
    assert command == (
        "torchrun --nnodes 2 --rdzv-backend c10d --rdzv-endpoint 10.0.0.1:29500 "
        "--rdzv-id torchrig-collective --nproc-per-node 8 -m torchrig.bench.collective "
        "--backend nccl --json '/shared/my results.json' --sizes 1M..1G")
    ipv6 = torchrun_command(4, 2, "fe80::1", 29400, "gloo", None)
    assert "--rdzv-endpoint '[fe80::1]:29400'" in ipv6 and "--json" not in ipv6


def test_commands_parse_with_this_torchrun():
    run = pytest.importorskip("torch.distributed.run")
    for command in (torchrun_command(1, 2, None, None, "gloo", "r.json"),
                    torchrun_command(3, 4, "head-node", 29500, "nccl", "r.json")):
        args = run.get_args_parser().parse_args(shlex.split(command)[1:])
        assert args.module and args.training_script == "torchrig.bench.collective"


@pytest.mark.parametrize(
    ("call", "message"),
    [(lambda: torchrun_command(0, 8, "h", 1, "nccl", "r"), "nnodes"),
     (lambda: torchrun_command(1, 0, "h", 1, "nccl", "r"), "nproc_per_node"),
     (lambda: torchrun_command(1, 1, None, None, "nccl", "r"), "at least 2"),
     (lambda: torchrun_command(2, 8, "h", 1, "mpi", "r"), "backend"),
     (lambda: torchrun_command(2, 8, "bad host", 1, "nccl", "r"), "master address"),
     (lambda: torchrun_command(2, 8, None, 1, "nccl", "r"), "master address"),
     (lambda: torchrun_command(2, 8, "h", 70000, "nccl", "r"), "master_port"),
     (lambda: torchrun_command(2, 8, "h", None, "nccl", "r"), "port"),
     (lambda: torchrun_command(2, 8, "h", 1, "nccl", "r", ["--iters", "0"]), "--iters")],
)
def test_command_rejects_bad_input(call, message):
    with pytest.raises(InputError, match=message):
        call()


# --- failure messages -----------------------------------------------------------------------------

TORCHRUN_FAILURE = """\
torchrig.bench.collective rank 0: failed: RuntimeError: [pair.cc:537] Connection reset by peer
torchrig.bench.collective rank 1: exiting early on purpose (TORCHRIG_COLLECTIVE_TEST_EXIT_RANK=1)
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
torchrig.bench.collective FAILED
------------------------------------------------------------
Failures:
[1]:
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 5762)  (SIGTERM)
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-01-01_15:32:14
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : 3 (pid: 5763)
============================================================
"""


def test_failure_names_the_root_cause_rank_and_its_message():
    assert explain_failure(TORCHRUN_FAILURE, 1) == (
        "collective benchmark failed: rank 1 exited with code 3: exiting early on purpose "
        "(TORCHRIG_COLLECTIVE_TEST_EXIT_RANK=1)")


def test_failure_by_signal_and_without_worker_lines():
    text = TORCHRUN_FAILURE.replace("exitcode  : 3", "exitcode  : -9").replace(
        "torchrig.bench.collective rank 1:", "other:")
    assert explain_failure(text, 1) == "collective benchmark failed: rank 1 was killed by signal 9"


def test_failure_from_option_error_and_from_unknown_output():
    assert explain_failure("torchrig.bench.collective: --sizes: bad\n", 1) == \
        "collective benchmark failed: --sizes: bad"
    assert explain_failure("torchrig.bench.collective rank 2: failed: boom\n", 1) == \
        "collective benchmark failed: rank 2: failed: boom"
    assert explain_failure("line one\nModuleNotFoundError: torch\n\n", 1) == \
        "collective benchmark failed (torchrun exit code 1): ModuleNotFoundError: torch"
    assert "no output" in explain_failure("", None)


def test_parse_progress():
    assert parse_progress("torchrig.bench.collective progress 3/52: all_gather 1 MiB\n") == (
        3, 52, "all_gather 1 MiB")
    assert parse_progress("torchrig.bench.collective rank 0: failed") is None


# --- the process-tree runner ----------------------------------------------------------------------

SPAWNER = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                         start_new_session=True)
print("child", child.pid, flush=True)
time.sleep(60)
"""


def test_runner_collects_lines_and_exit_code(no_leftovers):
    lines: list[str] = []
    outcome = run_process_tree(
        [sys.executable, "-c", "import sys; print('one'); print('two', file=sys.stderr); "
         "sys.exit(4)"], env=None, timeout_s=30, on_line=lines.append)
    assert outcome.returncode == 4
    assert not outcome.timed_out and not outcome.cancelled
    assert lines == ["one", "two"]
    assert "one" in outcome.output_tail and "two" in outcome.output_tail


def test_runner_timeout_kills_grandchildren_in_their_own_session(no_leftovers):
    lines: list[str] = []
    outcome = run_process_tree([sys.executable, "-c", SPAWNER], env=None, timeout_s=2.0,
                               on_line=lines.append)
    # Ended by the limit (SIGTERM), not by its own end 60 s later (exit code 0).
    assert outcome.timed_out and outcome.returncode == -signal.SIGTERM
    pid = int(next(line for line in lines if line.startswith("child")).split()[1])
    assert _gone(pid)


def test_runner_cancel_stops_the_tree_within_a_second(no_leftovers):
    cancel = threading.Event()
    pids: list[int] = []

    def on_line(line: str) -> None:
        if line.startswith("child"):
            pids.append(int(line.split()[1]))
            cancel.set()

    outcome = run_process_tree([sys.executable, "-c", SPAWNER], env=None, timeout_s=60,
                               cancel=cancel, on_line=on_line)
    assert outcome.cancelled and not outcome.timed_out
    assert outcome.returncode == -signal.SIGTERM  # ended, not run to its end
    assert pids and _gone(pids[0])


# --- launcher checks that need no process ---------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"nproc": 1}, "nproc"),
     ({"nproc": 65}, "nproc"),
     ({"backend": "mpi"}, "backend"),
     ({"timeout_s": 0}, "time limit"),
     ({"args": ["--backend", "gloo"]}, "as parameters"),
     ({"args": ["--sizes", "lots"]}, "--sizes"),
     ({"json_path": Path("/nonexistent-folder/r.json")}, "does not exist")],
)
def test_launch_local_validates_before_starting(kwargs, message, no_leftovers):
    call = {"nproc": 2, "backend": "gloo", "args": [], "timeout_s": 30.0, **kwargs}
    json_path = call.pop("json_path", None)
    with pytest.raises(InputError, match=message):
        launch_local(call["nproc"], call["backend"], call["args"], call["timeout_s"],
                     json_path=json_path)


def test_resolve_local_run(monkeypatch):
    monkeypatch.setattr(collective_launch, "_cuda_device_count", lambda: 0)
    assert resolve_local_run(None, None) == (2, "gloo")
    assert resolve_local_run(3, "gloo") == (3, "gloo")
    with pytest.raises(InputError, match="needs CUDA GPUs"):
        resolve_local_run(None, "nccl")
    monkeypatch.setattr(collective_launch, "_cuda_device_count", lambda: 4)
    assert resolve_local_run(None, None) == (4, "nccl")
    assert resolve_local_run(2, None) == (2, "nccl")
    assert resolve_local_run(8, None) == (8, "gloo")
    with pytest.raises(InputError, match="needs 8 GPUs"):
        resolve_local_run(8, "nccl")


@pytest.mark.parametrize(
    "argv",
    [["--nproc", "1", "--backend", "gloo"], ["--sizes", "abc"], ["--bogus"],
     ["--nproc", "two"], ["--iters", "-1", "--backend", "gloo"]],
)
def test_cli_bad_launch_is_one_line_exit_2(argv, capsys, no_leftovers):
    assert run_collective_cli(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("torchrig bench --collective: ")
    assert captured.out == ""


def test_cli_nccl_without_gpus_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(collective_launch, "_cuda_device_count", lambda: 0)
    assert run_collective_cli(["--backend", "nccl"]) == 2
    assert "needs CUDA GPUs" in capsys.readouterr().err


# --- real runs under torchrun (gloo over loopback) ----------------------------------------------


def _check_report(path: Path, world: int) -> None:
    report = load_collective_report(path)
    assert report.transport.world_size == world
    assert report.transport.backend == "gloo"
    assert report.transport.master_addr == "127.0.0.1"
    assert report.transport.master_addr_local is True
    assert report.settings.timing == "barrier_perf_counter"
    assert sorted(r.rank for r in report.ranks) == list(range(world))
    assert report.results
    for row in report.results:
        assert row.verified, row
        assert row.bus_factor == bus_factor(row.op, world)
        assert row.algbw == row.n_bytes / row.time_s
        assert row.busbw == row.algbw * bus_factor(row.op, world)
        assert [t.rank for t in row.per_rank] == list(range(world))
        assert all(0 < t.min_s <= t.median_s <= t.max_s for t in row.per_rank)
        # The row's time is the mean of per-iteration maxima over ranks.
        assert row.time_s <= max(t.max_s for t in row.per_rank)
        assert row.time_s >= max(t.min_s for t in row.per_rank)
    for op in ("all_reduce", "all_gather", "reduce_scatter"):
        rows = report.results_for(op)
        summary = report.summary[op]
        assert summary.busbw_at_largest == rows[-1].busbw
        assert summary.latency_s == rows[0].time_s


@pytest.mark.slow
def test_two_process_gloo_run_through_the_cli(tmp_path, capsys, no_leftovers):
    path = tmp_path / "two.json"
    assert run_collective_cli(["--backend", "gloo", "--nproc", "2", *SMALL,
                               "--json", str(path)]) == 0
    _check_report(path, 2)
    out = capsys.readouterr().out
    assert "all_reduce" in out and "busbw at largest" in out
    assert f"report written to {path}" in out


@pytest.mark.slow
def test_four_process_gloo_run(tmp_path, no_leftovers):
    path = tmp_path / "four.json"
    lines: list[str] = []
    # The 60 s hard limit bounds the test; on an idle 2-core machine it takes about 11 s.
    returned = launch_local(4, "gloo", SMALL, 60, json_path=path, on_line=lines.append)
    assert returned == path
    _check_report(path, 4)
    report = load_collective_report(path)
    # 8 bytes cannot give 4 ranks one float each for all-gather / reduce-scatter.
    assert {(s.op, s.requested_bytes) for s in report.skipped} == {
        ("all_gather", 8), ("reduce_scatter", 8)}
    progress = [p for p in map(parse_progress, lines) if p is not None]
    total = len(report.results)
    assert progress[-1] == (total, total, "reduce_scatter 4 KiB")
    assert [done for done, _, _ in progress] == list(range(1, total + 1))


@pytest.mark.slow
def test_a_dying_rank_gives_a_clear_error_quickly(tmp_path, no_leftovers):
    with pytest.raises(CollectiveLaunchError) as info:
        launch_local(2, "gloo", SMALL, 60, json_path=tmp_path / "r.json",
                     extra_env={FAULT_ENV: "1"})
    # "failed", not "timeout": the launcher reported the dead rank instead of waiting for
    # the 60 s limit (or the workers' own process-group timeout).
    assert info.value.reason == "failed"
    assert str(info.value).startswith("collective benchmark failed: rank 1 exited with code 3")
    assert "Root Cause" in info.value.log_tail
    assert not (tmp_path / "r.json").exists()
    assert not _processes_mentioning(str(tmp_path))


@pytest.mark.slow
def test_hard_time_limit_stops_torchrun_and_every_worker(tmp_path, no_leftovers):
    with pytest.raises(CollectiveLaunchError) as info:
        launch_local(2, "gloo", ["--sizes", "64K", "--iters", "10000"], 4.0,
                     json_path=tmp_path / "r.json")
    assert info.value.reason == "timeout"
    assert "did not finish within 4 s" in str(info.value)
    assert not _processes_mentioning(str(tmp_path))


def test_importing_the_public_api_does_not_load_torch():
    """The GUI imports this module on its main thread; torch loads only in the workers."""
    code = ("import sys, torchrig.bench.collective, torchrig.bench.collective.topology; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_runner_keeps_a_line_written_in_pieces(no_leftovers):
    lines: list[str] = []
    code = ("import sys, time; sys.stdout.write('par'); sys.stdout.flush(); time.sleep(0.5); "
            "print('tial'); sys.stdout.write('no newline')")
    outcome = run_process_tree([sys.executable, "-c", code], env=None, timeout_s=30,
                               on_line=lines.append)
    assert outcome.returncode == 0
    assert lines == ["partial", "no newline"]


def _listening_sockets(pids: set[int]) -> list[tuple[str, int, int]]:
    """(address, port, pid) of every TCP/UDP socket of ``pids`` that listens or is bound
    without a peer."""
    found = []
    for conn in psutil.net_connections(kind="inet"):
        if conn.pid in pids and conn.laddr and not conn.raddr and (
                conn.status in (psutil.CONN_LISTEN, psutil.CONN_NONE)):
            found.append((conn.laddr.ip, conn.laddr.port, conn.pid))
    return found


@pytest.mark.slow
def test_a_local_run_listens_on_loopback_only(tmp_path, no_leftovers):
    """issue 13: torchrun's TCPStore listened on every interface (``*:PORT pt_elastic``).
    While a real 2-process gloo run is between its first and last message size, every socket
    its processes listen on must be a loopback address."""
    me = psutil.Process()
    seen: list[tuple[str, int, int]] = []
    tree_sizes: list[int] = []
    rank_sessions: list[tuple[int, int]] = []

    def look(line: str) -> None:
        progress = parse_progress(line)
        if progress is None or progress[0] != 1 or tree_sizes:
            return
        family = me.children(recursive=True)
        tree = {p.pid for p in family}
        tree_sizes.append(len(tree))
        seen.extend(_listening_sockets(tree))
        for process in family:
            with contextlib.suppress(psutil.Error, OSError):
                argv = process.cmdline()
                if "torchrig.bench.collective" in argv:  # a rank, not the launcher (.local)
                    rank_sessions.append((process.pid, os.getsid(process.pid)))

    # Small sizes and few iterations: the look happens at the first size's progress line.
    # No --warmup: the report records gloo's own default, as the plain loop warms up.
    launch_local(2, "gloo", ["--sizes", "8..4K", "--iters", "5"], 120,
                 json_path=tmp_path / "r.json", on_line=look)
    assert load_collective_report(tmp_path / "r.json").settings.warmup == 20
    # Each rank leads a session of its own, as under torchrun: Linux's autogroup scheduling
    # shares the CPUs between sessions, and ranks sharing one read 0.81x at 1 MiB.
    assert len(rank_sessions) == 2
    assert all(pid == sid for pid, sid in rank_sessions), rank_sessions
    assert tree_sizes and tree_sizes[0] >= 3  # launcher + 2 ranks were alive when looked at
    assert seen, "gloo listens for its peers: the look happened while the run was alive"
    outside = [s for s in seen if not ipaddress.ip_address(s[0]).is_loopback]
    assert not outside, f"listening beyond loopback: {outside}"


def test_ranks_get_one_openmp_thread_as_under_torchrun_unless_the_user_set_it(monkeypatch):
    from torchrig.bench.collective.launch import local_child_env

    # torchrun sets OMP_NUM_THREADS=1 for each process when nproc-per-node > 1 and the
    # variable is unset (its "Setting OMP_NUM_THREADS environment variable" banner)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert local_child_env()["OMP_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert local_child_env()["OMP_NUM_THREADS"] == "3"
