"""US export controls on a build sold in mainland China.

A build quoted in CNY, or checked for the ``cn`` region, gets a finding per GPU that

- the catalog's own figures put at or above the 'total processing performance' (TPP) of
  4,800 of ECCN 3A090.a.1 (BIS rule 2023-23055; :mod:`torchrig.builds.export_tpp` counts it
  from the catalog's dense figures: the B200, MI300X, RTX 6000 Ada ... without a list entry),
- or the export-control list (``catalog/export_controls.py``) names: parts under rules that
  are not a TPP threshold (the H20 licence, the H200 rule) and parts whose deciding figure the
  catalog lacks (the RTX 4090, whose FP16-accumulate rate the catalog does not hold; the L4,
  caught by the performance-density test for which the catalog has no die area),
- or whose TPP the catalog's figures leave undecided and the list does not name (a warning
  that says which figure is missing).

Each finding cites the rules, gives the TPP and how it was counted, and names China-market
alternatives: the list entry's, else the list's ``tpp_alternatives`` (GeForce or other).
"""

from __future__ import annotations

from functools import lru_cache

from torchrig.builds.build import Build
from torchrig.builds.check_node import finding
from torchrig.builds.export_tpp import (
    RULE,
    RULE_URL,
    TPP_THRESHOLD,
    Tpp,
    gpu_tpp,
    tpp_text,
    tpp_words,
)
from torchrig.catalog.export_controls import ControlledPart, ExportControls, shipped_export_controls
from torchrig.catalog.model import Catalog, Part
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg


@lru_cache(maxsize=4)
def _shipped(root: str, known: frozenset[str]) -> ExportControls | None:
    return shipped_export_controls(root, known)


def shipped_controls(catalog: Catalog) -> ExportControls | None:
    """The list shipped beside ``catalog`` (read once per catalog folder), None without one
    (or for a catalog built in memory, which has no folder)."""
    if not catalog.root:
        return None
    return _shipped(catalog.root, frozenset(catalog.parts))


def sold_in_china(build: Build, region: str | None) -> bool:
    return region == "cn" or build.currency == "CNY"


def export_checks(build: Build, catalog: Catalog, region: str | None,
                  controls: ExportControls | None) -> list[Finding]:
    if controls is None or not sold_in_china(build, region):
        return []
    out: list[Finding] = []
    seen: set[str] = set()
    for item in build.line_items:
        if item.part_id is None or item.part_id in seen:
            continue
        seen.add(item.part_id)
        part = catalog.parts.get(item.part_id)
        if part is None:
            continue
        entry = controls.get(item.part_id)
        tpp = gpu_tpp(part)
        if entry is None and (tpp is None or tpp.status == "under"):
            continue
        out.append(_finding(part, entry, tpp, controls, catalog))
    return out


def _finding(part: Part, entry: ControlledPart | None, tpp: Tpp | None,
             controls: ExportControls, catalog: Catalog) -> Finding:
    name = f"{part.vendor} {part.name}"
    status = tpp.status if tpp is not None else None
    rules = entry.rules if entry is not None else ()
    # The TPP rule is cited unless the list's own rules already cite the same document.
    cite_tpp = status in ("over", "undecided") and all(r.source != RULE_URL for r in rules)
    detail = Msg("", "")
    if entry is not None:
        rules_en = "; ".join(f"{r.title.en} ({r.date}, {r.source})" for r in rules)
        rules_zh = "；".join(f"{r.title.zh}（{r.date}，{r.source}）" for r in rules)
        detail = Msg(f"{name} is listed under {rules_en}: "
                     + " ".join(r.summary.en for r in rules) + f" {entry.note.en}".rstrip(),
                     f"{name} 列于{rules_zh}："
                     + "".join(r.summary.zh for r in rules) + f"{entry.note.zh}")
    if tpp is not None and status == "over":
        detail = _join(detail, _over(name, tpp, listed=entry is not None))
    elif tpp is not None and status == "undecided" and entry is None:
        detail = _undecided(name, tpp)
    alternatives = (entry.alternatives if entry is not None else
                    controls.tpp_alternatives.get("geforce" if tpp and tpp.half_rate
                                                  else "other", ()))
    names = [f"{catalog.get(a).vendor} {catalog.get(a).name}" if a in catalog.parts else a
             for a in alternatives]
    fix = (Msg(f"Quote a China-market alternative instead: {', '.join(names)}.",
               f"改用面向中国市场的替代型号：{'、'.join(names)}。")
           if names else
           Msg("The list names no China-market alternative: choose another part.",
               "清单中没有面向中国市场的替代型号：请另选部件。"))
    if entry is None and status == "undecided":
        fix = Msg("Check the card's TPP (its dense INT8 TOPS × 8) against 4,800 before quoting "
                  "it. ", "报价前请核对该卡的 TPP（稠密 INT8 TOPS × 8）是否低于 4,800。") + fix
    source = Msg("; ".join(f"{r.title.en}, {r.date}, {r.source}" for r in rules),
                 "；".join(f"{r.title.zh}，{r.date}，{r.source}" for r in rules))
    if cite_tpp:
        source = _join(source, Msg(f"{RULE.en}, {RULE_URL}", f"{RULE.zh}，{RULE_URL}"), "; ",
                       "；")
    title = (Msg(f"{name} may be under US export controls for China",
                 f"{name} 可能受美国对华出口管制")
             if entry is None and status == "undecided" else
             Msg(f"{name} is under US export controls for China", f"{name} 受美国对华出口管制"))
    numbers: dict[str, float] = {"rules": len(rules) + int(cite_tpp),
                                 "alternatives": len(alternatives)}
    if tpp is not None:
        numbers.update(tpp=tpp.low, tpp_max=tpp.high)
    return finding("export.us_controls", Severity.WARNING, title, detail, fix, source,
                   **numbers)


def _over(name: str, tpp: Tpp, listed: bool) -> Msg:
    words = tpp_words(tpp)
    threshold = tpp_text(TPP_THRESHOLD)
    if listed:
        return Msg(f"Its total processing performance (TPP) is {words.en}, at or above the "
                   f"{threshold} of {RULE.en}.",
                   f"其总处理性能（TPP）为 {words.zh}，达到{RULE.zh}规定的 {threshold}。")
    return Msg(f"{name} has a total processing performance (TPP) of {words.en}, at or above "
               f"the {threshold} of {RULE.en}; a licence is required to export it to China.",
               f"{name} 的总处理性能（TPP）为 {words.zh}，达到{RULE.zh}规定的 {threshold}，"
               "出口中国须申请许可证。")


def _undecided(name: str, tpp: Tpp) -> Msg:
    low, high, threshold = tpp_text(tpp.low), tpp_text(tpp.high), tpp_text(TPP_THRESHOLD)
    return Msg(f"{name}'s total processing performance (TPP) is between {low} and {high} by "
               "the catalog's figures: its tensor figures are with FP32 accumulate, half the "
               "FP16-accumulate rate TPP counts, so the catalog lacks the figure that decides "
               f"against the {threshold} of {RULE.en}.",
               f"按目录数据，{name} 的总处理性能（TPP）在 {low} 到 {high} 之间：目录中的 Tensor "
               "数据为 FP32 累加，只有 TPP 所计的 FP16 累加速率的一半，因此目录缺少判断是否达到"
               f"{RULE.zh}规定的 {threshold} 所需的数据。")


def _join(first: Msg, second: Msg, sep_en: str = " ", sep_zh: str = "") -> Msg:
    return Msg(sep_en.join(x for x in (first.en, second.en) if x),
               sep_zh.join(x for x in (first.zh, second.zh) if x))
