"""The plan sheet: what a workload needs, what TorchRig finds and recommends, for a customer
who has no build yet.

With no parts there is nothing to price, so this is not a quote (no parts list, no totals, no
validity): it is the workload's requirements planned for the recommended tier (the lowest tier
that runs it without a blocker, :func:`torchrig.planning.analysis.recommend`), the findings of
that plan, and the recommendation itself - the tier and the catalog GPU of best value.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from torchrig.builds.capabilities import from_tier
from torchrig.catalog.model import Catalog
from torchrig.findings import Finding
from torchrig.i18n import Lang
from torchrig.report.assemble import breakdown_groups, requirement_notes
from torchrig.report.sheet import Header, Sheet, SheetOptions
from torchrig.report.strings import text
from torchrig.units import fmt_gib

if TYPE_CHECKING:
    from torchrig.planning.workload import Workload


def assemble_plan_sheet(workload: Workload, catalog: Catalog, *, header: Header, lang: Lang,
                        options: SheetOptions | None = None) -> Sheet:
    """The plan sheet for ``workload`` (see module doc); the header's kind becomes "plan"."""
    from torchrig.planning.analysis import analyze, recommend, tier_caps_with_gpu
    from torchrig.planning.buying_for import BuyingFor
    from torchrig.planning.device import device_spec
    from torchrig.planning.gpu_choice import PICK_BASES
    from torchrig.planning.requirements import plan
    from torchrig.report.assemble import workload_name

    rec = recommend(workload, catalog)
    paragraphs = [rec.tier_reason.get(lang)]
    if rec.gpu is not None and rec.gpu_vram_needed is not None:
        paragraphs.append(text("plan.gpu", lang, gpu=f"{rec.gpu.vendor} {rec.gpu.name}",
                               vram=fmt_gib(rec.gpu_vram_needed),
                               basis=PICK_BASES[rec.gpu_basis or "price"].get(lang)))
    else:
        paragraphs.append(text("plan.no_gpu", lang))
    # A plan sheet has no build: say which machine the GPU was recommended for.
    paragraphs.append(BuyingFor("workload").line(workload, rec.gpu).get(lang))
    findings: tuple[Finding, ...] = ()
    tier_name = None
    if rec.tier is not None:
        caps = from_tier(rec.tier, catalog)
        if rec.tier_gpu is not None:  # the GPU of the tier's list that the recommendation chose
            caps = tier_caps_with_gpu(caps, rec.tier_gpu)
        analysis = analyze(workload, caps, catalog)
        requirements = analysis.requirements
        findings = tuple(analysis.findings)
        tier_name = text("header.tier_value", lang, name=rec.tier.name.get(lang),
                         ref=text("seed_ref", lang, section=rec.tier.section))
        left, right = ("（", "）") if lang == "zh" else (" (", ")")
        subject = rec.tier.name.get(lang) + (f"{left}{rec.tier_gpu.name}{right}"
                                             if rec.tier_gpu else "")
        paragraphs.append(text("plan.subject", lang, subject=subject))
        groups = breakdown_groups(requirements, caps, lang)
    else:
        requirements = plan(workload, device_spec(rec.gpu) if rec.gpu is not None else None)
        groups = breakdown_groups(requirements, None, lang)  # no subject: no capacity marks
    base = options or SheetOptions()
    return Sheet(
        header=replace(header, kind="plan", validity_days=None),
        build_name=workload.name or "",
        tier_name=tier_name,
        workload_name=workload_name(workload, lang),
        requirements=groups,
        requirement_notes=requirement_notes(requirements, lang),
        findings=findings,
        recommendation=tuple(paragraphs),
        options=replace(base, lang=lang,
                        sections=frozenset(base.sections) - {"bom", "totals", "attachment"}),
    )
