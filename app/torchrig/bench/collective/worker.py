"""What every rank runs under torchrun: time the collectives, gather timings, rank 0 reports.

Timing follows nccl-tests: after the warm-up, each timed interval holds N back-to-back
operations and the time per operation is the interval / N. N is chosen per message size from
the warm-up so one interval lasts at least :data:`TARGET_INTERVAL_S` (a single small gloo
call is dominated by scheduling noise: per-call times jumped between 0.5 and 5 ms), capped at
:data:`MAX_OPS_PER_TIMING`; all ranks agree on the largest N. ``--iters`` such intervals are
taken, so the slowest rank of each can be found and the spread reported:

* on GPUs (NCCL) a CUDA event pair around each interval, on the current stream;
* on CPUs (gloo) ``dist.barrier()`` then ``perf_counter`` around the interval, so every rank
  starts each interval together.

Every rank sends its timings to all others at the end (one all-gather of a float64 tensor; no
pickled objects cross the network), and rank 0 builds and writes the report.

Messages meant for the launcher start with ``torchrig.bench.collective rank N:`` so it can
name the rank that failed first.
"""

from __future__ import annotations

import contextlib
import inspect
import ipaddress
import json
import math
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import torchrig
from torchrig.bench.collective.options import CollectiveOptions, parse_options
from torchrig.bench.collective.report import (
    ENV_HINTS,
    CollectiveReport,
    RankInfo,
    Settings,
    SkippedSize,
    Transport,
    build_result,
    format_report,
    save_collective_report,
)
from torchrig.collective_math import (
    MessageLayout,
    fmt_size,
    message_layout,
)
from torchrig.errors import InputError

PREFIX = "torchrig.bench.collective"

FAULT_ENV = "TORCHRIG_COLLECTIVE_TEST_EXIT_RANK"
"""Fault injection for tests and for checking a cluster's failure handling: the rank whose
number this holds exits with FAULT_EXIT_CODE right after joining the process group."""
FAULT_EXIT_CODE = 3

REQUIRED_ENV = ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")

STORE_ENV = "TORCHRIG_COLLECTIVE_STORE"
"""Set by the single-machine launcher (collective.local): the ranks meet through a FileStore
at this path instead of a TCP store, so nothing listens on the network for the rendezvous.
MASTER_ADDR and MASTER_PORT are then not needed."""

TARGET_INTERVAL_S = 0.01
"""Shortest timed interval: 10 ms is far above timer resolution and one scheduler tick."""
MAX_OPS_PER_TIMING = 1000

NOT_LAUNCHED = (
    "not started by torchrun ({missing} not set): run it as `torchrun --standalone "
    "--nproc-per-node N -m torchrig.bench.collective`, or use `torchrig bench --collective`"
)


@dataclass(frozen=True)
class LaunchEnv:
    """What torchrun tells each worker through its environment."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    nnodes: int
    master_addr: str
    master_port: int


def _env_int(environ: Mapping[str, str], key: str, minimum: int) -> int:
    text = environ[key]
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"environment variable {key}={text!r} is not a whole number") from None
    if value < minimum:
        raise InputError(f"environment variable {key}={value} must be at least {minimum}")
    return value


def read_launch_env(environ: Mapping[str, str]) -> LaunchEnv:
    """Read and check torchrun's variables; InputError says how to launch when they are
    missing, which is what running the module with plain ``python -m`` gives."""
    file_store = bool(environ.get(STORE_ENV))
    missing = [key for key in REQUIRED_ENV if not environ.get(key)
               and not (file_store and key in ("MASTER_ADDR", "MASTER_PORT"))]
    if missing:
        raise InputError(NOT_LAUNCHED.format(missing=", ".join(missing)))
    world = _env_int(environ, "WORLD_SIZE", 1)
    rank = _env_int(environ, "RANK", 0)
    if rank >= world:
        raise InputError(f"RANK={rank} is not below WORLD_SIZE={world}")
    if world < 2:
        raise InputError("a collective needs at least 2 ranks; start 2 or more processes "
                         "(--nproc-per-node 2)")
    local_world = _env_int(environ, "LOCAL_WORLD_SIZE", 1) if environ.get("LOCAL_WORLD_SIZE") \
        else world
    nnodes = _env_int(environ, "GROUP_WORLD_SIZE", 1) if environ.get("GROUP_WORLD_SIZE") \
        else math.ceil(world / local_world)
    return LaunchEnv(
        rank=rank, world_size=world, local_rank=_env_int(environ, "LOCAL_RANK", 0),
        local_world_size=local_world, nnodes=nnodes,
        master_addr=environ.get("MASTER_ADDR") or "127.0.0.1",
        master_port=_env_int(environ, "MASTER_PORT", 1) if environ.get("MASTER_PORT") else 0,
    )


def master_addr_is_local(addr: str, local_addresses: Sequence[str] | None = None,
                         hostname: str | None = None) -> bool | None:
    """Whether MASTER_ADDR names this machine: True/False for addresses, None for a host name
    we cannot place without a DNS lookup (which this tool never makes)."""
    text = addr.strip().strip("[]")
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        ip = None
    if ip is not None:
        if ip.is_loopback:
            return True
        addresses = local_addresses if local_addresses is not None else _interface_addresses()
        return any(_same_ip(text, a) for a in addresses)
    name = text.lower().rstrip(".")
    if name in ("localhost", "localhost.localdomain"):
        return True
    host = (hostname if hostname is not None else socket.gethostname()).lower()
    if name in (host, host.split(".")[0]):
        return True
    return None


def _same_ip(a: str, b: str) -> bool:
    try:
        return ipaddress.ip_address(a) == ipaddress.ip_address(b.split("%")[0])
    except ValueError:
        return False


def _interface_addresses() -> list[str]:
    try:
        import psutil

        return [a.address for addrs in psutil.net_if_addrs().values() for a in addrs]
    except Exception:  # psutil missing or the OS refused: treat as no local addresses
        return []


def env_hints(environ: Mapping[str, str]) -> dict[str, str | None]:
    return {key: environ.get(key) for key in ENV_HINTS}


def _say(message: str) -> None:
    print(message, flush=True)


def _fail(rank: int | None, message: str) -> None:
    who = f"{PREFIX} rank {rank}" if rank is not None else PREFIX
    first_line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    print(f"{who}: {first_line[:500]}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """Entry point of ``-m torchrig.bench.collective``; returns the process exit code:
    0 done, 2 bad launch or options (one line on stderr), 1 the run failed."""
    environ = os.environ if environ is None else environ
    argv = sys.argv[1:] if argv is None else argv
    rank_text = environ.get("RANK", "")
    rank = int(rank_text) if rank_text.isdigit() else None
    try:
        options = parse_options(argv)
        launch = read_launch_env(environ)
        if options.json_path is not None and launch.rank == 0:
            folder = options.json_path.parent
            if not folder.is_dir():
                raise InputError(f"--json: folder {folder} does not exist")
    except InputError as exc:
        # Every rank sees the same mistake; one copy of the message is enough.
        if rank in (None, 0):
            _fail(None, str(exc))
        return 2
    try:
        run_rank(options, launch, environ)
    except InputError as exc:
        _fail(launch.rank, str(exc))
        return 2
    except Exception as exc:  # a lost peer or transport error: one line, exit 1
        _fail(launch.rank, f"failed: {type(exc).__name__}: {exc}")
        return 1
    return 0


def run_rank(options: CollectiveOptions, launch: LaunchEnv,
             environ: Mapping[str, str]) -> CollectiveReport | None:
    """Measure on this rank; rank 0 returns (and writes, with --json) the report."""
    import torch
    import torch.distributed as dist

    backend, device = _pick_backend(torch, dist, options.backend, launch)
    sizes = options.sizes_for(backend)
    cases: list[MessageLayout] = []
    skipped: list[SkippedSize] = []
    for op in options.ops:
        for size in sizes:
            layout = message_layout(op, size, launch.world_size)
            if layout is None:
                skipped.append(SkippedSize(op=op, requested_bytes=size, reason=(
                    f"smaller than one float32 per rank ({4 * launch.world_size} bytes)")))
            else:
                cases.append(layout)
    if not cases:
        raise InputError("--sizes: every size is smaller than one float32 per rank")

    init_kwargs: dict[str, Any] = {"backend": backend,
                                   "timeout": timedelta(seconds=options.timeout_s)}
    store_path = environ.get(STORE_ENV)
    if store_path:
        init_kwargs.update(init_method=Path(store_path).as_uri(), rank=launch.rank,
                           world_size=launch.world_size)
    if device.type == "cuda" and "device_id" in inspect.signature(
            dist.init_process_group).parameters:
        # Binding the GPU at init (torch >= 2.3) lets NCCL set up eagerly and keeps barrier()
        # from guessing the device.
        init_kwargs["device_id"] = device
    dist.init_process_group(**init_kwargs)
    failed = True
    try:
        if environ.get(FAULT_ENV) == str(launch.rank):
            _fail(launch.rank, f"exiting early on purpose ({FAULT_ENV}={launch.rank})")
            sys.stdout.flush()
            os._exit(FAULT_EXIT_CODE)
        infos = _all_gather_json(torch, dist, _rank_info(torch, launch, device), device,
                                 launch.world_size)
        timing = "cuda_events" if device.type == "cuda" else "barrier_perf_counter"
        # Per case: iters timings, then "verified", then ops per timing.
        local = torch.zeros((len(cases), options.iters + 2), dtype=torch.float64)
        for index, layout in enumerate(cases):
            times, verified, n_ops = _measure_case(torch, dist, layout, launch, device,
                                                   options.iters, options.warmup_for(backend))
            local[index, : options.iters] = torch.tensor(times, dtype=torch.float64)
            local[index, options.iters] = 1.0 if verified else 0.0
            local[index, options.iters + 1] = float(n_ops)
            if launch.rank == 0:
                _say(f"{PREFIX} progress {index + 1}/{len(cases)}: {layout.op} "
                     f"{fmt_size(layout.n_bytes)}")
        gathered = _all_gather_tensor(torch, dist, local.to(device), launch.world_size).cpu()
        failed = False
    finally:
        if not failed:
            dist.destroy_process_group()
        elif backend == "gloo":
            # The error being raised matters more than one from tearing down after it.
            with contextlib.suppress(Exception):
                dist.destroy_process_group()
        # After a transport error NCCL may block in teardown; leave that to process exit.
    if launch.rank != 0:
        return None
    report = _build_report(torch, options, launch, environ, backend, device, timing, cases,
                           skipped, infos, gathered)
    _say(format_report(report))
    if options.json_path is not None:
        save_collective_report(report, options.json_path)
        _say(f"{PREFIX}: report written to {options.json_path}")
    return report


def _pick_backend(torch: Any, dist: Any, wanted: str | None, launch: LaunchEnv) -> tuple[str, Any]:
    cuda = bool(torch.cuda.is_available())
    backend = wanted or ("nccl" if cuda and dist.is_nccl_available() else "gloo")
    if backend == "gloo":
        if not dist.is_gloo_available():
            raise InputError("--backend gloo: this torch build has no gloo support")
        return backend, torch.device("cpu")
    if not cuda or not dist.is_nccl_available():
        raise InputError("--backend nccl needs CUDA GPUs and a torch build with NCCL; this "
                         "rank has neither (use --backend gloo to measure over CPUs)")
    count = torch.cuda.device_count()
    if launch.local_rank >= count:
        raise InputError(f"local rank {launch.local_rank} has no GPU: this node has {count} "
                         f"CUDA GPU(s) but {launch.local_world_size} processes were started on it")
    device = torch.device("cuda", launch.local_rank)
    torch.cuda.set_device(device)
    return backend, device


def _rank_info(torch: Any, launch: LaunchEnv, device: Any) -> dict[str, Any]:
    info: dict[str, Any] = {"rank": launch.rank, "local_rank": launch.local_rank,
                            "host": socket.gethostname(), "device": str(device),
                            "gpu_name": None, "gpu_uuid": None}
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info["gpu_name"] = str(props.name)
        uuid = getattr(props, "uuid", None)
        info["gpu_uuid"] = f"GPU-{uuid}" if uuid is not None else None
    return info


def _all_gather_tensor(torch: Any, dist: Any, tensor: Any, world: int) -> Any:
    """Every rank's ``tensor`` stacked along a new first axis."""
    flat = tensor.reshape(-1).contiguous()
    out = flat.new_empty(world * flat.numel())
    # all_gather_single replaces all_gather_into_tensor (deprecated in recent torch).
    gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
    gather(out, flat)
    return out.view(world, *tensor.shape)


def _all_gather_json(torch: Any, dist: Any, obj: Any, device: Any, world: int) -> list[Any]:
    """Exchange small JSON-able records as bytes in a tensor: torch's *_object collectives
    would unpickle whatever arrives on the rendezvous port."""
    payload = json.dumps(obj).encode("utf-8")
    length = torch.tensor([len(payload)], dtype=torch.int64, device=device)
    lengths = [int(n) for n in _all_gather_tensor(torch, dist, length, world).view(-1).tolist()]
    buffer = torch.zeros(max(lengths), dtype=torch.uint8)
    buffer[: len(payload)] = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
    rows = _all_gather_tensor(torch, dist, buffer.to(device), world).cpu().numpy()
    return [json.loads(rows[r, : lengths[r]].tobytes().decode("utf-8")) for r in range(world)]


def _buffers(torch: Any, dist: Any, layout: MessageLayout, world: int,
             device: Any) -> tuple[Any, Any, Callable[[], None], Any]:
    """(input, output, call, expected output when rank r's input holds r + 1)."""
    f32 = torch.float32
    total = world * (world + 1) / 2
    if layout.op == "all_reduce":
        buffer = torch.empty(layout.count, dtype=f32, device=device)
        return (buffer, buffer, lambda: dist.all_reduce(buffer),
                torch.full((layout.count,), total, dtype=f32, device=device))
    if layout.op == "all_gather":
        inp = torch.empty(layout.count, dtype=f32, device=device)
        out = torch.empty(layout.count * world, dtype=f32, device=device)
        gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
        expected = torch.arange(1, world + 1, dtype=f32, device=device)
        return inp, out, lambda: gather(out, inp), expected.repeat_interleave(layout.count)
    inp = torch.empty(layout.count * world, dtype=f32, device=device)
    out = torch.empty(layout.count, dtype=f32, device=device)
    scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    return (inp, out, lambda: scatter(out, inp),
            torch.full((layout.count,), total, dtype=f32, device=device))


def ops_per_timing(warmup_s_per_op: float, target_s: float = TARGET_INTERVAL_S,
                   cap: int = MAX_OPS_PER_TIMING) -> int:
    """Back-to-back operations per timed interval so that it lasts at least ``target_s``."""
    if warmup_s_per_op <= 0:
        return cap
    return max(1, min(cap, math.ceil(target_s / warmup_s_per_op)))


def _sync(torch: Any, dist: Any, device: Any) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    else:
        dist.barrier()


def _measure_case(torch: Any, dist: Any, layout: MessageLayout, launch: LaunchEnv, device: Any,
                  iters: int, warmup: int) -> tuple[list[float], bool, int]:
    """(seconds per operation for each timed interval, verified, operations per interval)."""
    inp, out, call, expected = _buffers(torch, dist, layout, launch.world_size, device)
    # One checked call proves the bytes arrived where they should before they are timed.
    inp.fill_(launch.rank + 1)
    call()
    verified = bool(torch.equal(out, expected))
    # Zeros from here on: repeated in-place sums of non-zero data would overflow to inf.
    inp.zero_()
    warmup = max(1, warmup)
    _sync(torch, dist, device)
    began = time.perf_counter()
    for _ in range(warmup):
        call()
    _sync(torch, dist, device)
    wanted = ops_per_timing((time.perf_counter() - began) / warmup)
    # Every rank must run the same number of operations, or the last ones never complete.
    agreed = torch.tensor([wanted], dtype=torch.float64, device=device)
    dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
    n_ops = int(agreed.item())
    if device.type == "cuda":
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        torch.cuda.synchronize(device)
        for start, end in zip(starts, ends, strict=True):
            start.record()
            for _ in range(n_ops):
                call()
            end.record()
        torch.cuda.synchronize(device)
        times = [start.elapsed_time(end) / 1e3 / n_ops
                 for start, end in zip(starts, ends, strict=True)]
    else:
        times = []
        for _ in range(iters):
            dist.barrier()
            began = time.perf_counter()
            for _ in range(n_ops):
                call()
            times.append((time.perf_counter() - began) / n_ops)
    # A zero-length interval (timer resolution) would give infinite bandwidth.
    return [max(t, 1e-9) for t in times], verified, n_ops


def _nccl_version(torch: Any, backend: str) -> tuple[str | None, str | None]:
    if backend != "nccl":
        return None, "not used (gloo backend)"
    try:
        version = torch.cuda.nccl.version()
    except Exception as exc:  # a build without NCCL reports here
        return None, f"unknown ({type(exc).__name__}: {exc})"
    if isinstance(version, tuple):
        return ".".join(str(part) for part in version), None
    code = int(version)
    if code >= 10000:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}", None
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}", None


def _build_report(torch: Any, options: CollectiveOptions, launch: LaunchEnv,
                  environ: Mapping[str, str], backend: str, device: Any, timing: str,
                  cases: Sequence[MessageLayout], skipped: Sequence[SkippedSize],
                  infos: Sequence[Mapping[str, Any]], gathered: Any) -> CollectiveReport:
    from torchrig.bench.collective.topology import nvml_topology

    iters = options.iters
    results = []
    for index, layout in enumerate(cases):
        rows = gathered[:, index, :]
        times_by_rank = [[float(t) for t in rows[r, :iters].tolist()]
                         for r in range(launch.world_size)]
        verified = bool((rows[:, iters] == 1.0).all())
        results.append(build_result(layout, launch.world_size, times_by_rank, verified,
                                    int(rows[0, iters + 1].item())))
    ranks = tuple(
        RankInfo(rank=int(i["rank"]), local_rank=int(i["local_rank"]), host=str(i["host"]),
                 device=str(i["device"]), gpu_name=i.get("gpu_name"), gpu_uuid=i.get("gpu_uuid"))
        for i in sorted(infos, key=lambda i: int(i["rank"]))
    )
    nccl_version, nccl_note = _nccl_version(torch, backend)
    transport = Transport(
        backend=backend, device_type=device.type, world_size=launch.world_size,
        local_world_size=launch.local_world_size, nnodes=launch.nnodes,
        hosts=tuple(sorted({r.host for r in ranks})), master_addr=launch.master_addr,
        master_addr_local=master_addr_is_local(launch.master_addr),
        nccl_version=nccl_version, nccl_version_note=nccl_note,
        torch_version=str(torch.__version__), cuda_version=torch.version.cuda,
        env=env_hints(environ),
    )
    settings = Settings(
        ops=options.ops, sizes=tuple(options.sizes_for(backend)), iters=iters,
        warmup=options.warmup_for(backend), dtype="float32", timeout_s=options.timeout_s,
        timing=timing,
    )
    topology = {"node_of_rank": 0, "nvml": nvml_topology().to_dict()}
    return CollectiveReport(
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        torchrig_version=torchrig.__version__, settings=settings, transport=transport,
        ranks=ranks, topology=topology, results=tuple(results), skipped=tuple(skipped),
    )
