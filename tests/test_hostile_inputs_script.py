"""scripts/hostile_inputs.py (issue 28): each command-line hostile input it runs is handled,
and its judge can tell a handled input from one that is not.

Every case runs ``python -m torchrig`` in a subprocess, as a user does. Beyond the script's own
verdict each test checks the facts the verdict rests on against values written here: the
exit code, the one message line (the loaders' wording, docs/reliability.md), that nothing was
written. The window's inputs (the script's ``--gui``) are covered by
tests/gui/test_hostile_gui_inputs.py and tests/gui/test_price_entry.py and are not run here.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "hostile_inputs.py"


def _load():
    spec = importlib.util.spec_from_file_location("hostile_inputs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile_inputs"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


hostile = _load()

PLAN_MESSAGES = {
    # the message after "torchrig plan: FILE: cannot read the Hugging Face config: "
    "plan-fifo": "is not a regular file (a device, pipe or socket)",
    "plan-dev-zero": "is not a regular file (a device, pipe or socket)",
    "plan-deep": "JSON nested too deeply",
    "plan-big-int": "not valid JSON (integer 777777777777777777777777... is outside the 64-bit "
                    "range)",
    "plan-dup-key": "not valid JSON (the key 'hidden_size' appears twice in one object)",
}


@pytest.mark.parametrize("name", list(PLAN_MESSAGES))
def test_plan_refuses_each_hostile_config_in_one_line_with_exit_2(name):
    if name == "plan-fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("POSIX FIFOs")
    outcome = hostile.CLI_CASES[name]()
    assert outcome.verdict == "handled", outcome.verdict
    assert outcome.result == "exit 2"
    shown = "/dev/zero" if name == "plan-dev-zero" else outcome.done.split()[3]
    assert outcome.output == [f"torchrig plan: {shown}: cannot read the Hugging Face config: "
                              f"{PLAN_MESSAGES[name]}"]
    assert outcome.saved == "nothing"


@pytest.mark.parametrize("fmt", ["text", "md", "bbcode", "csv"])
def test_export_to_stdout_shows_escapes_not_raw_control_characters(fmt):
    outcome = hostile.CLI_CASES[f"export-{fmt}"]()
    assert outcome.verdict == "handled", outcome.verdict
    assert outcome.result == "exit 0" and outcome.saved == "nothing"
    # The line's text "cable ESC[31m red" as the escape written out (ESC = \x1b); Markdown
    # escapes the bracket, BBCode writes it full-width (report/markup.py).
    cable = {"md": "cable\\x1b\\[31m red", "bbcode": "cable\\x1b\uff3b31m red"}.get(
        fmt, "cable\\x1b[31m red")
    assert any(cable in line for line in outcome.output), outcome.output
    assert not any("\x1b" in line for line in outcome.output)


@pytest.mark.slow  # two torchrig processes
def test_minus_zero_prices_as_zero():
    outcome = hostile.CLI_CASES["minus-zero"]()
    assert outcome.verdict == "handled", outcome.verdict
    # one RTX 4090 at 0 yuan: 1 x 0.00 = 0.00
    # check numbers lines from 1, as the builds' notes do ("line 2")
    assert outcome.output[0] == ("[1] NVIDIA GeForce RTX 4090 (GPU) qty 1: CNY 0.00 -> "
                                 "CNY 0.00")


@pytest.mark.slow  # the real benchmark child, torch imported in it
@pytest.mark.skipif(os.name != "posix", reason="SIGSTOP")
def test_a_sigstopped_benchmark_child_is_named_and_ended():
    pytest.importorskip("torch")
    outcome = hostile.CLI_CASES["bench-sigstop"]()
    assert outcome.verdict == "handled", outcome.verdict
    pid = outcome.result.split("child pid ")[1].split()[0]
    assert outcome.result == f"exit 0; child pid {pid} ended"
    assert f"(pid {pid}) had been stopped (SIGSTOP or a debugger)" in outcome.output[0] or \
        f"(pid {pid}) sent nothing for" in outcome.output[0]
    assert outcome.saved.startswith("the history report data/bench/")


# --- the judge itself can say "NOT handled" ---------------------------------------------------


def test_the_judge_rejects_a_traceback_a_hang_a_wrong_exit_and_a_written_file():
    ok = hostile.Ran(2, "", "torchrig plan: x.json: cannot read: JSON nested too deeply\n",
                     False, 1.0)
    assert hostile.judge_bad_input(ok, "plan", [], "nested too deeply") == []
    traceback = hostile.Ran(1, "", "Traceback (most recent call last):\n  ...\nRecursionError\n",
                            False, 1.0)
    assert hostile.judge_bad_input(traceback, "plan", [], "nested") == [
        "exit code 1, not 2", "a traceback on stderr", "3 lines on stderr, not 1"]
    hung = hostile.Ran(None, "", "", True, 60.0)
    assert hostile.judge_bad_input(hung, "plan", [], "x")[:2] == [
        "still running after 60 s (killed)", "0 lines on stderr, not 1"]
    assert hostile.judge_bad_input(ok, "plan", ["new out.json"], "nested too deeply") == [
        "files written: new out.json"]
    assert hostile.judge_bad_input(ok, "check", [], "nested too deeply") == [
        "stderr does not start with 'torchrig check:'"]


def test_minus_zero_is_spotted_but_dates_and_other_amounts_are_not():
    found = [text for text in ("CNY -0.00", "total -0", "2024-10-17", "CNY 0.00", "-0.50",
                               "-05") if hostile.MINUS_ZERO.search(text)]
    assert found == ["CNY -0.00", "total -0"]


def test_the_markdown_table_has_a_row_per_input_and_counts_the_handled():
    done = hostile.Outcome("a", "in|put", "did", result="exit 2", output=["line"],
                           saved="nothing")
    bad = hostile.Outcome("b", "other", "did", result="exit 1", saved="x.json",
                          problems=["a traceback on stderr"])
    table = hostile.as_markdown([done, bad]).splitlines()
    assert table[2] == "| 1 | in\\|put | did | exit 2: `line` | nothing | handled |"
    assert table[3] == ("| 2 | other | did | exit 1 | x.json | NOT handled: a traceback on "
                        "stderr |")
    assert table[-1] == "1 of 2 inputs handled."


@pytest.mark.slow  # the script, then torchrig, each a process
def test_the_command_line_runs_one_input_and_exits_0_when_handled(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "app")}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--only", "plan-deep", "--markdown"],
                          capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("| # | input |")
    assert lines[2].startswith("| 1 | `plan --hf-config` on 100,000 levels of nested lists |")
    assert lines[2].endswith("| nothing | handled |")
    assert lines[-1] == "1 of 1 inputs handled."
    assert list(tmp_path.iterdir()) == []  # everything happened in its own temp folder
