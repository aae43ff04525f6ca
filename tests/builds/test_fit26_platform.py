"""CPU, board and memory platform checks added for issue 26, each with a build that fails and
one that passes.

Figures: AMD lists four DDR5 modules on AM5 (4x1R, 4x2R) at DDR5-3600 and the Ryzen
7000/9000 memory subtype as UDIMM (docs/hardware-sources.md sec. 6); WRX90 takes Threadripper
PRO only, Threadripper 7000 runs on TRX50 (blog.ocworks.com); Ryzen 9000 reached 600-series AM5
boards with AGESA ComboAM5 PI 1.1.7.0 BIOSes (elporvenir.mx), 14th-gen Core 600-series Intel
boards with a BIOS update (ohhmua.com); the i5-12400F has no integrated graphics (Intel's F
suffix); the Xeon w5-2455X (W-2400) has 4 channels (ARK), the Pro WS W790E-SAGE SE 8 slots on 8
channels (SMBIOS dump).
"""

from __future__ import annotations

from catalog_variants import catalog_with as _cat

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import BiosRequirement
from torchrig.findings import Finding, Severity
from torchrig.units import GiB

DDR5_KIT = "corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40"  # 2 x 32 GB DDR5-5600 UDIMM
RDIMM = "samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm"  # 1 x 32 GB DDR5-5600 RDIMM
X870E = "asus-rog-strix-x870e-e-gaming-wifi"




def _found(*lines: tuple[str, int], cat: Catalog | None = None) -> dict[str, Finding]:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return {f.code: f for f in check_build(build, cat or load_catalog())}


def test_rdimm_on_am5() -> None:
    found = _found(("amd-ryzen-9-9950x", 1), (X870E, 1), (RDIMM, 2))
    assert found["compat.module_form"].severity is Severity.BLOCKER
    assert "takes UDIMM" in found["compat.module_form"].detail.en
    assert "compat.module_form" not in _found(("amd-ryzen-9-9950x", 1), (X870E, 1),
                                              (DDR5_KIT, 1))


def test_udimm_on_a_board_for_registered_memory() -> None:
    # The WRX90E-SAGE SE takes RDIMM (SMBIOS: 'Registered (Buffered)'); the TRX50-SAGE too since
    # fin26 (SMBIOS and the TRX50 platform's RDIMM-only rule; test_fin26_trx50_memory.py).
    assert load_catalog().get("asus-pro-ws-trx50-sage-wifi").motherboard.module_form == "RDIMM"
    wrx = "asus-pro-ws-wrx90e-sage-se"
    pro = "amd-ryzen-threadripper-pro-9995wx"
    assert _found((pro, 1), (wrx, 1), (DDR5_KIT, 1))["compat.module_form"].severity is \
        Severity.BLOCKER
    assert "compat.module_form" not in _found((pro, 1), (wrx, 1), (RDIMM, 8))


def test_non_pro_threadripper_on_wrx90() -> None:
    wrx = "asus-pro-ws-wrx90e-sage-se"
    blocker = _found(("amd-ryzen-threadripper-7960x", 1), (wrx, 1))["compat.cpu_family"]
    assert blocker.severity is Severity.BLOCKER
    assert "Ryzen Threadripper 7000" in blocker.detail.en and "AMD WRX90" in blocker.detail.en
    # The same CPU on TRX50, and a PRO part on WRX90, are fine.
    assert "compat.cpu_family" not in _found(("amd-ryzen-threadripper-7960x", 1),
                                             ("asus-pro-ws-trx50-sage-wifi", 1))
    assert "compat.cpu_family" not in _found(("amd-ryzen-threadripper-pro-9995wx", 1), (wrx, 1))


def test_four_ddr5_modules_on_am5() -> None:
    # Two 2-module kits: 4 modules on the 9950X's 2 channels; 5600 > AMD's 3600.
    advice = _found(("amd-ryzen-9-9950x", 1), (X870E, 1), (DDR5_KIT, 2))["board.memory_2dpc"]
    assert advice.severity is Severity.ADVICE
    assert advice.numbers == {"modules": 4.0, "channels": 2.0, "rated_mts": 5600.0}
    assert "DDR5-3600" in advice.detail.en and "DDR5-3600" in advice.detail.zh
    assert "board.memory_2dpc" not in _found(("amd-ryzen-9-9950x", 1), (X870E, 1),
                                             (DDR5_KIT, 1))  # 2 modules, one per channel


def test_a_four_channel_xeon_with_eight_rdimms_on_an_eight_channel_w790_board() -> None:
    w790, w2455x = "asus-pro-ws-w790e-sage-se", "intel-xeon-w5-2455x"
    # 4 channels x 1 slot per channel (8 slots / 8 channels) = 4 working slots; 8 modules.
    blocker = _found((w2455x, 1), (w790, 1), (RDIMM, 8))["compat.dimm_slots_cpu"]
    assert blocker.severity is Severity.BLOCKER
    assert blocker.numbers == {"modules": 8.0, "usable_slots": 4.0, "slots": 8.0}
    assert blocker.detail.en.startswith(
        "Pro WS W790E-SAGE SE has 8 slots, 1 slot per channel; 1 x Xeon w5-2455X drive 4 "
        "channels (4 each), so only 4 slots work. The build has 8 modules.")
    assert "compat.dimm_slots_cpu" not in _found((w2455x, 1), (w790, 1), (RDIMM, 4))
    # An 8-channel W-3400 (w9-3495X) drives all eight.
    assert "compat.dimm_slots_cpu" not in _found(("intel-xeon-w9-3495x", 1), (w790, 1),
                                                 (RDIMM, 8))


def test_one_cpu_in_a_two_socket_board_drives_its_own_slots() -> None:
    # ASRock Rack 4U8G-TURIN2: 24 slots, 2 sockets x 12 channels, so one slot per channel.
    board, epyc = "asrock-rack-4u8g-turin2", "amd-epyc-9554"  # EPYC 9554: 12 channels
    one = _found((epyc, 1), (board, 1), (RDIMM, 24))["compat.dimm_slots_cpu"]
    assert one.numbers == {"modules": 24.0, "usable_slots": 12.0, "slots": 24.0}
    assert "compat.dimm_slots_cpu" not in _found((epyc, 2), (board, 1), (RDIMM, 24))


def test_bios_update_notes() -> None:
    b660 = _found(("intel-core-i9-14900k", 1), ("asus-prime-b660-plus-d4", 1))
    assert b660["board.bios_update"].severity is Severity.WARNING
    assert "14th-gen Core" in b660["board.bios_update"].detail.en
    b650 = _found(("amd-ryzen-9-9950x", 1), ("msi-mag-b650-tomahawk-wifi", 1))
    assert "AGESA ComboAM5 PI 1.1.7.0 or later" in b650["board.bios_update"].detail.en
    # A 13th-gen Core on B660 and a Ryzen 9000 on X870E (made for it) get no note.
    assert "board.bios_update" not in _found(("intel-core-i9-13900k", 1),
                                             ("asus-prime-b660-plus-d4", 1))
    assert "board.bios_update" not in _found(("amd-ryzen-9-9950x", 1), (X870E, 1))


def test_a_board_s_own_bios_version_is_named() -> None:
    # A test version string: the check quotes the board's own figure over the chipset rule.
    cat = _cat(**{"msi-test-b650": ("msi-mag-b650-tomahawk-wifi", {
        "bios_requirements": (BiosRequirement("Ryzen 9000", "7D75v1P"),)})})
    note = _found(("amd-ryzen-9-9950x", 1), ("msi-test-b650", 1), cat=cat)["board.bios_update"]
    assert "BIOS 7D75v1P or later" in note.detail.en


def test_f_series_cpu_without_a_gpu_has_no_display() -> None:
    ddr4 = "corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2b3200c16"
    base = (("asus-prime-b660-plus-d4", 1), (ddr4, 1))
    warning = _found(("intel-core-i5-12400f", 1), *base)["compat.no_display"]
    assert warning.severity is Severity.WARNING
    assert "no integrated graphics" in warning.detail.en
    assert "compat.no_display" not in _found(("intel-core-i5-12400f", 1), *base,
                                             ("nvidia-rtx-3060-12gb", 1))
    # The catalog does not say whether the i5-13400 has graphics: not judged.
    assert "compat.no_display" not in _found(("intel-core-i5-13400", 1), *base)


def test_two_sockets_double_the_cpu_memory_maximum() -> None:
    # A 2-socket EPYC 9554 with a per-socket maximum of 1,024 GiB (test figure): 2 x 1,024 GiB.
    cat = _cat(**{"amd-test-epyc": ("amd-epyc-9554", {"max_memory_bytes": 1024 * GiB})})
    big = "samsung-96gb-ddr5-5600-rdimm-m321ryga0pb0-cwm"  # 96 GiB modules
    # 16 x 96 = 1,536 GiB: over one socket's maximum, under two sockets'.
    assert "compat.memory_max_cpu" not in _found(("amd-test-epyc", 2), (big, 16), cat=cat)
    one = _found(("amd-test-epyc", 1), (big, 16), cat=cat)["compat.memory_max_cpu"]
    assert one.numbers["max_memory_bytes"] == 1024 * GiB
    # 24 x 96 = 2,304 GiB: over 2 x 1,024 = 2,048 GiB.
    two = _found(("amd-test-epyc", 2), (big, 24), cat=cat)["compat.memory_max_cpu"]
    assert two.severity is Severity.WARNING
    assert two.numbers == {"memory_bytes": 2304 * GiB, "max_memory_bytes": 2048 * GiB}
    # Two lines of one CPU count as two sockets too.
    assert "compat.memory_max_cpu" not in _found(("amd-test-epyc", 1), ("amd-test-epyc", 1),
                                                 (big, 16), cat=cat)
