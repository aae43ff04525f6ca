"""Start the collective benchmark on this machine, or spell the command for a cluster.

``launch_local`` runs ``python -m torch.distributed.run`` in a subprocess with a hard time
limit, streams its output into an unlinked temporary file (no thread, nothing left behind),
and on timeout, cancel or error ends the whole process tree: torchrun starts every worker in
a session of its own, so killing torchrun's process group alone would orphan the workers.
Besides the hard limit, a watchdog ends a run whose output has stopped growing for
``silence_s`` while a process of the tree is stopped (SIGSTOP, a debugger) or while the tree
is idle (:mod:`torchrig.bench.process.watchdog`, shared with the benchmark and plan-check
children), and says which processes were stopped.

Local runs do not use torchrun: its agent's TCPStore listens on every interface whatever
``--master-addr`` says. :mod:`torchrig.bench.collective.local` starts the ranks with a
FileStore instead, and gloo and NCCL sockets are pointed at the loopback interface, so a
single-machine run accepts no connection from outside (the report says so). Cluster runs use
torchrun with a c10d rendezvous on the address the user gives; docs/collective.md and the
Cluster tab state what that exposes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

import psutil

from torchrig.bench.collective.options import BACKENDS, OptionParser, parse_options
from torchrig.bench.collective.report import format_report, load_collective_report
from torchrig.bench.process.watchdog import (
    STARTUP_TIMEOUT_S,
    Silence,
    stopped_in_tree,
    tree_state,
    wake_and_terminate,
)
from torchrig.collective_math import OPS
from torchrig.errors import InputError

MODULE = "torchrig.bench.collective"
LOCAL_LAUNCHER = "torchrig.bench.collective.local"
LOCAL_HOST = "127.0.0.1"
DEFAULT_LAUNCH_TIMEOUT_S = 600.0
COLLECTIVE_SILENCE_S = 120.0
"""The least time without output before the watchdog ends a local run; it is at least twice
the workers' process-group timeout, so a lost rank is first reported by the workers
themselves (which rank, which operation)."""
MAX_LOCAL_PROCS = 64
RDZV_ID = "torchrig-collective"

_KILL_GRACE_S = 3.0
_TAIL_BYTES = 64 * 1024
_WORKER_LINE = re.compile(r"^torchrig\.bench\.collective rank (\d+): (.*)$", re.MULTILINE)
_PLAIN_LINE = re.compile(r"^torchrig\.bench\.collective: (.*)$", re.MULTILINE)
_ROOT_CAUSE = re.compile(
    r"Root Cause.*?rank\s*:\s*(\d+).*?exitcode\s*:\s*(-?\d+)", re.DOTALL)
_HOST_RE = re.compile(r"^[A-Za-z0-9._:\-\[\]]+$")
_PROGRESS_LINE = re.compile(r"^torchrig\.bench\.collective progress (\d+)/(\d+): (.+)$")


class CollectiveLaunchError(InputError):
    """A local launch that did not produce a report.

    Attributes:
        reason: ``"failed"`` (a rank or torchrun exited non-zero), ``"timeout"``,
            ``"hung"`` (the watchdog ended it) or ``"cancelled"``.
        log_tail: the last output of torchrun and the workers, for a details view.
    """

    def __init__(self, message: str, reason: str, log_tail: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.log_tail = log_tail


# --- command for a cluster ---------------------------------------------------------------------


def torchrun_command(nnodes: int, nproc_per_node: int, master_addr: str | None = None,
                     master_port: int | None = 29500, backend: str = "nccl",
                     json_path: str | Path | None = "collective.json",
                     extra_args: Sequence[str] = ()) -> str:
    """The command to run on every node of a cluster (the GUI shows it with a copy button).

    One node: ``--standalone``. Several: a c10d rendezvous at ``master_addr:master_port``,
    which must be reachable from every node (run the same command on each).
    """
    _check_int("nnodes", nnodes, 1, 100_000)
    _check_int("nproc_per_node", nproc_per_node, 1, 1024)
    if nnodes * nproc_per_node < 2:
        raise InputError("a collective needs at least 2 processes in total")
    if backend not in BACKENDS:
        raise InputError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    parse_options(list(extra_args))  # the same checks the workers will make
    argv = ["torchrun"]
    if nnodes == 1:
        argv += ["--standalone", "--nnodes", "1"]
    else:
        if not master_addr or not _HOST_RE.match(master_addr):
            raise InputError(f"master address {master_addr!r} is not a host name or IP address")
        if master_port is None:
            raise InputError("a multi-node run needs the rendezvous port (master_port)")
        _check_int("master_port", master_port, 1, 65535)
        host = f"[{master_addr}]" if ":" in master_addr and not master_addr.startswith("[") \
            else master_addr
        argv += ["--nnodes", str(nnodes), "--rdzv-backend", "c10d",
                 "--rdzv-endpoint", f"{host}:{master_port}", "--rdzv-id", RDZV_ID]
    argv += ["--nproc-per-node", str(nproc_per_node), "-m", MODULE, "--backend", backend]
    if json_path is not None:
        argv += ["--json", str(json_path)]
    argv += list(extra_args)
    return shlex.join(argv)


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{name} must be a whole number in {low}..{high}, got {value!r}")


# --- running a process tree ---------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessOutcome:
    returncode: int | None
    output_tail: str
    timed_out: bool
    cancelled: bool
    elapsed_s: float
    silent: str | None = None
    """Set when the watchdog ended the tree: ``"stopped"`` or ``"hung"``."""
    stopped_pids: tuple[int, ...] = ()
    """The processes found stopped when the watchdog ended the tree."""


def run_process_tree(cmd: Sequence[str], *, env: Mapping[str, str] | None, timeout_s: float,
                     cancel: threading.Event | None = None,
                     on_line: Callable[[str], None] | None = None,
                     poll_s: float = 0.1, silence_s: float | None = None,
                     startup_s: float = STARTUP_TIMEOUT_S) -> ProcessOutcome:
    """Run ``cmd`` with stdout+stderr captured; end it and all its descendants on timeout or
    cancel (checked every ``poll_s``), or, with ``silence_s``, when its output has not grown
    for that long (``startup_s`` before the first byte) while one of its processes is stopped
    or all are idle. Never leaves a process or a file behind."""
    fd, name = tempfile.mkstemp(prefix="torchrig-collective-", suffix=".log")
    os.close(fd)
    started = time.monotonic()
    timed_out = cancelled = False
    silent: str | None = None
    stopped: tuple[int, ...] = ()
    try:
        # Two independent handles: the children append through one while we read through
        # the other, so our reads never move the position they write at.
        with open(name, "ab") as sink, open(name, "rb") as source:
            if os.name == "posix":
                os.unlink(name)
            proc = subprocess.Popen(
                list(cmd), stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                env=None if env is None else dict(env), start_new_session=os.name == "posix",
            )
            pending = b""
            watch = None if silence_s is None else Silence(
                proc.pid, silence_s, startup_s,
                state=lambda pid: tree_state(pid, whole_tree=True))
            size = 0
            try:
                while True:
                    try:
                        proc.wait(timeout=poll_s)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    pending = _pump(source, pending, on_line)
                    if cancel is not None and cancel.is_set():
                        cancelled = True
                        break
                    if time.monotonic() - started >= timeout_s:
                        timed_out = True
                        break
                    if watch is not None:
                        grown = os.fstat(source.fileno()).st_size
                        if grown != size:
                            size = grown
                            watch.heard()
                        elif (silent := watch.verdict()) is not None:
                            stopped = tuple(stopped_in_tree(proc.pid))
                            break
            finally:
                if proc.poll() is None:
                    kill_tree(proc)
            pending = _pump(source, pending, on_line)
            if pending and on_line is not None:
                on_line(pending.decode("utf-8", "replace"))
            tail = _tail(source)
    finally:
        if os.path.exists(name):
            os.unlink(name)
    return ProcessOutcome(returncode=proc.returncode, output_tail=tail, timed_out=timed_out,
                          cancelled=cancelled, elapsed_s=time.monotonic() - started,
                          silent=silent, stopped_pids=stopped)


def _pump(source: BinaryIO, pending: bytes, on_line: Callable[[str], None] | None) -> bytes:
    chunk = source.read()
    if on_line is None:
        return b""
    if not chunk:
        return pending
    data = pending + chunk
    *lines, rest = data.split(b"\n")
    for line in lines:
        on_line(line.decode("utf-8", "replace"))
    return rest


def _tail(source: BinaryIO) -> str:
    size = source.seek(0, os.SEEK_END)
    source.seek(max(0, size - _TAIL_BYTES))
    return source.read().decode("utf-8", "replace")


def kill_tree(proc: subprocess.Popen[bytes], grace_s: float = _KILL_GRACE_S) -> None:
    """SIGTERM ``proc``'s process group (torchrun then stops its workers), then SIGTERM and
    finally SIGKILL every descendant still running, and reap ``proc``. Killing the group is
    not enough alone: torchrun puts each worker in a session of its own. Each SIGTERM comes
    with a SIGCONT, so that a stopped process gets it."""
    try:
        family = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        family = []
    # proc leads its own session, so its group reaches anything left in it too; proc is not
    # reaped yet, so the group id cannot belong to anyone else.
    wake_and_terminate(proc, grace_s)
    alive = [p for p in family if _running(p)]
    for child in alive:
        with contextlib.suppress(psutil.Error):
            child.terminate()
            child.resume()
    _, alive = psutil.wait_procs(alive, timeout=grace_s)
    for child in alive:
        with contextlib.suppress(psutil.Error):
            child.kill()
    psutil.wait_procs(alive, timeout=grace_s)
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _running(process: psutil.Process) -> bool:
    try:
        return bool(process.is_running())
    except psutil.Error:  # gone between listing and checking
        return False


# --- local launch -----------------------------------------------------------------------------


def loopback_interface() -> str | None:
    """The name of the interface holding 127.0.0.1 (``lo`` on Linux, ``lo0`` on macOS)."""
    try:
        for name, addresses in psutil.net_if_addrs().items():
            if any(a.family == socket.AF_INET and a.address == LOCAL_HOST for a in addresses):
                return name
    except (OSError, psutil.Error):  # the OS refused: let gloo/NCCL pick
        return None
    return None


def local_child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # The workers import torchrig; make sure they find this copy even when it is not installed.
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    # As torchrun does for several processes per node: one OpenMP thread per rank unless the
    # user says otherwise, so the ranks' torch ops do not fight over the cores (the plain
    # torchrun loop bench_suite_verify.py compares with runs that way).
    env.setdefault("OMP_NUM_THREADS", "1")
    loopback = loopback_interface()
    # Loopback only, even where the user's environment names another interface: a run on
    # one machine has no reason to be reachable from the network.
    if loopback is not None:
        env["GLOO_SOCKET_IFNAME"] = loopback
        env["NCCL_SOCKET_IFNAME"] = loopback
    env.update(extra or {})
    return env


def launch_local(nproc: int, backend: str | None, args: Sequence[str] = (),
                 timeout_s: float = DEFAULT_LAUNCH_TIMEOUT_S, *, json_path: Path | None = None,
                 cancel: threading.Event | None = None,
                 on_line: Callable[[str], None] | None = None,
                 extra_env: Mapping[str, str] | None = None,
                 silence_s: float | None = None) -> Path:
    """Run the benchmark with ``nproc`` processes on this machine; return the report's path.

    ``args`` are the benchmark's own options (``--sizes``, ``--ops``, ``--iters``,
    ``--warmup``, ``--timeout``); backend and report path are parameters. Without
    ``json_path`` the report goes into a new temporary folder that the caller then owns.
    ``on_line`` receives every output line (progress lines start with
    ``torchrig.bench.collective progress``). A run whose output stops for ``silence_s``
    (default: :data:`COLLECTIVE_SILENCE_S` or twice the workers' ``--timeout``, whichever is
    longer) while a process is stopped or all are idle is ended by the watchdog. Raises
    CollectiveLaunchError (an InputError) with one clear sentence when the run fails, times
    out, hangs or is cancelled.
    """
    _check_int("nproc", nproc, 2, MAX_LOCAL_PROCS)
    if backend is not None and backend not in BACKENDS:
        raise InputError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if not timeout_s > 0:
        raise InputError(f"time limit must be positive, got {timeout_s!r}")
    options = parse_options(list(args))
    if options.backend is not None or options.json_path is not None:
        raise InputError("pass the backend and the report path to launch_local as parameters, "
                         "not inside args")
    created_dir: Path | None = None
    if json_path is None:
        created_dir = Path(tempfile.mkdtemp(prefix="torchrig-collective-"))
        json_path = created_dir / "collective.json"
    json_path = Path(json_path)
    if not json_path.parent.is_dir():
        raise InputError(f"{json_path}: folder {json_path.parent} does not exist")
    options = replace(options, backend=backend, json_path=json_path.resolve())
    if silence_s is None:
        silence_s = max(COLLECTIVE_SILENCE_S, 2 * options.timeout_s)
    cmd = [sys.executable, "-m", LOCAL_LAUNCHER, "--nproc", str(nproc), *options.to_argv()]
    try:
        try:
            outcome = run_process_tree(cmd, env=local_child_env(extra_env),
                                       timeout_s=timeout_s, cancel=cancel, on_line=on_line,
                                       silence_s=silence_s)
        except OSError as exc:
            raise CollectiveLaunchError(f"could not start torchrun with {sys.executable} "
                                        f"({exc.strerror or exc})", "failed") from None
        if outcome.cancelled:
            raise CollectiveLaunchError("collective benchmark cancelled; all its processes "
                                        "were stopped", "cancelled", outcome.output_tail)
        if outcome.silent is not None:
            raise CollectiveLaunchError(describe_hang(outcome, silence_s), "hung",
                                        outcome.output_tail)
        if outcome.timed_out:
            raise CollectiveLaunchError(
                f"collective benchmark did not finish within {timeout_s:g} s and was stopped "
                "with all its processes; allow more time or measure fewer --sizes",
                "timeout", outcome.output_tail)
        if outcome.returncode != 0:
            raise CollectiveLaunchError(explain_failure(outcome.output_tail, outcome.returncode),
                                        "failed", outcome.output_tail)
        if not json_path.is_file():
            raise CollectiveLaunchError(f"collective benchmark finished but wrote no report at "
                                        f"{json_path}", "failed", outcome.output_tail)
    except BaseException:
        if created_dir is not None:
            shutil.rmtree(created_dir, ignore_errors=True)
        raise
    return json_path


def describe_hang(outcome: ProcessOutcome, silence_s: float) -> str:
    """The watchdog's sentence: how long the run said nothing, which processes were stopped
    (or that it was stopped or hung), and that every process was ended."""
    if outcome.stopped_pids:
        pids = ", ".join(str(p) for p in outcome.stopped_pids)
        what = (f"process {pids} was stopped (SIGSTOP or a debugger)"
                if len(outcome.stopped_pids) == 1 else
                f"processes {pids} were stopped (SIGSTOP or a debugger)")
    else:
        what = "it was stopped or hung"
    return (f"collective benchmark sent nothing for {silence_s:g} s: {what}; it was ended "
            "with all its processes")


def parse_progress(line: str) -> tuple[int, int, str] | None:
    """``(done, total, "all_reduce 1 MiB")`` from a progress line of rank 0, else None;
    for a progress bar fed by ``launch_local(on_line=...)``."""
    match = _PROGRESS_LINE.match(line.strip())
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), match.group(3)


def explain_failure(output: str, returncode: int | None) -> str:
    """One sentence naming the rank that failed first and why, from torchrun's summary and
    the workers' own ``torchrig.bench.collective rank N:`` lines."""
    by_rank: dict[int, str] = {}
    for match in _WORKER_LINE.finditer(output):
        by_rank.setdefault(int(match.group(1)), match.group(2).strip())
    plain = [m.group(1).strip() for m in _PLAIN_LINE.finditer(output)]
    root = _ROOT_CAUSE.search(output)
    if root is not None:
        rank, code = int(root.group(1)), int(root.group(2))
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        detail = by_rank.get(rank) or (plain[0] if plain else None)
        return f"collective benchmark failed: rank {rank} {how}" + (f": {detail}" if detail
                                                                    else "")
    if plain:
        return f"collective benchmark failed: {plain[0]}"
    if by_rank:
        rank = min(by_rank)
        return f"collective benchmark failed: rank {rank}: {by_rank[rank]}"
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    last = lines[-1][:300] if lines else "no output"
    return f"collective benchmark failed (torchrun exit code {returncode}): {last}"


# --- `torchrig bench --collective` --------------------------------------------------------------


def add_cli_arguments(parser: argparse.ArgumentParser, include_json: bool = True) -> None:
    """Options of ``torchrig bench --collective``; pass ``include_json=False`` when the parser
    already has ``--json`` (its ``dest`` must be ``json``)."""
    parser.add_argument("--nproc", type=int, help="processes to start (default: one per GPU "
                        "with nccl, 2 with gloo)")
    parser.add_argument("--backend", choices=BACKENDS, help="default: nccl with 2+ GPUs, else "
                        "gloo")
    parser.add_argument("--sizes", help="message sizes, e.g. 8..256M or 1K,1M (binary units)")
    parser.add_argument("--ops", help=f"comma list of {', '.join(OPS)} (default all)")
    parser.add_argument("--iters", help="timed iterations per size (default 20)")
    parser.add_argument("--warmup", help="untimed iterations per size (default 5 on nccl, 20 "
                        "on gloo)")
    parser.add_argument("--timeout", help="process-group timeout in seconds (default 60)")
    parser.add_argument("--launch-timeout", type=float, default=DEFAULT_LAUNCH_TIMEOUT_S,
                        help="hard limit for the whole run in seconds (default 600)")
    if include_json:
        parser.add_argument("--json", type=Path, help="keep the report in this file")


def _cli_parser() -> argparse.ArgumentParser:
    parser = OptionParser(prog="torchrig bench --collective",
                          description="Collective bandwidth on this machine (nccl-tests "
                          "conventions).")
    add_cli_arguments(parser)
    return parser


def resolve_local_run(nproc: int | None, backend: str | None) -> tuple[int, str]:
    """Fill in the process count and backend from this machine's GPUs."""
    if backend == "gloo":
        return (2 if nproc is None else nproc), "gloo"
    gpus = _cuda_device_count()
    if backend == "nccl":
        if gpus == 0:
            raise InputError("--backend nccl needs CUDA GPUs and none are usable here; use "
                             "--backend gloo to measure over CPUs")
        count = gpus if nproc is None else nproc
        if count > gpus:
            raise InputError(f"--nproc {count} with nccl needs {count} GPUs; this machine has "
                             f"{gpus}")
        return count, "nccl"
    if gpus >= 2 and (nproc is None or nproc <= gpus):
        return (gpus if nproc is None else nproc), "nccl"
    return (2 if nproc is None else nproc), "gloo"


def _cuda_device_count() -> int:
    try:
        import torch
    except ImportError:
        return 0
    try:
        return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0
    except Exception:  # a broken driver: behave as without GPUs
        return 0


def run_collective_cli(args: argparse.Namespace | Sequence[str]) -> int:
    """``torchrig bench --collective``: launch locally, print the table; returns the exit
    code (0 ok, 2 bad options or a failed launch with one line on stderr, 130 interrupted).

    ``args`` is a namespace with the attributes ``add_cli_arguments`` defines (missing ones
    take their defaults), or an argument list.
    """
    try:
        if not isinstance(args, argparse.Namespace):
            args = _cli_parser().parse_args(list(args))
        worker_args: list[str] = []
        for name in ("sizes", "ops", "iters", "warmup", "timeout"):
            value = getattr(args, name, None)
            if value is not None:
                worker_args += [f"--{name}", str(value)]
        parse_options(worker_args)  # option errors before any GPU probing
        nproc, backend = resolve_local_run(getattr(args, "nproc", None),
                                           getattr(args, "backend", None))
        limit = getattr(args, "launch_timeout", None) or DEFAULT_LAUNCH_TIMEOUT_S
        keep = getattr(args, "json", None)
        progress = _ProgressLine()
        with tempfile.TemporaryDirectory(prefix="torchrig-collective-") as folder:
            target = Path(keep) if keep is not None else Path(folder) / "collective.json"
            try:
                path = launch_local(nproc, backend, worker_args, limit, json_path=target,
                                    on_line=progress.show if progress.enabled else None)
            finally:
                progress.clear()
            _print(format_report(load_collective_report(path)))
        if keep is not None:
            _print(f"report written to {path}")
        return 0
    except InputError as exc:
        _print(f"torchrig bench --collective: {exc}", error=True)
        return 2
    except KeyboardInterrupt:
        _print("torchrig bench --collective: interrupted; all processes were stopped",
               error=True)
        return 130


def _print(text: str, error: bool = False) -> None:
    stream = sys.stderr if error else sys.stdout
    if stream is not None:  # None in a Windows GUI process
        print(text, file=stream, flush=True)


class _ProgressLine:
    """One self-overwriting progress line on an interactive stderr; silent otherwise."""

    def __init__(self) -> None:
        self.stream = sys.stderr
        self.enabled = self.stream is not None and self.stream.isatty()
        self.shown = False

    def show(self, line: str) -> None:
        progress = parse_progress(line)
        if progress is not None:
            done, total, label = progress
            print(f"\r{done}/{total} {label:<50}", end="", file=self.stream, flush=True)
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            print("\r" + " " * 60 + "\r", end="", file=self.stream, flush=True)
