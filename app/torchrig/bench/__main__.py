"""``python -m torchrig.bench``: the benchmark CLI without the rest of the app's commands."""

from __future__ import annotations

import argparse
import sys

from torchrig.bench.cli import add_bench_arguments, run_cli


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchrig.bench",
        description="Measure this machine with PyTorch (same as `torchrig bench`).",
    )
    add_bench_arguments(parser)
    return run_cli(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
