"""The CPU against the board: socket, CPU count, CPU families a board of that socket does not
take, BIOS versions a CPU family needs first, and a CPU without graphics in a build without a
GPU (no display output)."""

from __future__ import annotations

from torchrig.builds.check_node import BOARD_SPECS, CPU_SPECS, Node, finding
from torchrig.catalog.model import Part
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg, counted

CPU_SUPPORT_SOURCE = Msg(
    "board makers' CPU support lists; AMD: a board may need a BIOS update before a newer CPU "
    "boots (amd.com support article PA-100)",
    "主板厂商的 CPU 支持列表；AMD：新款 CPU 可能需要先更新主板 BIOS 才能开机（AMD 支持文章 "
    "PA-100）")

BIOS_BASELINES: dict[tuple[str, str], Msg] = {
    ("Ryzen 9000", "AMD X670E"): Msg("AGESA ComboAM5 PI 1.1.7.0", "AGESA ComboAM5 PI 1.1.7.0"),
    ("Ryzen 9000", "AMD X670"): Msg("AGESA ComboAM5 PI 1.1.7.0", "AGESA ComboAM5 PI 1.1.7.0"),
    ("Ryzen 9000", "AMD B650E"): Msg("AGESA ComboAM5 PI 1.1.7.0", "AGESA ComboAM5 PI 1.1.7.0"),
    ("Ryzen 9000", "AMD B650"): Msg("AGESA ComboAM5 PI 1.1.7.0", "AGESA ComboAM5 PI 1.1.7.0"),
    ("Ryzen 9000", "AMD A620"): Msg("AGESA ComboAM5 PI 1.1.7.0", "AGESA ComboAM5 PI 1.1.7.0"),
    ("Core 14th gen", "Intel Z690"): Msg("a BIOS listed for 14th-gen Core",
                                         "支持列表中列出 14 代酷睿的 BIOS"),
    ("Core 14th gen", "Intel H670"): Msg("a BIOS listed for 14th-gen Core",
                                         "支持列表中列出 14 代酷睿的 BIOS"),
    ("Core 14th gen", "Intel B660"): Msg("a BIOS listed for 14th-gen Core",
                                         "支持列表中列出 14 代酷睿的 BIOS"),
    ("Core 14th gen", "Intel H610"): Msg("a BIOS listed for 14th-gen Core",
                                         "支持列表中列出 14 代酷睿的 BIOS"),
}
"""CPU families that reached an older chipset's boards only with a later BIOS, and the BIOS
they need there: Ryzen 9000 on AMD 600-series boards with AGESA ComboAM5 PI 1.1.7.0
(elporvenir.mx on MSI's and ASUS's updates for X670E, X670, B650 and A620), 14th-gen Core on
Intel 600-series boards (ohhmua.com, pcstacks.com: boards made before it may not POST). A
board's own ``bios_requirements`` (its maker's CPU support list) give the exact version."""


FAMILY_ZH = {"Core 14th gen": "第 14 代酷睿"}
"""How Chinese text names a CPU family whose catalog name is English words, not a brand."""


def family_msg(family: str) -> Msg:
    return Msg(family, FAMILY_ZH.get(family, family))


def platform_checks(node: Node) -> list[Finding]:
    out = _socket_and_count(node)
    out += _cpu_family(node)
    out += _bios(node)
    out += _display(node)
    return out


def _pair(node: Node) -> tuple[Part, Part] | None:
    board, cpu = node.first("motherboard"), node.first("cpu")
    if board is None or cpu is None or not cpu.cpu.socket or \
            cpu.cpu.socket != board.motherboard.socket:
        return None  # a socket mismatch is its own blocker
    return board, cpu


def _cpu_family(node: Node) -> list[Finding]:
    pair = _pair(node)
    if pair is None:
        return []
    board, cpu = pair
    family = cpu.cpu.family
    if family is None or family not in board.motherboard.unsupported_cpu_families:
        return []
    chipset = board.motherboard.chipset or board.name
    fam = family_msg(family)
    return [finding(
        "compat.cpu_family", Severity.BLOCKER,
        Msg("The board does not take this CPU family", "主板不支持该系列 CPU"),
        Msg(f"{cpu.name} is a {family} CPU; it fits the {cpu.cpu.socket} socket, but "
            f"{chipset} boards such as {board.name} do not run {family} CPUs.",
            f"{cpu.name} 属于 {fam.zh} 系列，虽与 {cpu.cpu.socket} 插槽吻合，但 {chipset} 主板"
            f"（如 {board.name}）不支持 {fam.zh} CPU。"),
        Msg(f"Choose a board for {family} CPUs, or a CPU family {board.name} takes.",
            f"选择支持 {fam.zh} 的主板，或 {board.name} 支持的 CPU 系列。"),
        BOARD_SPECS)]


def _bios(node: Node) -> list[Finding]:
    pair = _pair(node)
    if pair is None:
        return []
    board, cpu = pair
    family = cpu.cpu.family
    if family is None:
        return []
    own = [r.bios for r in board.motherboard.bios_requirements if r.family == family]
    baseline = BIOS_BASELINES.get((family, board.motherboard.chipset or ""))
    if own:
        need = Msg(f"BIOS {own[0]} or later", f"BIOS {own[0]} 或更新版本")
    elif baseline is not None:
        need = Msg(f"{baseline.en} or later", f"{baseline.zh} 或更新版本")
    else:
        return []
    return [finding(
        "board.bios_update", Severity.WARNING,
        Msg("The board needs a BIOS update for this CPU", "该 CPU 需要先更新主板 BIOS"),
        Msg(f"{board.name} came out before {family} CPUs; it runs {cpu.name} from {need.en}. "
            "A board from stock may still have an older BIOS and then does not start.",
            f"{board.name} 早于 {family_msg(family).zh} CPU 推出，需{need.zh}才能运行 {cpu.name}。"
            "库存主板可能仍是旧版 BIOS，届时无法开机。"),
        Msg("Have the seller update the BIOS, or use the board's BIOS flashback (no CPU "
            "needed) before the first start; otherwise an older supported CPU is needed for the "
            "update.",
            "请商家先更新 BIOS，或在首次开机前用主板的 BIOS 刷新按键（无需 CPU）更新；否则需要"
            "一颗旧的受支持 CPU 来完成更新。"),
        CPU_SUPPORT_SOURCE)]


def _display(node: Node) -> list[Finding]:
    cpu = node.first("cpu")
    if cpu is None or cpu.cpu.integrated_graphics is not False or node.has("gpu") \
            or node.server_platform:
        return []
    return [finding(
        "compat.no_display", Severity.WARNING,
        Msg("No display output", "没有显示输出"),
        Msg(f"{cpu.name} has no integrated graphics and the build has no GPU: the board's "
            "video outputs stay dark, so the machine cannot show the BIOS or an installer.",
            f"{cpu.name} 没有集成显卡，配置中也没有 GPU：主板的视频接口没有输出，无法显示 BIOS "
            "或系统安装界面。"),
        Msg("Add a graphics card, or choose a CPU with integrated graphics (for Intel, the "
            "model without the F suffix).",
            "添加一块显卡，或改选带核显的 CPU（Intel 即不带 F 后缀的型号）。"),
        CPU_SPECS)]


def _socket_and_count(node: Node) -> list[Finding]:
    out: list[Finding] = []
    cpus, boards = node.of("cpu"), node.of("motherboard")
    if not cpus or not boards:
        return out
    board = boards[0].part
    b = board.motherboard
    for line in cpus:
        cpu = line.part
        if cpu.cpu.socket and b.socket and cpu.cpu.socket != b.socket:
            out.append(finding(
                "compat.socket", Severity.BLOCKER,
                Msg("CPU does not fit the motherboard socket", "CPU 与主板插槽不匹配"),
                Msg(f"{cpu.name} uses {cpu.cpu.socket}; {board.name} has {b.socket}.",
                    f"{cpu.name} 为 {cpu.cpu.socket} 插槽；{board.name} 为 {b.socket}。"),
                Msg(f"Choose a {cpu.cpu.socket} board or a {b.socket} CPU.",
                    f"改用 {cpu.cpu.socket} 主板，或 {b.socket} 插槽的 CPU。"),
                Msg("vendor socket specifications", "插槽厂商规格")))
    n_cpu = node.count("cpu")
    sockets = b.cpu_sockets or 1
    if n_cpu > sockets:
        out.append(finding(
            "compat.cpu_count", Severity.BLOCKER,
            Msg("More CPUs than the board has sockets", "CPU 数量超过主板插槽数"),
            Msg(f"{n_cpu} CPUs on {board.name}, which has {counted(sockets, 'socket', 'sockets')}.",
                f"{n_cpu} 颗 CPU，而 {board.name} 只有 {sockets} 个插槽。"),
            Msg("Reduce the CPU count or choose a multi-socket board.",
                "减少 CPU 数量或选择多路主板。"),
            BOARD_SPECS, cpus=n_cpu, sockets=sockets))
    for line in cpus:
        max_sockets = line.part.cpu.max_sockets
        if n_cpu > 1 and max_sockets is not None and n_cpu > max_sockets:
            out.append(finding(
                "compat.cpu_multi_socket", Severity.BLOCKER,
                Msg("This CPU cannot run in a multi-socket system", "该 CPU 不支持多路"),
                Msg(f"{line.part.name} supports up to "
                    f"{counted(max_sockets, 'socket', 'sockets')}; the build has "
                    f"{n_cpu}.",
                    f"{line.part.name} 最多支持 {max_sockets} 路；配置为 {n_cpu} 路。"),
                Msg("Use one CPU or a 2P-capable model.", "使用单颗 CPU 或支持双路的型号。"),
                CPU_SPECS, cpus=n_cpu, max_sockets=max_sockets))
    return out
