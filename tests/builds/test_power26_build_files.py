"""The issue-26 power builds as build files (tests/builds/data/power26/), each checked as
`torchrig check` checks it: the power findings a builder reads, with their severity. The
figures behind each are worked out in test_power26_supplies.py, test_power26_power_limit.py and
test_power26_systems.py; these files are what the report's before/after output was made from.
The builds list only what the power checks need, so "no case" and the like are left out here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from torchrig.builds.build import load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.findings import Severity

DATA = Path(__file__).parent / "data" / "power26"
POWER = {"compat.psu", "compat.psu_headroom", "compat.psu_vendor_min", "compat.psu_connectors",
         "compat.missing_psu", "compat.missing_case", "fit.passive_gpu", "board.nic_no_slot"}


@pytest.mark.parametrize(("name", "expected"), [
    # Two RTX 5090s: one 12V-2x6 output on the Ai1300P is short, two on the Ai1600T are not.
    ("two-5090-one-12v-2x6", {"compat.psu_connectors": Severity.WARNING,
                              "compat.psu_headroom": Severity.WARNING,
                              "compat.missing_case": Severity.WARNING}),
    ("two-5090-two-12v-2x6", {"compat.psu_headroom": Severity.WARNING,
                              "compat.missing_case": Severity.WARNING}),
    # Two NE1000G on one line carry 2 x 5090 + i9-13900K; one does not.
    ("two-psus-one-line", {"compat.missing_case": Severity.WARNING}),
    ("one-psu", {"compat.psu": Severity.BLOCKER, "compat.psu_connectors": Severity.WARNING,
                 "compat.missing_case": Severity.WARNING}),
    # The PX-2200's own 4,400 W excursion carries four PRO 6000 Max-Q (x1.3 asked 2,210 W).
    ("four-maxq-px-2200", {"compat.missing_case": Severity.WARNING}),
    # The Ai1600T is ATX 3.1 (200%): the 3,850 W peak asks 1,925 W; the fix offers 466 W per
    # GPU (before its ATX version was sourced, x1.3 asked 2,015 W and the fix 415 W).
    ("two-5090-ai1600t", {"compat.psu_headroom": Severity.WARNING,
                          "compat.missing_case": Severity.WARNING}),
    # A whole 4U system: its chassis, airflow, supplies and expansion slots.
    ("turin2-system", {}),
])
def test_power_findings_of_the_build_file(name: str, expected: dict[str, Severity]) -> None:
    catalog = load_catalog()
    build = load_build(DATA / f"{name}.json", catalog)
    found = {f.code: f.severity for f in check_build(build, catalog) if f.code in POWER}
    assert found == expected


def test_the_ai1600t_fix_names_the_power_limit() -> None:
    catalog = load_catalog()
    build = load_build(DATA / "two-5090-ai1600t.json", catalog)
    (headroom,) = [f for f in check_build(build, catalog) if f.code == "compat.psu_headroom"]
    assert headroom.numbers["gpu_limit_w"] == 466  # (2 x 1,600 - 400) / 6 = 466.7
    assert "nvidia-smi -pl 466" in headroom.fix.en and "1925 W" in headroom.fix.en
