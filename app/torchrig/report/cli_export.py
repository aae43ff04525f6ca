"""``torchrig export BUILD -o OUT``: the build sheet (PDF) or the priced build as text.

The output's suffix picks the format - ``.pdf`` the sheet, ``.xlsx`` the quote as an Excel
workbook with formulas, ``.md`` Markdown, ``.bbcode`` forum BBCode, ``.txt`` plain text,
``.csv`` a spreadsheet - or ``--format`` says it; ``-o -`` writes text to standard output (to
pipe into a clipboard tool), with control characters in names shown as escapes
(torchrig/terminal.py); a file keeps the exact text.

A sheet is a customer copy in one language unless ``--internal`` (the shop's own sheet, with
its remarks: price ages, reliability, estimate notes). A build with lines that have no usable
price is a draft: the PDF and workbook are stamped DRAFT / 草稿 with those lines named, and
the export exits 3 (EXIT_DRAFT) without writing anything unless ``--draft`` says a draft is
what is wanted. The workload's requirements and scaling appear only with ``--workload``;
``--workload`` without a BUILD writes the workload's plan sheet (requirements, findings and the
recommendation; no parts, no prices).

Expected arguments (the CLI's argparse fills them): ``build`` (a build ``.json``, or a sheet
``.pdf`` exported earlier, whose attached build is used), ``output``, ``workload`` and ``bench``
(optional files), ``lang`` (``en``/``zh``), ``tier`` (a tier id overriding the build's own),
``internal`` (add the benchmarked machine to the tier comparison: a sheet for the shop, not the
customer) and ``invariant`` (byte-stable output). The sheet date is today, or the date of
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

from torchrig.builds.build import with_default_rate
from torchrig.errors import InputError
from torchrig.process_exit import mark_output_done
from torchrig.report.open_build import load_build_or_sheet
from torchrig.terminal import safe_text, write_error, write_lines

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_DRAFT = 3
"""The build has lines without a usable price and ``--draft`` was not given: nothing written."""


def run_export_cli(args: argparse.Namespace) -> int:
    """Run the export; returns the exit code (0 written, 2 bad input, 3 a draft refused)."""
    try:
        fmt = output_format(args.output, getattr(args, "format", None))
        if fmt not in ("pdf", "xlsx"):
            return _export_text(args, fmt)
        out, size = export(args, fmt)
    except DraftRefused as exc:
        _err(f"torchrig export: {exc}")
        return EXIT_DRAFT
    except InputError as exc:
        _err(f"torchrig export: {exc}")
        return EXIT_BAD_INPUT
    if sys.stdout is not None:
        write_lines(f"wrote {out} ({size / 1000:.0f} kB)")
    from torchrig.report.fonts import MISSING_CJK_FONT, find_cjk_font

    if find_cjk_font() is None:
        _err(f"torchrig export: note: {MISSING_CJK_FONT.get(args.lang or 'en')}")
    # Written atomically (fsynced, closed, renamed): a process run from the command line may
    # end without the interpreter's teardown (torchrig/process_exit.py says when it is safe).
    mark_output_done()
    return EXIT_OK


def output_format(output: str, given: str | None) -> str:
    """``given`` (``--format``), else what the output's suffix says: ``.pdf`` the sheet,
    ``.md`` / ``.bbcode`` / ``.txt`` / ``.csv`` the shared text (report/share_text.py)."""
    if given:
        if output == "-" and given in ("pdf", "xlsx"):
            raise InputError(f"a {given.upper()} file cannot go to standard output; give a "
                             "file name with -o")
        return given
    suffix = Path(output).suffix.lower()
    if suffix in (".pdf", ".xlsx"):
        return suffix[1:]
    from torchrig.report.share_text import SUFFIXES  # the text formats only: not for a PDF

    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    raise InputError(f"{output}: cannot tell the format from the name; end it in .pdf, "
                     f".xlsx, {', '.join(SUFFIXES)}, or say --format")


def _export_text(args: argparse.Namespace, fmt: str) -> int:
    """The priced build as Markdown, BBCode, plain text or CSV, to a file or stdout (``-``)."""
    from torchrig import jsonio
    from torchrig.builds.pricing import price_build, shipped_default
    from torchrig.catalog import load_catalog
    from torchrig.i18n import parse_lang
    from torchrig.report.share_text import share_text

    pdf_only = [flag for flag, value in (("--workload", args.workload), ("--bench", args.bench),
                                         ("--tier", args.tier),
                                         ("--internal", getattr(args, "internal", False)))
                if value]
    if pdf_only:
        raise InputError(f"{', '.join(pdf_only)} only apply to the PDF; the {fmt} export is "
                         "the priced parts list")
    lang = parse_lang(getattr(args, "lang", None) or "en")
    if not args.build:
        raise InputError(f"the {fmt} export is a build's priced parts list: give a BUILD file")
    build_path = Path(args.build).expanduser()
    catalog = load_catalog(lazy=True)  # the parts the build names, parsed when looked up
    if args.output != "-" and _same_file(Path(args.output).expanduser(), build_path):
        raise InputError(f"{args.output}: the output would overwrite the build; choose another "
                         "name")
    build = with_default_rate(load_build_or_sheet(build_path, catalog),
                              getattr(args, "cny_per_usd", None), getattr(args, "rate_date", None))
    content = share_text(price_build(build, catalog, default_rate=shipped_default(catalog)),
                         fmt, lang)
    if args.output == "-":
        if sys.stdout is not None:
            # Standard output is a terminal or a pipe into one (a clipboard tool, a pager): a
            # build named "\x1b]0;...\x07" must not retitle or clear it, so control
            # characters are shown as escapes, as check and plan print names. A file written
            # with -o keeps the exact text: it is the user's document, read by an editor or a
            # spreadsheet, and a name must survive export and re-import unchanged.
            # CSV rows end in CR LF (RFC 4180): those stay line ends, a CR anywhere else is
            # escaped like any control character.
            sys.stdout.write("\r\n".join(safe_text(part) for part in content.split("\r\n")))
            sys.stdout.flush()
        return EXIT_OK
    out = Path(args.output).expanduser()
    # A byte-order mark lets Excel read a UTF-8 CSV (Chinese names) without an import dialog.
    payload = content.encode("utf-8-sig" if fmt == "csv" else "utf-8")
    jsonio.atomic_write_bytes(out, payload)
    if sys.stdout is not None:
        write_lines(f"wrote {out} ({fmt}, {len(payload) / 1000:.1f} kB)")
    return EXIT_OK


class DraftRefused(InputError):
    """The quote has unpriced lines and ``--draft`` was not given."""


def export(args: argparse.Namespace, fmt: str = "pdf") -> tuple[Path, int]:
    """Load the inputs named in ``args``, render the PDF (or the ``xlsx`` workbook), write;
    returns (output path, bytes). Raises DraftRefused for a draft without ``--draft``."""
    from torchrig import jsonio
    from torchrig.builds.pricing import shipped_default
    from torchrig.catalog import load_catalog
    from torchrig.i18n import parse_lang
    from torchrig.report.assemble import assemble_sheet
    from torchrig.report.pdf import render_sheet_bytes
    from torchrig.report.sheet import Header, SheetOptions

    lang = parse_lang(getattr(args, "lang", None) or "en")
    if not args.build:
        return _export_plan(args, fmt, lang)
    build_path = Path(args.build).expanduser()
    out = Path(args.output).expanduser()
    inputs = [build_path, *(Path(p).expanduser() for p in (args.workload, args.bench) if p)]
    if any(_same_file(out, p) for p in inputs):
        raise InputError(f"{out}: the output would overwrite an input file; choose another name")
    catalog = load_catalog(lazy=True)  # the parts the build names, parsed when looked up
    build = with_default_rate(load_build_or_sheet(build_path, catalog),
                              getattr(args, "cny_per_usd", None), getattr(args, "rate_date", None))
    workload = _load_workload(Path(args.workload).expanduser()) if args.workload else None
    bench = _load_bench(Path(args.bench).expanduser()) if args.bench else None
    profile = _bench_profile(bench)
    header = Header(kind="sheet", date=sheet_date(), customer=build.customer,
                    project=build.project)
    sheet = assemble_sheet(
        build, catalog, header=header, lang=lang, workload=workload, bench_report=bench,
        profile=profile, tier_id=args.tier or None,
        options=SheetOptions(lang=lang, invariant=bool(args.invariant),
                             internal=bool(getattr(args, "internal", False))),
        # A build without a rate of its own (and no --cny-per-usd) is priced as check prices it.
        default_rate=shipped_default(catalog),
    )
    if sheet.is_draft and not getattr(args, "draft", False):
        raise DraftRefused(
            f"{build_path}: no usable price for {'; '.join(sheet.draft_lines)}; price them, "
            "or pass --draft for a sheet stamped DRAFT")
    if fmt == "xlsx":
        from torchrig.report.xlsx import render_sheet_xlsx

        payload = render_sheet_xlsx(sheet)
    else:
        payload = render_sheet_bytes(sheet)
    jsonio.atomic_write_bytes(out, payload)
    return out, len(payload)


def _export_plan(args: argparse.Namespace, fmt: str, lang: Any) -> tuple[Path, int]:
    """No BUILD: the workload's plan sheet (requirements, findings, recommendation)."""
    from torchrig import jsonio
    from torchrig.catalog import load_catalog
    from torchrig.report.pdf import render_sheet_bytes
    from torchrig.report.plan_sheet import assemble_plan_sheet
    from torchrig.report.sheet import Header, SheetOptions

    if not args.workload:
        raise InputError("give a BUILD file, or --workload FILE alone for a plan sheet")
    if fmt != "pdf":
        raise InputError("a plan sheet has no parts list: export it as .pdf")
    out = Path(args.output).expanduser()
    workload_path = Path(args.workload).expanduser()
    if _same_file(out, workload_path):
        raise InputError(f"{out}: the output would overwrite an input file; choose another name")
    sheet = assemble_plan_sheet(
        _load_workload(workload_path), load_catalog(), header=Header(date=sheet_date()),
        lang=lang, options=SheetOptions(lang=lang, invariant=bool(args.invariant)))
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


def _load_workload(path: Path) -> Any:
    from torchrig.planning.workload import load_workload

    return load_workload(path)


def _load_bench(path: Path) -> Any:
    from torchrig.bench.report import load_report

    return load_report(path)


def _bench_profile(bench: Any) -> Any:
    """The machine the benchmark ran on (its report carries the detected profile), shown as
    the "this machine" column of an internal sheet's comparison."""
    if bench is None or bench.profile is None:
        return None
    from torchrig.hardware.model import SystemProfile

    return SystemProfile.from_dict(bench.profile, "bench report profile")


def _err(line: str) -> None:
    write_error(line)
