"""Capabilities facts that mutation testing (scripts/mutate.py builds.capabilities) found
unpinned: every field of a machine, a tier and a build, the second branch of each (two GPUs of
different memory, no GPU, Apple GPUs left out, NVLink active or not, drives of each kind, two
CPUs, an NVLink bridge, an InfiniBand adapter, cluster lines), and the reasons given for what
is unknown. Part figures are read from the shipped catalog (vendor specifications, sourced in
resources/catalog); tier minimums from resources/tiers.json through the catalog.
"""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.capabilities import (
    STORAGE_RANK,
    THIS_MACHINE,
    Capabilities,
    from_build,
    from_profile,
    from_tier,
)
from torchrig.catalog import load_catalog
from torchrig.hardware.model import (
    AcceleratorStack,
    CpuInfo,
    DiskInfo,
    GpuInfo,
    MemoryInfo,
    NvLinkInfo,
    SystemProfile,
)
from torchrig.i18n import Msg

GPU, CPU, EPYC = "nvidia-rtx-4090", "intel-core-i9-13900k", "amd-epyc-9554"
RAM = "kingston-fury-beast-64gb-ddr5-6000-kf560c36bbek2-64"
NVME, PSU = "western-digital-wd-black-sn850x-4tb", "seasonic-focus-gx-1000-v4"
IB, BRIDGE, ETH = ("nvidia-connectx-7-ndr-osfp", "nvidia-nvlink-bridge-2way-ga102",
                   "intel-x520-da2")
A100_SXM = "nvidia-a100-80gb-sxm"
GiB = 1024**3


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def _part(part_id: str, quantity: int = 1, **kw: object) -> LineItem:
    return LineItem(part_id=part_id, quantity=quantity, **kw)  # type: ignore[arg-type]


# --- a build -------------------------------------------------------------------------------


def test_every_field_of_a_build(cat) -> None:
    gpu, cpu, ram = cat.get(GPU), cat.get(CPU), cat.get(RAM)
    drive, psu = cat.get(NVME), cat.get(PSU)
    build = Build(name="Box", nodes=3, line_items=[
        _part(CPU), _part(GPU, 2), _part(RAM, 2), _part(NVME, 2), _part(PSU, 1),
        _part(GPU, 5, scope="cluster")])
    caps = from_build(build, cat)
    assert caps.label == Msg("Box", "Box") and caps.kind == "build" and caps.nodes == 3
    assert (caps.cpu_name, caps.cpu_cores, caps.cpu_threads) == (
        cpu.name, cpu.cpu.cores, cpu.cpu.threads)
    assert caps.cpu_tdp_w == cpu.cpu.tdp_w
    assert caps.memory_type == ram.memory.memory_type
    # The cluster line's GPUs are not the node's.
    assert caps.gpu_count == 2 and caps.gpu_name == gpu.name and caps.gpu_part == gpu
    assert caps.vram_per_gpu_bytes == gpu.gpu.vram_bytes
    assert caps.total_vram_bytes == 2 * gpu.gpu.vram_bytes
    assert caps.tensor_cores is True
    assert caps.tensor_flops == (gpu.gpu.bf16_tensor_flops or gpu.gpu.fp16_tensor_flops)
    assert caps.fp32_flops == gpu.gpu.fp32_flops
    assert caps.gpu_memory_bandwidth == gpu.gpu.memory_bandwidth
    assert caps.compute_capability == gpu.gpu.compute_capability
    assert caps.gpu_tdp_w == gpu.gpu.tdp_w
    assert caps.gpu_links == [(gpu.gpu.pcie_gen, gpu.gpu.pcie_lanes)] * 2
    assert caps.gpu_interconnect == "pcie"
    assert caps.ram_bytes == 2 * ram.memory.total_bytes
    assert caps.storage_kind == "nvme"
    assert caps.storage_bytes == 2 * drive.storage.capacity_bytes
    assert caps.storage_read_bps == drive.storage.seq_read
    assert caps.storage_read_basis == Msg("catalog sequential read of the fastest drive",
                                          "目录中最快硬盘的顺序读速度")
    assert caps.psu_w == psu.psu.wattage_w
    assert caps.node_network is None and not caps.shared_storage
    assert caps.unknown == {}


def test_two_cpus_and_a_build_without_a_name(cat) -> None:
    epyc = cat.get(EPYC)
    caps = from_build(Build(name="", line_items=[_part(EPYC, 2), _part(PSU, 2)]), cat)
    assert caps.label == Msg("Build", "配置单")
    assert caps.cpu_name == f"2x {epyc.name}"
    assert caps.cpu_cores == 2 * epyc.cpu.cores and caps.cpu_threads == 2 * epyc.cpu.threads
    assert caps.cpu_tdp_w == 2 * epyc.cpu.tdp_w
    assert caps.memory_type == epyc.cpu.memory_types[0]
    assert caps.psu_w == 2 * cat.get(PSU).psu.wattage_w
    assert caps.gpu_count == 0 and caps.total_vram_bytes is None


def test_networks_and_bridges(cat) -> None:
    ib = cat.get(IB)
    caps = from_build(Build(name="n", nodes=2, line_items=[
        _part(GPU, 2), _part(BRIDGE), _part(IB)]), cat)
    assert caps.gpu_interconnect == "nvlink"
    assert caps.node_network == "infiniband"
    assert caps.node_network_bps == ib.network.rate_bits_per_s
    eth = from_build(Build(name="e", line_items=[_part(ETH)]), cat)
    assert eth.node_network == "ethernet"
    assert eth.node_network_bps == cat.get(ETH).network.rate_bits_per_s
    sxm = from_build(Build(name="s", line_items=[_part(A100_SXM, 4)]), cat)
    assert sxm.gpu_interconnect == "nvlink" and sxm.gpu_count == 4


def test_custom_lines_and_missing_parts_are_named_as_unknown(cat) -> None:
    caps = from_build(Build(name="c", line_items=[
        LineItem(text="DGX", category="server-platform"),
        LineItem(text="Ceph", category="storage-system"),
        LineItem(text="rails", category="other")]), cat)
    assert caps.shared_storage
    why = Msg("given by a custom line (no catalog specs): Other, Server platform, "
              "Storage system",
              "由自定义条目提供（无目录规格）：其他、服务器平台、存储系统")
    assert caps.unknown == {"cpu_cores": why, "ram_bytes": why, "vram_per_gpu_bytes": why}
    empty = from_build(Build(name="e"), cat)
    none = Msg("no such part", "没有这类部件")
    assert empty.unknown == {"cpu_cores": none, "ram_bytes": none, "vram_per_gpu_bytes": none}
    assert empty.ram_bytes is None and empty.storage_kind is None
    assert empty.storage_bytes is None and empty.psu_w is None


def test_the_fastest_drive_kind_wins_and_sizes_add(cat) -> None:
    drives = [p for p in cat.parts.values() if p.category == "storage"]
    hdd = next(p for p in drives if p.storage.kind == "hdd")
    nvme = cat.get(NVME)
    caps = from_build(Build(name="d", line_items=[_part(hdd.id, 2), _part(NVME)]), cat)
    assert caps.storage_kind == "nvme"
    assert caps.storage_bytes == 2 * hdd.storage.capacity_bytes + nvme.storage.capacity_bytes
    assert caps.storage_read_bps == nvme.storage.seq_read
    only_hdd = from_build(Build(name="h", line_items=[_part(hdd.id)]), cat)
    assert only_hdd.storage_kind == "hdd" and only_hdd.storage_read_bps == hdd.storage.seq_read


def test_the_storage_ranking() -> None:
    assert STORAGE_RANK == {"hdd": 0, "network": 1, "sata-ssd": 2, "nvme": 3}


# --- a tier --------------------------------------------------------------------------------


def test_every_field_of_a_tier(cat) -> None:
    tier = cat.tier("professional")
    req = tier.requirements
    cpu = cat.get(tier.part_choice("cpu").recommended)
    gpu = cat.get(tier.part_choice("gpu").recommended)
    caps = from_tier(tier, cat)
    assert caps.label == tier.name and caps.kind == "tier" and caps.nodes == req.nodes[0]
    assert (caps.cpu_name, caps.cpu_cores, caps.cpu_threads, caps.cpu_tdp_w) == (
        cpu.name, cpu.cpu.cores, cpu.cpu.threads, cpu.cpu.tdp_w)
    assert caps.gpu_count == req.gpus_per_node[0] and caps.gpu_part == gpu
    assert caps.vram_per_gpu_bytes == gpu.gpu.vram_bytes
    assert caps.ram_bytes == req.min_ram_bytes and caps.memory_type == req.memory_type
    # NVMe and HDD: the faster kind.
    assert req.storage_kinds == ("nvme", "hdd") and caps.storage_kind == "nvme"
    assert caps.storage_bytes == req.storage_bytes and not caps.shared_storage
    assert caps.gpu_interconnect is None and caps.node_network is None


def test_a_multi_node_tier(cat) -> None:
    tier = cat.tier("enterprise")
    req = tier.requirements
    caps = from_tier(tier, cat)
    assert caps.nodes == req.nodes[0] == 2 and caps.gpu_count == req.gpus_per_node[0] == 2
    assert caps.shared_storage and caps.storage_kind is None
    assert caps.gpu_interconnect == "nvlink" and caps.node_network == "infiniband"
    # The rate of the InfiniBand adapter among the tier's starter lines.
    adapters = [cat.get(line.part_id) for line in tier.starter_lines
                if line.part_id and cat.get(line.part_id).category == "network"
                and cat.get(line.part_id).network.kind == "infiniband"]
    assert adapters and caps.node_network_bps == adapters[-1].network.rate_bits_per_s


def test_a_tier_without_parts_takes_its_minimums(cat) -> None:
    from dataclasses import replace

    tier = cat.tier("entry")
    bare = replace(tier, parts=(), requirements=replace(tier.requirements,
                                                        gpus_per_node=(2, 2),
                                                        interconnect=("pcie",)))
    caps = from_tier(bare, cat)
    assert caps.cpu_cores == tier.requirements.min_cpu_cores and caps.cpu_name is None
    assert caps.vram_per_gpu_bytes == tier.requirements.min_vram_bytes
    assert caps.gpu_part is None and caps.tensor_flops is None
    assert caps.gpu_interconnect == "pcie"
    one = replace(bare, requirements=replace(bare.requirements, gpus_per_node=(1, 1),
                                             interconnect=()))
    assert from_tier(one, cat).gpu_interconnect is None
    two = replace(one, requirements=replace(one.requirements, gpus_per_node=(2, 2)))
    assert from_tier(two, cat).gpu_interconnect == "pcie"


# --- this machine --------------------------------------------------------------------------


def _profile(**kw: object) -> SystemProfile:
    return SystemProfile(**kw)  # type: ignore[arg-type]


def test_every_field_of_a_machine_with_a_catalog_gpu(cat) -> None:
    gpu = cat.get(GPU)
    vram = gpu.gpu.vram_bytes
    profile = _profile(
        cpu=CpuInfo(model_name="Some CPU", physical_cores=8, logical_cpus=16),
        memory=MemoryInfo(total_bytes=64 * GiB, dimm_type="DDR5", swap_total_bytes=8 * GiB),
        gpus=[GpuInfo(index=0, name=gpu.name, vendor="NVIDIA", vram_total_bytes=vram,
                      compute_capability="8.9", pcie_gen_max=4, pcie_width_max=16,
                      nvlinks=[NvLinkInfo(0, active=False)]),
              GpuInfo(index=1, name=gpu.name, vendor="NVIDIA", vram_total_bytes=vram - GiB,
                      pcie_gen_max=4, pcie_width_max=8),
              GpuInfo(index=2, name="Apple M2", vendor="Apple")],
        disks=[DiskInfo("/", kind="nvme", total_bytes=10**12),
               DiskInfo("/data", kind="hdd", total_bytes=4 * 10**12),
               DiskInfo("/mnt/nfs", kind="network", total_bytes=10**15),
               DiskInfo("/boot", kind="unknown", total_bytes=10**9)])
    caps = from_profile(profile, cat)
    assert caps.label == THIS_MACHINE == Msg("This machine", "本机")
    assert caps.kind == "machine"
    assert (caps.cpu_name, caps.cpu_cores, caps.cpu_threads) == ("Some CPU", 8, 16)
    assert (caps.ram_bytes, caps.memory_type, caps.swap_bytes) == (64 * GiB, "DDR5", 8 * GiB)
    assert caps.gpu_count == 2                       # the Apple GPU is left out
    assert caps.gpu_name == gpu.name
    assert caps.vram_per_gpu_bytes == vram - GiB     # the smaller card bounds a model
    assert caps.compute_capability == "8.9"
    assert caps.gpu_links == [(4, 16), (4, 8)]
    assert caps.gpu_interconnect == "pcie"           # an NVLink that is not active
    assert caps.gpu_part == gpu
    assert caps.tensor_flops == (gpu.gpu.bf16_tensor_flops or gpu.gpu.fp16_tensor_flops)
    assert caps.shared_storage
    # The fastest local kind; the sizes of every local (ranked) drive added, network too.
    assert caps.storage_kind == "nvme"
    assert caps.storage_bytes == 10**12 + 4 * 10**12 + 10**15
    assert caps.unknown == {"storage_read_bps": Msg(
        "not measured: run the storage benchmark on the dataset's disk",
        "未测量：请在数据集所在的磁盘上运行存储基准测试")}


def test_an_active_nvlink_and_an_unknown_gpu(cat) -> None:
    profile = _profile(gpus=[
        GpuInfo(index=0, name="Mystery GPU", vendor="NVIDIA", vram_total_bytes=None),
        GpuInfo(index=1, name="Mystery GPU", vendor="NVIDIA",
                nvlinks=[NvLinkInfo(0, active=False), NvLinkInfo(1, active=True)])])
    caps = from_profile(profile, cat)
    assert caps.gpu_interconnect == "nvlink"
    assert caps.vram_per_gpu_bytes is None
    assert caps.gpu_part is None and caps.tensor_flops is None
    assert caps.unknown["tensor_flops"] == Msg(
        "Mystery GPU is not in the catalog: no sourced peak figures",
        "Mystery GPU 不在目录中：没有有出处的峰值数据")
    nameless = from_profile(_profile(gpus=[GpuInfo(index=0, vendor="NVIDIA")]), cat)
    assert nameless.unknown["tensor_flops"] == Msg(
        "this GPU is not in the catalog: no sourced peak figures",
        "这块 GPU 不在目录中：没有有出处的峰值数据")
    # Without a catalog nothing is matched.
    gpu = cat.get(GPU)
    alone = from_profile(_profile(gpus=[GpuInfo(index=0, name=gpu.name, vendor="NVIDIA",
                                                vram_total_bytes=gpu.gpu.vram_bytes)]))
    assert alone.gpu_part is None and "tensor_flops" in alone.unknown


def test_a_machine_without_gpus_cores_or_drives() -> None:
    caps = from_profile(_profile(cpu=CpuInfo(unknown={
        "physical_cores": Msg("no topology", "无拓扑")})))
    assert caps.gpu_count == 0
    assert caps.unknown["gpu"] == Msg("no GPU detected", "未检测到 GPU")
    assert caps.unknown["cpu_cores"] == Msg("no topology", "无拓扑")
    assert caps.unknown["storage_kind"] == Msg(
        "drive kind not determinable here (no disks)", "无法在这里确定硬盘类型（没有磁盘）")
    assert caps.storage_kind is None and caps.storage_bytes is None
    bare = from_profile(_profile(accelerator=AcceleratorStack(unknown={
        "nvml": Msg("no driver", "无驱动")})))
    assert bare.unknown["cpu_cores"] == Msg("not detected", "未检测到")
    assert bare.unknown["gpu"] == Msg("no driver", "无驱动")


def test_drives_of_kinds_that_rank_nothing() -> None:
    caps = from_profile(_profile(disks=[DiskInfo("/", kind="virtual"),
                                        DiskInfo("/x", kind="unknown")]))
    assert caps.storage_kind is None
    assert caps.unknown["storage_kind"] == Msg(
        "drive kind not determinable here (unknown drive, virtual disk)",
        "无法在这里确定硬盘类型（未知类型硬盘、虚拟磁盘）")
    sizeless = from_profile(_profile(disks=[DiskInfo("/", kind="hdd"),
                                            DiskInfo("/y", kind="nvme", total_bytes=0)]))
    assert sizeless.storage_kind == "nvme" and sizeless.storage_bytes is None


def test_a_default_capabilities_record() -> None:
    caps = Capabilities(label=Msg("x", "x"), kind="build")
    assert caps.nodes == 1 and caps.gpu_count == 0 and caps.gpu_links == []
    assert caps.unknown == {} and caps.total_vram_bytes is None


def _with(cat, base_id: str, new_id: str, **changes: object):
    from dataclasses import replace

    from torchrig.catalog import Catalog

    base = cat.get(base_id)
    parts = dict(cat.parts)
    parts[new_id] = replace(base, id=new_id, specs=replace(base.specs, **changes))
    return Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)


def test_lines_of_one_kind_add_up(cat) -> None:
    ram = cat.get(RAM)
    caps = from_build(Build(name="a", line_items=[
        _part(GPU, 2), _part("nvidia-rtx-3090", 1), _part(RAM, 1), _part(RAM, 2)]), cat)
    assert caps.gpu_count == 3                          # 2 + 1
    assert caps.ram_bytes == 3 * ram.memory.total_bytes  # 1 + 2 kits
    # A kit alone names the memory type; a custom line other than a storage system shares
    # no storage.
    alone = from_build(Build(name="r", line_items=[
        _part(RAM), LineItem(text="rails", category="other")]), cat)
    assert alone.memory_type == ram.memory.memory_type and not alone.shared_storage


def test_the_fastest_drive_of_the_fastest_kind(cat) -> None:
    # Two NVMe drives (catalog: ZhiTai TiPro7000 1 TB 7.4 GB/s, TiPro9000 2 TB 14 GB/s) and a
    # 4 TB SN850X at 7.3 GB/s: the read rate is the fastest drive's, whatever its size or order.
    fast = cat.get("zhitai-tipro9000-2tb")
    caps = from_build(Build(name="d", line_items=[
        _part("western-digital-wd-black-sn850x-4tb"), _part("zhitai-tipro7000-1tb"),
        _part("zhitai-tipro9000-2tb")]), cat)
    assert caps.storage_read_bps == fast.storage.seq_read == 14e9


def test_figures_a_part_does_not_state(cat) -> None:
    gpu = cat.get(GPU)
    mine = _with(cat, GPU, "gpu-x", bf16_tensor_flops=None, fp16_tensor_flops=1e14)
    assert from_build(Build(name="g", line_items=[_part("gpu-x")]), mine).tensor_flops == 1e14
    assert gpu.gpu.bf16_tensor_flops is not None
    cpu = _with(cat, CPU, "cpu-x", threads=None, memory_support=())
    caps = from_build(Build(name="c", line_items=[_part("cpu-x")]), cpu)
    assert caps.cpu_threads is None and caps.memory_type is None


def test_no_network_disk_no_shared_storage() -> None:
    caps = from_profile(_profile(disks=[DiskInfo("/", kind="nvme", total_bytes=10**12)]))
    assert not caps.shared_storage and caps.storage_kind == "nvme"
