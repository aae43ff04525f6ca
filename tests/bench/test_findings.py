"""bench_findings: each rule fires on the measurements it is about, and only then.

The reports below are hand-built inputs describing situations (a card in an x8 gen3 slot, a
slow disk); they test the rules, they are not results of any machine.
"""

from __future__ import annotations

from torchrig.bench.findings import bench_findings
from torchrig.bench.format import format_measurement, format_value
from torchrig.bench.report import BenchReport, BenchResult, Measurement, Reference
from torchrig.findings import Severity
from torchrig.hardware.model import GpuInfo, SystemProfile
from torchrig.i18n import Msg
from torchrig.units import GB, MB


def _m(mid: str, v: float, unit: str, ref: Reference | None = None, **details) -> Measurement:
    return Measurement(id=mid, label=Msg(mid, mid), value=v, unit=unit, reference=ref,
                       details=details)


def _ref(v: float, kind: str = "theoretical") -> Reference:
    return Reference(kind=kind, label=Msg("ref", "ref"), source="test", value=v)


def _report(device: str, *results: BenchResult) -> BenchReport:
    return BenchReport(settings={"preset": "quick"}, started="t", device=device,
                       results=list(results))


def _res(bench_id: str, *ms: Measurement, status: str = "ok") -> BenchResult:
    return BenchResult(id=bench_id, title=Msg(bench_id, bench_id), status=status,
                       measurements=list(ms))


def _codes(findings) -> set[str]:
    return {f.code for f in findings}


def test_slow_narrow_link_and_pageable_copies():
    h2d = _res("h2d",
               _m("pinned_h2d", 3.0 * GB, "B/s", _ref(7.88 * GB), pcie_gen=3, pcie_width=8),
               _m("pageable_h2d", 1.0 * GB, "B/s", _ref(7.88 * GB)))
    found = bench_findings(_report("cuda:0", h2d))
    assert _codes(found) == {"bench.pcie_link", "bench.h2d_slow", "bench.pin_memory"}
    link_finding = next(f for f in found if f.code == "bench.pcie_link")
    assert "gen3 x8" in link_finding.title.en and link_finding.numbers["pcie_width"] == 8
    assert found[0].severity is Severity.BOTTLENECK  # worst first


def test_healthy_link_gives_nothing():
    h2d = _res("h2d",
               _m("pinned_h2d", 26 * GB, "B/s", _ref(31.5 * GB), pcie_gen=4, pcie_width=16),
               _m("pageable_h2d", 20 * GB, "B/s", _ref(31.5 * GB)))
    assert bench_findings(_report("cuda:0", h2d)) == []


def test_link_from_profile_when_not_measured():
    profile = SystemProfile(gpus=[GpuInfo(index=0, torch_device="cuda:0", pcie_gen_current=4,
                                          pcie_width_current=4)])
    h2d = _res("h2d", _m("pinned_h2d", 6 * GB, "B/s", _ref(7.9 * GB)))
    assert "bench.pcie_link" in _codes(bench_findings(_report("cuda:0", h2d), profile))


def test_gpu_far_below_catalog_peak():
    matmul = _res("matmul", _m("bf16", 300e12, "FLOP/s", _ref(989e12, "spec_peak")),
                  _m("fp32", 60e12, "FLOP/s", _ref(67e12, "spec_peak")))
    profile = SystemProfile(gpus=[GpuInfo(index=0, torch_device="cuda:0", power_limit_w=300)])
    found = bench_findings(_report("cuda:0", matmul), profile)
    assert _codes(found) == {"bench.below_spec"}
    assert "300 W" in found[0].title.en and "bf16" in found[0].detail.en
    assert "fp32" not in found[0].detail.en


def test_disk_rules():
    storage = _res("storage", _m("seq_read", 150 * MB, "B/s", folder="/data", cached=False))
    assert _codes(bench_findings(_report("cpu", storage))) == {"bench.disk_hdd_level"}
    found = bench_findings(_report("cpu", storage), required_read_bps=272 * MB)
    assert _codes(found) == {"bench.disk_slow"}
    assert found[0].numbers == {"measured_bps": 150 * MB, "required_bps": 272 * MB}
    fast = _res("storage", _m("seq_read", 3 * GB, "B/s", folder="/d", cached=True))
    assert _codes(bench_findings(_report("cpu", fast), required_read_bps=272 * MB)) == {
        "bench.disk_cached"}


def test_cpu_cannot_feed_training_rate():
    dataload = _res("dataload",
                    _m("recommended_workers", 4, "count"),
                    _m("best_rate", 900, "samples/s", _ref(2400, "measured"), num_workers=8))
    found = bench_findings(_report("cuda:0", dataload))
    assert _codes(found) == {"bench.cpu_feed", "bench.num_workers"}
    feed = next(f for f in found if f.code == "bench.cpu_feed")
    assert feed.severity is Severity.BOTTLENECK and feed.source == "seed 4.2"
    ok = _res("dataload", _m("best_rate", 5000, "samples/s", _ref(2400, "measured")))
    assert bench_findings(_report("cuda:0", ok)) == []


def test_amp_slower_than_fp32():
    train = _res("train", _m("cnn_amp_speedup", 0.8, "ratio"),
                 _m("transformer_amp_speedup", 1.4, "ratio"))
    found = bench_findings(_report("cuda:0", train))
    assert _codes(found) == {"bench.amp_slower.cnn"}
    assert found[0].severity is Severity.WARNING
    assert bench_findings(_report("cpu", train))[0].severity is Severity.ADVICE


def test_failed_benchmarks_give_no_findings():
    h2d = _res("h2d", status="error: boom")
    storage = _res("storage", status="skipped: out of memory")
    assert bench_findings(_report("cuda:0", h2d, storage)) == []


def test_formatting_keeps_units_explicit():
    assert format_value(5.2e11, "FLOP/s") == "520.0 GFLOP/s"
    assert format_value(2.5e9, "B/s") == "2.50 GB/s"
    assert format_value(1.35, "ratio", "cnn_amp_speedup") == "1.35x"
    assert format_value(0.78, "ratio", "memory_saved") == "78%"
    assert format_value(None, "s") == "not measured"
    line = format_measurement(_m("bf16", 790e12, "FLOP/s", _ref(989.5e12, "spec_peak")))
    assert line == "bf16: 790.0 TFLOP/s  (80% of ref: 989.5 TFLOP/s)"


def test_busy_machine_is_reported():
    busy = _report("cpu")
    busy.environment = {"load_average_1min": 3.2, "usable_cpus": 2}
    assert _codes(bench_findings(busy)) == {"bench.busy_machine"}
    busy.environment = {"load_average_1min": 0.4, "usable_cpus": 2}
    assert bench_findings(busy) == []
