"""Collective report: building rows from timings, JSON round trip, validation messages."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from torchrig.bench.collective.report import (
    REPORT_FORMAT,
    CollectiveReport,
    RankInfo,
    Settings,
    SkippedSize,
    Transport,
    build_result,
    format_report,
    load_collective_report,
    save_collective_report,
    summarize,
)
from torchrig.collective_math import message_layout
from torchrig.errors import InputError


def _layout(op: str, size: int, world: int):
    layout = message_layout(op, size, world)  # type: ignore[arg-type]
    assert layout is not None
    return layout


def test_time_is_the_mean_of_the_slowest_rank_per_iteration():
    layout = _layout("all_reduce", 4096, 2)
    result = build_result(layout, 2, [[1.0, 2.0, 3.0], [2.0, 1.0, 5.0]], verified=True)
    # Slowest per iteration: 2, 2, 5 -> mean 3 (every operation counts, as nccl-tests'
    # block / iters; the median, 2, would drop the slow interval).
    assert result.time_s == 3.0
    assert result.algbw == 4096 / 3.0
    assert result.busbw == result.algbw * result.bus_factor
    assert result.bus_factor == 1.0
    assert [(t.rank, t.min_s, t.median_s, t.max_s) for t in result.per_rank] == [
        (0, 1.0, 2.0, 3.0), (1, 1.0, 2.0, 5.0)]


def test_build_result_refuses_inconsistent_timings():
    layout = _layout("all_reduce", 64, 2)
    with pytest.raises(ValueError):
        build_result(layout, 2, [[1.0]], verified=True)
    with pytest.raises(ValueError):
        build_result(layout, 2, [[1.0], [1.0, 2.0]], verified=True)


def _report(world: int = 4) -> CollectiveReport:
    results = []
    for op in ("all_reduce", "all_gather"):
        for size, seconds in ((64, 1e-4), (1024, 2e-4), (65536, 1e-3)):
            times = [[seconds * (1 + r / 10)] * 3 for r in range(world)]
            results.append(build_result(_layout(op, size, world), world, times, verified=True))
    return CollectiveReport(
        created="2025-01-01T00:00:00+00:00",
        torchrig_version="0.1.0",
        settings=Settings(ops=("all_reduce", "all_gather"), sizes=(64, 1024, 65536), iters=3,
                          warmup=1, dtype="float32", timeout_s=60.0,
                          timing="barrier_perf_counter"),
        transport=Transport(backend="gloo", device_type="cpu", world_size=world,
                            local_world_size=world, nnodes=1, hosts=("node1",),
                            master_addr="127.0.0.1", master_addr_local=True, nccl_version=None,
                            nccl_version_note="not used (gloo backend)",
                            torch_version="2.13.0", cuda_version=None,
                            env={"NCCL_IB_DISABLE": None, "GLOO_SOCKET_IFNAME": "lo"}),
        ranks=tuple(RankInfo(rank=r, local_rank=r, host="node1", device="cpu")
                    for r in range(world)),
        topology={"nvml": {"skipped": "NVML not available"}},
        results=tuple(results),
        skipped=(SkippedSize(op="all_gather", requested_bytes=8, reason="too small"),),
    )


def test_summary_peak_largest_and_latency():
    report = _report()
    summary = summarize(report.results)
    assert set(summary) == {"all_reduce", "all_gather"}
    ar = summary["all_reduce"]
    rows = report.results_for("all_reduce")
    assert ar.largest_bytes == 65536 == rows[-1].n_bytes
    assert ar.busbw_at_largest == rows[-1].busbw
    assert ar.peak_busbw == max(r.busbw for r in rows)
    assert ar.latency_bytes == 64
    assert ar.latency_s == rows[0].time_s


def test_round_trip(tmp_path: Path):
    report = _report()
    path = tmp_path / "collective.json"
    save_collective_report(report, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == REPORT_FORMAT and data["version"] == 1
    assert data["summary"]["all_reduce"]["busbw_at_largest"] == \
        report.summary["all_reduce"].busbw_at_largest
    assert data["results"][0]["bytes"] == 64
    loaded = load_collective_report(path)
    assert loaded == report
    assert loaded.to_dict() == data


def _mutations() -> list[tuple[str, Any, str]]:
    def set_(path: str, value: Any):
        def apply(doc: dict[str, Any]) -> None:
            *parents, last = path.split("/")
            target: Any = doc
            for key in parents:
                target = target[int(key)] if key.isdigit() else target[key]
            if value is _DELETE:
                del target[int(last) if last.isdigit() else last]
            else:
                target[int(last) if last.isdigit() else last] = value
        return apply

    return [
        (set_("format", "torchrig.build"), "field 'format'"),
        (set_("version", 2), "newer"),
        (set_("results/0/busbw", 1.0), "field 'busbw'"),
        (set_("results/0/algbw", 1.0), "field 'algbw'"),
        (set_("results/0/bus_factor", 1.0), "field 'bus_factor'"),
        (set_("results/0/op", "broadcast"), "field 'op'"),
        (set_("results/0/time_s", -1), "field 'time_s'"),
        (set_("results/0/time_s", "fast"), "field 'time_s'"),
        (set_("results/0/verified", "yes"), "field 'verified'"),
        (set_("results/0/per_rank/1", _DELETE), "field 'per_rank'"),
        (set_("results/0/per_rank/0/min_s", 1.0), "min_s <= median_s"),
        (set_("results/1", "row"), "results[1]: must be an object"),
        (set_("summary/all_reduce/busbw_at_largest", 1e12), "field 'busbw_at_largest'"),
        (set_("summary/reduce_scatter", {}), "summary"),
        (set_("settings/ops/0", "gather"), "ops[0]"),
        (set_("settings/timing", "sundial"), "field 'timing'"),
        (set_("settings/iters", 0), "field 'iters'"),
        (set_("transport/world_size", 1), "field 'world_size'"),
        (set_("transport/hosts", [1]), "field 'hosts'"),
        (set_("transport/master_addr_local", "maybe"), "field 'master_addr_local'"),
        (set_("ranks/3", _DELETE), "field 'ranks'"),
        (set_("topology", []), "field 'topology'"),
        (set_("created", None), "field 'created'"),
        (set_("skipped/0/reason", 5), "field 'reason'"),
    ]


_DELETE = object()


@pytest.mark.parametrize(("mutate", "message"), _mutations(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_invalid_reports_name_the_field(tmp_path: Path, mutate, message):
    data = copy.deepcopy(_report().to_dict())
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as info:
        load_collective_report(path)
    assert str(path) in str(info.value)


def test_missing_and_malformed_files(tmp_path: Path):
    with pytest.raises(InputError, match="no such file"):
        load_collective_report(tmp_path / "absent.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        load_collective_report(broken)


def test_format_report_shows_rows_summary_and_wrong_results():
    report = _report()
    text = format_report(report)
    assert "all_reduce" in text and "all_gather" in text
    assert "64 KiB" in text and "busbw at largest" in text
    assert "skipped all_gather 8 B: too small" in text
    assert "WRONG" not in text
    first = report.results[0]
    bad = CollectiveReport(**{**report.__dict__,
                              "results": (first.__class__(**{**first.__dict__,
                                                             "verified": False}),)})
    assert "WRONG" in format_report(bad)
