"""``plan --params`` takes a parameter count as people write it (issue 24): ``2.85e9`` was
refused by argparse ("invalid int value: '2.85e9'"). The option reads a number; whether it is a
count - whole, finite, 1,000 to 1e13 - is the workload's own field rule
(planning/workload_fields.py, ``params``), the one place a workload file's count is checked
too, so a fraction, a negative or nan is one line naming the field."""

from __future__ import annotations

import json

import pytest

from torchrig.cli import main

CUSTOM = ("plan", "--task", "llm_finetune_full", "--model", "custom", "--layers", "32",
          "--hidden", "2560", "--heads", "32", "--vocab", "50000")


def _plan(capsys, params: str) -> dict:
    assert main([*CUSTOM, f"--params={params}", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_scientific_notation_is_the_same_count(capsys):
    """2.85e9 = 2,850,000,000: the same plan as the count written out, whose header reads
    2,850.0M parameters (2,850,000,000 / 1e6)."""
    assert _plan(capsys, "2.85e9") == _plan(capsys, "2850000000")
    assert main([*CUSTOM, "--params", "2.85e9"]) == 0
    assert "custom model (2,850.0M parameters)" in capsys.readouterr().out


@pytest.mark.parametrize(("typed", "why"), [
    ("2.5", "field 'params' must be a whole number, got 2.5"),
    ("-1", "field 'params' must be between 1000 and 1e+13, got -1"),
    ("nan", "field 'params' must be a finite number, got nan"),
    ("abc", "argument --params: invalid count value: 'abc'"),
])
def test_what_is_not_a_count_is_one_line(capsys, typed, why):
    try:
        code = main([*CUSTOM, f"--params={typed}"])
    except SystemExit as exc:  # argparse's own refusal exits from the parser
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(why), captured.err
    assert captured.out == ""
