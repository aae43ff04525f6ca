"""Both ends of the JSON-lines pipe between TorchRig and a torch child process.

Work that imports torch and runs kernels - the benchmark suite
(:mod:`torchrig.bench.process.child`), the plan check (:mod:`torchrig.verify.child`) - runs in a
process of its own: a segfault in a kernel, a driver crash or the kernel's out-of-memory killer
then ends that process, not the window, and torch's import never holds the GUI's interpreter
lock.

The parent (:func:`run_child`) writes one JSON request line to the child's stdin and reads JSON
lines (``{"type": ..., ...}``) from its stdout until the child's final message; a line
``cancel`` on stdin asks the child to stop, and a child that has not ended
:data:`CANCEL_GRACE_S` after that is killed with everything it started. The child side
(:func:`serve`) keeps the protocol on a private copy of stdout (fd 1 points at stderr, so a
stray ``print`` or a C library cannot corrupt it), reads stdin with os.read on a private
descriptor, and ends with ``os._exit``.

Neither side waits for ever on the other: the child beats (a ``heartbeat`` line at a fixed
interval from a thread of its own) and the parent ends a child that has sent nothing for
``silence_s`` (:mod:`torchrig.bench.process.watchdog`), saying so in :attr:`ChildEnd.silent`.

Nothing here imports torch or Qt.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from torchrig.bench.process.watchdog import (
    HEARTBEAT,
    HEARTBEAT_ENV,
    SILENCE_TIMEOUT_S,
    STARTUP_TIMEOUT_S,
    Silence,
    describe_silence,
    heartbeat_interval,
    interval_from_env,
    start_heartbeat,
    stopped_in_tree,
    wake_and_terminate,
    with_stopped,
)
from torchrig.errors import InputError
from torchrig.i18n import Msg

CANCEL_LINE = "cancel"
CANCEL_GRACE_S = 0.6
"""After asking the child to stop, how long to wait before killing it: work checks cancel at
least every ~0.2 s, and the child still has to write what it has."""
EXIT_WAIT_S = 3.0
"""How long a child that sent its final message may take to exit before it is killed."""
_STDERR_LINES = 200


class BenchProcessError(InputError):
    """The child ended before it had told anything (it could not start, or crashed while
    importing); ``details`` holds the end of its stderr."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


# --- the parent --------------------------------------------------------------------------------


def child_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment, with this copy of torchrig first on the child's path."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


BENCH_PROCESS = Msg("the benchmark process", "基准测试进程")
VERIFY_PROCESS = Msg("the measurement process", "实测进程")


def describe_exit(returncode: int | None, what: Msg = BENCH_PROCESS) -> Msg:
    """How the child ended, for people: a signal by name, else the exit code."""
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint_en = hint_zh = ""
        if -returncode == getattr(signal, "SIGKILL", 9):
            hint_en = " (killed: the system's out-of-memory killer, or another program)"
            hint_zh = "（被强制结束：系统内存不足时的 OOM killer 或其他程序）"
        elif -returncode in (getattr(signal, "SIGSEGV", 11), getattr(signal, "SIGBUS", 7)):
            hint_en = " (a crash in native code: a kernel, a driver or a library)"
            hint_zh = "（本地代码崩溃：内核函数、驱动或库）"
        return Msg(f"{what.en} was ended by {name}{hint_en}", f"{what.zh}被 {name} 结束{hint_zh}")
    return Msg(f"{what.en} exited with code {returncode}", f"{what.zh}以退出码 {returncode} 结束")


def kill_child(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child and everything it started (DataLoader workers, helpers): the child
    leads its own process group; descendants that left it are found through psutil."""
    try:
        import psutil

        family = psutil.Process(proc.pid).children(recursive=True)
    except Exception:  # noqa: BLE001 - already gone, or no psutil: the group kill still runs
        family = []
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
    for child in family:
        with contextlib.suppress(Exception):
            child.kill()
    proc.wait()


@dataclass(frozen=True)
class ChildEnd:
    """How a child run ended: its exit status, the end of its stderr, whether it was
    killed because it did not stop when asked, and, when the watchdog ended it, the sentence
    saying so (:func:`~torchrig.bench.process.watchdog.describe_silence`)."""

    returncode: int | None
    stderr_tail: tuple[str, ...]
    killed_for_cancel: bool
    silent: Msg | None = None
    stopped: Msg | None = None
    """Why the caller's ``stop_check`` ended the child (a deadline), when it did."""

    def last_words(self) -> str:
        """The last non-empty stderr line (an import error, a traceback's last line)."""
        return next((t.strip() for t in reversed(self.stderr_tail) if t.strip()), "")


def _read_lines(stream: IO[bytes], sink: queue.Queue[str | None]) -> None:
    for raw in stream:
        sink.put(raw.decode("utf-8", "replace"))
    sink.put(None)


def _keep_tail(stream: IO[bytes], tail: collections.deque[str]) -> None:
    for raw in stream:
        tail.append(raw.decode("utf-8", "replace").rstrip("\n"))


def run_child(module: str, request: Mapping[str, Any], *, cancel: threading.Event,
              on_line: Callable[[str], bool], what: Msg = BENCH_PROCESS,
              env: Mapping[str, str] | None = None, python: str | None = None,
              silence_s: float = SILENCE_TIMEOUT_S,
              startup_s: float = STARTUP_TIMEOUT_S,
              stop_check: Callable[[], Msg | None] | None = None) -> ChildEnd:
    """Run ``python -m module``, send ``request``, and give each stdout line to ``on_line``
    (on this thread) until the child ends. ``on_line`` returns True once the child's final
    message has arrived: from then on cancel no longer kills it, and it has
    :data:`EXIT_WAIT_S` to exit. Heartbeat lines are not passed on.

    A child that sends nothing for ``silence_s`` (``startup_s`` before its first line) is
    stopped or hung: it is ended (SIGTERM and SIGCONT, SIGKILL after a grace) and
    ``ChildEnd.silent`` says so. ``stop_check`` is asked about every 50 ms (and after each
    line) until the final message: when it returns a sentence, the child and everything it
    started are killed at once and ``ChildEnd.stopped`` keeps the sentence.

    Raises:
        BenchProcessError: the child could not be started.
    """
    beat = {HEARTBEAT_ENV: f"{heartbeat_interval(silence_s):g}", **(env or {})}
    try:
        proc = subprocess.Popen(
            [python or sys.executable, "-m", module], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env(beat),
            start_new_session=os.name == "posix")
    except OSError as exc:
        raise BenchProcessError(f"could not start {what.en} ({exc})") from None
    lines: queue.Queue[str | None] = queue.Queue()
    tail: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
    readers = [threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True,
                                name=f"{module}-stdout"),
               threading.Thread(target=_keep_tail, args=(proc.stderr, tail), daemon=True,
                                name=f"{module}-stderr")]
    for reader in readers:
        reader.start()
    asked_at: float | None = None
    finished_at: float | None = None
    killed_for_cancel = False
    silence = Silence(proc.pid, silence_s, startup_s)
    silent: Msg | None = None
    stopped: Msg | None = None
    assert proc.stdin is not None
    try:
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
            proc.stdin.flush()
        except OSError:
            pass  # it died at once: the caller reports it from the exit status and stderr
        while True:
            if cancel.is_set() and asked_at is None:
                asked_at = time.monotonic()
                with contextlib.suppress(OSError):
                    proc.stdin.write(f"{CANCEL_LINE}\n".encode())
                    proc.stdin.flush()
            now = time.monotonic()
            if asked_at is not None and finished_at is None and \
                    now - asked_at > CANCEL_GRACE_S and proc.poll() is None:
                kill_child(proc)
                killed_for_cancel = True
            if finished_at is not None and now - finished_at > EXIT_WAIT_S and \
                    proc.poll() is None:
                kill_child(proc)
            if silent is None and finished_at is None and not killed_for_cancel and \
                    lines.empty() and (verdict := silence.verdict()) is not None:
                silent = describe_silence(what, proc.pid, silence.limit_s, verdict)
                if not wake_and_terminate(proc):
                    kill_child(proc)
            if stop_check is not None and stopped is None and finished_at is None and \
                    not killed_for_cancel and lines.empty() and \
                    (why := stop_check()) is not None:
                stopped = with_stopped(why, what, proc.pid, stopped_in_tree(proc.pid))
                kill_child(proc)
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                continue
            if line is None:
                break
            silence.heard()
            if _is_heartbeat(line):
                continue
            if on_line(line) and finished_at is None:
                finished_at = time.monotonic()
    finally:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        if proc.poll() is None:
            try:
                proc.wait(timeout=EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                kill_child(proc)
        for reader in readers:
            reader.join(timeout=2)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    return ChildEnd(proc.returncode, tuple(tail), killed_for_cancel, silent, stopped)


def _is_heartbeat(line: str) -> bool:
    message = parse_line(line) if HEARTBEAT in line else None
    return message is not None and message["type"] == HEARTBEAT


def parse_line(line: str) -> dict[str, Any] | None:
    """A protocol message, or None for anything else (stdout is private to the protocol, so
    this is defensive)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) and "type" in message else None


# --- the child ---------------------------------------------------------------------------------


def parse_request(line: str, needs: str, who: str) -> dict[str, Any]:
    """The request line as a JSON object with an object field ``needs``, or InputError naming
    ``who`` (the child) and what is wrong."""
    try:
        request = json.loads(line)
    except ValueError:
        raise InputError(f"{who}: the request is not JSON") from None
    if not isinstance(request, dict) or not isinstance(request.get(needs), dict):
        raise InputError(f"{who}: the request has no {needs}")
    return request


class Channel:
    """Writes protocol lines; one lock so helper threads and the work never interleave half
    lines."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.lock = threading.Lock()

    def send(self, kind: str, **fields: Any) -> None:
        line = json.dumps({"type": kind, **fields}, ensure_ascii=True)
        with self.lock:
            self.stream.write(line + "\n")
            self.stream.flush()


def read_line(fd: int) -> str | None:
    """One line from ``fd`` with os.read: no Python file object, so no lock that a fork
    (DataLoader workers) could copy while held. None at end of file."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1)
        if not chunk:
            return None if not data else data.decode("utf-8", "replace")
        data += chunk
    return data.decode("utf-8", "replace")


def _watch_stdin(fd: int, cancel: threading.Event) -> None:
    while True:
        line = read_line(fd)
        if line is None or line.strip() == CANCEL_LINE:
            break
    cancel.set()  # "cancel", or the parent closed the pipe (it went away): stop either way


def _private_stdin() -> int:
    """Move the parent's pipe off fd 0 and leave an unlocked /dev/null as sys.stdin: a thread
    blocked reading sys.stdin holds its buffer lock, and a DataLoader worker forked meanwhile
    deadlocks when multiprocessing closes sys.stdin in the new process."""
    fd = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    return fd


def _protocol_stream() -> IO[str]:
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return stream


def serve(read_request: Callable[[str], dict[str, Any]],
          work: Callable[[dict[str, Any], Channel, threading.Event], int]) -> None:
    """A child's main: read the request, run ``work`` with a cancel token that the parent's
    ``cancel`` line (or its going away) sets, and exit with ``work``'s code. A request that
    ``read_request`` refuses is sent back as ``input_error`` (exit 2). A heartbeat line goes
    out every ``$TORCHRIG_HEARTBEAT_S`` seconds from start to exit."""
    # Ctrl-C in a terminal reaches the whole foreground group; the parent decides what a
    # Ctrl-C means and tells this process through stdin.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    channel = Channel(_protocol_stream())
    start_heartbeat(lambda: channel.send(HEARTBEAT), interval_from_env())
    control = _private_stdin()
    try:
        request = read_request(read_line(control) or "")
    except InputError as exc:
        channel.send("input_error", message=str(exc))
        code = 2
    else:
        cancel = threading.Event()
        threading.Thread(target=_watch_stdin, args=(control, cancel),
                         name="torchrig-child-stdin", daemon=True).start()
        code = work(request, channel, cancel)
    sys.stderr.flush()
    # Tearing torch's thread pools down adds nothing and can hang after a failed kernel.
    os._exit(code)
