"""``python -m torchrig.bench.collective.local --nproc N [options]``: the collective benchmark's
ranks on this machine, without torchrun and without a listening TCP store.

torchrun's agent always starts a TCPStore that listens on every interface (``*:PORT``) for
the whole run, whatever ``--master-addr`` says, so a client on the LAN could connect to it.
On one machine no network is needed to meet: this launcher gives the ranks a FileStore in a
private temporary folder (``TORCHRIG_COLLECTIVE_STORE``), and gloo/NCCL open their own
sockets on the loopback interface only (``GLOO_SOCKET_IFNAME``/``NCCL_SOCKET_IFNAME``, set by
:func:`torchrig.bench.collective.launch.local_child_env`).

It behaves like torchrun where the caller can tell: the ranks get RANK, LOCAL_RANK,
WORLD_SIZE, LOCAL_WORLD_SIZE and GROUP_WORLD_SIZE and each leads a session of its own; when
one exits non-zero the others are stopped and a torchrun-style "Root Cause" block names it;
the exit code is the failed rank's (1 for a signal). SIGTERM stops every rank.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from torchrig.bench.collective.worker import STORE_ENV

WORKER_MODULE = "torchrig.bench.collective"
_POLL_S = 0.05
_STOP_GRACE_S = 3.0


class _Stop(Exception):  # noqa: N818 - a signal, not an error
    pass


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise _Stop()


def _stop_all(procs: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    deadline = time.monotonic() + _STOP_GRACE_S
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _root_cause(rank: int, code: int) -> str:
    return ("Root Cause (first observed failure):\n"
            f"  rank      : {rank} (local_rank: {rank})\n"
            f"  exitcode  : {code}\n")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2 or argv[0] != "--nproc" or not argv[1].isdigit() or int(argv[1]) < 2:
        print("usage: python -m torchrig.bench.collective.local --nproc N [options]",
              file=sys.stderr)
        return 2
    nproc, worker_args = int(argv[1]), argv[2:]
    signal.signal(signal.SIGTERM, _on_sigterm)
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="torchrig-collective-store-") as folder:
        store = Path(folder) / "store"
        try:
            for rank in range(nproc):
                env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                           WORLD_SIZE=str(nproc), LOCAL_WORLD_SIZE=str(nproc),
                           GROUP_WORLD_SIZE="1", **{STORE_ENV: str(store)})
                # Each rank leads a session of its own, as torchrun starts its workers. Beyond
                # signals this decides the CPU share: Linux's autogroup scheduling
                # (kernel.sched_autogroup_enabled, on by default) shares the processors between
                # sessions first, so ranks in one session shared one rank's weight against
                # anything else running and read 0.81x torchrun's ranks at 1 MiB.
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", WORKER_MODULE, *worker_args],
                    stdin=subprocess.DEVNULL, env=env, start_new_session=os.name == "posix"))
            while True:
                codes = [proc.poll() for proc in procs]
                failed = [(rank, code) for rank, code in enumerate(codes)
                          if code not in (None, 0)]
                if failed:
                    rank, code = failed[0]
                    _stop_all(procs)
                    sys.stdout.flush()
                    print(_root_cause(rank, int(code or 1)), flush=True)
                    return int(code) if code and code > 0 else 1
                if all(code == 0 for code in codes):
                    return 0
                time.sleep(_POLL_S)
        except _Stop:
            _stop_all(procs)
            return 1
        finally:
            _stop_all(procs)


if __name__ == "__main__":
    sys.exit(main())
