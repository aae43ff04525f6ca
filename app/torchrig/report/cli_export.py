"""``torchrig export BUILD -o OUT.pdf``: the build sheet from the command line.

Expected arguments (the CLI's argparse fills them): ``build`` (a build ``.json``, or a sheet
``.pdf`` exported earlier, whose attached build is used), ``output``, ``workload`` and ``bench``
(optional files), ``lang`` (``en``/``zh``), ``tier`` (a tier id overriding the build's own) and
``invariant`` (byte-stable output). The sheet date is today, or the date of
``$SOURCE_DATE_EPOCH`` when set, the reproducible-builds convention for fixed timestamps.

The PDF is rendered in memory and written atomically, so a failed export never leaves a
half-written file or clobbers the previous one. Bad input exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path
from typing import Any

from torchrig.errors import InputError
from torchrig.terminal import write_error, write_lines

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def run_export_cli(args: argparse.Namespace) -> int:
    """Run the export; returns the exit code (0 written, 2 bad input)."""
    try:
        out, size = export(args)
    except InputError as exc:
        _err(f"torchrig export: {exc}")
        return EXIT_BAD_INPUT
    if sys.stdout is not None:
        write_lines(f"wrote {out} ({size / 1000:.0f} kB)")
    return EXIT_OK


def export(args: argparse.Namespace) -> tuple[Path, int]:
    """Load the inputs named in ``args``, render, write; returns (output path, bytes)."""
    from torchrig import jsonio
    from torchrig.catalog import load_catalog
    from torchrig.i18n import parse_lang
    from torchrig.report.assemble import assemble_sheet
    from torchrig.report.pdf import render_sheet_bytes
    from torchrig.report.sheet import Header, SheetOptions

    lang = parse_lang(getattr(args, "lang", None) or "en")
    build_path = Path(args.build).expanduser()
    out = Path(args.output).expanduser()
    inputs = [build_path, *(Path(p).expanduser() for p in (args.workload, args.bench) if p)]
    if any(_same_file(out, p) for p in inputs):
        raise InputError(f"{out}: the output would overwrite an input file; choose another name")
    catalog = load_catalog()
    build = _load_build(build_path, catalog)
    workload = _load_workload(Path(args.workload).expanduser()) if args.workload else None
    bench = _load_bench(Path(args.bench).expanduser()) if args.bench else None
    profile = _bench_profile(bench)
    header = Header(kind="sheet", date=sheet_date(), customer=build.customer,
                    project=build.project)
    sheet = assemble_sheet(
        build, catalog, header=header, lang=lang, workload=workload, bench_report=bench,
        profile=profile, tier_id=args.tier or None,
        options=SheetOptions(lang=lang, invariant=bool(args.invariant)),
    )
    payload = render_sheet_bytes(sheet)
    jsonio.atomic_write_bytes(out, payload)
    return out, len(payload)


def sheet_date() -> str:
    """Today (local), or ``$SOURCE_DATE_EPOCH`` (UTC) for reproducible output."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            stamp = int(epoch)
            return dt.datetime.fromtimestamp(stamp, tz=dt.timezone.utc).date().isoformat()
        except (ValueError, OverflowError, OSError):
            raise InputError(f"SOURCE_DATE_EPOCH must be a Unix time in seconds, got {epoch!r}")\
                from None
    return dt.date.today().isoformat()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _load_build(path: Path, catalog: Any) -> Any:
    """A build file, or the build attached to a sheet PDF exported earlier."""
    from torchrig.builds.build import Build, load_build

    if path.suffix.lower() == ".pdf":
        from torchrig.report.pdf import extract_build_json

        build = Build.from_dict(extract_build_json(path), where=f"{path} (attached build)")
        build.check_parts(catalog, where=str(path))
        return build
    return load_build(path, catalog)


def _load_workload(path: Path) -> Any:
    from torchrig.planning.workload import load_workload

    return load_workload(path)


def _load_bench(path: Path) -> Any:
    from torchrig.bench.report import load_report

    return load_report(path)


def _bench_profile(bench: Any) -> Any:
    """The machine the benchmark ran on (its report carries the detected profile), shown as
    the "this machine" column of the comparison."""
    if bench is None or bench.profile is None:
        return None
    from torchrig.hardware.model import SystemProfile

    return SystemProfile.from_dict(bench.profile, "bench report profile")


def _err(line: str) -> None:
    write_error(line)
