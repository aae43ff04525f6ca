"""Targets-table facts that mutation testing (scripts/mutate.py builds.targets) found unpinned:
each comparison at its boundary (a value equal to the target meets, twice the top of the range
exceeds, a target of 0 met by a card without tensor cores), every storage and interconnect
case, the target texts and the JSON form, in both languages. Subjects are Capabilities written
in the test; targets are the shipped tiers' (resources/tiers.json, read through the catalog) or
a tier with one requirement changed. The rules are builds/targets.py's module doc: meets,
short, exceeds = at least twice the target (or a faster class of device).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchrig.builds.capabilities import Capabilities
from torchrig.builds.targets import Status, compare
from torchrig.catalog import load_catalog
from torchrig.i18n import Msg

GiB = 1024**3
S = Status


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def _caps(**fields: object) -> Capabilities:
    return Capabilities(label=Msg("s", "s"), kind="build", **fields)  # type: ignore[arg-type]


def _tier(cat, tier_id: str, **req: object):
    tier = cat.tier(tier_id)
    return replace(tier, requirements=replace(tier.requirements, **req))


def _row(cat, tier, key: str, subjects: list[Capabilities], lang: str = "en"):
    return next(r for r in compare(tier, cat, subjects, lang) if r.key == key)


def _cells(row) -> list[tuple[str, Status, object]]:
    return [(c.text, c.status, c.value) for c in row.cells]


def test_the_row_order_and_names(cat) -> None:
    rows = compare(cat.tier("entry"), cat, [_caps()])
    assert [(r.key, r.dimension.en, r.dimension.zh) for r in rows] == [
        ("cpu_cores", "CPU cores", "CPU 核心数"),
        ("gpus_per_node", "GPUs per node", "每节点 GPU 数"),
        ("vram_per_gpu", "VRAM per GPU", "单卡显存"),
        ("tensor_flops", "Tensor throughput (FP16/BF16 dense, per GPU)",
         "张量算力（FP16/BF16 稠密，单卡）"),
        ("ram", "System RAM (per node)", "系统内存（每节点）"),
        ("storage", "Storage", "存储"),
        ("interconnect", "Interconnect", "互联")]


def test_cpu_cores_at_each_boundary(cat) -> None:
    # Entry tier: at least 6 cores (the seed's i5-12400F). 12 = 2 x 6 exceeds, 11 meets.
    row = _row(cat, cat.tier("entry"), "cpu_cores",
               [_caps(cpu_cores=n) for n in (None, 5, 6, 11, 12)])
    assert (row.target, row.target_value) == (">= 6", 6)
    assert _cells(row) == [("unknown", S.UNKNOWN, None), ("5 cores", S.SHORT, 5),
                           ("6 cores", S.MEETS, 6), ("11 cores", S.MEETS, 11),
                           ("12 cores", S.EXCEEDS, 12)]
    assert _cells(_row(cat, cat.tier("entry"), "cpu_cores", [_caps(cpu_cores=1)], "zh")) == [
        ("1 核", S.SHORT, 1)]


def test_no_core_target_is_no_target(cat) -> None:
    row = _row(cat, _tier(cat, "entry", min_cpu_cores=None), "cpu_cores",
               [_caps(cpu_cores=64), _caps()])
    assert (row.target, row.target_value) == ("-", None)
    assert _cells(row) == [("64 cores", S.NO_TARGET, 64), ("unknown", S.NO_TARGET, None)]


def test_gpus_per_node_within_a_range(cat) -> None:
    # Enterprise: 2-4 GPUs per node. Exceeds from 2 x 4 = 8; 7 still meets.
    row = _row(cat, cat.tier("enterprise"), "gpus_per_node",
               [_caps(gpu_count=n) for n in (1, 2, 4, 7, 8)])
    assert (row.target, row.target_value) == ("2-4", 2)
    assert [c.status for c in row.cells] == [S.SHORT, S.MEETS, S.MEETS, S.MEETS, S.EXCEEDS]
    assert [c.text for c in row.cells] == ["1", "2", "4", "7", "8"]
    one = _row(cat, cat.tier("entry"), "gpus_per_node", [_caps(gpu_count=n) for n in (1, 2)])
    assert one.target == "1"
    assert [c.status for c in one.cells] == [S.MEETS, S.EXCEEDS]


def test_vram_per_gpu(cat) -> None:
    # Entry: at least 6 GiB (the GTX 1660 Super's).
    row = _row(cat, cat.tier("entry"), "vram_per_gpu", [
        _caps(), _caps(gpu_count=1), _caps(gpu_count=1, vram_per_gpu_bytes=6 * GiB),
        _caps(gpu_count=1, vram_per_gpu_bytes=12 * GiB)])
    assert (row.target, row.target_value) == (">= 6 GiB", 6 * GiB)
    assert _cells(row) == [("no GPU", S.SHORT, 0), ("unknown", S.UNKNOWN, None),
                           ("6 GiB", S.MEETS, 6 * GiB), ("12 GiB", S.EXCEEDS, 12 * GiB)]
    assert _row(cat, _tier(cat, "entry", min_vram_bytes=None), "vram_per_gpu",
                [_caps(gpu_count=1)]).target == "-"
    assert _cells(_row(cat, cat.tier("entry"), "vram_per_gpu", [_caps()], "zh")) == [
        ("无 GPU", S.SHORT, 0)]


def test_tensor_throughput_against_a_card_with_tensor_cores(cat) -> None:
    gpu = cat.get(cat.tier("professional").part_choice("gpu").recommended)
    target = gpu.gpu.bf16_tensor_flops or gpu.gpu.fp16_tensor_flops
    row = _row(cat, cat.tier("professional"), "tensor_flops", [
        _caps(), _caps(gpu_count=1), _caps(gpu_count=1, tensor_cores=False),
        _caps(gpu_count=1, tensor_flops=target), _caps(gpu_count=1, tensor_flops=2 * target)])
    assert row.target == f">= {target / 1e12:.1f} TFLOP/s ({gpu.name})"
    assert row.target_value == target
    assert _cells(row) == [
        ("no GPU", S.SHORT, 0), ("unknown", S.UNKNOWN, None),
        ("no tensor cores", S.SHORT, 0.0),
        (f"{target / 1e12:.1f} TFLOP/s", S.MEETS, target),
        (f"{2 * target / 1e12:.1f} TFLOP/s", S.EXCEEDS, 2 * target)]
    zh = _row(cat, cat.tier("professional"), "tensor_flops",
              [_caps(gpu_count=1), _caps(gpu_count=1, tensor_cores=False)], "zh")
    assert [c.text for c in zh.cells] == ["未知", "无张量核心"]


def test_tensor_throughput_against_a_card_without_tensor_cores(cat) -> None:
    # Entry's GTX 1660 Super has none: the target is 0, met by another such card and
    # exceeded by any tensor throughput at all.
    gpu = cat.get(cat.tier("entry").part_choice("gpu").recommended)
    assert gpu.gpu.tensor_cores is False
    row = _row(cat, cat.tier("entry"), "tensor_flops", [
        _caps(gpu_count=1, tensor_cores=False), _caps(gpu_count=1, tensor_flops=1e12)])
    assert row.target == f"no tensor cores ({gpu.name})"
    assert _cells(row) == [("no tensor cores", S.MEETS, 0.0),
                           ("1.0 TFLOP/s", S.EXCEEDS, 1e12)]
    zh = _row(cat, cat.tier("entry"), "tensor_flops", [_caps()], "zh")
    assert zh.target == f"无张量核心 ({gpu.name})"


def test_ram(cat) -> None:
    row = _row(cat, cat.tier("entry"), "ram", [_caps(ram_bytes=16 * GiB), _caps()])
    assert (row.target, row.target_value) == (">= 16 GiB", 16 * GiB)
    assert _cells(row) == [("16 GiB", S.MEETS, 16 * GiB), ("unknown", S.UNKNOWN, None)]


def test_local_storage_kinds_and_size(cat) -> None:
    # Entry: an NVMe drive of at least 512 GB.
    tier = cat.tier("entry")
    row = _row(cat, tier, "storage", [
        _caps(storage_kind="nvme", storage_bytes=256 * 10**9),
        _caps(storage_kind="nvme", storage_bytes=512 * 10**9),
        _caps(storage_kind="sata-ssd", storage_bytes=10**12),
        _caps(storage_kind="nvme"),
        _caps(unknown={"storage_kind": Msg("no disks here", "这里没有磁盘")}),
        _caps()])
    assert (row.target, row.target_value) == ("NVMe, >= 512 GB", "nvme")
    assert _cells(row) == [
        ("NVMe, 256.0 GB (< 512 GB)", S.SHORT, "nvme"),
        ("NVMe, 512.0 GB", S.MEETS, "nvme"),
        ("SATA SSD, 1.0 TB", S.SHORT, "sata-ssd"),
        ("NVMe", S.MEETS, "nvme"),
        ("no disks here", S.UNKNOWN, None),
        ("unknown", S.UNKNOWN, None)]
    zh = _row(cat, tier, "storage", [
        _caps(unknown={"storage_kind": Msg("no disks here", "这里没有磁盘")}), _caps()], "zh")
    assert [c.text for c in zh.cells] == ["这里没有磁盘", "未知"]


def test_storage_ranks_between_the_slowest_and_fastest_kind(cat) -> None:
    # Professional: NVMe or HDD (ranks 3 and 0): anything between meets.
    tier = _tier(cat, "professional", storage_bytes=None)
    row = _row(cat, tier, "storage", [_caps(storage_kind=k)
                                      for k in ("hdd", "network", "sata-ssd", "nvme")])
    assert row.target == "NVMe / HDD"
    assert row.target_value == "nvme,hdd"
    assert [c.status for c in row.cells] == [S.MEETS] * 4
    hdd_only = _row(cat, _tier(cat, "professional", storage_kinds=("hdd",),
                               storage_bytes=None), "storage",
                    [_caps(storage_kind="hdd"), _caps(storage_kind="sata-ssd")])
    assert [c.status for c in hdd_only.cells] == [S.MEETS, S.EXCEEDS]
    # A kind outside the ranking (a virtual disk), or a target with none ranked: unknown.
    odd = _row(cat, tier, "storage", [_caps(storage_kind="virtual")])
    assert _cells(odd) == [("virtual disk", S.UNKNOWN, "virtual")]
    unranked = _row(cat, _tier(cat, "professional", storage_kinds=("ssd",),
                               storage_bytes=None), "storage", [_caps(storage_kind="nvme")])
    assert unranked.cells[0].status is S.UNKNOWN


def test_distributed_storage_needs_shared_storage(cat) -> None:
    tier = cat.tier("enterprise")
    row = _row(cat, tier, "storage", [
        _caps(storage_kind="nvme", storage_bytes=10**12, shared_storage=True),
        _caps(storage_kind="nvme", storage_bytes=10**12)])
    assert (row.target, row.target_value) == ("distributed storage", "distributed")
    assert _cells(row) == [("shared storage + NVMe, 1.0 TB", S.MEETS, "distributed"),
                           ("NVMe, 1.0 TB (no shared storage)", S.SHORT, "nvme")]
    zh = _row(cat, tier, "storage", [_caps(storage_kind="nvme", shared_storage=True),
                                     _caps(storage_kind="hdd")], "zh")
    assert [c.text for c in zh.cells] == ["共享存储 + NVMe", "机械硬盘（无共享存储）"]


def test_interconnect_texts(cat) -> None:
    row = _row(cat, cat.tier("entry"), "interconnect", [
        _caps(gpu_count=1),
        _caps(gpu_count=1, gpu_interconnect="nvlink"),
        _caps(gpu_count=2),
        _caps(gpu_count=2, gpu_interconnect="pcie"),
        _caps(gpu_count=1, nodes=2),
        _caps(gpu_count=2, gpu_interconnect="pcie", nodes=2, node_network="infiniband"),
        _caps(gpu_count=1, node_network="ethernet")])
    assert (row.target, row.target_value) == ("-", "")
    assert [c.text for c in row.cells] == [
        "single GPU", "NVLink", "unknown", "PCIe", "no node network",
        "PCIe + InfiniBand", "Ethernet"]
    assert [c.status for c in row.cells] == [S.MEETS] * 7
    assert [c.value for c in row.cells] == [c.text for c in row.cells]
    zh = _row(cat, cat.tier("entry"), "interconnect",
              [_caps(gpu_count=1), _caps(gpu_count=2), _caps(nodes=2)], "zh")
    assert [c.text for c in zh.cells] == ["单 GPU", "未知", "无节点间网络"]


def test_fast_interconnect_targets(cat) -> None:
    tier = cat.tier("enterprise")
    row = _row(cat, tier, "interconnect", [
        _caps(gpu_count=4, gpu_interconnect="nvlink"),
        _caps(gpu_count=4, gpu_interconnect="pcie", nodes=2, node_network="infiniband"),
        _caps(gpu_count=4, gpu_interconnect="pcie", nodes=2, node_network="ethernet"),
        _caps(gpu_count=4)])
    assert (row.target, row.target_value) == ("NVLink / InfiniBand", "nvlink,infiniband")
    assert [c.status for c in row.cells] == [S.MEETS, S.MEETS, S.SHORT, S.SHORT]
    pcie = _row(cat, _tier(cat, "entry", interconnect=("pcie",)), "interconnect",
                [_caps(gpu_count=2)])
    assert pcie.cells[0].status is S.MEETS and pcie.target == "PCIe"
    # A target that names only a fast link of one kind: the other kind does not count.
    ib = _row(cat, _tier(cat, "entry", interconnect=("infiniband", "pcie")), "interconnect",
              [_caps(gpu_count=2, gpu_interconnect="nvlink")])
    assert ib.cells[0].status is S.SHORT


def test_the_json_form_and_the_status_words(cat) -> None:
    row = _row(cat, cat.tier("entry"), "cpu_cores", [_caps(cpu_cores=12), _caps()])
    assert row.to_dict() == {"dimension": "cpu_cores", "target": 6, "subjects": [
        {"value": 12, "status": "exceeds", "text": "12 cores"},
        {"value": None, "status": "unknown", "text": "unknown"}]}
    assert [(s.value, s.label.en, s.label.zh) for s in Status] == [
        ("meets", "meets", "满足"), ("short", "short", "不足"), ("exceeds", "exceeds", "超出"),
        ("unknown", "unknown", "未知"), ("no target", "no target", "无目标")]


def test_unknown_and_no_gpu_words_in_chinese(cat) -> None:
    ram = _row(cat, cat.tier("entry"), "ram", [_caps()], "zh")
    assert _cells(ram) == [("未知", S.UNKNOWN, None)]
    tensor = _row(cat, cat.tier("professional"), "tensor_flops", [_caps()], "zh")
    assert _cells(tensor) == [("无 GPU", S.SHORT, 0)]


def test_fast_interconnect_cells_carry_their_text_as_value(cat) -> None:
    # The JSON form ("value") of an interconnect cell is its text, whether the target names a
    # fast link (the last return), only PCIe, or nothing: every branch, both statuses.
    fast = _row(cat, cat.tier("enterprise"), "interconnect", [
        _caps(gpu_count=4, gpu_interconnect="nvlink"), _caps(gpu_count=4)])
    assert _cells(fast) == [("NVLink", S.MEETS, "NVLink"), ("unknown", S.SHORT, "unknown")]
    pcie = _row(cat, _tier(cat, "entry", interconnect=("pcie",)), "interconnect",
                [_caps(gpu_count=2, gpu_interconnect="pcie")])
    assert _cells(pcie) == [("PCIe", S.MEETS, "PCIe")]
    assert fast.to_dict()["subjects"][1] == {"value": "unknown", "status": "short",
                                            "text": "unknown"}


def test_ranked_storage_cells_keep_text_and_kind(cat) -> None:
    # A tier that asks for an HDD: an HDD meets, a SATA SSD (a faster class) exceeds; both
    # cells say the drive as text and its kind as value, in English and Chinese.
    tier = _tier(cat, "professional", storage_kinds=("hdd",), storage_bytes=None)
    row = _row(cat, tier, "storage", [
        _caps(storage_kind="hdd", storage_bytes=4 * 10**12),
        _caps(storage_kind="sata-ssd", storage_bytes=2 * 10**12)])
    assert _cells(row) == [("HDD, 4.0 TB", S.MEETS, "hdd"),
                           ("SATA SSD, 2.0 TB", S.EXCEEDS, "sata-ssd")]
    zh = _row(cat, tier, "storage", [_caps(storage_kind="sata-ssd")], "zh")
    assert _cells(zh) == [("SATA 固态硬盘", S.EXCEEDS, "sata-ssd")]


def test_a_tier_without_a_gpu_choice_has_no_tensor_target(cat) -> None:
    # With no GPU named, the tier's tensor cores are unknown (not "none"): the target is "-",
    # and a subject's figure is compared with 0 (any throughput is at least twice 0).
    base = cat.tier("professional")
    tier = replace(base, parts=tuple(c for c in base.parts if c.role != "gpu"))
    assert tier.part_choice("gpu") is None
    row = _row(cat, tier, "tensor_flops", [_caps(gpu_count=1, tensor_flops=1e12)])
    assert row.target == "-"
    assert row.target_value is None
    assert _cells(row) == [("1.0 TFLOP/s", S.EXCEEDS, 1e12)]


def test_every_row_in_chinese_where_the_words_differ(cat) -> None:
    # Each row's own words in a Chinese table (labels.py's names): unknown cores and VRAM, the
    # storage and interconnect targets, and a subject on an NVLink bridge and Ethernet.
    tier = _tier(cat, "professional", storage_kinds=("nvme", "hdd"),
                 interconnect=("nvlink", "ethernet"))
    rows = {r.key: r for r in compare(tier, cat, [
        _caps(gpu_count=2, gpu_interconnect="nvlink-bridge", nodes=2,
              node_network="ethernet")], "zh")}
    assert rows["cpu_cores"].cells[0].text == "未知"
    assert rows["vram_per_gpu"].cells[0].text == "未知"
    assert rows["storage"].target.startswith("NVMe / 机械硬盘")
    assert rows["interconnect"].target == "NVLink / 以太网"
    assert rows["interconnect"].cells[0].text == "NVLink 桥 + 以太网"
