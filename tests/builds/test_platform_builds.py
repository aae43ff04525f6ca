"""The checker's own advice ("use Threadripper, Xeon W or EPYC") can be built from the catalog:
each recommended platform with its board, registered ECC memory, GPUs, power, case and cooler
passes the socket and memory checks, and a half-filled memory bank is reported."""

from __future__ import annotations

import pytest

from torchrig.builds.build import Build, LineItem
from torchrig.builds.compat import check_build
from torchrig.catalog import load_catalog
from torchrig.findings import Finding, Severity

RDIMM = "samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm"
UDIMM_KIT = "corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40"
# Two 300 W dual-slot cards, a 1,600 W unit, a tower and an NVMe drive fit every platform.
REST = [("nvidia-rtx-pro-6000-blackwell-max-q", 2), ("seasonic-prime-tx-1600", 1),
        ("fractal-design-define-7-xl", 1), ("samsung-990-pro-1tb", 1)]

# platform: (CPU, board, cooler, memory channels); one RDIMM per channel.
PLATFORMS = {
    "threadripper-pro-wrx90": ("amd-ryzen-threadripper-pro-9985wx",
                               "asus-pro-ws-wrx90e-sage-se", "arctic-liquid-freezer-ws360-sp6", 8),
    "xeon-w3400-w790": ("intel-xeon-w9-3495x", "asus-pro-ws-w790e-sage-se",
                        "arctic-liquid-freezer-ws360-4710", 8),
    "xeon-w2400-w790": ("intel-xeon-w5-2455x", "asus-pro-ws-w790e-sage-se",
                        "arctic-liquid-freezer-ws360-4710", 4),
    "epyc-9004-sp5": ("amd-epyc-9554", "asrock-rack-genoad12m3-2q-h",
                      "arctic-liquid-freezer-ws360-sp5", 12),
    "epyc-9005-sp5": ("amd-epyc-9575f", "asrock-rack-genoad12m3-2q-h",
                      "arctic-liquid-freezer-ws360-sp5", 12),
}
PLATFORM_BLOCKERS = {"compat.socket", "compat.memory_type_board", "compat.memory_type_cpu",
                     "compat.module_form", "compat.board_memory_cpu", "compat.dimm_slots",
                     "fit.cooler_socket", "compat.gpu_slots"}


def _build(*lines: tuple[str, int]) -> Build:
    return Build(name="platform", nodes=1,
                 line_items=[LineItem(part_id=pid, quantity=q) for pid, q in lines])


def _platform(name: str, modules: int | None = None, kit: str = RDIMM) -> Build:
    cpu, board, cooler, channels = PLATFORMS[name]
    return _build((cpu, 1), (board, 1), (cooler, 1), (kit, modules or channels), *REST)


def _findings(build: Build) -> dict[str, Finding]:
    return {f.code: f for f in check_build(build, load_catalog())}


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_recommended_platform_builds_without_blockers(name: str) -> None:
    findings = _findings(_platform(name))
    assert not PLATFORM_BLOCKERS & set(findings), name
    assert not [f for f in findings.values() if f.severity is Severity.BLOCKER], name
    assert "compat.memory_channels" not in findings, name


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_fewer_modules_than_channels_is_reported(name: str) -> None:
    channels = PLATFORMS[name][3]
    finding = _findings(_platform(name, modules=channels // 2))["compat.memory_channels"]
    assert finding.severity is Severity.ADVICE
    assert finding.numbers["modules"] == channels // 2
    assert finding.numbers["channels"] == channels


def test_unbuffered_memory_on_a_registered_board_is_blocked() -> None:
    finding = _findings(_platform("threadripper-pro-wrx90", modules=4,
                                  kit=UDIMM_KIT))["compat.module_form"]
    assert finding.severity is Severity.BLOCKER
    assert "RDIMM" in finding.detail.en and "UDIMM" in finding.detail.en


def test_a_cpu_from_another_platform_is_blocked() -> None:
    _, board, cooler, channels = PLATFORMS["xeon-w3400-w790"]
    build = _build(("amd-ryzen-threadripper-pro-9985wx", 1), (board, 1), (cooler, 1),
                   (RDIMM, channels), *REST)
    assert _findings(build)["compat.socket"].severity is Severity.BLOCKER


def test_seven_gpus_fill_the_w790_board_with_one_x8_slot() -> None:
    cpu, board, cooler, channels = PLATFORMS["xeon-w3400-w790"]
    build = _build((cpu, 1), (board, 1), (cooler, 1), (RDIMM, channels),
                   ("nvidia-rtx-pro-6000-blackwell-max-q", 7))
    lanes = _findings(build)["compat.gpu_lanes"]
    assert lanes.severity is Severity.WARNING and lanes.numbers["min_lanes"] == 8



def test_the_node_drives_the_fewer_of_the_boards_and_the_cpus_channels() -> None:
    """A 4-channel Xeon W-2400 on the W790 board (wired for 8) drives 4; the w9-3495X all 8.
    The channel advice and the two-DIMMs-per-channel check both read this one figure."""
    from torchrig.builds.check_node import Node

    def channels(name: str) -> int | None:
        return Node(_platform(name), load_catalog()).memory_channels()

    assert (channels("xeon-w2400-w790"), channels("xeon-w3400-w790")) == (4, 8)
    assert channels("epyc-9005-sp5") == 12
