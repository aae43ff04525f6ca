"""``torchrig bench``: run the suite from a terminal, headless servers included.

The suite runs in a child process (:func:`torchrig.bench.process.isolated.run_isolated`, the same
runner the GUI uses), followed from a worker thread so that Ctrl-C reaches the main thread,
which only waits: KeyboardInterrupt then sets the cancel token, the child is asked to stop and
killed if it has not within a second, and what was measured is still saved. A child that
crashes leaves a report of what it had measured. Progress goes to stderr one line per step
(no curses, so it works in CI logs and over ssh); the summary goes to stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from torchrig.bench.base import Progress
from torchrig.bench.benchmarks.storage import plan_for
from torchrig.bench.format import format_measurement, progress_line, result_line, state_text
from torchrig.bench.process.deadline import command_started, process_started
from torchrig.bench.process.isolated import registry_ids, run_isolated
from torchrig.bench.report import BenchReport, BenchResult, save_report, save_to_history
from torchrig.bench.runner import list_benchmarks
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.jsonio import unused_name
from torchrig.paths import fallback_notice
from torchrig.terminal import write_error, write_lines
from torchrig.units import fmt_gb

if TYPE_CHECKING:
    from torchrig.hardware.model import SystemProfile

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT, what shells report for a command stopped by Ctrl-C."""


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``bench`` sub-command's options, so ``torchrig bench`` and
    ``python -m torchrig.bench`` accept the same flags."""
    preset = parser.add_mutually_exclusive_group()
    preset.add_argument("--quick", action="store_true",
                        help="about 20-30 s (the default)")
    preset.add_argument("--full", action="store_true", help="larger sizes, under 3 minutes")
    parser.add_argument("--device", default="auto",
                        help="auto, cpu, cuda, cuda:N or mps (default: auto = the first GPU "
                             "torch can use, else the CPU)")
    parser.add_argument("--only", default=None, metavar="IDS",
                        help="comma-separated benchmark ids: "
                             + ", ".join(b.id for b in list_benchmarks()))
    parser.add_argument("--dataset-dir", dest="dataset_dir", default=None, metavar="DIR",
                        help="folder for the storage benchmark (default: the temp folder)")
    parser.add_argument("--json", default=None, metavar="FILE",
                        help="also write the report to FILE (always saved to the history)")


def settings_from_args(args: argparse.Namespace) -> BenchSettings:
    only = getattr(args, "only", None)
    if isinstance(only, str):
        only = only.split(",")
    dataset_dir = getattr(args, "dataset_dir", None)
    return BenchSettings(
        preset="full" if getattr(args, "full", False) else "quick",
        device=getattr(args, "device", None) or "auto",
        only=tuple(only) if only is not None else None,
        dataset_dir=Path(dataset_dir) if dataset_dir else None,
    )


def check_json_path(value: str | os.PathLike[str] | None) -> Path | None:
    """Refuse an output path we could not write *before* spending minutes measuring."""
    if value is None:
        return None
    path = Path(value).expanduser()
    if path.is_dir():
        raise InputError(f"--json {path}: is a folder, not a file")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"--json {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"--json {path}: not writable")
    return path


class _Printer:
    """One stderr line per progress step and per finished benchmark."""

    def __init__(self, stream: IO[str] | None, lang: str) -> None:
        self.stream = stream
        self.lang = lang

    def line(self, text: str) -> None:
        # sys.stderr is None in a Windows GUI-script process; never crash on it.
        if self.stream is not None:
            write_error(text, self.stream)

    def progress(self, p: Progress) -> None:
        self.line(progress_line(p, self.lang))

    def result(self, r: BenchResult) -> None:
        self.line(f"  {result_line(r, self.lang)}")


def summary(report: BenchReport, lang: str = "en") -> str:
    lines = [f"TorchRig benchmark - {report.settings.get('preset')} on {report.device}"
             + (f" ({report.device_name})" if report.device_name else "")]
    for r in report.results:
        lines.append(f"{r.title.get(lang)} [{r.id}]: {state_text(r, lang)}")
        for m in r.measurements:
            lines.append(f"    {format_measurement(m, lang)}")
        for note in r.notes:
            lines.append(f"    {_SUMMARY['note'].get(lang)}{note.get(lang)}")
    if report.cancelled:
        lines.append(_SUMMARY["cancelled"].get(lang))
    if report.interrupted is not None:
        lines.append(f"{_SUMMARY['interrupted'].get(lang)}{report.interrupted.get(lang)}")
    for warning in report.busy_warnings:
        lines.append(f"{_SUMMARY['warning'].get(lang)}{warning.get(lang)}")
    return "\n".join(lines)


_SUMMARY = {
    "note": Msg("note: ", "注："),
    "cancelled": Msg("cancelled: the figures above are what was measured before the stop",
                     "已取消：以上数字是停止前测得的结果"),
    "interrupted": Msg("interrupted: ", "中断："),
    "warning": Msg("WARNING: ", "警告："),
}


def run_cli(
    args: argparse.Namespace,
    *,
    registry: str | None = None,
    profile: SystemProfile | None = None,
    detect: bool = True,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    catalog_peaks: bool = False,
    child_env: dict[str, str] | None = None,
) -> int:
    """Run ``torchrig bench`` with parsed ``args``; returns the exit code.

    0: done; 2: bad input (one line on stderr); 130: stopped by Ctrl-C (results still saved).
    ``catalog_peaks``: compare with the catalog's spec peaks (the CLI does). ``registry``
    ("module:attribute"), ``profile``, ``detect`` and ``child_env`` exist for tests and
    embedding.
    """
    entered = time.monotonic()
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    printer = _Printer(err, getattr(args, "lang", "en") or "en")
    try:
        ids = registry_ids(registry)
        settings = settings_from_args(args).validated(ids)
        json_path = check_json_path(getattr(args, "json", None))
    except InputError as exc:
        printer.line(f"torchrig bench: {exc}")
        return EXIT_BAD_INPUT
    if "storage" in ids and (
            settings.only is None or "storage" in settings.only):
        plan = plan_for(settings)
        printer.line(f"storage: writes {fmt_gb(plan.total_bytes)} of test files in "
                     f"{plan.folder} and removes them afterwards")

    cancel = threading.Event()
    go = threading.Event()
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        # Start measuring only once the main thread is inside the loop that handles Ctrl-C.
        go.wait()
        try:
            outcome["report"] = run_isolated(
                settings, cancel=cancel, on_progress=printer.progress,
                on_result=printer.result,
                profile=profile.to_dict() if profile is not None else None, detect=detect,
                registry=registry, catalog_peaks=catalog_peaks, env=child_env,
                started=command_started(entered, process_started()))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread below
            outcome["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="torchrig-bench", daemon=True)
    worker.start()
    interrupted = False
    # Wait on an Event, not Thread.join: before Python 3.13 a KeyboardInterrupt inside join()
    # can leave the thread marked as finished while it still runs.
    while not done.is_set():
        try:
            go.set()
            done.wait(0.1)
        except KeyboardInterrupt:
            if not interrupted:
                interrupted = True
                cancel.set()
                printer.line("cancelling: stopping the current benchmark and saving what was "
                             "measured (Ctrl-C again does the same)")
    worker.join()
    error = outcome.get("error")
    if isinstance(error, InputError):
        printer.line(f"torchrig bench: {error}")
        return EXIT_BAD_INPUT
    if error is not None:
        raise error
    report: BenchReport = outcome["report"]
    if out is not None:
        write_lines(summary(report, printer.lang), out)
    code = EXIT_INTERRUPTED if interrupted or report.cancelled else EXIT_OK
    # Both writes are attempted even if one fails: the measurements must not be lost.
    if json_path is not None:
        try:
            save_report(report, json_path)
            printer.line(f"report written: {json_path}")
        except InputError as exc:
            printer.line(f"torchrig bench: {exc}")
            code = EXIT_BAD_INPUT
    notice = fallback_notice()
    if notice:
        printer.line(f"note: {notice}")
    try:
        printer.line(f"report saved: {save_to_history(report)}")
    except InputError as exc:
        printer.line(f"torchrig bench: {exc}")
        code = EXIT_BAD_INPUT
        if json_path is None:
            # Nowhere was written: keep the finished measurement in the working folder.
            try:
                keep = unused_name(Path.cwd().resolve() / "torchrig-bench-report.json")
                save_report(report, keep)
                printer.line(f"report saved instead: {keep}")
            except (InputError, OSError) as again:
                printer.line(f"torchrig bench: {again}")
    return code
