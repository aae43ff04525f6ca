"""PCIe link rates: the one table every part of TorchRig uses (detection, benchmark, analysis).

Payload bandwidth per lane and per direction after 128b/130b encoding, in bytes/s
(docs/hardware-sources.md section 3, from the Wikipedia NVLink/PCIe table): x16 gives 15.75 (gen3),
31.5 (gen4) and 63 GB/s (gen5) per direction.
"""

from __future__ import annotations

LANE_BYTES_PER_S: dict[int, float] = {3: 0.985e9, 4: 1.969e9, 5: 3.938e9}


def link_bytes_per_s(gen: int | None, width: int | None) -> float | None:
    """Theoretical per-direction rate of a link, or None when gen or width is unknown."""
    if gen not in LANE_BYTES_PER_S or not width:
        return None
    return LANE_BYTES_PER_S[gen] * width
