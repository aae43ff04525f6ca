"""Write what the CLI prints for every sample build, workload and tier into a folder, so two
versions of TorchRig can be compared byte for byte (``diff -r OLD NEW``).

A restructuring must not change behaviour; this is how that is shown. Each command runs
in-process through ``torchrig.cli.main`` (a few hundred commands in about a minute instead
of several), with stdout captured into one file per command. PDFs are written with
``--invariant`` (fixed ids and dates), so equal input gives equal bytes.

    .venv/bin/python scripts/cli_snapshot.py /tmp/before
    ... change the code ...
    .venv/bin/python scripts/cli_snapshot.py /tmp/after
    diff -r /tmp/before /tmp/after && echo identical
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILDS = sorted((ROOT / "builds").glob("*.json"))
WORKLOADS = sorted((ROOT / "workloads").glob("*.json"))
TIERS = ("entry", "professional", "enterprise")
# One consumer card, one data-centre module: the planner's solver and throughput branches.
GPUS = ("nvidia-rtx-4090", "nvidia-h100-sxm")
RATE = ("--cny-per-usd", "7.1", "--rate-date", "2026-11-30")


def _commands(out: Path) -> list[tuple[str, list[str]]]:
    """(output file name, argv) for every command of the comparison."""
    cmds: list[tuple[str, list[str]]] = []
    for build in BUILDS:
        b = build.stem
        cmds += [
            (f"check-{b}.json", ["check", str(build), "--json"]),
            (f"check-{b}-rate.json", ["check", str(build), "--json", *RATE]),
            (f"check-{b}-en.txt", ["check", str(build), "--lang", "en", *RATE]),
            (f"check-{b}-zh.txt", ["check", str(build), "--lang", "zh", *RATE]),
        ]
        for lang in ("zh", "en"):
            pdf = out / f"export-{b}-{lang}.pdf"
            cmds.append((f"export-{b}-{lang}.log", ["export", str(build), "-o", str(pdf),
                                                    "--lang", lang, "--invariant", "--draft",
                                                    *RATE]))
        for fmt in ("md", "bbcode", "text", "csv"):
            cmds.append((f"export-{b}.{fmt}", ["export", str(build), "-o", "-", "--format",
                                               fmt, *RATE]))
        for tier in TIERS:
            pdf = out / f"export-{b}-tier-{tier}.pdf"
            cmds.append((f"export-{b}-tier-{tier}.log",
                         ["export", str(build), "-o", str(pdf), "--tier", tier, "--invariant",
                          "--draft", *RATE]))
        for workload in WORKLOADS:
            cmds.append((f"check-{b}-{workload.stem}.json",
                         ["check", str(build), "--workload", str(workload), "--json", *RATE]))
        pdf = out / f"export-{b}-{WORKLOADS[0].stem}.pdf"
        cmds.append((f"export-{b}-workload.log",
                     ["export", str(build), "-o", str(pdf), "--workload", str(WORKLOADS[0]),
                      "--invariant", "--draft", *RATE]))
    for workload in WORKLOADS:
        w = workload.stem
        cmds += [
            (f"plan-{w}.json", ["plan", "--workload", str(workload), "--json"]),
            (f"plan-{w}-en.txt", ["plan", "--workload", str(workload), "--lang", "en"]),
            (f"plan-{w}-zh.txt", ["plan", "--workload", str(workload), "--lang", "zh"]),
            (f"plan-{w}-recommend.json", ["plan", "--workload", str(workload), "--recommend",
                                          "--json", "--currency", "CNY", "--cny-per-usd",
                                          "7.1"]),
        ]
        for gpu in GPUS:
            cmds.append((f"plan-{w}-{gpu}.json",
                         ["plan", "--workload", str(workload), "--gpu", gpu, "--json"]))
            cmds.append((f"plan-{w}-{gpu}-zh.txt",
                         ["plan", "--workload", str(workload), "--gpu", gpu, "--lang", "zh"]))
    return cmds


def _run(argv: list[str]) -> tuple[int, str, str]:
    from torchrig.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, stdout.getvalue(), stderr.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for the outputs (created)")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    # Paths in the outputs are relative to the repository and the output folder is shown as
    # OUT, so two checkouts and two output folders compare equal.
    os.chdir(ROOT)
    for name, argv in _commands(out.resolve()):
        argv = [os.path.relpath(a, ROOT) if a.startswith(str(ROOT)) else a for a in argv]
        code, stdout, stderr = _run(argv)
        text = f"$ torchrig {' '.join(argv)}\nexit {code}\n{stderr}---\n{stdout}"
        (out / name).write_text(text.replace(str(out.resolve()), "OUT"), encoding="utf-8")
    print(f"{len(_commands(out))} commands written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
