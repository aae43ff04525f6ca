"""US export controls on a build sold in mainland China.

A build quoted in CNY, or checked for the ``cn`` region, that holds a part the export-control
list (``catalog/export_controls.py``) names gets a finding per part: the rules that cover it
(title, date, source) and the China-market alternatives the list gives. The list is data with
its sources, not TorchRig's reading of the rules; a part it does not name gets no finding.
"""

from __future__ import annotations

from functools import lru_cache

from torchrig.builds.build import Build
from torchrig.builds.check_node import finding
from torchrig.catalog.export_controls import ExportControls, shipped_export_controls
from torchrig.catalog.model import Catalog
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
        entry = controls.get(item.part_id)
        if entry is None:
            continue
        part = catalog.get(item.part_id)
        rules_en = "; ".join(f"{r.title.en} ({r.date}, {r.source})" for r in entry.rules)
        rules_zh = "；".join(f"{r.title.zh}（{r.date}，{r.source}）" for r in entry.rules)
        names = [f"{catalog.get(a).vendor} {catalog.get(a).name}" if a in catalog.parts else a
                 for a in entry.alternatives]
        fix = (Msg(f"Quote a China-market alternative instead: {', '.join(names)}.",
                   f"改用面向中国市场的替代型号：{'、'.join(names)}。")
               if names else
               Msg("The list names no China-market alternative: choose another part.",
                   "清单中没有面向中国市场的替代型号：请另选部件。"))
        out.append(finding(
            "export.us_controls", Severity.WARNING,
            Msg(f"{part.vendor} {part.name} is under US export controls for China",
                f"{part.vendor} {part.name} 受美国对华出口管制"),
            Msg(f"{part.vendor} {part.name} is listed under {rules_en}: "
                + " ".join(r.summary.en for r in entry.rules) + f" {entry.note.en}".rstrip(),
                f"{part.vendor} {part.name} 列于{rules_zh}："
                + "".join(r.summary.zh for r in entry.rules) + f"{entry.note.zh}"),
            fix,
            Msg("; ".join(f"{r.title.en}, {r.date}, {r.source}" for r in entry.rules),
                "；".join(f"{r.title.zh}，{r.date}，{r.source}" for r in entry.rules)),
            rules=len(entry.rules), alternatives=len(entry.alternatives)))
    return out
