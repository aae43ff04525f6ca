"""Catalog model: parts with sourced specs and prices, tiers, and the catalog that holds them.

Everything here is read-only data produced by :mod:`torchrig.catalog.loader`; a user's price
edits live in a build, never in these objects.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Literal, TypeVar

from torchrig.catalog.specs import (
    CaseSpec,
    CpuCoolerSpec,
    CpuSpec,
    GpuSpec,
    MemorySpec,
    MotherboardSpec,
    NetworkSpec,
    PsuSpec,
    Spec,
    StorageSpec,
)
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.records import field, mutable_record, record
from torchrig.units import GB, TERA, GiB, fmt_gb, fmt_rate

Currency = Literal["CNY", "USD"]
CURRENCIES: tuple[str, ...] = ("CNY", "USD")
PriceKind = Literal["launch-msrp", "retail", "estimate"]
PRICE_KINDS: tuple[str, ...] = ("launch-msrp", "retail", "estimate")

_S = TypeVar("_S")


@record
class Price:
    """One sourced price. ``source`` is a URL/source key, or ``"estimate: <basis>"``: the
    catalog's record of what was read, in the catalog author's words.

    ``date`` is ``YYYY-MM-DD`` or ``YYYY-MM`` (the month a launch price was announced).
    ``label`` is the source as a document prints it, in each language and without remarks
    (a customer's quote shows it; every estimate has one); ``remark`` is what the shop should
    know about the figure (a range's top shown, no MSRP exists, ...), in each language, for
    the internal sheet and ``torchrig check`` only. ``note`` is the catalog author's own note
    (a listing's name), printed nowhere.
    """

    amount: Decimal
    currency: Currency
    date: str
    kind: PriceKind
    source: str
    reliability: str | None = None
    note: str | None = None
    label: Msg | None = None
    remark: Msg | None = None

    def to_dict(self) -> dict[str, str | dict[str, str] | None]:
        return {
            "amount": str(self.amount),
            "currency": self.currency,
            "date": self.date,
            "kind": self.kind,
            "source": self.source,
            "reliability": self.reliability,
            "note": self.note,
            "label": self.label.to_dict() if self.label is not None else None,
            "remark": self.remark.to_dict() if self.remark is not None else None,
        }


@record
class EndOfLife:
    """The maker stopped producing the part (``date`` YYYY-MM[-DD]), with the source saying so."""

    date: str
    source: str


@record
class SourceRef:
    """A source named in the catalog: a short key (``"TPU"``) with its URL and description.
    ``name`` is how a customer document names it ("PCPartPicker"): the key is for the catalog's
    authors, and a repository URL's site ("github.com") says nothing about where a price is from."""

    key: str
    url: str | None
    what: str
    name: str | None = None


@record
class Part:
    """A catalog part.

    Attributes:
        id: stable kebab-case id starting with the vendor (``nvidia-rtx-4090``).
        specs: the category's typed spec record, SI units.
        sources: source keys or URLs backing the part as a whole.
        field_sources: per-field source where the JSON gave one (spec attribute -> source).
        derived_fields: spec attributes computed from a sourced figure -> how (lower confidence).
        unknown_fields: spec attributes the sources do not give -> why (the value stays None; a
            check that reads the field skips it, and the completeness test accepts it).
        prices: sourced prices, oldest first; may be empty (the build then asks for one).
        match_names: names hardware detection reports for this part (used by match_*).
        end_of_life: set when the maker has stopped producing the part.
    """

    id: str
    category: str
    vendor: str
    name: str
    specs: Spec
    sources: tuple[str, ...]
    field_sources: dict[str, str] = field(default_factory=dict)
    derived_fields: dict[str, str] = field(default_factory=dict)
    unknown_fields: dict[str, str] = field(default_factory=dict)
    prices: tuple[Price, ...] = ()
    notes: Msg | None = None
    match_names: tuple[str, ...] = ()
    end_of_life: EndOfLife | None = None

    @property
    def gpu(self) -> GpuSpec:
        return _spec_as(self, GpuSpec)

    @property
    def cpu(self) -> CpuSpec:
        return _spec_as(self, CpuSpec)

    @property
    def memory(self) -> MemorySpec:
        return _spec_as(self, MemorySpec)

    @property
    def storage(self) -> StorageSpec:
        return _spec_as(self, StorageSpec)

    @property
    def motherboard(self) -> MotherboardSpec:
        return _spec_as(self, MotherboardSpec)

    @property
    def psu(self) -> PsuSpec:
        return _spec_as(self, PsuSpec)

    @property
    def network(self) -> NetworkSpec:
        return _spec_as(self, NetworkSpec)

    @property
    def case(self) -> CaseSpec:
        return _spec_as(self, CaseSpec)

    @property
    def cooler(self) -> CpuCoolerSpec:
        return _spec_as(self, CpuCoolerSpec)

    def is_derived(self, attr: str) -> bool:
        return attr in self.derived_fields

    def key_spec(self, lang: str = "en") -> str:
        """One short line for tables, e.g. ``24 GiB GDDR6X, 165.2 TFLOPS FP16 TC``."""
        return _key_spec(self, lang)


def _spec_as(part: Part, cls: type[_S]) -> _S:
    if not isinstance(part.specs, cls):
        raise TypeError(f"part {part.id} is a {part.category}, not a {cls.__name__}")
    return part.specs


def _num(value: float, digits: int = 1) -> str:
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _unknown(lang: str) -> str:
    return "未知" if lang == "zh" else "unknown"


def _key_spec(part: Part, lang: str) -> str:
    s = part.specs
    zh = lang == "zh"
    bits: list[str] = []
    if isinstance(s, GpuSpec):
        if s.vram_bytes is not None:
            bits.append(f"{_num(s.vram_bytes / GiB)} GiB {s.memory_type or ''}".strip())
        if s.fp16_tensor_flops is not None:
            mark = "*" if part.is_derived("fp16_tensor_flops") else ""
            bits.append(f"{_num(s.fp16_tensor_flops / TERA)}{mark} TFLOPS FP16 TC")
        elif s.tensor_cores is False:
            bits.append("无 Tensor Core" if zh else "no tensor cores")
        if s.tdp_w is not None:
            bits.append(f"{s.tdp_w:.0f} W")
        if s.length_mm is not None:
            bits.append(f"{s.length_mm:.0f} mm")
        if s.slot_width is not None:
            bits.append(f"{_num(s.slot_width)} 槽" if zh else f"{_num(s.slot_width)}-slot")
    elif isinstance(s, CpuSpec):
        cores = f"{s.cores}C/{s.threads}T" if s.cores and s.threads else _unknown(lang)
        bits.append(cores)
        if s.boost_clock_hz:
            bits.append(f"{_num(s.boost_clock_hz / 1e9, 2)} GHz")
        if s.socket:
            bits.append(s.socket)
        if s.memory_support:
            bits.append("/".join(m.type for m in s.memory_support))
    elif isinstance(s, MemorySpec):
        if s.modules and s.module_bytes:
            bits.append(f"{s.modules}x{_num(s.module_bytes / GiB)} GiB")
        speed = f"-{s.speed_mts}" if s.speed_mts else ""
        bits.append(f"{s.memory_type}{speed}")
        if s.module_form:
            bits.append(s.module_form)
    elif isinstance(s, StorageSpec):
        if s.capacity_bytes:
            bits.append(fmt_gb(s.capacity_bytes, 0 if s.capacity_bytes % GB == 0 else 1))
        bits.append(s.interface or s.kind or "")
        if s.seq_read:
            bits.append(("顺序读 " if zh else "read ") + fmt_rate(s.seq_read))
    elif isinstance(s, MotherboardSpec):
        bits.append(" ".join(x for x in (s.socket, s.chipset) if x))
        if s.memory_slots and s.memory_type:
            bits.append(f"{s.memory_slots}x {s.memory_type}")
        if s.gpu_lane_configs:
            widths = ["+".join(f"x{slot.lanes}" for slot in cfg) for cfg in s.gpu_lane_configs]
            bits.append(" / ".join(widths))
        if s.sxm_gpu_slots:
            bits.append(f"{s.sxm_gpu_slots}x {(s.sxm_gpu_form or 'SXM').upper()}")
    elif isinstance(s, PsuSpec):
        if s.wattage_w:
            bits.append(f"{s.wattage_w:.0f} W")
        if s.efficiency:
            bits.append(s.efficiency)
        if s.atx_version:
            bits.append(s.atx_version)
        if s.pcie_12v_2x6_connectors:
            bits.append(f"{s.pcie_12v_2x6_connectors}x 12V-2x6")
    elif isinstance(s, CaseSpec):
        if s.board_form_factors:
            bits.append("/".join(s.board_form_factors))
        if s.max_gpu_length_mm:
            bits.append(f"GPU ≤ {s.max_gpu_length_mm:.0f} mm")
        if s.max_cooler_height_mm:
            bits.append(("散热器" if zh else "cooler") + f" ≤ {s.max_cooler_height_mm:.0f} mm")
    elif isinstance(s, CpuCoolerSpec):
        if s.kind == "liquid":
            size = f"{s.radiator_mm} mm " if s.radiator_mm else ""
            bits.append(f"{size}水冷" if zh else f"{size}liquid cooler")
        elif s.kind:
            bits.append("风冷" if zh else "air cooler")
        if s.height_mm:
            bits.append(f"{_num(s.height_mm)} mm")
        if s.rated_heat_w:
            bits.append(f"{s.rated_heat_w:.0f} W")
    elif isinstance(s, NetworkSpec):
        if s.rate_bits_per_s:
            ports = f"{s.ports}x " if s.ports and s.ports > 1 else ""
            bits.append(f"{ports}{_num(s.rate_bits_per_s / 1e9)} Gb/s")
        if s.bandwidth:
            bits.append(fmt_rate(s.bandwidth))
        if s.standard:
            bits.append(s.standard)
    text = ", ".join(b for b in bits if b)
    return text or _unknown(lang)


@record
class SeedRule:
    """One of the seed document's general rules (sections 1.1/1.2), kept as data."""

    id: str
    section: str
    value: float | bool | str
    text: Msg


@record
class TierPartChoice:
    """The seed's recommended part for one role and its alternatives, as catalog ids."""

    role: str
    recommended: str
    alternatives: tuple[str, ...] = ()

    @property
    def all_ids(self) -> tuple[str, ...]:
        return (self.recommended, *self.alternatives)


@record
class TierRequirements:
    """What a tier implies for a machine. Part-derived minimums (cores, VRAM) are computed from
    the tier's recommended parts at load time, so the data states them only once."""

    min_cpu_cores: int | None
    min_vram_bytes: int | None
    gpus_per_node: tuple[int, int]
    nodes: tuple[int, int]
    min_ram_bytes: int
    memory_type: str | None
    storage_kinds: tuple[str, ...]
    storage_bytes: int | None
    interconnect: tuple[str, ...]


@record
class LinePrice:
    """``unit_price`` in ``currency`` (both None when the line has no price yet), where it came
    from, the day it was taken (``YYYY-MM[-DD]``, or empty) and, when the price is a published
    figure rather than the user's own, its kind (``retail``, ``estimate``…: a quote then says
    "estimate" instead of "user price"). ``price_remark`` is what the shop should know about
    the figure (it is not a vendor quote, what it leaves out): ``torchrig check`` and the
    internal sheet show it, a customer's quote does not. Both texts may hold the two languages
    as ``"English / 中文"`` (:func:`torchrig.i18n.one_language`)."""

    unit_price: Decimal | None = None
    currency: str | None = None
    price_source: str = ""
    price_date: str = ""
    price_kind: str = ""
    price_remark: str = ""


@record
class StarterLine:
    """One line of a tier's starter build: a catalog part, or (``part_id`` None) a custom line
    for something the catalog cannot hold, such as a distributed storage system.

    A custom line may carry a sourced ``price``, validated as a build's line price is; a build
    started from the tier keeps it as the line's price."""

    part_id: str | None
    quantity: int
    role: str
    scope: Literal["node", "cluster"] = "node"
    text: str = ""
    category: str = ""
    price: LinePrice = LinePrice()


@record
class Tier:
    """A target tier from the seed (section 2.x), in both languages.

    ``starter_lines`` are TorchRig's picks for the parts the seed does not name (board, PSU,
    memory kit, drives, network), used by "Start a build from this tier".
    """

    id: str
    section: str
    name: Msg
    use_cases: Msg
    parts: tuple[TierPartChoice, ...]
    ram: Msg
    storage: Msg
    price_range_cny: tuple[Decimal, Decimal] | None
    price_note: Msg
    advantages: Msg
    model_scale: Literal["small", "large"]
    requirements: TierRequirements
    starter_nodes: int
    starter_lines: tuple[StarterLine, ...]
    starter_note: Msg
    claims: tuple[Msg, ...] = ()

    def part_choice(self, role: str) -> TierPartChoice | None:
        return next((c for c in self.parts if c.role == role), None)

    def part_ids(self) -> Iterator[str]:
        for choice in self.parts:
            yield from choice.all_ids
        for line in self.starter_lines:
            if line.part_id is not None:
                yield line.part_id


@mutable_record
class Catalog:
    """All parts, tiers and seed rules, with lookups by id, category and detected name."""

    parts: Mapping[str, Part]
    tiers: dict[str, Tier]
    seed_rules: dict[str, SeedRule]
    sources: dict[str, SourceRef]
    root: str = ""

    def get(self, part_id: str) -> Part:
        try:
            return self.parts[part_id]
        except KeyError:
            raise InputError(f"unknown catalog part id {part_id!r}") from None

    def by_category(self, category: str) -> list[Part]:
        return [p for p in self.parts.values() if p.category == category]

    def tier(self, tier_id: str) -> Tier:
        try:
            return self.tiers[tier_id]
        except KeyError:
            known = ", ".join(self.tiers)
            raise InputError(f"unknown tier {tier_id!r}: use one of {known}") from None

    def _keyed(self, ref: str) -> tuple[SourceRef | None, str]:
        """The source a citation names by key, and what follows the key (``"PCPP-DS
        data/csv/memory.csv"`` -> PCPP-DS, ``"data/csv/memory.csv"``)."""
        key, _, rest = ref.strip().partition(" ")
        return self.sources.get(key), rest.strip()

    def source_url(self, ref: str) -> str:
        """A source key's URL (``"TPU"`` -> its URL, followed by anything the citation adds
        after the key); URLs and other text pass through."""
        src, rest = self._keyed(ref)
        if src is None:
            return ref
        return " ".join(x for x in (src.url or src.what, rest) if x)

    def source_link(self, ref: str) -> tuple[str, str | None]:
        """A source as a document shows it: (text, web address or None). A key gives its name
        and its web page; a web address is both; anything else (``estimate: …``) is text."""
        src, _ = self._keyed(ref)
        if src is not None:
            url = src.url if src.url and src.url.startswith(("https://", "http://")) else None
            return src.name or url or src.what, url
        plain = ref.strip()
        if plain.startswith(("https://", "http://")) and " " not in plain:
            return plain, plain
        return ref, None


__all__ = [
    "CURRENCIES",
    "PRICE_KINDS",
    "Catalog",
    "Currency",
    "EndOfLife",
    "Part",
    "Price",
    "PriceKind",
    "SeedRule",
    "SourceRef",
    "LinePrice",
    "StarterLine",
    "Tier",
    "TierPartChoice",
    "TierRequirements",
]


_KIND_RANK = {"retail": 2, "launch-msrp": 1, "estimate": 0}


def best_catalog_price(part: Part, currency: str) -> Price | None:
    """The catalog price to use for ``part`` in a ``currency`` build: one in that currency if
    any, then by kind (retail, launch MSRP, estimate), then the newest date."""
    if not part.prices:
        return None
    return max(part.prices, key=lambda p: (p.currency == currency, _KIND_RANK[p.kind], p.date))
