"""A multi-node plan with no network says so on its "Assumed" line (issue 24), in the text, the
JSON and (tests/gui/test_cli24_wizard_network.py) the Wizard's note - read from the planner's
own "network" assumption (planning/requirements/network.py), so it appears exactly when the
planner assumed perfect scaling across nodes: several nodes, a GPU to time them with, and no
network from the workload or the GPU. Before, only the planner's assumptions list said it."""

from __future__ import annotations

import json

import pytest

from torchrig.cli import main
from torchrig.i18n import Msg
from torchrig.planning.assumed_settings import assumed_settings
from torchrig.planning.requirements.types import Assumption
from torchrig.planning.workload import default_workload

TWO_NODES = ("plan", "--task", "llm_finetune_full", "--model", "llama-2-7b", "--nodes", "2",
             "--gpu", "nvidia-h100-sxm")
SAID = {"en": "no network given: perfect scaling assumed", "zh": "未给出网络：按理想扩展计算"}


def _assumed(capsys, *argv: str) -> list[dict]:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["assumed_settings"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_two_nodes_without_a_network_say_so_on_the_assumed_line(capsys, lang):
    assert main([*TWO_NODES, "--lang", lang]) == 0
    line = next(s for s in capsys.readouterr().out.splitlines()
                if s.startswith(("Assumed (the task's defaults", "假设（任务默认值")))
    assert SAID[lang] in line
    assert line.rstrip().endswith("--network" if lang == "en" else "--network 修改")


def test_the_json_lists_the_network(capsys):
    network = [a for a in _assumed(capsys, *TWO_NODES) if a["field"] == "network"]
    assert network == [{"field": "network", "option": "--network", "value": None,
                        "text": SAID, "basis": "task", "reason": None}]


@pytest.mark.parametrize("argv", [
    (*TWO_NODES, "--network", "ib_ndr"),  # the network is given
    tuple("1" if a == "2" else a for a in TWO_NODES),  # one node: no traffic between nodes
])
def test_no_such_line_where_the_planner_assumed_nothing(capsys, argv):
    assert all(a["field"] != "network" for a in _assumed(capsys, *argv))


def test_without_a_gpu_nothing_is_timed_so_nothing_is_assumed(capsys):
    """No GPU: the plan has no time, the planner assumes no scaling, and neither does the
    line (one source of truth, not a second copy of the rule)."""
    argv = [a for a in TWO_NODES if a not in ("--gpu", "nvidia-h100-sxm")]
    assert all(a["field"] != "network" for a in _assumed(capsys, *argv))


def test_the_entry_follows_the_nodes_entry():
    """In the order the plan's header names settings: after the node count."""
    w = default_workload("llm_finetune_full")
    planned = [Assumption("network", Msg("x", "x"))]
    fields = [a.field for a in assumed_settings(w, set(), planned=planned)]
    assert fields.index("network") == fields.index("nodes") + 1
    assert "network" not in [a.field for a in assumed_settings(w, set())]
