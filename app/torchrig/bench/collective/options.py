"""Command-line options of the per-rank collective benchmark, parsed without torch.

The launcher parses the same options in the parent process before starting anything, so a
typo in ``--sizes`` costs a one-line error instead of a torchrun start-up per rank.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from torchrig.collective_math import Op, default_sizes, parse_ops, parse_sizes
from torchrig.errors import InputError

BACKENDS = ("nccl", "gloo")
DEFAULT_ITERS = 20
DEFAULT_WARMUP = 5
"""nccl-tests' defaults (-n 20 -w 5), for NCCL on GPUs."""

DEFAULT_WARMUP_GLOO = 20
"""gloo's default warm-up: CPU ranks are slower to settle than 5 operations. On a 2-core
machine the first 5 intervals after a 5-operation warm-up were 1.1-1.3x the later ones at
4 MiB; against a plain loop that warms up with 20 calls, 24 alternated rounds read 1.06 /
0.84 / 0.94x (256 KiB / 1 MiB / 4 MiB) with 5 and 0.99 / 0.89 / 1.03x with 20
(docs/collective.md)."""

DEFAULT_TIMEOUT_S = 60.0
"""Process-group timeout: long enough for a slow rendezvous, short enough that a lost rank
turns into an error within a minute instead of NCCL's 10-minute default."""


@dataclass(frozen=True)
class CollectiveOptions:
    """What one rank is asked to measure. ``sizes`` None means the backend's default sweep."""

    sizes: tuple[int, ...] | None
    ops: tuple[Op, ...]
    iters: int
    warmup: int | None
    """Untimed operations per size; None: the backend's default (:meth:`warmup_for`)."""
    backend: str | None
    json_path: Path | None
    timeout_s: float

    def sizes_for(self, backend: str) -> list[int]:
        return list(self.sizes) if self.sizes is not None else default_sizes(backend)

    def warmup_for(self, backend: str) -> int:
        if self.warmup is not None:
            return self.warmup
        return DEFAULT_WARMUP_GLOO if backend == "gloo" else DEFAULT_WARMUP

    def to_argv(self) -> list[str]:
        """The same options as command-line arguments (to hand to torchrun)."""
        argv = ["--ops", ",".join(self.ops), "--iters", str(self.iters),
                "--timeout", f"{self.timeout_s:g}"]
        if self.warmup is not None:
            argv += ["--warmup", str(self.warmup)]
        if self.sizes is not None:
            argv += ["--sizes", ",".join(str(size) for size in self.sizes)]
        if self.backend is not None:
            argv += ["--backend", self.backend]
        if self.json_path is not None:
            argv += ["--json", str(self.json_path)]
        return argv


class OptionParser(argparse.ArgumentParser):
    """argparse that raises InputError instead of printing usage and exiting, so every
    caller reports a bad option as one line."""

    def error(self, message: str) -> NoReturn:
        raise InputError(message)


def _int_in(name: str, low: int, high: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            message = f"{name} must be a whole number, got {text!r}"
            raise argparse.ArgumentTypeError(message) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be in {low}..{high}, got {value}")
        return value
    return convert


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--timeout must be seconds, got {text!r}") from None
    if not 1 <= value <= 86_400:
        raise argparse.ArgumentTypeError(f"--timeout must be in 1..86400 s, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = OptionParser(
        prog="torchrun ... -m torchrig.bench.collective",
        description="All-reduce / all-gather / reduce-scatter bandwidth (nccl-tests conventions).",
    )
    parser.add_argument("--sizes", help="message sizes: 8..256M (doubling) or 1K,1M,1G; "
                        "binary units; default 8..256M on nccl, 8..1M on gloo")
    parser.add_argument("--ops", default="all",
                        help="all_reduce,all_gather,reduce_scatter or all (default)")
    parser.add_argument("--iters", type=_int_in("--iters", 1, 10_000), default=DEFAULT_ITERS)
    parser.add_argument("--warmup", type=_int_in("--warmup", 0, 1_000),
                        help=f"untimed operations per size (default {DEFAULT_WARMUP} on nccl, "
                        f"{DEFAULT_WARMUP_GLOO} on gloo)")
    parser.add_argument("--backend", choices=BACKENDS,
                        help="default: nccl when CUDA GPUs are usable, else gloo")
    parser.add_argument("--json", type=Path, help="rank 0 writes the report here")
    parser.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT_S,
                        help="process-group timeout in seconds (default 60)")
    return parser


def parse_options(argv: Sequence[str]) -> CollectiveOptions:
    """Parse and validate; raises InputError with a message naming the option."""
    ns = build_parser().parse_args(list(argv))
    sizes = tuple(parse_sizes(ns.sizes)) if ns.sizes is not None else None
    return CollectiveOptions(
        sizes=sizes,
        ops=tuple(parse_ops(ns.ops)),
        iters=ns.iters,
        warmup=ns.warmup,
        backend=ns.backend,
        json_path=ns.json,
        timeout_s=ns.timeout,
    )
