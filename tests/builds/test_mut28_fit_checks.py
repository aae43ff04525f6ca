"""Physical fit (builds/fit_checks.py) word for word where `scripts/mutate.py builds.fit_checks`
found the words or an edge unpinned (issue 28, docs/testing.md sec. 13): the board against the
case by size, the E-ATX check note, radiators against the case's mounts, the case's expansion
slots, a cooler of unknown rating, and the socket and size rules on their own.

Figures are the catalog's (maker specifications, sourced in resources/catalog): Pro WS
TRX50-SAGE WIFI is SSI CEB; the Define 7 Compact takes ATX, Micro-ATX and Mini-ITX; the 7000D
AIRFLOW E-ATX, ATX, Micro-ATX and Mini-ITX with 8 expansion slots; ROG STRIX X870E-E GAMING
WIFI has its x16 slots at positions 3 and 7; the GeForce RTX 4090 is 3 slots thick; the Liquid
Freezer III Pro 360 has a 360 mm radiator and no heat rating; the Core i9-13900K draws 253 W
at most (125 W base). Board sizes (docs/hardware-sources.md sec. 6.2): ATX 305 x 244 mm,
Micro-ATX 244 x 244, Mini-ITX 170 x 170, SSI CEB 305 x 266.7, SSI EEB 305 x 330. Parts a test
changes are named "test ...". Every expected text is the rule's message template filled in by
hand.
"""

from __future__ import annotations

import pytest
from catalog_variants import catalog_with as _cat

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.fit_checks import (
    board_size_mm,
    case_board_limit_mm,
    fit_checks,
    socket_matches,
)
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.specs import RadiatorMount
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg

TRX50, DEFINE7C, C7000D = ("asus-pro-ws-trx50-sage-wifi", "fractal-design-define-7-compact",
                           "corsair-7000d-airflow")
X870E, RTX_4090, Z790 = ("asus-rog-strix-x870e-e-gaming-wifi", "nvidia-rtx-4090",
                         "asus-rog-maximus-z790-formula")
LIQUID, I9 = "arctic-liquid-freezer-iii-pro-360", "intel-core-i9-13900k"
FIT_SOURCE = Msg("maker specifications (card length and thickness, case clearances, board "
                 "layout)", "厂商规格（显卡长度与厚度、机箱净空、主板布局）")
COOLER_SOURCE = Msg("cooler maker's heat-load rating; CPU maker's power figures",
                    "散热器厂商的散热功耗标称；CPU 厂商的功耗数据")
FORM_SOURCE = Msg(
    "board sizes: ATX 305 x 244 mm, Micro-ATX 244 x 244, Mini-ITX 170 x 170 (kitbuilder.io "
    "glossary); SSI CEB 305 x 266.7, SSI EEB 305 x 330, E-ATX no fixed size (Corsair, "
    "\"SSI-EEB and CEB motherboards explained\"); case makers' specifications",
    "主板尺寸：ATX 305 x 244 mm、Micro-ATX 244 x 244、Mini-ITX 170 x 170（kitbuilder.io 术语表）；"
    "SSI CEB 305 x 266.7、SSI EEB 305 x 330，E-ATX 无固定尺寸（Corsair《SSI-EEB 与 CEB 主板"
    "详解》）；机箱厂商规格")


def _check(*lines: tuple[str, int], cat: Catalog | None = None) -> list[Finding]:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return fit_checks(Node(build, cat or load_catalog()))


def test_the_catalog_figures_these_tests_rest_on() -> None:
    cat = load_catalog()
    assert cat.get(TRX50).motherboard.form_factor == "SSI CEB"
    assert cat.get(TRX50).motherboard.dimensions_mm == ()
    assert cat.get(DEFINE7C).case.board_form_factors == ("ATX", "Micro-ATX", "Mini-ITX")
    assert cat.get(C7000D).case.board_form_factors == ("E-ATX", "ATX", "Micro-ATX", "Mini-ITX")
    assert cat.get(C7000D).case.expansion_slots == 8 and cat.get(C7000D).case.max_board_mm == ()
    assert cat.get(X870E).motherboard.x16_slot_positions == (3, 7)
    assert cat.get(RTX_4090).gpu.slot_width == 3.0
    assert (cat.get(LIQUID).cooler.radiator_mm, cat.get(LIQUID).cooler.rated_heat_w) == (360,
                                                                                         None)
    assert (cat.get(I9).cpu.tdp_w, cat.get(I9).cpu.max_turbo_power_w) == (125.0, 253.0)


# --- the board against the case by size ------------------------------------------------------


def test_a_ceb_board_in_an_atx_case_word_for_word() -> None:
    assert _check((TRX50, 1), (DEFINE7C, 1)) == [Finding(
        code="fit.board_form", severity=Severity.BLOCKER,
        title=Msg("The motherboard does not fit the case", "主板尺寸与机箱不匹配"),
        detail=Msg("Pro WS TRX50-SAGE WIFI is SSI CEB, 305 x 266.7 mm, Define 7 Compact (ATX "
                   "mid-tower) takes ATX, Micro-ATX, Mini-ITX (boards up to 305 x 244 mm).",
                   "Pro WS TRX50-SAGE WIFI 为 SSI CEB（305 x 266.7 mm）；Define 7 Compact (ATX "
                   "mid-tower) 支持 ATX, Micro-ATX, Mini-ITX（最大 305 x 244 mm）。"),
        fix=Msg("Choose a case that takes SSI CEB boards.", "选择支持 SSI CEB 主板的机箱。"),
        source=FORM_SOURCE, numbers={"board_width_mm": 305.0, "board_depth_mm": 266.7,
                                     "case_width_mm": 305.0, "case_depth_mm": 244.0})]


def test_a_board_and_a_case_of_sizes_the_catalog_does_not_know() -> None:
    # A form with no fixed size and a case naming only such forms: no size on either side.
    cat = _cat(**{"test-board": (TRX50, "test board", {"form_factor": "XL-ATX"}),
                  "test-case": (DEFINE7C, "test case", {"board_form_factors": ("HPTX",)})})
    assert _check(("test-board", 1), ("test-case", 1), cat=cat) == [Finding(
        code="fit.board_form", severity=Severity.BLOCKER,
        title=Msg("The motherboard does not fit the case", "主板尺寸与机箱不匹配"),
        detail=Msg("test board is XL-ATX, test case takes HPTX.",
                   "test board 为 XL-ATX；test case 支持 HPTX。"),
        fix=Msg("Choose a case that takes XL-ATX boards.", "选择支持 XL-ATX 主板的机箱。"),
        source=FORM_SOURCE, numbers={})]


def test_the_e_atx_note_word_for_word() -> None:
    assert _check((TRX50, 1), (C7000D, 1)) == [Finding(
        code="fit.board_size_unknown", severity=Severity.ADVICE,
        title=Msg("Check that the motherboard fits the case", "请确认主板能否装入机箱"),
        detail=Msg("Pro WS TRX50-SAGE WIFI is SSI CEB, 305 x 266.7 mm; 7000D AIRFLOW (E-ATX full "
                   "tower, black, CC-9011218-WW) takes E-ATX, ATX, Micro-ATX, Mini-ITX. E-ATX has "
                   "no fixed size (its size and mounting holes vary by maker), and the catalog "
                   "does not have this case's largest board.",
                   "Pro WS TRX50-SAGE WIFI 为 SSI CEB，305 x 266.7 mm；7000D AIRFLOW (E-ATX full "
                   "tower, black, CC-9011218-WW) 支持 E-ATX、ATX、Micro-ATX、Mini-ITX。E-ATX 没有"
                   "固定尺寸（尺寸与安装孔位因厂商而异），目录中没有该机箱支持的最大主板尺寸。"),
        fix=Msg("Check the case maker's E-ATX limit: it must be at least 305 x 266.7 mm.",
                "查阅机箱厂商标注的 E-ATX 上限：需不小于 305 x 266.7 mm。"),
        source=FORM_SOURCE, numbers={"board_width_mm": 305.0, "board_depth_mm": 266.7})]


def test_the_e_atx_note_up_to_the_ssi_eeb_size_and_a_blocker_past_it() -> None:
    # A board's own dimensions: 305 x 330 mm is SSI EEB's size, the largest an E-ATX case is
    # given the benefit of the doubt for; 1 mm deeper is larger than any named size.
    cat = _cat(**{"test-eeb": (TRX50, "test board", {"dimensions_mm": (305, 330)}),
                  "test-deep": (TRX50, "test board", {"dimensions_mm": (305, 331)})})
    assert [f.code for f in _check(("test-eeb", 1), (C7000D, 1), cat=cat)] == [
        "fit.board_size_unknown"]
    [blocker] = _check(("test-deep", 1), (C7000D, 1), cat=cat)
    assert blocker.code == "fit.board_form"
    assert blocker.numbers == {"board_width_mm": 305.0, "board_depth_mm": 331.0,
                               "case_width_mm": 305.0, "case_depth_mm": 244.0}
    assert blocker.detail.en == (
        "test board is SSI CEB, 305 x 331 mm, 7000D AIRFLOW (E-ATX full tower, black, "
        "CC-9011218-WW) takes E-ATX, ATX, Micro-ATX, Mini-ITX (boards up to 305 x 244 mm).")
    # A stated case maximum is not "no fixed size": no note, a blocker past it.
    stated = _cat(**{"test-deep": (TRX50, "test board", {"dimensions_mm": (305, 331)}),
                     "test-case": (C7000D, "test case", {"max_board_mm": (305, 330)})})
    assert [f.code for f in _check(("test-deep", 1), ("test-case", 1), cat=stated)] == [
        "fit.board_form"]


def test_form_names_are_compared_whatever_their_spelling() -> None:
    for form, case_forms in (("EATX", ("E-ATX",)), ("uATX", ("Micro-ATX",)),
                             ("Mini ITX", ("Mini-ITX",)), ("ssi_eeb", ("SSI-EEB",)),
                             ("CEB", ("SSI CEB",)), ("micro-atx", ("MATX",)),
                             ("m-ATX", ("Micro-ATX",)), ("u-ATX", ("Micro-ATX",))):
        cat = _cat(**{"test-board": (TRX50, "test board", {"form_factor": form}),
                      "test-case": (DEFINE7C, "test case", {"board_form_factors": case_forms})})
        assert _check(("test-board", 1), ("test-case", 1), cat=cat) == [], form


def test_board_sizes_from_dimensions_or_the_form() -> None:
    cat = _cat(**{"test-own": (TRX50, {"dimensions_mm": (277, 240)}),
                  "test-atx": (TRX50, {"form_factor": "ATX"}),
                  "test-matx": (TRX50, {"form_factor": "mATX"}),
                  "test-unnamed": (TRX50, {"form_factor": None}),
                  "test-odd": (TRX50, {"form_factor": "XL-ATX"})})
    assert board_size_mm(cat.get("test-own")) == (277.0, 240.0)
    assert board_size_mm(cat.get("test-atx")) == (305.0, 244.0)
    assert board_size_mm(cat.get("test-matx")) == (244.0, 244.0)
    assert board_size_mm(cat.get(TRX50)) == (305.0, 266.7)
    assert board_size_mm(cat.get("test-unnamed")) is None
    assert board_size_mm(cat.get("test-odd")) is None
    # The largest named size of a case, width and depth each: Mini-ITX and Micro-ATX.
    small = _cat(**{"test-case": (DEFINE7C, {"board_form_factors": ("Mini-ITX", "Micro-ATX",
                                                                    "HPTX")})})
    assert case_board_limit_mm(small.get("test-case")) == (244.0, 244.0)
    none = _cat(**{"test-case": (DEFINE7C, {"board_form_factors": ("HPTX",)})})
    assert case_board_limit_mm(none.get("test-case")) is None


# --- radiators -------------------------------------------------------------------------------


def test_a_radiator_with_no_mount_of_its_size_word_for_word() -> None:
    mounts = (RadiatorMount("front", (240, 280), 55.0), RadiatorMount("top", (240,), None),
              RadiatorMount("bottom", (120,), None))
    cat = _cat(**{"test-case": (DEFINE7C, "test case", {"radiator_mounts": mounts})})
    assert _check((LIQUID, 1), ("test-case", 1), cat=cat) == [Finding(
        code="fit.radiator_mount", severity=Severity.BLOCKER,
        title=Msg("The case has no 360 mm radiator mount", "机箱没有 360 mm 冷排位"),
        detail=Msg("Liquid Freezer III Pro 360 (360 mm liquid) has a 360 mm radiator; test case "
                   "takes radiators at: front 240/280; top 240; bottom 120 mm.",
                   "Liquid Freezer III Pro 360 (360 mm liquid) 的冷排为 360 mm；"
                   "test case 的冷排位：前置 240/280；顶部 240；底部 120 mm。"),
        fix=Msg("Choose a cooler with a radiator size the case takes, or a case with a 360 mm "
                "mount.", "选择机箱支持尺寸的水冷，或带 360 mm 冷排位的机箱。"),
        source=FIT_SOURCE, numbers={"radiator_mm": 360.0})]


def test_a_radiator_thicker_than_the_roomiest_of_its_mounts_word_for_word() -> None:
    mounts = (RadiatorMount("front", (240, 360), 55.0), RadiatorMount("top", (360,), 60.0),
              RadiatorMount("side", (240,), 80.0))
    cat = _cat(**{"test-case": (DEFINE7C, "test case", {"radiator_mounts": mounts}),
                  "test-63": (LIQUID, "test cooler", {"radiator_thickness_mm": 63.0}),
                  "test-60": (LIQUID, "test cooler", {"radiator_thickness_mm": 60.0})})
    # Two 360 mm mounts, 55 and 60 mm of room (the 80 mm side mount takes no 360): 63 > 60.
    assert _check(("test-63", 1), ("test-case", 1), cat=cat) == [Finding(
        code="fit.radiator_thickness", severity=Severity.BLOCKER,
        title=Msg("The radiator is too thick for the case's mount", "冷排过厚，机箱冷排位装不下"),
        detail=Msg("test cooler's radiator with fans is 63 mm thick; test case's 360 mm mounts "
                   "take up to 60 mm.",
                   "test cooler 冷排加风扇厚 63 mm；test case 的 360 mm 冷排位最厚 60 mm。"),
        fix=Msg("Choose a thinner radiator or a case with more room at that mount.",
                "选择更薄的冷排，或该位置空间更大的机箱。"),
        source=FIT_SOURCE, numbers={"radiator_thickness_mm": 63.0, "max_thickness_mm": 60.0})]
    assert _check(("test-60", 1), ("test-case", 1), cat=cat) == []  # 60 in the top's 60


def test_a_mount_of_unknown_room_is_not_judged_and_an_air_cooler_has_no_radiator() -> None:
    mounts = (RadiatorMount("front", (360,), 55.0), RadiatorMount("top", (360,), None))
    cat = _cat(**{"test-case": (DEFINE7C, "test case", {"radiator_mounts": mounts}),
                  "test-63": (LIQUID, "test cooler", {"radiator_thickness_mm": 63.0}),
                  "test-air": (LIQUID, "test cooler", {"kind": "air",
                                                      "radiator_thickness_mm": 63.0}),
                  "test-no-size": (LIQUID, "test cooler", {"radiator_mm": None})})
    # The top mount might take 63 mm: nothing said.
    assert _check(("test-63", 1), ("test-case", 1), cat=cat) == []
    assert _check(("test-air", 1), ("test-case", 1), cat=cat) == []
    assert _check(("test-no-size", 1), ("test-case", 1), cat=cat) == []
    # With every mount's room known (55 mm), 63 mm is too thick.
    known = _cat(**{"test-case": (DEFINE7C, "test case", {"radiator_mounts": mounts[:1]}),
                    "test-63": (LIQUID, "test cooler", {"radiator_thickness_mm": 63.0})})
    assert [f.numbers for f in _check(("test-63", 1), ("test-case", 1), cat=known)] == [
        {"radiator_thickness_mm": 63.0, "max_thickness_mm": 55.0}]


# --- the case's expansion slots --------------------------------------------------------------


def _slots_finding(need: float, have: int, case: str) -> Finding:
    return Finding(
        code="fit.case_slots", severity=Severity.BLOCKER,
        title=Msg("The case has too few expansion slots for the GPUs",
                  "机箱扩展槽位不够放下显卡"),
        detail=Msg(f"The cards need {need:g} expansion slots; {case} has {have}.",
                   f"显卡共需 {need:g} 个扩展槽位；{case} 只有 {have} 个。"),
        fix=Msg("Choose a full tower with more expansion slots, or thinner cards.",
                "选择扩展槽位更多的全塔机箱，或更薄的显卡。"),
        source=FIT_SOURCE, numbers={"slots_needed": need, "slots": have})


def test_the_last_cards_slot_and_thickness_set_the_expansion_slots() -> None:
    # Slots at positions 3 and 7 (4 apart, 3-slot cards fit); the second card starts at slot
    # 7 and takes 3: 7 - 1 + 3 = 9 expansion slots, one more than the 7000D's 8.
    assert _check((X870E, 1), (RTX_4090, 2), (C7000D, 1)) == [
        _slots_finding(9, 8, "7000D AIRFLOW (E-ATX full tower, black, CC-9011218-WW)")]
    roomy = _cat(**{"test-case": (C7000D, "test case", {"expansion_slots": 9})})
    assert _check((X870E, 1), (RTX_4090, 2), ("test-case", 1), cat=roomy) == []


def test_without_slot_positions_the_thicknesses_add_up() -> None:
    # Two 2-slot cards on a board whose slot positions are unknown: 2 + 2 = 4 slots.
    cat = _cat(**{"test-card": (RTX_4090, "test card", {"slot_width": 2.0}),
                  "test-3": (C7000D, "test case", {"expansion_slots": 3}),
                  "test-4": (C7000D, "test case", {"expansion_slots": 4})})
    assert _check((Z790, 1), ("test-card", 2), ("test-3", 1), cat=cat) == [
        _slots_finding(4, 3, "test case")]
    assert _check((Z790, 1), ("test-card", 2), ("test-4", 1), cat=cat) == []
    # A case whose slot count is unknown is not judged.
    unknown = _cat(**{"test-card": (RTX_4090, "test card", {"slot_width": 2.0}),
                      "test-case": (C7000D, "test case", {"expansion_slots": None})})
    assert _check((Z790, 1), ("test-card", 2), ("test-case", 1), cat=unknown) == []


# --- a cooler of unknown rating --------------------------------------------------------------


def _unrated(cooler: str, cpu: str, watts: float) -> Finding:
    return Finding(
        code="fit.cooler_unrated", severity=Severity.ADVICE,
        title=Msg("The CPU cooler's heat rating is unknown", "CPU 散热器的额定散热未知"),
        detail=Msg(f"The catalog has no heat-load rating for {cooler}; {cpu} draws up to "
                   f"{watts:.0f} W under long all-core loads.",
                   f"目录中没有 {cooler} 的额定散热数据；{cpu} 长时间全核负载时最高 "
                   f"{watts:.0f} W。"),
        fix=Msg(f"Check the maker's rating or a review's sustained-load test for at least "
                f"{watts:.0f} W, or set a lower CPU power limit.",
                f"查阅厂商额定值或评测中的持续负载测试，确认可承受至少 {watts:.0f} W，"
                "或调低 CPU 功耗上限。"),
        source=COOLER_SOURCE, numbers={"cpu_w": watts})


def test_an_unrated_cooler_on_a_cpu_above_125_w_word_for_word() -> None:
    cooler = "Liquid Freezer III Pro 360 (360 mm liquid)"
    assert _check((I9, 1), (LIQUID, 1)) == [_unrated(cooler, "Core i9-13900K", 253)]
    # 125 W is Intel's K-series base power: at it, nothing; 126 W base, no maximum: the base.
    cat = _cat(**{"test-125": (I9, "test cpu", {"max_turbo_power_w": 125.0}),
                  "test-126": (I9, "test cpu", {"tdp_w": 126.0, "max_turbo_power_w": None}),
                  "test-none": (I9, "test cpu", {"tdp_w": None, "max_turbo_power_w": None})})
    assert _check(("test-125", 1), (LIQUID, 1), cat=cat) == []
    assert _check(("test-126", 1), (LIQUID, 1), cat=cat) == [_unrated(cooler, "test cpu", 126)]
    assert _check(("test-none", 1), (LIQUID, 1), cat=cat) == []


# --- sockets ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("cooler", "cpu", "fits"), [
    ("LGA115x", "LGA1151", True), ("LGA115x", "lga 1155", True), ("LGA115x", "LGA1200", False),
    ("lga 1700", "LGA1700", True), ("AM5", "AM4", False), ("sTR5", "STR5", True),
    ("AX", "AX", True), ("AX", "A1", False),    # two characters: an "x" is a letter
    ("ABX", "AB1", True), ("ABX", "AC1", False),  # three: a trailing "x" stands for the rest
    ("LGA2011-3", "LGA2011", False),
])
def test_socket_families_and_exact_names(cooler, cpu, fits) -> None:
    assert socket_matches(cooler, cpu) is fits


# --- GPU length, cooler ratings at their edges ------------------------------------------------


def test_each_card_is_measured_not_only_the_first() -> None:
    # The Krater X takes 340 mm: the RTX 4090's 304 mm fits, a 350 mm card after it does not.
    cat = _cat(**{"test-card": (RTX_4090, "test card", {"length_mm": 350.0})})
    found = _check(("nfortec-krater-x", 1), (RTX_4090, 1), ("test-card", 1), cat=cat)
    assert [(f.code, f.numbers) for f in found] == [
        ("fit.gpu_length", {"gpu_length_mm": 350.0, "max_gpu_length_mm": 340.0})]


def test_a_cooler_rated_at_exactly_the_cpus_base_or_maximum_power() -> None:
    # Core i5-12400F: 65 W base, 117 W maximum. Rated 65 W: not below the base, below the
    # maximum (advice); rated 117 W: below neither.
    cpu = "intel-core-i5-12400f"
    cat = _cat(**{"test-65": ("thermalright-axp120-x67", "test cooler", {"rated_heat_w": 65.0}),
                  "test-117": ("thermalright-axp120-x67", "test cooler",
                               {"rated_heat_w": 117.0})})
    [advice] = _check((cpu, 1), ("test-65", 1), cat=cat)
    assert (advice.code, advice.severity, advice.numbers) == (
        "fit.cooler_rating", Severity.ADVICE, {"rated_heat_w": 65.0, "cpu_w": 117.0})
    assert "Core i5-12400F's maximum power is 117 W" in advice.detail.en
    assert _check((cpu, 1), ("test-117", 1), cat=cat) == []


# --- cards side by side ----------------------------------------------------------------------

SPACING_FIX = Msg("Use blower-style or liquid-cooled cards (2 slots), a workstation board with "
                  "wider slot spacing (TRX50, WRX90, W790), or riser cables into a chassis made "
                  "for them.",
                  "改用涡轮（鼓风）式或水冷显卡（2 槽），或槽间距更大的工作站主板"
                  "（TRX50、WRX90、W790），或使用延长线配合相应机箱。")


def test_the_second_pair_of_slots_too_close_word_for_word() -> None:
    # Z890 AORUS MASTER: x16 slots at 2, 6 and 7. Three 3-slot cards: 2 -> 6 is 4 apart
    # (fits), 6 -> 7 is 1 apart (the card in slot 6 covers slot 7).
    z890 = "gigabyte-z890-aorus-master"
    assert load_catalog().get(z890).motherboard.x16_slot_positions == (2, 6, 7)
    assert _check((z890, 1), (RTX_4090, 3)) == [Finding(
        code="fit.gpu_slot_spacing", severity=Severity.BLOCKER,
        title=Msg("The GPUs do not fit side by side", "显卡并排插不下"),
        detail=Msg("GeForce RTX 4090 is 3 slots thick; Z890 AORUS MASTER's x16 slots 6 and 7 "
                   "are 1 slot apart, so it covers the next one.",
                   "GeForce RTX 4090 厚 3 槽；Z890 AORUS MASTER 的 x16 插槽 6 与 7 相距 1 槽，"
                   "会挡住下一个插槽。"),
        fix=SPACING_FIX, source=FIT_SOURCE, numbers={"slot_width": 3.0, "slot_gap": 1.0})]
    # Two 4.5-slot cards in slots 3 and 7 of the X870E (4 apart): the first covers the next.
    cat = _cat(**{"test-card": (RTX_4090, "test card", {"slot_width": 4.5})})
    [wide] = _check((X870E, 1), ("test-card", 2), cat=cat)
    assert wide.detail.en == ("test card is 4.5 slots thick; ROG STRIX X870E-E GAMING WIFI's "
                              "x16 slots 3 and 7 are 4 slots apart, so it covers the next one.")
    assert _check((X870E, 1), (RTX_4090, 2)) == []  # 3 slots in a gap of 4


def test_thick_cards_on_a_board_of_unknown_slot_positions_word_for_word() -> None:
    # ROG MAXIMUS Z790 FORMULA: slot positions not in the catalog. Two 3-slot cards in a case
    # with 5 expansion slots: the warning, then 3 + 3 = 6 slots needed.
    cat = _cat(**{"test-case": (C7000D, "test case", {"expansion_slots": 5})})
    assert _check((Z790, 1), (RTX_4090, 2), ("test-case", 1), cat=cat) == [Finding(
        code="fit.gpu_slot_spacing_unknown", severity=Severity.WARNING,
        title=Msg("Check that the GPUs fit side by side", "请确认显卡能否并排安装"),
        detail=Msg("2 cards up to 3 slots thick; the catalog does not have ROG MAXIMUS Z790 "
                   "FORMULA's slot positions. Two cards this thick do not fit in adjacent x16 "
                   "slots: each needs its thickness in free slots below it.",
                   "2 块显卡，最厚 3 槽；目录中没有 ROG MAXIMUS Z790 FORMULA 的插槽位置。"
                   "这么厚的两块卡无法插在相邻的 x16 插槽上："
                   "每块卡下方需要留出与其厚度相同的空位。"),
        fix=SPACING_FIX, source=FIT_SOURCE, numbers={"cards": 2.0, "slot_width": 3.0}),
        _slots_finding(6, 5, "test case")]


def test_cards_of_two_and_a_half_slots_need_no_spacing_check() -> None:
    # 2.5 slots is the thickest that fits next to another x16 slot on most boards: no
    # warning, only the case's slots (2.5 + 2.5 = 5 needed, 4 in the case).
    cat = _cat(**{"test-card": (RTX_4090, "test card", {"slot_width": 2.5}),
                  "test-case": (C7000D, "test case", {"expansion_slots": 4})})
    assert _check((Z790, 1), ("test-card", 2), cat=cat) == []
    assert _check((Z790, 1), ("test-card", 2), ("test-case", 1), cat=cat) == [
        _slots_finding(5, 4, "test case")]
    # A card of unknown thickness: nothing is judged.
    unknown = _cat(**{"test-card": (RTX_4090, "test card", {"slot_width": None})})
    assert _check((Z790, 1), (RTX_4090, 1), ("test-card", 1), cat=unknown) == []


# --- passive cards and GPU modules -----------------------------------------------------------

PASSIVE_SOURCE = Msg("NVIDIA data sheets: passively cooled data-centre cards rely on the server "
                     "chassis' airflow (docs/hardware-sources.md section 6)",
                     "NVIDIA 数据手册：被动散热的数据中心卡依靠服务器机箱风道（硬件参考第 6 节）")


def _passive(names: str, names_zh: str, where: Msg) -> Finding:
    return Finding(
        code="fit.passive_gpu", severity=Severity.WARNING,
        title=Msg("Passively cooled GPUs need server airflow", "被动散热 GPU 需要服务器风道"),
        detail=Msg(f"{names} have no fan and rely on the chassis pushing air through their "
                   f"heatsink; {where.en}. In a desktop case they overheat and throttle.",
                   f"{names_zh} 没有风扇，依靠机箱强制风流通过散热片；{where.zh}。"
                   "放在台式机箱中会过热降频。"),
        fix=Msg("Use a GPU server chassis with front-to-back airflow, or actively cooled "
                "workstation cards (RTX 6000 Ada).",
                "使用前进后出风道的 GPU 服务器机箱，或改用主动散热的工作站显卡（RTX 6000 Ada）。"),
        source=PASSIVE_SOURCE, numbers={})


def test_passive_cards_in_a_desktop_case_or_without_a_case_word_for_word() -> None:
    h100, l40s = "nvidia-h100-pcie", "nvidia-l40s"
    assert _check((l40s, 2), (h100, 1), (DEFINE7C, 1)) == [_passive(
        "H100 PCIe 80GB, L40S", "H100 PCIe 80GB、L40S",
        Msg("Define 7 Compact (ATX mid-tower) is a desktop case",
            "Define 7 Compact (ATX mid-tower) 是台式机箱"))]
    assert _check((l40s, 2)) == [_passive(
        "L40S", "L40S", Msg("the build has no server chassis", "配置中没有服务器机箱"))]
    rack = _cat(**{"test-case": (DEFINE7C, "test case", {"kind": "rackmount"})})
    assert _check((l40s, 2), ("test-case", 1), cat=rack) == []


def test_a_gpu_module_on_a_pc_board_word_for_word() -> None:
    jetson = "nvidia-jetson-agx-orin-64gb"
    cat = _cat(**{"test-module": (jetson, "test module", {})})
    detail = ("{} is a system-on-module with its own CPU and memory; it mounts on its own "
              "carrier board, not in a PCIe slot.")
    assert _check((Z790, 1), (jetson, 1), ("test-module", 1), cat=cat) == [Finding(
        code="fit.gpu_module", severity=Severity.BLOCKER,
        title=Msg("A GPU module does not plug into a PC board", "GPU 模组不能插在 PC 主板上"),
        detail=Msg(detail.format("Jetson AGX Orin 64GB (module), test module"),
                   "Jetson AGX Orin 64GB (module)、test module 是自带 CPU 和内存的系统模组，"
                   "安装在专用载板上，不能插在 PCIe 插槽中。"),
        fix=Msg("Quote it as its own system (with its carrier board), or choose a PCIe card.",
                "将其作为独立系统（含载板）报价，或改选 PCIe 显卡。"),
        source=Msg("vendor form-factor specifications", "厂商外形规格"), numbers={})]
    assert _check((jetson, 1)) == []  # no PC board: a module quoted as its own system


# --- found by the run of these tests (docs/testing.md sec. 13) ----------------------------------


def test_a_board_of_unknown_form_is_not_judged_against_the_case() -> None:
    cat = _cat(**{"test-board": (TRX50, "test board", {"form_factor": None})})
    assert _check(("test-board", 1), (DEFINE7C, 1), cat=cat) == []


def test_the_last_cards_own_thickness_counts() -> None:
    # A 2-slot card in slot 3 and a 3-slot one in slot 7 of the X870E: 7 - 1 + 3 = 9 slots,
    # one more than the 7000D's 8 (the first card's 2 slots would make it 8).
    cat = _cat(**{"test-card": (RTX_4090, "test card", {"slot_width": 2.0})})
    assert _check((X870E, 1), ("test-card", 1), (RTX_4090, 1), (C7000D, 1), cat=cat) == [
        _slots_finding(9, 8, "7000D AIRFLOW (E-ATX full tower, black, CC-9011218-WW)")]
