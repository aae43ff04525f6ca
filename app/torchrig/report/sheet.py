"""The build sheet as a document: what it shows, without knowing how it is drawn.

A :class:`Sheet` is plain data, filled by :mod:`torchrig.report.assemble` from the core objects
(or by hand in tests) and drawn by :mod:`torchrig.report.pdf`. Keeping it separate means the PDF
code never reaches into builds, catalogs or benchmark reports, and the GUI can preview or edit
the header without reportlab.

Money is :class:`~decimal.Decimal` and is shown exactly as pricing computed it: the sheet never
adds, rounds or converts an amount itself, so the PDF total is the priced total to the cent.
Hardware numbers are SI base units (bytes, FLOP/s, ...) with the unit named beside them;
``None`` means unknown and is printed as such.
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from typing import Any, Literal

from torchrig import __version__
from torchrig.builds.targets import Status
from torchrig.findings import Finding
from torchrig.i18n import Lang
from torchrig.records import field, record

SectionId = Literal[
    "bom", "totals", "comparison", "requirements", "verify", "bench", "claims", "scaling",
    "findings", "attachment",
]
SECTIONS: tuple[SectionId, ...] = (
    "bom", "totals", "comparison", "requirements", "verify", "bench", "claims", "scaling",
    "findings", "attachment",
)
"""Every section. The attachment's one-line note prints under the totals."""

ATTACHMENT_NAME = "build.json"
"""File name of the embedded build inside the PDF (what :func:`extract_build_json` looks for)."""


@record
class Header:
    """The top of the sheet. Every field except ``kind`` and ``validity_days`` is user text.

    Attributes:
        kind: "sheet" (a build sheet), "quote" (a priced offer with a validity period) or
            "plan" (a workload's requirements and recommendation, for no build yet).
        title: overrides the default title ("Build sheet" / "Quote" in the sheet's language).
        number: the sheet or quote number, as the shop writes it.
        date: issue date, ``YYYY-MM-DD`` (the validity end date is counted from it).
        validity_days: how long a quote's prices hold; None for no stated validity.
        shop: shop or lab name shown as the sender.
        logo_path: an image file (PNG/JPEG) drawn at the top right.
    """

    kind: Literal["sheet", "quote", "plan"] = "sheet"
    title: str | None = None
    number: str = ""
    date: str = ""
    validity_days: int | None = None
    shop: str = ""
    logo_path: str | None = None
    customer: str = ""
    project: str = ""

    def valid_until(self) -> str | None:
        """``date`` + ``validity_days`` as ``YYYY-MM-DD``, or None when either is missing or
        the date is not an ISO date."""
        if self.validity_days is None or not self.date:
            return None
        try:
            start = _dt.date.fromisoformat(self.date)
        except ValueError:
            return None
        return (start + _dt.timedelta(days=self.validity_days)).isoformat()


@record
class BomRow:
    """One line of the bill of materials, as pricing priced it.

    Attributes:
        category: catalog category id (``"gpu"``) or a free text category for a custom part.
        part: the part's name.
        key_spec: one short line of its main figures.
        unit_price / line_total: in the sheet's currency; None when the line has no price.
        price_kind: ``launch-msrp``, ``retail``, ``estimate`` or ``user``.
        price_source: where the price comes from, as the customer reads it (a source's name,
            a URL, ``estimate: <basis>`` or a supplier's words).
        price_source_url: the web page behind ``price_source`` when there is one (a link).
        price_date: when that price was true.
        note: anything pricing said about the line (a currency conversion, a missing price).
        price_remark: the catalog price's remark for the shop (a range's top shown, no MSRP
            exists): on the internal sheet only, empty on a customer's copy.
        nodes: how many machines the line is bought for (``qty`` counts all of them: the
            quantity per node times this); 1 for a line bought once.
    """

    category: str
    part: str
    key_spec: str
    qty: int
    unit_price: Decimal | None
    line_total: Decimal | None
    price_kind: str | None = None
    price_source: str = ""
    price_source_url: str | None = None
    price_date: str | None = None
    note: str = ""
    nodes: int = 1
    price_remark: str = ""


@record
class Totals:
    """The money summary as pricing computed it.

    Attributes:
        discount / tax: shown when not None (a build without a discount shows no line).
        discount_percent: the percentage behind ``discount`` when it is one (10 for 10 %).
        tax_rate_percent: the rate behind ``tax`` (13 for 13 %), for its label.
        missing_prices: lines without a usable price; the total then covers the rest only.
        exchange_*: the rate pricing used: 1 ``exchange_from`` = ``exchange_rate``
            ``exchange_to``, as of ``exchange_date``; ``exchange_origin`` says where the rate
            comes from (the build's own, the Settings' default, the shipped PBOC reference).
        notes: what pricing said about the totals (rounding rule, estimates, a capped discount).
    """

    currency: str
    subtotal: Decimal | None
    total: Decimal | None
    discount: Decimal | None = None
    tax: Decimal | None = None
    tax_rate_percent: Decimal | None = None
    missing_prices: int = 0
    exchange_rate: Decimal | None = None
    exchange_from: str | None = None
    exchange_to: str | None = None
    exchange_date: str | None = None
    exchange_origin: str | None = None
    notes: tuple[str, ...] = ()
    discount_percent: Decimal | None = None


@record
class ComparisonRow:
    """One dimension of the target-tier table: the target and how the build (and optionally
    the machine the sheet was made on) compare with it."""

    dimension: str
    target: str
    build: str
    build_status: Status
    machine: str | None = None
    machine_status: Status | None = None


@record
class BreakdownItem:
    """One slice of a requirement (``"weights"``, ``"optimizer states"``), in ``unit``."""

    label: str
    amount: float


@record
class BreakdownGroup:
    """One stacked bar of the requirement chart.

    Attributes:
        group: ``vram``, ``ram``, ``storage`` or ``cpu``.
        unit: ``"B"`` (bytes; memory groups are drawn in GiB, storage in GB) or ``"cores"``.
        items: the slices, in the order they stack.
        capacity: what the build offers for this group (a marker on the bar), or None.
        note: what the numbers assume, in one line.
    """

    group: Literal["vram", "ram", "storage", "cpu"]
    unit: Literal["B", "cores"]
    items: tuple[BreakdownItem, ...]
    capacity: float | None = None
    note: str = ""

    @property
    def total(self) -> float:
        return sum(item.amount for item in self.items)


@record
class BenchRow:
    """A measured figure against its reference (a spec peak, a theoretical rate).

    ``unit`` is one of the benchmark report's SI units (``FLOP/s``, ``B/s``, ``s``, ...);
    ``measure_id`` is the measurement's id (it decides how a ratio reads: ``1.35x`` for a
    speed-up, ``42%`` for a saving); ``note`` says how it was counted, or why nothing was
    measured.
    """

    name: str
    measured: float | None
    unit: str
    measure_id: str = ""
    reference: float | None = None
    reference_label: str = ""
    source: str = ""
    note: str = ""

    @property
    def percent(self) -> float | None:
        if self.measured is None or not self.reference:
            return None
        return 100.0 * self.measured / self.reference


@record
class ThroughputRow:
    """One bar of the matmul chart: ``kind`` is "measured", "spec" (this GPU's catalog peak)
    or "tier" (a tier's reference GPU, from the catalog)."""

    label: str
    flops: float
    kind: str


ClaimVerdict = Literal["holds", "below", "above", "unknown"]


@record
class ClaimRow:
    """A seed claim (AMP speed-up, checkpointing memory saving) next to what was measured.

    The claim is a range ``low``..``high`` in ``unit`` (a 30-50 % speed-up is 1.3..1.5) or a
    single ``value`` read as "at least" (seed 3.1's "50 % less memory": a larger saving also
    holds the claim).
    """

    claim: str
    seed: str
    measured: float | None
    unit: str
    measure_id: str = ""
    low: float | None = None
    high: float | None = None
    value: float | None = None
    source: str = ""

    @property
    def verdict(self) -> ClaimVerdict:
        low, high = self.low, self.high
        if low is None and high is None:
            low = self.value
        if self.measured is None or (low is None and high is None):
            return "unknown"
        if low is not None and self.measured < low:
            return "below"
        if high is not None and self.measured > high:
            return "above"
        return "holds"


@record
class ScalingSeries:
    """Parallel efficiency (0..1, 1 = perfect) at each GPU count; ``measured`` False for a
    modelled curve (drawn dashed, so nobody mistakes an estimate for a measurement)."""

    label: str
    points: tuple[tuple[int, float], ...]
    measured: bool = False


@record
class SheetOptions:
    """How to print the sheet.

    Attributes:
        lang: language of every fixed string (user text is printed as given).
        sections: which sections to include; empty ones are skipped anyway.
        invariant: byte-stable output (fixed dates and ids) - same sheet, same bytes.
        ttf_path: a TrueType font to embed for non-Latin text instead of the one
            :func:`torchrig.report.fonts.find_cjk_font` finds.
        internal: a sheet for the shop itself rather than a customer. It keeps the shop's
            remarks that a customer copy leaves out - how old a price is, how reliable its
            source, the analyst-estimate remark, the Build page's "edited in TorchRig" mark,
            how much of a long text was cut - and the tier comparison gets a column for the
            machine the sheet was made on (its detected profile). Off by default: a customer
            has no use for either.
    """

    lang: Lang = "en"
    sections: frozenset[str] = frozenset(SECTIONS)
    invariant: bool = False
    ttf_path: str | None = None
    internal: bool = False


@record
class Sheet:
    """Everything one build sheet shows.

    Attributes:
        build_name: the build's own name (user text).
        notes: the build's notes (user text), printed under the totals.
        tier_name / workload_name: context lines under the title, when known.
        comparison_tier: the tier the comparison table is against.
        bench_context: one line on where and when the benchmark ran.
        build_json: the build file to attach, so the PDF can be re-opened as a build.
        generator: the "generated by" line's version.
        draft_lines: the lines without a usable price (their names): the sheet is then a
            draft, stamped as one on every page with these lines named.
        recommendation: a plan sheet's recommendation, one paragraph each.
    """

    header: Header
    build_name: str = ""
    notes: str = ""
    tier_name: str | None = None
    workload_name: str | None = None
    bom: tuple[BomRow, ...] = ()
    totals: Totals | None = None
    comparison: tuple[ComparisonRow, ...] = ()
    comparison_tier: str | None = None
    requirements: tuple[BreakdownGroup, ...] = ()
    requirement_notes: tuple[str, ...] = ()
    bench: tuple[BenchRow, ...] = ()
    bench_context: str | None = None
    claims: tuple[ClaimRow, ...] = ()
    throughput: tuple[ThroughputRow, ...] = ()
    scaling: tuple[ScalingSeries, ...] = ()
    findings: tuple[Finding, ...] = ()
    verify: Any = None  # a report.verify_section.VerifySection (torchrig verify), or None
    build_json: dict[str, Any] | None = None
    options: SheetOptions = field(default_factory=SheetOptions)
    generator: str = __version__
    draft_lines: tuple[str, ...] = ()
    recommendation: tuple[str, ...] = ()

    @property
    def is_draft(self) -> bool:
        return bool(self.draft_lines)

    def shows(self, section: str) -> bool:
        return section in self.options.sections
