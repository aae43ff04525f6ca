"""``torchrig verify WORKLOAD.json``: measure the workload's own model here, beside its plan.

Progress goes to stderr one line per run; the comparison table to stdout (``--json FILE`` also
writes the document, SI units). ``--write-back`` stores the measured per-sample activation
bytes and FLOPs in the workload file when the planner cannot size the model, so later plans
use them (written atomically; a file that fails to load is never touched).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from torchrig.bench.cli import check_json_path


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workload", metavar="WORKLOAD.json", help="a saved workload file")
    parser.add_argument("--device", default="auto",
                        help="auto, cpu, cuda, cuda:N or mps (default: auto = the first GPU "
                             "torch can use, else the CPU)")
    parser.add_argument("--steps", type=int, default=3, metavar="N",
                        help="steps per run: a warm-up, a memory step and N-2 timed steps "
                             "(3 to 1000; default 3)")
    parser.add_argument("--json", default=None, metavar="FILE",
                        help="also write the comparison as JSON (SI units)")
    parser.add_argument("--write-back", dest="write_back", action="store_true",
                        help="store the measured activation bytes and FLOPs per sample in "
                             "the workload file when the planner cannot size the model")
    parser.add_argument("--lang", choices=["en", "zh"], default="en")


def run_verify_cli(args: argparse.Namespace) -> int:
    """Returns 0; raises InputError (exit 2 in the CLI) for bad input or a refused run."""
    from torchrig.jsonio import atomic_write_json
    from torchrig.planning.workload import load_workload, save_workload
    from torchrig.verify.compare import format_text
    from torchrig.verify.measure import (
        VerifyProgress,
        device_for_plan,
        feedback_workload,
        verify,
    )

    path = Path(args.workload).expanduser()
    workload = load_workload(path)
    json_path = check_json_path(args.json)
    lang = args.lang

    def progress(p: VerifyProgress) -> None:
        if sys.stderr is not None:  # None in a Windows GUI-script process
            print(f"verify: {p.message.get(lang)}", file=sys.stderr, flush=True)

    from torchrig.bench.settings import resolve_device

    device = resolve_device(args.device)
    result = verify(workload, device, args.steps, progress=progress,
                    gpu=device_for_plan(device))
    sys.stdout.write(format_text(result, lang))
    if json_path is not None:
        atomic_write_json(json_path, result.to_dict())
    if args.write_back:
        updated = feedback_workload(result)
        if updated is None:
            print("verify: the planner sizes this model itself; the workload file is "
                  "unchanged" if lang == "en" else
                  "verify: 规划可自行估算此模型；工作负载文件未修改", file=sys.stderr)
        else:
            save_workload(updated, path)
            print(f"verify: wrote the measured figures to {path}" if lang == "en"
                  else f"verify: 已将实测数值写入 {path}", file=sys.stderr)
    return 0
