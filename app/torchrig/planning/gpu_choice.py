"""Choosing a GPU for a workload by memory, time and money together.

Every NVIDIA GPU in the catalog is re-planned for the workload: does it fit (and how tightly),
how long the run takes on it (the compute model and, for several GPUs, the scaling model's
efficiency over the GPU's own link), what the GPUs cost to buy at the catalog's price converted
with the user's exchange rate, and - when the user gives an hourly price per GPU (a rental or
an internal charge rate) - what one epoch or one million tokens costs.

"Cheapest" means the lowest price per unit of work (purchase price / samples per second): a
GPU that fits but takes five times as long is not a saving. A time target ("this run must
finish in 24 h") removes the GPUs that miss it first.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from torchrig.catalog.specs import SIDE_BY_SIDE_GPUS
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.device import DeviceSpec, device_spec
from torchrig.planning.requirements import Requirements, plan
from torchrig.planning.workload import Workload

if TYPE_CHECKING:
    from torchrig.catalog.model import Catalog, Part
    from torchrig.planning.links import Link

BASEBOARD_GPUS = (4, 8)
"""SXM and OAM modules are not sold one by one: they come mounted on a 4- or 8-GPU baseboard
(NVIDIA HGX "integrating 4 or 8 high-performance GPUs", knowledgebase.rackmountnts.com/blog/
what-is-hgx-platform; docs/hardware-sources.md). A best-value pick a buyer can act on is a PCIe
card, or a module only for a node of that many GPUs (bought as a whole server)."""

OVERKILL_TIME_FACTOR = 1.25
"""A smaller GPU replaces the current one in "overkill" advice only if the run takes at most 25%
longer on it: a policy, so the advice never trades a day of waiting for a small saving."""


@dataclass(frozen=True)
class GpuOption:
    """One catalog GPU re-planned for a workload.

    Attributes:
        verdict: "fits", "tight" or "does_not_fit" (requirements.vram_verdict).
        time_s: the whole run (training: all epochs; inference: prefill of the batch), None when
            the GPU's peak is unknown.
        samples_per_s: the work rate of all GPUs together: samples/s (training, vision
            inference) or generated tokens/s (LLM serving); None when unknown.
        price: purchase price of one GPU in ``currency`` (None: no catalog price, or no
            exchange rate to convert it).
        cost_per_epoch / cost_per_million_tokens: at the user's hourly price, None without one.
    """

    part: Part
    requirements: Requirements
    verdict: str | None
    time_s: float | None
    samples_per_s: float | None
    price: Decimal | None
    currency: str
    gpus: int
    cost_per_epoch: Decimal | None = None
    cost_per_million_tokens: Decimal | None = None
    meets_target: bool | None = None
    buyable: bool = True

    @property
    def need(self) -> float:
        return self.requirements.vram_total

    @property
    def purchase_total(self) -> Decimal | None:
        return None if self.price is None else self.price * self.gpus

    @property
    def price_per_throughput(self) -> float | None:
        if self.price is None or not self.samples_per_s:
            return None
        return float(self.price) / self.samples_per_s

    def to_dict(self) -> dict[str, Any]:
        return {
            "part": self.part.id, "name": self.part.name, "vram_needed": self.need,
            "vram_verdict": self.verdict, "time_s": self.time_s,
            "samples_per_s": self.samples_per_s, "gpus": self.gpus, "currency": self.currency,
            "price": None if self.price is None else str(self.price),
            "purchase_total": None if self.purchase_total is None else str(self.purchase_total),
            "cost_per_epoch": None if self.cost_per_epoch is None else str(self.cost_per_epoch),
            "cost_per_million_tokens": None if self.cost_per_million_tokens is None
            else str(self.cost_per_million_tokens),
            "meets_target": self.meets_target, "buyable": self.buyable,
        }


def run_time(req: Requirements) -> float | None:
    """The figure a researcher waits for: the whole training run, a batch's prefill, or the
    images an image-generation run makes."""
    if req.workload.is_training:
        return req.throughput.get("total_time_s").value  # type: ignore[union-attr]
    item = req.throughput.get("prefill_time_s") or req.throughput.get("total_time_s")
    return None if item is None else item.value


def part_price(part: Part, currency: str, cny_per_usd: Decimal | None) -> Decimal | None:
    from torchrig.builds.pricing import convert
    from torchrig.catalog.model import best_catalog_price

    price = best_catalog_price(part, currency)
    if price is None:
        return None
    return convert(Decimal(price.amount), price.currency, currency, cny_per_usd)


_CACHE: dict[tuple[Any, ...], tuple[Catalog, list[GpuOption]]] = {}
_CACHE_SIZE = 32
"""The Wizard asks for the same options twice per edit (the solver and the recommendation)."""


def gpu_options(w: Workload, catalog: Catalog, currency: str = "USD",
                cny_per_usd: Decimal | None = None,
                hourly_prices: Mapping[str, Decimal] | None = None,
                time_target_s: float | None = None,
                inter_link: Link | None = None) -> list[GpuOption]:
    """Every NVIDIA catalog GPU of known memory, re-planned for ``w`` (fitting or not).

    Prices are the catalog's in ``currency``, converted with ``cny_per_usd`` when given (the
    catalog's launch prices are mostly in USD, hence the default)."""
    if time_target_s is not None and time_target_s <= 0:
        raise InputError(f"time target must be positive, got {time_target_s}")
    key = (w, currency, cny_per_usd, tuple(sorted((hourly_prices or {}).items())),
           time_target_s, inter_link)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] is catalog:
        return list(cached[1])
    options = _options(w, catalog, currency, cny_per_usd, hourly_prices, time_target_s,
                       inter_link)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (catalog, options)
    return list(options)


def candidate_gpus(catalog: Catalog) -> list[Part]:
    """The catalog GPUs a recommendation weighs: NVIDIA parts of known memory (the planner's
    device model is CUDA's)."""
    return [part for part in catalog.by_category("gpu")
            if part.gpu.vram_bytes is not None and part.vendor == "NVIDIA"]


def _options(w: Workload, catalog: Catalog, currency: str, cny_per_usd: Decimal | None,
             hourly_prices: Mapping[str, Decimal] | None, time_target_s: float | None,
             inter_link: Link | None) -> list[GpuOption]:
    options = []
    for part in candidate_gpus(catalog):
        spec: DeviceSpec = device_spec(part)
        if inter_link is not None:
            spec = replace(spec, inter_link=inter_link)
        try:
            req = plan(w, spec)
        except InputError:
            continue
        time = run_time(req)
        rate = req.throughput.get("samples_per_s") or req.throughput.get("decode_tokens_per_s")
        samples = rate.value if rate is not None else None
        hourly = (hourly_prices or {}).get(part.id)
        per_epoch = per_mtok = None
        if hourly is not None:
            epoch = req.throughput.get("time_per_epoch_s")
            if epoch is not None and epoch.value:
                per_epoch = hourly * w.total_gpus * Decimal(str(epoch.value / 3600))
            tokens = req.throughput.get("tokens_per_s") or req.throughput.get(
                "decode_tokens_per_s")
            if tokens is not None and tokens.value:
                per_mtok = hourly * w.total_gpus * Decimal(str(1e6 / tokens.value / 3600))
        options.append(GpuOption(
            part=part, requirements=req, verdict=req.vram_verdict, time_s=time,
            samples_per_s=samples, price=part_price(part, currency, cny_per_usd),
            currency=currency, gpus=w.total_gpus, cost_per_epoch=per_epoch,
            cost_per_million_tokens=per_mtok,
            meets_target=None if time_target_s is None or time is None
            else time <= time_target_s, buyable=buyable_for(part, w)))
    return options


def buyable_for(part: Part, w: Workload) -> bool:
    """Whether ``part`` can be bought for ``w``'s nodes: a PCIe card alone or beside one other,
    and from :data:`SIDE_BY_SIDE_GPUS` a node on only with a cooler that works next to its
    neighbours - the build check advises against any other, so the pick must not need that
    advice (an 8-GPU job was recommended a 600 W open-air workstation card); a Jetson module
    is a computer of its own, not a part of a node; an SXM/OAM module only for a node of a
    baseboard's size (:data:`BASEBOARD_GPUS`)."""
    form = part.gpu.form_factor or "pcie"
    if form == "pcie":
        return w.gpus_per_node < SIDE_BY_SIDE_GPUS or part.gpu.cools_side_by_side()
    if form == "module":
        return False
    return w.gpus_per_node in BASEBOARD_GPUS


PICK_BASES: dict[str, Msg] = {
    "price": Msg("best value: lowest price per unit of work that fits",
                 "性价比最高：装得下且单位工作量价格最低"),
    "fastest": Msg("fastest that fits; no price in the catalog",
                   "装得下中最快；目录中无价格"),
    "smallest": Msg("smallest that fits; no price or speed in the catalog",
                    "装得下中显存最小；目录中无价格和速度"),
}
"""What a GPU pick is, by how :func:`pick_gpu` chose it: a pick without a price is not "best
value", and the text, JSON, Wizard and PDF say which it is."""


@dataclass(frozen=True)
class GpuPick:
    """The GPU :func:`pick_gpu` chose and its basis (a key of :data:`PICK_BASES`)."""

    option: GpuOption
    basis: str

    @property
    def text(self) -> Msg:
        return PICK_BASES[self.basis]


def pick_gpu(options: list[GpuOption]) -> GpuPick | None:
    """The fitting GPU a buyer can act on (:func:`buyable_for`) with the lowest price per unit
    of work among those that meet the time target ("price"); when none of them has a price
    and a speed, the fastest that fits ("fastest"); without speeds, the smallest that fits
    ("smallest")."""
    fitting = [o for o in options if o.verdict == "fits" and o.meets_target is not False
               and o.buyable]
    if not fitting:
        return None
    priced = [o for o in fitting if o.price_per_throughput is not None]
    if priced:
        return GpuPick(min(priced, key=lambda o: (o.price_per_throughput, o.need)), "price")
    timed = [o for o in fitting if o.time_s is not None]
    if timed:
        return GpuPick(min(timed, key=lambda o: (o.time_s, o.need)), "fastest")
    return GpuPick(min(fitting, key=lambda o: (o.part.gpu.vram_bytes or 0, o.need)),
                   "smallest")


def best_value(options: list[GpuOption]) -> GpuOption | None:
    """:func:`pick_gpu`'s GPU, whatever its basis."""
    pick = pick_gpu(options)
    return None if pick is None else pick.option
