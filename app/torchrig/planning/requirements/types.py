"""The planner's result types: :class:`Requirements` (what :func:`plan` returns, and its
``torchrig plan --json`` document, see docs/plan-json.md), :class:`Item` (one figure with its
note), the :class:`Assumption` and :class:`SeedClaim` records, and the VRAM verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from torchrig.i18n import Msg
from torchrig.planning.workload import Workload
from torchrig.records import record

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec


@record
class Item:
    """One figure of a breakdown: value in SI units (None = unknown) and why."""

    value: float | None
    note: Msg


@record
class Assumption:
    key: str
    text: Msg
    value: float | None = None


@record
class SeedClaim:
    """A number the seed document states, beside what the planner computes for this workload."""

    section: str
    claim: Msg
    seed_value: str
    computed: float | None
    unit: str
    note: Msg


@record
class Requirements:
    """Everything :func:`plan` computes. Sections are ordered dicts of :class:`Item`; each has a
    "total" item where a total makes sense."""

    workload: Workload
    device: DeviceSpec | None
    vram_per_gpu: dict[str, Item]
    system_ram: dict[str, Item]
    storage: dict[str, Item]
    cpu: dict[str, Item]
    interconnect: dict[str, Item]
    throughput: dict[str, Item]
    assumptions: list[Assumption]
    seed_claims: list[SeedClaim]
    references: dict[str, Item]
    incomplete: list[str]
    rules_of_thumb: list[dict[str, Any]]

    @property
    def vram_total(self) -> float:
        return float(self.vram_per_gpu["total"].value or 0.0)

    @property
    def vram_without_margin(self) -> float:
        """What the run allocates without the fragmentation margin (a safety margin)."""
        return self.vram_total - float(self.vram_per_gpu["fragmentation"].value or 0.0)

    @property
    def fits(self) -> bool | None:
        if self.device is None or self.device.vram_bytes is None:
            return None
        return self.vram_total <= self.device.vram_bytes

    @property
    def vram_verdict(self) -> str | None:
        """"fits", "tight" (only the safety margin is short: it runs, one allocator spike from
        out-of-memory), "does_not_fit", or None without a GPU of known memory."""
        return vram_verdict(self.vram_total, self.vram_without_margin,
                            None if self.device is None else self.device.vram_bytes)

    def to_dict(self) -> dict[str, Any]:
        """The ``torchrig plan --json`` document (see docs/plan-json.md)."""
        out: dict[str, Any] = {
            "format": "torchrig.plan", "version": 1,
            "workload": self.workload.to_dict(),
            "device": None if self.device is None else {
                "name": self.device.name, "vram_bytes": self.device.vram_bytes,
                "peak_flops": dict(self.device.peak_flops),
                "memory_bandwidth_bps": self.device.memory_bandwidth_bps,
                "tensor_cores": self.device.tensor_cores,
                "intra_link": None if self.device.intra_link is None
                else self.device.intra_link.id,
                "inter_link": None if self.device.inter_link is None
                else self.device.inter_link.id,
                "nics_per_node": self.device.nics_per_node,
                "host_link": None if self.device.host_link is None
                else self.device.host_link.id,
            },
        }
        for name in ("vram_per_gpu", "system_ram", "storage", "cpu", "interconnect",
                     "throughput", "references"):
            out[name] = _section_dict(getattr(self, name))
        out["fits_in_vram"] = self.fits
        out["vram_verdict"] = self.vram_verdict
        out["incomplete"] = list(self.incomplete)
        out["rules_of_thumb"] = [dict(r) for r in self.rules_of_thumb]
        out["assumptions"] = [
            {"key": a.key, "text": a.text.to_dict(), "value": a.value} for a in self.assumptions
        ]
        out["seed_claims"] = [
            {"section": c.section, "claim": c.claim.to_dict(), "seed_value": c.seed_value,
             "computed": c.computed, "unit": c.unit, "note": c.note.to_dict()}
            for c in self.seed_claims
        ]
        return out


def vram_verdict(total: float, without_margin: float, vram: float | None) -> str | None:
    if vram is None:
        return None
    if total <= vram:
        return "fits"
    return "tight" if without_margin <= vram else "does_not_fit"


def _section_dict(items: Mapping[str, Item]) -> dict[str, Any]:
    out: dict[str, Any] = {k: _json_number(i.value) for k, i in items.items()}
    out["notes"] = {k: i.note.to_dict() for k, i in items.items()}
    return out


def _json_number(value: float | None) -> float | int | None:
    if value is None:
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return float(value)
