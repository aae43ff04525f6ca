"""Compatibility checks: each rule on its own, the deliberately wrong build, the samples."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from torchrig.builds.build import Build, LineItem, load_build
from torchrig.builds.compat import check_build
from torchrig.catalog import Catalog, Part, load_catalog
from torchrig.catalog.specs import PsuSpec
from torchrig.findings import Finding, Severity, has_blocker

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"


def _build(*lines: tuple[str, int], nodes: int = 1, custom: tuple[str, ...] = ()) -> Build:
    items = [LineItem(part_id=pid, quantity=q) for pid, q in lines]
    items += [LineItem(text=c, category=c) for c in custom]
    # Quoted in USD: these tests are about compatibility. A CNY build also gets the export-control
    # warning for a listed part (the RTX 4090 here), which tests/builds/test_export_checks.py and
    # tests/catalog/test_export_controls_data.py test.
    return Build(name="t", nodes=nodes, currency="USD", line_items=items)


def _codes(findings: list[Finding]) -> dict[str, Severity]:
    return {f.code: f.severity for f in findings}


# A complete machine with no findings once a GPU is added: the i5's 117 W maximum power is
# within the cooler's 165 W rating, and the ATX board fits the E-ATX tower.
BASE = [("intel-core-i5-12400f", 1), ("asus-rog-maximus-z790-formula", 1),
        ("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 1),
        ("samsung-990-pro-1tb", 1), ("corsair-rm1000x", 1), ("nfortec-krater-x", 1),
        ("thermalright-axp120-x67", 1)]


def _with(*extra: tuple[str, int], drop: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    return [line for line in BASE if line[0] not in drop] + list(extra)


def test_clean_build_has_no_findings() -> None:
    assert check_build(_build(*_with(("nvidia-rtx-4090", 1))), load_catalog()) == []


def test_deliberately_wrong_build_gives_exactly_the_expected_findings() -> None:
    cat = load_catalog()
    findings = check_build(load_build(DATA / "wrong-build.json", cat), cat)
    assert _codes(findings) == {
        "compat.socket": Severity.BLOCKER,
        "compat.memory_type_board": Severity.BLOCKER,
        "compat.gpu_slots": Severity.BLOCKER,
        "compat.psu": Severity.BLOCKER,
        "compat.gpu_cooling": Severity.ADVICE,
        "compat.missing_case": Severity.WARNING,
        "compat.missing_cpu_cooler": Severity.ADVICE,
        "fit.gpu_slot_spacing_unknown": Severity.WARNING,
    }
    assert [f.severity for f in findings] == sorted((f.severity for f in findings),
                                                    key=lambda s: s.rank)
    psu = next(f for f in findings if f.code == "compat.psu")
    assert psu.numbers["psu_w"] == 850
    # The i9 at its 253 W maximum turbo power (not its 125 W base), 150 W for the rest.
    assert psu.numbers["load_w"] == 4 * 450 + 253 + 150
    assert psu.numbers["cpu_w"] == 253
    assert "3x" in psu.source.en and "200%" in psu.source.zh
    socket = next(f for f in findings if f.code == "compat.socket")
    assert "LGA1700" in socket.detail.en and "AM5" in socket.detail.zh


@pytest.mark.parametrize("path", sorted((ROOT / "builds").glob("*.json")),
                         ids=lambda p: p.name)
def test_sample_builds_have_no_blockers(path: Path) -> None:
    cat = load_catalog()
    findings = check_build(load_build(path, cat), cat)
    assert not has_blocker(findings)
    for f in findings:
        assert f.title.en and f.title.zh and f.detail.zh and f.fix.zh and f.source


def test_sample_specific_findings() -> None:
    cat = load_catalog()
    dual = check_build(load_build(ROOT / "builds" / "pro-dual-4090.json", cat), cat)
    lanes = next(f for f in dual if f.code == "compat.gpu_lanes")
    assert lanes.severity is Severity.WARNING and lanes.numbers["min_lanes"] == 8
    # 253 + 2 x 450 + 150 = 1303 W sustained; x1.3 = 1694 W is more than the 1,500 W unit.
    psu = next(f for f in dual if f.code == "compat.psu_headroom")
    assert psu.numbers["load_w"] == 1303 and psu.numbers["required_w"] > 1500
    assert _codes(dual)["fit.gpu_slot_spacing_unknown"] is Severity.WARNING
    assert _codes(dual)["board.memory_2dpc"] is Severity.ADVICE
    ent = check_build(load_build(ROOT / "builds" / "enterprise.json", cat), cat)
    # Its EPYC 7003 hosts are PCIe Gen4: the 400 Gb/s NDR adapter runs at about 252 Gb/s.
    # Quoted in CNY with A100s, which the US rules of October 2022 and 2023 cover
    # (resources/catalog/export_controls.json): the export-control warning.
    assert _codes(ent) == {"compat.platform_unchecked": Severity.ADVICE,
                           "board.nic_per_gpu": Severity.ADVICE,
                           "board.nic_pcie": Severity.BOTTLENECK,
                           "export.us_controls": Severity.WARNING}


def test_memory_type_against_cpu_and_board() -> None:
    build = _build(("amd-ryzen-5-5600x", 1), ("gigabyte-b650m-aorus-elite-ax-ice", 1),
                   ("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 1),
                   ("samsung-990-pro-1tb", 1), ("corsair-rm1000x", 1),
                   ("nvidia-rtx-4090", 1), ("nfortec-caelum", 1), ("deepcool-an600", 1))
    codes = _codes(check_build(build, load_catalog()))
    assert codes == {"compat.socket": Severity.BLOCKER,
                     "compat.memory_type_cpu": Severity.BLOCKER,
                     "compat.board_memory_cpu": Severity.BLOCKER}


def test_registered_memory_on_a_desktop_board() -> None:
    build = _build(*_with(("samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm", 2),
                          ("nvidia-rtx-4090", 1),
                          drop=("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40",)))
    assert _codes(check_build(build, load_catalog())) == {"compat.module_form": Severity.BLOCKER,
                                                          "board.ecc": Severity.WARNING}


def test_more_modules_than_slots() -> None:
    build = _build(*_with(("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 2)))
    findings = check_build(build, load_catalog())
    dimm = next(f for f in findings if f.code == "compat.dimm_slots")
    assert dimm.severity is Severity.BLOCKER
    assert dimm.numbers == {"modules": 6.0, "slots": 4.0}
    # 3 x 64 GiB = 192 GiB is at the board's limit, not over it, and over the i5-12400F's 128 GiB.
    assert "compat.memory_max_board" not in _codes(findings)
    assert _codes(findings)["compat.memory_max_cpu"] is Severity.WARNING


def test_memory_over_the_board_limit() -> None:
    build = _build(("intel-core-i5-12400f", 1), ("asus-prime-b660-plus-d4", 1),
                   ("corsair-vengeance-lpx-32gb-ddr4-3200-cmk32gx4m2z3200c16w", 5),
                   ("samsung-970-pro-512gb", 1), ("corsair-rm850x-2021", 1))
    codes = _codes(check_build(build, load_catalog()))
    assert codes["compat.memory_max_board"] is Severity.BLOCKER
    assert codes["compat.dimm_slots"] is Severity.BLOCKER


def test_more_m2_drives_than_slots() -> None:
    build = _build(*_with(("samsung-990-pro-2tb", 5)))
    finding = next(f for f in check_build(build, load_catalog()) if f.code == "compat.m2_slots")
    assert finding.numbers == {"drives": 6.0, "slots": 5.0}
    sata = _build(*_with(("samsung-870-evo-1tb", 6)))
    assert "compat.m2_slots" not in _codes(check_build(sata, load_catalog()))


def test_gpu_via_chipset_is_a_bottleneck() -> None:
    build = _build(("amd-ryzen-9-7950x", 1), ("gigabyte-b650m-aorus-elite-ax-ice", 1),
                   ("corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40", 1),
                   ("nvidia-rtx-a6000", 2), ("samsung-990-pro-1tb", 1), ("corsair-rm1000x", 1))
    finding = next(f for f in check_build(build, load_catalog()) if f.code == "compat.gpu_lanes")
    assert finding.severity is Severity.BOTTLENECK
    assert finding.numbers["min_lanes"] == 4
    assert "x16 + x4" in finding.title.en and "chipset" in finding.detail.en


def test_x8_card_in_x16_slot_is_not_narrowed() -> None:
    build = _build(*_with(("nvidia-rtx-4060-ti-16gb", 2)))
    assert "compat.gpu_lanes" not in _codes(check_build(build, load_catalog()))


def test_psu_headroom_warning_below_the_stricter_rule() -> None:
    build = _build(*_with(("nvidia-rtx-3090", 2)))  # 117 + 700 + 150 = 967 W on 1000 W
    finding = next(f for f in check_build(build, load_catalog())
                   if f.code == "compat.psu_headroom")
    assert finding.severity is Severity.WARNING
    assert finding.numbers["load_w"] == 967
    assert finding.numbers["required_w"] == pytest.approx(967 * 1.3)
    assert "1257" in finding.fix.en


def test_vendor_minimum_psu_from_the_catalog() -> None:
    cat = load_catalog()
    small = Part(id="acme-psu-700", category="psu", vendor="ACME", name="700 W test PSU",
                 specs=PsuSpec(wattage_w=700), sources=("https://example.org/psu",))
    test_cat = Catalog(parts={**cat.parts, small.id: small}, tiers=cat.tiers,
                       seed_rules=cat.seed_rules, sources=cat.sources)
    build = _build(("nvidia-rtx-4090", 1), ("acme-psu-700", 1))
    finding = next(f for f in check_build(build, test_cat) if f.code == "compat.psu_vendor_min")
    assert finding.numbers == {"psu_w": 700.0, "required_w": 850.0}
    assert finding.source == "https://www.pcgamesn.com/nvidia/rtx-4090-power-supply"


def test_unknown_power_is_said_not_guessed() -> None:
    cat = load_catalog()
    gpu = cat.get("nvidia-rtx-4090")
    unknown = replace(gpu, id="nvidia-test-gpu", specs=replace(gpu.gpu, tdp_w=None))
    test_cat = Catalog(parts={**cat.parts, unknown.id: unknown}, tiers=cat.tiers,
                       seed_rules=cat.seed_rules, sources=cat.sources)
    build = _build(*_with(("nvidia-rtx-3090", 2), ("nvidia-test-gpu", 1)))
    finding = next(f for f in check_build(build, test_cat) if f.code.startswith("compat.psu"))
    assert "unknown and not counted" in finding.detail.en


def test_sxm_gpus_on_a_desktop_board() -> None:
    build = _build(*_with(("nvidia-a100-80gb-sxm", 4)))
    finding = next(f for f in check_build(build, load_catalog()) if f.code == "compat.sxm")
    assert finding.severity is Severity.BLOCKER
    assert finding.numbers == {"gpus": 4.0, "sockets": 0.0}


def test_nvlink_bridge_needs_nvlink_gpus() -> None:
    cat = load_catalog()
    bad = _build(*_with(("nvidia-rtx-4090", 2), ("nvidia-nvlink-bridge-2way-ga102", 1)))
    assert _codes(check_build(bad, cat))["compat.nvlink_unsupported"] is Severity.BLOCKER
    good = _build(*_with(("nvidia-rtx-a6000", 2), ("nvidia-nvlink-bridge-2way-ga102", 1)))
    assert "compat.nvlink_unsupported" not in _codes(check_build(good, cat))


def test_three_open_air_cards_get_cooling_advice() -> None:
    cat = load_catalog()
    assert "compat.gpu_cooling" not in _codes(check_build(_build(("nvidia-rtx-4090", 2)), cat))
    assert _codes(check_build(_build(("nvidia-rtx-4090", 3)), cat))["compat.gpu_cooling"] is \
        Severity.ADVICE


def test_missing_categories() -> None:
    cat = load_catalog()
    codes = _codes(check_build(_build(("nvidia-rtx-4090", 1)), cat))
    assert codes == {"compat.missing_cpu": Severity.WARNING,
                     "compat.missing_motherboard": Severity.WARNING,
                     "compat.missing_psu": Severity.WARNING,
                     "compat.missing_memory": Severity.WARNING,
                     "compat.missing_storage": Severity.WARNING,
                     "compat.missing_case": Severity.WARNING,
                     "compat.missing_cpu_cooler": Severity.ADVICE}
    # BASE's i5-12400F has no integrated graphics (Intel's F suffix): without a GPU nothing
    # drives a display.
    no_gpu = _codes(check_build(_build(*BASE), cat))
    assert no_gpu == {"compat.missing_gpu": Severity.ADVICE,
                      "compat.no_display": Severity.WARNING}
    custom = _codes(check_build(_build(("nvidia-rtx-4090", 1), custom=(
        "cpu", "motherboard", "psu", "memory", "storage", "case", "cpu_cooler")), cat))
    assert custom == {}


def test_multi_node_without_network() -> None:
    cat = load_catalog()
    build = _build(*_with(("nvidia-rtx-4090", 1)), nodes=2)
    assert _codes(check_build(build, cat)) == {"compat.node_network": Severity.WARNING}
    with_nic = _build(*_with(("nvidia-rtx-4090", 1), ("intel-e810-cqda2", 1)), nodes=2)
    assert check_build(with_nic, cat) == []


def test_cluster_lines_are_not_part_of_a_node() -> None:
    cat = load_catalog()
    build = _build(*_with(("nvidia-rtx-4090", 1)))
    build.line_items.append(LineItem(part_id="corsair-rm850x-2021", scope="cluster"))
    assert check_build(build, cat) == []
