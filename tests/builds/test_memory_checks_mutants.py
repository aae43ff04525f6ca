"""Memory against board and CPUs (builds/memory_checks.py) finding by finding, word for word,
at the edges of each rule: found unpinned by mutation testing (scripts/mutate.py
builds.memory_checks; docs/testing.md sec. 11). Each expected finding is written out from the
message templates with the figures worked by hand in the comments.

Figures are the catalog's (docs/hardware-sources.md): the Core i5-12400F takes DDR5-4800 and
DDR4-3200 on 2 channels, 128 GiB at most, 76.8 GB/s; the ROG MAXIMUS Z790 FORMULA 4 UDIMM DDR5
slots on 2 channels, 192 GiB at most; the Pro WS W790E-SAGE SE 8 RDIMM slots on 8 channels; the
Xeon w5-2455X 4 channels and 153.6 GB/s, the w9-3495X 8 channels; the 4U8G-TURIN2 24 slots on
2 sockets x 12 channels; the EPYC 9554 12 channels and 460.8 GB/s. Parts whose figures a test
changes are named "test ..." so no finding passes one off as a real product.
"""

from __future__ import annotations

from catalog_variants import catalog_with as _cat

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.memory_checks import dimms_per_channel, memory_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import MemorySupport
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg
from torchrig.units import GiB

I5 = "intel-core-i5-12400f"
Z790 = "asus-rog-maximus-z790-formula"
KIT = "corsair-vengeance-64gb-ddr5-5600-cmk64gx5m2b5600c40"  # 2 x 32 GiB DDR5 UDIMM
KIT_NAME = "Vengeance 64GB (2x32GB) DDR5-5600 CL40 (CMK64GX5M2B5600C40)"
RDIMM = "samsung-32gb-ddr5-5600-rdimm-m321r4ga0pb0-cwm"  # 1 x 32 GiB DDR5 RDIMM
RDIMM_NAME = "32GB DDR5-5600 ECC RDIMM (M321R4GA0PB0-CWM)"
W790 = "asus-pro-ws-w790e-sage-se"
W5 = "intel-xeon-w5-2455x"
W9 = "intel-xeon-w9-3495x"
TURIN = "asrock-rack-4u8g-turin2"
TURIN_NAME = "4U8G-TURIN2 (8-GPU server, dual EPYC 9004/9005)"
EPYC = "amd-epyc-9554"

BOARD_SPECS = Msg("vendor board specifications", "主板厂商规格")
CPU_SPECS = Msg("vendor CPU specifications", "CPU 厂商规格")
CHANNEL_SPECS = Msg("vendor CPU specifications (memory channels)", "CPU 厂商规格（内存通道）")
KEYING = Msg("JEDEC DDR4/DDR5 module keying; vendor board specifications",
             "JEDEC DDR4/DDR5 内存防呆缺口；主板厂商规格")




def _node(*lines: tuple[str, int], cat: Catalog | None = None) -> Node:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return Node(build, cat or load_catalog())


def _check(*lines: tuple[str, int], cat: Catalog | None = None) -> list[Finding]:
    return memory_checks(_node(*lines, cat=cat))


def _finding(code: str, severity: Severity, title: Msg, detail: Msg, fix: Msg, source: Msg,
             **numbers: float) -> Finding:
    return Finding(code=code, severity=severity, title=title, detail=detail, fix=fix,
                   source=source, numbers=numbers)


def _type_board(kit: str, kind: str, board: str, takes: str) -> Finding:
    return _finding(
        "compat.memory_type_board", Severity.BLOCKER,
        Msg("Memory type does not match the motherboard", "内存类型与主板不匹配"),
        Msg(f"{kit} is {kind}; {board} takes {takes} only (the slots are keyed differently).",
            f"{kit} 为 {kind}；{board} 只支持 {takes}（插槽防呆位不同）。"),
        Msg(f"Choose a {takes} kit.", f"改用 {takes} 内存。"), KEYING)


def _type_cpu(cpu: str, types: str, kit: str, kind: str) -> Finding:
    return _finding(
        "compat.memory_type_cpu", Severity.BLOCKER,
        Msg("The CPU does not support this memory type", "CPU 不支持该内存类型"),
        Msg(f"{cpu} supports {types}; {kit} is {kind}.", f"{cpu} 支持 {types}；{kit} 为 {kind}。"),
        Msg(f"Choose a {types} kit and board.", f"改用 {types} 内存与主板。"), CPU_SPECS)


def _channels(modules: int, channels: int, rate_en: str, rate_zh: str, used: float,
              peak: float) -> Finding:
    return _finding(
        "compat.memory_channels", Severity.ADVICE,
        Msg("Not every memory channel is populated", "内存通道未插满"),
        Msg(f"{modules} modules for {channels} channels: memory bandwidth scales with populated "
            f"channels.{rate_en}",
            f"{modules} 条内存对应 {channels} 个通道：内存带宽随已插通道数增加。{rate_zh}"),
        Msg("Fit one module per channel (or a multiple of the channel count).",
            "每个通道插一条（或通道数的整数倍）。"),
        CHANNEL_SPECS, modules=modules, channels=channels, bandwidth=used, peak_bandwidth=peak)


def _max_cpu(total_gib: int, cpu: str, per_socket_gib: int, sockets: int) -> Finding:
    return _finding(
        "compat.memory_max_cpu", Severity.WARNING,
        Msg("More memory than the CPU's listed maximum", "内存总量超过 CPU 标称上限"),
        Msg(f"{total_gib} GiB fitted; {cpu} lists {per_socket_gib} GiB per socket (vendor "
            "limits are sometimes raised later).",
            f"共 {total_gib} GiB；{cpu} 标称每路 {per_socket_gib} GiB"
            "（厂商有时会在之后提高上限）。"),
        Msg("Check the current vendor limit or reduce the memory.", "核实厂商当前上限或减少内存。"),
        CPU_SPECS, memory_bytes=total_gib * GiB, max_memory_bytes=per_socket_gib * GiB * sockets)


def _slots_cpu(board: str, slots: int, dpc_en: str, dpc: int, cpus: int, cpu: str,
               channels: int, each: int, usable: int, modules: int) -> Finding:
    return _finding(
        "compat.dimm_slots_cpu", Severity.BLOCKER,
        Msg("The CPU cannot drive every memory slot", "CPU 无法驱动全部内存插槽"),
        Msg(f"{board} has {slots} slots, {dpc_en} per channel; {cpus} x {cpu} drive {channels} "
            f"channels ({each} each), so only {usable} slots work. The build has {modules} "
            "modules.",
            f"{board} 有 {slots} 个插槽，每通道 {dpc} 个；{cpus} 颗 {cpu}（每颗 {each} 通道）"
            f"共驱动 {channels} 个通道，因此只有 {usable} 个插槽可用。配置中有 {modules} 条内存。"),
        Msg(f"Fit at most {usable} modules (larger ones for the same capacity), or CPUs that "
            "drive every channel the board wires.",
            f"最多插 {usable} 条（用更大容量的内存条保持总容量），"
            "或改用能驱动主板全部通道的 CPU。"),
        CPU_SPECS, modules=modules, usable_slots=usable, slots=slots)


# --- memory type and module form --------------------------------------------------------------

DDR3_KIT = {"test-ddr3-kit": (KIT, "test DDR3 kit", {"memory_type": "DDR3"})}


def test_a_desktop_with_one_kit_on_both_channels_has_no_finding() -> None:
    # 2 modules on 2 channels, 64 GiB under the board's 192 and the CPU's 128, DDR5 UDIMM on a
    # DDR5 UDIMM board: every rule is checked and none fires.
    assert _check((I5, 1), (Z790, 1), (KIT, 1)) == []


def test_a_kit_neither_board_nor_cpu_takes() -> None:
    cat = _cat(**DDR3_KIT)
    assert _check((I5, 1), (Z790, 1), ("test-ddr3-kit", 1), cat=cat) == [
        _type_board("test DDR3 kit", "DDR3", "ROG MAXIMUS Z790 FORMULA", "DDR5"),
        _type_cpu("Core i5-12400F", "DDR5/DDR4", "test DDR3 kit", "DDR3")]
    # Without a board only the CPU's rule applies; without a CPU only the board's.
    assert _check((I5, 1), ("test-ddr3-kit", 1), cat=cat) == [
        _type_cpu("Core i5-12400F", "DDR5/DDR4", "test DDR3 kit", "DDR3")]
    assert _check((Z790, 1), ("test-ddr3-kit", 1), cat=cat) == [
        _type_board("test DDR3 kit", "DDR3", "ROG MAXIMUS Z790 FORMULA", "DDR5")]


def test_an_unknown_memory_type_is_not_a_mismatch() -> None:
    cat = _cat(**DDR3_KIT,
               **{"test-kit-no-type": (KIT, "test kit", {"memory_type": None}),
                  "test-board-no-type": (Z790, "test board", {"memory_type": None}),
                  "test-cpu-no-types": (I5, "test CPU", {"memory_support": ()})})
    assert _check((I5, 1), (Z790, 1), ("test-kit-no-type", 1), cat=cat) == []
    # A board of unknown type: the CPU's rule still applies, and the board-vs-CPU one does not.
    assert _check((I5, 1), ("test-board-no-type", 1), ("test-ddr3-kit", 1), cat=cat) == [
        _type_cpu("Core i5-12400F", "DDR5/DDR4", "test DDR3 kit", "DDR3")]
    # A CPU that lists no memory: only the board's rule.
    assert _check(("test-cpu-no-types", 1), (Z790, 1), ("test-ddr3-kit", 1), cat=cat) == [
        _type_board("test DDR3 kit", "DDR3", "ROG MAXIMUS Z790 FORMULA", "DDR5")]


def test_a_board_whose_memory_type_the_cpu_does_not_take() -> None:
    support = (MemorySupport("DDR4", 3200), MemorySupport("DDR3", 1600))
    cpu = {"test-cpu": (I5, "test CPU without DDR5", {"memory_support": support})}
    found = _check(("test-cpu", 1), (Z790, 1), (KIT, 1), cat=_cat(**cpu))
    assert found == [
        _type_cpu("test CPU without DDR5", "DDR4/DDR3", KIT_NAME, "DDR5"),
        _finding("compat.board_memory_cpu", Severity.BLOCKER,
                 Msg("The board's memory type is not supported by the CPU",
                     "主板内存类型不被 CPU 支持"),
                 Msg("ROG MAXIMUS Z790 FORMULA takes DDR5; test CPU without DDR5 supports "
                     "DDR4/DDR3.",
                     "ROG MAXIMUS Z790 FORMULA 为 DDR5；test CPU without DDR5 支持 DDR4/DDR3。"),
                 Msg("Choose a board whose memory type the CPU supports.",
                     "选择 CPU 支持的内存类型的主板。"), CPU_SPECS)]


def test_registered_modules_on_an_unbuffered_board() -> None:
    # One RDIMM on 2 channels also leaves one empty: peak 76.8 GB/s x 1 CPU = 77, half = 38.
    assert _check((I5, 1), (Z790, 1), (RDIMM, 1)) == [
        _finding("compat.module_form", Severity.BLOCKER,
                 Msg("Registered and unbuffered memory do not mix", "RDIMM 与 UDIMM 不能混用"),
                 Msg(f"{RDIMM_NAME} is RDIMM; ROG MAXIMUS Z790 FORMULA takes UDIMM.",
                     f"{RDIMM_NAME} 为 RDIMM；ROG MAXIMUS Z790 FORMULA 需要 UDIMM。"),
                 Msg("Choose UDIMM modules.", "改用 UDIMM 内存条。"), BOARD_SPECS),
        _channels(1, 2, " Peak 77 GB/s with every channel; about 38 GB/s with 1.",
                  "插满时峰值 77 GB/s；1 条约 38 GB/s。", 38.4e9, 76.8e9)]


def test_an_unknown_module_form_is_not_a_mismatch() -> None:
    cat = _cat(**{"test-board-no-form": (Z790, "test board", {"module_form": None}),
                  "test-rdimm-no-form": (RDIMM, "test module", {"module_form": None,
                                                                "modules": 2})})
    assert _check((I5, 1), ("test-board-no-form", 1), (RDIMM, 2), cat=cat) == []
    assert _check((I5, 1), (Z790, 1), ("test-rdimm-no-form", 1), cat=cat) == []


# --- slots and maxima -------------------------------------------------------------------------

def test_more_modules_than_slots_and_more_memory_than_the_cpu_lists() -> None:
    # 3 kits: 6 modules on 4 slots; 6 x 32 = 192 GiB, the board's maximum exactly (no finding)
    # but over the CPU's 128.
    assert _check((I5, 1), (Z790, 1), (KIT, 3)) == [
        _finding("compat.dimm_slots", Severity.BLOCKER,
                 Msg("More memory modules than slots", "内存条数量超过插槽数"),
                 Msg("6 modules; ROG MAXIMUS Z790 FORMULA has 4 slots.",
                     "6 条内存；ROG MAXIMUS Z790 FORMULA 只有 4 个插槽。"),
                 Msg("Use fewer, larger modules.", "改用数量更少、容量更大的内存条。"),
                 BOARD_SPECS, modules=6, slots=4),
        _max_cpu(192, "Core i5-12400F", 128, 1)]
    # 2 kits: 4 modules on 4 slots, 128 GiB = the CPU's maximum: neither rule fires.
    assert _check((I5, 1), (Z790, 1), (KIT, 2)) == []
    # Two kit lines count together: 2 + 2 x 2 = 6 modules, 192 GiB.
    assert [f.numbers for f in _check((I5, 1), (Z790, 1), (KIT, 1), (KIT, 2))] == [
        {"modules": 6, "slots": 4}, {"memory_bytes": 192 * GiB, "max_memory_bytes": 128 * GiB}]


def test_unknown_slot_count_and_no_board() -> None:
    cat = _cat(**{"test-board-no-slots": (Z790, "test board", {"memory_slots": None})})
    assert _check((I5, 1), ("test-board-no-slots", 1), (KIT, 3), cat=cat) == [
        _max_cpu(192, "Core i5-12400F", 128, 1)]
    assert _check((I5, 1), (KIT, 3)) == [_max_cpu(192, "Core i5-12400F", 128, 1)]


def test_more_memory_than_the_board_supports() -> None:
    cat = _cat(**{"test-board-64": (Z790, "test board", {"max_memory_bytes": 64 * GiB})})
    # 2 kits = 128 GiB on a 64 GiB board; 128 GiB is the CPU's maximum exactly (no finding).
    assert _check((I5, 1), ("test-board-64", 1), (KIT, 2), cat=cat) == [
        _finding("compat.memory_max_board", Severity.BLOCKER,
                 Msg("More memory than the board supports", "内存总量超过主板上限"),
                 Msg("128 GiB fitted; test board supports up to 64 GiB.",
                     "共 128 GiB；test board 最多支持 64 GiB。"),
                 Msg("Reduce the memory or choose a board with a higher limit.",
                     "减少内存或选择上限更高的主板。"),
                 BOARD_SPECS, memory_bytes=128 * GiB, max_memory_bytes=64 * GiB)]
    assert _check((I5, 1), ("test-board-64", 1), (KIT, 1), cat=cat) == []  # 64 = 64


def test_the_cpu_maximum_is_per_socket() -> None:
    cat = _cat(**{"test-epyc": (EPYC, "test EPYC", {"max_memory_bytes": 256 * GiB})})
    # Two CPUs, 24 x 32 = 768 GiB over 2 x 256 = 512.
    assert _check(("test-epyc", 2), (TURIN, 1), (RDIMM, 24), cat=cat) == [
        _max_cpu(768, "test EPYC", 256, 2)]
    # The same two CPUs as two lines: one finding, not one per line.
    assert _check(("test-epyc", 1), ("test-epyc", 1), (TURIN, 1), (RDIMM, 24), cat=cat) == [
        _max_cpu(768, "test EPYC", 256, 2)]
    # 16 x 32 = 512 GiB = 2 x 256: no maximum finding, but 16 modules on 2 x 12 = 24 channels:
    # peak 2 x 460.8 = 921.6 GB/s, 921.6 x 16 / 24 = 614.4 GB/s.
    assert _check(("test-epyc", 2), (TURIN, 1), (RDIMM, 16), cat=cat) == [
        _channels(16, 24, " Peak 922 GB/s with every channel; about 614 GB/s with 16.",
                  "插满时峰值 922 GB/s；16 条约 614 GB/s。", 614.4e9, 921.6e9)]


# --- channels ---------------------------------------------------------------------------------

def test_channels_left_empty_with_and_without_a_known_bandwidth() -> None:
    # 3 RDIMMs on the w5-2455X's 4 channels: peak 153.6 GB/s, 153.6 x 3 / 4 = 115.2 GB/s.
    assert _check((W5, 1), (W790, 1), (RDIMM, 3)) == [
        _channels(3, 4, " Peak 154 GB/s with every channel; about 115 GB/s with 3.",
                  "插满时峰值 154 GB/s；3 条约 115 GB/s。", 115.2e9, 153.6e9)]
    cat = _cat(**{"test-w5": (W5, "test CPU", {"memory_bandwidth": None})})
    assert _check(("test-w5", 1), (W790, 1), (RDIMM, 3), cat=cat) == [
        _channels(3, 4, "", "", 0, 0)]
    # No memory at all is not "channels left empty"; neither is a full set.
    assert _check((W5, 1), (W790, 1)) == []
    assert _check((W5, 1), (W790, 1), (RDIMM, 4)) == []


# --- slots a CPU cannot drive -----------------------------------------------------------------

def test_a_four_channel_cpu_on_an_eight_channel_board() -> None:
    assert _check((W5, 1), (W790, 1), (RDIMM, 8)) == [
        _slots_cpu("Pro WS W790E-SAGE SE", 8, "1 slot", 1, 1, "Xeon w5-2455X", 4, 4, 4, 8)]
    assert _check((W5, 1), (W790, 1), (RDIMM, 5)) == [
        _slots_cpu("Pro WS W790E-SAGE SE", 8, "1 slot", 1, 1, "Xeon w5-2455X", 4, 4, 4, 5)]
    # An 8-channel CPU drives all 8 slots.
    assert _check((W9, 1), (W790, 1), (RDIMM, 8)) == []


def test_two_slots_per_channel_double_the_usable_slots() -> None:
    cat = _cat(**{"test-w790-16": (W790, "test board", {"memory_slots": 16})})
    # 16 slots / 8 channels = 2 per channel; 4 channels x 2 = 8 usable.
    assert _check((W5, 1), ("test-w790-16", 1), (RDIMM, 9), cat=cat) == [
        _slots_cpu("test board", 16, "2 slots", 2, 1, "Xeon w5-2455X", 4, 4, 8, 9)]
    assert _check((W5, 1), ("test-w790-16", 1), (RDIMM, 8), cat=cat) == []


def test_slots_that_do_not_divide_into_channels_or_a_cpu_of_unknown_channels() -> None:
    cat = _cat(**{"test-w790-6": (W790, "test board", {"memory_slots": 6}),
                  "test-epyc": (EPYC, "test EPYC", {"memory_channels": None})})
    # 6 slots on 8 channels: slots per channel unknown, so no slot is called dead.
    assert _check((W5, 1), ("test-w790-6", 1), (RDIMM, 6), cat=cat) == []
    # One CPU of unknown channels in the two-socket board: not called short of channels.
    assert _check(("test-epyc", 1), (TURIN, 1), (RDIMM, 24), cat=cat) == []


def test_one_cpu_in_a_two_socket_board() -> None:
    # 24 slots / 2 sockets / 12 channels = 1 per channel; one CPU drives 12.
    assert _check((EPYC, 1), (TURIN, 1), (RDIMM, 24)) == [
        _slots_cpu(TURIN_NAME, 24, "1 slot", 1, 1, "EPYC 9554", 12, 12, 12, 24)]
    assert _check((EPYC, 2), (TURIN, 1), (RDIMM, 24)) == []


def test_dimms_per_channel() -> None:
    cat = _cat(**{"test-w790-6": (W790, "test board", {"memory_slots": 6}),
                  "test-no-slots": (W790, "test board", {"memory_slots": None}),
                  "test-no-channels": (W790, "test board", {"memory_channels": None}),
                  "test-no-sockets": (W790, "test board", {"cpu_sockets": None})})
    assert dimms_per_channel(_node((W5, 1))) is None
    assert dimms_per_channel(_node((Z790, 1))) == 2  # 4 slots / 2 channels
    assert dimms_per_channel(_node((W790, 1))) == 1  # 8 / 8
    assert dimms_per_channel(_node((TURIN, 1))) == 1  # 24 / 2 sockets / 12
    assert dimms_per_channel(_node(("test-no-sockets", 1), cat=cat)) == 1  # one socket
    for board in ("test-w790-6", "test-no-slots", "test-no-channels"):
        assert dimms_per_channel(_node((board, 1), cat=cat)) is None


def test_a_kit_of_unknown_size_counts_no_modules_or_bytes() -> None:
    cat = _cat(**{"test-kit-no-count": (KIT, "test kit", {"modules": None}),
                  "test-kit-no-size": (KIT, "test kit", {"module_bytes": None})})
    # Unknown modules: 0 modules and 0 bytes, so not "one module on two channels".
    assert _check((I5, 1), (Z790, 1), ("test-kit-no-count", 1), cat=cat) == []
    # Unknown module size beside 3 known kits: its 2 modules count (8 on 4 slots), its bytes do
    # not (192 GiB, the known kits' 6 x 32).
    assert [f.numbers for f in _check((I5, 1), (Z790, 1), (KIT, 3), ("test-kit-no-size", 1),
                                      cat=cat)] == [
        {"modules": 8, "slots": 4}, {"memory_bytes": 192 * GiB, "max_memory_bytes": 128 * GiB}]


def test_the_bandwidth_is_written_in_whole_gb_per_s_rounded_at_a_half() -> None:
    # Test CPUs whose bandwidths make a half: 77.5 GB/s is written 78 and 79 x 2 / 4 = 39.5 GB/s
    # 40 (Python rounds a half to the even neighbour); a divisor other than 1e9, even
    # 1.000000001e9, writes 77 and 39.
    cat = _cat(**{"test-w5-77": (W5, "test CPU", {"memory_bandwidth": 77.5e9}),
                  "test-w5-79": (W5, "test CPU", {"memory_bandwidth": 79e9})})
    assert _check(("test-w5-77", 1), (W790, 1), (RDIMM, 1), cat=cat) == [
        _channels(1, 4, " Peak 78 GB/s with every channel; about 19 GB/s with 1.",
                  "插满时峰值 78 GB/s；1 条约 19 GB/s。", 19.375e9, 77.5e9)]
    assert _check(("test-w5-79", 1), (W790, 1), (RDIMM, 2), cat=cat) == [
        _channels(2, 4, " Peak 79 GB/s with every channel; about 40 GB/s with 2.",
                  "插满时峰值 79 GB/s；2 条约 40 GB/s。", 39.5e9, 79e9)]
