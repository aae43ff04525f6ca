"""Physical fit: cards and coolers against the case, the board against the case, card
thickness against the board's slot spacing, the cooler against the CPU, passive cards' airflow.

Each check runs only when the catalog knows both sides (a length, a clearance, a slot position);
an unknown dimension is never guessed.
"""

from __future__ import annotations

import re

from torchrig.builds.check_node import FORM_FACTOR_SPECS, Node, finding
from torchrig.builds.system_parts import node_system
from torchrig.catalog.model import Part
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg, counted

FIT_SOURCE = Msg("maker specifications (card length and thickness, case clearances, board "
                 "layout)", "厂商规格（显卡长度与厚度、机箱净空、主板布局）")
PASSIVE_SOURCE = Msg("NVIDIA data sheets: passively cooled data-centre cards rely on the server "
                     "chassis' airflow (docs/hardware-sources.md section 6)",
                     "NVIDIA 数据手册：被动散热的数据中心卡依靠服务器机箱风道（硬件参考第 6 节）")
COOLER_SOURCE = Msg("cooler maker's heat-load rating; CPU maker's power figures",
                    "散热器厂商的散热功耗标称；CPU 厂商的功耗数据")
THICK_CARD_SLOTS = 2.5
"""Cards thicker than this (3 to 3.5 slots) cover the next x16 slot on most desktop boards."""

_FORM_ALIASES = {"EATX": "E-ATX", "MATX": "MICRO-ATX", "UATX": "MICRO-ATX",
                 "MINIITX": "MINI-ITX", "ITX": "MINI-ITX", "SSIEEB": "SSI-EEB"}


def _form(text: str) -> str:
    key = re.sub(r"[\s_]", "", text.upper())
    return _FORM_ALIASES.get(key.replace("-", ""), key)


def socket_matches(cooler_socket: str, cpu_socket: str) -> bool:
    """A cooler's listed socket against a CPU's: ``LGA115x`` stands for a family (a trailing
    ``x`` matches any characters), comparison ignores case and spaces."""
    pattern = re.sub(r"\s", "", cooler_socket.upper())
    cpu = re.sub(r"\s", "", cpu_socket.upper())
    if pattern.endswith("X") and len(pattern) > 2:
        return cpu.startswith(pattern[:-1])
    return pattern == cpu


def fit_checks(node: Node) -> list[Finding]:
    out: list[Finding] = []
    out += _gpu_length(node)
    out += _cooler(node)
    out += _board_form(node)
    out += _slot_spacing(node)
    out += _passive(node)
    out += _module(node)
    return out


def _gpu_length(node: Node) -> list[Finding]:
    case = node.first("case")
    if case is None or case.case.max_gpu_length_mm is None:
        return []
    limit = case.case.max_gpu_length_mm
    out = []
    for line in node.of("gpu"):
        length = line.part.gpu.length_mm
        if length is None or length <= limit:
            continue
        out.append(finding(
            "fit.gpu_length", Severity.BLOCKER,
            Msg("The GPU is too long for the case", "显卡过长，机箱装不下"),
            Msg(f"{line.part.name} is {length:.0f} mm long; {case.name} takes cards up to "
                f"{limit:.0f} mm (less with a front radiator).",
                f"{line.part.name} 长 {length:.0f} mm；{case.name} 最长支持 {limit:.0f} mm"
                "（装前置冷排时更短）。"),
            Msg(f"Choose a case with at least {length:.0f} mm GPU clearance, or a shorter card.",
                f"选择显卡限长不少于 {length:.0f} mm 的机箱，或更短的显卡。"),
            FIT_SOURCE, gpu_length_mm=length, max_gpu_length_mm=limit))
    return out


def _cooler(node: Node) -> list[Finding]:
    cooler = node.first("cpu_cooler")
    if cooler is None:
        return []
    c = cooler.cooler
    out: list[Finding] = []
    case = node.first("case")
    if (case is not None and c.kind == "air" and c.height_mm is not None
            and case.case.max_cooler_height_mm is not None
            and c.height_mm > case.case.max_cooler_height_mm):
        limit = case.case.max_cooler_height_mm
        out.append(finding(
            "fit.cooler_height", Severity.BLOCKER,
            Msg("The CPU cooler is too tall for the case", "CPU 散热器过高，机箱装不下"),
            Msg(f"{cooler.name} is {c.height_mm:.0f} mm tall; {case.name} takes coolers up to "
                f"{limit:.0f} mm.",
                f"{cooler.name} 高 {c.height_mm:.0f} mm；{case.name} 最高支持 {limit:.0f} mm。"),
            Msg("Choose a lower cooler, a liquid cooler or a wider case.",
                "选择更矮的散热器、水冷散热器或更宽的机箱。"),
            FIT_SOURCE, cooler_height_mm=c.height_mm, max_cooler_height_mm=limit))
    cpu = node.first("cpu")
    if cpu is None:
        return out
    socket = cpu.cpu.socket
    if socket and c.sockets and not any(socket_matches(s, socket) for s in c.sockets):
        out.append(finding(
            "fit.cooler_socket", Severity.BLOCKER,
            Msg("The CPU cooler does not mount on this socket", "CPU 散热器不支持该插槽"),
            Msg(f"{cooler.name} lists {', '.join(c.sockets)}; {cpu.name} uses {socket}.",
                f"{cooler.name} 支持 {', '.join(c.sockets)}；{cpu.name} 为 {socket}。"),
            Msg(f"Choose a cooler with a {socket} mount (or the maker's mounting kit).",
                f"选择支持 {socket} 的散热器（或厂商的扣具套件）。"),
            FIT_SOURCE))
    heat = c.rated_heat_w
    base, peak = cpu.cpu.tdp_w, cpu.cpu.max_turbo_power_w
    if heat is not None and base is not None and heat < base:
        out.append(_cooler_rating(cooler, cpu, heat, base, Severity.WARNING,
                                  Msg("base power", "基础功耗")))
    elif heat is not None and peak is not None and heat < peak:
        out.append(_cooler_rating(cooler, cpu, heat, peak, Severity.ADVICE,
                                  Msg("maximum power", "最大功耗")))
    elif heat is None and (peak or base or 0) > UNRATED_COOLER_CPU_W:
        # Many makers publish no watt rating (Noctua none at all): say the check could not
        # be made for a CPU that needs a capable cooler, instead of passing it in silence.
        cpu_w = peak or base or 0
        out.append(finding(
            "fit.cooler_unrated", Severity.ADVICE,
            Msg("The CPU cooler's heat rating is unknown", "CPU 散热器的额定散热未知"),
            Msg(f"The catalog has no heat-load rating for {cooler.name}; {cpu.name} draws up "
                f"to {cpu_w:.0f} W under long all-core loads.",
                f"目录中没有 {cooler.name} 的额定散热数据；{cpu.name} 长时间全核负载时最高 "
                f"{cpu_w:.0f} W。"),
            Msg(f"Check the maker's rating or a review's sustained-load test for at least "
                f"{cpu_w:.0f} W, or set a lower CPU power limit.",
                f"查阅厂商额定值或评测中的持续负载测试，确认可承受至少 {cpu_w:.0f} W，"
                "或调低 CPU 功耗上限。"),
            COOLER_SOURCE, cpu_w=cpu_w))
    return out


UNRATED_COOLER_CPU_W = 125.0
"""Above this CPU power (Intel's K-series base power) a cooler of unknown rating is worth a
check; below it, any cooler that mounts copes."""


def _cooler_rating(cooler: Part, cpu: Part, heat: float, cpu_w: float, severity: Severity,
                   which: Msg) -> Finding:
    return finding(
        "fit.cooler_rating", severity,
        Msg("The CPU cooler is rated below the CPU's power", "CPU 散热器额定散热低于 CPU 功耗"),
        Msg(f"{cooler.name} is rated for {heat:.0f} W; {cpu.name}'s {which.en} is "
            f"{cpu_w:.0f} W. Under long all-core loads (data loading, preprocessing) the CPU "
            "will clock down.",
            f"{cooler.name} 额定散热 {heat:.0f} W；{cpu.name} 的{which.zh}为 {cpu_w:.0f} W。"
            "长时间全核负载（数据加载、预处理）时 CPU 会降频。"),
        Msg(f"Choose a cooler rated for at least {cpu_w:.0f} W (a tower or a 360 mm liquid "
            "cooler), or set a lower CPU power limit.",
            f"选择额定散热不低于 {cpu_w:.0f} W 的散热器（塔式或 360 mm 水冷），"
            "或调低 CPU 功耗上限。"),
        COOLER_SOURCE,
        rated_heat_w=heat, cpu_w=cpu_w)


def _board_form(node: Node) -> list[Finding]:
    case, board = node.first("case"), node.first("motherboard")
    if case is None or board is None:
        return []
    forms = case.case.board_form_factors
    form = board.motherboard.form_factor
    if not forms or not form or _form(form) in {_form(f) for f in forms}:
        return []
    return [finding(
        "fit.board_form", Severity.BLOCKER,
        Msg("The motherboard does not fit the case", "主板尺寸与机箱不匹配"),
        Msg(f"{board.name} is {form}; {case.name} takes {', '.join(forms)}.",
            f"{board.name} 为 {form}；{case.name} 支持 {', '.join(forms)}。"),
        Msg(f"Choose a case that takes {form} boards.", f"选择支持 {form} 主板的机箱。"),
        FIT_SOURCE)]


def _slot_spacing(node: Node) -> list[Finding]:
    """Two thick cards cannot sit in x16 slots closer together than their thickness."""
    board = node.first("motherboard")
    cards = [p for p in node.each("gpu") if p.gpu.form_factor == "pcie"]
    if board is None or len(cards) < 2 or any(p.gpu.slot_width is None for p in cards):
        return []
    widths = [p.gpu.slot_width or 0.0 for p in cards]
    positions = board.motherboard.x16_slot_positions
    fix = Msg("Use blower-style or liquid-cooled cards (2 slots), a workstation board with "
              "wider slot spacing (TRX50, WRX90, W790), or riser cables into a chassis made for "
              "them.",
              "改用涡轮（鼓风）式或水冷显卡（2 槽），或槽间距更大的工作站主板"
              "（TRX50、WRX90、W790），或使用延长线配合相应机箱。")
    if len(positions) >= len(cards):
        out = []
        for i in range(len(cards) - 1):
            gap = positions[i + 1] - positions[i]
            if widths[i] <= gap:
                continue
            out.append(finding(
                "fit.gpu_slot_spacing", Severity.BLOCKER,
                Msg("The GPUs do not fit side by side", "显卡并排插不下"),
                Msg(f"{cards[i].name} is {widths[i]:g} slots thick; {board.name}'s x16 slots "
                    f"{positions[i]} and {positions[i + 1]} are {counted(gap, 'slot', 'slots')} "
                    "apart, so it "
                    "covers the next one.",
                    f"{cards[i].name} 厚 {widths[i]:g} 槽；{board.name} 的 x16 插槽 "
                    f"{positions[i]} 与 {positions[i + 1]} 相距 {gap} 槽，会挡住下一个插槽。"),
                fix, FIT_SOURCE, slot_width=widths[i], slot_gap=gap))
        return out + _case_slots(node, cards, widths, positions)
    if max(widths) <= THICK_CARD_SLOTS:
        return _case_slots(node, cards, widths, ())
    return [finding(
        "fit.gpu_slot_spacing_unknown", Severity.WARNING,
        Msg("Check that the GPUs fit side by side", "请确认显卡能否并排安装"),
        Msg(f"{len(cards)} cards up to {max(widths):g} slots thick; the catalog does not have "
            f"{board.name}'s slot positions. Two cards this thick do not fit in adjacent x16 "
            "slots: each needs its thickness in free slots below it.",
            f"{len(cards)} 块显卡，最厚 {max(widths):g} 槽；目录中没有 {board.name} 的插槽位置。"
            "这么厚的两块卡无法插在相邻的 x16 插槽上：每块卡下方需要留出与其厚度相同的空位。"),
        fix, FIT_SOURCE, cards=len(cards), slot_width=max(widths)),
        *_case_slots(node, cards, widths, ())]


def _case_slots(node: Node, cards: list[Part], widths: list[float],
                positions: tuple[int, ...]) -> list[Finding]:
    case = node.first("case")
    if case is None or case.case.expansion_slots is None:
        return []
    have = case.case.expansion_slots
    if positions:
        last = positions[len(cards) - 1]
        need = last - 1 + widths[len(cards) - 1]
    else:
        need = sum(widths)
    if need <= have:
        return []
    return [finding(
        "fit.case_slots", Severity.BLOCKER,
        Msg("The case has too few expansion slots for the GPUs", "机箱扩展槽位不够放下显卡"),
        Msg(f"The cards need {need:g} expansion slots; {case.name} has {have}.",
            f"显卡共需 {need:g} 个扩展槽位；{case.name} 只有 {have} 个。"),
        Msg("Choose a full tower with more expansion slots, or thinner cards.",
            "选择扩展槽位更多的全塔机箱，或更薄的显卡。"),
        FIT_SOURCE, slots_needed=need, slots=have)]


def _passive(node: Node) -> list[Finding]:
    passive = sorted({p.name for p in node.each("gpu") if p.gpu.cooling == "passive"})
    if not passive:
        return []
    case = node.first("case")
    if node.server_platform or node_system(node) is not None or (
            case is not None and case.case.kind == "rackmount"):
        return []
    where = (Msg(f"{case.name} is a desktop case", f"{case.name} 是台式机箱") if case else
             Msg("the build has no server chassis", "配置中没有服务器机箱"))
    return [finding(
        "fit.passive_gpu", Severity.WARNING,
        Msg("Passively cooled GPUs need server airflow", "被动散热 GPU 需要服务器风道"),
        Msg(f"{', '.join(passive)} have no fan and rely on the chassis pushing air through "
            f"their heatsink; {where.en}. In a desktop case they overheat and throttle.",
            f"{'、'.join(passive)} 没有风扇，依靠机箱强制风流通过散热片；{where.zh}。"
            "放在台式机箱中会过热降频。"),
        Msg("Use a GPU server chassis with front-to-back airflow, or actively cooled "
            "workstation cards (RTX 6000 Ada).",
            "使用前进后出风道的 GPU 服务器机箱，或改用主动散热的工作站显卡"
            "（RTX 6000 Ada）。"),
        PASSIVE_SOURCE)]


def _module(node: Node) -> list[Finding]:
    """A GPU module (Jetson) is a computer of its own, not a card for a PC board."""
    if node.first("motherboard") is None:
        return []
    modules = sorted({p.name for p in node.each("gpu") if p.gpu.form_factor == "module"})
    if not modules:
        return []
    return [finding(
        "fit.gpu_module", Severity.BLOCKER,
        Msg("A GPU module does not plug into a PC board", "GPU 模组不能插在 PC 主板上"),
        Msg(f"{', '.join(modules)} is a system-on-module with its own CPU and memory; it "
            "mounts on its own carrier board, not in a PCIe slot.",
            f"{'、'.join(modules)} 是自带 CPU 和内存的系统模组，安装在专用载板上，"
            "不能插在 PCIe 插槽中。"),
        Msg("Quote it as its own system (with its carrier board), or choose a PCIe card.",
            "将其作为独立系统（含载板）报价，或改选 PCIe 显卡。"),
        FORM_FACTOR_SPECS)]
