"""A collective benchmark report with chosen all-reduce bus bandwidths, built with the
benchmark's own row builder (bench/collective/report.py ``build_result``) so it passes the
loader's checks: each row's time is set to bytes x 2(n-1)/n / busbw, so busbw comes back as
given (to rounding)."""

from __future__ import annotations

from pathlib import Path

from torchrig.bench.collective.report import (
    CollectiveReport,
    RankInfo,
    Settings,
    Transport,
    build_result,
    save_collective_report,
)
from torchrig.collective_math import message_layout

LATENCY_BYTES = 1024
LATENCY_S = 20e-6
"""The smallest row: its time is what the report gives as latency."""


def collective_report(busbw_by_size: dict[int, float], world: int = 8, nnodes: int = 1,
                      hosts: tuple[str, ...] | None = None,
                      created: str = "2026-12-01T10:00:00+00:00") -> CollectiveReport:
    hosts = hosts or tuple(f"node{i}" for i in range(nnodes))
    per_node = world // nnodes
    rows = []
    small = message_layout("all_reduce", LATENCY_BYTES, world)
    assert small is not None
    rows.append(build_result(small, world, [[LATENCY_S] * 3] * world, verified=True))
    for size, busbw in sorted(busbw_by_size.items()):
        layout = message_layout("all_reduce", size, world)
        assert layout is not None and layout.n_bytes == size
        t = size * (2 * (world - 1) / world) / busbw
        rows.append(build_result(layout, world, [[t] * 3] * world, verified=True))
    return CollectiveReport(
        created=created, torchrig_version="0.1.0",
        settings=Settings(ops=("all_reduce",), sizes=(LATENCY_BYTES, *sorted(busbw_by_size)),
                          iters=3, warmup=1, dtype="float32", timeout_s=60.0,
                          timing="cuda_events"),
        transport=Transport(backend="nccl", device_type="cuda", world_size=world,
                            local_world_size=per_node, nnodes=nnodes, hosts=hosts,
                            master_addr="127.0.0.1", master_addr_local=True,
                            nccl_version="2.21.5", nccl_version_note=None,
                            torch_version="2.5.0", cuda_version="12.4", env={}),
        ranks=tuple(RankInfo(rank=r, local_rank=r % per_node, host=hosts[r // per_node],
                             device=f"cuda:{r % per_node}") for r in range(world)),
        topology={}, results=tuple(rows))


def write_collective_report(path: Path, busbw_by_size: dict[int, float], **kwargs) -> Path:
    save_collective_report(collective_report(busbw_by_size, **kwargs), path)
    return path
