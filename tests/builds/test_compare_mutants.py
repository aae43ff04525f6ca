"""Build comparison facts that mutation testing (scripts/mutate.py builds.compare) found
unpinned: every row of the side-by-side table for three builds (two nodes with every figure,
an empty build, an incomplete one), in both languages, and the ratios worked out by hand from
the catalog's figures and prices typed on the lines (so the totals are the test's own). The
rules are builds/compare.py's module doc: a ratio is unknown when a figure is, or when the
price is incomplete.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from torchrig.builds.build import Build, ExchangeRate, LineItem
from torchrig.builds.compare import compare_builds
from torchrig.builds.pricing import DefaultRate
from torchrig.catalog import load_catalog
from torchrig.i18n import Msg

GPU, CPU = "nvidia-rtx-4090", "intel-core-i9-13900k"
RAM = "kingston-fury-beast-64gb-ddr5-6000-kf560c36bbek2-64"
DRIVE = "western-digital-wd-black-sn850x-4tb"
PSU = "seasonic-focus-gx-1000-v4"
GiB, GB = 1024**3, 1000**3


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def _priced(part_id: str, quantity: int, price: str) -> LineItem:
    return LineItem(part_id=part_id, quantity=quantity, unit_price=Decimal(price),
                    currency="CNY")


def _full() -> Build:
    # Two nodes, each: 1 CPU at 4,000, 2 GPUs at 12,000, 1 RAM kit at 1,000, 1 drive at
    # 2,000, 1 PSU at 1,000 = 4,000 + 24,000 + 1,000 + 2,000 + 1,000 = 32,000 per node,
    # 64,000.00 for two.
    return Build(name="Two nodes", nodes=2, line_items=[
        _priced(CPU, 1, "4000"), _priced(GPU, 2, "12000"), _priced(RAM, 1, "1000"),
        _priced(DRIVE, 1, "2000"), _priced(PSU, 1, "1000")])


def _rows(cat, lang: str = "en", builds: list[Build] | None = None) -> dict[str, tuple]:
    rows = compare_builds(builds or [_full(), Build(name="Empty"), Build(
        name="Half", line_items=[LineItem(part_id=GPU), _priced(CPU, 1, "4000")])], cat, lang)
    return {row.label.en: row.values for row in rows}


def test_every_row_for_three_builds(cat) -> None:
    gpu, cpu = cat.get(GPU), cat.get(CPU)
    ram, drive, psu = cat.get(RAM), cat.get(DRIVE), cat.get(PSU)
    tflops = gpu.gpu.bf16_tensor_flops * 2 * 2 / 1e12    # per GPU x 2 GPUs x 2 nodes
    vram_gb = gpu.gpu.vram_bytes * 2 * 2 / GB
    rows = _rows(cat)
    assert list(rows) == [
        "Nodes", "CPU (per node)", "GPUs (per node)", "VRAM per GPU",
        "Tensor FP16/BF16 dense, all GPUs", "RAM (per node)", "Storage (per node)",
        "Power supply", "Total price", "Price per tensor TFLOP/s", "Price per GB of VRAM"]
    assert rows["Nodes"] == ("2", "1", "1")
    assert rows["CPU (per node)"] == (f"{cpu.name} ({cpu.cpu.cores} cores)", "unknown",
                                      f"{cpu.name} ({cpu.cpu.cores} cores)")
    assert rows["GPUs (per node)"] == (f"2 × {gpu.name}", "none", f"1 × {gpu.name}")
    assert rows["VRAM per GPU"] == (f"{gpu.gpu.vram_bytes / GiB:.0f} GiB", "unknown",
                                    f"{gpu.gpu.vram_bytes / GiB:.0f} GiB")
    assert rows["Tensor FP16/BF16 dense, all GPUs"] == (
        f"{tflops:,.1f} TFLOP/s", "unknown", f"{tflops / 4:,.1f} TFLOP/s")
    assert rows["RAM (per node)"] == (f"{ram.memory.total_bytes / GiB:.0f} GiB", "unknown",
                                      "unknown")
    assert rows["Storage (per node)"] == (
        f"NVMe {drive.storage.capacity_bytes / 1000**4:.1f} TB", "unknown drive",
        "unknown drive")
    assert rows["Power supply"] == (f"{psu.psu.wattage_w:.0f} W", "unknown", "unknown")
    # The third build's GPU takes the catalog's price, which changes as parts get sourced:
    # its price rows are pinned in the tests below with prices of the test's own.
    assert rows["Total price"][:2] == ("CNY 64,000.00", "CNY 0.00")
    assert rows["Price per tensor TFLOP/s"][:2] == (f"CNY {64000 / tflops:,.2f}", "unknown")
    assert rows["Price per GB of VRAM"][:2] == (f"CNY {64000 / vram_gb:,.2f}", "unknown")


def test_an_incomplete_price_has_no_ratios(cat) -> None:
    half = Build(name="Half", line_items=[
        LineItem(text="rack rails", category="other"),    # no price: incomplete
        _priced(GPU, 1, "12000")])
    rows = _rows(cat, builds=[half])
    assert rows["Total price"] == ("CNY 12,000.00 (incomplete)",)
    assert rows["Price per tensor TFLOP/s"] == ("unknown",)
    assert rows["Price per GB of VRAM"] == ("unknown",)
    zh = compare_builds([half], cat, "zh")
    assert zh[8].values == ("CNY 12,000.00（不完整）",)
    assert zh[9].values == ("未知",) and zh[10].values == ("未知",)


def test_the_rows_in_chinese(cat) -> None:
    gpu, cpu = cat.get(GPU), cat.get(CPU)
    rows = compare_builds([_full(), Build(name="Empty")], cat, "zh")
    assert [row.label for row in rows[:3]] == [
        Msg("Nodes", "节点数"), Msg("CPU (per node)", "CPU（每节点）"),
        Msg("GPUs (per node)", "GPU（每节点）")]
    assert [row.label.zh for row in rows[3:]] == [
        "单卡显存", "全部 GPU 的 FP16/BF16 稠密张量算力", "内存（每节点）", "存储（每节点）",
        "电源", "总价", "每 TFLOP/s 张量算力的价格", "每 GB 显存的价格"]
    by = {row.label.en: row.values for row in rows}
    assert by["CPU (per node)"] == (f"{cpu.name} ({cpu.cpu.cores} 核)", "未知")
    assert by["GPUs (per node)"] == (f"2 × {gpu.name}", "无")
    assert by["VRAM per GPU"][1] == "未知" and by["RAM (per node)"][1] == "未知"
    assert by["Storage (per node)"][1] == "未知类型硬盘"
    assert by["Power supply"][1] == "未知"
    assert by["Tensor FP16/BF16 dense, all GPUs"][1] == "未知"


def test_a_cpu_without_a_core_count_and_a_gpu_without_a_name(cat) -> None:
    from dataclasses import replace

    from torchrig.catalog import Catalog

    cpu, gpu = cat.get(CPU), cat.get(GPU)
    parts = dict(cat.parts)
    parts["cpu-x"] = replace(cpu, id="cpu-x", specs=replace(cpu.specs, cores=None))
    parts["gpu-x"] = replace(gpu, id="gpu-x", name="",
                             specs=replace(gpu.specs, bf16_tensor_flops=None,
                                           fp16_tensor_flops=None, vram_bytes=None))
    mine = Catalog(parts=parts, tiers=cat.tiers, seed_rules=cat.seed_rules, sources=cat.sources)
    build = Build(name="x", line_items=[_priced("cpu-x", 1, "1"), _priced("gpu-x", 1, "1")])
    rows = {row.label.en: row.values for row in compare_builds([build], mine, "en")}
    assert rows["CPU (per node)"] == (cpu.name,)
    assert rows["GPUs (per node)"] == ("1 × unknown",)
    assert rows["VRAM per GPU"] == ("unknown",)
    assert rows["Tensor FP16/BF16 dense, all GPUs"] == ("unknown",)
    assert rows["Price per tensor TFLOP/s"] == ("unknown",)
    assert rows["Price per GB of VRAM"] == ("unknown",)


def test_a_usd_line_is_priced_with_the_default_rate(cat) -> None:
    # 1 x USD 1,000 at 7.2 CNY per USD = CNY 7,200.00; without a rate: incomplete, CNY 0.00.
    build = Build(name="u", line_items=[LineItem(text="service", category="service",
                                                 unit_price=Decimal("1000"), currency="USD")])
    rate = DefaultRate(Decimal("7.2"), "2026-01-01", Msg("test", "测试"))
    [with_rate] = [r.values for r in compare_builds([build], cat, "en", default_rate=rate)
                   if r.label.en == "Total price"]
    assert with_rate == ("CNY 7,200.00",)
    [without] = [r.values for r in compare_builds([build], cat, "en")
                 if r.label.en == "Total price"]
    assert without == ("CNY 0.00 (incomplete)",)
    own = Build(name="o", exchange_rate=ExchangeRate(Decimal("7"), "2026-01-01"),
                line_items=build.line_items)
    [own_rate] = [r.values for r in compare_builds([own], cat, "en", default_rate=rate)
                  if r.label.en == "Total price"]
    assert own_rate == ("CNY 7,000.00",)      # the build's own rate wins
