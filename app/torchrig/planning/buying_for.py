"""What a GPU recommendation is bought for: the machine in hand, not only the workload.

A recommendation a buyer can act on depends on the machine it goes into. A workstation (a
desktop board, case and power supply) takes PCIe cards, and only those its fit checks pass; a
server takes PCIe server cards, and SXM/OAM modules only as the whole server the catalog sells
(a module is not sold alone: gpu_choice.BASEBOARD_GPUS). The kind of machine is read from the
build's own catalog fields - a complete system (builds/system_parts.py), an SXM baseboard, a
custom server-platform line, socketed GPUs - and a tier is read as its starter build. With no
build in hand the workload decides, as before, and the line says which machine it assumed.

The fit of a card is the Build page's own question ("would this GPU work in this build
instead?", builds/part_fit.py), asked once per build and kept; nothing is checked twice here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from torchrig.builds.check_node import Node
from torchrig.builds.part_fit import compatible_parts
from torchrig.builds.system_parts import is_system
from torchrig.catalog.specs import SOCKETED_GPU_FORMS
from torchrig.i18n import Msg, counted
from torchrig.planning.gpu_choice import BASEBOARD_GPUS, buyable_for, candidate_gpus
from torchrig.records import record

if TYPE_CHECKING:
    from torchrig.builds.build import Build
    from torchrig.builds.capabilities import Capabilities
    from torchrig.catalog.model import Catalog, Part
    from torchrig.planning.workload import Workload

MachineKind = Literal["workstation", "server", "workload"]


@record
class BuyingFor:
    """The machine a recommendation is for.

    Attributes:
        kind: "workstation" or "server" (read from a build), or "workload" (no build in hand:
            the workload's GPUs per node decide, :func:`gpu_choice.buyable_for`).
        fitting: ids of the catalog GPUs that fit the build in place of its GPUs, as many as
            the workload uses a node (builds/part_fit.compatible_parts).
        systems: the catalog's whole servers with SXM/OAM sockets (a complete system whose
            baseboard names its socket generation): how such modules can be bought.
        takes_cards: the build's board has PCIe GPU slots (False for an SXM-only baseboard:
            PCIe cards would need another server).
    """

    kind: MachineKind
    fitting: frozenset[str] = frozenset()
    systems: tuple[Part, ...] = ()
    takes_cards: bool = True

    def system_for(self, part: Part, w: Workload) -> Part | None:
        """The whole server ``part`` is bought in for ``w``: a catalog system whose sockets take
        its module generation, with as many sockets as the workload's GPUs per node."""
        form = part.gpu.form_factor
        return next((s for s in self.systems if s.motherboard.sxm_gpu_form == form
                     and s.motherboard.sxm_gpu_slots == w.gpus_per_node), None)

    def allows(self, part: Part, w: Workload) -> bool:
        """Whether a buyer can put ``part`` into this machine for ``w``."""
        form = part.gpu.form_factor or "pcie"
        if self.kind == "workload":
            return buyable_for(part, w)
        if form in SOCKETED_GPU_FORMS:
            return self.kind == "server" and self.system_for(part, w) is not None
        if form != "pcie" or not buyable_for(part, w):
            return False
        if self.kind == "workstation":
            return part.id in self.fitting
        # A server cools its cards front to back: blower, passive or liquid (catalog field
        # "cooling"), the coolers the build check accepts side by side.
        return part.gpu.cools_side_by_side() and (part.id in self.fitting
                                                  or not self.takes_cards)

    def line(self, w: Workload, pick: Part | None) -> Msg:
        """What the recommendation is for, in words (with the pick: the whole server it is
        bought as, when it is a module). Without a pick for a build it says that none of that
        kind runs the workload: "no catalog GPU fits" must not read as contradicting a
        headline that says the build's own GPUs fit."""
        said = self._said(w, pick)
        if pick is not None or self.kind == "workload":
            return said
        return Msg(f"{said.en} None of them runs this workload.",
                   f"{said.zh}其中没有能运行此工作负载的 GPU。")

    def _said(self, w: Workload, pick: Part | None) -> Msg:
        n = w.gpus_per_node
        if self.kind == "workstation":
            many = Msg("", "") if n == 1 else Msg(f", {n} of them", f"，共 {n} 块")
            return Msg("For this workstation: PCIe cards that fit its case and power supply"
                       f"{many.en}.", f"适用于这台工作站：装得进其机箱、其电源带得动的 PCIe 显卡"
                       f"{many.zh}。")
        if self.kind == "workload":
            if n in BASEBOARD_GPUS:
                return Msg(f"No build to check against: assumed a server of {n} GPUs - PCIe "
                           "cards, or SXM modules bought as a whole server.",
                           f"没有可核对的配置单：按 {n} 卡服务器推荐——PCIe 显卡，或整机购买的 SXM "
                           "模组。")
            return Msg("No build to check against: assumed a workstation with "
                       f"{counted(n, 'GPU', 'GPUs')} - PCIe cards.",
                       f"没有可核对的配置单：按 {n} 卡工作站推荐——PCIe 显卡。")
        system = None if pick is None else self.system_for(pick, w)
        if pick is not None and system is not None:
            price = (Msg("", "") if system.prices else
                     Msg(" The catalog has no price for the whole system; the price shown is "
                         "one module's.", "目录中没有整机价格；所示价格为单个模组的价格。"))
            return Msg(f"For this server: {pick.name} only as the whole {system.name}, "
                       f"{counted(n, 'GPU', 'GPUs')} - not as loose modules.{price.en}",
                       f"适用于这台服务器：{pick.name} 只能随整机 {system.name}（{n} 块 GPU）"
                       f"购买，不单独购买模组。{price.zh}")
        cards = (Msg("PCIe server cards (blower, passive or liquid cooling) that fit it",
                     "装得进这台服务器的 PCIe 服务器卡（涡轮、被动或液冷散热）")
                 if self.takes_cards else
                 Msg("PCIe server cards (blower, passive or liquid cooling) in a PCIe server "
                     "(this baseboard takes SXM modules only)",
                     "PCIe 服务器卡（涡轮、被动或液冷散热），装在 PCIe 服务器中（此基板只接受 "
                     "SXM 模组）"))
        if any(s.motherboard.sxm_gpu_slots == n for s in self.systems):
            sxm = Msg("; SXM modules only as a whole server the catalog sells.",
                      "；SXM 模组只能随目录中的整机购买。")
        else:
            sxm = Msg(f"; the catalog sells no whole SXM server of {counted(n, 'GPU', 'GPUs')}, "
                      "so no SXM module.",
                      f"；目录中没有 {n} 卡的 SXM 整机，因此不推荐 SXM 模组。")
        return Msg(f"For this server: {cards.en}{sxm.en}", f"适用于这台服务器：{cards.zh}{sxm.zh}")


def _is_server(node: Node) -> bool:
    """A complete system or an SXM baseboard, a custom server-platform line, or socketed GPU
    modules (which only a server's baseboard takes)."""
    boards = [line.part for line in node.of("motherboard")]
    return (node.server_platform or any(is_system(b) or b.motherboard.sxm_gpu_slots
                                        for b in boards)
            or any(line.part.gpu.form_factor in SOCKETED_GPU_FORMS for line in node.of("gpu")))


def buying_for_build(build: Build, catalog: Catalog, gpus: int) -> BuyingFor:
    """The machine ``build`` is: a server, a workstation, or - with no board, case, power
    supply or GPU from the catalog to judge by - unknown, so the workload decides. A card
    fits when ``gpus`` of it (the workload's per node) add no blocker to the build: eight
    cards on a two-slot desktop board do not, whatever one of them would."""
    node = Node(build, catalog)
    systems = tuple(p for p in catalog.by_category("motherboard")
                    if is_system(p) and p.motherboard.sxm_gpu_slots
                    and p.motherboard.sxm_gpu_form)
    server = _is_server(node)
    if not server and not any(node.of(c) for c in ("motherboard", "case", "psu", "gpu")):
        return BuyingFor("workload", systems=systems)
    fitting = frozenset(compatible_parts(candidate_gpus(catalog), build, catalog,
                                         quantity=gpus))
    board = node.first("motherboard")
    takes_cards = board is None or bool(board.motherboard.gpu_lane_configs) \
        or not board.motherboard.sxm_gpu_slots
    return BuyingFor("server" if server else "workstation", fitting, systems, takes_cards)


_CACHE: dict[tuple[str, int, int], tuple[Catalog, BuyingFor]] = {}
"""One answer per build's parts (builds.build.lines_fingerprint: parts, quantities, scope and
nodes, which is all the fit checks read): the Wizard re-plans the same build on every edit."""


def buying_for(subject: Capabilities | None, catalog: Catalog, gpus: int = 1) -> BuyingFor:
    """The machine a recommendation for ``subject`` is bought for, with ``gpus`` cards a node:
    its build (a tier's is its starter build), or the workload's assumption when there is
    none (this machine, or no subject)."""
    from torchrig.builds.build import lines_fingerprint

    build = None if subject is None else subject.build
    if build is None:
        return BuyingFor("workload")
    key = (lines_fingerprint(build.line_items, build.nodes), id(catalog), gpus)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is catalog:
        return cached[1]
    answer = buying_for_build(build, catalog, gpus)
    if len(_CACHE) >= 16:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (catalog, answer)
    return answer
