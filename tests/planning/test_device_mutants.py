"""The GPU a plan is for: which peak a precision uses, and how a catalog GPU or a detected
machine, tier or build becomes a DeviceSpec with its links (mutation testing, issue 28).
Sources: docs/estimation.md sec. 3.2 (int8/int4 weight-only models compute in 16 bit and use
the fp16 peak; tf32 falls back to fp32 without TF32 tensor cores), docs/hardware-sources.md
sec. 3 (which link a GPU has). GPU figures are the catalog's (NVIDIA datasheets: A100 80GB SXM
19.5 / 156 / 312 TFLOP/s fp32 / tf32 / fp16, 2039 GB/s).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from torchrig.builds.capabilities import Capabilities
from torchrig.catalog.loader import load_catalog
from torchrig.i18n import Msg
from torchrig.planning.device import (
    DeviceSpec,
    device_spec,
    link_for,
    part_link,
    subject_device,
)
from torchrig.planning.links import LINKS
from torchrig.units import GiB


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _gpu(catalog, part_id: str, **changes):
    part = catalog.get(part_id)
    return replace(part, specs=replace(part.specs, **changes)) if changes else part


# --------------------------------------------------------------------------- peak_for

FULL = DeviceSpec("GPU", 80 * GiB, {"fp32": 1.0, "tf32": 2.0, "fp16": 3.0, "bf16": 4.0,
                                     "int8": 5.0})


@pytest.mark.parametrize(("precision", "expected"), [
    ("fp32", (1.0, "fp32")), ("tf32", (2.0, "tf32")), ("amp_fp16", (3.0, "fp16")),
    ("amp_bf16", (4.0, "bf16")), ("bf16", (4.0, "bf16")),
    ("int8", (3.0, "fp16")), ("int4", (3.0, "fp16")),  # dequantized to 16 bit
])
def test_each_precision_uses_its_peak(precision, expected):
    assert FULL.peak_for(precision) == expected


def test_tf32_falls_back_to_fp32_only_when_missing():
    no_tf32 = DeviceSpec("GPU", None, {"fp32": 1.0, "fp16": 3.0})
    assert no_tf32.peak_for("tf32") == (1.0, "fp32")
    assert DeviceSpec("GPU", None, {}).peak_for("tf32") == (None, "fp32")
    # no fallback for the others
    assert no_tf32.peak_for("bf16") == (None, "bf16")
    assert DeviceSpec("GPU", None, {"fp32": 1.0}).peak_for("amp_fp16") == (None, "fp16")


def test_a_spec_without_figures_knows_nothing():
    spec = DeviceSpec("GPU", None)
    assert spec.peak_flops == {}
    assert (spec.memory_bandwidth_bps, spec.tensor_cores) == (None, None)
    assert (spec.intra_link, spec.inter_link) == (None, None)


# --------------------------------------------------------------------------- catalog GPUs


def test_a100_sxm_from_the_catalog(catalog):
    spec = device_spec(catalog.get("nvidia-a100-80gb-sxm"))
    assert spec.name == catalog.get("nvidia-a100-80gb-sxm").name
    assert spec.vram_bytes == 80 * GiB
    assert dict(spec.peak_flops) == {"fp32": 19.5e12, "tf32": 156e12, "fp16": 312e12,
                                     "bf16": 312e12, "fp8": None, "fp4": None, "int8": None}
    assert spec.memory_bandwidth_bps == 2039e9
    assert spec.tensor_cores is True
    assert spec.intra_link is LINKS["nvlink3"]
    assert spec.inter_link is None


def test_part_links(catalog):
    assert part_link(catalog.get("nvidia-h100-sxm")) is LINKS["nvlink4"]  # Hopper SXM
    assert part_link(catalog.get("nvidia-h200-sxm")) is LINKS["nvlink4"]
    assert part_link(catalog.get("nvidia-a100-80gb-sxm")) is LINKS["nvlink3"]
    # Blackwell SXM6: NVLink 5, 18 links x 100 GB/s (the catalog's gpu_link and gpu_link_gb_s)
    b200 = catalog.get("nvidia-b200-sxm")
    assert part_link(b200) is LINKS["nvlink5"]
    assert LINKS["nvlink5"].bandwidth_bps * 2 == b200.gpu.gpu_link_bandwidth
    # an SXM module of an architecture the table does not know: the slowest NVLink
    assert part_link(_gpu(catalog, "nvidia-b200-sxm", architecture="Rubin")) is LINKS["nvlink3"]
    # NVLink-capable PCIe cards: a bridge is the build's choice, so the slot
    assert part_link(catalog.get("nvidia-rtx-3090")) is LINKS["pcie4_x16"]
    assert part_link(catalog.get("nvidia-h100-pcie")) is LINKS["pcie5_x16"]
    assert part_link(catalog.get("nvidia-gtx-1660-super")) is LINKS["pcie3_x16"]
    assert part_link(catalog.get("nvidia-jetson-agx-orin-64gb")) is None  # no PCIe slot
    # an SXM module whose NVLink the catalog does not state: its PCIe generation
    assert part_link(_gpu(catalog, "nvidia-a100-80gb-sxm", nvlink=False)) is LINKS["pcie4_x16"]
    assert part_link(_gpu(catalog, "nvidia-a100-80gb-sxm", nvlink=None)) is LINKS["pcie4_x16"]
    # generations outside the table are clamped to PCIe 3 and PCIe 5
    assert part_link(_gpu(catalog, "nvidia-rtx-4090", pcie_gen=2)) is LINKS["pcie3_x16"]
    assert part_link(_gpu(catalog, "nvidia-rtx-4090", pcie_gen=6)) is LINKS["pcie5_x16"]
    assert part_link(_gpu(catalog, "nvidia-rtx-4090", form_factor=None)) is LINKS["pcie4_x16"]


# --------------------------------------------------------------------------- subjects


def _caps(**fields) -> Capabilities:
    return Capabilities(label=Msg("test", "测试"), kind="build", **fields)


def test_links_of_an_nvlink_subject(catalog):
    h100 = catalog.get("nvidia-h100-sxm")
    assert link_for(_caps(gpu_interconnect="nvlink", gpu_part=h100, gpu_count=8)) == \
        (LINKS["nvlink4"], None)
    rtx3090 = catalog.get("nvidia-rtx-3090")  # GA102: the 2-way bridge
    assert link_for(_caps(gpu_interconnect="nvlink", gpu_part=rtx3090, gpu_count=2))[0] is \
        LINKS["nvlink3_ga102"]
    a100 = catalog.get("nvidia-a100-80gb-sxm")
    assert link_for(_caps(gpu_interconnect="nvlink", gpu_part=a100, gpu_count=8))[0] is \
        LINKS["nvlink3"]
    b200 = catalog.get("nvidia-b200-sxm")
    assert link_for(_caps(gpu_interconnect="nvlink", gpu_part=b200, gpu_count=8))[0] is \
        LINKS["nvlink5"]
    # NVLink named but the part unknown: the A100's NVLink 3
    assert link_for(_caps(gpu_interconnect="nvlink", gpu_count=2))[0] is LINKS["nvlink3"]


def test_links_of_a_pcie_subject():
    # the slowest slot decides; unknown generations are left out, none known means gen 4
    assert link_for(_caps(gpu_count=2, gpu_links=[(5, 16), (4, 16)]))[0] is LINKS["pcie4_x16"]
    assert link_for(_caps(gpu_count=2, gpu_links=[(None, 16), (5, 16)]))[0] is LINKS["pcie5_x16"]
    assert link_for(_caps(gpu_count=1, gpu_links=[]))[0] is LINKS["pcie4_x16"]
    assert link_for(_caps(gpu_count=1, gpu_links=[(2, 16)]))[0] is LINKS["pcie3_x16"]
    assert link_for(_caps(gpu_count=1, gpu_links=[(6, 16)]))[0] is LINKS["pcie5_x16"]
    assert link_for(_caps(gpu_count=0)) == (None, None)


@pytest.mark.parametrize(("network", "bps", "link"), [
    ("infiniband", 400e9, "ib_ndr"), ("infiniband", 800e9, "ib_ndr"),
    ("infiniband", 399e9, "ib_hdr"), ("infiniband", 200e9, "ib_hdr"),
    ("ethernet", 100e9, "eth_100g"), ("ethernet", 400e9, "eth_100g"),
    ("ethernet", 99e9, "eth_25g"), ("ethernet", 25e9, "eth_25g"),
    ("ethernet", 24e9, "eth_10g"), ("ethernet", 10e9, "eth_10g"),
])
def test_node_network_links(network, bps, link):
    assert link_for(_caps(gpu_count=8, node_network=network, node_network_bps=bps))[1] is \
        LINKS[link]


def test_no_node_network_without_both_kind_and_rate():
    assert link_for(_caps(gpu_count=8, node_network="infiniband"))[1] is None
    assert link_for(_caps(gpu_count=8, node_network_bps=400e9))[1] is None


def test_subject_device_from_the_catalog_part(catalog):
    a100 = catalog.get("nvidia-a100-80gb-sxm")
    caps = _caps(gpu_part=a100, gpu_count=8, gpu_interconnect="nvlink",
                 node_network="infiniband", node_network_bps=200e9)
    spec = subject_device(caps)
    assert spec.name == a100.name and spec.vram_bytes == 80 * GiB
    assert spec.peak_flops["fp16"] == 312e12
    assert (spec.intra_link, spec.inter_link) == (LINKS["nvlink3"], LINKS["ib_hdr"])
    # what was detected wins over the catalog
    detected = subject_device(replace(caps, vram_per_gpu_bytes=79 * GiB))
    assert detected.vram_bytes == 79 * GiB
    assert detected.peak_flops["fp16"] == 312e12


def test_subject_device_without_a_catalog_part():
    spec = subject_device(_caps(gpu_count=2, gpu_name="Some GPU", vram_per_gpu_bytes=24 * GiB,
                                tensor_cores=True, gpu_links=[(4, 16)]))
    assert spec == DeviceSpec(name="Some GPU", vram_bytes=24 * GiB, tensor_cores=True,
                              intra_link=LINKS["pcie4_x16"], inter_link=None,
                              host_link=LINKS["pcie4_x16"])  # seen at gen 4: ZeRO-Offload's
    assert subject_device(_caps(gpu_count=1)).name == "GPU"
    assert subject_device(_caps(gpu_count=0, gpu_name="Some GPU")) is None


def test_the_subjects_links_win_over_the_parts():
    # an SXM module in a machine whose GPUs talk over PCIe: the machine's link, not NVLink
    catalog = load_catalog()
    a100 = catalog.get("nvidia-a100-80gb-sxm")
    spec = subject_device(_caps(gpu_part=a100, gpu_count=2, gpu_interconnect="pcie",
                                gpu_links=[(4, 16), (4, 16)]))
    assert spec.intra_link is LINKS["pcie4_x16"]
    # without a catalog part the node network is kept too
    spec = subject_device(_caps(gpu_count=8, gpu_name="Some GPU", gpu_links=[(5, 16)],
                                node_network="ethernet", node_network_bps=100e9))
    assert (spec.intra_link, spec.inter_link) == (LINKS["pcie5_x16"], LINKS["eth_100g"])
