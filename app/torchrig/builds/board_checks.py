"""Board limits: memory speed with two DIMMs per channel (a board's figure, Intel's desktop
note, AMD's AM5 figure), ECC support, M.2 lane sharing (``m2_sharing``), and
where the network adapters go (slot width, PCIe generation, one per GPU across nodes)."""

from __future__ import annotations

from torchrig.builds.check_node import BOARD_SPECS, LANE_PAYLOAD, Node, finding
from torchrig.builds.m2_sharing import m2_sharing
from torchrig.builds.memory_checks import dimms_per_channel
from torchrig.builds.system_parts import system_extra_slots
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg, counted

INTEL_DESKTOP_SOCKETS = ("LGA1700", "LGA1851")
INTEL_2DPC_NOTE = Msg(
    "Intel Core desktop DDR5 with two DIMMs per channel is rated well below one DIMM per "
    "channel (about 4,000-4,400 MT/s vs 5,600; Intel ARK / platform notes, "
    "docs/hardware-sources.md section 6)",
    "Intel Core 桌面平台 DDR5 每通道两条时的额定频率远低于每通道一条（约 4,000-4,400 MT/s，"
    "对比 5,600；Intel ARK / 平台说明，硬件参考第 6 节）")
AM5_2DPC_MTS = 3600
"""AMD's rated speed for four DDR5 modules (two per channel) on AM5, single- or dual-rank."""
AMD_AM5_2DPC_NOTE = Msg(
    "AMD Ryzen 7000/9000 specifications: four DDR5 modules (4x1R, 4x2R) are rated DDR5-3600, "
    "against DDR5-5200/5600 for two (docs/hardware-sources.md section 6)",
    "AMD Ryzen 7000/9000 规格：四条 DDR5（4x1R、4x2R）额定 DDR5-3600，两条为 DDR5-5200/5600"
    "（硬件参考第 6 节）")
PCIE_LANE_GB_S = {3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}
"""Payload per lane per direction in GB/s (128b/130b; Gen6 FLIT), docs/hardware-sources.md
section 3."""
NIC_PER_GPU_SOURCE = Msg(
    "GPUDirect RDMA: each GPU's gradients cross the node through the NIC on its PCIe switch; "
    "NVIDIA DGX/HGX designs pair one NIC with each GPU",
    "GPUDirect RDMA：每块 GPU 的梯度经同一 PCIe 交换芯片上的网卡出节点；NVIDIA DGX/HGX 设计为"
    "每块 GPU 配一块网卡")


def board_checks(node: Node) -> list[Finding]:
    out: list[Finding] = []
    out += _two_dimms_per_channel(node)
    out += _ecc(node)
    out += m2_sharing(node)
    out += _nic_slots(node)
    out += _nic_per_gpu(node)
    return out


def _two_dimms_per_channel(node: Node) -> list[Finding]:
    kits = node.of("memory")
    channels = node.memory_channels()
    modules = sum((line.part.memory.modules or 0) * line.quantity for line in kits)
    ddr5 = [line.part for line in kits if line.part.memory.memory_type == "DDR5"]
    if not ddr5 or channels is None or modules <= channels:
        return []
    if dimms_per_channel(node) == 1:
        return []  # one slot per channel: extra modules have no slot (compat.dimm_slots_cpu)
    speeds = [p.memory.speed_mts for p in ddr5 if p.memory.speed_mts]
    if not speeds:
        return []  # no kit states its speed: no figure to say it drops from
    rated = max(speeds)
    board, cpu = node.first("motherboard"), node.first("cpu")
    limit = board.motherboard.max_memory_speed_2dpc_mts if board is not None else None
    if limit is not None:
        if rated <= limit:
            return []
        why = Msg(f"{board.name if board else ''} rates two DIMMs per channel at {limit} MT/s.",
                  f"{board.name if board else ''} 每通道两条时额定 {limit} MT/s。")
        source = Msg("vendor board specifications (memory QVL, 2DPC)",
                     "主板厂商规格（内存兼容列表、每通道两条）")
    elif cpu is not None and cpu.cpu.socket in INTEL_DESKTOP_SOCKETS:
        why = Msg("Intel rates its desktop CPUs well below one DIMM per channel with two "
                  "(about 4,000-4,400 MT/s).",
                  "Intel 桌面 CPU 每通道两条时的额定频率远低于每通道一条（约 4,000-4,400 MT/s）。")
        source = INTEL_2DPC_NOTE
    elif cpu is not None and cpu.cpu.socket == "AM5":
        if rated <= AM5_2DPC_MTS:
            return []
        why = Msg(f"AMD rates four DDR5 modules on AM5 at DDR5-{AM5_2DPC_MTS}.",
                  f"AMD 规定 AM5 平台插四条 DDR5 时额定 DDR5-{AM5_2DPC_MTS}。")
        source = AMD_AM5_2DPC_NOTE
    else:
        return []
    return [finding(
        "board.memory_2dpc", Severity.ADVICE,
        Msg("Two DIMMs per channel lower the memory speed", "每通道两条内存会降低内存频率"),
        Msg(f"{modules} DDR5 modules on {channels} channels (two per channel); the kits are "
            f"rated {rated} MT/s. {why.en}",
            f"{channels} 个通道上 {modules} 条 DDR5（每通道两条）；内存额定 {rated} MT/s。"
            f"{why.zh}"),
        Msg("Use one larger module per channel to keep the rated speed, or accept the lower "
            "speed for the capacity.",
            "每通道用一条更大容量的内存以保持额定频率，或为容量接受较低频率。"),
        source, modules=modules, channels=channels, rated_mts=rated)]


def _ecc(node: Node) -> list[Finding]:
    board = node.first("motherboard")
    if board is None or board.motherboard.ecc is not False:
        return []
    ecc = sorted({line.part.name for line in node.of("memory") if line.part.memory.ecc})
    if not ecc:
        return []
    return [finding(
        "board.ecc", Severity.WARNING,
        Msg("The board does not support ECC memory", "主板不支持 ECC 内存"),
        Msg(f"{', '.join(ecc)} is ECC memory; {board.name} runs memory without ECC, so errors "
            "are neither corrected nor reported.",
            f"{'、'.join(ecc)} 为 ECC 内存；{board.name} 不支持 ECC，"
            "内存错误既不会被纠正也不会被报告。"),
        Msg("Choose a workstation or server board with ECC support, or save the cost with "
            "non-ECC modules.",
            "选择支持 ECC 的工作站或服务器主板，或改用非 ECC 内存以节省成本。"),
        BOARD_SPECS)]


def _nic_slots(node: Node) -> list[Finding]:
    nics = [p for p in node.each("network") if p.network.kind in ("ethernet", "infiniband")]
    if not nics:
        return []
    out: list[Finding] = []
    board, cpu = node.first("motherboard"), node.first("cpu")
    cards = [p for p in node.each("gpu") if p.gpu.form_factor == "pcie"]
    configs = board.motherboard.gpu_lane_configs if board is not None else ()
    for i, nic in enumerate(nics):
        n = nic.network
        # One port at line rate must fit through the link; extra ports are often for redundancy.
        need_gbit = (n.rate_bits_per_s or 0) / 1e9
        # The link runs at the lower of the adapter's and the host's PCIe generation.
        gens = [g for g in (n.host_pcie_gen, cpu.cpu.pcie_gen if cpu else None) if g]
        host_gen = min(gens) if gens else None
        lanes = n.host_pcie_lanes
        slot_index = len(cards) + i
        if configs and slot_index < len(configs):
            slot = configs[slot_index][slot_index]
            lanes = min(lanes or slot.lanes, slot.lanes)
            if slot.gen is not None:
                host_gen = min(host_gen or slot.gen, slot.gen)
        elif (configs and board is not None
              and slot_index - len(configs) >= system_extra_slots(node)):
            out.append(finding(
                "board.nic_no_slot", Severity.WARNING,
                Msg("No x16-size slot left for the network adapter", "没有空余的 x16 插槽给网卡"),
                Msg(f"{board.name} wires at most "
                    f"{counted(len(configs), 'x16-size slot', 'x16-size slots')}; the GPUs take "
                    f"{len(cards)}, so {nic.name} needs another slot (often a narrow "
                    "chipset slot).",
                    f"{board.name} 最多 {len(configs)} 个 x16 尺寸插槽；GPU 占用 {len(cards)} 个，"
                    f"{nic.name} 需另找插槽（通常是较窄的芯片组插槽）。"),
                Msg("Use a board with one more full-width slot (workstation or server).",
                    "选择多一个全宽插槽的主板（工作站或服务器）。"),
                BOARD_SPECS, slots=len(configs), gpus=len(cards)))
            continue
        if host_gen is None or lanes is None or host_gen not in PCIE_LANE_GB_S:
            continue
        link_gbit = PCIE_LANE_GB_S[host_gen] * lanes * 8
        if link_gbit >= need_gbit:
            continue
        out.append(finding(
            "board.nic_pcie", Severity.BOTTLENECK,
            Msg("The network adapter's PCIe link is slower than its port",
                "网卡的 PCIe 链路慢于其网口速率"),
            Msg(f"{nic.name}: a {need_gbit:.0f} Gb/s port on PCIe Gen{host_gen} x{lanes}, "
                f"about {link_gbit:.0f} Gb/s per direction.",
                f"{nic.name}：网口 {need_gbit:.0f} Gb/s，PCIe Gen{host_gen} x{lanes} "
                f"单向约 {link_gbit:.0f} Gb/s。"),
            Msg("Use a PCIe Gen5 host and a full x16 slot for 400 Gb/s, or a 200 Gb/s "
                "adapter on Gen4.",
                "400 Gb/s 网卡需 PCIe Gen5 主机和完整 x16 插槽；Gen4 平台可改用 200 Gb/s 网卡。"),
            LANE_PAYLOAD,
            port_gbit=need_gbit, link_gbit=link_gbit))
    return out


def _nic_per_gpu(node: Node) -> list[Finding]:
    if node.build.nodes < 2:
        return []
    gpus = node.count("gpu")
    nics = node.count("network", lambda p: p.network.kind in ("ethernet", "infiniband"))
    if gpus < 2 or nics == 0 or nics >= gpus:
        return []
    return [finding(
        "board.nic_per_gpu", Severity.ADVICE,
        Msg("Fewer network adapters than GPUs per node", "每节点网卡少于 GPU"),
        Msg(f"{node.build.nodes} nodes with {gpus} GPUs and "
            f"{counted(nics, 'network adapter', 'network adapters')} each: in data-parallel "
            f"training {gpus} GPUs share {counted(nics, 'link', 'links')} for gradient "
            "exchange between nodes.",
            f"{node.build.nodes} 个节点，每节点 {gpus} 块 GPU、{nics} 块网卡：数据并行训练时 "
            f"{gpus} 块 GPU 共用 {nics} 条链路在节点间交换梯度。"),
        Msg("Fit one adapter per GPU (on the GPU's PCIe switch, with GPUDirect RDMA) when "
            "inter-node traffic limits scaling.",
            "若节点间通信限制扩展，为每块 GPU 配一块网卡（与 GPU 在同一 PCIe 交换芯片下，启用 "
            "GPUDirect RDMA）。"),
        NIC_PER_GPU_SOURCE, gpus=gpus, nics=nics)]
