"""``torchrig plan`` run in-process for the tests: its JSON document or its text."""

from __future__ import annotations

import json
from typing import Any

from torchrig.cli import main


def plan_json(capsys: Any, *argv: str) -> dict:
    assert main(["plan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def plan_text(capsys: Any, *argv: str) -> str:
    assert main(["plan", *argv]) == 0
    return capsys.readouterr().out
