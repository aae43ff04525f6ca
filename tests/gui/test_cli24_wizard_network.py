"""The Wizard's network between nodes (issue 24), through the widgets: with more than one node
the user picks the network (planning/links.py's inter-node links, by their names) and the NICs
per node, and the plan's scaling efficiency follows; with one node both fields are greyed out.

Hand check from planning/links.py, ResNet-50 (the Wizard's default task; 25,557,032
parameters, torchvision), AMP: fp32 gradients, 4 B each = 102.228 MB all-reduced per step over
2 data-parallel ranks (1 GPU x 2 nodes), a ring moving 2 (n - 1) / n = 1 x the bytes. The
Enterprise tier's GPU is the A100 80GB SXM4: NVLink 3 inside a node, 300 GB/s x 0.78 = 234 GB/s
busbw. Across nodes the ring gets min(NVLink busbw, NICs x port bandwidth x 0.8):

* 10 GbE x 1: min(234, 1 x 1.25 x 0.8) = 1 GB/s -> 102.228 MB / 1 GB/s = 102.2 ms;
* InfiniBand NDR x 8: min(234, 8 x 50 x 0.8 = 320) = 234 GB/s -> 102.228 / 234 = 0.437 ms.

So the gradient traffic on screen is 102.2 ms plus the collectives' latency (at most 1 ms
here: a few buckets x 50 us) on Ethernet and 0.44 ms plus latency (20 us a collective) on
InfiniBand - a ratio of 234 in their bandwidth terms - and the efficiency is higher on
InfiniBand.
"""

from __future__ import annotations

import html
import re

import pytest
from gui_gestures import button, go_to, pick_with_keys, type_text, window_at

from torchrig.gui.qt import QComboBox, QLabel, QLineEdit

GRADIENT_BYTES = 25_557_032 * 4  # ResNet-50's fp32 gradients
ETH_10G_BUSBW = 1 * 1.25e9 * 0.8
NVLINK3_BUSBW = 300e9 * 0.78  # below 8 x 50e9 x 0.8 = 320e9: NDR x 8 is NVLink-bound


def _text(label: QLabel) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", label.text()))


def _planned(qtbot, page) -> None:
    qtbot.waitUntil(lambda: not page.planning and page.model.analysis is not None
                    and page.model.analysis.requirements.workload == page.workload,
                    timeout=60_000)


def _scaling(page) -> tuple[float, float]:
    """(efficiency, gradient traffic in seconds) as the headline shows them."""
    text = _text(page.headline)
    match = re.search(r"Scaling efficiency:\s+([\d.]+)% — [^:]*: ([\d.]+) ms of gradient "
                      "traffic", text)
    assert match, text
    return float(match[1]) / 100, float(match[2]) / 1e3


def _network(qtbot, page, link: str, nics: str) -> tuple[float, float]:
    pick_with_keys(qtbot, page.widgets["network"], link)
    type_text(qtbot, page.widgets["nics_per_node"], nics)
    qtbot.waitUntil(lambda: page.workload.network == link
                    and page.workload.nics_per_node == int(nics), timeout=10_000)
    _planned(qtbot, page)
    return _scaling(page)


@pytest.mark.slow  # four plans over two subjects, a save and an open: ~8 s on a busy machine
def test_the_network_between_nodes_reaches_the_plan(qtbot, request, file_dialogs, tmp_path):
    answers, _ = file_dialogs
    window = window_at(qtbot, request, "en")
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    network, nics = page.widgets["network"], page.widgets["nics_per_node"]
    assert isinstance(network, QComboBox) and isinstance(nics, QLineEdit)
    # The Professional tier's machine has a GPU but no network between nodes.
    pick_with_keys(qtbot, page.subject_box, "tier:professional")
    _planned(qtbot, page)
    assert page.workload.nodes == 1
    assert not network.isEnabled() and not nics.isEnabled()
    assert "Scaling efficiency:" not in _text(page.headline)  # one GPU: nothing to scale
    assert "no network given" not in page.assumed_label.text()

    type_text(qtbot, page.widgets["nodes"], "2")
    qtbot.waitUntil(lambda: page.workload.nodes == 2, timeout=10_000)
    _planned(qtbot, page)
    assert network.isEnabled() and nics.isEnabled()
    # No network: the plan assumes perfect scaling, and the Assumed line says so, naming
    # the field that changes it.
    assert network.currentData() == "" and page.workload.network is None
    assert "no network given: perfect scaling assumed" in page.assumed_label.text()
    assert "\u201cNetwork between nodes\u201d" in page.assumed_label.text()
    type_text(qtbot, page.widgets["nodes"], "1")
    qtbot.waitUntil(lambda: page.workload.nodes == 1, timeout=10_000)
    _planned(qtbot, page)
    assert "no network given" not in page.assumed_label.text()

    # The Enterprise tier's A100 SXM4 machine: NVLink 3 inside a node; it lists InfiniBand
    # NDR, used while the field is not given. The field's choice replaces it.
    pick_with_keys(qtbot, page.subject_box, "tier:enterprise")
    type_text(qtbot, page.widgets["nodes"], "2")
    qtbot.waitUntil(lambda: page.workload.nodes == 2, timeout=10_000)
    _planned(qtbot, page)
    assert "no network given" not in page.assumed_label.text()
    eth_eff, eth_comm = _network(qtbot, page, "eth_10g", "1")
    assert "10 GbE" in _text(page.headline)
    ib_eff, ib_comm = _network(qtbot, page, "ib_ndr", "8")
    assert "InfiniBand NDR (400 Gb/s)" in _text(page.headline)
    eth_hand = GRADIENT_BYTES / ETH_10G_BUSBW  # 102.2 ms
    ib_hand = GRADIENT_BYTES / NVLINK3_BUSBW  # 0.437 ms
    assert eth_hand <= eth_comm <= eth_hand + 1e-3
    assert ib_hand - 0.05e-3 <= ib_comm <= ib_hand + 0.2e-3  # one decimal of a ms shown
    assert ib_eff > eth_eff
    assert ib_eff > 0.99 and eth_eff < 0.9

    # Saved and opened again, the network and its ports come back into the fields.
    path = tmp_path / "two-nodes.json"
    answers.append(str(path))
    button(page, "save_workload").click()
    assert '"network": "ib_ndr"' in path.read_text("utf-8")
    _network(qtbot, page, "eth_10g", "1")
    answers.append(str(path))
    button(page, "open_workload").click()
    qtbot.waitUntil(lambda: page.workload.network == "ib_ndr", timeout=10_000)
    assert network.currentData() == "ib_ndr" and nics.text() == "8"

    # Back to one node: the fields are greyed out.
    type_text(qtbot, page.widgets["nodes"], "1")
    qtbot.waitUntil(lambda: page.workload.nodes == 1, timeout=10_000)
    assert not network.isEnabled() and not nics.isEnabled()
    window.close()


def test_the_chinese_wizard_names_the_network(qtbot, request):
    window = window_at(qtbot, request, "zh")
    go_to(qtbot, window, "wizard")
    page = window.wizard_page
    labels = {label.text() for label in page.findChildren(QLabel)}
    assert {"节点间网络", "每节点网络端口数"} <= labels
    network = page.widgets["network"]
    names = [network.itemText(i) for i in range(network.count())]
    assert names == ["未指定：用所核对机器自带的网络（如已知）", "10 GbE 以太网", "25 GbE 以太网",
                     "100 GbE 以太网", "InfiniBand HDR（每端口 200 Gb/s）",
                     "InfiniBand NDR（每端口 400 Gb/s）"]
    pick_with_keys(qtbot, page.subject_box, "tier:professional")
    type_text(qtbot, page.widgets["nodes"], "2")
    qtbot.waitUntil(lambda: page.workload.nodes == 2, timeout=10_000)
    _planned(qtbot, page)
    assert "未给出网络：按理想扩展计算" in page.assumed_label.text()
    assert "扩展效率：" in _text(page.headline)
    window.close()


def test_the_choices_are_the_links_between_nodes():
    """The network choice lists planning/links.py's inter-node links, by their names there."""
    from torchrig.gui.pages.wizard_texts import CHOICE_LABELS
    from torchrig.planning.links import LINKS
    from torchrig.planning.wizard_model import CHOICES

    inter = [link.id for link in LINKS.values() if link.scope == "inter"]
    assert CHOICES["network"] == ("", *inter)
    assert all(CHOICE_LABELS[f"network.{i}"] == LINKS[i].name for i in inter)
