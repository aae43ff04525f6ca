"""Servers sold as whole systems: a catalog "motherboard" that is really a complete machine
(system board, chassis with its fans and airflow, power supplies, CPU heatsinks), such as the
ASRock Rack 4U8G-TURIN2 or an NVIDIA DGX.

The build checks ask this module, not the board's fields one by one, whether a node's board is
such a system, so "no case", "no power supply", the passive-GPU airflow warning and the
supplies the power check counts all follow one rule.
"""

from __future__ import annotations

from torchrig.builds.check_node import Node
from torchrig.catalog.model import Part
from torchrig.records import record


def is_system(part: Part) -> bool:
    """A complete system: the catalog gives its chassis (``system_chassis``) or the supplies it
    ships with (``integrated_psu_w`` / ``redundant_psu_w``, known or said to be unknown)."""
    if part.category != "motherboard":
        return False
    b = part.motherboard
    return bool(b.system_chassis or b.integrated_psu_w or b.redundant_psu_w
                or "integrated_psu_w" in part.unknown_fields)


def node_system(node: Node) -> Part | None:
    """The node's board when it is a complete system, else None."""
    for line in node.of("motherboard"):
        if is_system(line.part):
            return line.part
    return None


@record
class SystemSupply:
    name: str
    watts: float


def system_supply(node: Node) -> SystemSupply | None:
    """The supplies a system ships with, as the power checks size them: by the redundant
    (N+1) rating when the catalog has one, since a server must run on N when one fails; else
    by the usable rating. None when no board gives one (the check is then skipped)."""
    for line in node.of("motherboard"):
        b = line.part.motherboard
        if b.redundant_psu_w:
            return SystemSupply(f"{line.part.name} (built-in, redundant)", b.redundant_psu_w)
        if b.integrated_psu_w:
            return SystemSupply(f"{line.part.name} (built-in)", b.integrated_psu_w)
    return None


def system_extra_slots(node: Node) -> int:
    """Full-width PCIe slots a system has beyond the ones its GPU wiring lists (for network
    adapters); 0 when the node has no system or the catalog does not give them."""
    system = node_system(node)
    return (system.motherboard.extra_x16_slots or 0) if system is not None else 0
