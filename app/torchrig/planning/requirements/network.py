"""The network between nodes that a plan uses: the workload's ``network`` and ``nics_per_node``
(``torchrig plan --network ib_ndr --nics-per-node 8``) over the device's own, so the scaling
model, the model-parallel step and the serving transfers all read one ``inter_link``; and, when
a run spans nodes with no network known, the assumption that says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.i18n import Msg
from torchrig.planning.requirements.types import Assumption
from torchrig.planning.workload import Workload
from torchrig.planning.workload_fields import NETWORKS

if TYPE_CHECKING:
    from torchrig.planning.device import DeviceSpec


NETWORK_ASSUMPTION = "network"
"""The key of the assumption :func:`on_network` adds: a run over several nodes with no network
given (planning/assumed_settings.py reads it to say so among the settings not given)."""


def on_network(w: Workload, gpu: DeviceSpec | None, assumptions: list[Assumption]
               ) -> DeviceSpec | None:
    """``gpu`` with the workload's network between nodes (and its ports per node) in place of
    its own; unchanged where the workload names none. With several nodes and no network from
    either, adds the "network" assumption: the time is then the perfect-scaling upper bound
    (docs/estimation.md sec. 6.1)."""
    if gpu is None:
        return None
    # DeviceSpec (planning/device.py) is a dataclass, loaded only with a GPU: a plan without
    # one never gets here, nor imports dataclasses (issue 27).
    from dataclasses import replace

    if w.network is not None:
        from torchrig.planning.links import LINKS  # with a GPU only, as the device model

        gpu = replace(gpu, inter_link=LINKS[w.network])
    if w.nics_per_node is not None:
        gpu = replace(gpu, nics_per_node=w.nics_per_node)
    if w.nodes > 1 and gpu.inter_link is None:
        ids = ", ".join(NETWORKS)
        assumptions.append(Assumption(NETWORK_ASSUMPTION, Msg(
            f"no network between the {w.nodes} nodes given: the time assumes perfect scaling "
            f"across them, an upper bound; give --network ({ids}) and --nics-per-node",
            # The ids read as code only behind the option (the zh text has no English words).
            f"未给出 {w.nodes} 个节点之间的网络：时间按跨节点理想扩展计算，为上界；可用 "
            + "、".join(f"--network {i}" for i in NETWORKS) + " 与 --nics-per-node 指定")))
    return gpu


__all__ = ["NETWORK_ASSUMPTION", "on_network"]
