"""The machine's state before and during a benchmark run, and whether the figures can be trusted.

A figure measured while other work competes for the cores or the GPU is not the machine's
best, and nothing in the figure itself says so. This module keeps the evidence beside it:

* CPU: the 1-minute load average when the run starts, and over the preparation window (torch
  import, detection) and the run itself the CPU time used by *other* processes (all non-idle
  CPU time minus this process tree's own) and the share of CPU time stolen by the hypervisor;
* NVIDIA GPUs (NVML): other processes on each GPU, SM and memory clocks against their maxima,
  temperature, power limit and the reasons NVML gives for holding the clocks down.

Sampling runs on a daemon thread every ``interval_s``; every NVML call is guarded so a missing
driver or an unsupported query leaves the field out instead of raising. The verdict
(:func:`busy_warnings`) is plain data with bilingual texts, shown by the CLI, the GUI and the
PDF. Nothing here imports torch.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from torchrig.i18n import Msg

BUSY_LOAD_PER_CPU = 0.5
"""A 1-minute load above half the usable CPUs when the run starts: other work is running."""

BUSY_OTHER_CPU_SHARE = 0.25
"""Other processes using more than a quarter of the usable CPUs (and at least half a core)
during the run took time the benchmark's threads needed."""

BEFORE_WINDOW_S = 0.3
"""Shortest window measured before the run (see MachineMonitor.mark_run)."""

BUSY_STEAL_SHARE = 0.05
"""More than 5 % of CPU time stolen by the hypervisor: a noisy neighbour on a shared host."""

HOT_THROTTLE = {
    "sw_power_cap": Msg("power cap", "功率上限"),
    "hw_slowdown": Msg("hardware slowdown", "硬件降频"),
    "sw_thermal_slowdown": Msg("software thermal slowdown", "软件温控降频"),
    "hw_thermal_slowdown": Msg("hardware thermal slowdown", "硬件温控降频"),
    "hw_power_brake_slowdown": Msg("power brake", "电源制动降频"),
}
"""Clock-holding reasons that mean the GPU could not run at full speed (idle, application
clock settings and sync boost are normal and not listed)."""

THROTTLE_BITS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
"""NVML's nvmlClocksEventReason* bits (nvml.h), named."""

_NVML_CLOCK_SM = 1
_NVML_CLOCK_MEM = 2
_NVML_TEMPERATURE_GPU = 0


# --- CPU -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuSample:
    """Cumulative CPU seconds at one instant: all CPUs' non-idle and stolen time, the total,
    and this process tree's own."""

    wall: float
    busy_s: float
    steal_s: float
    total_s: float
    own_s: float


def load_average() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _own_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and every live descendant, with the reaped children each of them
    has counted (DataLoader workers and storage helpers are this run's work, not other load)."""
    import psutil

    total = 0.0
    try:
        root = psutil.Process(pid)
        family = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for proc in family:
        with contextlib.suppress(psutil.Error):
            t = proc.cpu_times()
            total += t.user + t.system + getattr(t, "children_user", 0.0) + getattr(
                t, "children_system", 0.0)
    return total


def cpu_sample(pid: int | None = None) -> CpuSample | None:
    """None where psutil cannot read the system's CPU times."""
    try:
        import psutil

        t = psutil.cpu_times()
    except Exception:  # noqa: BLE001 - no psutil or an OS that refuses: no CPU evidence
        return None
    idle = t.idle + getattr(t, "iowait", 0.0)
    total = sum(getattr(t, name) for name in t._fields if name not in ("guest", "guest_nice"))
    return CpuSample(wall=time.monotonic(), busy_s=total - idle,
                     steal_s=getattr(t, "steal", 0.0), total_s=total,
                     own_s=_own_cpu_seconds(pid if pid is not None else os.getpid()))


def other_load(a: CpuSample, b: CpuSample) -> dict[str, float] | None:
    """Between two samples: cores' worth of CPU used by other processes, and the share of all
    CPU time stolen by the hypervisor. None for a window too short to say anything."""
    wall = b.wall - a.wall
    total = b.total_s - a.total_s
    if wall < 0.2 or total <= 0:
        return None
    other = max(0.0, (b.busy_s - a.busy_s) - (b.own_s - a.own_s) - (b.steal_s - a.steal_s))
    return {"seconds": round(wall, 3), "other_cpu_cores": round(other / wall, 3),
            "steal_share": round(max(0.0, b.steal_s - a.steal_s) / total, 4)}


# --- NVML ------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _call(fn: Callable[..., Any] | None, *args: Any) -> Any:
    if fn is None:
        return None
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001 - an NVMLError (not supported, no permission): unknown
        return None


def throttle_names(mask: int) -> list[str]:
    return [name for bit, name in THROTTLE_BITS.items() if mask & bit]


def nvml_snapshot(pynvml: Any, own_pids: Sequence[int]) -> list[dict[str, Any]]:
    """One record per NVML GPU; fields NVML cannot answer are left out. ``pynvml`` must be
    initialised by the caller."""
    count = _call(pynvml.nvmlDeviceGetCount) or 0
    own = set(own_pids)
    gpus = []
    for index in range(int(count)):
        handle = _call(pynvml.nvmlDeviceGetHandleByIndex, index)
        if handle is None:
            continue
        gpu: dict[str, Any] = {"index": index}
        name = _call(pynvml.nvmlDeviceGetName, handle)
        if name is not None:
            gpu["name"] = _text(name)
        uuid = _call(pynvml.nvmlDeviceGetUUID, handle)
        if uuid is not None:
            gpu["uuid"] = _text(uuid)
        get = getattr
        clock_sm = get(pynvml, "NVML_CLOCK_SM", _NVML_CLOCK_SM)
        clock_mem = get(pynvml, "NVML_CLOCK_MEM", _NVML_CLOCK_MEM)
        for key, fn, arg in (
            ("sm_clock_mhz", "nvmlDeviceGetClockInfo", clock_sm),
            ("sm_clock_max_mhz", "nvmlDeviceGetMaxClockInfo", clock_sm),
            ("mem_clock_mhz", "nvmlDeviceGetClockInfo", clock_mem),
            ("mem_clock_max_mhz", "nvmlDeviceGetMaxClockInfo", clock_mem),
            ("temperature_c", "nvmlDeviceGetTemperature",
             get(pynvml, "NVML_TEMPERATURE_GPU", _NVML_TEMPERATURE_GPU)),
        ):
            value = _call(get(pynvml, fn, None), handle, arg)
            if value is not None:
                gpu[key] = int(value)
        for key, fn in (("power_limit_w", "nvmlDeviceGetEnforcedPowerLimit"),
                        ("power_w", "nvmlDeviceGetPowerUsage")):
            value = _call(get(pynvml, fn, None), handle)
            if value is not None:
                gpu[key] = round(int(value) / 1000, 1)
        # Renamed "clocks event reasons" in recent drivers; older bindings only have the old name.
        reasons_fn = get(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or get(
            pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        mask = _call(reasons_fn, handle)
        if mask is not None:
            gpu["throttle_reasons"] = throttle_names(int(mask))
        others: list[dict[str, Any]] = []
        for fn in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses"):
            for proc in _call(get(pynvml, fn, None), handle) or ():
                pid = int(getattr(proc, "pid", 0))
                if pid and pid not in own and pid not in {p["pid"] for p in others}:
                    used = getattr(proc, "usedGpuMemory", None)
                    others.append({"pid": pid, "used_bytes": int(used) if isinstance(
                        used, int) else None})
        gpu["other_processes"] = others
        gpus.append(gpu)
    return gpus


def merge_gpu_samples(samples: Sequence[Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per GPU over a run: lowest clocks, highest temperature and power, every throttle reason
    and every other process seen."""
    merged: dict[int, dict[str, Any]] = {}
    for snapshot in samples:
        for gpu in snapshot:
            m = merged.setdefault(gpu["index"], {"index": gpu["index"], "throttle_reasons": [],
                                                 "other_processes": [], "samples": 0})
            m["samples"] += 1
            for key in ("name", "uuid", "sm_clock_max_mhz", "mem_clock_max_mhz", "power_limit_w"):
                if key in gpu:
                    m[key] = gpu[key]
            for key in ("sm_clock_mhz", "mem_clock_mhz"):
                if key in gpu:
                    m[f"{key}_min"] = min(m.get(f"{key}_min", gpu[key]), gpu[key])
            for key in ("temperature_c", "power_w"):
                if key in gpu:
                    m[f"{key}_max"] = max(m.get(f"{key}_max", gpu[key]), gpu[key])
            for reason in gpu.get("throttle_reasons", ()):
                if reason not in m["throttle_reasons"]:
                    m["throttle_reasons"].append(reason)
            known = {p["pid"] for p in m["other_processes"]}
            m["other_processes"].extend(p for p in gpu.get("other_processes", ())
                                        if p["pid"] not in known)
    return [merged[i] for i in sorted(merged)]


class _Nvml:
    """pynvml initialised once for a monitor's life, or None where it cannot be."""

    def __init__(self) -> None:
        self.module: Any = None
        self.error: str | None = None
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception as exc:  # noqa: BLE001 - no module, no driver, no permission
            self.error = f"NVML unavailable ({type(exc).__name__}: {exc})"
        else:
            self.module = pynvml

    def snapshot(self, own_pids: Sequence[int]) -> list[dict[str, Any]] | None:
        if self.module is None:
            return None
        return nvml_snapshot(self.module, own_pids)

    def close(self) -> None:
        if self.module is not None:
            with contextlib.suppress(Exception):
                self.module.nvmlShutdown()
            self.module = None


# --- the monitor -----------------------------------------------------------------------------


@dataclass
class MachineMonitor:
    """Samples CPU and GPU state from :meth:`start` to :meth:`stop`; :meth:`mark_run` ends the
    preparation window (torch import, detection) and starts the measured run.

    Attributes:
        usable_cpus: the CPUs this run may use (the yardstick for "busy").
        interval_s: sampling period of the background thread.
        nvml: whether to ask NVML (False in tests that must not touch a real driver).
    """

    usable_cpus: int
    interval_s: float = 0.5
    nvml: bool = True
    _load_before: float | None = None
    _start: CpuSample | None = None
    _mark: CpuSample | None = None
    _samples: list[CpuSample] = field(default_factory=list)
    _gpu_before: list[dict[str, Any]] | None = None
    _gpu_samples: list[list[dict[str, Any]]] = field(default_factory=list)
    _gpu_error: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _nvml: _Nvml | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> None:
        self._load_before = load_average()
        self._start = cpu_sample()
        if self.nvml:
            self._nvml = _Nvml()
            self._gpu_error = self._nvml.error
            self._gpu_before = self._nvml.snapshot(self._own_pids())

    def mark_run(self) -> None:
        """The benchmarks start now: later samples describe the run itself. The window before
        is stretched to BEFORE_WINDOW_S when preparation was quicker: CPU times tick in
        10 ms steps, so a shorter window says nothing."""
        if self._start is not None:
            time.sleep(max(0.0, BEFORE_WINDOW_S - (time.monotonic() - self._start.wall)))
        self._mark = cpu_sample()
        self._thread = threading.Thread(target=self._sample_loop, name="torchrig-machine-state",
                                        daemon=True)
        self._thread.start()

    def _own_pids(self) -> list[int]:
        try:
            import psutil

            me = psutil.Process()
            return [me.pid, *(c.pid for c in me.children(recursive=True))]
        except Exception:  # noqa: BLE001 - without psutil only this process is known
            return [os.getpid()]

    def _sample_loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample_once()

    def _sample_once(self) -> None:
        sample = cpu_sample()
        gpus = self._nvml.snapshot(self._own_pids()) if self._nvml is not None else None
        with self._lock:
            if sample is not None:
                self._samples.append(sample)
            if gpus is not None:
                self._gpu_samples.append(gpus)

    def stop(self) -> dict[str, Any]:
        """End sampling and return the state for the report (see :func:`busy_warnings`)."""
        self._halt()
        self._sample_once()
        self.close()
        return self.state()

    def _halt(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def close(self) -> None:
        """Stop the thread and release NVML; safe to call again (after stop, on errors)."""
        self._halt()
        if self._nvml is not None:
            self._nvml.close()
            self._nvml = None

    def state(self) -> dict[str, Any]:
        with self._lock:
            samples = list(self._samples)
            gpu_samples = list(self._gpu_samples)
        before: dict[str, Any] = {"load_average_1min": self._load_before,
                                  "usable_cpus": self.usable_cpus}
        if self._start is not None and self._mark is not None:
            before.update(other_load(self._start, self._mark) or {})
        if self._gpu_before is not None:
            before["gpus"] = self._gpu_before
        during: dict[str, Any] = {}
        if self._mark is not None and samples:
            during.update(other_load(self._mark, samples[-1]) or {})
            points = [other_load(a, b) for a, b in zip([self._mark, *samples], samples,
                                                         strict=False)]
            peaks = [p["other_cpu_cores"] for p in points if p is not None]
            if peaks:
                during["other_cpu_cores_max"] = max(peaks)
            during["load_average_1min_end"] = load_average()
        if gpu_samples:
            during["gpus"] = merge_gpu_samples(gpu_samples)
        state: dict[str, Any] = {"before": before, "during": during}
        if self._gpu_error is not None:
            state["gpu_error"] = self._gpu_error
        warnings = busy_warnings(state)
        state["busy"] = bool(warnings)
        state["warnings"] = [w.to_dict() for w in warnings]
        return state


def busy_warnings(state: dict[str, Any]) -> list[Msg]:
    """Plain warnings, each saying what was seen and what to do; empty when nothing was."""
    out: list[Msg] = []
    before, during = state.get("before", {}), state.get("during", {})
    cpus = before.get("usable_cpus")
    # Every CPU threshold is per usable CPU: a load of 2 is busy on 2 CPUs, not on 64. Where
    # the count is unknown (a report from before it was kept) there is nothing to scale by,
    # so the CPU checks say nothing rather than judge every machine as a 1-CPU one.
    cpus = cpus if isinstance(cpus, int) and not isinstance(cpus, bool) and cpus > 0 else None
    load = before.get("load_average_1min")
    if cpus is not None and isinstance(load, (int, float)) and load > BUSY_LOAD_PER_CPU * cpus:
        out.append(Msg(
            f"The machine was busy when the run started (1-minute load average {load:.1f} on "
            f"{cpus} usable CPUs): close other programs and run the benchmark again.",
            f"开始运行时机器繁忙（1 分钟平均负载 {load:.1f}，可用 CPU {cpus} 个）："
            "请关闭其他程序后重新运行基准测试。"))
    for window, where_en, where_zh in ((during, "during the run", "运行期间"),
                                       (before, "before the run", "运行前")):
        other = window.get("other_cpu_cores")
        if cpus is not None and isinstance(other, (int, float)) and other > max(
                0.5, BUSY_OTHER_CPU_SHARE * cpus):
            out.append(Msg(
                f"Other processes used {other:.1f} of {cpus} CPU cores {where_en}: the figures "
                "are below this machine's best. Close them (see top or the task manager) and "
                "run the benchmark again.",
                f"{where_zh}其他进程占用了 {other:.1f} 个 CPU 核心（共 {cpus} 个）："
                "结果低于本机最佳水平。请关闭这些进程（可用 top 或任务管理器查看）后重新运行。"))
            break
    steal = during.get("steal_share", before.get("steal_share"))
    if isinstance(steal, (int, float)) and steal > BUSY_STEAL_SHARE:
        out.append(Msg(
            f"The hypervisor took {steal:.0%} of the CPU time (steal): other virtual machines "
            "on the same host were busy. Run again later or on a dedicated host.",
            f"虚拟化平台占用了 {steal:.0%} 的 CPU 时间（steal）：同一宿主机上的其他虚拟机"
            "正忙。请稍后或在独占主机上重新运行。"))
    for gpu in during.get("gpus", ()):
        label = gpu.get("name") or f"GPU {gpu['index']}"
        others = gpu.get("other_processes") or []
        if others:
            pids = ", ".join(str(p["pid"]) for p in others[:5])
            out.append(Msg(
                f"{label}: {len(others)} other process(es) used the GPU during the run "
                f"(PID {pids}): stop them (nvidia-smi lists them) and run again.",
                f"{label}：运行期间有 {len(others)} 个其他进程在使用该 GPU（PID {pids}）："
                "请停止它们（nvidia-smi 可列出）后重新运行。"))
        hot = [HOT_THROTTLE[r] for r in gpu.get("throttle_reasons", ()) if r in HOT_THROTTLE]
        if hot:
            temp = gpu.get("temperature_c_max")
            temp_en = f", up to {temp} °C" if temp is not None else ""
            temp_zh = f"，最高 {temp} °C" if temp is not None else ""
            out.append(Msg(
                f"{label} held its clocks down during the run ("
                f"{', '.join(h.en for h in hot)}{temp_en}): check cooling and the power limit "
                "(nvidia-smi -q -d PERFORMANCE), then run again.",
                f"{label} 运行期间降低了频率（{'、'.join(h.zh for h in hot)}{temp_zh}）："
                "请检查散热与功率上限（nvidia-smi -q -d PERFORMANCE）后重新运行。"))
    return out
