"""The links of the scaling model: how GPUs reach each other inside a node and how nodes
reach each other, with the published per-direction bandwidth of each
(docs/hardware-sources.md sec. 3), the share of it an all-reduce achieves as bus bandwidth, and
the latency of one small collective.

Bandwidths follow nccl-tests' *bus bandwidth* convention: a link's busbw is its per-direction
bandwidth x an achievable fraction (measured where docs/estimation.md sec. 5 has a measurement, an
assumption otherwise; each link names its basis). :mod:`torchrig.planning.requirements.scaling`
models data-parallel scaling over these links; :mod:`torchrig.planning.device` gives a GPU its
links.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Link:
    """A GPU-to-GPU or node-to-node link.

    Attributes:
        bandwidth_bps: per direction, bytes/s (per GPU for NVLink/PCIe, per port for networks).
        achievable_fraction: share of ``bandwidth_bps`` an all-reduce reaches as busbw.
        latency_s: time of one small collective (assumption unless measured).
        scope: "intra" (inside a node) or "inter" (between nodes).
        max_gpus: the most GPUs the link connects (a 2-way bridge), None = no limit.
    """

    id: str
    name: str
    bandwidth_bps: float
    achievable_fraction: float
    latency_s: float
    scope: str
    source: str
    fraction_basis: str
    max_gpus: int | None = None

    @property
    def busbw_bps(self) -> float:
        return self.bandwidth_bps * self.achievable_fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "bandwidth_bps": self.bandwidth_bps,
            "achievable_fraction": self.achievable_fraction, "busbw_bps": self.busbw_bps,
            "latency_s": self.latency_s, "scope": self.scope, "source": self.source,
            "fraction_basis": self.fraction_basis, "max_gpus": self.max_gpus,
        }


_PCIE_FRACTION = ("0.8: assumption; host-to-device copies reach 87% of PCIe 5 x16 (H200, "
                  "docs/estimation.md sec. 5), collectives through the root complex reach less")
_NET_FRACTION = "0.8: assumption (protocol and NCCL overheads); measure with the collective bench"
# Latency of one small collective: assumptions (the collective benchmark measures it, and
# measured_link() then replaces these).
_INTRA_LATENCY = 10e-6
_NET_LATENCY = 20e-6
_ETH_LATENCY = 50e-6

LINKS: dict[str, Link] = {link.id: link for link in (
    Link("pcie3_x16", "PCIe 3.0 x16", 15.75e9, 0.8, _INTRA_LATENCY, "intra",
         "docs/hardware-sources.md sec. 3 (Wikipedia NVLink table): 15.75 GB/s per direction",
         _PCIE_FRACTION),
    Link("pcie4_x16", "PCIe 4.0 x16", 31.5e9, 0.8, _INTRA_LATENCY, "intra",
         "docs/hardware-sources.md sec. 3: 31.5 GB/s per direction", _PCIE_FRACTION),
    Link("pcie5_x16", "PCIe 5.0 x16", 63e9, 0.8, _INTRA_LATENCY, "intra",
         "docs/hardware-sources.md sec. 3: 63 GB/s per direction", _PCIE_FRACTION),
    Link("nvlink3_ga102", "NVLink 3 bridge (RTX 3090 / RTX A6000)", 56.25e9, 0.78,
         _INTRA_LATENCY, "intra", "docs/hardware-sources.md sec. 3: 112.5 GB/s total = 56.25 "
         "per direction, 2-way bridge", "0.78: the A100 NVLink 3 measurement (235 of 300 GB/s)",
         max_gpus=2),
    Link("nvlink3", "NVLink 3 (A100)", 300e9, 0.78, _INTRA_LATENCY, "intra",
         "docs/hardware-sources.md sec. 3: 600 GB/s total = 300 per direction",
         "0.78: measured all-reduce busbw ~235 GB/s on A100 NVLink (docs/estimation.md sec. 5)"),
    Link("nvlink4", "NVLink 4 (H100/H200 SXM)", 450e9, 0.82, _INTRA_LATENCY, "intra",
         "docs/hardware-sources.md sec. 3: 900 GB/s total = 450 per direction",
         "0.82: measured all-reduce busbw ~368 GB/s on H200 (docs/estimation.md sec. 5)"),
    Link("nvlink5", "NVLink 5 (B200 SXM)", 900e9, 0.82, _INTRA_LATENCY, "intra",
         "docs/hardware-sources.md sec. 3: 1,800 GB/s total = 900 per direction, 18 links",
         "0.82: assumption, NVLink 4's measured share; no B200 all-reduce measurement is kept "
         "(one published GB200 NVL72 nccl-tests run, 2 nodes x 4 GPUs, reached 811 GB/s busbw: "
         "0.90)"),
    Link("eth_10g", "10 GbE", 1.25e9, 0.8, _ETH_LATENCY, "inter",
         "docs/hardware-sources.md sec. 3: 10 Gb/s line rate", _NET_FRACTION),
    Link("eth_25g", "25 GbE", 3.125e9, 0.8, _ETH_LATENCY, "inter",
         "docs/hardware-sources.md sec. 3: 25 Gb/s line rate", _NET_FRACTION),
    Link("eth_100g", "100 GbE", 12.5e9, 0.8, _ETH_LATENCY, "inter",
         "docs/hardware-sources.md sec. 3: 100 Gb/s line rate", _NET_FRACTION),
    Link("ib_hdr", "InfiniBand HDR (200 Gb/s)", 25e9, 0.8, _NET_LATENCY, "inter",
         "docs/hardware-sources.md sec. 3: 200 Gb/s per 4x port", _NET_FRACTION),
    Link("ib_ndr", "InfiniBand NDR (400 Gb/s)", 50e9, 0.8, _NET_LATENCY, "inter",
         "docs/hardware-sources.md sec. 3: 400 Gb/s per 4x port", _NET_FRACTION),
)}
