"""The collective benchmark's report: typed data, its versioned JSON form, and a text table.

Rank 0 builds it from every rank's timings and writes it with ``atomic_write_json``;
``load_collective_report`` reads it back for the GUI, the PDF and the data-parallel scaling
model, refusing files whose figures do not add up (an edited busbw would silently skew the
scaling estimate).

Time per size is the mean over iterations of the slowest rank's time: a collective is done
only when its last rank is done, and every timed operation counts, as in nccl-tests.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from torchrig.collective_math import (
    OPS,
    MessageLayout,
    Op,
    bus_factor,
    fmt_size,
)
from torchrig.errors import InputError
from torchrig.jsonio import atomic_write_json, get_num, get_str, load_versioned, req

REPORT_FORMAT = "torchrig.collective-report"
REPORT_VERSION = 1

ENV_HINTS = (
    "NCCL_P2P_DISABLE",
    "NCCL_IB_DISABLE",
    "NCCL_SOCKET_IFNAME",
    "NCCL_NET",
    "NCCL_ALGO",
    "NCCL_PROTO",
    "NCCL_DEBUG",
    "GLOO_SOCKET_IFNAME",
    "TORCHRIG_COLLECTIVE_STORE",
)
"""Environment variables that change which transport a run uses; recorded so two reports
that disagree can be told apart."""

_REL_TOL = 1e-9


@dataclass(frozen=True)
class RankTiming:
    """One rank's own view of a size: its min / median / max time over the iterations."""

    rank: int
    min_s: float
    median_s: float
    max_s: float


@dataclass(frozen=True)
class CollectiveResult:
    """One (collective, size) row, nccl-tests style. Bandwidths in bytes/s."""

    op: Op
    requested_bytes: int
    n_bytes: int
    count: int
    time_s: float
    algbw: float
    busbw: float
    bus_factor: float
    verified: bool
    per_rank: tuple[RankTiming, ...]
    ops_per_timing: int = 1
    """Back-to-back operations inside each timed interval (times are per operation)."""


@dataclass(frozen=True)
class OpSummary:
    """What other parts use from a sweep: ``busbw_at_largest`` feeds the scaling model
    (gradients are large messages); ``latency_s`` is the time at the smallest size."""

    op: Op
    peak_busbw: float
    peak_busbw_bytes: int
    largest_bytes: int
    busbw_at_largest: float
    algbw_at_largest: float
    latency_s: float
    latency_bytes: int


@dataclass(frozen=True)
class RankInfo:
    rank: int
    local_rank: int
    host: str
    device: str
    gpu_name: str | None = None
    gpu_uuid: str | None = None


@dataclass(frozen=True)
class Transport:
    """Which path the bytes took, as far as the process can tell without NCCL_DEBUG."""

    backend: str
    device_type: str
    world_size: int
    local_world_size: int
    nnodes: int
    hosts: tuple[str, ...]
    master_addr: str | None
    master_addr_local: bool | None
    nccl_version: str | None
    nccl_version_note: str | None
    torch_version: str
    cuda_version: str | None
    env: dict[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Settings:
    ops: tuple[Op, ...]
    sizes: tuple[int, ...]
    iters: int
    warmup: int
    dtype: str
    timeout_s: float
    timing: str  # "cuda_events" or "barrier_perf_counter"


@dataclass(frozen=True)
class SkippedSize:
    op: Op
    requested_bytes: int
    reason: str


@dataclass(frozen=True)
class CollectiveReport:
    created: str
    torchrig_version: str
    settings: Settings
    transport: Transport
    ranks: tuple[RankInfo, ...]
    topology: dict[str, Any]
    results: tuple[CollectiveResult, ...]
    skipped: tuple[SkippedSize, ...] = ()

    @property
    def summary(self) -> dict[Op, OpSummary]:
        return summarize(self.results)

    def results_for(self, op: Op) -> list[CollectiveResult]:
        return sorted((r for r in self.results if r.op == op), key=lambda r: r.n_bytes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "created": self.created,
            "torchrig_version": self.torchrig_version,
            "settings": {
                "ops": list(self.settings.ops),
                "sizes": list(self.settings.sizes),
                "iters": self.settings.iters,
                "warmup": self.settings.warmup,
                "dtype": self.settings.dtype,
                "timeout_s": self.settings.timeout_s,
                "timing": self.settings.timing,
            },
            "transport": {
                "backend": self.transport.backend,
                "device_type": self.transport.device_type,
                "world_size": self.transport.world_size,
                "local_world_size": self.transport.local_world_size,
                "nnodes": self.transport.nnodes,
                "hosts": list(self.transport.hosts),
                "master_addr": self.transport.master_addr,
                "master_addr_local": self.transport.master_addr_local,
                "nccl_version": self.transport.nccl_version,
                "nccl_version_note": self.transport.nccl_version_note,
                "torch_version": self.transport.torch_version,
                "cuda_version": self.transport.cuda_version,
                "env": dict(self.transport.env),
            },
            "ranks": [
                {"rank": r.rank, "local_rank": r.local_rank, "host": r.host, "device": r.device,
                 "gpu_name": r.gpu_name, "gpu_uuid": r.gpu_uuid}
                for r in self.ranks
            ],
            "topology": self.topology,
            "results": [
                {
                    "op": r.op,
                    "requested_bytes": r.requested_bytes,
                    "bytes": r.n_bytes,
                    "count": r.count,
                    "time_s": r.time_s,
                    "algbw": r.algbw,
                    "busbw": r.busbw,
                    "bus_factor": r.bus_factor,
                    "verified": r.verified,
                    "ops_per_timing": r.ops_per_timing,
                    "per_rank": [
                        {"rank": t.rank, "min_s": t.min_s, "median_s": t.median_s,
                         "max_s": t.max_s}
                        for t in r.per_rank
                    ],
                }
                for r in self.results
            ],
            "skipped": [
                {"op": s.op, "requested_bytes": s.requested_bytes, "reason": s.reason}
                for s in self.skipped
            ],
            "summary": {op: _summary_dict(s) for op, s in self.summary.items()},
        }


def _summary_dict(s: OpSummary) -> dict[str, Any]:
    return {
        "peak_busbw": s.peak_busbw,
        "peak_busbw_bytes": s.peak_busbw_bytes,
        "largest_bytes": s.largest_bytes,
        "busbw_at_largest": s.busbw_at_largest,
        "algbw_at_largest": s.algbw_at_largest,
        "latency_s": s.latency_s,
        "latency_bytes": s.latency_bytes,
    }


# --- building rows from raw timings ---------------------------------------------------------


def build_result(layout: MessageLayout, world_size: int,
                 times_by_rank: Sequence[Sequence[float]], verified: bool,
                 ops_per_timing: int = 1) -> CollectiveResult:
    """One row from every rank's per-iteration times (``times_by_rank[rank][iteration]``).

    Per iteration the slowest rank decides (the collective is over when its last rank is);
    the row's time is the mean of those maxima, every timed operation counted as nccl-tests
    counts them (it times its iterations as one block and divides): a median of the short
    intervals dropped the slow ones, and so read 1.35-3.9x a plain torchrun loop of the same
    operations on a shared machine (issue 27, docs/collective.md "time").
    """
    if len(times_by_rank) != world_size:
        raise ValueError(f"expected timings from {world_size} ranks, got {len(times_by_rank)}")
    iters = len(times_by_rank[0])
    if iters == 0 or any(len(t) != iters for t in times_by_rank):
        raise ValueError("every rank must report the same, non-zero number of iterations")
    slowest = [max(times_by_rank[r][i] for r in range(world_size)) for i in range(iters)]
    time_s = statistics.fmean(slowest)
    factor = bus_factor(layout.op, world_size)
    alg = layout.n_bytes / time_s
    per_rank = tuple(
        RankTiming(rank=r, min_s=min(t), median_s=statistics.median(t), max_s=max(t))
        for r, t in enumerate(times_by_rank)
    )
    return CollectiveResult(
        op=layout.op, requested_bytes=layout.requested_bytes, n_bytes=layout.n_bytes,
        count=layout.count, time_s=time_s, algbw=alg, busbw=alg * factor, bus_factor=factor,
        verified=verified, per_rank=per_rank, ops_per_timing=ops_per_timing,
    )


def summarize(results: Sequence[CollectiveResult]) -> dict[Op, OpSummary]:
    """Per collective: peak busbw, busbw at the largest size, latency at the smallest."""
    summary: dict[Op, OpSummary] = {}
    for op in OPS:
        rows = sorted((r for r in results if r.op == op), key=lambda r: r.n_bytes)
        if not rows:
            continue
        peak = max(rows, key=lambda r: r.busbw)
        smallest, largest = rows[0], rows[-1]
        summary[op] = OpSummary(
            op=op, peak_busbw=peak.busbw, peak_busbw_bytes=peak.n_bytes,
            largest_bytes=largest.n_bytes, busbw_at_largest=largest.busbw,
            algbw_at_largest=largest.algbw, latency_s=smallest.time_s,
            latency_bytes=smallest.n_bytes,
        )
    return summary


# --- saving and loading -----------------------------------------------------------------------


def save_collective_report(report: CollectiveReport, path: Path) -> None:
    atomic_write_json(Path(path), report.to_dict())


def load_collective_report(path: Path) -> CollectiveReport:
    """Read and validate a report; InputError names the file and the field that is wrong."""
    path = Path(path)
    data = load_versioned(path, REPORT_FORMAT, REPORT_VERSION)
    return report_from_dict(data, str(path))


REPORT_FIELDS = {"format", "version", "created", "torchrig_version", "settings", "transport",
                 "ranks", "topology", "results", "skipped", "summary"}
"""Top-level fields of the report (to_dict writes exactly these; the loader refuses others)."""


def report_from_dict(data: Mapping[str, Any], where: str) -> CollectiveReport:
    from torchrig.jsonio import check_keys

    check_keys(dict(data), REPORT_FIELDS, where)
    settings = _settings(_obj(data, "settings", where), f"{where}: settings")
    transport = _transport(_obj(data, "transport", where), f"{where}: transport")
    world = transport.world_size
    ranks = tuple(_rank_info(item, f"{where}: ranks[{i}]")
                  for i, item in enumerate(_list(data, "ranks", where)))
    if sorted(r.rank for r in ranks) != list(range(world)):
        raise InputError(f"{where}: field 'ranks' must list ranks 0..{world - 1} once each")
    topology = _obj(data, "topology", where)
    results = tuple(_result(item, world, f"{where}: results[{i}]")
                    for i, item in enumerate(_list(data, "results", where)))
    skipped = tuple(_skipped(item, f"{where}: skipped[{i}]")
                    for i, item in enumerate(_list(data, "skipped", where)))
    report = CollectiveReport(
        created=get_str(data, "created", where, max_len=64),
        torchrig_version=get_str(data, "torchrig_version", where, max_len=64),
        settings=settings, transport=transport, ranks=ranks, topology=dict(topology),
        results=results, skipped=skipped,
    )
    _check_summary(_obj(data, "summary", where), report.summary, f"{where}: summary")
    return report


def _obj(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = req(data, key, where)
    if not isinstance(value, dict):
        raise InputError(f"{where}: field '{key}' must be an object")
    return value


def _list(data: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = req(data, key, where)
    if not isinstance(value, list):
        raise InputError(f"{where}: field '{key}' must be a list")
    return value


def _bool(data: Mapping[str, Any], key: str, where: str, optional: bool = False) -> bool | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, bool):
        raise InputError(f"{where}: field '{key}' must be true or false")
    return value


def _opt_str(data: Mapping[str, Any], key: str, where: str) -> str | None:
    if data.get(key) is None:
        return None
    return get_str(data, key, where, max_len=1000)


def _int(data: Mapping[str, Any], key: str, where: str, minimum: int = 0) -> int:
    return int(get_num(data, key, where, minimum=minimum, integer=True))


def _op(data: Mapping[str, Any], where: str) -> Op:
    name = get_str(data, "op", where, max_len=32)
    for op in OPS:
        if op == name:
            return op
    raise InputError(f"{where}: field 'op' is {name!r}, expected one of {', '.join(OPS)}")


def _settings(data: Mapping[str, Any], where: str) -> Settings:
    ops = []
    for i, name in enumerate(_list(data, "ops", where)):
        if name not in OPS:
            raise InputError(f"{where}: field 'ops[{i}]' is {name!r}, not a known collective")
        ops.append(name)
    sizes = []
    for i, size in enumerate(_list(data, "sizes", where)):
        sizes.append(_int({"size": size}, "size", f"{where}: sizes[{i}]", minimum=1))
    timing = get_str(data, "timing", where, max_len=32)
    if timing not in ("cuda_events", "barrier_perf_counter"):
        raise InputError(f"{where}: field 'timing' is {timing!r}, not a known timing method")
    return Settings(
        ops=tuple(ops), sizes=tuple(sizes), iters=_int(data, "iters", where, minimum=1),
        warmup=_int(data, "warmup", where), dtype=get_str(data, "dtype", where, max_len=32),
        timeout_s=float(get_num(data, "timeout_s", where, minimum=0)), timing=timing,
    )


def _transport(data: Mapping[str, Any], where: str) -> Transport:
    env_raw = _obj(data, "env", where)
    env: dict[str, str | None] = {}
    for key in env_raw:
        env[str(key)] = _opt_str(env_raw, key, f"{where}.env")
    hosts = _list(data, "hosts", where)
    if not all(isinstance(h, str) for h in hosts):
        raise InputError(f"{where}: field 'hosts' must be a list of text")
    return Transport(
        backend=get_str(data, "backend", where, max_len=32),
        device_type=get_str(data, "device_type", where, max_len=32),
        world_size=_int(data, "world_size", where, minimum=2),
        local_world_size=_int(data, "local_world_size", where, minimum=1),
        nnodes=_int(data, "nnodes", where, minimum=1),
        hosts=tuple(hosts),
        master_addr=_opt_str(data, "master_addr", where),
        master_addr_local=_bool(data, "master_addr_local", where, optional=True),
        nccl_version=_opt_str(data, "nccl_version", where),
        nccl_version_note=_opt_str(data, "nccl_version_note", where),
        torch_version=get_str(data, "torch_version", where, max_len=64),
        cuda_version=_opt_str(data, "cuda_version", where),
        env=env,
    )


def _rank_info(item: Any, where: str) -> RankInfo:
    if not isinstance(item, dict):
        raise InputError(f"{where}: must be an object")
    return RankInfo(
        rank=_int(item, "rank", where), local_rank=_int(item, "local_rank", where),
        host=get_str(item, "host", where, max_len=255),
        device=get_str(item, "device", where, max_len=32),
        gpu_name=_opt_str(item, "gpu_name", where), gpu_uuid=_opt_str(item, "gpu_uuid", where),
    )


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=_REL_TOL, abs_tol=0.0)


def _result(item: Any, world: int, where: str) -> CollectiveResult:
    if not isinstance(item, dict):
        raise InputError(f"{where}: must be an object")
    op = _op(item, where)
    n_bytes = _int(item, "bytes", where, minimum=1)
    time_s = float(get_num(item, "time_s", where, minimum=0))
    if time_s <= 0:
        raise InputError(f"{where}: field 'time_s' must be positive")
    factor = float(get_num(item, "bus_factor", where, minimum=0))
    alg = float(get_num(item, "algbw", where, minimum=0))
    bus = float(get_num(item, "busbw", where, minimum=0))
    expected_factor = bus_factor(op, world)
    if not _close(factor, expected_factor):
        raise InputError(f"{where}: field 'bus_factor' is {factor}, expected {expected_factor} "
                         f"for {op} on {world} ranks")
    if not _close(alg, n_bytes / time_s):
        raise InputError(f"{where}: field 'algbw' disagrees with bytes / time_s")
    if not _close(bus, alg * factor):
        raise InputError(f"{where}: field 'busbw' disagrees with algbw x bus_factor")
    per_rank = []
    for i, timing in enumerate(_list(item, "per_rank", where)):
        at = f"{where}.per_rank[{i}]"
        if not isinstance(timing, dict):
            raise InputError(f"{at}: must be an object")
        low, mid, high = (float(get_num(timing, k, at, minimum=0))
                          for k in ("min_s", "median_s", "max_s"))
        if not low <= mid <= high:
            raise InputError(f"{at}: needs min_s <= median_s <= max_s")
        per_rank.append(RankTiming(rank=_int(timing, "rank", at), min_s=low, median_s=mid,
                                   max_s=high))
    if sorted(t.rank for t in per_rank) != list(range(world)):
        raise InputError(f"{where}: field 'per_rank' must have one entry for each of {world} ranks")
    return CollectiveResult(
        op=op, requested_bytes=_int(item, "requested_bytes", where, minimum=1), n_bytes=n_bytes,
        count=_int(item, "count", where, minimum=1), time_s=time_s, algbw=alg, busbw=bus,
        bus_factor=factor, verified=bool(_bool(item, "verified", where)),
        per_rank=tuple(per_rank),
        ops_per_timing=_int(item, "ops_per_timing", where, minimum=1)
        if "ops_per_timing" in item else 1,
    )


def _skipped(item: Any, where: str) -> SkippedSize:
    if not isinstance(item, dict):
        raise InputError(f"{where}: must be an object")
    return SkippedSize(op=_op(item, where),
                       requested_bytes=_int(item, "requested_bytes", where, minimum=1),
                       reason=get_str(item, "reason", where, max_len=1000))


def _check_summary(stored: Mapping[str, Any], computed: Mapping[Op, OpSummary],
                   where: str) -> None:
    """The summary is derived data; a stored one that disagrees means the file was edited."""
    if set(stored) != set(computed):
        raise InputError(f"{where}: lists {sorted(stored)}, but the results cover "
                         f"{sorted(computed)}")
    for op, summary in computed.items():
        entry = stored[op]
        at = f"{where}.{op}"
        if not isinstance(entry, dict):
            raise InputError(f"{at}: must be an object")
        for key, value in _summary_dict(summary).items():
            found = get_num(entry, key, at)
            if not _close(float(found), float(value)):
                raise InputError(f"{at}: field '{key}' is {found}, but the results give {value}")


# --- text form ------------------------------------------------------------------------------


def network_exposure(t: Transport) -> str:
    """What the run let the network reach, from the launch environment it recorded."""
    if t.env.get("TORCHRIG_COLLECTIVE_STORE"):
        ifname = t.env.get("GLOO_SOCKET_IFNAME") or t.env.get("NCCL_SOCKET_IFNAME")
        return (f"network: single-machine run - ranks met through a file store (no listening "
                f"rendezvous port); gloo/NCCL sockets bound to {ifname or 'loopback'} "
                "(loopback only)")
    ifname = t.env.get("NCCL_SOCKET_IFNAME" if t.backend == "nccl" else "GLOO_SOCKET_IFNAME")
    return (f"network: rendezvous at {t.master_addr} and {t.backend} sockets on "
            f"{ifname or 'the interface the backend picked'} accepted connections during "
            "the run")


def format_report(report: CollectiveReport) -> str:
    """nccl-tests-like table per collective plus the summary, for the CLI and logs."""
    t = report.transport
    lines = [
        f"backend {t.backend} on {t.device_type}, {t.world_size} ranks "
        f"({t.local_world_size} per node, {t.nnodes} node{'s' if t.nnodes != 1 else ''})"
        + (f", NCCL {t.nccl_version}" if t.nccl_version else ""),
        "time = mean over iterations of the slowest rank; GB/s = 1e9 bytes/s; "
        "busbw uses nccl-tests factors",
        network_exposure(t),
    ]
    for op, summary in report.summary.items():
        lines.append("")
        lines.append(f"{op}")
        lines.append(f"{'size':>10} {'time':>12} {'algbw GB/s':>11} {'busbw GB/s':>11} "
                     f"{'check':>6}")
        for row in report.results_for(op):
            lines.append(
                f"{fmt_size(row.n_bytes):>10} {_fmt_time(row.time_s):>12} "
                f"{row.algbw / 1e9:>11.2f} {row.busbw / 1e9:>11.2f} "
                f"{'ok' if row.verified else 'WRONG':>6}"
            )
        lines.append(
            f"  peak busbw {summary.peak_busbw / 1e9:.2f} GB/s at "
            f"{fmt_size(summary.peak_busbw_bytes)}; busbw at largest "
            f"({fmt_size(summary.largest_bytes)}) {summary.busbw_at_largest / 1e9:.2f} GB/s; "
            f"latency {_fmt_time(summary.latency_s)} at {fmt_size(summary.latency_bytes)}"
        )
    for skipped in report.skipped:
        lines.append(f"skipped {skipped.op} {fmt_size(skipped.requested_bytes)}: {skipped.reason}")
    return "\n".join(lines)


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.3f} s"
