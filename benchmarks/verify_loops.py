"""The plain loops benchmarks/bench_suite_verify.py sets beside TorchRig's dataload and
collective figures (issue 27), and the pairing that makes their ratio mean something on a
shared machine.

Each check runs TorchRig's measurement and the plain one alternately, ``rounds`` times,
the order swapped every round (suite then plain, plain then suite, ...), so a load that comes
and goes lands on both sides alike; a round's ratio is suite / plain, and a row gives the
median of the rounds' ratios with their range.

* dataload: TorchRig's ``dataload.measure_workers`` vs a plain ``torch.utils.data.DataLoader``
  loop written here, over the same samples (``dataload.SyntheticImages``: the per-sample work
  the benchmark defines), the same batch and the same ``num_workers``;
* collective: ``torchrig.bench.collective`` through TorchRig's local launcher vs
  ``benchmarks/plain_allreduce.py`` under ``python -m torch.distributed.run --standalone
  --nproc-per-node 2`` (gloo, CPU), the same message sizes; both give all-reduce busbw as
  nccl-tests defines it (algbw x 2(n-1)/n, docs/collective.md).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torchrig.bench.settings import Preset

HERE = Path(__file__).resolve().parent
PLAIN_ALLREDUCE = HERE / "plain_allreduce.py"
COLLECTIVE_SIZES = (256 << 10, 1 << 20, 4 << 20)
"""Inside gloo's default sweep (8 B .. 1 MiB) and one step past it, where bandwidth, not
latency, decides."""


@dataclass(frozen=True)
class Paired:
    """One figure measured ``len(suite)`` times by TorchRig and by a plain loop, alternately
    (higher is better on both sides)."""

    name: str
    suite: tuple[float, ...]
    plain: tuple[float, ...]
    method: str

    @property
    def ratios(self) -> list[float]:
        return [s / p for s, p in zip(self.suite, self.plain, strict=True)]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    def described(self) -> str:
        r = self.ratios
        return (f"{self.method}; {len(r)} rounds alternating, median round ratio (range "
                f"{min(r):.2f}-{max(r):.2f})")


def alternate(rounds: int, suite: Callable[[], Any], plain: Callable[[], Any]
              ) -> list[tuple[Any, Any]]:
    """``rounds`` (suite, plain) results, suite first in even rounds, plain first in odd."""
    return [(r[0], r[1]) for r in rotate(rounds, [suite, plain])]


def rotate(rounds: int, measures: Sequence[Callable[[], Any]]) -> list[list[Any]]:
    """``rounds`` lists of every measure's result (in the order given), the measures run
    starting one further on each round (A B C, B C A, C A B, ...), so none always runs
    first or after the same one."""
    out = []
    n = len(measures)
    for i in range(rounds):
        got: list[Any] = [None] * n
        for k in range(n):
            j = (i + k) % n
            got[j] = measures[j]()
        out.append(got)
    return out


# --------------------------------------------------------------------------- dataload


def plain_loader_rate(dataset: Any, workers: int, batch: int, run_s: float) -> float:
    """Samples/s of a plain DataLoader loop: one batch per worker (and one more) untimed, so
    every worker has started, then batches for ``run_s`` seconds (at least three)."""
    import multiprocessing

    from torch.utils.data import DataLoader

    context = multiprocessing.get_context("fork") if workers and sys.platform.startswith(
        "linux") else None
    loader = DataLoader(dataset, batch_size=batch, num_workers=workers,
                        multiprocessing_context=context)
    it = iter(loader)
    try:
        for _ in range(workers + 1):
            next(it)
        n = 0
        began = time.perf_counter()
        while n < 3 or time.perf_counter() - began < run_s:
            next(it)
            n += 1
        return n * batch / (time.perf_counter() - began)
    finally:
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()


def dataload_pairs(preset: Preset, rounds: int, run_s: float) -> list[Paired]:
    """Per worker count the suite would try here: TorchRig's measure_workers vs the plain
    loop, alternately, at the preset's batch and image size."""
    import threading
    import warnings

    from torchrig.bench.base import BenchContext, usable_cpus
    from torchrig.bench.benchmarks import dataload, nets
    from torchrig.bench.settings import BenchSettings

    crop = nets.cnn_shape("cpu", preset).image
    batch = {"smoke": 8, "quick": 32, "full": 64}[preset]
    dataset = dataload.SyntheticImages(crop)
    ctx = BenchContext(settings=BenchSettings(preset=preset, device="cpu"), device="cpu",
                       cancel=threading.Event(), budget_s=3600.0)
    out = []
    for workers in dataload.worker_counts(usable_cpus()):

        def suite(w: int = workers) -> float:
            return dataload.measure_workers(ctx, dataset, w, batch, run_s)[0]

        def plain(w: int = workers) -> float:
            return plain_loader_rate(dataset, w, batch, run_s)

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
            pairs = alternate(rounds, suite, plain)
        out.append(Paired(f"DataLoader {crop}px images, batch {batch}, num_workers={workers} "
                          "(samples/s)", tuple(s for s, _ in pairs), tuple(p for _, p in pairs),
                          "plain DataLoader loop, same samples"))
    return out


# --------------------------------------------------------------------------- collective


def torchrun_command(sizes: Sequence[int], json_path: Path, nproc: int = 2) -> list[str]:
    """The plain loop's command: torchrun (``torch.distributed.run``) on this machine."""
    return [sys.executable, "-m", "torch.distributed.run", "--standalone",
            f"--nproc-per-node={nproc}", str(PLAIN_ALLREDUCE),
            "--sizes", ",".join(str(s) for s in sizes), "--json", str(json_path)]


def plain_busbw(out: dict[str, Any]) -> dict[int, float]:
    """bytes -> busbw from plain_allreduce.py's JSON, the factor checked: 2(n-1)/n."""
    world = int(out["world"])
    rates = {}
    for row in out["rows"]:
        expected = row["algbw"] * 2 * (world - 1) / world
        if abs(row["busbw"] - expected) > 1e-9 * expected:
            raise ValueError(f"busbw {row['busbw']} is not algbw x 2(n-1)/n for n={world}")
        rates[int(row["bytes"])] = float(row["busbw"])
    return rates


def run_plain(sizes: Sequence[int], timeout_s: float = 300.0) -> dict[int, float]:
    import os

    with tempfile.TemporaryDirectory(prefix="torchrig-verify-") as tmp:
        path = Path(tmp) / "plain.json"
        env = dict(os.environ, GLOO_SOCKET_IFNAME="lo")
        subprocess.run(torchrun_command(sizes, path), check=True, capture_output=True,
                       timeout=timeout_s, env=env)
        return plain_busbw(json.loads(path.read_text(encoding="utf-8")))


def run_suite_torchrun(sizes: Sequence[int], timeout_s: float = 300.0) -> dict[int, float]:
    """TorchRig's collective worker under the same torchrun as the plain loop: what is left
    to differ is how each times its operations."""
    from torchrig.bench.collective.launch import local_child_env
    from torchrig.bench.collective.report import load_collective_report

    with tempfile.TemporaryDirectory(prefix="torchrig-verify-") as tmp:
        path = Path(tmp) / "c.json"
        cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc-per-node=2", "-m", "torchrig.bench.collective", "--sizes",
               ",".join(str(s) for s in sizes), "--ops", "all_reduce", "--json", str(path)]
        # torchrig importable, gloo on loopback (OMP_NUM_THREADS=1 as torchrun sets anyway)
        subprocess.run(cmd, check=True, capture_output=True, timeout=timeout_s,
                       env=local_child_env())
        return {r.n_bytes: r.busbw for r in load_collective_report(path).results_for(
            "all_reduce")}


def run_suite(sizes: Sequence[int], timeout_s: float = 300.0) -> dict[int, float]:
    """TorchRig's collective as ``torchrig bench --collective`` runs it on one machine: its
    own launcher (collective/local.py, FileStore, no torchrun agent)."""
    from torchrig.bench.collective.launch import launch_local
    from torchrig.bench.collective.report import load_collective_report

    with tempfile.TemporaryDirectory(prefix="torchrig-verify-") as tmp:
        path = launch_local(2, "gloo", ["--sizes", ",".join(str(s) for s in sizes), "--ops",
                                        "all_reduce"], timeout_s,
                            json_path=Path(tmp) / "c.json")
        return {r.n_bytes: r.busbw for r in load_collective_report(path).results_for(
            "all_reduce")}


Measure = Callable[[Sequence[int]], dict[int, float]]


def collective_pairs(rounds: int, sizes: Sequence[int] = COLLECTIVE_SIZES,
                     suite: Measure = run_suite, suite_torchrun: Measure = run_suite_torchrun,
                     plain: Measure = run_plain) -> list[Paired]:
    """Per size, TorchRig's busbw under its own launcher and under torchrun, each against the
    plain torchrun loop of the same round; the three rotate round by round."""
    results = rotate(rounds, [lambda: suite(sizes), lambda: suite_torchrun(sizes),
                              lambda: plain(sizes)])
    out = []
    for size in sizes:
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        for k, how in ((0, "TorchRig's launcher"), (1, "under torchrun")):
            out.append(Paired(f"gloo all_reduce {label}, 2 processes, busbw, {how} (B/s)",
                              tuple(r[k][size] for r in results),
                              tuple(r[2][size] for r in results),
                              "torchrun plain loop (benchmarks/plain_allreduce.py)"))
    return out
