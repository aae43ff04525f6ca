"""Physical fit: cards and coolers against the case, the board against the case by size, a
radiator against the case's mounts, card
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
                 "MICROATX": "MICRO-ATX", "MINIITX": "MINI-ITX", "ITX": "MINI-ITX",
                 "SSIEEB": "SSI-EEB", "EEB": "SSI-EEB", "SSICEB": "SSI-CEB", "CEB": "SSI-CEB"}


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
    out += _radiator(node)
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
    """The board against the case by size: a case takes any board no larger than the biggest
    size it names (or its stated maximum), whatever the board's size is called."""
    case, board = node.first("case"), node.first("motherboard")
    if case is None or board is None:
        return []
    forms = case.case.board_form_factors
    form = board.motherboard.form_factor
    if not forms or not form or _form(form) in {_form(f) for f in forms}:
        return []
    size = board_size_mm(board)
    limit = case_board_limit_mm(case)
    if size is not None and limit is not None and _fits(size, limit):
        return []
    if size is not None and "E-ATX" in {_form(f) for f in forms} and not case.case.max_board_mm \
            and _fits(size, FORM_SIZES_MM["SSI-EEB"]):
        # "E-ATX" has no fixed size: the case may or may not take this deeper-than-ATX board.
        return [finding(
            "fit.board_size_unknown", Severity.ADVICE,
            Msg("Check that the motherboard fits the case", "请确认主板能否装入机箱"),
            Msg(f"{board.name} is {form}, {_mm(size)}; {case.name} takes {', '.join(forms)}. "
                "E-ATX has no fixed size (its size and mounting holes vary by maker), and the "
                "catalog does not have this case's largest board.",
                f"{board.name} 为 {form}，{_mm(size)}；{case.name} 支持 {'、'.join(forms)}。"
                "E-ATX 没有固定尺寸（尺寸与安装孔位因厂商而异），目录中没有该机箱支持的最大主板"
                "尺寸。"),
            Msg(f"Check the case maker's E-ATX limit: it must be at least {_mm(size)}.",
                f"查阅机箱厂商标注的 E-ATX 上限：需不小于 {_mm(size)}。"),
            FORM_SOURCE, board_width_mm=size[0], board_depth_mm=size[1])]
    # The English sentence goes on after the board's size, or after its form alone.
    where = (Msg(f", {_mm(size)},", f"（{_mm(size)}）") if size else Msg(",", ""))
    takes = (Msg(f" (boards up to {_mm(limit)})", f"（最大 {_mm(limit)}）") if limit else
             Msg("", ""))
    return [finding(
        "fit.board_form", Severity.BLOCKER,
        Msg("The motherboard does not fit the case", "主板尺寸与机箱不匹配"),
        Msg(f"{board.name} is {form}{where.en} {case.name} takes {', '.join(forms)}{takes.en}.",
            f"{board.name} 为 {form}{where.zh}；{case.name} 支持 {', '.join(forms)}{takes.zh}。"),
        Msg(f"Choose a case that takes {form} boards.", f"选择支持 {form} 主板的机箱。"),
        FORM_SOURCE, **({"board_width_mm": size[0], "board_depth_mm": size[1]} if size else {}),
        **({"case_width_mm": limit[0], "case_depth_mm": limit[1]} if limit else {}))]


FORM_SIZES_MM: dict[str, tuple[float, float]] = {
    "ATX": (305.0, 244.0), "MICRO-ATX": (244.0, 244.0), "MINI-ITX": (170.0, 170.0),
    "SSI-CEB": (305.0, 266.7), "SSI-EEB": (305.0, 330.0)}
"""Board sizes by name, width x depth in mm (docs/hardware-sources.md section 6.2). E-ATX is
missing on purpose: it has no fixed size."""
FORM_SOURCE = Msg(
    "board sizes: ATX 305 x 244 mm, Micro-ATX 244 x 244, Mini-ITX 170 x 170 (kitbuilder.io "
    "glossary); SSI CEB 305 x 266.7, SSI EEB 305 x 330, E-ATX no fixed size (Corsair, "
    "\"SSI-EEB and CEB motherboards explained\"); case makers' specifications",
    "主板尺寸：ATX 305 x 244 mm、Micro-ATX 244 x 244、Mini-ITX 170 x 170（kitbuilder.io 术语表）；"
    "SSI CEB 305 x 266.7、SSI EEB 305 x 330，E-ATX 无固定尺寸（Corsair《SSI-EEB 与 CEB 主板"
    "详解》）；机箱厂商规格")


def board_size_mm(board: Part) -> tuple[float, float] | None:
    """The board's width x depth: its own dimensions, else its form factor's size."""
    b = board.motherboard
    if b.dimensions_mm:
        return (float(b.dimensions_mm[0]), float(b.dimensions_mm[1]))
    return FORM_SIZES_MM.get(_form(b.form_factor)) if b.form_factor else None


def case_board_limit_mm(case: Part) -> tuple[float, float] | None:
    """The largest board the case takes: its stated maximum, else the largest named size."""
    c = case.case
    if c.max_board_mm:
        return (float(c.max_board_mm[0]), float(c.max_board_mm[1]))
    sizes = [FORM_SIZES_MM[_form(f)] for f in c.board_form_factors if _form(f) in FORM_SIZES_MM]
    if not sizes:
        return None
    return (max(w for w, _ in sizes), max(d for _, d in sizes))


def _fits(size: tuple[float, float], limit: tuple[float, float]) -> bool:
    return size[0] <= limit[0] and size[1] <= limit[1]


def _mm(size: tuple[float, float]) -> str:
    return f"{size[0]:g} x {size[1]:g} mm"


POSITION_EN = {"unspecified": "position not given"}
POSITION_ZH = {"front": "前置", "top": "顶部", "side": "侧面", "rear": "后部", "bottom": "底部",
               "unspecified": "未注明位置"}


def _radiator(node: Node) -> list[Finding]:
    """A liquid cooler's radiator against the case's mounts (size, then thickness)."""
    cooler, case = node.first("cpu_cooler"), node.first("case")
    if cooler is None or case is None or cooler.cooler.kind != "liquid":
        return []
    size, mounts = cooler.cooler.radiator_mm, case.case.radiator_mounts
    if size is None or not mounts:
        return []
    where = [m for m in mounts if size in m.sizes_mm]
    listed = Msg("; ".join(f"{POSITION_EN.get(m.position, m.position)} "
                           f"{'/'.join(str(s) for s in m.sizes_mm)}" for m in mounts),
                 "；".join(f"{POSITION_ZH[m.position]} {'/'.join(str(s) for s in m.sizes_mm)}"
                          for m in mounts))
    if not where:
        return [finding(
            "fit.radiator_mount", Severity.BLOCKER,
            Msg(f"The case has no {size} mm radiator mount", f"机箱没有 {size} mm 冷排位"),
            Msg(f"{cooler.name} has a {size} mm radiator; {case.name} takes radiators at: "
                f"{listed.en} mm.",
                f"{cooler.name} 的冷排为 {size} mm；{case.name} 的冷排位：{listed.zh} mm。"),
            Msg(f"Choose a cooler with a radiator size the case takes, or a case with a {size} mm "
                "mount.",
                f"选择机箱支持尺寸的水冷，或带 {size} mm 冷排位的机箱。"),
            FIT_SOURCE, radiator_mm=size)]
    thick = cooler.cooler.radiator_thickness_mm
    room = [m.max_thickness_mm for m in where if m.max_thickness_mm is not None]
    if thick is None or len(room) < len(where) or max(room) >= thick:
        return []
    return [finding(
        "fit.radiator_thickness", Severity.BLOCKER,
        Msg("The radiator is too thick for the case's mount", "冷排过厚，机箱冷排位装不下"),
        Msg(f"{cooler.name}'s radiator with fans is {thick:g} mm thick; {case.name}'s {size} mm "
            f"mounts take up to {max(room):g} mm.",
            f"{cooler.name} 冷排加风扇厚 {thick:g} mm；{case.name} 的 {size} mm 冷排位最厚 "
            f"{max(room):g} mm。"),
        Msg("Choose a thinner radiator or a case with more room at that mount.",
            "选择更薄的冷排，或该位置空间更大的机箱。"),
        FIT_SOURCE, radiator_thickness_mm=thick, max_thickness_mm=max(room))]


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
