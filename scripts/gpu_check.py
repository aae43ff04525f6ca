#!/usr/bin/env python3
"""Exercise every CUDA path of the benchmark suite on a real GPU and check the figures.

Run on a machine with an NVIDIA GPU (the CI machines have none):

    python scripts/gpu_check.py [--device cuda:0] [--json gpu_check.json] [--full]

It runs hardware detection (NVML and torch merged), the whole suite on the GPU in its child
process (``python -m torchrig.bench.process.child``, as the GUI and CLI run it: matmul in
FP32/TF32/FP16/BF16, memory bandwidth, pinned and pageable host<->device copies with the PCIe
link read under load, FP32 vs AMP-fp16 training interleaved step by step with GradScaler and
peak-memory stats, gradient checkpointing, data loading, storage, CPU matmul), checks that each
path produced what it should, checks the machine state NVML recorded during the run (clocks,
temperature, power limit, throttle reasons, other processes on the GPU), kills a second CUDA
child with SIGKILL mid-run and checks that what it measured was kept, prints every figure, and
compares with the calibration measured on an H200 (~790 TFLOP/s BF16 on 8192^3, ~4.3 TB/s
device copy counting bytes read + written), and holds bench/timing.py's CUDA branches against a
timer of its own (``gpu_timing_checks.py``: the division by ``inner``, the settle rule, events on
a GPU that is not the current device; the last is skipped, with its reason, on one GPU).

The checks are plain functions of a report (``path_checks``, ``machine_state_checks``,
``crash_checks``) or of the work to time (``gpu_timing_checks``), tested with fake reports and a
fake GPU on machines without one.

Exit codes: 0 all checks passed (some may be skipped, each with its reason), 1 a check failed,
2 no CUDA (or no torch) on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

# H200 SXM calibration: PyTorch on the project's H200 machines measured 769-798 TFLOP/s for an
# 8192^3 bf16 matmul on random data and ~4.3 TB/s for a device-to-device copy counting bytes
# read + written (device notes, KINDS.md, Oct/Nov 2026); docs/estimation.md sec. 5 agrees.
H200_CALIBRATION = {
    ("matmul", "bf16"): (790e12, "FLOP/s", "BF16 matmul 8192^3"),
    ("membw", "copy_rw"): (4.3e12, "B/s", "device copy, bytes read + written"),
}
CALIBRATION_TOLERANCE = 0.8
"""A healthy card lands within run-to-run noise of the calibration; below 80 % something
(power cap, clocks, another process) is holding it back."""


Check = tuple[str, bool, str]
"""(what was checked, passed, detail)."""


def path_checks(report: Any, cc_major: int) -> list[Check]:
    """Every CUDA path produced its figure (a BenchReport from a GPU run)."""
    out: list[Check] = [(f"{r.id} ran", r.state == "ok", r.status) for r in report.results]
    dtypes = ["fp32", "fp16"] + (["tf32", "bf16"] if cc_major >= 8 else [])
    for dtype in dtypes:
        out.append((f"matmul {dtype} measured", report.value("matmul", dtype) is not None, ""))
    for case in ("pinned_h2d", "pinned_d2h", "pageable_h2d", "pageable_d2h"):
        out.append((f"h2d {case} measured", report.value("h2d", case) is not None, ""))
    h2d = report.result("h2d")
    pinned = h2d.measurement("pinned_h2d") if h2d else None
    out.append(("PCIe link read under load",
                pinned is not None and "pcie_gen" in pinned.details,
                str(pinned.details if pinned else None)))
    train = report.result("train")
    if train is not None:
        amp = train.measurement("cnn_amp")
        out.append(("AMP used fp16 + GradScaler on CUDA",
                    amp is not None and amp.details.get("amp_dtype") == "fp16", ""))
        for key in ("cnn_fp32_peak_bytes", "cnn_amp_peak_bytes",
                    "transformer_fp32_peak_bytes", "transformer_amp_peak_bytes"):
            out.append((f"peak memory stat {key}", (train.value(key) or 0) > 0, ""))
        speedup = train.measurement("cnn_amp_speedup")
        pairs = speedup.details.get("pairs", 0) if speedup is not None else 0
        out.append(("AMP speed-up from interleaved FP32/AMP pairs, with its range",
                    pairs >= 1 and speedup is not None
                    and speedup.details["min"] <= speedup.value <= speedup.details["max"],
                    f"{pairs} pairs"))
    ckpt = report.result("checkpointing")
    if ckpt is not None:
        saved = ckpt.value("memory_saved")
        out.append(("checkpointing saves memory (allocator peak)",
                    saved is not None and saved > 0,
                    f"{saved:.0%}" if saved is not None else "not measured"))
    return out


def machine_state_checks(report: Any, device_index: int) -> list[Check]:
    """NVML watched the GPU during the run: clocks, temperature, power limit, throttle
    reasons, and no other process on it (the suite's own child is not "other")."""
    state = report.machine_state or {}
    gpus = state.get("during", {}).get("gpus") or []
    gpu = next((g for g in gpus if g.get("index") == device_index), None)
    out: list[Check] = [("NVML sampled the GPU during the run", gpu is not None,
                         state.get("gpu_error") or f"{len(gpus)} GPU(s) sampled")]
    if gpu is None:
        return out
    for key in ("sm_clock_mhz_min", "sm_clock_max_mhz", "temperature_c_max", "power_limit_w"):
        out.append((f"NVML {key}", isinstance(gpu.get(key), (int, float)), str(gpu.get(key))))
    out.append(("NVML throttle reasons read", isinstance(gpu.get("throttle_reasons"), list),
                str(gpu.get("throttle_reasons"))))
    others = gpu.get("other_processes", [])
    out.append(("no other process on the GPU (the benchmark child is not counted)",
                not others, str(others)))
    out.append(("machine-state verdict recorded", isinstance(state.get("busy"), bool),
                "; ".join(w["en"] for w in state.get("warnings", [])) or "quiet"))
    return out


def crash_checks(report: Any) -> list[Check]:
    """A CUDA child killed with SIGKILL after its first figure: the report keeps the figures
    and says how the child ended."""
    measured = [m for r in report.results for m in r.measurements]
    interrupted = report.interrupted
    return [
        ("killed CUDA child: figures measured before the kill kept", bool(measured),
         f"{len(measured)} figure(s)"),
        ("killed CUDA child: the report says it was SIGKILL",
         interrupted is not None and "SIGKILL" in interrupted.en,
         interrupted.en if interrupted is not None else "no interruption recorded"),
    ]


def summarise(checks: list[dict[str, Any]]) -> int:
    """Print the verdict over every check entry and return the exit code: 1 when one failed.
    A skipped entry (``ok`` None) is neither: it is listed with its reason."""
    skipped = [c for c in checks if c.get("status") == "skipped"]
    for c in skipped:
        print(f"skipped, not passed: {c['check']} ({c['detail']})")
    failed = [c["check"] for c in checks if c["ok"] is False]
    if failed:
        print(f"{len(failed)} check(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    passed = sum(1 for c in checks if c["ok"] is True)
    print(f"all checks passed ({passed} passed, {len(skipped)} skipped)")
    return 0


def timing_entries(results: list[Any]) -> list[dict[str, Any]]:
    """The timing checks (gpu_timing_checks.TimingCheck) as check entries, with their figures;
    a skipped one has ``ok`` None: it was not passed."""
    return [{"check": r.name, "ok": None if r.status == "skipped" else r.status == "pass",
             "status": r.status, "detail": r.detail(), "figures": r.to_dict()}
            for r in results]


def _fail_no_cuda(message: str) -> int:
    print(f"gpu_check: {message}", file=sys.stderr)
    return 2


VERIFY_WORKLOADS = ("imagenet-resnet50-amp-8gpu.json", "vit-b16-finetune.json",
                    "bert-base-finetune-sst2.json", "gpt2-train-8gpu.json",
                    "llama2-7b-full-zero3-8xa100.json")
"""Sample workloads ``torchrig verify`` runs on the GPU: the vision and text presets at full
size, and Llama-2-7B (reduced where it does not fit one GPU)."""


def check_verify(device: str, check: Any) -> list[dict[str, Any]]:
    """torchrig verify's CUDA path: autocast + GradScaler, allocator statistics per phase with
    resets between them, within 30 s, nothing left allocated afterwards."""
    import torch

    from torchrig.planning.workload import load_workload
    from torchrig.verify.compare import format_text
    from torchrig.verify.measure import device_for_plan, verify

    print("== verify (measured vs planned)")
    folder = Path(__file__).resolve().parents[1] / "workloads"
    gpu = device_for_plan(device)
    results = []
    for name in VERIFY_WORKLOADS:
        workload = load_workload(folder / name)
        torch.cuda.synchronize(device)
        before = torch.cuda.memory_allocated(device)
        try:
            result = verify(workload, device, gpu=gpu)
        except Exception as exc:  # report and go on: one failure must not hide the others
            check(f"verify {name}", False, f"{type(exc).__name__}: {exc}")
            continue
        print(format_text(result))
        phases = [p.name for p in result.measured.phases]
        check(f"verify {name}: phases forward/backward/optimizer measured",
              phases == ["forward", "backward", "optimizer"], str(phases))
        check(f"verify {name}: within 30 s", result.wall_s <= 30, f"{result.wall_s:.1f} s")
        check(f"verify {name}: total measured", result.row("total").measured is not None)
        torch.cuda.synchronize(device)
        left = torch.cuda.memory_allocated(device) - before
        check(f"verify {name}: nothing left allocated", left <= 0, f"{left} B")
        if workload.precision == "amp_fp16":
            check(f"verify {name}: fp16 autocast with GradScaler",
                  "GradScaler" in result.precision_note, result.precision_note)
        results.append(result.to_dict())
    # The Wizard's Measure button runs the same in a child process (verify/child.py):
    # the GPU result must come back through the pipe whole.
    import threading as _threading

    from torchrig.verify.child import run_verify_isolated

    workload = load_workload(folder / VERIFY_WORKLOADS[0])
    try:
        isolated = run_verify_isolated(workload, cancel=_threading.Event(), device=device)
    except Exception as exc:  # noqa: BLE001 - reported like every other check
        check("verify in a child process (the Wizard's path)", False,
              f"{type(exc).__name__}: {exc}")
    else:
        check("verify in a child process (the Wizard's path)",
              isolated is not None and isolated.device_kind == "cuda"
              and [p.name for p in isolated.measured.phases]
              == ["forward", "backward", "optimizer"],
              f"{isolated.device_name if isolated else None}")
    return results


def _run_and_kill(run_isolated: Any, settings: Any) -> Any:
    """Run ``settings`` in a child and SIGKILL it once its first figure has arrived."""
    import os
    import signal

    import psutil

    def kill_child(_measurement: Any) -> None:
        for proc in psutil.Process().children():
            if "torchrig.bench.process.child" in " ".join(proc.cmdline()):
                os.kill(proc.pid, signal.SIGKILL)

    return run_isolated(settings, cancel=threading.Event(), on_measurement=kill_child)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--json", default="gpu_check.json", metavar="FILE",
                        help="where to write the suite report and the check results")
    parser.add_argument("--full", action="store_true", help="run the full preset")
    args = parser.parse_args(argv)

    try:
        import torch
    except ImportError:
        return _fail_no_cuda("PyTorch is not installed; install a CUDA build of torch")
    if not torch.cuda.is_available() or torch.cuda.device_count() == 0:
        return _fail_no_cuda(
            f"no CUDA device: torch {torch.__version__} (CUDA build: {torch.version.cuda}) "
            "sees no GPU; run this on a machine with an NVIDIA GPU")

    from torchrig.bench.findings import bench_findings
    from torchrig.bench.format import format_measurement
    from torchrig.bench.process.isolated import run_isolated
    from torchrig.bench.report import save_report
    from torchrig.bench.runner import detect_profile
    from torchrig.bench.settings import BenchSettings, resolve_device
    from torchrig.errors import InputError

    try:
        device = resolve_device(args.device)
    except InputError as exc:
        return _fail_no_cuda(str(exc))

    checks: list[dict[str, Any]] = []

    def check(name: str, ok: bool, detail: str = "") -> None:
        checks.append({"check": name, "ok": bool(ok), "status": "pass" if ok else "fail",
                       "detail": detail})
        print(f"  [{'PASS' if ok else 'FAIL'}] {name}" + (f": {detail}" if detail else ""))

    print(f"== detection ({device})")
    t0 = time.perf_counter()
    profile, why = detect_profile()
    print(f"  detect(use_torch=True) took {time.perf_counter() - t0:.2f} s")
    index = int(device.split(":")[1])
    gpu = None
    if profile is None:
        check("hardware detection", False, why or "")
    else:
        gpu = next((g for g in profile.gpus if g.torch_device == device), None)
        check("torch device found in the profile", gpu is not None,
              f"{len(profile.gpus)} GPU(s) detected")
        if gpu is not None:
            check("GPU seen by both NVML and torch (merged by UUID)",
                  {"nvml", "torch"} <= set(gpu.sources), f"sources={gpu.sources}")
            print(f"  {gpu.name}, {gpu.vram_total_bytes} B VRAM, CC {gpu.compute_capability}, "
                  f"PCIe gen{gpu.pcie_gen_current}/{gpu.pcie_gen_max} "
                  f"x{gpu.pcie_width_current}/{gpu.pcie_width_max}, "
                  f"power limit {gpu.power_limit_w} W")

    print(f"== suite ({'full' if args.full else 'quick'}) on {device}, in its child process")
    cancel = threading.Event()
    started = time.perf_counter()

    def progress(p: Any) -> None:
        print(f"  [{p.bench_index + 1}/{p.bench_count}] {p.bench_id} "
              f"{p.step}/{p.steps_total}: {p.message.en}", flush=True)

    settings = BenchSettings(preset="full" if args.full else "quick", device=device)
    report = run_isolated(settings, cancel=cancel, on_progress=progress,
                          profile=profile.to_dict() if profile is not None else None,
                          detect=profile is None, catalog_peaks=True)
    wall = time.perf_counter() - started
    print(f"  suite wall time {wall:.1f} s (child process, torch import included)")
    check("the suite ran on the GPU in the child", report.device == device, report.device)
    if not args.full:
        check("quick suite within 20 s on a GPU", wall <= 20, f"{wall:.1f} s")

    print("== figures")
    for r in report.results:
        print(f"{r.id}: {r.status} ({r.seconds:.1f} s of {r.budget_s:.1f} s)")
        for m in r.measurements:
            print(f"    {format_measurement(m)}")
        for n in r.notes:
            print(f"    note: {n.en}")

    print("== path checks")
    major, _minor = torch.cuda.get_device_capability(index)
    for name_, ok, detail in path_checks(report, major):
        check(name_, ok, detail)

    print("== machine state during the run (NVML)")
    for name_, ok, detail in machine_state_checks(report, index):
        check(name_, ok, detail)

    print("== a CUDA child killed with SIGKILL mid-run")
    killed = _run_and_kill(run_isolated, BenchSettings(preset="quick", device=device,
                                                       only=("matmul", "membw")))
    for name_, ok, detail in crash_checks(killed):
        check(name_, ok, detail)

    print("== calibration (H200)")
    name = (report.device_name or "").upper()
    for (bench_id, mid), (expected, unit, what) in H200_CALIBRATION.items():
        got = report.value(bench_id, mid)
        if got is None:
            check(f"calibration {what}", False, "not measured")
            continue
        ratio = got / expected
        line = f"{got:.4g} {unit} vs H200 calibration {expected:.4g} {unit} ({ratio:.0%})"
        if "H200" in name:
            check(f"calibration {what}", ratio >= CALIBRATION_TOLERANCE, line)
        else:
            print(f"  [INFO] {what}: {line} (not an H200: for comparison only)")

    print("== timing branches (bench/timing.py) vs an independent timer")
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # its module lies beside it
    from gpu_timing_checks import timing_checks

    for entry in timing_entries(timing_checks(device)):
        checks.append(entry)
        print(f"  [{entry['status'].upper()}] {entry['check']}: {entry['detail']}")

    findings = bench_findings(report, profile)
    for f in findings:
        print(f"  finding [{f.severity.value}] {f.title.en}")

    verify_results = check_verify(device, check)

    out = Path(args.json)
    save_report(report, out.with_suffix(".report.json"))
    out.write_text(json.dumps({"device": device, "device_name": report.device_name,
                               "suite_wall_s": wall, "checks": checks,
                               "verify": verify_results,
                               "findings": [f.to_dict() for f in findings]},
                              indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out} and {out.with_suffix('.report.json')}")
    return summarise(checks)


if __name__ == "__main__":
    sys.exit(main())
