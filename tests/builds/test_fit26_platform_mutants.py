"""builds/platform_checks.py at its edges, found unpinned by mutation testing (scripts/mutate.py
builds.platform_checks): socket, CPU count and multi-socket Blockers word for word (moved here
from compat.py), the CPU-family, BIOS and display findings word for word, and the cases each
skips. Part names are the catalog's; the rules' sources are in the module and
docs/hardware-sources.md sec. 6."""

from __future__ import annotations

from dataclasses import replace

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import BOARD_SPECS, CPU_SPECS, Node
from torchrig.builds.platform_checks import CPU_SUPPORT_SOURCE, family_msg, platform_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import BiosRequirement
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg

SERVER = "asrock-rack-4u8g-turin2"  # 2 x SP5
SERVER_NAME = "4U8G-TURIN2 (8-GPU server, dual EPYC 9004/9005)"
WRX90 = "asus-pro-ws-wrx90e-sage-se"


def _found(*lines: tuple[str, int], cat: Catalog | None = None,
           custom: tuple[str, ...] = ()) -> dict[str, Finding]:
    items = [LineItem(part_id=p, quantity=q) for p, q in lines]
    items += [LineItem(text=c, category=c) for c in custom]
    return {f.code: f for f in platform_checks(Node(Build(name="t", line_items=items),
                                                    cat or load_catalog()))}


def _with(pid: str, base: str, **changes: object) -> Catalog:
    cat = load_catalog()
    b = cat.get(base)
    part = replace(b, id=pid, specs=replace(b.specs, **changes))
    return Catalog(parts={**cat.parts, pid: part}, tiers=cat.tiers, seed_rules=cat.seed_rules,
                   sources=cat.sources)


def test_socket_word_for_word() -> None:
    f = _found(("intel-core-i9-13900k", 1), ("msi-mag-b650-tomahawk-wifi", 1))["compat.socket"]
    assert f.severity is Severity.BLOCKER
    assert f.title == Msg("CPU does not fit the motherboard socket", "CPU 与主板插槽不匹配")
    assert f.detail == Msg("Core i9-13900K uses LGA1700; MAG B650 TOMAHAWK WIFI has AM5.",
                           "Core i9-13900K 为 LGA1700 插槽；MAG B650 TOMAHAWK WIFI 为 AM5。")
    assert f.fix == Msg("Choose a LGA1700 board or a AM5 CPU.",
                        "改用 LGA1700 主板，或 AM5 插槽的 CPU。")
    assert f.source == Msg("vendor socket specifications", "插槽厂商规格")
    assert _found(("amd-ryzen-9-9950x", 1), ("msi-mag-b650-tomahawk-wifi", 1)).keys() == {
        "board.bios_update"}  # same socket
    assert _found(("amd-ryzen-9-9950x", 1)) == {}  # no board


def test_cpu_count_and_multi_socket_word_for_word() -> None:
    found = _found(("amd-epyc-9554", 3), (SERVER, 1))
    count = found["compat.cpu_count"]
    assert count.severity is Severity.BLOCKER
    assert count.title == Msg("More CPUs than the board has sockets", "CPU 数量超过主板插槽数")
    assert count.detail == Msg(f"3 CPUs on {SERVER_NAME}, which has 2 sockets.",
                               f"3 颗 CPU，而 {SERVER_NAME} 只有 2 个插槽。")
    assert count.fix == Msg("Reduce the CPU count or choose a multi-socket board.",
                            "减少 CPU 数量或选择多路主板。")
    assert count.source == BOARD_SPECS and count.numbers == {"cpus": 3.0, "sockets": 2.0}
    multi = found["compat.cpu_multi_socket"]
    assert multi.severity is Severity.BLOCKER
    assert multi.title == Msg("This CPU cannot run in a multi-socket system", "该 CPU 不支持多路")
    assert multi.detail == Msg("EPYC 9554 supports up to 2 sockets; the build has 3.",
                               "EPYC 9554 最多支持 2 路；配置为 3 路。")
    assert multi.fix == Msg("Use one CPU or a 2P-capable model.", "使用单颗 CPU 或支持双路的型号。")
    assert multi.source == CPU_SPECS and multi.numbers == {"cpus": 3.0, "max_sockets": 2.0}
    assert _found(("amd-epyc-9554", 2), (SERVER, 1)) == {}  # two sockets, 2P CPUs


def test_one_socket_singular_and_a_single_cpu() -> None:
    cat = _with("asrock-test-1s", SERVER, cpu_sockets=1)
    f = _found(("amd-epyc-9554", 2), ("asrock-test-1s", 1), cat=cat)["compat.cpu_count"]
    assert "which has 1 socket." in f.detail.en
    # A board without a socket count is taken as one socket.
    none = _with("asrock-test-none", SERVER, cpu_sockets=None)
    assert "compat.cpu_count" in _found(("amd-epyc-9554", 2), ("asrock-test-none", 1), cat=none)
    assert "compat.cpu_count" not in _found(("amd-epyc-9554", 1), ("asrock-test-none", 1),
                                            cat=none)
    # One CPU of a 1-socket model is fine; a CPU of unknown socket count is not judged.
    assert _found(("intel-xeon-w5-2455x", 1), ("asus-pro-ws-w790e-sage-se", 1)) == {}
    assert "compat.cpu_multi_socket" not in _found(("amd-epyc-9575f", 2), (SERVER, 1))


def test_cpu_family_word_for_word() -> None:
    f = _found(("amd-ryzen-threadripper-7960x", 1), (WRX90, 1))["compat.cpu_family"]
    assert f.title == Msg("The board does not take this CPU family", "主板不支持该系列 CPU")
    assert f.detail == Msg(
        "Ryzen Threadripper 7960X is a Ryzen Threadripper 7000 CPU; it fits the sTR5 socket, "
        "but AMD WRX90 boards such as Pro WS WRX90E-SAGE SE do not run Ryzen Threadripper 7000 "
        "CPUs.",
        "Ryzen Threadripper 7960X 属于 Ryzen Threadripper 7000 系列，虽与 sTR5 插槽吻合，但 "
        "AMD WRX90 主板（如 Pro WS WRX90E-SAGE SE）不支持 Ryzen Threadripper 7000 CPU。")
    assert f.fix == Msg(
        "Choose a board for Ryzen Threadripper 7000 CPUs, or a CPU family Pro WS WRX90E-SAGE SE "
        "takes.",
        "选择支持 Ryzen Threadripper 7000 的主板，或 Pro WS WRX90E-SAGE SE 支持的 CPU 系列。")
    assert f.source == BOARD_SPECS
    # A board without a chipset names itself.
    cat = _with("asus-test-nochip", WRX90, chipset=None)
    g = _found(("amd-ryzen-threadripper-7960x", 1), ("asus-test-nochip", 1),
               cat=cat)["compat.cpu_family"]
    assert "but Pro WS WRX90E-SAGE SE boards such as" in g.detail.en
    # A CPU of unknown family is not judged.
    fam = _with("amd-test-nofamily", "amd-ryzen-threadripper-7960x", family=None)
    assert _found(("amd-test-nofamily", 1), (WRX90, 1), cat=fam) == {}


def test_bios_word_for_word() -> None:
    f = _found(("intel-core-i9-14900k", 1), ("asus-prime-b660-plus-d4", 1))["board.bios_update"]
    assert f.severity is Severity.WARNING
    assert f.title == Msg("The board needs a BIOS update for this CPU",
                          "该 CPU 需要先更新主板 BIOS")
    assert f.detail == Msg(
        "PRIME B660-PLUS D4 came out before Core 14th gen CPUs; it runs Core i9-14900K from a "
        "BIOS listed for 14th-gen Core or later. A board from stock may still have an older "
        "BIOS and then does not start.",
        "PRIME B660-PLUS D4 早于 第 14 代酷睿 CPU 推出，需支持列表中列出 14 代酷睿的 "
        "BIOS 或更新版本才能运行 Core i9-14900K。库存主板可能仍是旧版 BIOS，"
        "届时无法开机。")
    assert f.fix == Msg(
        "Have the seller update the BIOS, or use the board's BIOS flashback (no CPU needed) "
        "before the first start; otherwise an older supported CPU is needed for the update.",
        "请商家先更新 BIOS，或在首次开机前用主板的 BIOS 刷新按键（无需 CPU）更新；否则需要一颗旧的"
        "受支持 CPU 来完成更新。")
    assert f.source == CPU_SUPPORT_SOURCE


def test_a_boards_own_version_comes_first() -> None:
    own = (BiosRequirement("Ryzen 8000", "A1"), BiosRequirement("Ryzen 9000", "B2"))
    cat = _with("msi-test-b650", "msi-mag-b650-tomahawk-wifi", bios_requirements=own)
    f = _found(("amd-ryzen-9-9950x", 1), ("msi-test-b650", 1), cat=cat)["board.bios_update"]
    assert "from BIOS B2 or later" in f.detail.en and "BIOS B2 或更新版本" in f.detail.zh
    # A board's requirement for another family only: the chipset rule still applies.
    other = _with("msi-test-other", "msi-mag-b650-tomahawk-wifi",
                  bios_requirements=(BiosRequirement("Ryzen 8000", "A1"),))
    g = _found(("amd-ryzen-9-9950x", 1), ("msi-test-other", 1), cat=other)["board.bios_update"]
    assert "from AGESA ComboAM5 PI 1.1.7.0 or later" in g.detail.en
    # A board with its own requirement and no chipset rule (X870E) still gets the note.
    x870 = _with("asus-test-x870", "asus-rog-strix-x870e-e-gaming-wifi",
                 bios_requirements=(BiosRequirement("Ryzen 9000", "C3"),))
    assert "board.bios_update" in _found(("amd-ryzen-9-9950x", 1), ("asus-test-x870", 1),
                                         cat=x870)
    # No chipset: no rule.
    nochip = _with("msi-test-nochip", "msi-mag-b650-tomahawk-wifi", chipset=None)
    assert _found(("amd-ryzen-9-9950x", 1), ("msi-test-nochip", 1), cat=nochip) == {}


def test_no_display_word_for_word_and_its_exceptions() -> None:
    f = _found(("intel-core-i5-12400f", 1), ("asus-prime-b660-plus-d4", 1))["compat.no_display"]
    assert f.title == Msg("No display output", "没有显示输出")
    assert f.detail == Msg(
        "Core i5-12400F has no integrated graphics and the build has no GPU: the board's video "
        "outputs stay dark, so the machine cannot show the BIOS or an installer.",
        "Core i5-12400F 没有集成显卡，配置中也没有 GPU：主板的视频接口没有输出，"
        "无法显示 BIOS 或系统安装界面。")
    assert f.fix == Msg(
        "Add a graphics card, or choose a CPU with integrated graphics (for Intel, the model "
        "without the F suffix).",
        "添加一块显卡，或改选带核显的 CPU（Intel 即不带 F 后缀的型号）。")
    assert f.source == CPU_SPECS
    # Without a board too; not with a custom GPU line or on a server platform.
    assert "compat.no_display" in _found(("intel-core-i5-12400f", 1))
    assert _found(("intel-core-i5-12400f", 1), custom=("gpu",)) == {}
    assert _found(("intel-core-i5-12400f", 1), custom=("server-platform",)) == {}
    graphics = _with("intel-test-igpu", "intel-core-i5-12400f", integrated_graphics=True)
    assert _found(("intel-test-igpu", 1), cat=graphics) == {}


def test_family_names_in_chinese() -> None:
    assert family_msg("Core 14th gen") == Msg("Core 14th gen", "第 14 代酷睿")
    assert family_msg("Ryzen 9000") == Msg("Ryzen 9000", "Ryzen 9000")


def test_two_cpus_of_a_one_socket_model() -> None:
    cat = _with("amd-test-1p", "amd-epyc-9554", max_sockets=1)
    f = _found(("amd-test-1p", 2), (SERVER, 1), cat=cat)["compat.cpu_multi_socket"]
    assert f.severity is Severity.BLOCKER
    assert f.detail == Msg("EPYC 9554 supports up to 1 socket; the build has 2.",
                           "EPYC 9554 最多支持 1 路；配置为 2 路。")


def test_a_socket_mismatch_is_not_also_judged_by_family() -> None:
    # A Threadripper 7000 on an SP5 board listing that family as unsupported: the socket
    # Blocker alone (the family rule is for CPUs that fit the socket).
    cat = _with("asrock-test-sp5", SERVER, unsupported_cpu_families=("Ryzen Threadripper 7000",))
    found = _found(("amd-ryzen-threadripper-7960x", 1), ("asrock-test-sp5", 1), cat=cat)
    assert set(found) == {"compat.socket"}
