"""Row -> Workload -> ``plan()`` -> the compared figure, as the ratio predicted / published.

Training and memory rows are one plan of the row's setup on its catalog GPU. Serving rows are
a benchmark's terms (input / output tokens, precision, KV-cache dtype, requests sent) mapped
onto the planner:

- when the planner accepts precision ``fp8`` / ``fp4``, ``kv_cache_dtype`` and
  ``output_tokens`` (the serving model of issue 24), the prompt is ``seq_len`` and the figure
  is the plan's ``output_tokens_per_s`` (the whole deployment);
- while it refuses them (the "before"), the nearest figures the planner has are used: bf16
  weights and cache, ``seq_len`` = input + output tokens, and ``decode_tokens_per_s`` x the
  data-parallel replicas. Such a result is marked ``before: bf16 stand-in``.

A max-throughput row is planned twice: once to learn ``max_concurrent_sequences``, which is
capped by the requests the benchmark sends, then again with that many sequences in flight.

The harness computes nothing the planner should: it only reads the plan's JSON figures
(docs/plan-json.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from published.reference_rows import ROWS, Row
from torchrig.catalog import load_catalog
from torchrig.errors import InputError
from torchrig.planning.device import DeviceSpec, device_spec
from torchrig.planning.links import LINKS
from torchrig.planning.requirements import plan
from torchrig.planning.workload import WORKLOAD_FORMAT, WORKLOAD_VERSION, Workload

PLANNER = "planner"
STAND_IN = "before: bf16 stand-in"
SERVING_FIELDS = ("'precision'", "'kv_cache_dtype'", "'output_tokens'")
"""What the planner names when it refuses a serving row's own terms (today's planner)."""

Plan = Mapping[str, Any]


def _vram(key: str) -> Callable[[Plan, Workload], float | None]:
    return lambda d, w: d["vram_per_gpu"].get(key)


def _model_states(d: Plan, w: Workload) -> float | None:
    """Weights + gradients + optimizer states per GPU, and under ZeRO-3 the gather buffer
    DeepSpeed's estimator counts (4 x largest layer; the planner's ``comm_buffers`` adds the
    prefetch bucket to it); DDP's bucket copy and DeepSpeed's reduce bucket
    (``zero_reduce_bucket``) are not model states in the ZeRO paper's or DeepSpeed's count, so
    they stay out."""
    v = d["vram_per_gpu"]
    parts = [v.get("weights"), v.get("gradients"), v.get("optimizer_states")]
    if w.strategy == "zero3":
        parts.append(v.get("comm_buffers") or 0)
    if any(p is None for p in parts):
        return None
    return float(sum(parts))


def _states_only(d: Plan, w: Workload) -> float | None:
    """Weights + gradients + optimizer states per GPU, no buffer at all: the ZeRO paper's
    count (its model has no layer shapes and no communication buffers)."""
    v = d["vram_per_gpu"]
    parts = [v.get("weights"), v.get("gradients"), v.get("optimizer_states")]
    return None if any(p is None for p in parts) else float(sum(parts))


def _tokens_per_gpu(d: Plan, w: Workload) -> float | None:
    """Tokens per second per GPU as NVIDIA's NeMo / Megatron tables print them: the plan's
    tokens/s of all GPUs over the GPU count (a unit change, not a model)."""
    tokens = d["throughput"].get("tokens_per_s")
    return None if tokens is None else tokens / w.total_gpus


FIGURES: dict[str, Callable[[Plan, Workload], float | None]] = {
    "samples_per_s": lambda d, w: d["throughput"].get("samples_per_s"),
    "tokens_per_s_per_gpu": _tokens_per_gpu,
    "model_states": _model_states,
    "model_states_only": _states_only,
    "weights": _vram("weights"),
    "kv_cache": _vram("kv_cache"),
    "vram_total": _vram("total"),
    "cpu_offload": lambda d, w: d["system_ram"].get("cpu_offload"),
    "time_to_train_s": lambda d, w: d["throughput"].get("total_time_s"),
}
"""Plan figures a row can be compared with (``output_tokens_per_s`` is the serving path)."""


@dataclass(frozen=True)
class Result:
    row: Row
    predicted: float | None
    mode: str
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.predicted is None or self.predicted <= 0:
            return None
        return self.predicted / self.row.published

    @property
    def within(self) -> bool:
        return within_tolerance(self.row, self.ratio)

    @property
    def status(self) -> str:
        if self.within:
            return "pass"
        return "known miss" if self.row.known_miss else "FAIL"


def within_tolerance(row: Row, ratio: float | None) -> bool:
    if ratio is None:
        return False
    tol = row.tolerance
    if tol.bound == "at_most":
        return ratio <= 1 + tol.rel
    return 1 - tol.rel <= ratio <= 1 + tol.rel


@cache
def _gpu(part_id: str) -> DeviceSpec:
    return device_spec(load_catalog().get(part_id))


def _workload(fields: Mapping[str, Any]) -> Workload:
    return Workload.from_dict({"format": WORKLOAD_FORMAT, "version": WORKLOAD_VERSION,
                               **fields}, where="published reference")


def evaluate(row: Row) -> Result:
    """Plan ``row`` and read the figure it is compared with."""
    gpu = _gpu(row.gpu) if row.gpu else None
    if gpu is not None and row.inter_link is not None:
        gpu = replace(gpu, inter_link=LINKS[row.inter_link], nics_per_node=row.nics_per_node)
    if row.kind == "serving":
        return _serving(row, gpu)
    w = _workload(row.setup)
    d = plan(w, gpu).to_dict()
    return Result(row, _number(FIGURES[row.compared](d, w)), PLANNER)


def _serving(row: Row, gpu: DeviceSpec | None) -> Result:
    s = row.serving
    assert s is not None, f"{row.id}: a serving row needs its serving terms"
    try:
        w = _workload({**row.setup, "precision": s.precision,
                       "kv_cache_dtype": s.kv_cache_dtype, "output_tokens": s.output_tokens,
                       "seq_len": s.input_tokens, "batch_size": 1})
        mode = PLANNER
    except InputError as exc:
        if not any(name in str(exc) for name in SERVING_FIELDS):
            raise
        w = _workload({**row.setup, "precision": "bf16",
                       "seq_len": s.input_tokens + s.output_tokens, "batch_size": 1})
        mode = STAND_IN
    first = plan(w, gpu).to_dict()["throughput"]
    fits = first.get("max_concurrent_sequences")
    if not fits or fits < 1:
        return Result(row, None, mode, "no sequence fits the KV-cache budget")
    batch = min(int(fits), s.requests, s.concurrency or s.requests)
    t = plan(replace(w, batch_size=batch).validate(), gpu).to_dict()["throughput"]
    note = f"{batch} sequences in flight (KV budget {fits}, {s.requests} requests"
    note += f", concurrency {s.concurrency})" if s.concurrency else ")"
    if mode == PLANNER and t.get("output_tokens_per_s") is not None:
        return Result(row, _number(t["output_tokens_per_s"]), mode, note)
    decode = t.get("decode_tokens_per_s")
    value = None if decode is None else float(decode) * w.data_parallel
    if mode == PLANNER:
        mode = "planner (decode x replicas)"
    return Result(row, value, mode, note)


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def evaluate_all(rows: Iterable[Row] = ROWS) -> list[Result]:
    return [evaluate(r) for r in rows]


# --- summaries --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    kind: str
    role: str
    rows: int
    with_figure: int
    median_abs_log: float | None
    worst_abs_log: float | None
    worst_id: str | None
    passing: int

    @staticmethod
    def x_factor(abs_log: float | None) -> float | None:
        return None if abs_log is None else math.exp(abs_log)

    @staticmethod
    def percent(abs_log: float | None) -> float | None:
        """|log ratio| as a percentage error: (x-factor - 1) x 100."""
        return None if abs_log is None else (math.exp(abs_log) - 1) * 100


def summarise(results: Iterable[Result], kind: str, role: str) -> Summary:
    chosen = [r for r in results if r.row.kind == kind and (role == "all" or r.row.role == role)]
    logs = sorted((abs(math.log(r.ratio)), r.row.id) for r in chosen if r.ratio is not None)
    median = None
    if logs:
        mid = len(logs) // 2
        median = logs[mid][0] if len(logs) % 2 else (logs[mid - 1][0] + logs[mid][0]) / 2
    return Summary(kind=kind, role=role, rows=len(chosen), with_figure=len(logs),
                   median_abs_log=median, worst_abs_log=logs[-1][0] if logs else None,
                   worst_id=logs[-1][1] if logs else None,
                   passing=sum(r.within for r in chosen))
