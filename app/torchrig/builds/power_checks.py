"""Power checks: a realistic draw, transient headroom, the GPU maker's minimum, connectors.

The sustained draw counts each CPU at its maximum power (Intel PL2 / AMD PPT, falling back to
TDP when the catalog has no maximum), each GPU at its board power, and a fixed allowance for the
rest of the system. Transients follow the ATX 3.x / PCIe CEM 5.0 model: a GPU may spike to three
times its sustained power for 100 µs, and an ATX 3.x supply over 450 W with a 12V-2x6 (12VHPWR)
connector must carry 200% of its rating for 100 µs (150% without one); a maker's own excursion
figure replaces that rule. A supply with no such rating is sized with the PC builders' x1.3
margin instead. Every supply unit counts (a line's quantity, several lines), each with its own
excursion; a server sold as a system brings its supplies (``builds/system_parts.py``). When the
transients do not fit, the fix offers the GPU power limit that makes them fit beside the bigger
supply. The part fields read here are listed in ``builds/power_fields.py``.
"""

from __future__ import annotations

import math

from torchrig.builds.check_node import PSU_CONNECTOR_SPECS, Node, finding
from torchrig.builds.system_parts import system_supply
from torchrig.catalog.model import Part
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg, counted
from torchrig.records import record

REST_OF_SYSTEM_W = 150.0
"""Board, memory, drives and fans: Intel's ATX 3.0 sizing example and PSU makers' guides."""
GPU_EXCURSION_FACTOR = 3.0
"""PCIe CEM 5.0: a card may draw 3x its sustained power for 100 µs."""
ATX3_EXCURSION_WITH_12VHPWR = 2.0
ATX3_EXCURSION_WITHOUT = 1.5
"""ATX 3.0 power excursion for 100 µs: 200% of rating above 450 W with a 12VHPWR connector,
otherwise 150%."""
ATX3_EXCURSION_MIN_W = 450.0
LEGACY_MARGIN = 1.3
"""PC-builder calculators' x1.2-1.3 over the sustained draw (docs/estimation.md section 7)."""

POWER_SOURCE = Msg(
    "Intel (PCWorld interview, tweaktown.com/news/85717): GPUs may spike to 3x sustained power "
    "for 100 µs, 150 W for the rest of the system; ATX 3.0 PSU design guide (edc.intel.com, "
    "hothardware.com): 200% for 100 µs above 450 W with 12VHPWR, else 150%; CPU maximum power: "
    "Intel PL2 / AMD PPT (docs/hardware-sources.md section 6); PC builders x1.3 "
    "(docs/estimation.md section 7)",
    "Intel（PCWorld 采访，tweaktown.com 新闻 85717）：GPU 可在 100 µs 内冲到持续功耗的 3 倍，"
    "系统其余部分按 150 W 计；ATX 3.0 电源设计指南（edc.intel.com、hothardware.com）：450 W "
    "以上且带 12VHPWR 时 100 µs 内 200%，否则 150%；CPU 最大功耗：Intel PL2 / AMD PPT"
    "（硬件参考第 6 节）；装机经验 ×1.3（估算参考第 7 节）")


@record
class PowerEstimate:
    """Sustained and transient draw of one node, in watts, with what was not counted."""

    cpu_w: float
    gpu_w: float
    rest_w: float
    unknown: tuple[str, ...]

    @property
    def sustained_w(self) -> float:
        return self.cpu_w + self.gpu_w + self.rest_w

    @property
    def peak_w(self) -> float:
        """The 100 µs peak: GPUs at their excursion limit, the rest at full power."""
        return self.cpu_w + self.rest_w + self.gpu_w * GPU_EXCURSION_FACTOR


def estimate_power(node: Node) -> PowerEstimate:
    cpu_w = 0.0
    gpu_w = 0.0
    unknown: list[str] = []
    for part in node.each("cpu"):
        watts = part.cpu.max_turbo_power_w or part.cpu.tdp_w
        if watts is None:
            unknown.append(part.name)
        cpu_w += watts or 0.0
    for part in node.each("gpu"):
        if part.gpu.tdp_w is None:
            unknown.append(part.name)
        gpu_w += part.gpu.tdp_w or 0.0
    return PowerEstimate(cpu_w=cpu_w, gpu_w=gpu_w, rest_w=REST_OF_SYSTEM_W,
                         unknown=tuple(dict.fromkeys(unknown)))


@record
class _Supply:
    name: str
    watts: float
    carries_w: float | None  # what the supplies give for 100 µs (ATX 3.x), None when not rated
    excursion: float | None  # the one ATX 3.x factor when every unit has the same, else None
    parts: tuple[Part, ...]  # every unit, a part repeated by its quantity


def _supply(node: Node) -> _Supply | None:
    psus = node.of("psu")
    if psus:
        units = node.each("psu")
        watts = sum(p.psu.wattage_w or 0 for p in units)
        name = " + ".join(line.part.name if line.quantity == 1
                          else f"{line.quantity} x {line.part.name}" for line in psus)
        factors = [_excursion(p) for p in units]
        # Supplies sharing a load each carry their own excursion; one without an ATX 3.x
        # rating leaves the set unrated (the x1.3 margin then sizes all of them).
        carries = (sum((p.psu.wattage_w or 0) * f for p, f in zip(units, factors, strict=True)
                       if f is not None)
                   if None not in factors else None)
        excursion = factors[0] if len(set(factors)) == 1 else None
        return _Supply(name, watts, carries, excursion, tuple(units))
    system = system_supply(node)
    if system is not None:
        return _Supply(system.name, system.watts, None, None, ())
    return None


def psu_capacity_w(node: Node) -> float | None:
    """The watts the node's supplies give, as the power checks size them (every supply x its
    quantity; a server's built-in supply by its redundant rating); None when none is known."""
    supply = _supply(node)
    return supply.watts if supply is not None else None


def _excursion(psu: Part) -> float | None:
    s = psu.psu
    if not (s.atx_version or "").upper().startswith("ATX 3"):
        return None
    if s.transient_peak_w and s.wattage_w:
        # The maker's own excursion figure (MSI: 2,600 W for the 1,300 W unit) wins over the
        # design guide's rule, which only says what an ATX 3.x unit must at least carry.
        return s.transient_peak_w / s.wattage_w
    big = (s.wattage_w or 0) > ATX3_EXCURSION_MIN_W and (s.pcie_12v_2x6_connectors or 0) > 0
    return ATX3_EXCURSION_WITH_12VHPWR if big else ATX3_EXCURSION_WITHOUT


def power_checks(node: Node) -> list[Finding]:
    supply = _supply(node)
    if supply is None:
        return []
    est = estimate_power(node)
    if est.cpu_w + est.gpu_w <= 0:
        return []
    out: list[Finding] = []
    unknown = (Msg(f" Power of {', '.join(est.unknown)} is unknown and not counted.",
                   f" {', '.join(est.unknown)} 的功耗未知，未计入。")
               if est.unknown else Msg("", ""))
    parts = Msg(f"CPU maximum power {est.cpu_w:.0f} W + GPU board power {est.gpu_w:.0f} W + "
                f"{est.rest_w:.0f} W for the rest of the system = {est.sustained_w:.0f} W",
                f"CPU 最大功耗 {est.cpu_w:.0f} W + GPU 板卡功耗 {est.gpu_w:.0f} W + 其余部件 "
                f"{est.rest_w:.0f} W = {est.sustained_w:.0f} W")
    numbers = {"psu_w": supply.watts, "cpu_w": est.cpu_w, "gpu_w": est.gpu_w,
               "rest_w": est.rest_w, "load_w": est.sustained_w, "peak_w": est.peak_w}
    if supply.watts < est.sustained_w:
        out.append(finding(
            "compat.psu", Severity.BLOCKER,
            Msg("Power supply is below the system's sustained draw", "电源功率低于整机持续功耗"),
            Msg(f"{supply.name}: {supply.watts:.0f} W; {parts.en}.{unknown.en}",
                f"{supply.name}：{supply.watts:.0f} W；{parts.zh}。{unknown.zh}"),
            _sustained_fix(supply, est, node), POWER_SOURCE, **numbers,
            **_limit_numbers(_sustained_limit(supply, est, node), node)))
    else:
        out += _headroom(supply, est, parts, unknown, numbers, node)
    out += _vendor_minimum(node, supply)
    out += _connectors(node, supply)
    return out


def _headroom(supply: _Supply, est: PowerEstimate, parts: Msg, unknown: Msg,
              numbers: dict[str, float], node: Node) -> list[Finding]:
    if supply.carries_w is not None:
        carries = supply.carries_w
        if carries >= est.peak_w:
            return []
        # The supplies' watts that carry the peak, scaled as they are rated (a set of one
        # factor: peak / factor).
        need = supply.watts * est.peak_w / carries
        rating = (Msg(f"ATX 3.x, rated for {supply.excursion:.0%} = {carries:.0f} W for 100 µs",
                      f"ATX 3.x，100 µs 内可承受 {supply.excursion:.0%} = {carries:.0f} W")
                  if supply.excursion is not None else
                  Msg(f"ATX 3.x, together rated for {carries:.0f} W for 100 µs",
                      f"ATX 3.x，合计 100 µs 内可承受 {carries:.0f} W"))
        detail = Msg(
            f"{supply.name}: {supply.watts:.0f} W, {rating.en}. {parts.en}; with each GPU "
            f"spiking to {GPU_EXCURSION_FACTOR:.0f}x its board power the 100 µs peak is "
            f"{est.peak_w:.0f} W.{unknown.en}",
            f"{supply.name}：{supply.watts:.0f} W，{rating.zh}。{parts.zh}；GPU 瞬时功耗可达板卡"
            f"功耗的 {GPU_EXCURSION_FACTOR:.0f} 倍，100 µs 峰值 {est.peak_w:.0f} W。{unknown.zh}")
    else:
        need = est.sustained_w * LEGACY_MARGIN
        if supply.watts >= need:
            return []
        detail = Msg(
            f"{supply.name}: {supply.watts:.0f} W with no ATX 3.x excursion rating in the "
            f"catalog. {parts.en}; x{LEGACY_MARGIN} for transient spikes = {need:.0f} W."
            f"{unknown.en}",
            f"{supply.name}：{supply.watts:.0f} W，目录中无 ATX 3.x 瞬时功耗额定值。"
            f"{parts.zh}；为瞬时尖峰留 ×{LEGACY_MARGIN} 余量 = {need:.0f} W。{unknown.zh}")
    limit = gpu_power_limit([p.gpu.tdp_w for p in node.each("gpu")],
                            _transient_budget(supply, est))
    extra = _limit_numbers(limit, node)
    return [finding(
        "compat.psu_headroom", Severity.WARNING,
        Msg("Power supply too small for transient spikes", "电源不足以承受瞬时功耗尖峰"),
        detail, _headroom_fix(need, limit, node, supply), POWER_SOURCE, required_w=need,
        **numbers, **extra)]


def _transient_budget(supply: _Supply, est: PowerEstimate) -> float:
    """What the GPUs may draw together so the transients fit: their share of what the
    supplies carry for 100 µs beyond CPU and rest at 3x their limit (ATX 3.x), else what
    is left of the supply over the x1.3 margin."""
    if supply.carries_w is not None:
        return (supply.carries_w - est.cpu_w - est.rest_w) / GPU_EXCURSION_FACTOR
    return supply.watts / LEGACY_MARGIN - est.cpu_w - est.rest_w


def _sustained_limit(supply: _Supply, est: PowerEstimate, node: Node) -> float | None:
    """The one GPU power limit that brings the sustained draw within the supply and keeps
    the transients within its rating, as the headroom check sizes them (the stricter of the
    two); None when no cap helps."""
    powers = [p.gpu.tdp_w for p in node.each("gpu")]
    caps = [gpu_power_limit(powers, supply.watts - est.cpu_w - est.rest_w),
            gpu_power_limit(powers, _transient_budget(supply, est))]
    if caps[0] is None:
        return None
    return min(c for c in caps if c is not None)


def _capped_minimum(limit: float, node: Node) -> tuple[Part | None, list[Part]]:
    """Of the cards the limit caps (board power above it): the one whose firmware minimum
    is above the limit (None if none), and those whose minimum the catalog lacks."""
    capped = [p for p in node.each("gpu") if (p.gpu.tdp_w or 0) > limit]
    too_low = [p for p in capped if (p.gpu.min_power_limit_w or 0) > limit]
    unknown = [p for p in capped if p.gpu.min_power_limit_w is None]
    return (too_low[0] if too_low else None), list({p.id: p for p in unknown}.values())


def _limit_numbers(limit: float | None, node: Node) -> dict[str, float]:
    if limit is None:
        return {}
    blocked, _ = _capped_minimum(limit, node)
    out = {"gpu_limit_w": limit}
    if blocked is not None and blocked.gpu.min_power_limit_w is not None:
        out["gpu_min_limit_w"] = blocked.gpu.min_power_limit_w
    return out


def _sustained_fix(supply: _Supply, est: PowerEstimate, node: Node) -> Msg:
    need = est.sustained_w * LEGACY_MARGIN
    size = Msg(f"Use at least {need:.0f} W (x{LEGACY_MARGIN}), or an ATX 3.x unit rated for GPU "
               "power excursions; or fewer GPUs",
               f"至少使用 {need:.0f} W（×{LEGACY_MARGIN}）电源，或可承受 GPU 瞬时功耗的 ATX 3.x "
               "电源；或减少 GPU")
    limit = _sustained_limit(supply, est, node)
    if limit is None:
        return Msg(f"{size.en}.", f"{size.zh}。")
    blocked, unknown = _capped_minimum(limit, node)
    if blocked is not None:
        low = blocked.gpu.min_power_limit_w or 0.0
        return Msg(f"{size.en}. A GPU power limit does not help here: {limit:.0f} W per GPU "
                   f"would be needed, below {blocked.name}'s minimum power limit of {low:.0f} W.",
                   f"{size.zh}。限制 GPU 功耗在此无效：每块 GPU 需限制到 {limit:.0f} W，低于 "
                   f"{blocked.name} 允许的最低功耗上限 {low:.0f} W。")
    how = _limit_how(limit, node)
    if unknown:
        names = ", ".join(p.name for p in unknown)
        check = Msg(f" if the card allows it: the catalog does not have {names}'s minimum power "
                    "limit",
                    f"（前提是显卡允许：目录中没有 {'、'.join(p.name for p in unknown)} 的最低"
                    "功耗上限）")
    else:
        check = Msg("", "")
    return Msg(f"{size.en}; or keep this supply and cap each GPU at {limit:.0f} W{how.en}"
               f"{check.en}.",
               f"{size.zh}；或保留此电源，将每块 GPU 功耗限制在 {limit:.0f} W{how.zh}{check.zh}。")


def _limit_how(limit: float, node: Node) -> Msg:
    if all(p.vendor == "NVIDIA" for p in node.each("gpu")):
        return Msg(f" (nvidia-smi -pl {limit:.0f}, with administrator rights; nvidia-smi -q -d "
                   "POWER shows the range the card allows)",
                   f"（nvidia-smi -pl {limit:.0f}，需管理员权限；nvidia-smi -q -d POWER "
                   "可查看显卡允许的范围）")
    return Msg(" with the GPU maker's tool", "（使用 GPU 厂商的工具）")


def gpu_power_limit(board_powers: list[float | None], budget_w: float) -> float | None:
    """The one power limit for every GPU (whole watts, rounded down) that keeps their summed
    draw within ``budget_w``, a card below the limit drawing its own board power; None when
    no limit below the largest board power is needed or any card's power is unknown or the
    budget leaves no power at all. Transients are taken to scale with the limit, as the
    CEM 5.0 excursion is a multiple of the card's sustained power."""
    if not board_powers or None in board_powers:
        return None
    powers = sorted(w for w in board_powers if w is not None)
    if sum(powers) <= budget_w:
        return None
    spent = 0.0
    for i, watts in enumerate(powers):
        left = len(powers) - i  # cards at or above this one share what is left equally
        share = (budget_w - spent) / left
        if share < watts:
            limit = float(math.floor(share))
            return limit if limit >= 1 else None
        spent += watts
    return None


def _headroom_fix(need: float, limit: float | None, node: Node, supply: _Supply) -> Msg:
    if (supply.excursion or 0) >= ATX3_EXCURSION_WITH_12VHPWR:
        # Already an ATX 3.x unit rated for 200%: another one of the same size does not help.
        size = Msg(f"Use at least {need:.0f} W", f"至少使用 {need:.0f} W 电源")
    else:
        size = Msg(f"Use at least {need:.0f} W, or an ATX 3.x unit with 12V-2x6 connectors "
                   f"(rated for {ATX3_EXCURSION_WITH_12VHPWR:.0%} for 100 µs)",
                   f"至少使用 {need:.0f} W 电源，或带 12V-2x6 接口的 ATX 3.x 电源（100 µs 内可承受 "
                   f"{ATX3_EXCURSION_WITH_12VHPWR:.0%}）")
    if limit is None:
        return Msg(f"{size.en}; or power-limit the GPUs.", f"{size.zh}；或限制 GPU 功耗。")
    blocked, _ = _capped_minimum(limit, node)
    if blocked is not None:
        low = blocked.gpu.min_power_limit_w or 0.0
        return Msg(f"{size.en}. A power limit of {limit:.0f} W per GPU would be needed, below "
                   f"{blocked.name}'s minimum of {low:.0f} W.",
                   f"{size.zh}。每块 GPU 需限制到 {limit:.0f} W，低于 {blocked.name} 允许的最低"
                   f"功耗上限 {low:.0f} W。")
    how = _limit_how(limit, node)
    return Msg(f"Keep this supply and cap each GPU at {limit:.0f} W{how.en}; or "
               f"{size.en[0].lower()}{size.en[1:]}.",
               f"保留此电源，将每块 GPU 功耗限制在 {limit:.0f} W{how.zh}；或{size.zh}。")


def _vendor_minimum(node: Node, supply: _Supply) -> list[Finding]:
    gpus = node.of("gpu")
    top = max(gpus, key=lambda line: line.part.gpu.required_system_power_w or 0, default=None)
    vendor_min = top.part.gpu.required_system_power_w if top else None
    if top is None or not vendor_min or supply.watts >= vendor_min:
        return []
    return [finding(
        "compat.psu_vendor_min", Severity.WARNING,
        Msg("Power supply below the GPU vendor's system requirement",
            "电源低于 GPU 厂商要求的整机功率"),
        Msg(f"{top.part.name}: vendor asks for a {vendor_min:.0f} W system power supply; "
            f"{supply.name} gives {supply.watts:.0f} W.",
            f"{top.part.name}：厂商要求整机电源 {vendor_min:.0f} W；"
            f"{supply.name} 为 {supply.watts:.0f} W。"),
        Msg(f"Use at least {vendor_min:.0f} W.", f"至少使用 {vendor_min:.0f} W 电源。"),
        top.part.field_sources.get("required_system_power_w", "GPU vendor specification"),
        psu_w=supply.watts, required_w=vendor_min)]


def _connectors(node: Node, supply: _Supply) -> list[Finding]:
    """12V-2x6 and 8-pin PCIe cables the GPUs need against what the supplies have (only when
    both sides are known)."""
    if not supply.parts:
        return []
    out: list[Finding] = []
    for attr_gpu, attr_psu, label in (("power_12v_2x6", "pcie_12v_2x6_connectors", "12V-2x6"),
                                      ("power_8pin", "pcie_8pin_connectors", "8-pin PCIe")):
        needs = [getattr(p.gpu, attr_gpu) for p in node.each("gpu")]
        haves = [getattr(p.psu, attr_psu) for p in supply.parts]
        if not any(needs) or any(h is None for h in haves) or any(n is None for n in needs):
            continue
        need, have = sum(needs), sum(haves)
        if have >= need:
            continue
        out.append(finding(
            "compat.psu_connectors", Severity.WARNING,
            Msg(f"Not enough {label} power connectors", f"{label} 供电接口不足"),
            Msg(f"The GPUs need {counted(need, f'{label} connector', f'{label} connectors')}; "
                f"{supply.name} has {have}.",
                f"GPU 共需 {need} 个 {label} 接口；{supply.name} 只有 {have} 个。"),
            Msg(f"Choose a power supply with {need} native {label} connectors (adapters and "
                "splitters concentrate current on one cable).",
                f"选择带 {need} 个原生 {label} 接口的电源"
                "（转接线和一分二线会让电流集中在一根线上）。"),
            PSU_CONNECTOR_SPECS, needed=need, available=have))
    return out
