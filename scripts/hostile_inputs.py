"""Run every hostile input of issue 28 the way a user meets it, and say what happened.

Each input is run for real: the command line in a subprocess (``python -m torchrig ...``), the
window offscreen through its widgets (scripts/hostile_gui_inputs.py, one subprocess per group,
the file dialogs answered as tests/gui/conftest.py answers them). Per input it prints what was
done, the exit code or the dialog's text, the first lines of stdout/stderr, what was saved,
and the verdict: *handled* (one clear line and exit 2, or a message; nothing saved wrong;
nothing hung) or *NOT handled* with the reason.

    .venv/bin/python scripts/hostile_inputs.py              # every input, as text
    .venv/bin/python scripts/hostile_inputs.py --markdown   # a table for the release note
    .venv/bin/python scripts/hostile_inputs.py --cli        # the command-line inputs only
    .venv/bin/python scripts/hostile_inputs.py --only plan-fifo,export-csv --json

Everything happens in a temporary folder; settings and data go to folders inside it
(TORCHRIG_CONFIG_DIR, TORCHRIG_DATA_DIR), so the user's own are neither read nor changed.
Exit status: 0 when every input was handled, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LLAMA = ROOT / "tests" / "planning" / "hf_configs" / "llama-2-7b" / "config.json"
"""A real config.json (meta-llama/Llama-2-7b-hf) the hostile variants are made from."""
GUI_SCRIPT = Path(__file__).with_name("hostile_gui_inputs.py")

HANG_LIMIT_S = 60.0
"""A command that has not ended after this long is taken as hung and killed (each of them
ends in about two seconds on a quiet machine)."""
BENCH_LIMIT_S = 300.0
"""The stopped benchmark's command: the watchdog's 30 s silence limit, the child's start-up
(torch's import) and a loaded machine, with room to spare."""
GUI_LIMIT_S = 300.0
"""One group of window inputs (a window is built, each input is tried)."""
FIRST_LINES = 3

HOSTILE_NAME = "\x1b[2J\x1b]0;pwned\x07"
"""A build name that clears the screen, then retitles the terminal "pwned"."""
HOSTILE_LINE = "cable\x1b[31m red"
"""A custom line's text that turns the terminal red (the CSV holds lines, not the name)."""


@dataclass
class Outcome:
    """One hostile input and what TorchRig did with it."""

    name: str
    input: str
    done: str
    result: str = ""
    output: list[str] = field(default_factory=list)
    saved: str = ""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def handled(self) -> bool:
        return not self.problems

    @property
    def verdict(self) -> str:
        return "handled" if self.handled else "NOT handled: " + "; ".join(self.problems)

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "handled": self.handled, "verdict": self.verdict}


# --- the isolated place every input runs in -------------------------------------------------


@dataclass
class Place:
    """A temporary folder with its own settings and data folders."""

    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def config(self) -> Path:
        return self.root / "config"

    def env(self) -> dict[str, str]:
        app = str(ROOT / "app")
        path = os.environ.get("PYTHONPATH")
        return {**os.environ, "PYTHONPATH": app if not path else f"{app}{os.pathsep}{path}",
                "TORCHRIG_DATA_DIR": str(self.data), "TORCHRIG_CONFIG_DIR": str(self.config),
                "XDG_DATA_HOME": str(self.data), "XDG_CONFIG_HOME": str(self.config),
                "QT_QPA_PLATFORM": "offscreen", "PYTHONIOENCODING": "utf-8"}


@contextlib.contextmanager
def place() -> Iterator[Place]:
    with tempfile.TemporaryDirectory(prefix="torchrig-hostile-") as folder:
        yield Place(Path(folder))


def snapshot(root: Path) -> dict[str, str]:
    """Every regular file under ``root`` with its SHA-256 (FIFOs and devices are not read)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            found[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What appeared or changed between two snapshots, as "new X" / "changed X"."""
    out = [f"new {p}" for p in after if p not in before]
    out += [f"changed {p}" for p in after if p in before and after[p] != before[p]]
    out += [f"removed {p}" for p in before if p not in after]
    return out


def first_lines(text: str, n: int = FIRST_LINES) -> list[str]:
    return [line for line in text.splitlines() if line.strip()][:n]


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Characters a terminal acts on (escape, bell, carriage return...); tab and newline excepted."""
MINUS_ZERO = re.compile(r"(?<![\w.-])-0(\.0+)?(?![\d.])")
"""A printed "-0" or "-0.00" (not the "-01" of a date, not "-0.5")."""


# --- running a command ----------------------------------------------------------------------


@dataclass
class Ran:
    code: int | None
    stdout: str
    stderr: str
    hung: bool
    seconds: float


def run_torchrig(where: Place, args: list[str], limit_s: float = HANG_LIMIT_S) -> Ran:
    """``python -m torchrig ARGS`` in ``where``; killed (with its children) after ``limit_s``."""
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "torchrig", *args], cwd=where.root,
                            env=where.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=os.name == "posix")
    try:
        out, err = proc.communicate(timeout=limit_s)
        hung = False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        hung = True
    return Ran(None if hung else proc.returncode, out.decode("utf-8", "replace"),
               err.decode("utf-8", "replace"), hung, time.monotonic() - started)


def _kill_group(proc: subprocess.Popen[Any]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()


def judge_bad_input(ran: Ran, command: str, saved: list[str], expect: str) -> list[str]:
    """The contract for bad input on the command line: exit 2, exactly one line on stderr
    starting ``torchrig COMMAND:`` and saying ``expect``, no traceback, nothing on stdout,
    nothing written."""
    problems = []
    if ran.hung:
        problems.append(f"still running after {HANG_LIMIT_S:g} s (killed)")
    elif ran.code != 2:
        problems.append(f"exit code {ran.code}, not 2")
    lines = ran.stderr.splitlines()
    if "Traceback" in ran.stderr:
        problems.append("a traceback on stderr")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, not 1")
    elif not lines[0].startswith(f"torchrig {command}: "):
        problems.append(f"stderr does not start with 'torchrig {command}:'")
    elif expect not in lines[0]:
        problems.append(f"the message does not say {expect!r}")
    if ran.stdout.strip():
        problems.append("output on stdout")
    if saved:
        problems.append("files written: " + ", ".join(saved))
    return problems


def saved_text(saved: list[str]) -> str:
    return "nothing" if not saved else ", ".join(saved)


# --- plan --hf-config -----------------------------------------------------------------------


def hostile_configs(folder: Path) -> dict[str, tuple[Path, str, str]]:
    """name -> (the file, what it is, what the message must say)."""
    folder.mkdir(parents=True, exist_ok=True)
    doc = json.loads(LLAMA.read_text(encoding="utf-8"))
    deep = folder / "deep.json"
    deep.write_text('{"model_type": "llama", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
                    encoding="utf-8")
    big = folder / "big.json"
    text = json.dumps(doc)
    assert '"hidden_size": 4096' in text
    big.write_text(text.replace('"hidden_size": 4096', '"hidden_size": ' + "7" * 5001),
                   encoding="utf-8")
    twice = folder / "twice.json"
    twice.write_text(LLAMA.read_text(encoding="utf-8").replace("{", '{"hidden_size": 1024,', 1),
                     encoding="utf-8")
    cases = {
        "fifo": (folder / "fifo.json", "a FIFO (named pipe) nobody writes to",
                 "is not a regular file"),
        "dev-zero": (Path("/dev/zero"), "/dev/zero (endless zero bytes)",
                     "is not a regular file"),
        "deep": (deep, "100,000 levels of nested lists", "JSON nested too deeply"),
        "big-int": (big, "hidden_size with 5,001 digits", "is outside the 64-bit range"),
        "dup-key": (twice, "the key hidden_size twice (1024, then 4096)",
                    "the key 'hidden_size' appears twice"),
    }
    if hasattr(os, "mkfifo"):
        os.mkfifo(cases["fifo"][0])
    else:
        del cases["fifo"]
    if not Path("/dev/zero").exists():
        del cases["dev-zero"]
    return cases


def plan_config_case(which: str) -> Callable[[], Outcome]:
    def run() -> Outcome:
        with place() as where:
            cases = hostile_configs(where.root / "in")
            if which not in cases:
                return Outcome(f"plan-{which}", which, "not available on this system",
                               result="skipped")
            path, what, expect = cases[which]
            before = snapshot(where.root)
            ran = run_torchrig(where, ["plan", "--hf-config", str(path), "--lang", "en"])
            saved = changes(before, snapshot(where.root))
            return Outcome(
                f"plan-{which}", f"`plan --hf-config` on {what}",
                f"torchrig plan --hf-config {path.name if path.parent != Path('/dev') else path}"
                f" (killed if still running after {HANG_LIMIT_S:g} s)",
                result="hung (killed)" if ran.hung else f"exit {ran.code}",
                output=[line.replace(f"{where.root / 'in'}{os.sep}", "") for line in
                        first_lines(ran.stderr) + first_lines(ran.stdout)],
                saved=saved_text(saved), seconds=ran.seconds,
                problems=judge_bad_input(ran, "plan", saved, expect))
    return run


# --- export -o - with terminal escapes in the name ------------------------------------------


def write_hostile_build(path: Path) -> None:
    path.write_text(json.dumps({
        "format": "torchrig.build", "version": 1, "name": HOSTILE_NAME,
        "line_items": [{"part_id": "nvidia-rtx-4090", "quantity": 1},
                       {"text": HOSTILE_LINE, "category": "other", "quantity": 2,
                        "unit_price": "10.00", "currency": "CNY"}]}), encoding="utf-8")


def export_case(fmt: str) -> Callable[[], Outcome]:
    def run() -> Outcome:
        with place() as where:
            build = where.root / "evil.json"
            write_hostile_build(build)
            before = snapshot(where.root)
            ran = run_torchrig(where, ["export", str(build), "-o", "-", "--format", fmt,
                                       "--lang", "en"])
            saved = changes(before, snapshot(where.root))
            problems = []
            if ran.hung or ran.code != 0:
                problems.append(f"exit {ran.code}" if not ran.hung else "hung")
            raw = {f"\\x{ord(c):02x}" for c in CONTROL.findall(ran.stdout.replace("\r\n", "\n"))}
            if raw:
                problems.append("raw control characters on stdout: " + " ".join(sorted(raw)))
            if "\\x1b" not in ran.stdout:
                problems.append("the escape is not shown as \\x1b")
            if ran.stderr.strip():
                problems.append("output on stderr")
            if saved:
                problems.append("files written: " + ", ".join(saved))
            shown = [line for line in ran.stdout.splitlines() if "\\x1b" in line][:2]
            return Outcome(
                f"export-{fmt}", f"`export -o - --format {fmt}`, name and a line holding "
                "terminal escapes (ESC[2J, OSC 0 title, ESC[31m)",
                f"torchrig export evil.json -o - --format {fmt}",
                result=f"exit {ran.code}", output=shown, saved=saved_text(saved),
                seconds=ran.seconds, problems=problems)
    return run


# --- unit_price "-0" ------------------------------------------------------------------------


def minus_zero_case() -> Outcome:
    with place() as where:
        build = where.root / "zero.json"
        build.write_text(json.dumps({
            "format": "torchrig.build", "version": 1, "name": "Minus zero",
            "line_items": [{"part_id": "nvidia-rtx-4090", "quantity": 1, "unit_price": "-0",
                            "currency": "CNY"}]}), encoding="utf-8")
        before = snapshot(where.root)
        check = run_torchrig(where, ["check", str(build), "--lang", "en"])
        text = run_torchrig(where, ["export", str(build), "-o", "-", "--format", "text",
                                    "--lang", "en"])
        saved = changes(before, snapshot(where.root))
        problems = []
        for label, ran in (("check", check), ("export", text)):
            if ran.hung or ran.code != 0:
                problems.append(f"{label}: exit {ran.code}")
            if MINUS_ZERO.search(ran.stdout):
                problems.append(f"{label} prints a minus zero")
        line = next((ln.strip() for ln in check.stdout.splitlines() if "qty 1:" in ln), "")
        if "CNY 0.00" not in line:
            problems.append("the line is not priced CNY 0.00")
        if saved:
            problems.append("files written: " + ", ".join(saved))
        return Outcome(
            "minus-zero", '`unit_price: "-0"` in a build file',
            "torchrig check zero.json; torchrig export zero.json -o - --format text",
            result=f"exit {check.code} / exit {text.code}",
            output=[line] + [ln for ln in text.stdout.splitlines() if "Total" in ln][:1],
            saved=saved_text(saved), seconds=check.seconds + text.seconds, problems=problems)


# --- a benchmark child stopped with SIGSTOP -------------------------------------------------


def _bench_child(parent: int) -> int | None:
    import psutil

    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(parent).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "torchrig.bench.process.child" in " ".join(child.cmdline()):
                    return child.pid
    return None


def _gone(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def sigstop_case() -> Outcome:
    """``torchrig bench --only cpu_matmul``; once the benchmark has begun (its first progress
    line), its child process is stopped with SIGSTOP, as a debugger or ``kill -STOP`` does."""
    with place() as where:
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "torchrig", "bench", "--only", "cpu_matmul", "--lang", "en"],
            cwd=where.root, env=where.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True, encoding="utf-8", errors="replace",
            start_new_session=os.name == "posix")
        assert proc.stdout is not None and proc.stderr is not None
        err: list[str] = []
        reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
        reader.start()
        stopped: int | None = None
        hung = False
        try:
            while proc.poll() is None:
                if stopped is None and any(line.startswith("[1/") for line in err):
                    stopped = _bench_child(proc.pid)
                    if stopped is not None:
                        os.kill(stopped, signal.SIGSTOP)
                if time.monotonic() - started > BENCH_LIMIT_S:
                    hung = True
                    _kill_group(proc)
                    break
                time.sleep(0.05)
            out = proc.stdout.read()
            proc.wait()
        finally:
            proc.stdout.close()
            if stopped is not None and not _gone(stopped):  # a failed watchdog leaves none
                with contextlib.suppress(ProcessLookupError):
                    os.kill(stopped, signal.SIGKILL)
        reader.join(5)
        proc.stderr.close()
        seconds = time.monotonic() - started
        history = sorted((where.data / "bench").glob("*.json"))
        problems = []
        if stopped is None:
            problems.append("the benchmark child was never seen (nothing was stopped)")
        if hung:
            problems.append(f"the parent was still waiting after {BENCH_LIMIT_S:g} s")
        elif proc.returncode != 0:
            problems.append(f"exit {proc.returncode}")
        said = [line.strip() for line in (out.splitlines() + [e.rstrip() for e in err])
                if stopped is not None and f"pid {stopped}" in line]
        if stopped is not None and not said:
            problems.append(f"no line names the stopped process (pid {stopped})")
        if said and not any("SIGSTOP" in line for line in said):
            problems.append("no line says it was stopped (SIGSTOP)")
        if stopped is not None and not _gone(stopped):
            problems.append(f"pid {stopped} was left running")
        saved = "nothing"
        if history:
            report = json.loads(history[-1].read_text(encoding="utf-8"))
            states = {r.get("id"): r.get("status") for r in report.get("results", [])}
            saved = (f"the history report {history[-1].relative_to(where.root)}: "
                     f"cpu_matmul {states.get('cpu_matmul')}, interrupted: "
                     f"{(report.get('interrupted') or {}).get('en', 'no')}")
        lines = [line for line in out.splitlines() if line.startswith("interrupted:")]
        return Outcome(
            "bench-sigstop", "a benchmark child stopped with SIGSTOP",
            "torchrig bench --only cpu_matmul; kill -STOP on its child once the benchmark began",
            result=("hung (killed)" if hung else f"exit {proc.returncode}")
            + (f"; child pid {stopped} {'ended' if _gone(stopped) else 'ALIVE'}"
               if stopped else ""),
            output=lines[:1] or first_lines(out), saved=saved, seconds=seconds,
            problems=problems)


# --- the window's inputs (scripts/hostile_gui_inputs.py) ------------------------------------


GUI_GROUPS: dict[str, list[str]] = {
    "wizard": ["wizard-fifo", "wizard-dev-zero", "wizard-deep", "wizard-big-int",
               "wizard-dup-key"],
    "price-cell": ["cell-1.299,00", "cell-minus-zero"],
    "price-list": ["csv-1.299,00", "csv-repeated-price"],
    "header": ["header-refused-save"],
    "recovery": ["recovery-damaged-copies"],
}


def gui_group(group: str) -> list[Outcome]:
    with place() as where:
        record = where.root / "record.json"
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, str(GUI_SCRIPT), group, str(record), str(where.root / "in")],
            cwd=where.root, env=where.env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=os.name == "posix")
        try:
            out, _ = proc.communicate(timeout=GUI_LIMIT_S)
            why = "" if proc.returncode == 0 else f"the window's process exited {proc.returncode}"
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, _ = proc.communicate()
            why = f"the window was still busy after {GUI_LIMIT_S:g} s (killed)"
        found = json.loads(record.read_text(encoding="utf-8")) if record.exists() else []
        outcomes = [Outcome(**{k: v for k, v in item.items()
                               if k in Outcome.__dataclass_fields__}) for item in found]
        seen = {o.name for o in outcomes}
        for name in GUI_GROUPS[group]:
            if name not in seen:
                tail = first_lines(out.decode("utf-8", "replace")[-2000:], 3)
                outcomes.append(Outcome(name, name, "window input", result=why or "no record",
                                        output=tail, problems=[why or "no record written"]))
        spent = time.monotonic() - started
        for outcome in outcomes:
            outcome.seconds = outcome.seconds or spent / max(1, len(outcomes))
        if why:
            for outcome in outcomes:
                if why not in outcome.problems:
                    outcome.problems.append(why)
        order = GUI_GROUPS[group]
        return sorted(outcomes, key=lambda o: order.index(o.name) if o.name in order else 99)


# --- the list -------------------------------------------------------------------------------


CLI_CASES: dict[str, Callable[[], Outcome]] = {
    **{f"plan-{w}": plan_config_case(w)
       for w in ("fifo", "dev-zero", "deep", "big-int", "dup-key")},
    **{f"export-{f}": export_case(f) for f in ("text", "md", "bbcode", "csv")},
    "minus-zero": minus_zero_case,
    "bench-sigstop": sigstop_case,
}
ALL_NAMES = [*CLI_CASES, *(n for names in GUI_GROUPS.values() for n in names)]


def run(names: list[str], progress: Callable[[Outcome], None] = lambda o: None) -> list[Outcome]:
    done: list[Outcome] = []
    for name in names:
        if name in CLI_CASES:
            outcome = CLI_CASES[name]()
            progress(outcome)
            done.append(outcome)
    for group, members in GUI_GROUPS.items():
        if any(n in names for n in members):
            for outcome in gui_group(group):
                if outcome.name in names:
                    progress(outcome)
                    done.append(outcome)
    return done


def as_text(o: Outcome) -> str:
    lines = [f"== {o.name}: {o.input}", f"   done:    {o.done}", f"   result:  {o.result}"]
    lines += [f"   output:  {line}" for line in o.output]
    lines += [f"   saved:   {o.saved}", f"   verdict: {o.verdict}  ({o.seconds:.1f} s)"]
    return "\n".join(lines)


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 400 else text[:397] + "..."


def as_markdown(outcomes: list[Outcome]) -> str:
    rows = ["| # | input | what was done | exit code / message | saved | verdict |",
            "|---|---|---|---|---|---|"]
    for n, o in enumerate(outcomes, 1):
        said = o.result + ("" if not o.output else ": `" + " / ".join(o.output) + "`")
        rows.append(f"| {n} | {_cell(o.input)} | {_cell(o.done)} | {_cell(said)} | "
                    f"{_cell(o.saved)} | {_cell(o.verdict)} |")
    handled = sum(o.handled for o in outcomes)
    rows.append("")
    rows.append(f"{handled} of {len(outcomes)} inputs handled.")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--cli", action="store_true", help="the command-line inputs only")
    which.add_argument("--gui", action="store_true", help="the window's inputs only")
    which.add_argument("--only", help=f"comma-separated names: {', '.join(ALL_NAMES)}")
    parser.add_argument("--skip", default="", help="comma-separated names to leave out")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--markdown", action="store_true", help="print a Markdown table")
    form.add_argument("--json", action="store_true", help="print the outcomes as JSON")
    args = parser.parse_args(argv)
    names = list(ALL_NAMES)
    if args.cli:
        names = list(CLI_CASES)
    elif args.gui:
        names = [n for n in ALL_NAMES if n not in CLI_CASES]
    elif args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in ALL_NAMES]
        if unknown:
            parser.error(f"unknown input(s): {', '.join(unknown)}")
    skip = {n.strip() for n in args.skip.split(",") if n.strip()}
    names = [n for n in names if n not in skip]
    quiet = args.markdown or args.json
    outcomes = run(names, progress=lambda o: None if quiet else print(as_text(o), flush=True))
    if args.markdown:
        print(as_markdown(outcomes))
    elif args.json:
        print(json.dumps([o.to_dict() for o in outcomes], ensure_ascii=False, indent=1))
    else:
        print(f"\n{sum(o.handled for o in outcomes)} of {len(outcomes)} inputs handled.")
    return 0 if all(o.handled for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
