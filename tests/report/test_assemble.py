"""From core objects to a sheet: prices as pricing computed them, findings, tiers, benchmarks."""

from __future__ import annotations

import io
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pypdf
import pytest

from torchrig.bench.report import BenchReport, BenchResult, Measurement, Reference
from torchrig.builds.build import Build, Discount, ExchangeRate, LineItem, build_from_tier
from torchrig.builds.compat import check_build
from torchrig.builds.pricing import price_build
from torchrig.builds.targets import Status
from torchrig.catalog import load_catalog
from torchrig.catalog.model import Catalog, best_catalog_price
from torchrig.findings import Finding, Severity
from torchrig.hardware.model import CpuInfo, MemoryInfo, SystemProfile
from torchrig.i18n import Msg
from torchrig.report.assemble import assemble_sheet, bench_sections
from torchrig.report.pdf import render_sheet_bytes
from torchrig.report.sheet import Header, SheetOptions
from torchrig.report.values import fmt_money
from torchrig.units import GiB


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _text(pdf: bytes) -> str:
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)


def _priced_build(catalog: Catalog) -> Build:
    """The professional tier's starter build with a user price, a custom line, a discount and
    tax, so every money path of pricing shows up on the sheet."""
    build = build_from_tier("professional", catalog)
    lines = list(build.line_items)
    lines[0] = replace(lines[0], unit_price=Decimal("4299.00"), currency="CNY",
                       price_source="Supplier quote 17", price_date="2025-02-20")
    lines.append(LineItem(text="Tower case & fans", category="case", quantity=1,
                          unit_price=Decimal("120.00"), currency="USD"))
    lines.append(LineItem(text="On-site setup", category="service", quantity=1))
    return replace(build, line_items=lines, customer="ACME 研究所", project="Vision",
                   exchange_rate=ExchangeRate(Decimal("7.2"), "2025-02-28"),
                   discount=Discount("percent", Decimal("5")), tax_rate=Decimal("0.13"))


def _sheet(build: Build, catalog: Catalog, lang: str = "en", **kw):
    return assemble_sheet(build, catalog, header=Header(date="2025-03-01"), lang=lang,
                          options=SheetOptions(invariant=True), **kw)


@pytest.mark.parametrize("tier_id", ["entry", "professional", "enterprise"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tier_starter_builds_export(catalog: Catalog, tier_id: str, lang: str) -> None:
    build = build_from_tier(tier_id, catalog)
    sheet = _sheet(build, catalog, lang)
    assert len(sheet.bom) == len(build.line_items)
    assert sheet.build_json == build.to_dict()
    assert sheet.comparison, "a tier build is compared with its tier"
    pdf = render_sheet_bytes(sheet)
    assert len(pdf) < 500_000


def test_money_is_what_pricing_computed(catalog: Catalog) -> None:
    build = _priced_build(catalog)
    priced = price_build(build, catalog)
    sheet = _sheet(build, catalog)
    assert sheet.totals is not None
    assert sheet.totals.total == priced.total
    assert sheet.totals.subtotal == priced.subtotal
    assert sheet.totals.discount == priced.discount
    assert sheet.totals.tax == priced.tax
    assert sheet.totals.tax_rate_percent == Decimal("13")
    assert sheet.totals.missing_prices == len(priced.missing_price_lines) >= 1
    assert [row.line_total for row in sheet.bom] == [line.total for line in priced.lines]
    text = _text(render_sheet_bytes(sheet))
    assert f"CNY {fmt_money(priced.total)}" in text
    assert f"CNY {fmt_money(priced.subtotal)}" in text
    assert "1 USD = 7.2 CNY (as of 2025-02-28)" in text


def test_price_origin_is_shown(catalog: Catalog) -> None:
    sheet = _sheet(_priced_build(catalog), catalog)
    first = sheet.bom[0]
    assert (first.price_kind, first.price_source, first.price_date) == (
        "user", "Supplier quote 17", "2025-02-20")
    case = next(row for row in sheet.bom if row.part == "Tower case & fans")
    assert case.unit_price == Decimal("864.00")
    assert "converted from USD 120.00" in case.note
    setup = next(row for row in sheet.bom if row.part == "On-site setup")
    assert setup.unit_price is None and "price needed" in setup.note
    catalog_rows = [row for row in sheet.bom if row.price_kind not in (None, "user")]
    for row in catalog_rows:
        assert row.price_source and row.price_date


def test_node_multiplier_is_in_the_quantity(catalog: Catalog) -> None:
    build = replace(build_from_tier("professional", catalog), nodes=3)
    sheet = _sheet(build, catalog)
    priced = price_build(build, catalog)
    assert [row.qty for row in sheet.bom] == [line.quantity * 3 for line in priced.lines]
    assert all("× 3 nodes" in row.note for row in sheet.bom)


def test_compat_findings_are_included_once(catalog: Catalog) -> None:
    build = build_from_tier("entry", catalog)
    compat = check_build(build, catalog)
    extra = Finding("analysis.test", Severity.ADVICE, Msg("Extra", "额外"), Msg("d", "d"),
                    Msg("f", "f"), "test")
    sheet = _sheet(build, catalog, findings=[*compat, extra])
    assert list(sheet.findings) == [*compat, extra]


def test_machine_column_only_on_an_internal_sheet(catalog: Catalog) -> None:
    profile = SystemProfile(cpu=CpuInfo(physical_cores=2, logical_cpus=4),
                            memory=MemoryInfo(total_bytes=8 * GiB))
    build = build_from_tier("professional", catalog)
    customer = _sheet(build, catalog, profile=profile)
    assert all(row.machine is None for row in customer.comparison)
    assert "This machine" not in _text(render_sheet_bytes(customer))
    internal = assemble_sheet(build, catalog, header=Header(date="2025-03-01"), lang="en",
                              profile=profile,
                              options=SheetOptions(invariant=True, internal=True))
    cores = next(row for row in internal.comparison if row.dimension == "CPU cores")
    assert cores.machine == "2 cores"
    assert cores.machine_status is Status.SHORT
    assert "This machine" in _text(render_sheet_bytes(internal))


def test_workload_without_a_name_is_described_in_words(catalog: Catalog) -> None:
    from torchrig.planning.workload import load_workload

    root = Path(__file__).resolve().parents[2]
    workload = replace(load_workload(root / "workloads" / "llama2-7b-lora.json"), name="")
    build = build_from_tier("professional", catalog)
    en = _sheet(build, catalog, workload=workload).workload_name
    zh = _sheet(build, catalog, "zh", workload=workload).workload_name
    assert en is not None and zh is not None
    assert en.startswith("LoRA fine-tuning: ") and "AMP (bf16)" in en and "1 GPU" in en
    assert "1 GPUs" not in en and "llm_finetune_lora" not in en and "amp_bf16" not in en
    assert zh.startswith("LoRA 微调：")
    assert "自动混合精度（bf16）" in zh
    eight = _sheet(build, catalog, workload=replace(workload, gpus_per_node=8)).workload_name
    assert eight is not None and "8 GPUs" in eight


def test_comparison_names_storage_and_links_in_words(catalog: Catalog) -> None:
    sheet = _sheet(build_from_tier("enterprise", catalog), catalog)
    text = " ".join(f"{row.target} {row.build}" for row in sheet.comparison)
    assert "NVLink / InfiniBand" in text and "distributed storage" in text
    for code in ("NVLINK", "INFINIBAND", "DISTRIBUTED", "NVME"):
        assert code not in text
    professional = _sheet(build_from_tier("professional", catalog), catalog)
    storage = next(row for row in professional.comparison if row.dimension == "Storage")
    assert storage.target.startswith("NVMe / HDD")


def _report() -> BenchReport:
    peak = Reference("spec_peak", Msg("spec peak (catalog)", "规格峰值（目录）"), "TPU",
                     value=100e12)
    claim = Reference("seed_claim", Msg("30-50% faster (seed 3.1)", "提速 30%-50%（种子 3.1）"),
                      "seed 3.1", low=1.3, high=1.5)
    return BenchReport(
        settings={"preset": "quick"}, started="2025-03-01T10:00:00+00:00", device="cuda",
        device_name="Example GPU",
        results=[
            BenchResult("matmul", Msg("Matmul", "矩阵乘"), measurements=[
                Measurement("bf16", Msg("BF16", "BF16"), 61e12, "FLOP/s", peak)]),
            BenchResult("amp", Msg("AMP", "混合精度"), measurements=[
                Measurement("speedup", Msg("speed-up", "加速比"), 1.21, "ratio", claim)]),
            BenchResult("storage", Msg("Storage read", "存储读取"),
                        status="skipped: no dataset folder",
                        reason=Msg("no dataset folder given", "未指定数据集目录")),
        ],
    )


def test_bench_report_rows_and_claims() -> None:
    rows, claims = bench_sections(_report(), "en")
    assert [r.name for r in rows] == ["Matmul: BF16", "Storage read"]
    assert rows[0].percent == pytest.approx(61.0)
    assert rows[1].measured is None and rows[1].note == "no dataset folder given"
    assert len(claims) == 1 and claims[0].verdict == "below"


def test_bench_section_in_the_pdf(catalog: Catalog) -> None:
    sheet = _sheet(build_from_tier("professional", catalog), catalog, bench_report=_report())
    text = _text(render_sheet_bytes(sheet))
    assert "61.0 TFLOP/s" in text
    assert "61%" in text
    assert "below the claim" in text
    assert "no dataset folder given" in text
    # The matmul chart puts the measurement beside the spec peak and the tiers' GPUs.
    kinds = [row.kind for row in sheet.throughput]
    assert kinds[0] == "measured" and "spec" in kinds and kinds.count("tier") == 3
    assert "Matmul throughput" in text and "A100 80GB SXM4" in text


WORKLOADS = Path(__file__).resolve().parents[2] / "workloads"
BUILDS = Path(__file__).resolve().parents[2] / "builds"


def test_workload_adds_requirements_analysis_and_scaling(catalog: Catalog) -> None:
    from torchrig.builds.build import load_build
    from torchrig.planning.analysis import analyze
    from torchrig.planning.workload import load_workload

    build = load_build(BUILDS / "pro-dual-4090.json", catalog)
    workload = load_workload(WORKLOADS / "imagenet-resnet50-amp-8gpu.json")
    sheet = _sheet(build, catalog, workload=workload)
    from torchrig.builds.capabilities import from_build

    analysis = analyze(workload, from_build(build, catalog), catalog)
    groups = {g.group: g for g in sheet.requirements}
    assert set(groups) >= {"vram", "ram", "storage"}
    assert groups["vram"].total == pytest.approx(analysis.requirements.vram_total)
    assert groups["ram"].total == pytest.approx(
        analysis.requirements.system_ram["total"].value)
    gpu = catalog.get("nvidia-rtx-4090")
    assert groups["vram"].capacity == gpu.gpu.vram_bytes
    for finding in analysis.findings:
        assert finding in sheet.findings
    assert workload.name and sheet.workload_name == workload.name
    assert sheet.requirement_notes
    # One modelled curve per candidate GPU link plus the build's own (PCIe 4.0), drawn dashed
    # (not measured), from 1 GPU to the workload's 8.
    labels = [s.label for s in sheet.scaling]
    assert any("PCIe 4.0" in label and "Professional" in label for label in labels)
    assert any("NVLink 4" in label for label in labels)
    for series in sheet.scaling:
        assert series.points[0] == (1, 1.0) and series.points[-1][0] == 8
        assert not series.measured
    text = _text(render_sheet_bytes(sheet))
    assert "Workload requirements" in text and "Scaling efficiency vs GPU count" in text


def test_given_requirements_and_scaling_are_used_as_given(catalog: Catalog) -> None:
    from torchrig.planning.requirements import plan
    from torchrig.planning.workload import load_workload
    from torchrig.report.sheet import ScalingSeries

    workload = load_workload(WORKLOADS / "cifar10-resnet18.json")
    req = plan(workload)
    given = ScalingSeries("measured here", ((1, 1.0), (2, 0.9)), measured=True)
    sheet = _sheet(build_from_tier("entry", catalog), catalog, requirements=req,
                   scaling=[given])
    assert sheet.requirements
    assert sheet.scaling[0].label == "measured here"
    assert sheet.scaling[0].points == ((1, 1.0), (2, 0.9))


def test_old_prices_and_parts_out_of_production_are_flagged_on_the_quote(catalog: Catalog):
    """The RTX 4090 left production in October 2024 and its catalog price is its 2022 launch
    price: the internal sheet says both, judged on the sheet's date, in the sheet's language;
    the customer's copy says only the end of production (the price's age is the shop's)."""
    build = Build(name="flags", currency="USD",
                  line_items=[LineItem(part_id="nvidia-rtx-4090", quantity=1)])
    for lang, old, eol in (("en", "months old", "out of production"),
                           ("zh", "个月", "停产")):
        sheet = assemble_sheet(build, catalog, header=Header(date="2026-12-01"), lang=lang,
                               options=SheetOptions(invariant=True, internal=True))
        note = sheet.bom[0].note
        assert old in note and eol in note
        assert old in _text(render_sheet_bytes(sheet))
        customer = assemble_sheet(build, catalog, header=Header(date="2026-12-01"), lang=lang,
                                  options=SheetOptions(invariant=True)).bom[0].note
        assert eol in customer and old not in customer
    # A price from the month before the sheet's date is not old.
    fresh = replace(build, line_items=[LineItem(
        part_id="nvidia-rtx-4090", quantity=1, unit_price=Decimal("1999"), currency="USD",
        price_source="shop", price_date="2026-11-15")])
    sheet = assemble_sheet(fresh, catalog, header=Header(date="2026-12-01"), lang="en",
                           options=SheetOptions(invariant=True, internal=True))
    assert "months old" not in sheet.bom[0].note


def test_a_web_source_shows_its_site_linked_to_the_page(catalog: Catalog) -> None:
    """The customer's quote names the site a price comes from and links the full address,
    instead of a dozen lines of URL in the narrow column."""
    build = Build(name="links", currency="USD",
                  line_items=[LineItem(part_id="intel-core-i9-13900k", quantity=1)])
    pdf = render_sheet_bytes(_sheet(build, catalog))
    text = _text(pdf)
    source = best_catalog_price(catalog.get("intel-core-i9-13900k"), "USD").source
    assert source.startswith("https://www.pcgamer.com/")
    assert "pcgamer.com" in text and "intel-core-i9-14900k-review" not in text
    links = [annot.get_object().get("/A", {}).get("/URI")
             for page in pypdf.PdfReader(io.BytesIO(pdf)).pages
             for annot in page.get("/Annots", [])]
    assert source in links


def test_a_keyed_source_shows_its_name_linked_to_its_page(catalog: Catalog) -> None:
    """A price citing a sources.json key reads as the source's name ("PCPartPicker"), not as
    the catalog's key ("PCPP-DS"), and links the source's page."""
    cooler = next(p for p in catalog.by_category("cpu_cooler")
                  if any(price.source.startswith("PCPP-DS ") for price in p.prices))
    build = Build(name="keyed", currency="USD",
                  line_items=[LineItem(part_id=cooler.id, quantity=1)])
    sheet = _sheet(build, catalog)
    assert (sheet.bom[0].price_source, sheet.bom[0].price_source_url) == (
        "PCPartPicker", catalog.sources["PCPP-DS"].url)
    pdf = render_sheet_bytes(sheet)
    text = _text(pdf)
    assert "PCPartPicker" in text and "PCPP-DS" not in text
    links = [annot.get_object().get("/A", {}).get("/URI")
             for page in pypdf.PdfReader(io.BytesIO(pdf)).pages
             for annot in page.get("/Annots", [])]
    assert catalog.sources["PCPP-DS"].url in links


def test_a_supplier_quote_stays_words(catalog: Catalog) -> None:
    build = Build(name="quote", currency="USD", line_items=[LineItem(
        part_id="nvidia-rtx-4090", quantity=1, unit_price=Decimal("1999"), currency="USD",
        price_source="Supplier quote 17", price_date="2026-11-15")])
    row = _sheet(build, catalog).bom[0]
    assert (row.price_source, row.price_source_url) == ("Supplier quote 17", None)


def test_a_published_line_price_shows_its_kind(catalog: Catalog) -> None:
    """A tier's sourced estimate on a custom line reads as an estimate, not as the user's
    own price, and the totals say estimates are included."""
    build = Build(name="switch", currency="USD", line_items=[LineItem(
        text="NDR switch", category="switch", quantity=1, unit_price=Decimal("36000"),
        currency="USD", price_source="estimate: a cost sheet", price_date="2024-08",
        price_kind="estimate")])
    sheet = assemble_sheet(build, catalog, header=Header(date="2025-03-01"), lang="en",
                           options=SheetOptions(invariant=True, internal=True))
    assert sheet.bom[0].price_kind == "estimate"
    assert any("estimate" in note for note in sheet.totals.notes)
    # The analyst-estimate remark is the shop's: the customer's copy has the kind only.
    customer = _sheet(build, catalog)
    assert customer.bom[0].price_kind == "estimate"
    assert not any("estimate" in note for note in customer.totals.notes)
    own = replace(build, line_items=[replace(build.line_items[0], price_kind="")])
    assert _sheet(own, catalog).bom[0].price_kind == "user"
