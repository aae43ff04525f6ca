"""Shared sheets for the report tests: a full one with every section, built by hand.

Figures here are test inputs for the renderer, not hardware facts: the renderer must show
whatever it is given, so the values only need to be distinct and easy to find in the text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from torchrig.builds.targets import Status
from torchrig.findings import Finding, Severity
from torchrig.i18n import Msg
from torchrig.report.sheet import (
    BenchRow,
    BomRow,
    BreakdownGroup,
    BreakdownItem,
    ClaimRow,
    ComparisonRow,
    Header,
    ScalingSeries,
    Sheet,
    SheetOptions,
    Totals,
)
from torchrig.units import GB, GiB


def bom_rows(n: int) -> tuple[BomRow, ...]:
    cats = ("gpu", "cpu", "memory", "storage", "motherboard", "psu", "network")
    return tuple(
        BomRow(category=cats[i % len(cats)], part=f"Part number {i:03d}",
               key_spec=f"spec line {i}", qty=1 + i % 3,
               unit_price=Decimal("100.25") + i, line_total=(Decimal("100.25") + i) * (1 + i % 3),
               price_kind="retail", price_source="TPU", price_date="2025-01")
        for i in range(n)
    )


def _finding(code: str, severity: Severity, title: tuple[str, str], detail: tuple[str, str],
             fix: tuple[str, str], source: str) -> Finding:
    return Finding(code, severity, Msg(*title), Msg(*detail), Msg(*fix), source)


def full_sheet(**changes: Any) -> Sheet:
    findings = (
        _finding("analysis.vram", Severity.BLOCKER, ("Model does not fit in VRAM", "显存不足"),
                 ("Needs 30.1 GiB, the GPU has 24.0 GiB.", "需要 30.1 GiB，显卡只有 24.0 GiB。"),
                 ("Use gradient checkpointing or a 48 GiB GPU.", "使用梯度检查点或 48 GiB 显卡。"),
                 "seed 3.3"),
        _finding("analysis.cpu", Severity.BOTTLENECK, ("CPU may starve the GPU", "CPU 瓶颈"),
                 ("6 cores for 8 loader workers.", "6 核对应 8 个加载进程。"),
                 ("Pick an 8-core CPU.", "选择 8 核 CPU。"), "seed 4.2"),
        _finding("compat.psu", Severity.WARNING, ("PSU headroom is thin", "电源余量不足"),
                 ("Peak 720 W of 850 W.", "峰值 720 W / 850 W。"),
                 ("Use 1000 W.", "使用 1000 W。"), "ATX12V rule"),
        _finding("analysis.overkill", Severity.OVERKILL, ("GPU is overkill for MNIST", "显卡过剩"),
                 ("Uses 3% of the GPU.", "只用到 3%。"),
                 ("A smaller GPU is enough.", "小显卡即可。"), "seed 4.1"),
        _finding("analysis.amp", Severity.ADVICE, ("Enable AMP", "启用混合精度"),
                 ("Tensor cores present.", "有 Tensor Core。"),
                 ("torch.amp.autocast('cuda')", "torch.amp.autocast('cuda')"), "seed 3.1"),
    )
    sheet = Sheet(
        header=Header(kind="quote", number="Q-2025-0042", date="2025-03-01", validity_days=14,
                      shop="Example Lab", customer="ACME Research", project="Vision project"),
        build_name="Professional workstation",
        tier_name="Professional (seed 2.2)",
        workload_name="ResNet-50 fine-tuning",
        bom=bom_rows(7),
        totals=Totals(currency="CNY", subtotal=Decimal("1500.00"), discount=Decimal("50.00"),
                      tax=Decimal("188.50"), tax_rate_percent=Decimal("13"),
                      total=Decimal("1638.50"), exchange_rate=Decimal("7.1"),
                      exchange_from="USD", exchange_to="CNY", exchange_date="2025-02-28",
                      notes=("Unit prices are rounded half-up to cents per line.",)),
        comparison=(
            ComparisonRow("CPU cores", ">= 8", "24 cores", Status.EXCEEDS, "2 cores",
                          Status.SHORT),
            ComparisonRow("VRAM per GPU", ">= 24 GiB", "24 GiB", Status.MEETS, None, None),
            ComparisonRow("Storage", "NVMe", "unknown", Status.UNKNOWN, "NVMe", Status.MEETS),
        ),
        comparison_tier="Professional (seed 2.2)",
        requirements=(
            BreakdownGroup("vram", "B", (BreakdownItem("weights", 2 * GiB),
                                         BreakdownItem("gradients", 2 * GiB),
                                         BreakdownItem("optimizer states", 8 * GiB),
                                         BreakdownItem("activations", 10 * GiB)),
                           capacity=24 * GiB, note="batch 64, bf16 autocast"),
            BreakdownGroup("ram", "B", (BreakdownItem("dataset cache", 20 * GiB),
                                        BreakdownItem("loader workers", 6 * GiB)),
                           capacity=64 * GiB),
            BreakdownGroup("storage", "B", (BreakdownItem("dataset", 150 * GB),
                                            BreakdownItem("checkpoints", 40 * GB)),
                           capacity=1000 * GB),
        ),
        requirement_notes=("Estimated from the workload; see the planning reference.",),
        bench=(
            BenchRow("Matmul BF16", 120e12, "FLOP/s", reference=165.2e12,
                     reference_label="spec peak RTX 4090", source="TPU"),
            BenchRow("Device memory copy", 850e9, "B/s", reference=1008e9,
                     reference_label="spec peak", source="TPU"),
            BenchRow("Pinned host to device", 22e9, "B/s", reference=31.5e9,
                     reference_label="PCIe 4.0 x16 theoretical", source="PCI-SIG"),
            BenchRow("Data loader", 1800.0, "samples/s"),
        ),
        bench_context="cuda, NVIDIA GeForce RTX 4090, 2025-03-01",
        claims=(
            ClaimRow("AMP speed-up", "30-50% faster (seed 3.1)", 1.42, "ratio",
                     measure_id="cnn_amp_speedup", low=1.3, high=1.5, source="seed 3.1"),
            ClaimRow("Checkpointing time cost", "10-20% more time (seed 3.3)", 0.31, "ratio",
                     measure_id="time_added", low=0.1, high=0.2, source="seed 3.3"),
            ClaimRow("AMP memory saving", "50% less memory (seed 3.1)", 0.38, "ratio",
                     measure_id="cnn_amp_memory_saving", value=0.5, source="seed 3.1"),
            ClaimRow("Checkpointing memory", "60-80% less (seed 3.3)", None, "ratio",
                     measure_id="memory_saved", low=0.6, high=0.8),
        ),
        scaling=(
            ScalingSeries("PCIe 4.0 (model)", ((1, 1.0), (2, 0.9), (4, 0.78), (8, 0.62))),
            ScalingSeries("NVLink (model)", ((1, 1.0), (2, 0.97), (4, 0.94), (8, 0.9))),
            ScalingSeries("measured", ((1, 1.0), (2, 0.88)), measured=True),
        ),
        findings=findings,
        build_json={"format": "torchrig.build", "version": 1, "name": "Professional workstation",
                    "lines": [{"part": "nvidia-rtx-4090", "qty": 1}]},
        options=SheetOptions(lang="en", invariant=True),
    )
    return replace(sheet, **changes)


def with_lang(sheet: Sheet, lang: str) -> Sheet:
    return replace(sheet, options=replace(sheet.options, lang=lang))


@pytest.fixture
def make_sheet() -> Callable[..., Sheet]:
    return full_sheet
