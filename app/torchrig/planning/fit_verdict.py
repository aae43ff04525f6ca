"""One verdict on whether a plan runs on its subject, read by every line that says so.

The Wizard's headline ("does not fit on Professional") and its tier recommendation ("lowest
tier Professional") used to decide apart - the headline from the subject's VRAM, the tier from
any GPU the tier lists - and could contradict each other on screen. Both now read
:func:`fit_verdict` of the same analysis.
"""

from __future__ import annotations

from dataclasses import dataclass

from torchrig.findings import Severity
from torchrig.planning.analysis import Analysis, Recommendation


@dataclass(frozen=True)
class FitVerdict:
    """``code``: "no_gpu", "unknown" (the subject's GPU memory), "fits", "tight" (only the
    safety margin is short) or "does_not_fit"; ``blockers``: Blocker findings (a plan that
    fits in VRAM may still be blocked elsewhere). ``runs``: fits and nothing blocks."""

    code: str
    blockers: int

    @property
    def runs(self) -> bool:
        return self.code == "fits" and self.blockers == 0


def fit_verdict(analysis: Analysis) -> FitVerdict:
    req, caps = analysis.requirements, analysis.subject
    blockers = sum(1 for f in analysis.findings if f.severity == Severity.BLOCKER)
    if caps.gpu_count == 0:
        return FitVerdict("no_gpu", blockers)
    if req.fits is None:
        return FitVerdict("unknown", blockers)
    if req.fits:
        return FitVerdict("fits", blockers)
    return FitVerdict("tight" if req.vram_verdict == "tight" else "does_not_fit", blockers)


def tier_is_subject_but_not_as_shown(analysis: Analysis, rec: Recommendation) -> bool:
    """The recommended tier is the subject itself while the subject, as planned with the GPU
    and layout it shows, does not run the workload: the tier runs it only with another GPU it
    lists or laid out over more nodes (:func:`other_tier_gpu`, :func:`other_tier_layout`),
    which the recommendation line must then say."""
    subject = analysis.subject
    return (rec.tier is not None and subject.kind == "tier" and subject.label == rec.tier.name
            and (other_tier_gpu(analysis, rec) or other_tier_layout(analysis, rec))
            and not fit_verdict(analysis).runs)


def other_tier_gpu(analysis: Analysis, rec: Recommendation) -> bool:
    """The recommended tier runs the workload with a GPU other than the subject's."""
    subject = analysis.subject
    return rec.tier_gpu is not None and (
        subject.gpu_part is None or rec.tier_gpu.id != subject.gpu_part.id)


def other_tier_layout(analysis: Analysis, rec: Recommendation) -> bool:
    """The recommended tier runs the workload over another (nodes, GPUs per node) than the
    plan shown: the workload's own layout (``requirements.workload``)."""
    w = analysis.requirements.workload
    return rec.tier_layout is not None and rec.tier_layout != (w.nodes, w.gpus_per_node)


__all__ = ["FitVerdict", "fit_verdict", "other_tier_gpu", "other_tier_layout",
           "tier_is_subject_but_not_as_shown"]
