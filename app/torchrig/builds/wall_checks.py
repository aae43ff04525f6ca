"""The wall circuit: can one outlet feed the node's sustained draw?

A supply draws from the wall its DC output divided by its efficiency. The DC output is the
power checks' sustained draw (``power_checks.estimate_power``: CPUs at maximum power, GPUs at
board power, 150 W for the rest); the efficiency is the lowest figure the supply's 80 PLUS
level guarantees at any tested load for the region's mains (115 V internal for 120 V, 230 V EU
internal for 220-230 V), or 80 % for a supply the catalog gives no 80 PLUS level (the lowest
any 80 PLUS level allows; an uncertified unit may be worse). The wall draw is compared with
the continuous rating of the region's outlets: the rated current x the nominal voltage, x 80 %
in the US (NEC 210.19(A)/210.20(A): a continuous load, three hours or more, may use 80 % of
the branch circuit). Sources: docs/hardware-sources.md sec. 8.

Each node is checked on its own outlet (a cluster's nodes do not share one).
"""

from __future__ import annotations

import re

from torchrig.builds.check_node import Node, finding
from torchrig.builds.power_checks import estimate_power
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg
from torchrig.records import record


@record
class Outlet:
    name: Msg
    amps: float
    continuous_factor: float
    """The share of the rating a load may draw for hours (1.0 where the standard gives the
    rated current only)."""


@record
class Region:
    code: str
    name: Msg
    volts: float
    outlets: tuple[Outlet, ...]
    """Smallest first: the first is the ordinary wall outlet."""
    efficiency_programme: str
    """The 80 PLUS test programme whose figures apply at this mains voltage."""
    source: Msg

    def continuous_w(self, outlet: Outlet) -> float:
        return self.volts * outlet.amps * outlet.continuous_factor


PROGRAMME_115V = "115V internal"
PROGRAMME_230V_EU = "230V EU internal"
PROGRAMME_NAMES = {PROGRAMME_115V: Msg("115 V internal", "115 V 内置电源"),
                   PROGRAMME_230V_EU: Msg("230 V EU internal", "230 V 欧盟内置电源")}

EIGHTY_PLUS_MIN = {
    # The lowest efficiency each level requires at any tested load (10 % for Titanium, 20 %,
    # 50 %, 100 %), per programme: 80 PLUS (CLEAResult), as tabulated by Tom's Hardware and
    # Wikipedia "80 Plus" (docs/hardware-sources.md sec. 8).
    PROGRAMME_115V: {"": 0.80, "BRONZE": 0.82, "SILVER": 0.85, "GOLD": 0.87,
                     "PLATINUM": 0.89, "TITANIUM": 0.90},
    PROGRAMME_230V_EU: {"": 0.82, "BRONZE": 0.85, "SILVER": 0.87, "GOLD": 0.89,
                        "PLATINUM": 0.90, "TITANIUM": 0.90},
}
UNRATED_EFFICIENCY = 0.80
"""A supply with no 80 PLUS level in the catalog: the lowest figure any 80 PLUS level allows
(80 PLUS base, 115 V, every load point). An uncertified unit may be worse."""
_LEVEL_RE = re.compile(r"^80\s*PLUS(?:\s+(BRONZE|SILVER|GOLD|PLATINUM|TITANIUM))?$")

REGIONS: dict[str, Region] = {
    "cn": Region(
        "cn", Msg("mainland China", "中国大陆"), 220.0,
        (Outlet(Msg("10 A outlet (GB/T 2099.1, GB 1002)", "10 A 插座（GB/T 2099.1、GB 1002）"),
                10.0, 1.0),
         Outlet(Msg("16 A outlet (GB/T 2099.1, GB 1002)", "16 A 插座（GB/T 2099.1、GB 1002）"),
                16.0, 1.0)),
        PROGRAMME_230V_EU,
        Msg("220 V (GB/T 156); 10 A and 16 A sockets (GB/T 2099.1, GB 1002); 80 PLUS 230 V EU "
            "internal figures (docs/hardware-sources.md sec. 8)",
            "220 V（GB/T 156）；10 A 与 16 A 插座（GB/T 2099.1、GB 1002）；80 PLUS 230 V 欧盟"
            "内置电源效率（硬件参考第 8 节）")),
    "us": Region(
        "us", Msg("United States", "美国"), 120.0,
        (Outlet(Msg("15 A outlet (NEMA 5-15)", "15 A 插座（NEMA 5-15）"), 15.0, 0.8),
         Outlet(Msg("20 A circuit (NEMA 5-20)", "20 A 回路（NEMA 5-20）"), 20.0, 0.8)),
        PROGRAMME_115V,
        Msg("120 V; NEMA 5-15 (15 A) and 5-20 (20 A); NEC 210.19(A)/210.20(A): a continuous "
            "load may use 80% of the circuit; 80 PLUS 115 V internal figures "
            "(docs/hardware-sources.md sec. 8)",
            "120 V；NEMA 5-15（15 A）与 5-20（20 A）；NEC 210.19(A)/210.20(A)：持续负载不超过回路"
            "额定值的 80%；80 PLUS 115 V 内置电源效率（硬件参考第 8 节）")),
    "eu": Region(
        "eu", Msg("European Union", "欧盟"), 230.0,
        (Outlet(Msg("16 A outlet (Schuko, CEE 7/3)", "16 A 插座（Schuko，CEE 7/3）"), 16.0,
                1.0),),
        PROGRAMME_230V_EU,
        Msg("230 V (IEC 60038); Schuko CEE 7/3 sockets rated 16 A; 80 PLUS 230 V EU internal "
            "figures (docs/hardware-sources.md sec. 8)",
            "230 V（IEC 60038）；Schuko CEE 7/3 插座额定 16 A；80 PLUS 230 V 欧盟内置电源效率"
            "（硬件参考第 8 节）")),
}
REGION_CODES = tuple(REGIONS)


def region(code: str | None) -> Region | None:
    return REGIONS.get(code) if code else None


def psu_efficiency(level: str | None, programme: str) -> float | None:
    """The guaranteed minimum efficiency of an ``"80 PLUS Gold"``-style level in
    ``programme``; None for a level TorchRig does not know (or none)."""
    match = _LEVEL_RE.match((level or "").strip().upper())
    if match is None:
        return None
    return EIGHTY_PLUS_MIN[programme][match.group(1) or ""]


@record
class WallDraw:
    """One node's draw at the wall: DC sustained draw / efficiency."""

    dc_w: float
    efficiency: float
    efficiency_assumed: bool
    """True when a supply had no 80 PLUS level in the catalog (80 % was used)."""
    unknown: tuple[str, ...]

    @property
    def wall_w(self) -> float:
        return self.dc_w / self.efficiency


def wall_draw(node: Node, reg: Region) -> WallDraw | None:
    """None when the node has no CPU or GPU whose power the catalog knows."""
    est = estimate_power(node)
    if est.cpu_w + est.gpu_w <= 0:
        return None
    figures = [psu_efficiency(part.psu.efficiency, reg.efficiency_programme)
               for part in node.each("psu")]
    known = [f for f in figures if f is not None]
    assumed = not figures or len(known) < len(figures)
    # Supplies sharing the load: the worst one bounds the total (conservative).
    efficiency = min([*known, *([UNRATED_EFFICIENCY] if assumed else [])])
    return WallDraw(est.sustained_w, efficiency, assumed, est.unknown)


def wall_checks(node: Node, code: str | None) -> list[Finding]:
    reg = region(code)
    if reg is None:
        return []
    draw = wall_draw(node, reg)
    if draw is None:
        return []
    ordinary = reg.outlets[0]
    if draw.wall_w <= reg.continuous_w(ordinary):
        return []
    bigger = next((o for o in reg.outlets[1:] if draw.wall_w <= reg.continuous_w(o)), None)
    largest = reg.outlets[-1]
    limit = reg.continuous_w(ordinary if bigger is not None else largest)
    eff = (Msg(f"{draw.efficiency:.0%} (no 80 PLUS level in the catalog: the lowest any level "
               "allows)", f"{draw.efficiency:.0%}（目录中无 80 PLUS 等级：按各等级的最低值）")
           if draw.efficiency_assumed else
           Msg(f"{draw.efficiency:.0%} (the 80 PLUS minimum, "
               f"{PROGRAMME_NAMES[reg.efficiency_programme].en})",
               f"{draw.efficiency:.0%}（80 PLUS 最低效率，"
               f"{PROGRAMME_NAMES[reg.efficiency_programme].zh}）"))
    unknown = (Msg(f" Power of {', '.join(draw.unknown)} is unknown and not counted.",
                   f" {', '.join(draw.unknown)} 的功耗未知，未计入。")
               if draw.unknown else Msg("", ""))
    amps = draw.wall_w / reg.volts
    detail = Msg(
        f"Sustained draw {draw.dc_w:.0f} W / efficiency {eff.en} = {draw.wall_w:.0f} W at the "
        f"wall, {amps:.1f} A at {reg.volts:.0f} V; {ordinary.name.en} carries "
        f"{reg.continuous_w(ordinary):.0f} W continuously"
        + (f", {largest.name.en} {reg.continuous_w(largest):.0f} W" if bigger is None
           and largest is not ordinary else "") + f" ({reg.name.en}).{unknown.en}",
        f"持续功耗 {draw.dc_w:.0f} W ÷ 效率 {eff.zh} = 墙插功耗 {draw.wall_w:.0f} W，"
        f"{reg.volts:.0f} V 下 {amps:.1f} A；{ordinary.name.zh}可持续承载 "
        f"{reg.continuous_w(ordinary):.0f} W"
        + (f"，{largest.name.zh} {reg.continuous_w(largest):.0f} W" if bigger is None
           and largest is not ordinary else "") + f"（{reg.name.zh}）。{unknown.zh}")
    # The GPU power limit that would bring the node under the limit it is compared with.
    over_dc = (draw.wall_w - limit) * draw.efficiency
    gpus = len(node.each("gpu"))
    smallest_gpu_w = min((p.gpu.tdp_w or 0.0 for p in node.each("gpu")), default=0.0)
    # Offered only when every GPU could give that much up (a cut past a card's board power
    # is no fix).
    gpus = gpus if gpus and over_dc / gpus < smallest_gpu_w else 0
    cut = (Msg(f"; or power-limit each of the {gpus} GPUs by at least {over_dc / gpus:.0f} W "
               "(nvidia-smi -pl)", f"；或将 {gpus} 块 GPU 每块限功耗至少 {over_dc / gpus:.0f} W"
               "（nvidia-smi -pl）")
           if gpus else Msg("", ""))
    numbers = {"dc_w": draw.dc_w, "efficiency": draw.efficiency, "wall_w": draw.wall_w,
               "volts": reg.volts, "amps": amps, "outlet_a": ordinary.amps,
               "continuous_w": reg.continuous_w(ordinary)}
    if bigger is not None:
        return [finding(
            "wall.outlet", Severity.WARNING,
            Msg(f"The node draws more than a {ordinary.amps:.0f} A outlet carries",
                f"整机功耗超过 {ordinary.amps:.0f} A 插座的承载能力"),
            detail,
            Msg(f"Use a {bigger.name.en} ({reg.continuous_w(bigger):.0f} W continuous) with "
                f"nothing else on its circuit{cut.en}.",
                f"改用{bigger.name.zh}（可持续 {reg.continuous_w(bigger):.0f} W），且该回路不接"
                f"其他负载{cut.zh}。"),
            reg.source, **numbers, needed_outlet_a=bigger.amps)]
    return [finding(
        "wall.circuit", Severity.WARNING,
        Msg("The node draws more than one wall circuit carries",
            "整机功耗超过单个墙插回路的承载能力"),
        detail,
        Msg(f"Feed the node from a second circuit (one supply on each, each under "
            f"{limit:.0f} W) or from a higher-rated circuit an electrician installs{cut.en}.",
            f"用第二个回路供电（每个回路接一个电源，每路低于 {limit:.0f} W），或由电工安装"
            f"更高额定值的回路{cut.zh}。"),
        reg.source, **numbers, largest_outlet_w=limit)]
