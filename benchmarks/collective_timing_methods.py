#!/usr/bin/env python3
"""Do TorchRig's gloo interval timing and a plain block of calls agree inside one process
group? (docs/collective.md, "How it compares with a plain loop"; issue 27.)

Run under torchrun on one machine (the "shared clock" method needs one):

    python -m torch.distributed.run --standalone --nproc-per-node 2 \\
        benchmarks/collective_timing_methods.py [--rounds 8]

Per round and size (256 KiB, 1 MiB, 4 MiB float32 all-reduce): 20 untimed calls; N from 5
timed calls so one interval lasts >= 10 ms (the ranks agree on the largest, as
``torchrig.bench.collective`` does); a plain block of 200 calls after one barrier (the slowest
rank's time, as ``benchmarks/plain_allreduce.py``); then 20 intervals of N calls, each after a
barrier, with every rank's start and end kept. Rank 0 prints, per size, the median over the
rounds of the block's time per call over each method's:

* ``slowest``: the mean over intervals of the slowest rank's interval (TorchRig's rule);
* ``shared``: from the last rank's start to the last rank's end (the ranks share
  ``perf_counter``'s clock on one machine, so no rank's wait for a late one counts);
* ``mean``: the mean over ranks and intervals (nccl-tests averages its ranks);

and ``skew_ms``, how far apart the barrier released the ranks. Nothing from torchrig is
imported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist

SIZES = (256 << 10, 1 << 20, 4 << 20)
INTERVALS = 20


def gathered(values: list[float], world: int) -> list[list[float]]:
    mine = torch.tensor(values, dtype=torch.float64)
    every = [torch.zeros_like(mine) for _ in range(world)]
    dist.all_gather(every, mine)
    return [t.tolist() for t in every]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    ratios: dict[int, dict[str, list[float]]] = {s: {} for s in SIZES}
    for _ in range(args.rounds):
        for size in SIZES:
            buf = torch.zeros(size // 4)
            for _ in range(20):
                dist.all_reduce(buf)
            dist.barrier()
            began = time.perf_counter()
            for _ in range(5):
                dist.all_reduce(buf)
            per_call = (time.perf_counter() - began) / 5
            n = torch.tensor([max(1, min(1000, int(-(-0.010 // per_call))))], dtype=torch.float64)
            dist.all_reduce(n, op=dist.ReduceOp.MAX)
            calls = int(n.item())
            dist.barrier()
            began = time.perf_counter()
            for _ in range(200):
                dist.all_reduce(buf)
            block = [(time.perf_counter() - began) / 200]
            starts, ends = [], []
            for _ in range(INTERVALS):
                dist.barrier()
                starts.append(time.perf_counter())
                for _ in range(calls):
                    dist.all_reduce(buf)
                ends.append(time.perf_counter())
            blocks, s, e = gathered(block, world), gathered(starts, world), gathered(ends, world)
            if rank:
                continue
            plain = max(b[0] for b in blocks)
            ranks, its = range(world), range(INTERVALS)
            slowest = statistics.mean(max(e[r][i] - s[r][i] for r in ranks) for i in its)
            shared = statistics.mean(max(e[r][i] for r in ranks) - max(s[r][i] for r in ranks)
                                     for i in its)
            mean = statistics.mean(e[r][i] - s[r][i] for r in ranks for i in its)
            skew = statistics.mean(max(s[r][i] for r in ranks) - min(s[r][i] for r in ranks)
                                   for i in its)
            row = ratios[size]
            for name, value in (("slowest", plain / (slowest / calls)),
                                ("shared", plain / (shared / calls)),
                                ("mean", plain / (mean / calls)), ("skew_ms", skew * 1e3)):
                row.setdefault(name, []).append(value)
    if rank == 0:
        for size, row in ratios.items():
            print(f"{size >> 10:>5} KiB  " + "  ".join(
                f"{name} {statistics.median(v):.3f} ({min(v):.2f}-{max(v):.2f})"
                for name, v in row.items()))
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
