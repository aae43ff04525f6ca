"""Recommendations that weigh time and money: the lowest tier that runs a workload, and every
catalog GPU with the run's time and its price (``torchrig plan --recommend``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from torchrig.catalog.money_text import parse_amount_text
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.analysis import Recommendation, recommend
from torchrig.planning.buying_for import BuyingFor, buying_for
from torchrig.planning.gpu_choice import PICK_BASES, GpuOption, gpu_options
from torchrig.planning.workload import Workload

if TYPE_CHECKING:
    from torchrig.builds.capabilities import Capabilities
    from torchrig.catalog.model import Catalog


@dataclass(frozen=True)
class Advice:
    """Attributes: the recommendation (tier, the tier's GPU, best-value GPU), every catalog
    GPU re-planned (fitting first, then by time), the terms they were compared on, the machine
    the GPU is bought for and that machine in words (``bought_for``: "For this workstation:
    PCIe cards that fit its case and power supply.")."""

    recommendation: Recommendation
    options: list[GpuOption]
    currency: str
    cny_per_usd: Decimal | None
    time_target_s: float | None
    buying: BuyingFor = field(default_factory=lambda: BuyingFor("workload"))
    bought_for: Msg = field(default_factory=lambda: Msg("", ""))

    def to_dict(self) -> dict[str, Any]:
        rec = self.recommendation
        return {
            "tier": None if rec.tier is None else rec.tier.id,
            "tier_gpu": None if rec.tier_gpu is None else rec.tier_gpu.id,
            "tier_time_s": rec.time_s,
            "tier_layout": None if rec.tier_layout is None else {
                "nodes": rec.tier_layout[0], "gpus_per_node": rec.tier_layout[1]},
            "tier_reason": rec.tier_reason.to_dict(),
            "best_value_gpu": None if rec.gpu is None else rec.gpu.id,
            "best_value_basis": rec.gpu_basis,
            "best_value_text": None if rec.gpu_basis is None
            else PICK_BASES[rec.gpu_basis].to_dict(),
            "currency": self.currency,
            "cny_per_usd": None if self.cny_per_usd is None else str(self.cny_per_usd),
            "time_target_s": self.time_target_s,
            "bought_for": {"machine": self.buying.kind, "text": self.bought_for.to_dict()},
            "gpus": [o.to_dict() for o in self.options],
        }


def advise(w: Workload, catalog: Catalog, currency: str = "USD",
           cny_per_usd: Decimal | None = None,
           hourly_prices: Mapping[str, Decimal] | None = None,
           time_target_s: float | None = None,
           subject: Capabilities | None = None) -> Advice:
    """The recommendation for ``w``, its GPU one a buyer can put into ``subject``'s machine
    (its build, or a tier's starter build: planning/buying_for.py); with no build in hand the
    workload's GPUs per node decide, and ``bought_for`` says what was assumed."""
    buying = buying_for(subject, catalog, w.gpus_per_node)
    options = [replace(o, buyable=buying.allows(o.part, w))
               for o in gpu_options(w, catalog, currency, cny_per_usd, hourly_prices,
                                    time_target_s)]
    order = {"fits": 0, "tight": 1, "does_not_fit": 2}
    options.sort(key=lambda o: (order.get(o.verdict or "", 3), o.time_s is None,
                                o.time_s or 0.0))
    rec = recommend(w, catalog, time_target_s, currency, cny_per_usd,
                    buyable=lambda part: buying.allows(part, w))
    return Advice(rec, options, currency, cny_per_usd, time_target_s, buying,
                  buying.line(w, rec.gpu))


def positive_amount(text: str, what: str) -> Decimal:
    """A price or an exchange rate as the user typed it: an amount as every price is written
    (catalog/money_text.py: ``1299.00`` or ``1,299.00``, never a decimal comma) above zero. The
    CLI's options and the Wizard's fields are read with this one rule."""
    value = parse_amount_text(text, what)
    if value <= 0:
        raise InputError(f"{what}: must be a positive number, got {text}")
    return value


def time_target_seconds(hours: float, what: str) -> float:
    """"Must finish within ``hours``" in seconds: a finite number of hours above zero."""
    if not hours > 0 or hours == float("inf"):
        raise InputError(f"{what} must be positive, got {hours}")
    return hours * 3600.0
