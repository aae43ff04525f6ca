"""Compatibility checks for a build: will these parts work together, and where do they pinch?

Checks are per node (lines with scope "node"; "cluster" lines such as a switch are not part of
a node). Every finding carries its numbers in SI units in ``numbers`` and names its rule's
source. Parts or fields the catalog does not know are skipped, never guessed: a check that
cannot run says nothing rather than something wrong.
"""

from __future__ import annotations

from torchrig.builds.board_checks import board_checks
from torchrig.builds.build import SERVER_PLATFORM, Build
from torchrig.builds.check_node import (
    BOARD_SPECS,
    CPU_SPECS,
    FORM_FACTOR_SPECS,
    Node,
    NodeLine,
    finding,
)
from torchrig.builds.export_checks import export_checks, shipped_controls
from torchrig.builds.fit_checks import fit_checks
from torchrig.builds.m2_sharing import m2_slot_count
from torchrig.builds.memory_checks import memory_checks
from torchrig.builds.platform_checks import platform_checks
from torchrig.builds.power_checks import power_checks
from torchrig.builds.system_parts import node_system
from torchrig.builds.wall_checks import wall_checks
from torchrig.catalog.export_controls import ExportControls
from torchrig.catalog.model import Catalog, Part
from torchrig.catalog.specs import SIDE_BY_SIDE_GPUS, SOCKETED_GPU_FORMS, GpuSlot
from torchrig.findings import Finding, Severity, sort_findings
from torchrig.i18n import Msg, counted
from torchrig.labels import GPU_FORMS, label

PCIE_SOURCE = Msg("Puget Systems: x8 vs x16 about -3%, gen4 x4 about -10%; Dettmers: x4 costs "
                  "5-10%",
                  "Puget Systems：x8 比 x16 约慢 3%，gen4 x4 约慢 10%；Dettmers：x4 损失 5-10%")
COOLING_SOURCE = Msg("Dettmers: open-air cards side by side throttle; use blower or water cooling",
                     "Dettmers：开放式散热的显卡并排会降频；应使用涡轮或水冷")
BUILD_COMPLETENESS = Msg("TorchRig build completeness", "TorchRig 配置完整性检查")
SXM_GENERATION_SOURCE = Msg(
    "NVIDIA HGX: each SXM generation ships on its own baseboard; B100 reaches HGX H100 servers "
    "only by swapping the whole baseboard (glennklockwood.com/garden/processors/B200)",
    "NVIDIA HGX：每一代 SXM 都配自己的基板；B100 进入 HGX H100 服务器只能整块更换基板"
    "（glennklockwood.com/garden/processors/B200）")


_SHIPPED = object()
"""``export_controls`` default: the list shipped beside the catalog."""


def check_build(build: Build, catalog: Catalog, *, region: str | None = None,
                export_controls: ExportControls | None | object = _SHIPPED) -> list[Finding]:
    """All compatibility findings for ``build``, worst first. ``region`` (``cn``, ``us``,
    ``eu``; None: not known) adds the wall-circuit check and, for ``cn``, the export-control
    check a CNY build always gets; ``export_controls`` replaces the shipped list (None: no
    list)."""
    node = Node(build, catalog)
    controls = (shipped_controls(catalog) if export_controls is _SHIPPED
                else export_controls)
    assert controls is None or isinstance(controls, ExportControls)
    out: list[Finding] = []
    out += _missing(node)
    out += platform_checks(node)
    out += memory_checks(node)
    out += _gpu_slots(node)
    out += power_checks(node)
    out += fit_checks(node)
    out += board_checks(node)
    out += m2_slot_count(node)
    out += _cooling(node)
    out += _links(node, build)
    out += wall_checks(node, region)
    out += export_checks(build, catalog, region, controls)
    return sort_findings(out)


# --- missing categories ---------------------------------------------------------------------

_CATEGORY_NAMES = {
    "cpu": Msg("CPU", "CPU"),
    "motherboard": Msg("motherboard", "主板"),
    "psu": Msg("power supply", "电源"),
    "memory": Msg("memory", "内存"),
    "storage": Msg("storage", "存储"),
    "gpu": Msg("GPU", "GPU"),
    "case": Msg("case", "机箱"),
    "cpu_cooler": Msg("CPU cooler", "CPU 散热器"),
}


def _missing(node: Node) -> list[Finding]:
    out = []
    # A server sold as a system (it ships with its own supplies) includes its chassis and the
    # CPU heatsinks, so only a power supply, case or cooler listed on top would be missing.
    system = node_system(node) is not None
    platform = SERVER_PLATFORM in node.custom_categories
    if platform:
        out.append(finding(
            "compat.platform_unchecked", Severity.ADVICE,
            Msg("Server platform not checked", "服务器平台未检查"),
            Msg("The server platform (system board, host CPUs, power supplies) is a custom line "
                "without catalog specs, so socket, memory, slot and power checks against it were "
                "skipped.",
                "服务器平台（主板、CPU、电源）为自定义行，目录中没有其规格，"
                "因此插槽、内存、扩展槽和电源检查均已跳过。"),
            Msg("Confirm GPU, memory and network support with the platform vendor's "
                "configuration guide.", "请按平台厂商的配置指南确认 GPU、内存与网卡的支持情况。"),
            BUILD_COMPLETENESS))
    for cat in ("cpu", "motherboard", "psu", "memory", "storage", "gpu", "case", "cpu_cooler"):
        if node.has(cat) or (system and cat in ("psu", "case", "cpu_cooler")) or (
                platform and cat in ("cpu", "motherboard", "psu", "case", "cpu_cooler")):
            continue
        name = _CATEGORY_NAMES[cat]
        # Some CPUs come with a cooler in the box, and a build without a GPU is valid.
        severity = Severity.ADVICE if cat in ("gpu", "cpu_cooler") else Severity.WARNING
        detail = (Msg("Without a GPU PyTorch runs on the CPU only.",
                      "没有 GPU 时 PyTorch 只能用 CPU 运行。")
                  if cat == "gpu" else
                  Msg(f"The build lists no {name.en}; it is not a complete machine and the "
                      "checks that need it were skipped.",
                      f"配置单中没有{name.zh}，不是完整整机，相关检查已跳过。"))
        out.append(finding(f"compat.missing_{cat}", severity,
                      Msg(f"No {name.en} in the build", f"配置单缺少{name.zh}"), detail,
                      Msg(f"Add a {name.en} from the catalog or as a custom line.",
                          f"从目录中添加{name.zh}，或添加自定义行。"),
                      BUILD_COMPLETENESS))
    return out


# --- GPUs, slots and lanes ---------------------------------------------------------------------


def _gpu_slots(node: Node) -> list[Finding]:
    out: list[Finding] = []
    gpus = node.of("gpu")
    boards = node.of("motherboard")
    if not gpus or not boards:
        return out
    board = boards[0].part
    b = board.motherboard
    socketed = sum(line.quantity for line in gpus
                   if line.part.gpu.form_factor in SOCKETED_GPU_FORMS)
    cards = [line for line in gpus if line.part.gpu.form_factor == "pcie"]
    n_cards = sum(line.quantity for line in cards)
    if socketed:
        have = b.sxm_gpu_slots or 0
        if socketed > have:
            out.append(finding(
                "compat.sxm", Severity.BLOCKER,
                Msg("SXM/OAM GPUs need a baseboard with enough GPU sockets",
                    "SXM/OAM GPU 需要有足够 GPU 插座的基板"),
                Msg(f"{counted(socketed, 'socketed GPU module', 'socketed GPU modules')}; "
                    f"{board.name} has {counted(have, 'SXM/OAM socket', 'SXM/OAM sockets')}. "
                    "These modules do not fit PCIe slots.",
                    f"{socketed} 块模块式 GPU；{board.name} 只有 {have} 个 SXM/OAM 插座，"
                    "此类模块不能插在 PCIe 插槽上。"),
                Msg("Choose an HGX/OAM server with enough GPU sockets, or PCIe cards.",
                    "选择 GPU 插座足够的 HGX/OAM 服务器，或改用 PCIe 版 GPU。"),
                FORM_FACTOR_SPECS, gpus=socketed, sockets=have))
    out += _sxm_generation(gpus, board)
    if not n_cards:
        return out
    configs = b.gpu_lane_configs
    if not configs and not b.sxm_gpu_slots:
        return out  # the catalog does not know how the board wires its slots: not judged
    if n_cards > len(configs):
        out.append(finding(
            "compat.gpu_slots", Severity.BLOCKER,
            Msg("Not enough GPU slots on the motherboard", "主板 GPU 插槽不足"),
            Msg(f"{n_cards} PCIe GPUs; {board.name} can wire at most {len(configs)} in its "
                f"x16-size slots.",
                f"{n_cards} 块 PCIe GPU；{board.name} 的 x16 尺寸插槽最多支持 {len(configs)} 块。"),
            Msg("Fewer GPUs, or a workstation/server board with more x16 slots.",
                "减少 GPU，或选择 x16 插槽更多的工作站/服务器主板。"),
            BOARD_SPECS, gpus=n_cards, max_gpus=len(configs)))
        return out
    slots = configs[n_cards - 1]
    widths: list[tuple[Part, GpuSlot, int]] = []
    flat = [line.part for line in cards for _ in range(line.quantity)]
    for part, slot in zip(flat, slots, strict=True):
        want = part.gpu.pcie_lanes or 16
        widths.append((part, slot, min(want, slot.lanes)))
    narrow = [(p, s, w) for p, s, w in widths if w < (p.gpu.pcie_lanes or 16)]
    if narrow:
        least = min(w for _, _, w in narrow)
        via_chipset = any(s.via == "chipset" for _, s, _ in narrow)
        severity = Severity.BOTTLENECK if least <= 4 or via_chipset else Severity.WARNING
        split = " + ".join(f"x{w}" for _, _, w in widths)
        chip = (Msg(" One card hangs off the chipset and shares its uplink with USB, SATA and "
                    "M.2 traffic.", " 其中一块卡经芯片组连接，与 USB、SATA、M.2 共享上行带宽。")
                if via_chipset else Msg("", ""))
        out.append(finding(
            "compat.gpu_lanes", severity,
            Msg(f"GPUs run at {split} PCIe lanes", f"GPU 以 {split} 通道运行"),
            Msg(f"With {n_cards} GPUs {board.name} wires them as {split}. x8 costs about 3% "
                f"(Puget), x4 about 5-10% in data-parallel training.{chip.en}",
                f"{n_cards} 块 GPU 时 {board.name} 的连接为 {split}。x8 约损失 3%（Puget），"
                f"x4 在数据并行训练中约损失 5-10%。{chip.zh}"),
            Msg("Accept the loss for data-parallel CNNs, or use a workstation platform with "
                "more CPU lanes (Threadripper, Xeon W, EPYC).",
                "数据并行 CNN 可接受此损失；否则改用 CPU 通道更多的平台"
                "（Threadripper、Xeon W、EPYC）。"),
            PCIE_SOURCE, min_lanes=least, gpus=n_cards))
    cpu_lines = node.of("cpu")
    if cpu_lines:
        cpu = cpu_lines[0].part
        lanes = cpu.cpu.pcie_lanes
        used = sum(s.lanes for _, s, _ in widths if s.via == "cpu")
        if lanes is not None and used > lanes * max(1, node.count("cpu")):
            out.append(finding(
                "compat.cpu_lanes", Severity.WARNING,
                Msg("GPU slots need more CPU lanes than the CPU has",
                    "GPU 插槽所需 CPU 通道超过 CPU 提供"),
                Msg(f"The GPU slots take {used} CPU lanes; {cpu.name} has {lanes}. The board "
                    "will run some slots narrower than listed.",
                    f"GPU 插槽需要 {used} 条 CPU 通道；{cpu.name} 只有 {lanes} 条，"
                    "部分插槽会降速。"),
                Msg("Check the board manual's lane-sharing table.",
                    "查看主板手册中的通道共享说明。"),
                CPU_SPECS, lanes_needed=used, cpu_lanes=lanes))
    return out


def _sxm_generation(gpus: list[NodeLine], board: Part) -> list[Finding]:
    """Socketed modules of another generation than the baseboard's sockets (an SXM6 B200 on an
    SXM5 HGX H100 board). Skipped when the board does not say which generation it takes."""
    sockets = board.motherboard.sxm_gpu_form
    if not sockets:
        return []
    have = Msg(label(GPU_FORMS, sockets, "en"), label(GPU_FORMS, sockets, "zh"))
    out: list[Finding] = []
    for line in gpus:
        form = line.part.gpu.form_factor
        if form not in SOCKETED_GPU_FORMS or form == sockets:
            continue
        want = Msg(label(GPU_FORMS, form, "en"), label(GPU_FORMS, form, "zh"))
        out.append(finding(
            "compat.sxm_generation", Severity.BLOCKER,
            Msg("GPU modules of another generation than the baseboard's sockets",
                "GPU 模组与基板插座代际不符"),
            Msg(f"{line.part.name} is an {want.en}; {board.name} has sockets for the {have.en}. "
                "Socketed GPU modules (SXM4, SXM5, SXM6, OAM) differ in connector, power "
                "delivery and GPU links, so a module fits only a baseboard made for it.",
                f"{line.part.name} 为 {want.zh}；{board.name} 的插座适配 {have.zh}。"
                "插座式 GPU 模组（SXM4、SXM5、SXM6、OAM）的接口、供电与 GPU 互连各不相同，"
                "模组只能装在为其设计的基板上。"),
            Msg(f"Choose GPUs made as an {have.en}, or a server whose baseboard takes the "
                f"{want.en}.",
                f"改用 {have.zh} 规格的 GPU，或选择基板适配 {want.zh} 的服务器。"),
            SXM_GENERATION_SOURCE, gpus=line.quantity))
    return out


# --- cooling -----------------------------------------------------------------------------------


def _cooling(node: Node) -> list[Finding]:
    cards = [line for line in node.of("gpu") if line.part.gpu.form_factor == "pcie"]
    n = sum(line.quantity for line in cards)
    if n < SIDE_BY_SIDE_GPUS:
        return []
    risky = [line for line in cards if not line.part.gpu.cools_side_by_side()]
    if not risky:
        return []
    names = ", ".join(sorted({line.part.name for line in risky}))
    return [finding(
        "compat.gpu_cooling", Severity.ADVICE,
        Msg(f"{n} GPUs side by side: plan the cooling", f"{n} 块 GPU 相邻：需规划散热"),
        Msg(f"{names}: open-air (or unknown) coolers next to each other recirculate hot air and "
            "throttle.", f"{names}：开放式（或未知）散热器相邻时互相吹热风，会降频。"),
        Msg("Use blower-style or water-cooled cards, leave slot spacing, or use a server chassis "
            "with front-to-back airflow.",
            "使用涡轮（鼓风）式或水冷显卡、留出插槽间距，或使用前进后出风道的服务器机箱。"),
        COOLING_SOURCE, gpus=n)]


# --- links between GPUs and nodes ---------------------------------------------------------------


def _links(node: Node, build: Build) -> list[Finding]:
    out: list[Finding] = []
    bridges = [line for line in node.of("network") if line.part.network.kind == "nvlink-bridge"]
    gpus = node.of("gpu")
    for line in bridges:
        no_link = [g.part.name for g in gpus if g.part.gpu.nvlink is False]
        if no_link:
            out.append(finding(
                "compat.nvlink_unsupported", Severity.BLOCKER,
                Msg("NVLink bridge with GPUs that have no NVLink", "GPU 不支持 NVLink 桥"),
                Msg(f"{line.part.name} is in the build but {', '.join(no_link)} has no NVLink.",
                    f"配置含 {line.part.name}，但 {', '.join(no_link)} 不支持 NVLink。"),
                Msg("Remove the bridge or choose NVLink-capable GPUs.",
                    "移除桥接器，或选择支持 NVLink 的 GPU。"),
                Msg("vendor GPU specifications", "GPU 厂商规格")))
    if build.nodes > 1:
        nics = [line for line in node.of("network")
                if line.part.network.kind in ("ethernet", "infiniband")]
        if not nics and "network" not in node.custom_categories:
            out.append(finding(
                "compat.node_network", Severity.WARNING,
                Msg("Multi-node build without a network adapter", "多节点配置缺少网卡"),
                Msg(f"{build.nodes} nodes need a fast link for gradient exchange; no NIC is "
                    "listed per node.",
                    f"{build.nodes} 个节点需要高速网络交换梯度；每节点未列出网卡。"),
                Msg("Add an InfiniBand or 100 GbE adapter per node (seed 2.3).",
                    "每节点添加 InfiniBand 或 100GbE 网卡（种子文档 2.3）。"),
                "seed 2.3", nodes=build.nodes))
    return out
