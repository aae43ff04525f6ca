"""Fill a :class:`~torchrig.report.sheet.Sheet` from the core objects.

This is the only module of the report package that knows builds, catalogs, pricing, tiers,
workload plans and benchmark reports. It converts; it never computes a price or a requirement
itself: money comes from :func:`~torchrig.builds.pricing.price_build`, compatibility findings
from :func:`~torchrig.builds.compat.check_build`, the target table from
:func:`~torchrig.builds.targets.compare`, measurements from the benchmark report.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from torchrig.builds.build import Build, LineItem
from torchrig.builds.capabilities import Capabilities, from_build, from_profile
from torchrig.builds.compat import check_build
from torchrig.builds.pricing import (
    ESTIMATE_WARNING,
    ROUNDING_NOTE,
    DefaultRate,
    PricedBuild,
    PricedLine,
    price_build,
)
from torchrig.builds.source_text import is_edited_here, source_text
from torchrig.builds.targets import compare
from torchrig.catalog.model import Catalog, Part, best_catalog_price
from torchrig.findings import Finding, sort_findings
from torchrig.i18n import Lang, one_language, plural
from torchrig.labels import MODELS, PRICE_RELIABILITY, TASKS, label, precision_label
from torchrig.records import replace
from torchrig.report.sheet import (
    BenchRow,
    BomRow,
    BreakdownGroup,
    BreakdownItem,
    ClaimRow,
    ComparisonRow,
    Header,
    ScalingSeries,
    Sheet,
    SheetOptions,
    ThroughputRow,
    Totals,
)
from torchrig.report.strings import STRINGS, text
from torchrig.report.values import fmt_money
from torchrig.units import fmt_rate

if TYPE_CHECKING:
    from torchrig.bench.report import BenchReport
    from torchrig.hardware.model import SystemProfile
    from torchrig.planning.requirements import Requirements
    from torchrig.planning.workload import Workload


def assemble_sheet(
    build: Build,
    catalog: Catalog,
    *,
    header: Header,
    lang: Lang,
    workload: Workload | None = None,
    requirements: Requirements | None = None,
    bench_report: BenchReport | None = None,
    profile: SystemProfile | None = None,
    findings: Sequence[Finding] | None = None,
    scaling: Sequence[ScalingSeries] | None = None,
    collective_report: Any = None,
    tier_id: str | None = None,
    options: SheetOptions | None = None,
    default_rate: DefaultRate | None = None,
) -> Sheet:
    """The sheet for ``build``, priced with ``default_rate`` where the build has no exchange
    rate of its own (the Settings' rate or the shipped reference: the Build page's rate).

    It holds the priced lines and totals, compatibility findings, the comparison with
    ``tier_id`` (default: the tier the build started from) for the build and, on an internal
    sheet (``options.internal``), the machine in ``profile``. With ``workload``: the
    requirement breakdown (``requirements`` if the caller planned already, else planned here
    for the build's GPU), the analysis findings and the modelled scaling curves for the
    candidate interconnects and the build's own link, plus a measured curve when
    ``collective_report`` is attached (``scaling`` replaces them). With ``bench_report``: the
    benchmark and seed-claim tables and the benchmark findings. ``findings`` adds any further
    findings; each appears once.
    """
    # Price alerts (a price over six months old) are judged on the sheet's date, so a sheet
    # made again from the same inputs says the same.
    priced = price_build(build, catalog, today=_sheet_day(header.date),
                         default_rate=default_rate)
    tier = catalog.tier(tier_id) if tier_id else (
        catalog.tier(build.tier) if build.tier else None)
    caps = from_build(build, catalog)
    found = [*check_build(build, catalog), *(findings or ())]
    if workload is not None:
        from torchrig.planning.analysis import analyze

        analysis = analyze(workload, caps, catalog)
        found += analysis.findings
        requirements = requirements or analysis.requirements
    if bench_report is not None:
        from torchrig.bench.findings import bench_findings

        found += bench_findings(bench_report, profile,
                                required_read_bps=_read_rate(requirements))
    bench_rows, claim_rows = bench_sections(bench_report, lang) if bench_report else ((), ())
    base_options = options or SheetOptions()
    internal = base_options.internal
    comparison: tuple[ComparisonRow, ...] = ()
    if tier is not None:
        comparison = comparison_rows(build, catalog, tier.id, lang,
                                     profile if base_options.internal else None)
    if scaling is None and workload is not None and requirements is not None:
        # Imported here: the planner behind it is for sheets with a workload only.
        from torchrig.planning.scaling_series import scaling_series

        scaling = tuple(
            ScalingSeries(
                series.label.get(lang) if series.kind == "measured"
                else text("scaling.model", lang, link=series.label.get(lang)),
                tuple((p.gpus, p.efficiency) for p in series.points),
                measured=series.kind == "measured")
            for series in scaling_series(workload, requirements, caps, collective_report))
    return Sheet(
        header=replace(header, title=one_language(header.title, lang) if header.title else None),
        build_name=one_language(build.name, lang),
        notes=sheet_notes(build, lang),
        workload_name=workload_name(workload, lang) if workload is not None else None,
        tier_name=text("header.tier_value", lang, name=tier.name.get(lang),
                       ref=text("seed_ref", lang, section=tier.section)) if tier else None,
        bom=bom_rows(priced, build, catalog, lang, internal),
        totals=totals_of(priced, build, lang, internal),
        draft_lines=tuple(one_language(priced.lines[i].label, lang)
                          for i in priced.missing_price_lines),
        comparison=comparison,
        comparison_tier=tier.name.get(lang) if tier else None,
        requirements=breakdown_groups(requirements, caps, lang) if requirements else (),
        requirement_notes=requirement_notes(requirements, lang) if requirements else (),
        bench=bench_rows,
        bench_context=_bench_context(bench_report) if bench_report else None,
        claims=claim_rows,
        throughput=_throughput_rows(bench_report, catalog, lang) if bench_report else (),
        scaling=tuple(scaling or ()),
        findings=tuple(_merge_findings(found)),
        build_json=build.to_dict(),
        options=replace(base_options, lang=lang),
    )




def sheet_notes(build: Build, lang: str) -> str:
    """The notes as the build is now, in ``lang``: the tier's starter note while the build
    still has the lines it describes (:meth:`Build.current_tier_note`), then the user's own
    notes (their ``lang`` half when they hold both languages)."""
    tier_note = build.current_tier_note()
    parts = [tier_note.get(lang) if tier_note is not None else "",
             one_language(build.notes.strip(), lang)]
    return "\n".join(part for part in parts if part.strip())


def _merge_findings(found: Iterable[Finding]) -> list[Finding]:
    """Each finding once (a caller may pass compat findings it already has), worst first."""
    seen: set[tuple[str, str, str]] = set()
    out: list[Finding] = []
    for finding in sort_findings(found):
        key = (finding.code, finding.title.en, finding.detail.en)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def _sheet_day(date: str) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(date)
    except ValueError:
        return None


# --- bill of materials and totals --------------------------------------------------------------


def _part(catalog: Catalog, item: LineItem) -> Part | None:
    return catalog.parts.get(item.part_id) if item.part_id else None


def _price_facts(line: PricedLine, item: LineItem, part: Part | None, catalog: Catalog,
                 currency: str, lang: str, internal: bool = True
                 ) -> tuple[str | None, tuple[str, str | None], str | None]:
    """(kind, (source, its web address), date) of the price pricing used for ``line``. The
    source is in ``lang`` where TorchRig wrote its words (builds.source_text); a customer copy
    leaves out the Build page's "edited in TorchRig" mark, which is the shop's business."""
    if line.origin_kind == "override":
        source, url = catalog.source_link(item.price_source)
        if url is None:
            source = "" if not internal and is_edited_here(source) else source_text(source,
                                                                                   lang)
        return item.price_kind or "user", (source, url), item.price_date or None
    if line.origin_kind == "catalog" and part is not None:
        price = best_catalog_price(part, currency)
        # The same choice pricing made; if the catalog changed under us, show pricing's words.
        if (price is not None and price.amount == line.source_amount
                and price.currency == line.source_currency):
            source, url = catalog.source_link(price.source)
            if price.label is not None:
                # The catalog's bilingual label: the reader's language and no remarks (the
                # remark is the shop's: BomRow.price_remark, on the internal sheet only).
                return price.kind, (price.label.get(lang), url), price.date
            return price.kind, (source if url else source_text(source, lang), url), price.date
        return line.price_kind, (line.origin.get(lang), None), None
    return None, ("", None), None


def _line_note(line: PricedLine, item: LineItem, currency: str, lang: str,
               internal: bool = True) -> str:
    notes = []
    if line.multiplier > 1:
        notes.append(text("bom.per_node", lang, qty=line.quantity, nodes=line.multiplier))
    if (line.source_currency and line.source_currency != currency
            and line.source_amount is not None):
        amount = f"{line.source_currency} {fmt_money(line.source_amount)}"
        key = "bom.converted" if line.status == "ok" else "bom.rate_needed"
        notes.append(text(key, lang, amount=amount))
    elif line.status == "price needed":
        notes.append(text("bom.price_needed", lang))
    if item.note:
        notes.append(one_language(item.note, lang))
    # A part out of production: the customer sees why the price may move. How old the shop's
    # price is and how far its source can be trusted are the shop's remarks (internal sheet).
    notes += [alert.text.get(lang) for alert in line.alerts
              if internal or alert.code not in INTERNAL_ALERTS]
    if internal and line.reliability:
        notes.append(text("bom.reliability", lang,
                          level=label(PRICE_RELIABILITY, line.reliability, lang)))
    return "\n".join(notes)


INTERNAL_ALERTS = frozenset({"price.stale"})
"""Alert codes shown on the internal sheet only (catalog/alerts.py)."""

def bom_rows(priced: PricedBuild, build: Build, catalog: Catalog,
             lang: str, internal: bool = True) -> tuple[BomRow, ...]:
    rows = []
    for line in priced.lines:
        item = build.line_items[line.index]
        part = _part(catalog, item)
        kind, (source, url), date = _price_facts(line, item, part, catalog, priced.currency,
                                                 lang, internal)
        rows.append(BomRow(
            category=line.category,
            part=one_language(line.label, lang),
            key_spec=part.key_spec(lang) if part is not None else "",
            qty=line.quantity * line.multiplier,
            unit_price=line.unit_price,
            line_total=line.total,
            price_kind=kind,
            price_source=source,
            price_source_url=url,
            price_date=date,
            note=_line_note(line, item, priced.currency, lang, internal),
            nodes=line.multiplier,
            # The catalog's remark on its price is the shop's, like the price's age.
            price_remark=(line.remark.get(lang)
                          if internal and line.remark is not None else ""),
        ))
    return tuple(rows)


def totals_of(priced: PricedBuild, build: Build, lang: str, internal: bool = True) -> Totals:
    """The money summary. The analyst-estimate remark is the shop's (internal sheet only): a
    quote's prices are the shop's offer."""
    rate = priced.exchange_rate  # the build's own, or the default it was priced with
    origin = priced.exchange_rate_origin
    warnings = [w for w in priced.warnings if internal or w != ESTIMATE_WARNING]
    return Totals(
        currency=priced.currency,
        subtotal=priced.subtotal,
        total=priced.total,
        discount=priced.discount if build.discount is not None else None,
        tax=priced.tax if priced.tax_rate else None,
        tax_rate_percent=(priced.tax_rate * 100).normalize() if priced.tax_rate else None,
        missing_prices=len(priced.missing_price_lines),
        exchange_rate=priced.exchange_rate,
        exchange_from="USD" if rate else None,
        exchange_to="CNY" if rate else None,
        exchange_date=priced.exchange_rate_date,
        exchange_origin=origin.get(lang) if origin is not None and rate else None,
        discount_percent=(build.discount.value if build.discount is not None
                          and build.discount.kind == "percent" else None),
        notes=(*(w.get(lang) for w in warnings), ROUNDING_NOTE.get(lang)),
    )


# --- comparison with a tier ----------------------------------------------------------------


def comparison_rows(build: Build, catalog: Catalog, tier_id: str, lang: str,
                    profile: SystemProfile | None = None) -> tuple[ComparisonRow, ...]:
    """The targets table (planning.targets.compare) for the build and optionally a machine."""
    subjects = [from_build(build, catalog)]
    if profile is not None:
        subjects.append(from_profile(profile, catalog))
    rows = []
    for row in compare(catalog.tier(tier_id), catalog, subjects, lang):
        machine = row.cells[1] if len(row.cells) > 1 else None
        rows.append(ComparisonRow(
            dimension=row.dimension.get(lang),
            target=row.target,
            build=row.cells[0].text,
            build_status=row.cells[0].status,
            machine=machine.text if machine else None,
            machine_status=machine.status if machine else None,
        ))
    return tuple(rows)


# --- workload: requirements and scaling ------------------------------------------------------



def workload_name(workload: Workload, lang: str) -> str:
    """The workload's own name, or its task with the figures that define it, in words (the
    file's codes - ``llm_finetune_lora``, ``amp_bf16`` - mean nothing to a customer)."""
    if workload.name:
        return workload.name
    from torchrig.planning.workload import resolve_model

    model = resolve_model(workload)
    model_name = label(MODELS, model.preset.id, lang) if model.preset else workload.model
    gpus = plural(workload.total_gpus, STRINGS["workload.gpu"], STRINGS["workload.gpus"], lang)
    summary = text("workload.summary", lang, model=model_name,
                   precision=precision_label(workload.precision, workload.is_training, lang),
                   batch=workload.batch_size, gpus=gpus)
    return label(TASKS, workload.task, lang) + text("colon", lang) + summary


def _read_rate(requirements: Requirements | None) -> float | None:
    if requirements is None:
        return None
    item = requirements.storage.get("read_rate_bps")
    return item.value if item is not None else None


def breakdown_groups(requirements: Requirements, caps: Capabilities | None,
                     lang: str) -> tuple[BreakdownGroup, ...]:
    """One stacked bar per resource (the same bars as the Wizard's chart), with the build's
    capacity and a note on what the plan could not size."""
    from torchrig.planning.breakdown import requirement_bars

    groups = []
    for bar in requirement_bars(requirements, caps):
        notes = []
        if bar.unknown:
            notes.append(text("req.unknown", lang,
                              items=", ".join(m.get(lang) for m in bar.unknown)))
        rate = requirements.storage.get("read_rate_bps") if bar.group == "storage" else None
        if rate is not None and rate.value:
            notes.append(text("req.read_rate", lang, rate=fmt_rate(rate.value)))
        groups.append(BreakdownGroup(
            group=bar.group,  # type: ignore[arg-type]
            unit=bar.unit,  # type: ignore[arg-type]
            items=tuple(BreakdownItem(seg.label.get(lang), seg.amount) for seg in bar.segments),
            capacity=bar.capacity,
            note="; ".join(notes),
        ))
    return tuple(groups)


def requirement_notes(requirements: Requirements, lang: str) -> tuple[str, ...]:
    """What the plan assumed, one line each, so a reader can see the basis of every bar."""
    return tuple(text("req.assumption", lang, text=a.text.get(lang))
                 for a in requirements.assumptions)


# --- benchmarks ------------------------------------------------------------------------------


def _bench_context(report: BenchReport) -> str:
    bits = [report.device_name or report.device, report.started]
    if report.cancelled:
        bits.append("cancelled")
    return ", ".join(b for b in bits if b)


def _throughput_rows(report: BenchReport, catalog: Catalog,
                     lang: str) -> tuple[ThroughputRow, ...]:
    from torchrig.bench.spec_compare import matmul_bars

    bars = matmul_bars(report, catalog)
    if not any(bar.kind == "measured" for bar in bars):
        return ()
    return tuple(ThroughputRow(bar.label.get(lang), bar.flops, bar.kind) for bar in bars)


def bench_sections(report: BenchReport,
                   lang: str) -> tuple[tuple[BenchRow, ...], tuple[ClaimRow, ...]]:
    """Measurements against a spec or theoretical figure go to the benchmark table; those
    against a seed claim (AMP speed-up, checkpointing cost) go to the claims table. A benchmark
    that did not run still gets a row saying why, so the sheet never hides a gap."""
    rows: list[BenchRow] = []
    claims: list[ClaimRow] = []
    for result in report.results:
        title = result.title.get(lang)
        if not result.ok:
            reason = result.reason.get(lang) if result.reason else result.status
            rows.append(BenchRow(name=title, measured=None, unit="count", note=reason))
            continue
        for m in result.measurements:
            label = m.label.get(lang)
            name = label if label.startswith(title) else f"{title}: {label}"
            ref = m.reference
            if ref is not None and ref.kind == "seed_claim":
                claims.append(ClaimRow(claim=name, seed=ref.label.get(lang), measured=m.value,
                                       unit=m.unit, measure_id=m.id, low=ref.low,
                                       high=ref.high, value=ref.value, source=ref.source))
                continue
            rows.append(BenchRow(
                name=name, measured=m.value, unit=m.unit, measure_id=m.id,
                reference=ref.value if ref is not None else None,
                reference_label=ref.label.get(lang) if ref is not None else "",
                source=ref.source if ref is not None else "",
                note="\n".join(n.get(lang) for n in m.notes),
            ))
    return tuple(rows), tuple(claims)
