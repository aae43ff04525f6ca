"""Every real benchmark once on the CPU at the tiny "smoke" sizes, plus their clean-up rules."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

pytest.importorskip("torch")

from honest import (  # noqa: E402
    assert_complete_or_cut_by_budget,
    assert_figures_finite,
    measured_or_left_out,
)

from torchrig.bench.base import BenchContext, Cancelled  # noqa: E402
from torchrig.bench.benchmarks import nets  # noqa: E402
from torchrig.bench.benchmarks.dataload import SyntheticImages, measure_workers, worker_counts  # noqa: E402
from torchrig.bench.benchmarks.h2d import pcie_rate_bps  # noqa: E402
from torchrig.bench.report import UNITS, BenchReport  # noqa: E402
from torchrig.bench.runner import run_suite  # noqa: E402
from torchrig.bench.settings import BenchSettings  # noqa: E402
from torchrig.hardware.model import CpuInfo, SystemProfile  # noqa: E402
from torchrig.units import GB, MiB  # noqa: E402


@pytest.fixture(scope="module")
def smoke_report(tmp_path_factory) -> BenchReport:
    """One run of the whole suite at smoke size, shared by the tests of this module (the run
    is most of this module's time).

    The run starts from a torch state that is not the default (TF32 matmul flipped), so the
    torch flags and thread count found after it say whether every benchmark put back what it
    changed (``settings["_torch_after"]``)."""
    import torch

    folder = tmp_path_factory.mktemp("dataset")
    profile = SystemProfile(cpu=CpuInfo(usable_cpus=2, cache_bytes={"L3": 4 * MiB},
                                        isa_features=["avx2"]))
    before_tf32 = torch.backends.cuda.matmul.allow_tf32
    before_threads = torch.get_num_threads()
    torch.backends.cuda.matmul.allow_tf32 = not before_tf32
    try:
        # train and checkpointing time their steps until they settle or their share of the
        # budget is spent (issue 27), so the budget sets this run's length: 28 s at 60 s,
        # 13-14 s at 25 s with two runs side by side on 2 cores (as under pytest -n 2), with
        # the same statuses and every figure measured in both (2026-12-07). Where a busy
        # machine still runs a benchmark out of time, it reads "partial" and says so, which
        # the test accepts.
        report = run_suite(BenchSettings(preset="smoke", device="cpu", dataset_dir=folder,
                                         budget_s=25),
                           cancel=threading.Event(), profile=profile)
        report.settings["_torch_after"] = {
            "allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "expected_tf32": not before_tf32,
            "threads": torch.get_num_threads(),
            "expected_threads": before_threads,
        }
    finally:
        torch.backends.cuda.matmul.allow_tf32 = before_tf32
    report.settings["_folder_after"] = sorted(p.name for p in folder.iterdir())
    return report


@pytest.mark.slow
def test_smoke_suite_runs_every_benchmark_on_cpu(smoke_report: BenchReport):
    """Every benchmark run on the CPU, each complete or cut short by the time budget with the
    budget named (a loaded machine may even use a benchmark's budget up before its first
    figure: it then says so), and every figure that was measured plausible. A figure is only
    ever missing where its result says the budget left it out."""
    statuses = {r.id: r.status for r in smoke_report.results}
    assert list(statuses) == ["matmul", "membw", "h2d", "train", "checkpointing", "dataload",
                              "storage", "cpu_matmul"]
    assert statuses["h2d"].startswith("skipped: no accelerator")
    for result in smoke_report.results:
        if result.id == "h2d":
            continue
        assert_complete_or_cut_by_budget(result, allow_skip=True)
        assert_figures_finite(result)
        for m in result.measurements:
            assert m.unit in UNITS
            # Ratios may be negative (AMP's bf16 weight copies can outweigh what it saves on
            # a toy model) and a count may be 0 workers; rates, sizes and times are positive.
            assert m.unit in ("ratio", "count") or m.value > 0, (result.id, m.id)
    assert any(r.measurements for r in smoke_report.results)  # the suite measured something
    r = smoke_report
    matmul = r.result("matmul")
    fp32 = measured_or_left_out(matmul, "fp32", "FP32 not measured")
    assert fp32 is None or fp32 > 1e8  # any CPU does 0.1 GFLOP/s
    # avx2 only in the given profile: no native 16-bit matmul, so neither is measured.
    assert r.value("matmul", "bf16") is None and r.value("cpu_matmul", "bf16") is None
    if matmul.state != "skipped":
        assert any("TF32" in n.en for n in matmul.notes)
    membw = r.result("membw")
    copy_rw = measured_or_left_out(membw, "copy_rw")
    if copy_rw is not None:
        assert copy_rw == pytest.approx(2 * membw.value("copy_once"))
        # >= 4x the profile's L3
        assert membw.measurement("copy_rw").details["buffer_bytes"] >= 4 * 4 * MiB
    train = r.result("train")
    # The same profile, the same rule for training (issue 27): no native bf16, so AMP is not
    # timed at all (a bf16 step costs tens of FP32 steps there) and the notes say why.
    if train.state != "skipped":
        assert any("AMP not measured: this CPU has no native bf16" in n.en for n in train.notes)
    for net, title in (("cnn", "ResNet-like CNN"), ("transformer", "Transformer encoder")):
        assert r.value("train", f"{net}_amp") is None
        assert train.measurement(f"{net}_amp_speedup") is None
        fp32 = measured_or_left_out(train, f"{net}_fp32", f"{title} not measured")
        assert fp32 is None or fp32 > 0
    ckpt = r.result("checkpointing")
    if measured_or_left_out(ckpt, "saved_bytes_checkpointed") is not None:
        assert ckpt.value("saved_bytes_checkpointed") < ckpt.value("saved_bytes_plain")
    saved = ckpt.measurement("memory_saved")
    assert saved is None or saved.reference.low == 0.6
    dataload = r.result("dataload")
    workers_0 = measured_or_left_out(dataload, "workers_0", "num_workers=0 and above")
    assert workers_0 is None or workers_0 > 0
    best = dataload.measurement("best_rate")
    assert best is None or (best.reference is not None and best.reference.kind == "measured")
    storage = r.result("storage")
    if measured_or_left_out(storage, "seq_read") is not None:
        assert storage.value("seq_read") > 0 and storage.value("small_read") > 0
        assert storage.measurement("seq_read").details["cached"] is False  # fadvise on Linux
    cpu_fp32 = measured_or_left_out(r.result("cpu_matmul"), "fp32", "FP32 not measured")
    assert cpu_fp32 is None or cpu_fp32 > 1e8
    assert r.settings["_folder_after"] == []  # storage removed its test files


@pytest.mark.slow
def test_the_suite_restores_torch_state(smoke_report: BenchReport):
    """matmul and cpu_matmul change TF32 and the thread count while they run; after the
    whole suite both are as before, including a non-default TF32 setting."""
    after = smoke_report.settings["_torch_after"]
    assert after["allow_tf32"] is after["expected_tf32"]
    assert after["threads"] == after["expected_threads"]


def test_saved_tensor_meter_counts_activations_not_parameters():
    import torch

    shape = nets.transformer_shape("cpu", "smoke")
    model = nets.build_transformer(shape)
    tokens = torch.randint(0, shape.vocab, (shape.batch, shape.seq))
    meter = nets.SavedTensorMeter(model.parameters())
    with meter.hooks():
        model(tokens).sum().backward()
    params = sum(p.numel() * 4 for p in model.parameters())
    logits = shape.batch * shape.seq * shape.vocab * 4
    assert meter.bytes > 0
    assert meter.bytes < params + 50 * logits  # no parameter storage double counted


def test_worker_counts():
    assert worker_counts(1) == [0, 1]
    assert worker_counts(2) == [0, 2]
    assert worker_counts(5) == [0, 2, 4, 5]
    assert worker_counts(16) == [0, 2, 4, 6, 8, 12, 16]


def test_dataloader_workers_are_shut_down_on_cancel():
    dataset = SyntheticImages(crop=16, length=100_000)
    cancel = threading.Event()
    ctx = BenchContext(settings=BenchSettings(preset="smoke"), device="cpu", cancel=cancel,
                       budget_s=30)
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    try:
        with pytest.raises(Cancelled):
            measure_workers(ctx, dataset, workers=2, batch=4, slot_s=30)
    finally:
        timer.join()
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


def test_dataloader_workers_are_shut_down_after_a_normal_run():
    ctx = BenchContext(settings=BenchSettings(preset="smoke"), device="cpu",
                       cancel=threading.Event(), budget_s=5)
    rate, first_batch_s, batches = measure_workers(ctx, SyntheticImages(crop=16), workers=1,
                                                   batch=4, slot_s=0.1)
    assert rate > 0 and batches >= 3 and first_batch_s > 0
    assert multiprocessing.active_children() == []


def test_synthetic_sample_shape_and_normalisation():
    dataset = SyntheticImages(crop=32)
    x, label = dataset[5]
    assert tuple(x.shape) == (3, 32, 32) and 0 <= label < 1000
    assert abs(float(x.mean())) < 5  # normalised, not raw 0..255 pixels


def test_pcie_rates():
    assert pcie_rate_bps(4, 16) == pytest.approx(31.5 * GB, rel=0.001)
    assert pcie_rate_bps(5, 16) == pytest.approx(63.0 * GB, rel=0.001)
    assert pcie_rate_bps(3, 8) == pytest.approx(7.88 * GB, rel=0.001)
    assert pcie_rate_bps(None, 16) is None and pcie_rate_bps(7, 16) is None
