"""Issue 26 (fin26): the 360 mm radiator check runs on a shipped case. Corsair's 7000D AIRFLOW
page (sources.json CORSAIR-7000D) lists radiators of 120, 140, 240, 280, 360, 420 and 480 mm
in one list, not by position; the catalog keeps it as one mount at an unspecified position, so
the size check runs and the per-position thickness check does not (no thickness is given).
"""

from __future__ import annotations

from catalog_variants import catalog_with

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import RadiatorMount
from torchrig.findings import Finding, Severity

LIQUID_360 = "arctic-liquid-freezer-iii-pro-360"  # 360 mm radiator (catalog)
CASE = "corsair-7000d-airflow"


def _found(cat: Catalog, case: str) -> dict[str, Finding]:
    build = Build(name="t", currency="USD", line_items=[
        LineItem(part_id="amd-ryzen-9-9950x", quantity=1),
        LineItem(part_id=LIQUID_360, quantity=1), LineItem(part_id=case, quantity=1)])
    return {f.code: f for f in check_build(build, cat)}


def test_the_7000d_lists_its_radiator_sizes_with_a_source() -> None:
    case = load_catalog().get(CASE)
    assert case.case.radiator_mounts == (
        RadiatorMount("unspecified", (120, 140, 240, 280, 360, 420, 480), None),)
    assert case.field_sources["radiator_mounts"] == "CORSAIR-7000D"
    assert case.case.max_psu_length_mm == 225


def test_a_360_mm_radiator_fits_the_7000d() -> None:
    found = _found(load_catalog(), CASE)
    assert "fit.radiator_mount" not in found and "fit.radiator_thickness" not in found


def test_a_case_whose_list_stops_at_280_is_a_blocker() -> None:
    # The 7000D's entry with the list cut at 280 mm (no shipped case lacks a 360 mount in the
    # sources read): the 360 mm cooler has nowhere to go.
    short = (RadiatorMount("unspecified", (120, 140, 240, 280), None),)
    cat = catalog_with(**{"case-280": (CASE, {"radiator_mounts": short})})
    blocker = _found(cat, "case-280")["fit.radiator_mount"]
    assert blocker.severity is Severity.BLOCKER
    assert blocker.title.en == "The case has no 360 mm radiator mount"
    assert blocker.detail.en.endswith(
        "takes radiators at: position not given 120/140/240/280 mm.")
    assert blocker.detail.zh.endswith("的冷排位：未注明位置 120/140/240/280 mm。")
    assert blocker.numbers == {"radiator_mm": 360.0}
