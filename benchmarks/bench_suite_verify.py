#!/usr/bin/env python3
"""Check the suite's CPU figures against independent measurements.

The suite times its own loops; this measures the same operations with a different harness -
torch.utils.benchmark.Timer(...).blocked_autorange(min_run_time=5), which sizes its own blocks
and reports the median - and prints both side by side:

* CPU matmul: the suite's cpu_matmul (all usable threads) vs Timer at the same matrix size and
  thread count (Timer's default is ONE thread, so num_threads is set explicitly);
* memory bandwidth: the suite's membw copy vs Timer around torch's copy_ with the same buffer
  and threads, and vs a long single-threaded numpy copy (np.copyto) for scale;
* training: the CNN's FP32 samples/s (TorchRig's trainloop.run_alone) vs a plain loop of
  whole training steps (perf_counter around each, the median), alternated in 5 rounds, its
  AMP speed-up (where the suite measured one) vs plain steps interleaved FP32 / AMP (the
  median of adjacent pairs' ratios), and the checkpointing time ratio vs Timer; all with the
  thread count the suite used (it leaves busy cores to other work, free_cores.py), the same
  network and batch (torchrig.bench.benchmarks.nets);
* storage: the suite's storage benchmark and fio in the same folder, ``--storage-rounds``
  rounds (default 3) of fio, suite, fio back to back in each of ``--storage-folders`` (default
  the system temp folder, the suite's default): the sequential write vs
  ``fio --rw=write --end_fsync=1`` and the sequential read vs ``fio --rw=read --direct=1``,
  both ``--bs=8M --ioengine=psync --iodepth=1`` at the suite's file size; a round's ratio is
  the suite over the geometric mean of the fio runs around it, the row's the median of the
  rounds', and fio's after/before ratio shows what the machine allows (needs fio);
* dataload: TorchRig's DataLoader measurement (``dataload.measure_workers``) vs a plain
  DataLoader loop over the same samples, batch and ``num_workers``, alternated ``--rounds``
  times (benchmarks/verify_loops.py);
* collective: gloo all_reduce busbw of 256 KiB, 1 MiB and 4 MiB over 2 local processes,
  ``torchrig.bench.collective`` vs a plain loop under ``python -m torch.distributed.run
  --standalone --nproc-per-node 2`` (benchmarks/plain_allreduce.py; busbw = algbw x 2(n-1)/n),
  alternated ``--rounds`` times.

    python benchmarks/bench_suite_verify.py [--quick] [--min-run-time 5] [--skip-collective]
        [--only membw,train,checkpointing,dataload,storage,cpu_matmul] [--rounds 3]
        [--storage-folders /tmp,/work] [--storage-rounds 3]

``--quick`` checks the quick preset's figures (256 MiB storage files, the quick networks)
with 1 s per independent measurement: about five minutes on two cores instead of twenty.

Each row's verdict: "ok" within 15 % (TOLERANCE), "OFF" beyond, "noisy" beyond where the
independent tool disagreed with itself by more than 15 % too (fio run twice around the suite:
a virtual machine's host caches its disk image, and then no two runs agree), "scale" for a row
shown for scale only (numpy's single-threaded copy). Agreement on a quiet machine means the suite's
timing is sound; a shared or busy machine shows up as disagreement, so run it when nothing
else is running.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torchrig.bench.settings import Preset

sys.path.insert(0, str(Path(__file__).resolve().parent))  # verify_loops, beside this script

import verify_loops  # noqa: E402

TOLERANCE = 0.15
"""A figure agrees with its independent method when their ratio is within 15 % of 1."""


@dataclass(frozen=True)
class Row:
    """One figure beside its independent measurement. ``ratio`` is given where it is not the
    ratio of the two columns (the median of paired rounds' own ratios); ``tolerance`` None
    marks a row shown for scale only (a different method on purpose)."""

    name: str
    suite: float | None
    indep: float
    method: str
    ratio: float | None = None
    tolerance: float | None = TOLERANCE
    noise: float | None = None
    """How far the independent method disagrees with itself (>= 1; fio run twice in a round,
    the median over rounds): beyond the tolerance, a disagreement is the machine's, not
    necessarily the suite's."""

    @property
    def suite_over_indep(self) -> float:
        if self.ratio is not None:
            return self.ratio
        return self.suite / self.indep if self.suite and self.indep else float("nan")

    @property
    def verdict(self) -> str:
        r = self.suite_over_indep
        if self.tolerance is None:
            return "scale"
        if not math.isfinite(r):
            return "n/a"
        if abs(r - 1) <= self.tolerance:
            return "ok"
        if self.noise is not None and self.noise - 1 > self.tolerance:
            return "noisy"
        return "OFF"


def format_table(rows: Sequence[Row]) -> str:
    lines = [f"{'figure':66} {'suite':>11} {'independent':>11} {'suite/indep':>11} "
             f"{'verdict':>7}  method"]
    for row in rows:
        suite = f"{row.suite:11.4g}" if row.suite is not None else f"{'-':>11}"
        lines.append(f"{row.name:66} {suite} {row.indep:11.4g} {row.suite_over_indep:11.2f} "
                     f"{row.verdict:>7}  {row.method}")
    return "\n".join(lines)


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="the quick preset's figures, 1 s per independent measurement")
    parser.add_argument("--min-run-time", type=float, default=None,
                        help="seconds per independent measurement (default 5, --quick 1)")
    parser.add_argument("--skip-collective", action="store_true")
    parser.add_argument("--only",
                        default="membw,train,checkpointing,dataload,storage,cpu_matmul",
                        help="the suite's benchmarks to check (comma-separated)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternated rounds for the dataload and collective checks "
                             "(default 3)")
    parser.add_argument("--storage-folders", default=tempfile.gettempdir(),
                        help="folders for the storage check, comma-separated (default: the "
                             "system temp folder)")
    parser.add_argument("--storage-rounds", type=int, default=3,
                        help="paired suite/fio rounds per folder (default 3)")
    args = parser.parse_args(argv)
    folders = [Path(f) for f in args.storage_folders.split(",") if f]
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing or args.storage_rounds < 1 or args.rounds < 1:
        parser.error(f"no such folder: {', '.join(missing)}" if missing else
                     "--storage-rounds and --rounds must be at least 1")
    preset: Preset = "quick" if args.quick else "full"
    min_run_time = args.min_run_time if args.min_run_time is not None else (
        1.0 if args.quick else 5.0)

    import torch

    from torchrig.bench.runner import run_suite
    from torchrig.bench.settings import BenchSettings

    threads = _usable_cpus()
    print(f"torch {torch.__version__}, {threads} usable CPUs, "
          f"load average {os.getloadavg() if hasattr(os, 'getloadavg') else 'n/a'}")
    only = tuple(args.only.split(","))
    # storage, dataload and the collective have their own alternated rounds (below), not
    # one run of the suite
    cpu_only = tuple(b for b in only if b not in ("storage", "dataload"))
    rows: list[Row] = []
    if cpu_only:
        t0 = time.perf_counter()
        report = run_suite(BenchSettings(preset=preset, device="cpu", only=cpu_only),
                           cancel=threading.Event())
        print(f"suite ({', '.join(cpu_only)}; {preset}) took "
              f"{time.perf_counter() - t0:.1f} s; machine busy: "
              f"{(report.machine_state or {}).get('busy')}")
        for warning in report.busy_warnings:
            print(f"  WARNING {warning.en}")
        for result in report.results:  # a figure from fewer steps or a cut batch says so
            if result.status != "ok":
                print(f"  {result.id}: {result.status}")
            notes = {n.en for m in result.measurements for n in m.notes if "instead of" in n.en}
            for note in sorted(notes):
                print(f"  {result.id}: {note}")
        rows += _cpu_rows(report, threads, min_run_time, preset)
    if "dataload" in only:
        rows += paired_rows(verify_loops.dataload_pairs(preset, args.rounds, min_run_time))
    if "storage" in only:
        rows += storage_rows(storage_rounds(folders, args.storage_rounds, preset))
    if not args.skip_collective:
        rows += paired_rows(verify_loops.collective_pairs(args.rounds))

    print()
    print(format_table(rows))
    return 0


def paired_rows(pairs: Sequence[verify_loops.Paired]) -> list[Row]:
    """A row per alternated figure: the medians of each side and of the rounds' ratios."""
    return [Row(p.name, statistics.median(p.suite), statistics.median(p.plain), p.described(),
                ratio=p.ratio) for p in pairs]


def _cpu_rows(report, threads: int, min_run_time: float, preset: Preset) -> list[Row]:
    import numpy as np
    import torch
    from torch.utils.benchmark import Timer

    rows: list[Row] = []

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
        t = timer.blocked_autorange(min_run_time=min_run_time).median
        rows.append(Row(f"CPU {dtype_name} matmul {n}^3, {threads} threads (FLOP/s)", m.value,
                     2 * n**3 / t, "Timer.blocked_autorange"))

    membw = report.result("membw")
    m = membw.measurement("copy_rw") if membw else None
    if m is not None and m.value is not None:
        size = int(m.details["buffer_bytes"])
        src = torch.ones(size, dtype=torch.uint8)
        dst = torch.zeros(size, dtype=torch.uint8)
        timer = Timer("dst.copy_(src)", globals={"src": src, "dst": dst}, num_threads=threads)
        t = timer.blocked_autorange(min_run_time=min_run_time).median
        rows.append(Row(f"copy {size >> 20} MiB, read + write, {threads} threads (B/s)", m.value,
                     2 * size / t, "Timer around torch copy_"))
        a_np = np.ones(size, dtype=np.uint8)
        b_np = np.zeros(size, dtype=np.uint8)
        np.copyto(b_np, a_np)
        times: list[float] = []
        deadline = time.perf_counter() + min_run_time
        while time.perf_counter() < deadline or len(times) < 3:
            s = time.perf_counter()
            np.copyto(b_np, a_np)
            times.append(time.perf_counter() - s)
        times.sort()
        rows.append(Row(f"copy {size >> 20} MiB, read + write, numpy 1 thread (B/s)", m.value,
                     2 * size / times[len(times) // 2], "np.copyto median (single thread)",
                     tolerance=None))

    rows += _training_rows(report, threads, min_run_time, preset)
    return rows


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


def _plain_steps(model, x, y, threads: int, min_run_time: float,
                 amp: bool = True) -> tuple[float, float | None]:
    """(median FP32 step s, median AMP/FP32 ratio of adjacent interleaved pairs, or None
    without ``amp``): a plain loop, perf_counter around each whole step, no harness."""
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
        if amp:
            step(True)
        fp32: list[float] = []
        ratios: list[float] = []
        deadline = time.perf_counter() + min_run_time
        while time.perf_counter() < deadline or len(fp32) < 5:
            fp32.append(step(False))
        if not amp:  # the suite did not time AMP here (no native bf16): FP32 only
            return statistics.median(fp32), None
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


def _cnn_fp32_paired(model, x, y, threads: int, run_s: float, batch: int) -> Row:
    """TorchRig's FP32 timing (trainloop.run_alone: an untimed step, then steps back to back
    until they settle) beside the plain loop, alternated round by round at the thread count
    the suite chose: the suite's own figure was taken minutes earlier, under another load."""
    import threading

    import torch

    from torchrig.bench.base import BenchContext
    from torchrig.bench.benchmarks.trainloop import Variant, run_alone
    from torchrig.bench.settings import BenchSettings

    ctx = BenchContext(settings=BenchSettings(preset="quick", device="cpu"), device="cpu",
                       cancel=threading.Event(), budget_s=3600.0)

    def suite() -> float:
        previous = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            return run_alone(ctx, model, x, y, Variant(amp=False), slice_s=run_s,
                             batch=batch).samples_per_s
        finally:
            torch.set_num_threads(previous)

    def plain() -> float:
        return batch / _plain_steps(model, x, y, threads, run_s, amp=False)[0]

    pairs = verify_loops.alternate(ROUNDS, suite, plain)
    (row,) = paired_rows([verify_loops.Paired(
        f"CNN training FP32, {threads} threads (samples/s)", tuple(a for a, _ in pairs),
        tuple(b for _, b in pairs), "plain loop of whole steps, median")])
    return row


def _training_rows(report, threads: int, min_run_time: float, preset: Preset) -> list[Row]:
    import torch

    from torchrig.bench.benchmarks import nets

    rows = []
    train = report.result("train")
    fp32 = train.measurement("cnn_fp32") if train else None
    speedup = train.measurement("cnn_amp_speedup") if train else None
    if fp32 is not None and fp32.value is not None:
        d = fp32.details
        shape = nets.cnn_shape("cpu", preset)
        assert (shape.batch, shape.image) == (d["batch"], d["image"])
        torch.manual_seed(0)
        model = nets.build_cnn(shape)
        x, y = nets.image_batch_maker(shape, "cpu")(d["batch"])
        used = int(d.get("torch_threads", threads))
        rows.append(_cnn_fp32_paired(model, x, y, used, min_run_time, d["batch"]))
        if speedup is not None:
            _t, amp_over_fp32 = _plain_steps(model, x, y, used, min_run_time)
            assert amp_over_fp32 is not None
            rows.append(Row("CNN AMP (bf16) speed-up over FP32 (x)", speedup.value,
                            1 / amp_over_fp32,
                            "plain loop, FP32/AMP steps interleaved, median pair ratio"))
    ckpt = report.result("checkpointing")
    added = ckpt.measurement("time_added") if ckpt else None
    plain = ckpt.measurement("step_s_plain") if ckpt else None
    if added is not None and plain is not None:
        d = plain.details
        tshape = nets.transformer_shape("cpu", preset, layers=d["layers"])
        torch.manual_seed(0)
        model = nets.build_transformer(tshape)
        x, y = nets.token_batch_maker(tshape, "cpu")(d["batch"])
        run = min_run_time / ROUNDS

        used = int(d.get("torch_threads", threads))

        def timed(on: bool) -> float:
            model.checkpointing = on
            return _step_timer(model, x, y, False, used, run)

        _plain, _ckpt, ratio = _ratio_rounds(lambda: timed(False), lambda: timed(True))
        rows.append(Row("checkpointing: step time with / without (x)", added.value + 1, ratio,
                     f"Timer, {ROUNDS} rounds without then with, median ratio"))
    return rows


FIO_COMMON = ("--name=seq", "--bs=8M", "--ioengine=psync", "--iodepth=1",
              "--output-format=json")
"""fio's side of the storage check: one thread, queue depth 1, 8 MiB blocks, as the suite."""
FIO_WRITE = ("--rw=write", "--end_fsync=1")  # timed through the final fsync, as the suite
FIO_READ = ("--rw=read", "--direct=1")  # O_DIRECT, as the suite where the filesystem allows


def fio_command(fio: str, target: Path, size: int, rw: str) -> list[str]:
    """The fio command line for one side of a round (the command the docs give)."""
    return [fio, *FIO_COMMON, f"--filename={target}", f"--size={size}",
            *(FIO_WRITE if rw == "write" else FIO_READ)]


def fio_rate(out: str, rw: str) -> float:
    """Bytes/s of the job's ``rw`` side from fio's JSON (fio may print notes before it)."""
    job = json.loads(out[out.index("{"):])["jobs"][0]
    if job.get("error"):
        raise RuntimeError(f"fio job failed with error {job['error']}")
    return float(job[rw]["bw_bytes"])


@dataclass(frozen=True)
class StorageRound:
    """One round in one folder: fio, the suite's storage benchmark, fio again, back to back,
    each writing then reading its own file of the suite's size. The suite is compared with
    the geometric mean of the fio runs either side of it, which cancels a drift that is
    steady over the round; the two fio runs' own ratio is what the machine allows that round
    (a virtual machine's host cache and writeback make the same fio command vary)."""

    folder: str
    suite_write: float
    suite_read: float
    fio_write: tuple[float, float]  # (before, after) the suite
    fio_read: tuple[float, float]
    suite_bytes: int
    fio_bytes: int
    direct_io: bool
    cached: bool

    @staticmethod
    def _around(pair: tuple[float, float]) -> float:
        return math.sqrt(pair[0] * pair[1])

    @property
    def fio_write_around(self) -> float:
        return self._around(self.fio_write)

    @property
    def fio_read_around(self) -> float:
        return self._around(self.fio_read)

    @property
    def write_ratio(self) -> float:
        return self.suite_write / self.fio_write_around

    @property
    def read_ratio(self) -> float:
        return self.suite_read / self.fio_read_around

    @property
    def fio_write_noise(self) -> float:
        """fio after / fio before: the same command's own agreement in this round."""
        return self.fio_write[1] / self.fio_write[0]

    @property
    def fio_read_noise(self) -> float:
        return self.fio_read[1] / self.fio_read[0]


def storage_rows(rounds: Sequence[StorageRound]) -> list[Row]:
    """Per folder: the suite's and fio's medians and the median of the rounds' own ratios
    (within a round the three runs are back to back, so they share the machine's state; across
    rounds they do not). The method column gives the range of those ratios and of fio's
    agreement with itself in the same rounds."""
    rows: list[Row] = []
    folders = list(dict.fromkeys(r.folder for r in rounds))
    for folder in folders:
        mine = [r for r in rounds if r.folder == folder]
        size = mine[0].suite_bytes >> 20
        how = "O_DIRECT" if all(r.direct_io for r in mine) else "evicted, mincore-checked"
        if any(r.cached for r in mine):
            how += "; CACHED in some round"
        for rw in ("write", "read"):
            suite = [getattr(r, f"suite_{rw}") for r in mine]
            fio = [getattr(r, f"fio_{rw}_around") for r in mine]
            ratio = [getattr(r, f"{rw}_ratio") for r in mine]
            noise = [getattr(r, f"fio_{rw}_noise") for r in mine]
            what = "through fsync" if rw == "write" else f"({how})"
            flags = " ".join(FIO_WRITE if rw == "write" else FIO_READ)
            rows.append(Row(
                f"sequential {rw} {size} MiB {what}, {folder} (B/s)",
                statistics.median(suite), statistics.median(fio),
                f"fio {flags}; {len(mine)} rounds fio-suite-fio, median round ratio "
                f"(range {min(ratio):.2f}-{max(ratio):.2f}; fio after/before "
                f"{min(noise):.2f}-{max(noise):.2f})",
                ratio=statistics.median(ratio),
                noise=statistics.median(max(n, 1 / n) for n in noise)))
    return rows


def _run_fio(fio: str, folder: Path, size: int) -> tuple[float, float]:
    import subprocess

    with tempfile.TemporaryDirectory(dir=folder, prefix="torchrig-verify-") as tmp:
        target = Path(tmp) / "fio.bin"
        rates = []
        for rw in ("write", "read"):
            out = subprocess.run(fio_command(fio, target, size, rw), check=True,
                                 capture_output=True, text=True).stdout
            rates.append(fio_rate(out, rw))
        return rates[0], rates[1]


STORAGE_BUDGET_S = 600.0


def _run_suite_storage(folder: Path, preset: Preset) -> dict[str, Any]:
    import threading

    from torchrig.bench.runner import run_suite
    from torchrig.bench.settings import BenchSettings

    # A budget no load exhausts: under load the suite cuts its file short (honestly, and says
    # so), and a round then compares two sizes; the measuring itself is the same.
    report = run_suite(BenchSettings(preset=preset, device="cpu", only=("storage",),
                                     dataset_dir=folder, budget_s=STORAGE_BUDGET_S),
                       cancel=threading.Event(), detect=False, watch_machine=False)
    result = report.result("storage")
    write = result.measurement("seq_write") if result else None
    read = result.measurement("seq_read") if result else None
    if (result is None or write is None or read is None or write.value is None
            or read.value is None):
        raise RuntimeError(f"the suite's storage benchmark measured nothing in {folder}: "
                           f"{result.status if result else 'no result'}")
    return {"write": write.value, "read": read.value, "bytes": int(read.details["bytes"]),
            "direct_io": bool(read.details["direct_io"]),
            "cached": bool(read.details["cached"]), "state": result.state}


SETTLE_S = 3.0
"""Idle seconds before each side of a round. The suite starts its write after its own set-up
(a child process, the benchmark's preparations), fio at once: with 1 s the suite wrote
1.27-2.15x fio in 4 of 4 rounds, with 3 s 0.80-1.13x in 6 (a 2-core VM, 256 MiB, 2026-12-07),
so the idle time before a write, not the write, made the difference."""


def _settle_disk() -> None:
    """Let the previous side's deletion reach the disk, and the disk settle, before the next
    side starts: with ext4's ``discard`` mount option the freed blocks are trimmed when the
    journal commits, which the next writer's fsync would otherwise pay for; and the same idle
    time before every side (:data:`SETTLE_S`)."""
    if hasattr(os, "sync"):
        os.sync()
    time.sleep(SETTLE_S)


def storage_rounds(folders: Sequence[Path], rounds: int, preset: Preset) -> list[StorageRound]:
    """``rounds`` rounds of fio, suite, fio per folder, folders interleaved round by round."""
    import shutil

    from torchrig.bench.benchmarks.storage import plan_for
    from torchrig.bench.settings import BenchSettings

    fio = shutil.which("fio")
    if fio is None:
        print("fio is not installed: no storage check (apt install fio)")
        return []
    out: list[StorageRound] = []
    for i in range(rounds):
        for folder in folders:
            size = plan_for(BenchSettings(preset=preset, dataset_dir=folder)).sequential_bytes
            _settle_disk()
            before = _run_fio(fio, folder, size)
            _settle_disk()
            suite = _run_suite_storage(folder, preset)
            _settle_disk()
            after = _run_fio(fio, folder, size)
            r = StorageRound(str(folder), suite["write"], suite["read"],
                             (before[0], after[0]), (before[1], after[1]), suite["bytes"],
                             size, suite["direct_io"], suite["cached"])
            out.append(r)
            print(f"  storage round {i + 1} {folder}: write suite {r.suite_write / 1e6:.0f}, "
                  f"fio {before[0] / 1e6:.0f} / {after[0] / 1e6:.0f} MB/s = "
                  f"{r.write_ratio:.2f}; read suite {r.suite_read / 1e6:.0f}, fio "
                  f"{before[1] / 1e6:.0f} / {after[1] / 1e6:.0f} MB/s = {r.read_ratio:.2f}"
                  + ("" if r.suite_bytes == r.fio_bytes else
                     f" (the suite's budget cut its file to {r.suite_bytes >> 20} MiB, fio "
                     f"wrote {r.fio_bytes >> 20} MiB)")
                  + ("" if suite["state"] == "ok" else f" [suite {suite['state']}]"),
                  flush=True)
    return out


if __name__ == "__main__":
    sys.exit(main())
