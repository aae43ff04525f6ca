"""What the build checks share: one node's catalog parts by category, and the finding maker.

Checks are per node (lines with scope "node"; "cluster" lines such as a switch are not part of
a node). Parts or fields the catalog does not know are skipped, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable

from torchrig.builds.build import SERVER_PLATFORM, Build
from torchrig.catalog.model import Catalog, Part
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg
from torchrig.records import record


@record
class NodeLine:
    part: Part
    quantity: int


class Node:
    """The catalog parts of one node, grouped by category, with quantities."""

    def __init__(self, build: Build, catalog: Catalog) -> None:
        self.build = build
        self.lines: dict[str, list[NodeLine]] = {}
        self.custom_categories: set[str] = set()
        for item in build.line_items:
            if item.scope != "node":
                continue
            if item.part_id is None:
                self.custom_categories.add(item.category)
                continue
            part = catalog.get(item.part_id)
            self.lines.setdefault(part.category, []).append(NodeLine(part, item.quantity))

    def of(self, category: str) -> list[NodeLine]:
        return self.lines.get(category, [])

    def first(self, category: str) -> Part | None:
        lines = self.of(category)
        return lines[0].part if lines else None

    def count(self, category: str, pred: Callable[[Part], bool] = lambda p: True) -> int:
        return sum(line.quantity for line in self.of(category) if pred(line.part))

    def memory_channels(self) -> int | None:
        """Memory channels the node really drives: the fewer of what the board wires and what
        the CPU has, per populated socket (a 4-channel Xeon W-2400 on a W790 board wired for
        8 runs 4; a dual-socket board with one CPU runs half its slots)."""
        board, cpu = self.first("motherboard"), self.first("cpu")
        per_socket = [n for n in (board.motherboard.memory_channels if board else None,
                                  cpu.cpu.memory_channels if cpu else None) if n]
        if not per_socket:
            return None
        sockets = (self.count("cpu") if cpu is not None
                   else board.motherboard.cpu_sockets if board is not None else None)
        return min(per_socket) * max(1, sockets or 1)

    def has(self, category: str) -> bool:
        return bool(self.of(category)) or category in self.custom_categories

    @property
    def server_platform(self) -> bool:
        """A custom server-platform line stands in for board, CPUs, chassis and supplies."""
        return SERVER_PLATFORM in self.custom_categories

    def each(self, category: str) -> list[Part]:
        """Every unit of a category, a part repeated by its quantity (in build order)."""
        return [line.part for line in self.of(category) for _ in range(line.quantity)]


BOARD_SPECS = Msg("vendor board specifications", "主板厂商规格")
BOARD_MANUAL = Msg("vendor board manual (lane sharing)", "主板说明书（通道共享）")
CPU_SPECS = Msg("vendor CPU specifications", "CPU 厂商规格")
FORM_FACTOR_SPECS = Msg("vendor form-factor specifications", "厂商外形规格")
LANE_PAYLOAD = Msg("PCIe payload per lane (docs/hardware-sources.md section 3)",
                   "PCIe 每通道有效带宽（硬件参考第 3 节）")
PSU_CONNECTOR_SPECS = Msg("GPU and PSU maker specifications", "GPU 与电源厂商规格")
"""Citations several checks share (a finding's ``source``)."""


def finding(code: str, severity: Severity, title: Msg, detail: Msg, fix: Msg, source: Msg | str,
            **numbers: float) -> Finding:
    return Finding(code=code, severity=severity, title=title, detail=detail, fix=fix,
                   source=source, numbers={k: float(v) for k, v in numbers.items()})
