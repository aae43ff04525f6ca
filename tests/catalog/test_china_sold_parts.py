"""The China-sold parts of issue 25 (data part 2): boards, DDR5 kits, NVMe drives, PSUs, cases
and coolers a mainland shop quotes for PyTorch machines.

Every figure pinned below was read from the page or file named beside it; none was taken from
TorchRig's output. The catalog stores SI units, so a pinned vendor figure is converted here by
hand: drive rates are decimal MB/s (1 MB/s = 1e6 B/s), memory sizes binary GiB (docs/hardware-
sources.md, "Conventions").
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.catalog.specs import SCHEMAS

ODB = ("https://github.com/buildcores/buildcores-open-db/blob/"
       "136a77aec16a30ba81a7cc6b448a8bace9a25359/open-db/")

# The parts this change adds, by catalog category.
CHINA_SOLD = {
    "motherboard": (
        "msi-mag-b860-tomahawk-wifi", "msi-mag-b860m-mortar-wifi", "msi-mag-b650-tomahawk-wifi",
        "asus-tuf-gaming-b650-plus-wifi", "msi-pro-b760m-a-wifi", "msi-mag-x870-tomahawk-wifi",
        "msi-mag-b850m-mortar-wifi", "asus-tuf-gaming-x670e-plus-wifi",
        "asus-rog-strix-z790-e-gaming-wifi", "asrock-b650m-pro-rs-wifi",
        "gigabyte-x870e-aorus-elite-wifi7"),
    "memory": (
        "kingbank-32gb-ddr5-6000-cl36-cxmt", "gloway-32gb-ddr5-6000-cl36-cxmt",
        "kingbank-sharpblade-32gb-ddr5-6800-cl34",
        "kingston-fury-beast-32gb-ddr5-6000-kf560c36bbek2-32",
        "g-skill-trident-z5-neo-32gb-ddr5-6000-f5-6000j3038f16gx2-tz5n",
        "g-skill-flare-x5-32gb-ddr5-6000-f5-6000j3036f16gx2-fx5",
        "crucial-pro-32gb-ddr5-5600-cp2k16g56c46u5", "crucial-pro-64gb-ddr5-5600-cp2k32g56c46u5",
        "kingston-fury-beast-64gb-ddr5-6000-kf560c36bbek2-64"),
    "storage": (
        "zhitai-tipro7000-1tb", "zhitai-tipro7000-2tb", "zhitai-tipro9000-2tb",
        "samsung-990-evo-plus-2tb", "samsung-990-evo-plus-4tb", "samsung-990-evo-2tb",
        "western-digital-wd-black-sn850x-2tb", "western-digital-wd-black-sn770-1tb",
        "western-digital-wd-black-sn850x-4tb", "kioxia-exceria-plus-g3-2tb"),
    "psu": (
        "seasonic-focus-gx-1000-v4", "seasonic-focus-gx-850-v4", "cooler-master-mwe-gold-850-v3",
        "super-flower-leadex-vii-xg-1000w", "super-flower-leadex-vii-platinum-pro-1000w",
        "antec-ne1000g-m-white-atx-3-0"),
    "case": (
        "lian-li-o11-dynamic-evo", "lian-li-lancool-216", "phanteks-nv7", "jonsbo-d41-mesh",
        "sama-neview-4503"),
    "cpu_cooler": (
        "thermalright-phantom-spirit-120-evo", "thermalright-assassin-x-120-v2",
        "thermalright-frozen-warframe-pro-360", "deepcool-ak400", "deepcool-ag400",
        "deepcool-lt720", "noctua-nh-u12a-chromax-black", "noctua-nh-d15-chromax-black"),
}
ALL_IDS = [pid for ids in CHINA_SOLD.values() for pid in ids]
URL = re.compile(r"^https?://\S+$")
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_the_parts_load_in_their_categories() -> None:
    cat = load_catalog()
    for category, ids in CHINA_SOLD.items():
        for pid in ids:
            assert cat.get(pid).category == category, pid
    assert len(set(ALL_IDS)) == len(ALL_IDS) == 49


@pytest.mark.parametrize("pid", ALL_IDS)
def test_every_spec_figure_has_a_source(pid: str) -> None:
    """docs/hardware-sources.md sec. 7.2: a figure cites its own source or the part's list.
    These parts cite URLs only (no sources.json key), so a reader can open each one."""
    part = load_catalog().get(pid)
    assert part.sources and all(URL.match(s) for s in part.sources), part.sources
    assert all(URL.match(s) for s in part.field_sources.values()), part.field_sources
    assert not part.derived_fields  # nothing here is computed from another figure
    schema = {f.attr: f for f in SCHEMAS[part.category]}
    filled = [attr for attr in schema if getattr(part.specs, attr) not in (None, ())]
    assert filled, pid
    # A figure with a source of its own still belongs to a part that lists that source or the
    # file it came from, so a reviewer finds every page from the part's list.
    for attr, source in part.field_sources.items():
        assert attr in filled
        assert source in part.sources or source.startswith(ODB), (attr, source)


@pytest.mark.parametrize("pid", ALL_IDS)
def test_notes_in_both_languages(pid: str) -> None:
    notes = load_catalog().get(pid).notes
    assert notes is not None and notes.en and CJK.search(notes.zh), pid
    assert not CJK.search(notes.en), pid


def test_every_cny_price_has_a_url_source_and_a_date() -> None:
    cat = load_catalog()
    cny = [(pid, price) for pid in ALL_IDS for price in cat.get(pid).prices
           if price.currency == "CNY"]
    assert {pid for pid, _ in cny} == {"kingbank-32gb-ddr5-6000-cl36-cxmt",
                                       "gloway-32gb-ddr5-6000-cl36-cxmt"}
    for pid, price in cny:
        assert URL.match(price.source), pid
        assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", price.date), pid
        assert price.kind in ("launch-msrp", "retail") and price.reliability and price.note


def test_cxmt_kit_price_as_heise_reports_it() -> None:
    """heise.de/-10231904: KingBank and Gloway DDR5-6000 kits on CXMT chips, "32 GB consisting
    of two modules will cost 499 yuan", latencies CL36-36-36-80 and CL36-40-40-96; technetbooks.com
    /2024/12/ reports both brands selling the kits, which gives the month."""
    cat = load_catalog()
    for pid in ("kingbank-32gb-ddr5-6000-cl36-cxmt", "gloway-32gb-ddr5-6000-cl36-cxmt"):
        part = cat.get(pid)
        (price,) = part.prices
        assert (price.amount, price.currency, price.date, price.kind, price.reliability) == (
            Decimal("499"), "CNY", "2024-12", "launch-msrp", "low")
        assert price.source == "https://heise.de/-10231904"
        kit = part.memory
        assert (kit.memory_type, kit.speed_mts, kit.modules, kit.cas_latency) == (
            "DDR5", 6000, 2, 36)
        assert kit.total_bytes == 32 * 2**30  # 2 x 16 GiB


def test_pinned_storage_figures() -> None:
    cat = load_catalog()
    # m.baike.mjlong.com/tech/17-14804.html quoting ZhiTai's figures: 2 TB TiPro7000 reads
    # 7,400 MB/s, writes 6,700 MB/s, 1,200 TBW; the 1 TB writes 5,400 MB/s and is rated 600 TBW.
    big, small = cat.get("zhitai-tipro7000-2tb").storage, cat.get("zhitai-tipro7000-1tb").storage
    assert (big.seq_read, big.seq_write, big.endurance_tbw) == (7400e6, 6700e6, 1200)
    assert (small.seq_write, small.endurance_tbw) == (5400e6, 600)
    # tomshardware.com/news/wd-black-sn850x-pcie-40-ps5-ssd-hits-retail-4tb-for-dollar820:
    # 7,300 MB/s read on every capacity, 6,600 MB/s write on the 2 TB and 4 TB.
    for pid in ("western-digital-wd-black-sn850x-2tb", "western-digital-wd-black-sn850x-4tb"):
        sn850x = cat.get(pid).storage
        assert (sn850x.seq_read, sn850x.seq_write, sn850x.pcie_gen) == (7300e6, 6600e6, 4)
    # pgrid.app/au/ssds/western-digital-wd-black-sn850x-2000gb and ...-4000gb: 1200 and 2400 TBW.
    assert cat.get("western-digital-wd-black-sn850x-2tb").storage.endurance_tbw == 1200
    assert cat.get("western-digital-wd-black-sn850x-4tb").storage.endurance_tbw == 2400
    # techpowerup.com/review/wd-black-sn770-1-tb: "Endurance: 600 TBW", PCIe Gen 4 x4, M.2 2280.
    sn770 = cat.get("western-digital-wd-black-sn770-1tb").storage
    assert (sn770.endurance_tbw, sn770.form_factor) == (600, "M.2 2280")


def test_pinned_case_and_cooler_clearances() -> None:
    cat = load_catalog()
    # OpenDB PCCase/687a65ed-...: LANCOOL 216 max_video_card_length 392, max_cpu_cooler_height
    # 180.5; PCCase/81f0834f-...: O11 Dynamic EVO 426 and 167.
    lancool, o11 = cat.get("lian-li-lancool-216").case, cat.get("lian-li-o11-dynamic-evo").case
    assert (lancool.max_gpu_length_mm, lancool.max_cooler_height_mm) == (392, 180.5)
    assert (o11.max_gpu_length_mm, o11.max_cooler_height_mm) == (426, 167)
    # OpenDB CPUCooler/896b7700-...: height 157; TechPowerUp's review: "at 157 mm tall".
    assert cat.get("thermalright-phantom-spirit-120-evo").cooler.height_mm == 157
    # The Jonsbo D41's cooler clearance is in no source read: it stays unknown.
    assert cat.get("jonsbo-d41-mesh").case.max_cooler_height_mm is None


def test_pinned_power_supply_figures() -> None:
    cat = load_catalog()
    # tomshardware.com/...cooler-master-mwe-gold-850-v3-power-supply-review (2025-03-08):
    # "rated at 850W and compliant with the ATX 3.1 standard".
    mwe = cat.get("cooler-master-mwe-gold-850-v3").psu
    assert (mwe.wattage_w, mwe.atx_version) == (850, "ATX 3.1")
    # OpenDB PSU/eb263daf-...: pcie_12vhpwr 1, pcie_6_plus_2_pin 4, ATX 3.0 in the name.
    antec = cat.get("antec-ne1000g-m-white-atx-3-0").psu
    assert (antec.pcie_12v_2x6_connectors, antec.pcie_8pin_connectors) == (1, 4)
    # OpenDB lists zeros for the other units' connectors (fields not filled in): not stored.
    assert cat.get("seasonic-focus-gx-1000-v4").psu.pcie_12v_2x6_connectors is None


def test_pinned_board_figures() -> None:
    cat = load_catalog()
    # techpowerup.com/review/msi-mag-b860-tomahawk-wi-fi/4.html: "a maximum of one PCIe Gen 5
    # and two PCIE Gen 4 SSDs" with no M.2 lane sharing; OpenDB: 4 DDR5 slots, 256 GB.
    b860 = cat.get("msi-mag-b860-tomahawk-wifi").motherboard
    assert (b860.socket, b860.m2_slots, b860.memory_slots) == ("LGA1851", 3, 4)
    assert b860.max_memory_bytes == 256 * 2**30
    # OpenDB and PCPartPicker disagree on the TUF B650-PLUS WIFI's maximum (256 vs 128 GB).
    assert cat.get("asus-tuf-gaming-b650-plus-wifi").motherboard.max_memory_bytes is None


def _findings(*part_ids: str) -> set[str]:
    build = Build(name="t", line_items=[LineItem(part_id=pid) for pid in part_ids])
    return {f.code for f in check_build(build, load_catalog())}


def test_cooler_clearance_with_the_new_cases() -> None:
    """The 165 mm NH-D15 (OpenDB) fits the O11 Dynamic EVO (167 mm) and not the Caelum, whose
    maker's sheet says 160 mm; in the Jonsbo D41, whose clearance is unknown, no check runs."""
    cpu = "intel-core-i9-13900k"
    assert "fit.cooler_height" not in _findings(cpu, "noctua-nh-d15-chromax-black",
                                                "lian-li-o11-dynamic-evo")
    assert "fit.cooler_height" in _findings(cpu, "noctua-nh-d15-chromax-black", "nfortec-caelum")
    assert "fit.cooler_height" not in _findings(cpu, "noctua-nh-d15-chromax-black",
                                                "jonsbo-d41-mesh")


def test_cooler_sockets_as_the_source_lists_them() -> None:
    """OpenDB lists LGA1851 for the AK400 but not for the Phantom Spirit 120 EVO, so an
    LGA1851 CPU mounts on the first and is flagged on the second; both take LGA1700."""
    arrow = "intel-core-ultra-7-265k"  # LGA1851
    assert "fit.cooler_socket" not in _findings(arrow, "deepcool-ak400")
    assert "fit.cooler_socket" in _findings(arrow, "thermalright-phantom-spirit-120-evo")
    assert "fit.cooler_socket" not in _findings("intel-core-i9-13900k",
                                                "thermalright-phantom-spirit-120-evo")
