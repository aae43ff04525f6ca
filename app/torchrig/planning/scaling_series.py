"""Scaling curves for charts: data-parallel efficiency vs GPU count, one curve per candidate
interconnect, plus the subject's own link and a measured one when a collective report is
attached. Shared by the Wizard chart and the PDF so both show the same curves.

Inside one node the candidates are the GPU links (PCIe 4/5, NVLink 3/4); across nodes they
are the networks (25/100 GbE, InfiniBand HDR/NDR) with the subject's GPU link inside each node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torchrig.builds.capabilities import Capabilities
from torchrig.errors import InputError
from torchrig.i18n import Msg
from torchrig.planning.device import link_for
from torchrig.planning.links import LINKS, Link
from torchrig.planning.requirements import Requirements
from torchrig.planning.requirements.measured_network import plan_link
from torchrig.planning.requirements.scaling import ScalingPoint, scaling_curve
from torchrig.planning.workload import Workload

INTRA_CANDIDATES = ("pcie4_x16", "pcie5_x16", "nvlink3", "nvlink4")
INTER_CANDIDATES = ("eth_25g", "eth_100g", "ib_hdr", "ib_ndr")
TARGET_EFFICIENCY = 0.8
"""The seed's enterprise claim (2.3): ">= 80%" multi-GPU efficiency."""


@dataclass(frozen=True)
class Series:
    label: Msg
    kind: str  # "candidate", "subject" (the build's or machine's own link) or "measured"
    points: tuple[ScalingPoint, ...]


def _counts(total: int) -> list[int]:
    return sorted({n for n in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024) if n < total}
                  | {total})


def scaling_series(workload: Workload, requirements: Requirements,
                   subject: Capabilities | None = None,
                   collective_report: Any = None) -> list[Series]:
    """Curves up to the workload's GPU count (at least 8 inside one node). Empty when the plan
    has no step time (no GPU peak known) or the workload is not data-parallel training."""
    step = requirements.throughput.get("step_time_s")
    if not workload.is_training or step is None or not step.value:
        return []
    per_node = workload.gpus_per_node
    multi_node = workload.nodes > 1
    total = workload.total_gpus if multi_node else max(per_node, 8)
    per_node_for_curve = per_node if multi_node else total
    subject_intra, subject_inter = link_for(subject) if subject is not None else (None, None)
    series: list[Series] = []

    def curve(label: Msg, kind: str, intra: Link, inter: Link | None) -> None:
        try:
            points = scaling_curve(workload, requirements, intra, _counts(total),
                                   per_node_for_curve, inter)
        except InputError:
            return  # e.g. a 2-GPU bridge asked for 8 GPUs: that link is not a candidate
        series.append(Series(label, kind, tuple(points)))

    if multi_node:
        intra = subject_intra or LINKS["nvlink4"]
        for link_id in INTER_CANDIDATES:
            link = LINKS[link_id]
            curve(Msg(link.name, link.name), "candidate", intra, link)
        if subject_inter is not None:
            curve(Msg(f"{subject.label.en}: {subject_inter.name}",  # type: ignore[union-attr]
                      f"{subject.label.zh}：{subject_inter.name}"),  # type: ignore[union-attr]
                  "subject", intra, subject_inter)
    else:
        for link_id in INTRA_CANDIDATES:
            link = LINKS[link_id]
            curve(Msg(link.name, link.name), "candidate", link, None)
        if subject_intra is not None and subject is not None and subject.gpu_count > 1:
            curve(Msg(f"{subject.label.en}: {subject_intra.name}",
                      f"{subject.label.zh}：{subject_intra.name}"), "subject", subject_intra, None)
    if collective_report is not None:
        # The busbw the plan itself reads (at the workload's gradient message), so the chart's
        # measured curve and the plan's efficiency agree.
        measured = plan_link(collective_report, workload)
        if multi_node:
            curve(Msg("measured (collective benchmark)", "实测（集合通信基准）"), "measured",
                  subject_intra or LINKS["nvlink4"], measured)
        else:
            curve(Msg("measured (collective benchmark)", "实测（集合通信基准）"), "measured",
                  measured, None)
    return series
