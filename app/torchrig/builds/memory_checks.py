"""Memory against the board and the CPUs: type and keying, registered or unbuffered, slot
count, the board's and the CPUs' maximum (per socket, times the sockets), channels left empty,
and slots a CPU with fewer channels than the board cannot drive.

Two DIMMs per channel (the speed a board or platform rates them at) is a board limit and lives
in ``board_checks``.
"""

from __future__ import annotations

from torchrig.builds.check_node import BOARD_SPECS, CPU_SPECS, Node, finding
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg, counted
from torchrig.units import GiB


def memory_checks(node: Node) -> list[Finding]:
    out: list[Finding] = []
    kits = node.of("memory")
    board = node.of("motherboard")[0].part if node.of("motherboard") else None
    cpus = node.of("cpu")
    b = board.motherboard if board else None
    board_name = board.name if board else ""
    for line in kits:
        kit = line.part
        kind = kit.memory.memory_type
        if b and b.memory_type and kind and kind != b.memory_type:
            out.append(finding(
                "compat.memory_type_board", Severity.BLOCKER,
                Msg("Memory type does not match the motherboard", "内存类型与主板不匹配"),
                Msg(f"{kit.name} is {kind}; {board_name} takes {b.memory_type} only "
                    "(the slots are keyed differently).",
                    f"{kit.name} 为 {kind}；{board_name} 只支持 {b.memory_type}"
                    "（插槽防呆位不同）。"),
                Msg(f"Choose a {b.memory_type} kit.", f"改用 {b.memory_type} 内存。"),
                Msg("JEDEC DDR4/DDR5 module keying; vendor board specifications",
                    "JEDEC DDR4/DDR5 内存防呆缺口；主板厂商规格")))
        for cl in cpus:
            types = cl.part.cpu.memory_types
            if types and kind and kind not in types:
                out.append(finding(
                    "compat.memory_type_cpu", Severity.BLOCKER,
                    Msg("The CPU does not support this memory type", "CPU 不支持该内存类型"),
                    Msg(f"{cl.part.name} supports {'/'.join(types)}; {kit.name} is {kind}.",
                        f"{cl.part.name} 支持 {'/'.join(types)}；{kit.name} 为 {kind}。"),
                    Msg(f"Choose a {'/'.join(types)} kit and board.",
                        f"改用 {'/'.join(types)} 内存与主板。"),
                    CPU_SPECS))
        if b and b.module_form and kit.memory.module_form and b.module_form != \
                kit.memory.module_form:
            out.append(finding(
                "compat.module_form", Severity.BLOCKER,
                Msg("Registered and unbuffered memory do not mix",
                    "RDIMM 与 UDIMM 不能混用"),
                Msg(f"{kit.name} is {kit.memory.module_form}; {board_name} takes "
                    f"{b.module_form}.",
                    f"{kit.name} 为 {kit.memory.module_form}；{board_name} 需要 {b.module_form}。"),
                Msg(f"Choose {b.module_form} modules.", f"改用 {b.module_form} 内存条。"),
                BOARD_SPECS))
    if b and board:
        for cl in cpus:
            types = cl.part.cpu.memory_types
            if types and b.memory_type and b.memory_type not in types:
                out.append(finding(
                    "compat.board_memory_cpu", Severity.BLOCKER,
                    Msg("The board's memory type is not supported by the CPU",
                        "主板内存类型不被 CPU 支持"),
                    Msg(f"{board_name} takes {b.memory_type}; {cl.part.name} supports "
                        f"{'/'.join(types)}.",
                        f"{board_name} 为 {b.memory_type}；"
                        f"{cl.part.name} 支持 {'/'.join(types)}。"),
                    Msg("Choose a board whose memory type the CPU supports.",
                        "选择 CPU 支持的内存类型的主板。"),
                    CPU_SPECS))
    modules = sum((line.part.memory.modules or 0) * line.quantity for line in kits)
    total = sum((line.part.memory.total_bytes or 0) * line.quantity for line in kits)
    if b and board and b.memory_slots and modules > b.memory_slots:
        out.append(finding(
            "compat.dimm_slots", Severity.BLOCKER,
            Msg("More memory modules than slots", "内存条数量超过插槽数"),
            Msg(f"{modules} modules; {board_name} has {b.memory_slots} slots.",
                f"{modules} 条内存；{board_name} 只有 {b.memory_slots} 个插槽。"),
            Msg("Use fewer, larger modules.", "改用数量更少、容量更大的内存条。"),
            BOARD_SPECS, modules=modules, slots=b.memory_slots))
    if b and board and b.max_memory_bytes and total > b.max_memory_bytes:
        out.append(finding(
            "compat.memory_max_board", Severity.BLOCKER,
            Msg("More memory than the board supports", "内存总量超过主板上限"),
            Msg(f"{total / GiB:.0f} GiB fitted; {board_name} supports up to "
                f"{b.max_memory_bytes / GiB:.0f} GiB.",
                f"共 {total / GiB:.0f} GiB；{board_name} 最多支持 "
                f"{b.max_memory_bytes / GiB:.0f} GiB。"),
            Msg("Reduce the memory or choose a board with a higher limit.",
                "减少内存或选择上限更高的主板。"),
            BOARD_SPECS, memory_bytes=total,
            max_memory_bytes=b.max_memory_bytes))
    n_cpu = max(1, node.count("cpu"))
    for cl in cpus[:1]:
        c = cl.part.cpu
        if c.max_memory_bytes and total > c.max_memory_bytes * n_cpu:
            out.append(finding(
                "compat.memory_max_cpu", Severity.WARNING,
                Msg("More memory than the CPU's listed maximum", "内存总量超过 CPU 标称上限"),
                Msg(f"{total / GiB:.0f} GiB fitted; {cl.part.name} lists "
                    f"{c.max_memory_bytes / GiB:.0f} GiB per socket (vendor limits are sometimes "
                    "raised later).",
                    f"共 {total / GiB:.0f} GiB；{cl.part.name} 标称每路 "
                    f"{c.max_memory_bytes / GiB:.0f} GiB"
                    "（厂商有时会在之后提高上限）。"),
                Msg("Check the current vendor limit or reduce the memory.",
                    "核实厂商当前上限或减少内存。"),
                CPU_SPECS, memory_bytes=total,
                max_memory_bytes=c.max_memory_bytes * n_cpu))
        channels = node.memory_channels() or 0
        if channels and 0 < modules < channels:
            peak = (c.memory_bandwidth or 0) * n_cpu
            used = peak * modules / channels
            rate = (Msg(f" Peak {peak / 1e9:.0f} GB/s with every channel; about "
                        f"{used / 1e9:.0f} GB/s with {modules}.",
                        f"插满时峰值 {peak / 1e9:.0f} GB/s；{modules} 条约 {used / 1e9:.0f} GB/s。")
                    if peak else Msg("", ""))
            out.append(finding(
                "compat.memory_channels", Severity.ADVICE,
                Msg("Not every memory channel is populated", "内存通道未插满"),
                Msg(f"{modules} modules for {channels} channels: memory bandwidth scales with "
                    f"populated channels.{rate.en}",
                    f"{modules} 条内存对应 {channels} 个通道：内存带宽随已插通道数增加。"
                    f"{rate.zh}"),
                Msg("Fit one module per channel (or a multiple of the channel count).",
                    "每个通道插一条（或通道数的整数倍）。"),
                Msg("vendor CPU specifications (memory channels)", "CPU 厂商规格（内存通道）"),
                modules=modules, channels=channels, bandwidth=used, peak_bandwidth=peak))
    out += _slots_the_cpu_drives(node, modules)
    return out


def dimms_per_channel(node: Node) -> int | None:
    """Slots per channel the board wires (its slots over its channels, per socket), when the
    catalog has both and they divide evenly."""
    board = node.first("motherboard")
    if board is None:
        return None
    b = board.motherboard
    if not b.memory_slots or not b.memory_channels:
        return None
    per_socket = b.memory_slots // max(1, b.cpu_sockets or 1)
    if per_socket % b.memory_channels:
        return None
    return per_socket // b.memory_channels


def _slots_the_cpu_drives(node: Node, modules: int) -> list[Finding]:
    """A board wired for more channels than its CPUs drive: the slots of the missing channels
    are dead (a 4-channel Xeon W-2400 on an 8-channel W790 board with one DIMM per channel
    drives 4 of its 8 slots; one CPU in a two-socket board drives its own socket's slots)."""
    board, cpu = node.first("motherboard"), node.first("cpu")
    dpc, channels = dimms_per_channel(node), node.memory_channels()
    if board is None or cpu is None or dpc is None or channels is None \
            or cpu.cpu.memory_channels is None:
        return []
    b = board.motherboard
    usable = channels * dpc
    if usable >= (b.memory_slots or 0) or modules <= usable:
        return []
    cpus = node.count("cpu")
    return [finding(
        "compat.dimm_slots_cpu", Severity.BLOCKER,
        Msg("The CPU cannot drive every memory slot", "CPU 无法驱动全部内存插槽"),
        Msg(f"{board.name} has {b.memory_slots} slots, {counted(dpc, 'slot', 'slots')} per "
            f"channel; {cpus} x {cpu.name} drive {channels} channels "
            f"({cpu.cpu.memory_channels} each), so only {usable} slots work. The build has "
            f"{modules} modules.",
            f"{board.name} 有 {b.memory_slots} 个插槽，每通道 {dpc} 个；{cpus} 颗 {cpu.name}"
            f"（每颗 {cpu.cpu.memory_channels} 通道）共驱动 {channels} 个通道，因此只有 {usable} "
            f"个插槽可用。配置中有 {modules} 条内存。"),
        Msg(f"Fit at most {usable} modules (larger ones for the same capacity), or CPUs that "
            "drive every channel the board wires.",
            f"最多插 {usable} 条（用更大容量的内存条保持总容量），或改用能驱动主板全部通道的 "
            "CPU。"),
        CPU_SPECS, modules=modules, usable_slots=usable, slots=b.memory_slots or 0)]
