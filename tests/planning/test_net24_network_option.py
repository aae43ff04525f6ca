"""``torchrig plan --network LINK_ID --nics-per-node N`` (issue 24): the network between nodes
is the workload's, the scaling model runs over it, and a run over several nodes without one
says what it assumed (docs/estimation.md sec. 6.1)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.planning.plan_cli import plan_json, plan_text

from torchrig.cli import main
from torchrig.planning.workload import Workload

# Two nodes of one H100 SXM each, DDP: the gradient ring runs over the network alone (one GPU a
# node), and Llama 2 7B's 27 GB of fp32 gradients take seconds on Ethernet while one
# micro-batch's backward takes well under one: every bucket waits for the link, so the step
# ends one ring of all the gradients after the first bucket is ready. Between two networks the
# step time then differs by exactly  G x 2(n-1)/n x (1/busbw_a - 1/busbw_b)  (n = 2: factor 1).
_TWO_NODES = ("--task", "llm_finetune_full", "--model", "llama-2-7b", "--strategy", "ddp",
              "--gpus", "1", "--nodes", "2", "--gpu", "nvidia-h100-sxm", "--batch", "1",
              "--grad-accumulation", "1")
# docs/hardware-sources.md sec. 3: 10 GbE 1.25 GB/s, 25 GbE 3.125 GB/s per direction; x 0.8
# achievable (planning/links.py, _NET_FRACTION).
_BUSBW_10G = 1.25e9 * 0.8
_BUSBW_25G = 3.125e9 * 0.8


def _optimizer_step_s(doc: dict) -> float:
    """The scaling model's optimizer step: one micro-batch's compute / the efficiency."""
    t = doc["throughput"]
    return t["step_time_s"] / t["scaling_efficiency"]


def test_network_flag_changes_the_step_by_the_links_bandwidths(capsys: Any) -> None:
    slow = plan_json(capsys, *_TWO_NODES, "--network", "eth_10g")
    fast = plan_json(capsys, *_TWO_NODES, "--network", "eth_25g")
    grads = slow["interconnect"]["gradient_bytes"]
    # DDP under AMP keeps fp32 weights, so fp32 gradients: 4 B x 6.74B parameters.
    assert grads == pytest.approx(6.7384e9 * 4, rel=1e-3)
    expected = grads * (1 / _BUSBW_10G - 1 / _BUSBW_25G)  # 27.0 GB x 0.6 ns/B = 16.2 s
    assert _optimizer_step_s(slow) - _optimizer_step_s(fast) == pytest.approx(expected,
                                                                              rel=1e-6)
    assert slow["device"]["inter_link"] == "eth_10g"
    assert fast["device"]["inter_link"] == "eth_25g"


def test_nics_per_node_multiply_the_network(capsys: Any) -> None:
    one = plan_json(capsys, *_TWO_NODES, "--network", "eth_10g")
    two = plan_json(capsys, *_TWO_NODES, "--network", "eth_10g", "--nics-per-node", "2")
    grads = one["interconnect"]["gradient_bytes"]
    # Two ports: 2 x 1.0 GB/s, still far below NVLink 4 inside the node (min of the two).
    expected = grads * (1 / _BUSBW_10G - 1 / (2 * _BUSBW_10G))
    assert _optimizer_step_s(one) - _optimizer_step_s(two) == pytest.approx(expected, rel=1e-6)
    assert two["device"]["nics_per_node"] == 2
    assert two["workload"]["nics_per_node"] == 2 and two["workload"]["network"] == "eth_10g"


def test_without_a_network_two_nodes_say_what_they_assume(capsys: Any) -> None:
    doc = plan_json(capsys, *_TWO_NODES)
    keys = [a["key"] for a in doc["assumptions"]]
    assert "network" in keys
    text = next(a for a in doc["assumptions"] if a["key"] == "network")["text"]["en"]
    assert "perfect scaling" in text and "--network" in text and "ib_ndr" in text
    assert doc["throughput"]["scaling_efficiency"] is None
    out = plan_text(capsys, *_TWO_NODES)
    assert "no network between the 2 nodes given" in out


def test_one_node_or_a_given_network_assumes_nothing_about_it(capsys: Any) -> None:
    one_node = plan_json(capsys, "--task", "llm_finetune_full", "--gpus", "8",
                         "--gpu", "nvidia-h100-sxm")
    given = plan_json(capsys, *_TWO_NODES, "--network", "ib_ndr")
    for doc in (one_node, given):
        assert "network" not in [a["key"] for a in doc["assumptions"]]


@pytest.mark.parametrize(("flags", "words"), [
    (("--network", "ib_xxx"), "field 'network' must be one of eth_10g, eth_25g, eth_100g, "
                              "ib_hdr, ib_ndr; got 'ib_xxx'"),
    (("--nics-per-node", "0"), "field 'nics_per_node' must be between 1 and 64, got 0"),
    (("--nics-per-node", "65"), "field 'nics_per_node' must be between 1 and 64, got 65"),
    (("--nics-per-node", "two"), "argument --nics-per-node: invalid int value: 'two'"),
])
def test_bad_network_or_ports_give_one_line(capsys: Any, flags: tuple[str, ...],
                                            words: str) -> None:
    try:  # the workload's refusal returns 2; argparse's exits with 2
        code = main(["plan", "--task", "llm_finetune_full", "--nodes", "2", *flags])
    except SystemExit as exc:
        code = exc.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err


def test_network_travels_in_the_workload_document() -> None:
    w = Workload.from_dict({"format": "torchrig.workload", "version": 1,
                            "task": "llm_finetune_full", "nodes": 2, "network": "ib_hdr",
                            "nics_per_node": 8})
    assert (w.network, w.nics_per_node) == ("ib_hdr", 8)
    back = Workload.from_dict(w.to_dict())
    assert (back.network, back.nics_per_node) == ("ib_hdr", 8)
    default = Workload.from_dict({"format": "torchrig.workload", "version": 1,
                                  "task": "llm_finetune_full"})
    assert (default.network, default.nics_per_node) == (None, None)


def test_the_workloads_network_ids_are_the_link_tables_inter_node_links() -> None:
    from torchrig.planning.links import LINKS
    from torchrig.planning.workload_fields import NETWORKS

    assert tuple(k for k, link in LINKS.items() if link.scope == "inter") == NETWORKS
