"""The tier recommendation says the layout it was planned with (issue 24: "headline, tier and
fit say the same thing"). The Enterprise tier holds 2-4 GPUs a node over 2-64 nodes
(resources/tiers.json), so the 8-GPU full fine-tune of Llama-3-8B - the task's default layout,
1 node x 8 - is blocked on Enterprise as shown ("fewer GPUs than the workload uses") and runs
there only as ceil(8 / 4) = 2 nodes x 4 GPUs. Before this, the recommendation read "lowest
tier Enterprise" beside that Blocker with nothing to reconcile the two."""

from __future__ import annotations

import json

from torchrig.builds.capabilities import from_tier
from torchrig.catalog.loader import load_catalog
from torchrig.cli import main
from torchrig.findings import Severity
from torchrig.planning.analysis import analyze, recommend
from torchrig.planning.fit_verdict import (
    other_tier_gpu,
    other_tier_layout,
    tier_is_subject_but_not_as_shown,
)
from torchrig.planning.workload import workload_from_options

CATALOG = load_catalog()


def _enterprise(workload):
    analysis = analyze(workload, from_tier(CATALOG.tiers["enterprise"], CATALOG))
    return analysis, recommend(workload, CATALOG)


def test_eight_gpus_on_one_node_are_laid_out_as_two_enterprise_nodes_of_four():
    w = workload_from_options(task="llm_finetune_full", model="llama-3-8b")
    assert (w.nodes, w.gpus_per_node) == (1, 8)  # the task's default, as the CLI prints it
    analysis, rec = _enterprise(w)
    assert any(f.severity is Severity.BLOCKER for f in analysis.findings)
    assert rec.tier is not None and rec.tier.id == "enterprise"
    assert rec.tier_layout == (2, 4)
    assert ", as 2 nodes x 4 GPUs (not 1 x 8: the tier holds at most 4 per node)," \
        in rec.tier_reason.en
    assert "按 2 个节点 × 每节点 4 块 GPU（而非 1 × 8：该档位每节点最多 4 块）" \
        in rec.tier_reason.zh
    # The A100 shown is the one the tier runs it with: only the layout differs.
    assert not other_tier_gpu(analysis, rec)
    assert other_tier_layout(analysis, rec)
    assert tier_is_subject_but_not_as_shown(analysis, rec)


def test_a_layout_the_tier_holds_is_not_restated():
    # 4 GPUs on one node: Enterprise holds them as given (1 x 4), Professional (1 GPU a node,
    # one node) cannot, so Enterprise is still the lowest tier.
    w = workload_from_options(task="llm_finetune_full", model="llama-3-8b", gpus=4)
    analysis, rec = _enterprise(w)
    assert rec.tier is not None and rec.tier.id == "enterprise"
    assert rec.tier_layout == (1, 4)
    assert " as " not in rec.tier_reason.en and "按" not in rec.tier_reason.zh
    assert not other_tier_layout(analysis, rec)


def test_plan_json_names_the_tier_layout(capsys):
    assert main(["plan", "--task", "llm_finetune_full", "--model", "llama-3-8b",
                 "--recommend", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rec = data["recommendation"]
    assert rec["tier"] == "enterprise"
    assert rec["tier_layout"] == {"nodes": 2, "gpus_per_node": 4}


def test_no_tier_no_layout():
    # Llama-2-70B full fine-tune: no tier runs it (its 8 x 80 GB do not hold the states).
    w = workload_from_options(task="llm_finetune_full", model="llama-2-70b")
    rec = recommend(w, CATALOG)
    assert rec.tier is None and rec.tier_layout is None
