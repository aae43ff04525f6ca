"""Collective benchmark (all-reduce, all-gather, reduce-scatter) on torch.distributed.

Run on every node of a cluster with::

    torchrun --nnodes N --nproc-per-node G [rendezvous options] -m torchrig.bench.collective \\
        [--sizes 8..256M] [--ops all_reduce,all_gather,reduce_scatter] [--iters K] \\
        [--warmup W] [--backend nccl|gloo] [--json OUT] [--timeout S]

or on this machine through :func:`launch_local` / ``torchrig bench --collective``. Figures
follow nccl-tests' conventions (see ``collective_math``); docs/collective.md explains every
field of the report. This module is the entry point and the public face; the work lives in
``collective_math`` (arithmetic), ``collective_options`` (options), ``collective_worker``
(what each rank runs, imports torch), ``collective_report`` (JSON report) and
``collective_launch`` (local launcher, cluster command line). Importing it does not import
torch.
"""

from __future__ import annotations

from torchrig.bench.collective_launch import (
    CollectiveLaunchError,
    add_cli_arguments,
    launch_local,
    parse_progress,
    run_collective_cli,
    torchrun_command,
)
from torchrig.bench.collective_math import algbw, bus_factor, busbw
from torchrig.bench.collective_report import (
    CollectiveReport,
    OpSummary,
    load_collective_report,
)

__all__ = [
    "CollectiveLaunchError",
    "CollectiveReport",
    "OpSummary",
    "add_cli_arguments",
    "algbw",
    "bus_factor",
    "busbw",
    "launch_local",
    "load_collective_report",
    "parse_progress",
    "run_collective_cli",
    "torchrun_command",
]

if __name__ == "__main__":
    from torchrig.bench.collective_worker import main

    raise SystemExit(main())
