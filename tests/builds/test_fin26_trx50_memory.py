"""Issue 26 (fin26): UDIMM on TRX50 is caught. The Pro WS TRX50-SAGE WIFI takes registered
DDR5 only: its SMBIOS table lists its modules as 'Synchronous Registered (Buffered)' and the
TRX50 platform runs RDIMM only, unbuffered modules do not POST (sources.json TRX50-RDIMM).
So unbuffered DDR5 on it is a Blocker (compat.module_form) and registered DDR5 is not.
"""

from __future__ import annotations

from pathlib import Path

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.findings import Finding, Severity

DATA = Path(__file__).parent / "data"
TRX50 = "asus-pro-ws-trx50-sage-wifi"


def _codes(findings: list[Finding]) -> dict[str, Finding]:
    return {f.code: f for f in findings}


def test_the_board_says_registered_with_its_source() -> None:
    board = load_catalog().get(TRX50)
    assert board.motherboard.module_form == "RDIMM"
    assert "linuxhw/DMI" in board.field_sources["module_form"]


def test_unbuffered_ddr5_on_trx50_is_a_blocker() -> None:
    catalog = load_catalog()
    found = _codes(check_build(load_build(DATA / "fin26" / "udimm-on-trx50.json", catalog),
                               catalog))
    blocker = found["compat.module_form"]
    assert blocker.severity is Severity.BLOCKER
    assert blocker.detail.en == ("FURY Beast 64GB (2x32GB) DDR5-6000 CL36 (KF560C36BBEK2-64) is "
                                 "UDIMM; Pro WS TRX50-SAGE WIFI takes RDIMM.")
    assert blocker.detail.zh.endswith("为 UDIMM；Pro WS TRX50-SAGE WIFI 需要 RDIMM。")
    assert blocker.fix.en == "Choose RDIMM modules."


def test_registered_ddr5_on_trx50_passes() -> None:
    catalog = load_catalog()
    found = _codes(check_build(
        load_build(DATA / "issue26" / "trx50-in-7000d.json", catalog), catalog))
    assert "compat.module_form" not in found
    # The same board and CPU with the RDIMM part only: no memory finding at all.
    build = Build(name="t", currency="USD", line_items=[
        LineItem(part_id="amd-ryzen-threadripper-7960x", quantity=1),
        LineItem(part_id=TRX50, quantity=1),
        LineItem(part_id="samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm", quantity=4)])
    assert not [f for f in check_build(build, catalog) if f.code.startswith("compat.module")]
