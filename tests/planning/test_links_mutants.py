"""The scaling model's link table against its sources (mutation testing, issue 28):
docs/hardware-sources.md sec. 3 and 3.2 (per-direction bandwidths, achievable fractions and
their bases) and docs/estimation.md sec. 6 (latencies: 10 us inside a node, 20 us over
InfiniBand, 50 us over Ethernet).
"""

from __future__ import annotations

import pytest

from torchrig.planning.links import LINKS, Link

# docs/hardware-sources.md sec. 3.2: id -> (per direction B/s, fraction, latency, scope,
# most GPUs)
TABLE = {
    "pcie3_x16": (15.75e9, 0.8, 10e-6, "intra", None),
    "pcie4_x16": (31.5e9, 0.8, 10e-6, "intra", None),
    "pcie5_x16": (63e9, 0.8, 10e-6, "intra", None),
    "nvlink3_ga102": (56.25e9, 0.78, 10e-6, "intra", 2),
    "nvlink3": (300e9, 0.78, 10e-6, "intra", None),
    "nvlink4": (450e9, 0.82, 10e-6, "intra", None),
    "nvlink5": (900e9, 0.82, 10e-6, "intra", None),  # 1,800 GB/s total, the fraction assumed
    "eth_10g": (1.25e9, 0.8, 50e-6, "inter", None),
    "eth_25g": (3.125e9, 0.8, 50e-6, "inter", None),
    "eth_100g": (12.5e9, 0.8, 50e-6, "inter", None),
    "ib_hdr": (25e9, 0.8, 20e-6, "inter", None),
    "ib_ndr": (50e9, 0.8, 20e-6, "inter", None),
}
NAMES = {
    "pcie3_x16": "PCIe 3.0 x16", "pcie4_x16": "PCIe 4.0 x16", "pcie5_x16": "PCIe 5.0 x16",
    "nvlink3_ga102": "NVLink 3 bridge (RTX 3090 / RTX A6000)", "nvlink3": "NVLink 3 (A100)",
    "nvlink4": "NVLink 4 (H100/H200 SXM)", "nvlink5": "NVLink 5 (B200 SXM)", "eth_10g": "10 GbE",
    "eth_25g": "25 GbE",
    "eth_100g": "100 GbE", "ib_hdr": "InfiniBand HDR (200 Gb/s)",
    "ib_ndr": "InfiniBand NDR (400 Gb/s)",
}
# the figure each link's source states, as hardware-sources.md sec. 3 writes it
STATED = {
    "pcie3_x16": "15.75 GB/s per direction", "pcie4_x16": "31.5 GB/s per direction",
    "pcie5_x16": "63 GB/s per direction", "nvlink3_ga102": "112.5 GB/s total = 56.25",
    "nvlink3": "600 GB/s total = 300 per direction",
    "nvlink4": "900 GB/s total = 450 per direction",
    "nvlink5": "1,800 GB/s total = 900 per direction", "eth_10g": "10 Gb/s line rate",
    "eth_25g": "25 Gb/s line rate", "eth_100g": "100 Gb/s line rate",
    "ib_hdr": "200 Gb/s per 4x port", "ib_ndr": "400 Gb/s per 4x port",
}


def test_link_table_matches_the_hardware_sources():
    assert set(LINKS) == set(TABLE)
    for key, (bw, fraction, latency, scope, most) in TABLE.items():
        link = LINKS[key]
        assert link.id == key
        assert (link.bandwidth_bps, link.achievable_fraction, link.latency_s, link.scope,
                link.max_gpus) == (bw, fraction, latency, scope, most), key
        assert link.name == NAMES[key]
        assert link.source.startswith("docs/hardware-sources.md sec. 3"), key
        assert STATED[key] in link.source, key
        assert link.fraction_basis.startswith(f"{fraction:g}: "), key
        assert link.busbw_bps == pytest.approx(bw * fraction, rel=1e-12)


def test_fraction_bases_name_their_measurement_or_assumption():
    for key in ("pcie3_x16", "pcie4_x16", "pcie5_x16"):
        assert LINKS[key].fraction_basis == (
            "0.8: assumption; host-to-device copies reach 87% of PCIe 5 x16 (H200, "
            "docs/estimation.md sec. 5), collectives through the root complex reach less")
    for key in ("eth_10g", "eth_25g", "eth_100g", "ib_hdr", "ib_ndr"):
        assert LINKS[key].fraction_basis == ("0.8: assumption (protocol and NCCL overheads); "
                                             "measure with the collective bench")
    assert "235 GB/s" in LINKS["nvlink3"].fraction_basis
    assert "368 GB/s" in LINKS["nvlink4"].fraction_basis
    assert LINKS["nvlink5"].fraction_basis.startswith("0.82: assumption, NVLink 4's measured")
    assert "235 of 300 GB/s" in LINKS["nvlink3_ga102"].fraction_basis


def test_link_to_dict_and_defaults():
    link = Link("x", "X", 10e9, 0.5, 1e-6, "intra", "src", "basis")
    assert link.max_gpus is None
    assert link.to_dict() == {
        "id": "x", "name": "X", "bandwidth_bps": 10e9, "achievable_fraction": 0.5,
        "busbw_bps": 5e9, "latency_s": 1e-6, "scope": "intra", "source": "src",
        "fraction_basis": "basis", "max_gpus": None,
    }
    assert LINKS["nvlink3_ga102"].to_dict()["max_gpus"] == 2
