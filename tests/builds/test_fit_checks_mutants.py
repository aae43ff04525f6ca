"""Physical fit (builds/fit_checks.py) word for word at the edges of each rule: GPU length and
cooler height against the case, the cooler's socket and heat rating against the CPU (mutation
testing, docs/testing.md sec. 11.1). Figures are the catalog's: the Krater X takes cards up to
340 mm and coolers up to 170 mm; the GeForce RTX 4090 is 304 mm long; the AXP120-X67 is a 67 mm
air cooler rated for 165 W on LGA115x/1200/1700/201x/2066 and AM4; the Core i5-12400F (LGA1700)
has a 65 W base and 117 W maximum power. Parts a test changes are named "test ...".
"""

from __future__ import annotations

from catalog_variants import catalog_with as _cat

from torchrig.builds.build import Build, LineItem
from torchrig.builds.check_node import Node
from torchrig.builds.fit_checks import fit_checks
from torchrig.catalog import Catalog, load_catalog
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg

CASE = "nfortec-krater-x"
GPU = "nvidia-rtx-4090"
COOLER = "thermalright-axp120-x67"
CPU = "intel-core-i5-12400f"
FIT_SOURCE = Msg("maker specifications (card length and thickness, case clearances, board "
                 "layout)", "厂商规格（显卡长度与厚度、机箱净空、主板布局）")
COOLER_SOURCE = Msg("cooler maker's heat-load rating; CPU maker's power figures",
                    "散热器厂商的散热功耗标称；CPU 厂商的功耗数据")




def _check(*lines: tuple[str, int], cat: Catalog | None = None) -> list[Finding]:
    build = Build(name="t", currency="USD",
                  line_items=[LineItem(part_id=p, quantity=q) for p, q in lines])
    return fit_checks(Node(build, cat or load_catalog()))


def test_a_card_one_millimetre_longer_than_the_case_takes() -> None:
    cat = _cat(**{"test-case-304": (CASE, "test case", {"max_gpu_length_mm": 304.0}),
                  "test-case-303": (CASE, "test case", {"max_gpu_length_mm": 303.0})})
    assert _check((CASE, 1), (GPU, 1)) == []  # 304 mm in 340
    assert _check(("test-case-304", 1), (GPU, 1), cat=cat) == []  # 304 in 304
    assert _check(("test-case-303", 1), (GPU, 1), cat=cat) == [Finding(
        code="fit.gpu_length", severity=Severity.BLOCKER,
        title=Msg("The GPU is too long for the case", "显卡过长，机箱装不下"),
        detail=Msg("GeForce RTX 4090 is 304 mm long; test case takes cards up to 303 mm (less "
                   "with a front radiator).",
                   "GeForce RTX 4090 长 304 mm；test case 最长支持 303 mm（装前置冷排时更短）。"),
        fix=Msg("Choose a case with at least 304 mm GPU clearance, or a shorter card.",
                "选择显卡限长不少于 304 mm 的机箱，或更短的显卡。"),
        source=FIT_SOURCE, numbers={"gpu_length_mm": 304.0, "max_gpu_length_mm": 303.0})]


def test_a_cooler_one_millimetre_taller_than_the_case_takes() -> None:
    cat = _cat(**{"test-cooler-170": (COOLER, "test cooler", {"height_mm": 170.0}),
                  "test-cooler-171": (COOLER, "test cooler", {"height_mm": 171.0})})
    assert _check((CASE, 1), ("test-cooler-170", 1), cat=cat) == []
    assert _check((CASE, 1), ("test-cooler-171", 1), cat=cat) == [Finding(
        code="fit.cooler_height", severity=Severity.BLOCKER,
        title=Msg("The CPU cooler is too tall for the case", "CPU 散热器过高，机箱装不下"),
        detail=Msg("test cooler is 171 mm tall; Krater X (E-ATX tower) takes coolers up to "
                   "170 mm.",
                   "test cooler 高 171 mm；Krater X (E-ATX tower) 最高支持 170 mm。"),
        fix=Msg("Choose a lower cooler, a liquid cooler or a wider case.",
                "选择更矮的散热器、水冷散热器或更宽的机箱。"),
        source=FIT_SOURCE, numbers={"cooler_height_mm": 171.0, "max_cooler_height_mm": 170.0})]


def test_a_cooler_without_the_cpu_socket_and_ratings_below_base_and_maximum_power() -> None:
    cat = _cat(**{"test-cooler-am4": (COOLER, "test cooler", {"sockets": ("AM4", "AM5")}),
                  "test-cooler-100": (COOLER, "test cooler", {"rated_heat_w": 100.0}),
                  "test-cooler-60": (COOLER, "test cooler", {"rated_heat_w": 60.0})})
    assert _check((CPU, 1), (COOLER, 1)) == []  # 165 W for 117 W, LGA1700 listed
    assert _check((CPU, 1), ("test-cooler-am4", 1), cat=cat) == [Finding(
        code="fit.cooler_socket", severity=Severity.BLOCKER,
        title=Msg("The CPU cooler does not mount on this socket", "CPU 散热器不支持该插槽"),
        detail=Msg("test cooler lists AM4, AM5; Core i5-12400F uses LGA1700.",
                   "test cooler 支持 AM4, AM5；Core i5-12400F 为 LGA1700。"),
        fix=Msg("Choose a cooler with a LGA1700 mount (or the maker's mounting kit).",
                "选择支持 LGA1700 的散热器（或厂商的扣具套件）。"),
        source=FIT_SOURCE)]

    def rating(heat: float, cpu_w: float, severity: Severity, which: Msg) -> Finding:
        return Finding(
            code="fit.cooler_rating", severity=severity,
            title=Msg("The CPU cooler is rated below the CPU's power",
                      "CPU 散热器额定散热低于 CPU 功耗"),
            detail=Msg(f"test cooler is rated for {heat:.0f} W; Core i5-12400F's {which.en} is "
                       f"{cpu_w:.0f} W. Under long all-core loads (data loading, preprocessing) "
                       "the CPU will clock down.",
                       f"test cooler 额定散热 {heat:.0f} W；Core i5-12400F 的{which.zh}为 "
                       f"{cpu_w:.0f} W。长时间全核负载（数据加载、预处理）时 CPU 会降频。"),
            fix=Msg(f"Choose a cooler rated for at least {cpu_w:.0f} W (a tower or a 360 mm "
                    "liquid cooler), or set a lower CPU power limit.",
                    f"选择额定散热不低于 {cpu_w:.0f} W 的散热器（塔式或 360 mm 水冷），"
                    "或调低 CPU 功耗上限。"),
            source=COOLER_SOURCE, numbers={"rated_heat_w": heat, "cpu_w": cpu_w})

    # 100 W: above the 65 W base, below the 117 W maximum: advice. 60 W: below the base: warning.
    assert _check((CPU, 1), ("test-cooler-100", 1), cat=cat) == [
        rating(100, 117, Severity.ADVICE, Msg("maximum power", "最大功耗"))]
    assert _check((CPU, 1), ("test-cooler-60", 1), cat=cat) == [
        rating(60, 65, Severity.WARNING, Msg("base power", "基础功耗"))]
