"""A measured link in a plan: ``torchrig plan --collective-report FILE`` and the Wizard's "This
machine" with a collective report attached put the all-reduce bus bandwidth the collective
benchmark measured (``torchrig bench --collective``, docs/collective.md) in place of the
catalog link the scaling model would use (docs/estimation.md sec. 6.3).

One path for both: the CLI and the GUI only find the report; :func:`plan_link` makes it a link
for the workload, and the planner (:func:`on_measured_link`) puts it in the device.

Which size: a sweep measures busbw at many message sizes and small messages reach far less
of the link, so the plan takes the measured size nearest (by ratio) to the message the
workload's gradient sync sends - DDP's 25 MiB bucket (tensor / pipeline / expert parallel runs
sync their data-parallel gradients the same way), DeepSpeed ZeRO's ``reduce_bucket_size``
16-bit elements, or all the gradients when they fill less than a bucket - rather than
interpolating between sizes (a sweep's busbw is not monotone in size, and the nearest row is
a figure that was actually measured).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from torchrig.collective_math import fmt_size
from torchrig.errors import InputError
from torchrig.planning.links import Link
from torchrig.planning.requirements.interconnect import gradient_sync_bytes
from torchrig.planning.requirements.scaling import (
    DDP_BUCKET_BYTES,
    ZERO_BUCKET_BYTES,
    measured_link,
)
from torchrig.planning.workload import Workload

if TYPE_CHECKING:
    from torchrig.planning.device import DeviceSpec


def sync_message_bytes(w: Workload) -> float:
    """The message one gradient all-reduce of ``w`` sends (the size its busbw is read at):
    a full bucket, or all the gradients when they fill less than one."""
    bucket = ZERO_BUCKET_BYTES if w.strategy.startswith("zero") else DDP_BUCKET_BYTES
    grads = gradient_sync_bytes(w)
    return min(bucket, grads) if grads > 0 else bucket


def nearest_result(report: Any, n_bytes: float, op: str = "all_reduce") -> Any:
    """The report's ``op`` row whose size is nearest ``n_bytes`` by ratio (the larger on a
    tie: large gradient buckets)."""
    rows = [r for r in report.results_for(op) if r.busbw > 0]
    if not rows:
        raise InputError(f"collective report has no {op} results with a positive busbw")
    return min(rows, key=lambda r: (abs(math.log(r.n_bytes / n_bytes)), -r.n_bytes))


def plan_link(report: Any, w: Workload) -> Link:
    """The link a plan of ``w`` uses from a collective report: the all-reduce busbw at the
    size nearest the workload's gradient message, the smallest size's time as latency; inside
    a node when the report ran on one node, between nodes otherwise."""
    row = nearest_result(report, sync_message_bytes(w))
    base = measured_link(report)  # the scope, the latency, and its refusals
    t = report.transport
    nodes = t.nnodes or 1
    hosts = ", ".join(t.hosts) if len(t.hosts) <= 2 else f"{len(t.hosts)} hosts"
    where = "inside one node" if nodes <= 1 else f"between {nodes} nodes"
    name = (f"the measured link (collective benchmark of {report.created[:10]} on {hosts}, "
            f"{t.world_size} ranks {where}: all-reduce busbw {row.busbw / 1e9:.1f} GB/s at "
            f"{fmt_size(row.n_bytes)})")
    return replace(base, name=name, bandwidth_bps=row.busbw,
                   source=f"collective benchmark {report.created}: all-reduce busbw at "
                          f"{row.n_bytes} B")


def on_measured_link(gpu: DeviceSpec | None, link: Link | None) -> DeviceSpec | None:
    """``gpu`` with the measured ``link`` in place of its link of the same scope. Between
    nodes the measured busbw is the whole ring's, ports included, so it counts as one port."""
    if gpu is None or link is None:
        return gpu
    if link.scope == "inter":
        return replace(gpu, inter_link=link, nics_per_node=1)
    return replace(gpu, intra_link=link)


__all__ = ["nearest_result", "on_measured_link", "plan_link", "sync_message_bytes"]
