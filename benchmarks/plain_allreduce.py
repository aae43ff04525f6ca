#!/usr/bin/env python3
"""A plain all-reduce loop, the independent side of bench_suite_verify.py's collective rows.

Run under torchrun, the way a user would check TorchRig's collective figure by hand:

    python -m torch.distributed.run --standalone --nproc-per-node 2 \
        benchmarks/plain_allreduce.py --sizes 262144,1048576,4194304 --json out.json

gloo on CPU tensors (float32). Per size, as nccl-tests' all_reduce_perf times it: ``--warmup``
untimed calls, then ``--iters`` calls back to back, timed as one block with perf_counter after
a barrier; the time per call is the block / iters, the slowest rank's. algbw = bytes / time and
busbw = algbw x 2(n-1)/n (docs/collective.md, "busbw"). Nothing from torchrig is imported.
Rank 0 writes ``{"world": n, "rows": [{"bytes", "time_s", "algbw", "busbw"}]}``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch
import torch.distributed as dist


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", required=True, help="message sizes in bytes, comma-separated")
    parser.add_argument("--iters", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        buf = torch.zeros(size // 4, dtype=torch.float32)
        for _ in range(args.warmup):
            dist.all_reduce(buf)
        dist.barrier()
        began = time.perf_counter()
        for _ in range(args.iters):
            dist.all_reduce(buf)
        per_call = torch.tensor([(time.perf_counter() - began) / args.iters],
                                dtype=torch.float64)
        dist.all_reduce(per_call, op=dist.ReduceOp.MAX)  # the slowest rank decides
        t = float(per_call.item())
        algbw = size / t
        rows.append({"bytes": size, "time_s": t, "algbw": algbw,
                     "busbw": algbw * 2 * (world - 1) / world})
    if rank == 0:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"world": world, "iters": args.iters, "warmup": args.warmup,
                       "rows": rows}, fh)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
