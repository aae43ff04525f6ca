"""The planner: :func:`plan` combines the concerns - VRAM, throughput, interconnect, host RAM,
storage, CPU, reference estimators, seed claims, rules of thumb - into :class:`Requirements`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from torchrig.planning.presets import load_calibration
from torchrig.planning.requirements.host import cpu_items, storage_items, system_ram_items
from torchrig.planning.requirements.interconnect import interconnect_items
from torchrig.planning.requirements.network import on_network
from torchrig.planning.requirements.references import reference_items, rules_of_thumb, seed_claims
from torchrig.planning.requirements.throughput import throughput_items
from torchrig.planning.requirements.types import Assumption, Requirements
from torchrig.planning.requirements.vram import vram_items
from torchrig.planning.workload import Workload, resolve_model

if TYPE_CHECKING:
    # Annotations only: a plan without a GPU never imports the device model or its links.
    from torchrig.planning.device import DeviceSpec
    from torchrig.planning.links import Link


def plan(workload: Workload, gpu: DeviceSpec | None = None,
         measured_link: Link | None = None) -> Requirements:
    """Requirements of ``workload``; with ``gpu``, also throughput, time and fit.
    ``measured_link``: a collective benchmark's link (:func:`.measured_network.plan_link`) in
    place of the GPU's own of its scope (docs/estimation.md sec. 6.3)."""
    w = workload.validate()
    model = resolve_model(w)
    cal = load_calibration()
    assumptions: list[Assumption] = []
    incomplete: list[str] = []
    gpu = on_network(w, gpu, assumptions)  # the workload's network, over the device's own
    if measured_link is not None:  # what was measured, over both
        from torchrig.planning.requirements.measured_network import on_measured_link

        gpu = on_measured_link(gpu, measured_link)

    vram, extras = vram_items(w, model, cal, assumptions, incomplete)
    throughput, samples_per_s = throughput_items(w, model, cal, gpu, vram, assumptions)
    interconnect = interconnect_items(w, model)
    system_ram = system_ram_items(w, model, assumptions)
    storage = storage_items(w, model, samples_per_s)
    cpu = cpu_items(w, samples_per_s, assumptions)
    references = reference_items(w, model)
    claims = seed_claims(w, model, cal, vram, extras)
    rules = rules_of_thumb(w, gpu)
    return Requirements(
        workload=w, device=gpu, vram_per_gpu=vram, system_ram=system_ram, storage=storage,
        cpu=cpu, interconnect=interconnect, throughput=throughput,
        assumptions=_dedupe(assumptions), seed_claims=claims, references=references,
        incomplete=incomplete, rules_of_thumb=rules,
    )


def _dedupe(assumptions: list[Assumption]) -> list[Assumption]:
    seen: dict[str, Assumption] = {}
    for a in assumptions:
        seen.setdefault(a.key, a)
    return list(seen.values())
