"""The command-line face of TorchRig (see README "Command line").

Each subcommand is a thin layer: parse arguments, call the core, print. Exit codes: 0 ok,
1 findings of severity "blocker" (``check``), 2 bad input (one line on stderr, no traceback).
Heavy modules (torch, reportlab) are imported inside the handlers that need them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from torchrig import __version__
from torchrig.errors import InputError

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on bad arguments already; make its message one line like ours."""

    def error(self, message: str) -> None:  # type: ignore[override]
        _err(f"{self.prog}: {message}")
        raise SystemExit(EXIT_BAD_INPUT)


def _err(line: str) -> None:
    # sys.stderr is None in a Windows GUI launch; never crash on reporting an error.
    if sys.stderr is not None:
        print(line.replace("\n", " "), file=sys.stderr)


def _out(text: str) -> None:
    if sys.stdout is not None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _print_json(data: Any) -> None:
    _out(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False))


# --- detect -----------------------------------------------------------------------------------


def cmd_detect(args: argparse.Namespace) -> int:
    from torchrig.hardware import detect
    from torchrig.hardware.text import format_profile_text

    profile = detect(use_torch=args.torch)
    if args.json:
        _print_json(profile.to_dict())
    else:
        _out(format_profile_text(profile, lang=args.lang))
    return EXIT_OK


# --- check ------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    from torchrig.catalog import load_catalog
    from torchrig.findings import has_blocker
    from torchrig.planning.build import load_build
    from torchrig.planning.check_output import check_json, format_check_text
    from torchrig.planning.compat import check_build
    from torchrig.planning.pricing import price_build

    catalog = load_catalog()
    build = load_build(_path(args.build), catalog)
    priced = price_build(build, catalog)
    findings = check_build(build, catalog)
    if args.json:
        _print_json(check_json(priced, findings))
    else:
        _out(format_check_text(priced, findings, lang=args.lang))
    return EXIT_FINDINGS if has_blocker(findings) else EXIT_OK


# --- bench ------------------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    if args.collective:
        from torchrig.bench.collective_launch import run_collective_cli

        return run_collective_cli(args)
    from torchrig.bench.cli_bench import run_cli

    return run_cli(args)


def _add_bench_options(parser: argparse.ArgumentParser) -> None:
    """Imported only when the bench command is used: the bench package is not needed (and
    costs import time) for detect, check or plan."""
    from torchrig.bench.cli_bench import add_bench_arguments
    from torchrig.bench.collective_launch import add_cli_arguments

    add_bench_arguments(parser)
    parser.add_argument("--lang", choices=["en", "zh"], default="en")
    group = parser.add_argument_group(
        "collective benchmark (torch.distributed; see docs/collective.md)")
    group.add_argument("--collective", action="store_true",
                       help="measure all-reduce/all-gather/reduce-scatter bandwidth with torchrun")
    add_cli_arguments(group, include_json=False)  # type: ignore[arg-type]


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="torchrig",
        description="TorchRig (PyTorch 硬件配置助手): plan, build, check and benchmark "
        "machines for PyTorch. Without a command, starts the GUI.",
    )
    parser.add_argument("--version", action="version", version=f"torchrig {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("detect", help="show this machine's CPU, GPUs, memory, disks, software")
    p.add_argument("--json", action="store_true", help="full profile as JSON (SI units)")
    p.add_argument(
        "--torch", action="store_true",
        help="also ask torch (slower: imports torch) for CUDA/ROCm/MPS facts",
    )
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.set_defaults(handler=cmd_detect)

    p = sub.add_parser("check", help="price a build and check its parts fit together")
    p.add_argument("build", metavar="BUILD", help="a build file (.json)")
    p.add_argument("--json", action="store_true", help="priced bill of materials and findings")
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("bench", help="measure this machine with torch (GPU or CPU)")
    if "bench" in argv:
        _add_bench_options(p)
    p.set_defaults(handler=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(argv) if argv is not None else sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return EXIT_OK
    try:
        return int(handler(args))
    except InputError as exc:
        _err(f"torchrig {args.command}: {exc}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _err(f"torchrig {args.command}: interrupted")
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _path(value: str) -> Path:
    return Path(value).expanduser()


if __name__ == "__main__":
    sys.exit(main())
