"""Export-control finding facts that mutation testing (scripts/mutate.py builds.export_checks)
found unpinned: the whole finding for a part under two rules with two alternatives, in both
languages; one finding per part however many lines name it, in build order; custom lines and
listed-but-unknown alternatives; which builds count as sold in China; the shipped list read
once per catalog folder and none for a catalog built in memory. The controls are written in
the test (catalog/export_controls.py's records), so every word expected is the test's own.
"""

from __future__ import annotations

from torchrig.builds.build import Build, LineItem
from torchrig.builds.export_checks import export_checks, shipped_controls, sold_in_china
from torchrig.catalog import Catalog, load_catalog
from torchrig.catalog.export_controls import ControlledPart, ExportControls, ExportRule
from torchrig.findings import Severity
from torchrig.i18n import Msg

H100, A100, GPU, CPU = ("nvidia-h100-pcie", "nvidia-a100-80gb-sxm", "nvidia-rtx-4090",
                        "intel-core-i9-13900k")
R1 = ExportRule("r1", Msg("Rule one", "规则一"), "2022-10-07", "https://a.example/1",
                Msg("First.", "其一。"))
R2 = ExportRule("r2", Msg("Rule two", "规则二"), "2023-10-17", "https://b.example/2",
                Msg("Second.", "其二。"))


NOTE = Msg("Data-centre GPU.", "数据中心 GPU。")

# ECCN 3A090.a.1 as the finding cites it for a part whose catalog figures reach TPP 4,800
# (BIS interim final rule, Federal Register document 2023-23055, published 2023-10-25).
A1_EN = ("ECCN 3A090.a.1 (BIS interim final rule on advanced computing items, Federal Register "
         "document 2023-23055, 2023-10-25)")
A1_ZH = "ECCN 3A090.a.1（BIS 先进计算物项暂行最终规则，联邦公报文件号 2023-23055，2023-10-25）"
A1_URL = "https://www.federalregister.gov/d/2023-23055"


def _controls(alternatives: tuple[str, ...] = (GPU, CPU), note: Msg = NOTE) -> ExportControls:
    return ExportControls(note=Msg("n", "n"), rules={"r1": R1, "r2": R2}, parts={
        H100: ControlledPart(H100, (R1, R2), alternatives, note),
        A100: ControlledPart(A100, (R2,), (), Msg("", ""))})


def test_the_whole_finding_for_two_rules_and_two_alternatives() -> None:
    cat = load_catalog()
    h100, gpu, cpu = cat.get(H100), cat.get(GPU), cat.get(CPU)
    name = f"{h100.vendor} {h100.name}"
    alts = f"{gpu.vendor} {gpu.name}", f"{cpu.vendor} {cpu.name}"
    [finding] = export_checks(Build(name="t", line_items=[LineItem(part_id=H100)]), cat,
                              None, _controls())
    assert finding.code == "export.us_controls" and finding.severity is Severity.WARNING
    assert finding.title == Msg(f"{name} is under US export controls for China",
                                f"{name} 受美国对华出口管制")
    # The H100 PCIe's TPP: its datasheet FP8 3,026 TFLOPS with sparsity / 2 = 1,513 dense
    # (a derived catalog figure), x 8 bits = 12,104.
    assert finding.detail == Msg(
        f"{name} is listed under Rule one (2022-10-07, https://a.example/1); "
        "Rule two (2023-10-17, https://b.example/2): First. Second. Data-centre GPU. "
        "Its total processing performance (TPP) is 12,104 (dense FP8 Tensor 1,513 TFLOPS × 8 "
        f"bits, a derived catalog figure), at or above the 4,800 of {A1_EN}.",
        f"{name} 列于规则一（2022-10-07，https://a.example/1）；规则二（2023-10-17，"
        "https://b.example/2）：其一。其二。数据中心 GPU。其总处理性能（TPP）为 12,104（稠密 "
        f"FP8 Tensor 1,513 TFLOPS × 8 位，目录中的推算值），达到{A1_ZH}规定的 4,800。")
    assert finding.fix == Msg(f"Quote a China-market alternative instead: {alts[0]}, {alts[1]}.",
                              f"改用面向中国市场的替代型号：{alts[0]}、{alts[1]}。")
    assert finding.source == Msg(
        "Rule one, 2022-10-07, https://a.example/1; Rule two, 2023-10-17, https://b.example/2; "
        f"{A1_EN}, {A1_URL}",
        "规则一，2022-10-07，https://a.example/1；规则二，2023-10-17，https://b.example/2；"
        f"{A1_ZH}，{A1_URL}")
    assert finding.numbers == {"rules": 3.0, "alternatives": 2.0, "tpp": 12104.0,
                               "tpp_max": 12104.0}


def test_no_note_and_no_alternative() -> None:
    cat = load_catalog()
    a100 = cat.get(A100)
    name = f"{a100.vendor} {a100.name}"
    [finding] = export_checks(Build(name="t", line_items=[LineItem(part_id=A100)]), cat,
                              None, _controls())
    # An empty note leaves one space before the TPP sentence. The A100's TPP: its datasheet
    # FP16 tensor 312 TFLOPS (dense) x 16 bits = 4,992.
    assert finding.detail == Msg(
        f"{name} is listed under Rule two (2023-10-17, https://b.example/2): Second. "
        "Its total processing performance (TPP) is 4,992 (dense FP16 Tensor 312 TFLOPS × 16 "
        f"bits), at or above the 4,800 of {A1_EN}.",
        f"{name} 列于规则二（2023-10-17，https://b.example/2）：其二。其总处理性能（TPP）为 "
        f"4,992（稠密 FP16 Tensor 312 TFLOPS × 16 位），达到{A1_ZH}规定的 4,800。")
    assert finding.fix == Msg(
        "The list names no China-market alternative: choose another part.",
        "清单中没有面向中国市场的替代型号：请另选部件。")
    assert finding.numbers == {"rules": 2.0, "alternatives": 0.0, "tpp": 4992.0,
                               "tpp_max": 4992.0}


def test_an_alternative_the_catalog_lacks_is_named_by_its_id() -> None:
    cat = load_catalog()
    [finding] = export_checks(Build(name="t", line_items=[LineItem(part_id=H100)]), cat,
                              None, _controls(alternatives=("acme-gpu-x",)))
    assert finding.fix.en == "Quote a China-market alternative instead: acme-gpu-x."


def test_one_finding_per_part_in_build_order() -> None:
    cat = load_catalog()
    build = Build(name="t", line_items=[
        LineItem(text="rails", category="other"), LineItem(part_id=A100),
        LineItem(part_id=GPU), LineItem(part_id=H100, quantity=2), LineItem(part_id=A100),
        LineItem(part_id=H100, scope="cluster")])
    found = export_checks(build, cat, None, _controls())
    # A100 first, then the RTX 4090 (not on this list, but its catalog TPP range, 2,643 to
    # 5,286, holds 4,800: "may be"), then the H100; each cites ECCN 3A090.a.1 besides its rules.
    assert [f.numbers["rules"] for f in found] == [2.0, 1.0, 3.0]
    assert [f.title.en.split(" is ")[0].split(" may ")[0] for f in found] == [
        f"NVIDIA {cat.get(pid).name}" for pid in (A100, GPU, H100)]


def test_who_counts_as_sold_in_china() -> None:
    cny, usd = Build(name="c", currency="CNY"), Build(name="u", currency="USD")
    assert sold_in_china(cny, None) and sold_in_china(cny, "us")
    assert sold_in_china(usd, "cn")
    assert not sold_in_china(usd, None) and not sold_in_china(usd, "us")
    cat = load_catalog()
    line = [LineItem(part_id=H100)]
    usd_h100 = Build(name="u", currency="USD", line_items=line)
    assert export_checks(usd_h100, cat, "eu", _controls()) == []
    assert len(export_checks(usd_h100, cat, "cn", _controls())) == 1
    assert export_checks(Build(name="c", line_items=line), cat, "cn", None) == []


def test_the_shipped_list_beside_the_catalog() -> None:
    cat = load_catalog()
    shipped = shipped_controls(cat)
    assert shipped is not None
    # The shipped file (resources/catalog/export_controls.json) lists the H100 PCIe.
    assert shipped.get(H100) is not None
    assert shipped_controls(cat) is shipped            # read once per catalog folder
    memory = Catalog(parts=cat.parts, tiers=cat.tiers, seed_rules=cat.seed_rules,
                     sources=cat.sources)
    assert not memory.root and shipped_controls(memory) is None


def _folder_with(tmp_path, parts: list[dict]) -> str:
    import json

    doc = {"format": "torchrig-export-controls", "version": 1, "note": {"en": "n", "zh": "n"},
           "rules": [{"id": "r1", "title": {"en": "Rule one", "zh": "规则一"},
                      "date": "2022-10-07", "source": "https://a.example/1",
                      "summary": {"en": "First.", "zh": "其一。"}}],
           "parts": parts}
    (tmp_path / "catalog").mkdir()
    (tmp_path / "catalog" / "export_controls.json").write_text(json.dumps(doc),
                                                               encoding="utf-8")
    return str(tmp_path)


def test_the_list_is_read_from_the_catalogs_own_folder(tmp_path) -> None:
    cat = load_catalog()
    root = _folder_with(tmp_path, [{"part_id": GPU, "rules": ["r1"], "alternatives": [],
                                    "note": {"en": "", "zh": ""}}])
    mine = Catalog(parts=cat.parts, tiers=cat.tiers, seed_rules=cat.seed_rules,
                   sources=cat.sources, root=root)
    controls = shipped_controls(mine)
    # This folder's list names the RTX 4090 only, not the shipped list's H100.
    assert controls is not None and controls.get(GPU) is not None
    assert controls.get(H100) is None


def test_the_list_is_held_to_the_catalogs_parts(tmp_path) -> None:
    import pytest

    from torchrig.errors import InputError

    cat = load_catalog()
    root = _folder_with(tmp_path, [{"part_id": "acme-gpu-x", "rules": ["r1"],
                                    "alternatives": [], "note": {"en": "", "zh": ""}}])
    mine = Catalog(parts=cat.parts, tiers=cat.tiers, seed_rules=cat.seed_rules,
                   sources=cat.sources, root=root)
    with pytest.raises(InputError, match="acme-gpu-x"):
        shipped_controls(mine)
