"""builds/compat.py's own findings word for word, each at its edge and on its second branch
(issue 28, docs/testing.md sec. 13): missing categories and the server-platform line, socketed
GPU modules on a board without (enough) sockets or of another generation, more cards than
x16-size slots, the lanes they run at (through the chipset or not), CPU lanes for one and two
CPUs, three open-air cards side by side, an NVLink bridge with cards without NVLink, and a
multi-node build without a network adapter.

Figures from the shipped catalog (vendor specifications, sourced in resources/catalog): ROG
MAXIMUS Z790 FORMULA wires 1 card at x16 or 2 at x8 + x8 (CPU); Z890 AORUS MASTER 1 at x16,
2 at x16 + x4 (chipset), 3 at x16 + x4 + x1; Core i9-13900K 20 PCIe lanes; DGX B200 8 SXM6
sockets; H100 SXM5 80GB is an SXM5 module, B200 SXM6 180GB an SXM6 module; GeForce RTX 4090
open-air and without NVLink, GeForce RTX 3090 with NVLink and no cooler type given, L40S
passive. Each expected text is the message template filled in by hand.
"""

from __future__ import annotations

from dataclasses import replace

from catalog_variants import catalog_with

from torchrig.builds.build import SERVER_PLATFORM, Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg

Z790, Z890, DGX = ("asus-rog-maximus-z790-formula", "gigabyte-z890-aorus-master",
                   "nvidia-dgx-b200")
I9, H100, B200 = "intel-core-i9-13900k", "nvidia-h100-sxm", "nvidia-b200-sxm"
RTX_4090, RTX_3090, L40S = "nvidia-rtx-4090", "nvidia-rtx-3090", "nvidia-l40s"
BRIDGE, NIC, DRIVE = ("nvidia-nvlink-bridge-2way-ga102", "intel-e810-cqda2",
                      "samsung-990-pro-1tb")
BOARD_SPECS = Msg("vendor board specifications", "主板厂商规格")
CPU_SPECS = Msg("vendor CPU specifications", "CPU 厂商规格")
FORM_FACTOR_SPECS = Msg("vendor form-factor specifications", "厂商外形规格")
COMPLETENESS = Msg("TorchRig build completeness", "TorchRig 配置完整性检查")
PCIE_SOURCE = Msg("Puget Systems: x8 vs x16 about -3%, gen4 x4 about -10%; Dettmers: x4 costs "
                  "5-10%",
                  "Puget Systems：x8 比 x16 约慢 3%，gen4 x4 约慢 10%；Dettmers：x4 损失 5-10%")


OWN_CODES = {"compat.platform_unchecked", "compat.sxm", "compat.sxm_generation",
             "compat.gpu_slots", "compat.gpu_lanes", "compat.cpu_lanes", "compat.gpu_cooling",
             "compat.nvlink_unsupported", "compat.node_network"}


def _compat(*lines: tuple[str, int] | LineItem, nodes: int = 1,
            cat: Catalog | None = None) -> dict[str, Finding]:
    """compat.py's own findings by code (the other checks' modules are left out)."""
    items = [x if isinstance(x, LineItem) else LineItem(part_id=x[0], quantity=x[1])
             for x in lines]
    found = check_build(Build(name="t", nodes=nodes, line_items=items), cat or load_catalog(),
                        export_controls=None)
    own = [f for f in found if f.code in OWN_CODES or f.code.startswith("compat.missing_")]
    by_code = {f.code: f for f in own}
    assert len(by_code) == len(own), [f.code for f in own]
    return by_code


def test_the_catalog_figures_these_tests_rest_on() -> None:
    cat = load_catalog()
    lanes = [[s.lanes for s in cfg] for cfg in cat.get(Z790).motherboard.gpu_lane_configs]
    assert lanes == [[16], [8, 8]]
    via = [[(s.lanes, s.via) for s in cfg] for cfg in cat.get(Z890).motherboard.gpu_lane_configs]
    assert via[1] == [(16, "cpu"), (4, "chipset")]
    assert cat.get(I9).cpu.pcie_lanes == 20
    assert (cat.get(DGX).motherboard.sxm_gpu_slots, cat.get(DGX).motherboard.sxm_gpu_form) == (
        8, "sxm6")
    assert (cat.get(H100).gpu.form_factor, cat.get(B200).gpu.form_factor) == ("sxm5", "sxm6")
    assert (cat.get(RTX_4090).gpu.cooling, cat.get(RTX_4090).gpu.nvlink) == ("open-air", False)
    assert (cat.get(RTX_3090).gpu.cooling, cat.get(RTX_3090).gpu.nvlink) == (None, True)
    assert cat.get(L40S).gpu.cooling == "passive"


# --- missing categories ----------------------------------------------------------------------


def _missing(cat: str, en: str, zh: str, severity: Severity = Severity.WARNING) -> Finding:
    detail = (Msg("Without a GPU PyTorch runs on the CPU only.",
                  "没有 GPU 时 PyTorch 只能用 CPU 运行。") if cat == "gpu" else
              Msg(f"The build lists no {en}; it is not a complete machine and the checks that "
                  "need it were skipped.", f"配置单中没有{zh}，不是完整整机，相关检查已跳过。"))
    return Finding(code=f"compat.missing_{cat}", severity=severity,
                   title=Msg(f"No {en} in the build", f"配置单缺少{zh}"), detail=detail,
                   fix=Msg(f"Add a {en} from the catalog or as a custom line.",
                           f"从目录中添加{zh}，或添加自定义行。"),
                   source=COMPLETENESS, numbers={})


def test_a_lone_drive_misses_every_other_category() -> None:
    assert _compat((DRIVE, 1)) == {f.code: f for f in (
        _missing("cpu", "CPU", "CPU"), _missing("motherboard", "motherboard", "主板"),
        _missing("psu", "power supply", "电源"), _missing("memory", "memory", "内存"),
        _missing("gpu", "GPU", "GPU", Severity.ADVICE), _missing("case", "case", "机箱"),
        _missing("cpu_cooler", "CPU cooler", "CPU 散热器", Severity.ADVICE))}
    assert "compat.missing_storage" in _compat((I9, 1))


def test_a_server_platform_line_stands_for_the_board_cpus_supplies_and_chassis() -> None:
    platform = LineItem(text="HGX server, per the vendor's quote", category=SERVER_PLATFORM)
    found = _compat(platform, (H100, 8), (DRIVE, 1))
    assert found["compat.platform_unchecked"] == Finding(
        code="compat.platform_unchecked", severity=Severity.ADVICE,
        title=Msg("Server platform not checked", "服务器平台未检查"),
        detail=Msg("The server platform (system board, host CPUs, power supplies) is a custom "
                   "line without catalog specs, so socket, memory, slot and power checks against "
                   "it were skipped.",
                   "服务器平台（主板、CPU、电源）为自定义行，目录中没有其规格，"
                   "因此插槽、内存、扩展槽和电源检查均已跳过。"),
        fix=Msg("Confirm GPU, memory and network support with the platform vendor's "
                "configuration guide.", "请按平台厂商的配置指南确认 GPU、内存与网卡的支持情况。"),
        source=COMPLETENESS, numbers={})
    # Memory is not part of the platform: still missing; CPU, board, PSU, case, cooler are not.
    assert sorted(c for c in found if c.startswith("compat.missing")) == ["compat.missing_memory"]


def test_a_whole_system_brings_its_supplies_case_and_cooler() -> None:
    found = _compat((DGX, 1), ("amd-epyc-9554", 2), (B200, 8), (DRIVE, 1))
    assert sorted(c for c in found if c.startswith("compat.missing")) == ["compat.missing_memory"]


# --- socketed modules ------------------------------------------------------------------------


def test_socketed_modules_on_a_board_without_sockets_word_for_word() -> None:
    found = _compat((I9, 1), (Z790, 1), (H100, 2))
    assert found["compat.sxm"] == Finding(
        code="compat.sxm", severity=Severity.BLOCKER,
        title=Msg("SXM/OAM GPUs need a baseboard with enough GPU sockets",
                  "SXM/OAM GPU 需要有足够 GPU 插座的基板"),
        detail=Msg("2 socketed GPU modules; ROG MAXIMUS Z790 FORMULA has 0 SXM/OAM sockets. "
                   "These modules do not fit PCIe slots.",
                   "2 块模块式 GPU；ROG MAXIMUS Z790 FORMULA 只有 0 个 SXM/OAM 插座，"
                   "此类模块不能插在 PCIe 插槽上。"),
        fix=Msg("Choose an HGX/OAM server with enough GPU sockets, or PCIe cards.",
                "选择 GPU 插座足够的 HGX/OAM 服务器，或改用 PCIe 版 GPU。"),
        source=FORM_FACTOR_SPECS, numbers={"gpus": 2.0, "sockets": 0.0})


def test_eight_modules_fill_eight_sockets_and_a_ninth_does_not_fit() -> None:
    assert "compat.sxm" not in _compat((DGX, 1), (B200, 8))
    nine = _compat((DGX, 1), (B200, 9))["compat.sxm"]
    assert nine.numbers == {"gpus": 9.0, "sockets": 8.0}
    assert nine.detail.en.startswith("9 socketed GPU modules; DGX B200 (10U system: board, "
                                     "chassis, HGX B200 baseboard, 6x 3.3 kW supplies) has 8 "
                                     "SXM/OAM sockets.")
    one = catalog_with(**{"test-board": (DGX, "test board", {"sxm_gpu_slots": 1})})
    assert _compat(("test-board", 1), (B200, 2), cat=one)["compat.sxm"].detail.en.startswith(
        "2 socketed GPU modules; test board has 1 SXM/OAM socket.")


def test_modules_of_another_generation_word_for_word() -> None:
    found = _compat((DGX, 1), (H100, 8))
    assert found["compat.sxm_generation"] == Finding(
        code="compat.sxm_generation", severity=Severity.BLOCKER,
        title=Msg("GPU modules of another generation than the baseboard's sockets",
                  "GPU 模组与基板插座代际不符"),
        detail=Msg("H100 SXM5 80GB is an SXM5 module; DGX B200 (10U system: board, chassis, HGX "
                   "B200 baseboard, 6x 3.3 kW supplies) has sockets for the SXM6 module. Socketed "
                   "GPU modules (SXM4, SXM5, SXM6, OAM) differ in connector, power delivery and "
                   "GPU links, so a module fits only a baseboard made for it.",
                   "H100 SXM5 80GB 为 SXM5 模组；DGX B200 (10U system: board, chassis, HGX B200 "
                   "baseboard, 6x 3.3 kW supplies) 的插座适配 SXM6 模组。插座式 GPU 模组（SXM4、"
                   "SXM5、SXM6、OAM）的接口、供电与 GPU 互连各不相同，"
                   "模组只能装在为其设计的基板上。"),
        fix=Msg("Choose GPUs made as an SXM6 module, or a server whose baseboard takes the SXM5 "
                "module.", "改用 SXM6 模组 规格的 GPU，或选择基板适配 SXM5 模组 的服务器。"),
        source=Msg(
            "NVIDIA HGX: each SXM generation ships on its own baseboard; B100 reaches HGX H100 "
            "servers only by swapping the whole baseboard "
            "(glennklockwood.com/garden/processors/B200)",
            "NVIDIA HGX：每一代 SXM 都配自己的基板；B100 进入 HGX H100 服务器只能整块更换基板"
            "（glennklockwood.com/garden/processors/B200）"),
        numbers={"gpus": 8.0})
    assert "compat.sxm_generation" not in _compat((DGX, 1), (B200, 8))
    # A PCIe card beside the modules is not a module of another generation.
    assert "compat.sxm_generation" not in _compat((DGX, 1), (B200, 8), (L40S, 1))


# --- PCIe cards, slots and lanes -------------------------------------------------------------


def test_three_cards_on_a_board_that_wires_two_word_for_word() -> None:
    found = _compat((I9, 1), (Z790, 1), (RTX_4090, 3))
    assert found["compat.gpu_slots"] == Finding(
        code="compat.gpu_slots", severity=Severity.BLOCKER,
        title=Msg("Not enough GPU slots on the motherboard", "主板 GPU 插槽不足"),
        detail=Msg("3 PCIe GPUs; ROG MAXIMUS Z790 FORMULA can wire at most 2 in its x16-size "
                   "slots.",
                   "3 块 PCIe GPU；ROG MAXIMUS Z790 FORMULA 的 x16 尺寸插槽最多支持 2 块。"),
        fix=Msg("Fewer GPUs, or a workstation/server board with more x16 slots.",
                "减少 GPU，或选择 x16 插槽更多的工作站/服务器主板。"),
        source=BOARD_SPECS, numbers={"gpus": 3.0, "max_gpus": 2.0})
    assert "compat.gpu_lanes" not in found  # no lane split for cards that do not fit


NO_CHIPSET = Msg("", "")


def _lanes(split: str, n: int, board: str, severity: Severity, least: int,
           chip: Msg = NO_CHIPSET) -> Finding:
    return Finding(
        code="compat.gpu_lanes", severity=severity,
        title=Msg(f"GPUs run at {split} PCIe lanes", f"GPU 以 {split} 通道运行"),
        detail=Msg(f"With {n} GPUs {board} wires them as {split}. x8 costs about 3% (Puget), x4 "
                   f"about 5-10% in data-parallel training.{chip.en}",
                   f"{n} 块 GPU 时 {board} 的连接为 {split}。x8 约损失 3%（Puget），x4 在数据并行"
                   f"训练中约损失 5-10%。{chip.zh}"),
        fix=Msg("Accept the loss for data-parallel CNNs, or use a workstation platform with "
                "more CPU lanes (Threadripper, Xeon W, EPYC).",
                "数据并行 CNN 可接受此损失；否则改用 CPU 通道更多的平台"
                "（Threadripper、Xeon W、EPYC）。"),
        source=PCIE_SOURCE, numbers={"min_lanes": float(least), "gpus": float(n)})


def test_two_cards_at_x8_and_one_through_the_chipset() -> None:
    two = _compat((I9, 1), (Z790, 1), (RTX_4090, 2))
    assert two["compat.gpu_lanes"] == _lanes("x8 + x8", 2, "ROG MAXIMUS Z790 FORMULA",
                                             Severity.WARNING, 8)
    assert "compat.gpu_lanes" not in _compat((I9, 1), (Z790, 1), (RTX_4090, 1))  # x16
    chip = Msg(" One card hangs off the chipset and shares its uplink with USB, SATA and M.2 "
               "traffic.", " 其中一块卡经芯片组连接，与 USB、SATA、M.2 共享上行带宽。")
    z890 = _compat((I9, 1), (Z890, 1), (RTX_4090, 2))
    assert z890["compat.gpu_lanes"] == _lanes("x16 + x4", 2, "Z890 AORUS MASTER",
                                              Severity.BOTTLENECK, 4, chip)
    # A card that wants only 8 lanes loses nothing in an x8 slot.
    cat = catalog_with(**{"test-card": (RTX_4090, "test card", {"pcie_lanes": 8})})
    assert "compat.gpu_lanes" not in _compat((I9, 1), (Z790, 1), ("test-card", 2), cat=cat)
    # The Z790's x8 + x8 wired through the chipset instead: x8 is more than 4 lanes, yet the
    # shared uplink makes it a bottleneck.
    wiring = load_catalog().get(Z790).motherboard.gpu_lane_configs
    narrow = catalog_with(**{"test-board": (Z790, "test board", {"gpu_lane_configs": (
        wiring[0], tuple(replace(s, via="chipset") for s in wiring[1]))})})
    found = _compat((I9, 1), ("test-board", 1), (RTX_4090, 2), cat=narrow)["compat.gpu_lanes"]
    assert found.severity is Severity.BOTTLENECK and found.detail.en.endswith(chip.en)


def test_a_board_whose_slot_wiring_is_unknown_is_not_judged() -> None:
    cat = catalog_with(**{"test-board": (Z790, "test board", {"gpu_lane_configs": ()})})
    found = _compat((I9, 1), ("test-board", 1), (RTX_4090, 3), cat=cat)
    assert "compat.gpu_slots" not in found and "compat.gpu_lanes" not in found


def test_cpu_lanes_for_one_cpu_and_for_two() -> None:
    # x8 + x8 from the CPU: 16 lanes; a CPU of 12 lanes is short, two of them (24) are not.
    cat = catalog_with(**{"test-cpu": (I9, "test cpu", {"pcie_lanes": 12})})
    found = _compat(("test-cpu", 1), (Z790, 1), (RTX_4090, 2), cat=cat)
    assert found["compat.cpu_lanes"] == Finding(
        code="compat.cpu_lanes", severity=Severity.WARNING,
        title=Msg("GPU slots need more CPU lanes than the CPU has",
                  "GPU 插槽所需 CPU 通道超过 CPU 提供"),
        detail=Msg("The GPU slots take 16 CPU lanes; test cpu has 12. The board will run some "
                   "slots narrower than listed.",
                   "GPU 插槽需要 16 条 CPU 通道；test cpu 只有 12 条，部分插槽会降速。"),
        fix=Msg("Check the board manual's lane-sharing table.", "查看主板手册中的通道共享说明。"),
        source=CPU_SPECS, numbers={"lanes_needed": 16.0, "cpu_lanes": 12.0})
    assert "compat.cpu_lanes" not in _compat(("test-cpu", 2), (Z790, 1), (RTX_4090, 2),
                                             cat=cat)
    # 16 lanes of 16: enough. The chipset's x4 on the Z890 takes no CPU lanes (16 of 16).
    exact = catalog_with(**{"test-cpu": (I9, "test cpu", {"pcie_lanes": 16})})
    assert "compat.cpu_lanes" not in _compat(("test-cpu", 1), (Z790, 1), (RTX_4090, 2),
                                             cat=exact)
    assert "compat.cpu_lanes" not in _compat(("test-cpu", 1), (Z890, 1), (RTX_4090, 2),
                                             cat=exact)


# --- cooling, NVLink bridges, networks -------------------------------------------------------


def test_three_open_air_cards_side_by_side_word_for_word() -> None:
    found = _compat((I9, 1), (RTX_4090, 2), (RTX_3090, 1))
    assert found["compat.gpu_cooling"] == Finding(
        code="compat.gpu_cooling", severity=Severity.ADVICE,
        title=Msg("3 GPUs side by side: plan the cooling", "3 块 GPU 相邻：需规划散热"),
        detail=Msg("GeForce RTX 3090, GeForce RTX 4090: open-air (or unknown) coolers next to "
                   "each other recirculate hot air and throttle.",
                   "GeForce RTX 3090, GeForce RTX 4090：开放式（或未知）散热器相邻时互相吹热风，"
                   "会降频。"),
        fix=Msg("Use blower-style or water-cooled cards, leave slot spacing, or use a server "
                "chassis with front-to-back airflow.",
                "使用涡轮（鼓风）式或水冷显卡、留出插槽间距，或使用前进后出风道的服务器机箱。"),
        source=Msg("Dettmers: open-air cards side by side throttle; use blower or water cooling",
                   "Dettmers：开放式散热的显卡并排会降频；应使用涡轮或水冷"),
        numbers={"gpus": 3.0})
    assert "compat.gpu_cooling" not in _compat((I9, 1), (RTX_4090, 2))  # two: no advice
    assert "compat.gpu_cooling" not in _compat((I9, 1), (L40S, 4))  # passive, server airflow
    # Three passive cards and one open-air: four side by side, the open-air one named.
    mixed = _compat((I9, 1), (L40S, 3), (RTX_4090, 1))["compat.gpu_cooling"]
    assert mixed.numbers == {"gpus": 4.0}
    assert mixed.detail.en.startswith("GeForce RTX 4090: open-air")


def test_an_nvlink_bridge_with_cards_without_nvlink_word_for_word() -> None:
    found = _compat((I9, 1), (RTX_4090, 2), (BRIDGE, 1))
    assert found["compat.nvlink_unsupported"] == Finding(
        code="compat.nvlink_unsupported", severity=Severity.BLOCKER,
        title=Msg("NVLink bridge with GPUs that have no NVLink", "GPU 不支持 NVLink 桥"),
        detail=Msg("NVLink 2-way bridge for RTX A6000 / RTX 3090 (GA102) is in the build but "
                   "GeForce RTX 4090 has no NVLink.",
                   "配置含 NVLink 2-way bridge for RTX A6000 / RTX 3090 (GA102)，但 GeForce RTX "
                   "4090 不支持 NVLink。"),
        fix=Msg("Remove the bridge or choose NVLink-capable GPUs.",
                "移除桥接器，或选择支持 NVLink 的 GPU。"),
        source=Msg("vendor GPU specifications", "GPU 厂商规格"), numbers={})
    assert "compat.nvlink_unsupported" not in _compat((I9, 1), (RTX_3090, 2), (BRIDGE, 1))


def test_a_multi_node_build_without_a_network_adapter_word_for_word() -> None:
    found = _compat((I9, 1), (RTX_4090, 1), nodes=2)
    assert found["compat.node_network"] == Finding(
        code="compat.node_network", severity=Severity.WARNING,
        title=Msg("Multi-node build without a network adapter", "多节点配置缺少网卡"),
        detail=Msg("2 nodes need a fast link for gradient exchange; no NIC is listed per node.",
                   "2 个节点需要高速网络交换梯度；每节点未列出网卡。"),
        fix=Msg("Add an InfiniBand or 100 GbE adapter per node (seed 2.3).",
                "每节点添加 InfiniBand 或 100GbE 网卡（种子文档 2.3）。"),
        source="seed 2.3", numbers={"nodes": 2.0})
    assert "compat.node_network" not in _compat((I9, 1), (RTX_4090, 1))  # one node
    assert "compat.node_network" not in _compat((I9, 1), (RTX_4090, 1), (NIC, 1), nodes=2)
    custom = LineItem(text="the cluster's own 400G switch port", category="network")
    assert "compat.node_network" not in _compat((I9, 1), (RTX_4090, 1), custom, nodes=2)
    # An NVLink bridge is no network adapter between nodes.
    assert "compat.node_network" in _compat((I9, 1), (RTX_3090, 2), (BRIDGE, 1), nodes=2)


# --- found by the run of these tests (docs/testing.md sec. 13) ----------------------------------


def test_one_module_in_the_singular_and_two_generations_each_named() -> None:
    one = _compat((I9, 1), (Z790, 1), (H100, 1))["compat.sxm"]
    assert one.detail.en.startswith("1 socketed GPU module; ROG MAXIMUS Z790 FORMULA has 0 "
                                    "SXM/OAM sockets.")
    # An SXM5 and an SXM4 module on the SXM6 baseboard: one finding for each line.
    found = check_build(Build(name="t", line_items=[
        LineItem(part_id=DGX), LineItem(part_id=H100, quantity=4),
        LineItem(part_id="nvidia-a100-80gb-sxm", quantity=4)]), load_catalog(),
        export_controls=None)
    wrong = [f for f in found if f.code == "compat.sxm_generation"]
    assert [f.detail.en.split(";")[0] for f in wrong] == [
        "H100 SXM5 80GB is an SXM5 module", "A100 80GB SXM4 is an SXM4 module"]


def test_every_card_without_nvlink_is_named() -> None:
    found = _compat((I9, 1), (RTX_4090, 1), ("nvidia-rtx-5090", 1), (BRIDGE, 1))
    finding = found["compat.nvlink_unsupported"]
    assert finding.detail.en.endswith("but GeForce RTX 4090, GeForce RTX 5090 has no NVLink.")
    assert finding.detail.zh.endswith("但 GeForce RTX 4090, GeForce RTX 5090 不支持 NVLink。")


def test_an_infiniband_adapter_is_a_node_network() -> None:
    ndr = "nvidia-connectx-7-ndr-osfp"
    assert load_catalog().get(ndr).network.kind == "infiniband"
    assert "compat.node_network" not in _compat((I9, 1), (RTX_4090, 1), (ndr, 1), nodes=2)


def test_lanes_a_card_wants_and_an_x4_slot_from_the_cpu() -> None:
    # A card of 8 lanes in the Z890's x16 slot runs at x8, beside one at the chipset's x4.
    cat = catalog_with(**{"test-card": (RTX_4090, "test card", {"pcie_lanes": 8})})
    found = _compat((I9, 1), (Z890, 1), ("test-card", 1), (RTX_4090, 1), cat=cat)
    assert found["compat.gpu_lanes"].title.en == "GPUs run at x8 + x4 PCIe lanes"
    # A card whose lane count is not given takes 16: one on its own in an x16 slot is fine.
    unknown = catalog_with(**{"test-card": (RTX_4090, "test card", {"pcie_lanes": None})})
    assert "compat.gpu_lanes" not in _compat((I9, 1), (Z790, 1), ("test-card", 1), cat=unknown)
    # x8 + x4, both from the CPU: x4 is a bottleneck without the chipset.
    wiring = load_catalog().get(Z790).motherboard.gpu_lane_configs
    x4 = catalog_with(**{"test-board": (Z790, "test board", {"gpu_lane_configs": (
        wiring[0], (wiring[1][0], replace(wiring[1][1], lanes=4)))})})
    lanes = _compat((I9, 1), ("test-board", 1), (RTX_4090, 2), cat=x4)["compat.gpu_lanes"]
    assert (lanes.severity, lanes.numbers["min_lanes"]) == (Severity.BOTTLENECK, 4.0)
    assert not lanes.detail.en.endswith("M.2 traffic.")


def test_the_region_and_the_export_list_reach_their_checks() -> None:
    cat = load_catalog()
    # i9-13900K + 2 x RTX 4090 on two RM1000x: over a US 15 A outlet (builds/wall_checks.py).
    desk = Build(name="t", currency="USD", line_items=[
        LineItem(part_id=I9), LineItem(part_id=RTX_4090, quantity=2),
        LineItem(part_id="corsair-rm1000x", quantity=2)])
    assert "wall.outlet" in [f.code for f in check_build(desk, cat, region="us")]
    assert "wall.outlet" not in [f.code for f in check_build(desk, cat)]
    # The shipped export-control list names the H100 PCIe: told for region cn, and not when
    # the caller passes no list.
    h100 = Build(name="t", currency="USD", line_items=[
        LineItem(part_id="nvidia-h100-pcie", quantity=2), LineItem(part_id=I9)])
    assert "export.us_controls" in [f.code for f in check_build(h100, cat, region="cn")]
    assert "export.us_controls" not in [f.code for f in check_build(h100, cat, region="cn",
                                                                     export_controls=None)]


def test_a_module_of_the_boards_generation_does_not_hide_the_next_line() -> None:
    found = check_build(Build(name="t", line_items=[
        LineItem(part_id=DGX), LineItem(part_id=B200, quantity=4),
        LineItem(part_id=H100, quantity=4)]), load_catalog(), export_controls=None)
    wrong = [f for f in found if f.code == "compat.sxm_generation"]
    assert [f.numbers for f in wrong] == [{"gpus": 4.0}]
    assert wrong[0].detail.en.startswith("H100 SXM5 80GB is an SXM5 module")
