"""Runs the benchmark suite: budget, cancel, progress, errors and out-of-memory retries.

The runner is plain Python without Qt; the GUI calls :func:`run_suite` on a worker thread and
turns the callbacks into signals, the CLI calls it on a thread and prints. Guarantees:

* every selected benchmark appears in the report with a status (ok, skipped: reason,
  error: reason, cancelled) - one benchmark failing never loses another's results;
* cancel takes effect within about a second (checked between steps and inside loops);
* each benchmark gets a share of the suite's time budget and is stopped when it overruns;
* out of memory shrinks the problem and retries once, then records "skipped: out of memory".
"""

from __future__ import annotations

import contextlib
import importlib
import platform
import threading
import time
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from torchrig import __version__
from torchrig.bench.base import (
    BenchContext,
    Benchmark,
    Cancelled,
    Event,
    Failed,
    OutOfTime,
    Progress,
    Skip,
    usable_cpus,
)
from torchrig.bench.machine_state import MachineMonitor, load_average
from torchrig.bench.report import BenchReport, BenchResult, Measurement, utc_now_iso
from torchrig.bench.settings import END_RESERVE_S, BenchSettings, device_kind, resolve_device
from torchrig.bench.timing import is_out_of_memory, release_device_memory
from torchrig.i18n import Msg

if TYPE_CHECKING:
    from torchrig.hardware.model import SystemProfile

ProgressFn = Callable[[Progress], None]
StartFn = Callable[[BenchReport, "Sequence[Benchmark]"], None]
ResultFn = Callable[[BenchResult], None]
MeasurementFn = Callable[[Measurement], None]
PeaksFn = Callable[[str, "SystemProfile | None"], "Mapping[str, float] | None"]
BeginFn = Callable[[str, float, float], None]

OOM_RETRY_SCALE = 0.25
"""Problem memory after an out-of-memory error: a quarter is enough to get under most limits
in one retry (sizes scale with memory, so this is roughly half of each matrix side)."""

MIN_SHARE = 0.25
"""A benchmark always gets at least this fraction of its nominal share, even when earlier ones
overran, so a slow first benchmark cannot starve all the others to nothing."""


MIN_START_S = 0.3
"""A benchmark is not started with less than this left before the suite's deadline."""


def grace_s(budget_s: float) -> float:
    """How long past its budget a benchmark may run before the runner stops it: a quarter of
    the budget, at least a second (the step in flight when the budget ran out finishes)."""
    return max(1.0, 0.25 * budget_s)


def list_benchmarks() -> list[Benchmark]:
    """The registered benchmarks in run order (for the GUI's checklist)."""
    from torchrig.bench.benchmarks.registry import BENCHMARKS

    return list(BENCHMARKS)


def detect_profile() -> tuple[SystemProfile | None, str | None]:
    """(profile, why it is missing). Detection is optional: benchmarks fall back to asking
    torch/psutil directly, and the report says detection was unavailable."""
    try:
        hardware = importlib.import_module("torchrig.hardware")
        detect = getattr(hardware, "detect", None)
        if detect is None or isinstance(detect, types.ModuleType):
            module = detect or importlib.import_module("torchrig.hardware.detect")
            detect = getattr(module, "detect", None)
        if not callable(detect):
            return None, "hardware detection unavailable (no torchrig.hardware.detect)"
        return detect(use_torch=True), None
    except ImportError as exc:
        return None, f"hardware detection unavailable ({exc})"
    except Exception as exc:  # noqa: BLE001 - detection must never stop a benchmark run
        return None, f"hardware detection failed: {type(exc).__name__}: {exc}"


def environment(device: str, profile: SystemProfile | None) -> dict[str, Any]:
    """Software versions and the device's name. Imports torch, which also takes torch's
    import time out of the first benchmark's budget."""
    env: dict[str, Any] = {
        "load_average_1min": load_average(),
        "usable_cpus": usable_cpus(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch": None,
        "cuda": None,
        "cudnn": None,
        "hip": None,
        "torch_threads": None,
        "device_name": None,
    }
    try:
        import torch
    except ImportError as exc:
        env["torch_error"] = f"PyTorch is not installed ({exc})"
        return env
    env["torch"] = torch.__version__
    env["cuda"] = torch.version.cuda
    env["hip"] = getattr(torch.version, "hip", None)
    env["torch_threads"] = torch.get_num_threads()
    with contextlib.suppress(Exception):
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        env["cudnn"] = str(cudnn) if cudnn is not None else None
    kind = device_kind(device)
    if kind == "cuda":
        env["device_name"] = torch.cuda.get_device_name(device)
    elif kind == "mps":
        env["device_name"] = "Apple GPU (MPS)"
    else:
        name = profile.cpu.model_name if profile is not None else None
        env["device_name"] = name or platform.processor() or platform.machine()
    return env


def run_suite(
    settings: BenchSettings,
    *,
    cancel: threading.Event,
    on_progress: ProgressFn | None = None,
    on_result: ResultFn | None = None,
    on_measurement: MeasurementFn | None = None,
    profile: SystemProfile | None = None,
    detect: bool = True,
    registry: Sequence[Benchmark] | None = None,
    peaks_lookup: PeaksFn | None = None,
    on_start: StartFn | None = None,
    watch_machine: bool = True,
    on_begin: BeginFn | None = None,
    earlier: Mapping[str, BenchResult] | None = None,
    wall_started: float | None = None,
) -> BenchReport:
    """Run the selected benchmarks and return the report (also when cancelled).

    Args:
        settings: validated here (InputError for bad input, before anything runs).
        cancel: set from any thread to stop; the current benchmark is marked cancelled, the
            ones after it too, and everything measured so far is kept.
        on_progress / on_measurement / on_result: called on the runner's thread, in order:
            progress and measurements while a benchmark runs, its result when it ends.
        profile: a SystemProfile the caller already has; else detected when ``detect``.
        registry: benchmarks to choose from (tests pass fakes); default: the real suite.
        peaks_lookup: (device, profile) -> spec peaks for the measured device, used when
            ``settings.peaks`` is None (the CLI and GUI pass the catalog's).
        on_start: called with the report (no results yet) and the selected benchmarks once
            the environment is known, before the first benchmark runs.
        watch_machine: sample the machine's load (and NVML) into ``report.machine_state``.
        on_begin: called with (benchmark id, its budget, its hard limit) in seconds just
            before each benchmark runs (the parent process keeps its own deadline from it).
        earlier: results of benchmarks run by an earlier child of the same run (after the
            parent stopped one at its deadline), visible to later benchmarks as ctx.results.
        wall_started: time.monotonic() when the whole run began (the parent's start: the
            monotonic clock is system-wide); the benchmarks then end by that plus
            ``settings.wall_budget_s`` less END_RESERVE_S, and the ones left when that time
            comes are skipped with that reason.
    """
    benches = list(registry) if registry is not None else list_benchmarks()
    settings = settings.validated([b.id for b in benches])
    device = resolve_device(settings.device)
    monitor = MachineMonitor(usable_cpus=usable_cpus()) if watch_machine else None
    if monitor is not None:
        monitor.start()
    try:
        return _run_selected(settings, benches, device, cancel, monitor, on_progress,
                             on_result, on_measurement, profile, detect, peaks_lookup, on_start,
                             on_begin, dict(earlier or {}), wall_started)
    finally:
        if monitor is not None:
            monitor.close()


def _run_selected(
    settings: BenchSettings,
    benches: list[Benchmark],
    device: str,
    cancel: threading.Event,
    monitor: MachineMonitor | None,
    on_progress: ProgressFn | None,
    on_result: ResultFn | None,
    on_measurement: MeasurementFn | None,
    profile: SystemProfile | None,
    detect: bool,
    peaks_lookup: PeaksFn | None,
    on_start: StartFn | None,
    on_begin: BeginFn | None,
    earlier: dict[str, BenchResult],
    wall_started: float | None,
) -> BenchReport:
    settings = replace(settings, device=device)  # "auto"/"cuda" -> what was measured
    profile_error = None
    if profile is None and detect:
        profile, profile_error = detect_profile()
    elif profile is None:
        profile_error = "detection not requested"
    if settings.peaks is None and peaks_lookup is not None:
        # The catalog owns spec peaks; the caller knows the catalog, the runner knows the device.
        settings = replace(settings, peaks=peaks_lookup(device, profile)).validated(
            [b.id for b in benches])
    report = BenchReport(
        settings=settings.to_dict(), started=utc_now_iso(), device=device,
        profile=profile.to_dict() if profile is not None else None,
        profile_error=profile_error, torchrig_version=__version__,
    )
    report.environment = environment(device, profile)
    report.device_name = report.environment.get("device_name")
    selected = [b for b in benches if settings.only is None or b.id in settings.only]
    kind = device_kind(device)
    applicable = {b.id for b in selected if b.skip_reason(kind) is None}
    total_weight = sum(b.weight for b in selected if b.id in applicable) or 1.0
    # A benchmark's share does not depend on what else was selected: `--only storage` runs
    # storage for its usual few seconds instead of stretching it over the whole suite budget.
    registry_weight = sum(b.weight for b in benches if b.skip_reason(kind) is None) or 1.0
    total_budget = settings.suite_budget_s(device) * min(1.0, total_weight / registry_weight)
    if on_start is not None:
        on_start(report, selected)
    for bench in selected:
        if bench.id in applicable and bench.prepare is not None and not cancel.is_set():
            with contextlib.suppress(Exception):  # its own run reports what is wrong
                bench.prepare()
    if monitor is not None:
        monitor.mark_run()
    suite_start = time.monotonic()
    deadline = None
    if wall_started is not None:
        deadline = wall_started + settings.wall_budget_s(device) - END_RESERVE_S
        total_budget = max(0.0, min(total_budget, deadline - suite_start))
    results: dict[str, BenchResult] = dict(earlier)
    for index, bench in enumerate(selected):
        result = BenchResult(id=bench.id, title=bench.title)
        reason = bench.skip_reason(kind)
        to_deadline = deadline - time.monotonic() if deadline is not None else None
        if cancel.is_set():
            result.status = "cancelled"
        elif reason is not None:
            result.status, result.reason = f"skipped: {reason.en}", reason
        elif to_deadline is not None and to_deadline < MIN_START_S:
            result.reason = SUITE_BUDGET_USED
            result.status = f"skipped: {SUITE_BUDGET_USED.en}"
        else:
            left_weight = sum(b.weight for b in selected[index:] if b.id in applicable)
            left_time = total_budget - (time.monotonic() - suite_start)
            nominal = total_budget * bench.weight / total_weight
            budget = max(left_time * bench.weight / left_weight, nominal * MIN_SHARE)
            hard = budget + grace_s(budget)
            if to_deadline is not None:
                budget, hard = min(budget, to_deadline), min(hard, to_deadline)
            if on_begin is not None:
                on_begin(bench.id, budget, hard)
            _run_one(bench, result, settings, device, cancel, budget, profile, results,
                     index, len(selected), on_progress, on_measurement, hard,
                     _Retry(deadline, on_begin))
        results[bench.id] = result
        report.results.append(result)
        if on_result is not None:
            on_result(result)
    report.finished = utc_now_iso()
    if monitor is not None:
        report.machine_state = monitor.stop()
    # A cancel that arrives after the last benchmark finished cancelled nothing.
    report.cancelled = any(r.state == "cancelled" for r in report.results)
    return report


def _run_one(
    bench: Benchmark,
    result: BenchResult,
    settings: BenchSettings,
    device: str,
    cancel: threading.Event,
    budget: float,
    profile: SystemProfile | None,
    earlier: dict[str, BenchResult],
    index: int,
    count: int,
    on_progress: ProgressFn | None,
    on_measurement: MeasurementFn | None,
    hard_s: float | None = None,
    retry: _Retry | None = None,
) -> None:
    """Run one benchmark into ``result``, retrying once at a smaller size after OOM; it is
    stopped ``hard_s`` seconds after it started (default: budget + grace_s). A retry is a
    new attempt with its own budget and hard limit (within the suite's deadline), announced
    through ``retry.on_begin`` so the parent's clock restarts with it."""
    hard_s = hard_s if hard_s is not None else budget + grace_s(budget)
    started = time.monotonic()
    result.budget_s = budget
    scale = 1.0
    for attempt in (1, 2):
        # A retry gets what is left of the share, but at least half of it: the failed
        # attempt may have spent most of the time before running out of memory.
        left = budget - (time.monotonic() - started)
        this_budget, this_hard = budget, hard_s
        if attempt == 2:
            this_budget = max(left, 0.5 * budget)
            this_hard = this_budget + grace_s(this_budget)
            if retry is not None and retry.deadline is not None:
                to_deadline = retry.deadline - time.monotonic()
                this_budget, this_hard = min(this_budget, to_deadline), min(this_hard,
                                                                            to_deadline)
            if retry is not None and retry.on_begin is not None:
                retry.on_begin(bench.id, this_budget, this_hard)
        ctx = BenchContext(settings=settings, device=device, cancel=cancel,
                           budget_s=this_budget, profile=profile, results=dict(earlier),
                           scale=scale, hard_limit_s=this_hard)
        measurements: list[Measurement] = []
        try:
            _drive(bench, ctx, measurements, index, count, on_progress, on_measurement)
        except Cancelled:
            result.status = "cancelled"
        except OutOfTime:
            _stopped_by_runner(ctx)
            _budget_status(result, ctx, measurements)
        except Skip as exc:
            result.status, result.reason = f"skipped: {exc.reason.en}", exc.reason
        except Failed as exc:
            result.status, result.reason = f"error: {exc.reason.en}", exc.reason
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] in ("torch", "numpy", "psutil"):
                msg = Msg(f"{exc.name} is not installed", f"未安装 {exc.name}")
                result.status, result.reason = f"skipped: {msg.en}", msg
            else:
                result.status = f"error: {type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - one benchmark must never end the suite
            if is_out_of_memory(exc):
                measurements.clear()
                release_device_memory(device)
                if attempt == 1:
                    scale = OOM_RETRY_SCALE
                    result.notes.append(Msg(
                        f"out of memory at full size: retried at {OOM_RETRY_SCALE:.0%} of the "
                        "memory", f"全尺寸时内存不足：以 {OOM_RETRY_SCALE:.0%} 的内存重试"))
                    continue
                msg = Msg("out of memory", "内存不足")
                result.status, result.reason = "skipped: out of memory", msg
            else:
                result.status = f"error: {type(exc).__name__}: {exc}"
        else:
            _budget_status(result, ctx, measurements)
        result.measurements = measurements
        result.notes.extend(n for n in ctx.notes if n not in result.notes)
        break
    result.seconds = time.monotonic() - started


@dataclass(frozen=True)
class _Retry:
    """What an out-of-memory retry needs from the suite: its deadline and the announcer."""

    deadline: float | None
    on_begin: BeginFn | None


SUITE_BUDGET_USED = Msg("not run: the suite's time budget was used up",
                        "未运行：整套测试的时间预算已用完")


def _budget_status(result: BenchResult, ctx: BenchContext,
                   measurements: list[Measurement]) -> None:
    """ok, partial (what was left out for time) or skipped (stopped before any figure)."""
    if not measurements and ctx.budget_stopped:
        msg = Msg("time budget used up before a figure was measured",
                  "时间预算在测得数据前已用完")
        result.status, result.reason = f"skipped: {msg.en}", msg
    elif ctx.left_out:
        result.reason = Msg(
            "left out for the time budget: " + "; ".join(m.en for m in ctx.left_out),
            "因时间预算未测：" + "；".join(m.zh for m in ctx.left_out))
        result.status = f"partial: {result.reason.en}"
    else:
        result.status = "ok"


def _stopped_by_runner(ctx: BenchContext) -> None:
    ctx.budget_stopped = True
    ctx.left_out.append(Msg("the rest of this benchmark", "本项其余部分"))
    ctx.note(Msg(f"stopped by the runner after {ctx.elapsed():.1f} s: its time "
                 f"budget was {ctx.budget_s:.1f} s",
                 f"运行 {ctx.elapsed():.1f} 秒后被终止：其时间预算为 "
                 f"{ctx.budget_s:.1f} 秒"))


def _drive(
    bench: Benchmark,
    ctx: BenchContext,
    measurements: list[Measurement],
    index: int,
    count: int,
    on_progress: ProgressFn | None,
    on_measurement: MeasurementFn | None,
) -> None:
    """Iterate one benchmark's generator, enforcing cancel and the hard time limit.

    The generator is always closed, so its ``finally`` blocks (temp files, worker processes,
    restored torch flags) run whatever happens.
    """
    ctx.check()
    gen: Iterator[Event] = bench.run(ctx)
    limit = ctx.hard_limit_s if ctx.hard_limit_s is not None else (
        ctx.budget_s + grace_s(ctx.budget_s))
    try:
        for event in gen:
            if isinstance(event, Progress):
                if on_progress is not None:
                    on_progress(Progress(event.bench_id, event.step, event.steps_total,
                                         event.message, index, count))
            elif isinstance(event, Measurement):
                measurements.append(event)
                if on_measurement is not None:
                    on_measurement(event)
            ctx.check()
            if ctx.elapsed() > limit:
                _stopped_by_runner(ctx)
                break
    finally:
        close = getattr(gen, "close", None)
        if close is not None:
            close()
