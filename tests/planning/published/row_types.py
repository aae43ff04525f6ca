"""The shape of a published-reference row (issue 24; docs/published-reference.md): its source,
tolerance, serving terms and the row itself. Kept apart from the rows so that the row modules
(``reference_rows``, ``mlperf_rows``, ``engine_rows``) can share it without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DGX_H100_COMPUTE_NICS = 8
"""A DGX H100's compute-fabric ports: "Four OSFP ports serving eight single-port NVIDIA
ConnectX-7 VPI ... up to 400 Gb/s InfiniBand/Ethernet" (NVIDIA DGX BasePOD reference
architecture, 'Core Components', docs.nvidia.com/dgx-basepod/reference-architecture-
infrastructure-foundation-enterprise-ai/latest/core-components.html)."""

KINDS = ("training_throughput", "memory", "serving")
ROLES = ("calibration", "check")
GiB = 2**30


@dataclass(frozen=True)
class Source:
    url: str
    where: str
    """The table, section or figure, named as the document names it."""
    version: str
    """Release, container, commit or date of the figure."""


@dataclass(frozen=True)
class Tolerance:
    rel: float
    """Allowed relative error: predicted / published within [1 - rel, 1 + rel]."""
    why: str
    bound: str = "both"
    """"both", or "at_most": the source states a ceiling (a fit), so only
    predicted <= published x (1 + rel) is asked."""


@dataclass(frozen=True)
class Serving:
    """A serving benchmark's own terms; the harness maps them onto the Workload."""

    input_tokens: int
    output_tokens: int
    precision: str
    kv_cache_dtype: str
    requests: int
    """Requests the benchmark sends (caps the concurrency of a max-throughput row)."""
    concurrency: int | None = None
    """The benchmark's stated maximum of requests in flight; None = as many as fit."""


@dataclass(frozen=True)
class Row:
    id: str
    kind: str
    source: Source
    gpu: str | None
    """Catalog GPU id (resources/catalog/gpus.json)."""
    setup: Mapping[str, Any]
    """Workload fields as a torchrig.workload document names them."""
    published: float
    unit: str
    compared: str
    """The plan figure compared: a key of harness.FIGURES."""
    tolerance: Tolerance
    role: str
    calibrates: str | None = None
    known_miss: str | None = None
    assumed: str | None = None
    """What the source does not state and the row assumes."""
    derivation: str | None = None
    serving: Serving | None = None
    hand: Mapping[str, float] = field(default_factory=dict)
    """Inputs of ``derivation`` (P, LL, T...), for the test that redoes the arithmetic."""
    inter_link: str | None = None
    """The network between nodes, as a planning/links.py id (a catalog GPU has none)."""
    nics_per_node: int = 1
    """Ports of that network per node, from the system's own specification; 1 where the row
    does not name a system."""
