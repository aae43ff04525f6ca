"""The GPU a plan is for (:class:`DeviceSpec`), and how a catalog part or a machine's
capabilities become one: dense tensor peaks (FP32 accumulate) and memory from the catalog, the
links to its peers from :mod:`torchrig.planning.links` (docs/hardware-sources.md sec. 3) - the
NVLink of an SXM module or the GPU's PCIe slot inside a node, the node network between nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from torchrig.i18n import Msg
from torchrig.planning.links import LINKS, Link

if TYPE_CHECKING:
    from torchrig.builds.capabilities import Capabilities
    from torchrig.catalog.model import Part


@dataclass(frozen=True)
class DeviceSpec:
    """The GPU the plan is for; the lead adapts catalog parts and detected GPUs to it.

    ``peak_flops`` holds dense FLOP/s per precision key: fp32, tf32, fp16, bf16, int8 (tensor
    figures with FP32 accumulate where the GPU has tensor cores), fp8 and fp4 (dense, on the
    GPUs whose tensor cores have them). None = unknown.
    """

    name: str
    vram_bytes: int | None
    peak_flops: Mapping[str, float | None] = field(default_factory=dict)
    memory_bandwidth_bps: float | None = None
    tensor_cores: bool | None = None
    intra_link: Link | None = None
    inter_link: Link | None = None
    """How this GPU reaches its peers inside a node and between nodes (the scaling model's
    links); None = unknown, and multi-GPU time is then the perfect-scaling upper bound."""
    architecture: str | None = None
    """The catalog's architecture name ("Hopper"); None = unknown (a detected GPU)."""
    host_link: Link | None = None
    """The GPU's PCIe link to its host (ZeRO-Offload's copies); None = unknown."""
    nics_per_node: int = 1
    """Network ports of ``inter_link`` each node has for the GPUs' traffic: 1 unless the
    system is known to have more (a DGX H100 has eight ConnectX-7 ports, one per GPU)."""

    def peak_for(self, precision: str) -> tuple[float | None, str]:
        """The peak that applies to a workload precision, and which key it came from.

        Weight-only int8/int4 models compute in 16 bit (the weights are dequantized), so they
        use the fp16 peak; tf32 falls back to fp32 on GPUs without TF32 tensor cores; fp8 and
        fp4 use their own peak and have none where the tensor cores lack them
        (:func:`missing_tensor_format` says why).
        """
        key = {"fp32": "fp32", "tf32": "tf32", "amp_fp16": "fp16", "amp_bf16": "bf16",
               "bf16": "bf16", "fp8": "fp8", "fp4": "fp4", "int8": "fp16",
               "int4": "fp16"}[precision]
        value = self.peak_flops.get(key)
        if value is None and key == "tf32":
            key, value = "fp32", self.peak_flops.get("fp32")
        return value, key


TENSOR_FORMAT_ARCHITECTURES: dict[str, tuple[str, ...]] = {
    "fp8": ("Ada Lovelace", "Hopper", "Blackwell", "CDNA 3"),
    "fp4": ("Blackwell",),
}
"""Architectures whose tensor cores compute in fp8 (4th-generation tensor cores: Ada, Hopper;
Blackwell's 5th generation; AMD CDNA 3, the MI300 series, whose Matrix Cores have FP8 - the
ROCm MI300 peak table in docs/hardware-sources.md) and in fp4 (NVFP4: Blackwell only). Sources:
NVIDIA Ada and Hopper architecture whitepapers (FP8 Transformer Engine), NVIDIA Blackwell
datasheet (FP4)."""


def missing_tensor_format(gpu: DeviceSpec, precision: str) -> Msg | None:
    """Why ``gpu`` cannot run ``precision`` on its tensor cores (fp8 before Ada / Hopper, fp4
    before Blackwell), or None: the format is there, the precision needs none, or the
    architecture is unknown (a detected GPU; its peak is then unknown, not refused)."""
    allowed = TENSOR_FORMAT_ARCHITECTURES.get(precision)
    if allowed is None or gpu.architecture is None or gpu.architecture in allowed:
        return None
    return Msg(f"the {gpu.name} ({gpu.architecture}) has no {precision} tensor cores: "
               f"{precision} needs {', '.join(allowed)}",
               f"{gpu.name}（{gpu.architecture}）没有 {precision} Tensor Core：{precision} 需要 "
               f"{'、'.join(allowed)} 架构")


_NVLINK_OF = {"Ampere": "nvlink3", "Hopper": "nvlink4", "Blackwell": "nvlink5"}
"""The NVLink generation of each architecture's SXM modules (docs/hardware-sources.md sec. 3)."""


def nvlink_of(architecture: str | None) -> Link:
    """The NVLink an SXM module of ``architecture`` has; the slowest listed (NVLink 3) where
    the architecture is not known, so that a plan never overstates the link."""
    return LINKS[_NVLINK_OF.get(architecture or "", "nvlink3")]


def _pcie(gen: int | None) -> Link | None:
    return None if gen is None else LINKS.get(f"pcie{min(max(gen, 3), 5)}_x16")


def part_link(part: Part) -> Link | None:
    """How a catalog GPU reaches its peers inside a server built for it: the NVLink of an SXM
    module, otherwise its PCIe slot (a bridge between two cards is a build's choice)."""
    g = part.gpu
    if g.nvlink and (g.form_factor or "").startswith("sxm"):
        return nvlink_of(g.architecture)
    return _pcie(g.pcie_gen)


def link_for(caps: Capabilities) -> tuple[Link | None, Link | None]:
    """The scaling model's links for a subject: GPU-to-GPU inside a node, and between nodes."""
    intra = None
    if caps.gpu_interconnect == "nvlink":
        if caps.gpu_part is not None and caps.gpu_part.gpu.chip == "GA102":
            intra = LINKS["nvlink3_ga102"]
        else:
            intra = nvlink_of(caps.gpu_part.gpu.architecture if caps.gpu_part else None)
    elif caps.gpu_count:
        gens = [g for g, _ in caps.gpu_links if g]
        gen = min(gens) if gens else 4
        intra = LINKS.get(f"pcie{min(max(gen, 3), 5)}_x16")
    inter = None
    if caps.node_network and caps.node_network_bps:
        gbit = caps.node_network_bps / 1e9
        if caps.node_network == "infiniband":
            inter = LINKS["ib_ndr"] if gbit >= 400 else LINKS["ib_hdr"]
        else:
            inter = LINKS["eth_100g"] if gbit >= 100 else (
                LINKS["eth_25g"] if gbit >= 25 else LINKS["eth_10g"])
    return intra, inter


def device_spec(part: Part) -> DeviceSpec:
    """A catalog GPU as the planner's DeviceSpec (dense peaks, FP32 accumulate)."""
    g = part.gpu
    return DeviceSpec(
        name=part.name, vram_bytes=g.vram_bytes,
        peak_flops={"fp32": g.fp32_flops, "tf32": g.tf32_tensor_flops,
                    "fp16": g.fp16_tensor_flops, "bf16": g.bf16_tensor_flops,
                    "fp8": g.fp8_tensor_flops, "fp4": g.fp4_tensor_flops, "int8": None},
        memory_bandwidth_bps=g.memory_bandwidth, tensor_cores=g.tensor_cores,
        intra_link=part_link(part), architecture=g.architecture, host_link=_pcie(g.pcie_gen))


def subject_device(caps: Capabilities) -> DeviceSpec | None:
    if caps.gpu_count == 0:
        return None
    intra, inter = link_for(caps)
    if caps.gpu_part is not None:
        spec = device_spec(caps.gpu_part)
        if caps.vram_per_gpu_bytes is not None:  # what was detected wins over the catalog
            spec = replace(spec, vram_bytes=caps.vram_per_gpu_bytes)
        return replace(spec, intra_link=intra, inter_link=inter,
                       host_link=_host_link(caps) or spec.host_link)
    return DeviceSpec(name=caps.gpu_name or "GPU", vram_bytes=caps.vram_per_gpu_bytes,
                      tensor_cores=caps.tensor_cores, intra_link=intra, inter_link=inter,
                      host_link=_host_link(caps))


def _host_link(caps: Capabilities) -> Link | None:
    """The slowest PCIe generation the subject's GPUs are seen at (None: not seen)."""
    gens = [g for g, _ in caps.gpu_links if g]
    return _pcie(min(gens)) if gens else None
