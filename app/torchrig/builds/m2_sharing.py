"""M.2 drives on the board: more drives than slots, and what each drive's slot takes away.

With the board manual's sharing map (``m2_slot_map``) the drives are placed as a builder
would: first in the slots that share nothing, then in those whose loss the build does not
feel (a SATA-sharing slot when no SATA drive is fitted, a GPU-sharing slot when no card sits in
the first x16 slot), and only then in the rest; a finding names the slot and what it
disables. Without a map the board's two flags give the older, coarser warnings.
"""

from __future__ import annotations

from torchrig.builds.check_node import BOARD_MANUAL, BOARD_SPECS, Node, finding
from torchrig.catalog.model import Part
from torchrig.catalog.specs import M2Slot
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg, counted


def m2_drives(node: Node) -> int:
    """NVMe drives in the M.2 form factor (a U.2 drive needs no M.2 slot)."""
    return node.count("storage", lambda p: p.storage.kind == "nvme"
                      and (p.storage.form_factor or "").upper().startswith("M.2"))


def sata_drives(node: Node) -> int:
    return node.count("storage", lambda p: p.storage.kind in ("sata-ssd", "hdd"))


def m2_slot_count(node: Node) -> list[Finding]:
    board = node.first("motherboard")
    if board is None or board.motherboard.m2_slots is None:
        return []
    slots = board.motherboard.m2_slots
    m2 = m2_drives(node)
    if m2 <= slots:
        return []
    return [finding(
        "compat.m2_slots", Severity.BLOCKER,
        Msg("More M.2 drives than M.2 slots", "M.2 硬盘数量超过 M.2 插槽数"),
        Msg(f"{m2} M.2 NVMe drives; {board.name} has {slots} M.2 slots.",
            f"{m2} 块 M.2 NVMe 硬盘；{board.name} 只有 {slots} 个 M.2 插槽。"),
        Msg("Use fewer, larger drives or a PCIe M.2 adapter card.",
            "改用数量更少、容量更大的硬盘，或使用 PCIe 转 M.2 扩展卡。"),
        BOARD_SPECS, drives=m2, slots=slots)]


def m2_sharing(node: Node) -> list[Finding]:
    board = node.first("motherboard")
    if board is None:
        return []
    if board.motherboard.m2_slot_map:
        return _assigned(node, board, board.motherboard.m2_slot_map)
    return _flags(node, board)


def _first_card_lanes(node: Node) -> int | None:
    """The lanes the card in the first x16 slot uses (None: no PCIe card)."""
    cards = [p for p in node.each("gpu") if p.gpu.form_factor == "pcie"]
    return (cards[0].gpu.pcie_lanes or 16) if cards else None


def place_drives(slots: tuple[M2Slot, ...], drives: int, card_lanes: int | None,
                 sata: int) -> list[M2Slot]:
    """The slots ``drives`` M.2 drives go in: those that share nothing first, then those
    whose sharing costs this build nothing, then the rest, each group in the manual's order."""

    def cost(slot: M2Slot) -> tuple[int, int]:
        hurts_gpu = (slot.gpu_slot_lanes is not None and card_lanes is not None
                     and card_lanes > slot.gpu_slot_lanes)
        hurts_sata = bool(slot.sata_ports_off) and sata > 0
        return (2 * hurts_gpu + hurts_sata, int(slot.shares))

    order = sorted(range(len(slots)), key=lambda i: (*cost(slots[i]), i))
    return [slots[i] for i in sorted(order[:drives])]


def _assigned(node: Node, board: Part, slots: tuple[M2Slot, ...]) -> list[Finding]:
    drives, sata = m2_drives(node), sata_drives(node)
    card_lanes = _first_card_lanes(node)
    used = place_drives(slots, min(drives, len(slots)), card_lanes, sata)
    placed = _placed(", ".join(s.name for s in used if not s.shares))
    out: list[Finding] = []
    for slot in used:
        if (slot.gpu_slot_lanes is not None and card_lanes is not None
                and card_lanes > slot.gpu_slot_lanes):
            out.append(finding(
                "board.m2_gpu_lanes", Severity.WARNING,
                Msg(f"M.2 slot {slot.name} takes lanes from the GPU slot",
                    f"M.2 插槽 {slot.name} 占用 GPU 插槽的通道"),
                Msg(f"{counted(drives, 'M.2 drive', 'M.2 drives')} on {board.name}: "
                    f"{placed.en}{slot.name} shares CPU lanes with the first x16 "
                    f"slot, which drops to x{slot.gpu_slot_lanes} when {slot.name} is used, "
                    f"so the GPU runs at x{slot.gpu_slot_lanes} instead of x{card_lanes}.",
                    f"{board.name} 上 {drives} 块 M.2 硬盘：{placed.zh}{slot.name} 与"
                    f"第一个 x16 插槽共享 CPU 通道，使用 {slot.name} 时该插槽降为 "
                    f"x{slot.gpu_slot_lanes}，GPU 以 x{slot.gpu_slot_lanes} 而非 x{card_lanes} "
                    "运行。"),
                Msg(f"Use one drive fewer, a larger drive, or a PCIe M.2 adapter in a chipset "
                    f"slot, to keep {slot.name} empty.",
                    f"少用一块硬盘、改用更大容量的硬盘，或在芯片组插槽上用 PCIe 转 M.2 扩展卡，"
                    f"让 {slot.name} 空着。"),
                BOARD_MANUAL, m2_drives=drives, gpu_lanes=slot.gpu_slot_lanes,
                card_lanes=card_lanes))
        if slot.sata_ports_off and sata:
            ports = ", ".join(str(p) for p in slot.sata_ports_off)
            out.append(finding(
                "board.m2_sata", Severity.ADVICE,
                Msg(f"M.2 slot {slot.name} disables SATA ports",
                    f"M.2 插槽 {slot.name} 会禁用 SATA 接口"),
                Msg(f"{board.name}: using {slot.name} turns off SATA port(s) {ports}; the build "
                    f"has {counted(sata, 'SATA drive', 'SATA drives')}.",
                    f"{board.name}：使用 {slot.name} 会关闭 SATA 接口 {ports}；配置中有 {sata} "
                    "块 SATA 硬盘。"),
                Msg(f"Connect the SATA drives to ports other than {ports}.",
                    f"把 SATA 硬盘接在 {ports} 以外的接口上。"),
                BOARD_MANUAL, m2_drives=drives, sata_drives=sata,
                sata_ports_off=len(slot.sata_ports_off)))
    return out


def _placed(free: str) -> Msg:
    """The slots that share nothing, named before the one that does."""
    if not free:
        return Msg("", "")
    return Msg(f"{free} share nothing and are used first; ", f"{free} 不共享通道，先用；")


def _flags(node: Node, board: Part) -> list[Finding]:
    """Boards the catalog knows only as "some M.2 slot shares": the coarse warnings."""
    b = board.motherboard
    m2 = m2_drives(node)
    out = []
    if b.m2_gpu_lane_sharing and m2 and node.count("gpu"):
        out.append(finding(
            "board.m2_gpu_lanes", Severity.WARNING,
            Msg("An M.2 drive can take lanes from the GPU slot", "M.2 硬盘可能占用 GPU 插槽的通道"),
            Msg(f"{board.name} shares CPU lanes between an M.2 slot and the first x16 slot: "
                "with that M.2 slot filled the GPU runs at x8.",
                f"{board.name} 的某个 M.2 插槽与第一个 x16 插槽共享 CPU 通道："
                "该 M.2 插槽插上硬盘后 GPU 以 x8 运行。"),
            Msg("Put the drives in the M.2 slots wired to the chipset (see the manual's "
                "lane-sharing table).",
                "把硬盘装在连接芯片组的 M.2 插槽上（见主板手册的通道共享表）。"),
            BOARD_MANUAL, m2_drives=m2))
    sata = sata_drives(node)
    if b.m2_sata_sharing and m2 and sata:
        out.append(finding(
            "board.m2_sata", Severity.ADVICE,
            Msg("An M.2 drive can disable SATA ports", "M.2 硬盘可能禁用 SATA 接口"),
            Msg(f"{board.name} turns off SATA ports when a shared M.2 slot is used; the build "
                f"has {m2} M.2 and {counted(sata, 'SATA drive', 'SATA drives')}.",
                f"{board.name} 的共享 M.2 插槽插上硬盘时会禁用部分 SATA 接口；"
                f"配置中有 {m2} 块 M.2 与 {sata} 块 SATA 硬盘。"),
            Msg("Check the manual and connect the SATA drives to ports that stay on.",
                "查阅手册，把 SATA 硬盘接在不受影响的接口上。"),
            BOARD_MANUAL, m2_drives=m2, sata_drives=sata))
    return out
