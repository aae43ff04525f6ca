"""Board limits: memory speed with two DIMMs per channel, ECC support, M.2 lane sharing, and
where the network adapters go (slot width, PCIe generation, one per GPU across nodes)."""

from __future__ import annotations

from torchrig.builds.check_node import BOARD_MANUAL, BOARD_SPECS, LANE_PAYLOAD, Node, finding
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
    out += _m2_sharing(node)
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
    rated = max(p.memory.speed_mts or 0 for p in ddr5)
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


def _m2_sharing(node: Node) -> list[Finding]:
    board = node.first("motherboard")
    if board is None:
        return []
    b = board.motherboard
    m2 = node.count("storage", lambda p: p.storage.kind == "nvme"
                    and (p.storage.form_factor or "").upper().startswith("M.2"))
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
    sata = node.count("storage", lambda p: p.storage.kind in ("sata-ssd", "hdd"))
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
