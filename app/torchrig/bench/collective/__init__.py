"""Collective benchmark (all-reduce, all-gather, reduce-scatter) on torch.distributed.

Run on every node of a cluster with::

    torchrun --nnodes N --nproc-per-node G [rendezvous options] -m torchrig.bench.collective \\
        [--sizes 8..256M] [--ops all_reduce,all_gather,reduce_scatter] [--iters K] \\
        [--warmup W] [--backend nccl|gloo] [--json OUT] [--timeout S]

or on this machine through :func:`launch_local` / ``torchrig bench --collective``. Figures
follow nccl-tests' conventions (see :mod:`torchrig.collective_math`, which the planner's
scaling model shares); docs/collective.md explains every field of the report. This package is
the public face; torchrun runs its ``__main__``. The work lives in ``options`` (options),
``worker`` (what each rank runs, imports torch), ``report`` (JSON report), ``launch`` (local
launcher, cluster command line), ``local`` (the local ranks' parent) and ``topology`` (how the
GPUs are linked). Importing it does not import torch.
"""

from __future__ import annotations

from torchrig.bench.collective.launch import (
    CollectiveLaunchError,
    add_cli_arguments,
    launch_local,
    parse_progress,
    run_collective_cli,
    torchrun_command,
)
from torchrig.bench.collective.report import (
    CollectiveReport,
    OpSummary,
    load_collective_report,
)
from torchrig.collective_math import algbw, bus_factor, busbw

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
