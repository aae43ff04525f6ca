#!/usr/bin/env python3
"""Check the suite's CPU figures against independent measurements.

The suite times its own loops; this measures the same operations with a different harness -
torch.utils.benchmark.Timer(...).blocked_autorange(min_run_time=5), which sizes its own blocks
and reports the median - and prints both side by side:

* CPU matmul: the suite's cpu_matmul (all usable threads) vs Timer at the same matrix size and
  thread count (Timer's default is ONE thread, so num_threads is set explicitly);
* memory bandwidth: the suite's membw copy vs Timer around torch's copy_ with the same buffer
  and threads, and vs a long single-threaded numpy copy (np.copyto) for scale;
* training: the CNN's FP32 samples/s vs a plain loop of whole training steps (perf_counter
  around each, the median), its AMP speed-up vs plain steps interleaved FP32 / AMP (the
  median of adjacent pairs' ratios), and the checkpointing time ratio vs Timer; all with the
  thread count the suite used (it leaves busy cores to other work, free_cores.py), the same
  network and batch (torchrig.bench.benchmarks.nets);
* storage: the sequential write vs ``dd bs=8M conv=fsync`` of the same size in the same folder,
  and the sequential read vs fio where fio is installed (same folder and size:
  ``fio --rw=read --bs=8M --direct=1 --ioengine=psync --iodepth=1``, the suite's O_DIRECT read);
* collective: gloo all_reduce of 1 MiB over 2 local processes, busbw from ``torchrig bench
  --collective`` vs a hand-written loop (FileStore rendezvous, 200 back-to-back all_reduce
  between two barriers, per rank).

    python benchmarks/bench_suite_verify.py [--min-run-time 5] [--skip-collective]

Agreement within ~15 % on a quiet machine means the suite's timing is sound; a shared or busy
machine shows up as disagreement, so run it when nothing else is running.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-run-time", type=float, default=5.0,
                        help="seconds per independent measurement (default 5)")
    parser.add_argument("--skip-collective", action="store_true")
    parser.add_argument("--only", default="membw,train,checkpointing,storage,cpu_matmul",
                        help="the suite's benchmarks to check (comma-separated)")
    args = parser.parse_args(argv)

    import numpy as np
    import torch
    from torch.utils.benchmark import Timer

    from torchrig.bench.runner import run_suite
    from torchrig.bench.settings import BenchSettings

    threads = _usable_cpus()
    print(f"torch {torch.__version__}, {threads} usable CPUs, "
          f"load average {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}")
    t0 = time.perf_counter()
    only = tuple(args.only.split(","))
    report = run_suite(BenchSettings(preset="full", device="cpu", only=only),
                       cancel=threading.Event())
    print(f"suite ({', '.join(only)}; full) took "
          f"{time.perf_counter() - t0:.1f} s; machine busy: "
          f"{(report.machine_state or {}).get('busy')}")
    for warning in report.busy_warnings:
        print(f"  WARNING {warning.en}")
    rows: list[tuple[str, float | None, float, str]] = []

    cpu = report.result("cpu_matmul")
    for dtype_name, dtype in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        m = cpu.measurement(dtype_name) if cpu else None
        if m is None or m.value is None:
            continue
        n = int(m.details["n"])
        a = torch.randn(n, n, dtype=dtype)
        b = torch.randn(n, n, dtype=dtype)
        c = torch.empty(n, n, dtype=dtype)
        timer = Timer("torch.matmul(a, b, out=c)", globals={"torch": torch, "a": a, "b": b,
                                                          "c": c}, num_threads=threads)
        t = timer.blocked_autorange(min_run_time=args.min_run_time).median
        rows.append((f"CPU {dtype_name} matmul {n}^3, {threads} threads (FLOP/s)", m.value,
                     2 * n**3 / t, "Timer.blocked_autorange"))

    membw = report.result("membw")
    m = membw.measurement("copy_rw") if membw else None
    if m is not None and m.value is not None:
        size = int(m.details["buffer_bytes"])
        src = torch.ones(size, dtype=torch.uint8)
        dst = torch.zeros(size, dtype=torch.uint8)
        timer = Timer("dst.copy_(src)", globals={"src": src, "dst": dst}, num_threads=threads)
        t = timer.blocked_autorange(min_run_time=args.min_run_time).median
        rows.append((f"copy {size >> 20} MiB, read + write, {threads} threads (B/s)", m.value,
                     2 * size / t, "Timer around torch copy_"))
        a_np = np.ones(size, dtype=np.uint8)
        b_np = np.zeros(size, dtype=np.uint8)
        np.copyto(b_np, a_np)
        times = []
        deadline = time.perf_counter() + args.min_run_time
        while time.perf_counter() < deadline or len(times) < 3:
            s = time.perf_counter()
            np.copyto(b_np, a_np)
            times.append(time.perf_counter() - s)
        times.sort()
        rows.append((f"copy {size >> 20} MiB, read + write, numpy 1 thread (B/s)", m.value,
                     2 * size / times[len(times) // 2], "np.copyto median (single thread)"))

    rows += _training_rows(report, threads, args.min_run_time)
    rows += _storage_rows(report)
    if not args.skip_collective:
        rows += _collective_rows()

    print()
    print(f"{'figure':58} {'suite':>12} {'independent':>12} {'suite/indep':>11}  method")
    for name, suite, indep, method in rows:
        ratio = suite / indep if suite else float("nan")
        print(f"{name:58} {suite:12.4g} {indep:12.4g} {ratio:11.2f}  {method}")
    return 0


def _step_timer(model, x, y, amp: bool, threads: int, min_run_time: float) -> float:
    """Median seconds of one whole training step (zero_grad, forward, loss, backward, AdamW),
    timed with torch.utils.benchmark.Timer for one configuration."""
    import contextlib

    import torch
    from torch.nn import functional as F  # noqa: N812
    from torch.utils.benchmark import Timer

    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        with torch.amp.autocast("cpu", dtype=torch.bfloat16) if amp else contextlib.nullcontext():
            out = model(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]).float(), y.reshape(-1))
        loss.backward()
        opt.step()

    step()
    return Timer("step()", globals={"step": step}, num_threads=threads).blocked_autorange(
        min_run_time=min_run_time).median


ROUNDS = 5


def _ratio_rounds(measure_a, measure_b) -> tuple[float, float, float]:
    """(median A, median B, median of per-round B/A) over ROUNDS rounds of A then B: on a
    machine whose load changes, a ratio of two separate long phases is not a measurement."""
    import statistics

    a_times, b_times, ratios = [], [], []
    for _ in range(ROUNDS):
        a_times.append(measure_a())
        b_times.append(measure_b())
        ratios.append(b_times[-1] / a_times[-1])
    return statistics.median(a_times), statistics.median(b_times), statistics.median(ratios)


def _plain_steps(model, x, y, threads: int, min_run_time: float) -> tuple[float, float]:
    """(median FP32 step s, median AMP/FP32 ratio of adjacent interleaved pairs): a plain
    loop, perf_counter around each whole step, no harness."""
    import contextlib
    import statistics

    import torch
    from torch.nn import functional as F  # noqa: N812

    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

        def step(amp: bool) -> float:
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            with torch.amp.autocast("cpu", dtype=torch.bfloat16) if amp else \
                    contextlib.nullcontext():
                loss = F.cross_entropy(model(x).float(), y)
            loss.backward()
            opt.step()
            return time.perf_counter() - t0

        step(False)
        step(True)
        fp32, ratios = [], []
        deadline = time.perf_counter() + min_run_time
        while time.perf_counter() < deadline or len(fp32) < 5:
            fp32.append(step(False))
        deadline = time.perf_counter() + min_run_time
        while time.perf_counter() < deadline or len(ratios) < 5:
            if len(ratios) % 2 == 0:
                a = step(False)
                b = step(True)
            else:
                b = step(True)
                a = step(False)
            ratios.append(b / a)
        return statistics.median(fp32), statistics.median(ratios)
    finally:
        torch.set_num_threads(previous)


def _training_rows(report, threads: int, min_run_time: float) -> list:
    import torch

    from torchrig.bench.benchmarks import nets

    rows = []
    train = report.result("train")
    fp32 = train.measurement("cnn_fp32") if train else None
    speedup = train.measurement("cnn_amp_speedup") if train else None
    if fp32 is not None and speedup is not None:
        d = fp32.details
        shape = nets.cnn_shape("cpu", "full")
        assert (shape.batch, shape.image) == (d["batch"], d["image"])
        torch.manual_seed(0)
        model = nets.build_cnn(shape)
        x, y = nets.image_batch_maker(shape, "cpu")(d["batch"])
        used = int(d.get("torch_threads", threads))
        t_fp32, amp_over_fp32 = _plain_steps(model, x, y, used, min_run_time)
        rows.append((f"CNN training FP32, {used} threads (samples/s)", fp32.value,
                     d["batch"] / t_fp32, "plain loop of whole steps, median"))
        rows.append(("CNN AMP (bf16) speed-up over FP32 (x)", speedup.value, 1 / amp_over_fp32,
                     "plain loop, FP32/AMP steps interleaved, median pair ratio"))
    ckpt = report.result("checkpointing")
    added = ckpt.measurement("time_added") if ckpt else None
    plain = ckpt.measurement("step_s_plain") if ckpt else None
    if added is not None and plain is not None:
        d = plain.details
        shape = nets.transformer_shape("cpu", "full", layers=d["layers"])
        torch.manual_seed(0)
        model = nets.build_transformer(shape)
        x, y = nets.token_batch_maker(shape, "cpu")(d["batch"])
        run = min_run_time / ROUNDS

        used = int(d.get("torch_threads", threads))

        def timed(on: bool) -> float:
            model.checkpointing = on
            return _step_timer(model, x, y, False, used, run)

        _plain, _ckpt, ratio = _ratio_rounds(lambda: timed(False), lambda: timed(True))
        rows.append(("checkpointing: step time with / without (x)", added.value + 1, ratio,
                     f"Timer, {ROUNDS} rounds without then with, median ratio"))
    return rows


def _storage_rows(report) -> list:
    import json
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    storage = report.result("storage")
    write = storage.measurement("seq_write") if storage else None
    if write is None:
        return []
    folder = Path(write.details["folder"])
    count = max(1, int(write.details["bytes"]) // (8 << 20))
    with tempfile.TemporaryDirectory(dir=folder, prefix="torchrig-verify-") as tmp:
        target = Path(tmp) / "dd.bin"
        began = time.perf_counter()
        # /dev/zero: fine on ext4/xfs (no compression); the suite writes random bytes.
        subprocess.run(["dd", "if=/dev/zero", f"of={target}", "bs=8M", f"count={count}",
                        "conv=fsync", "status=none"], check=True)
        took = time.perf_counter() - began
        assert target.stat().st_size == count * (8 << 20)
    rows = [(f"sequential write {count * 8} MiB through fsync (B/s)", write.value,
             count * (8 << 20) / took, "dd bs=8M conv=fsync")]
    read = storage.measurement("seq_read")
    fio = shutil.which("fio")
    if read is not None and fio is not None:
        size = int(read.details["bytes"])
        with tempfile.TemporaryDirectory(dir=folder, prefix="torchrig-verify-") as tmp:
            target = Path(tmp) / "fio.bin"
            common = [fio, "--name=seq", f"--filename={target}", f"--size={size}",
                      "--bs=8M", "--ioengine=psync", "--iodepth=1", "--output-format=json"]
            subprocess.run([*common, "--rw=write", "--end_fsync=1"], check=True,
                           capture_output=True)
            out = subprocess.run([*common, "--rw=read", "--direct=1"], check=True,
                                 capture_output=True, text=True).stdout
            bw = json.loads(out[out.index("{"):])["jobs"][0]["read"]["bw_bytes"]
        how = "O_DIRECT" if read.details.get("direct_io") else "evicted, mincore-checked"
        rows.append((f"sequential read {size >> 20} MiB ({how}) (B/s)", read.value, float(bw),
                     "fio rw=read bs=8M direct=1 iodepth=1"))
    return rows


def _hand_allreduce(rank: int, world: int, store: str, out: dict) -> None:
    import torch
    import torch.distributed as dist

    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    buf = torch.zeros((1 << 20) // 4, dtype=torch.float32)
    for _ in range(20):
        dist.all_reduce(buf)
    dist.barrier()
    began = time.perf_counter()
    n = 200
    for _ in range(n):
        dist.all_reduce(buf)
    dist.barrier()
    out[rank] = (time.perf_counter() - began) / n
    dist.destroy_process_group()


def _collective_rows() -> list:
    import tempfile
    from pathlib import Path

    import torch.multiprocessing as mp

    from torchrig.bench.collective.launch import launch_local
    from torchrig.bench.collective.report import load_collective_report

    with tempfile.TemporaryDirectory(prefix="torchrig-verify-") as tmp:
        path = launch_local(2, "gloo", ["--sizes", "1M", "--ops", "all_reduce"], 300,
                            json_path=Path(tmp) / "c.json")
        row = load_collective_report(path).results_for("all_reduce")[0]
        manager = mp.Manager()
        out = manager.dict()
        mp.spawn(_hand_allreduce, args=(2, str(Path(tmp) / "store"), out), nprocs=2)
        per_op = max(out.values())
    # 2 ranks: busbw = algbw x 2(n-1)/n = algbw.
    return [("gloo all_reduce 1 MiB, 2 processes, busbw (B/s)", row.busbw,
             (1 << 20) / per_op, "hand loop: 200 back-to-back ops between barriers")]


if __name__ == "__main__":
    sys.exit(main())
