"""What the build checks share (builds/check_node.py), as mutation testing (scripts/mutate.py
builds.check_node) found it unpinned: only "node" lines are the node's, custom lines count by
category, a part repeated by its quantity, the channels a node really drives (board and CPU,
one socket or two, a board alone, a CPU alone), the server-platform stand-in, and a finding's
numbers as floats. Channel figures are the catalog's (vendor specifications): the W790 board
(ASUS Pro WS W790E-SAGE SE) wires 8 channels, the Xeon W5-2455X has 4 and the W9-3495X 8; the
ASRock Rack 4U8G-TURIN2 is a two-socket board with 12 per socket, the EPYC 9554 has 12.
"""

from __future__ import annotations

from dataclasses import replace

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node, finding
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Severity
from torchrig.i18n import Msg

W790, W5, W9 = "asus-pro-ws-w790e-sage-se", "intel-xeon-w5-2455x", "intel-xeon-w9-3495x"
TURIN2, EPYC = "asrock-rack-4u8g-turin2", "amd-epyc-9554"
GPU, DESKTOP = "nvidia-rtx-4090", "asus-tuf-gaming-b650-plus-wifi"


def _node(*lines: LineItem, cat: Catalog | None = None) -> Node:
    return Node(Build(name="t", line_items=list(lines)), cat or load_catalog())


def _part(part_id: str, quantity: int = 1, **kw: object) -> LineItem:
    return LineItem(part_id=part_id, quantity=quantity, **kw)  # type: ignore[arg-type]


def test_only_node_lines_and_custom_categories() -> None:
    cat = load_catalog()
    node = _node(_part(GPU, 2), _part(GPU, 3, scope="cluster"),
                 LineItem(text="switch", category="switch", scope="cluster"),
                 LineItem(text="rails", category="other"), _part(W5))
    assert [(line.part.id, line.quantity) for line in node.of("gpu")] == [(GPU, 2)]
    assert node.custom_categories == {"other"}
    assert node.count("gpu") == 2 and node.count("cpu") == 1 and node.count("memory") == 0
    assert node.count("gpu", lambda p: p.id == "x") == 0
    assert node.each("gpu") == [cat.get(GPU), cat.get(GPU)]
    assert node.first("gpu") == cat.get(GPU) and node.first("psu") is None
    assert node.has("gpu") and node.has("other")
    assert not node.has("switch") and not node.has("psu")
    assert not node.server_platform
    assert node.of("psu") == []
    assert node.build.name == "t"


def test_each_repeats_in_build_order() -> None:
    cat = load_catalog()
    node = _node(_part(W5, 1), _part(W9, 2))
    assert [p.id for p in node.each("cpu")] == [W5, W9, W9]
    assert node.count("cpu", lambda p: p.id == W9) == 2
    assert node.first("cpu") == cat.get(W5)


def test_a_server_platform_line() -> None:
    node = _node(LineItem(text="DGX", category="server-platform"))
    assert node.server_platform and node.has("server-platform")


def test_channels_the_node_drives() -> None:
    # The fewer of board and CPU, per populated socket.
    assert _node(_part(W790), _part(W5)).memory_channels() == 4      # min(8, 4)
    assert _node(_part(W790), _part(W9)).memory_channels() == 8      # min(8, 8)
    assert _node(_part(W790)).memory_channels() == 8                 # the board alone, 1 socket
    assert _node(_part(W9)).memory_channels() == 8                   # a CPU alone
    assert _node(_part(W9, 2)).memory_channels() == 16               # two CPUs, no board
    # Two sockets: 12 x 2 with both CPUs, 12 x 1 with one; the board alone counts its sockets.
    assert _node(_part(TURIN2), _part(EPYC, 2)).memory_channels() == 24
    assert _node(_part(TURIN2), _part(EPYC, 1)).memory_channels() == 12
    assert _node(_part(TURIN2)).memory_channels() == 24
    assert _node(_part(GPU)).memory_channels() is None


def test_channels_with_figures_missing() -> None:
    cat = load_catalog()
    parts = dict(cat.parts)
    board = cat.get(TURIN2)
    parts["board-x"] = replace(board, id="board-x", specs=replace(board.specs, cpu_sockets=None))
    mine = Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)
    # A board that states no socket count: one socket.
    assert _node(_part("board-x"), cat=mine).memory_channels() == 12
    # A board without a channel figure (a desktop board): the CPU's.
    assert _node(_part(DESKTOP), _part(W9)).memory_channels() == 8
    assert _node(_part(DESKTOP)).memory_channels() is None


def test_a_finding_keeps_its_fields_and_makes_numbers_floats() -> None:
    made = finding("x.y", Severity.ADVICE, Msg("t", "t"), Msg("d", "d"), Msg("f", "f"), "src",
                   watts=850, share=0.5)
    assert (made.code, made.severity, made.title, made.detail, made.fix, made.source) == (
        "x.y", Severity.ADVICE, Msg("t", "t"), Msg("d", "d"), Msg("f", "f"), "src")
    assert made.numbers == {"watts": 850.0, "share": 0.5}
    assert type(made.numbers["watts"]) is float
