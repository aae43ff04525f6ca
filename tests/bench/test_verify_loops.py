"""benchmarks/verify_loops.py: the alternated rounds behind bench_suite_verify.py's dataload
and collective rows (issue 27), with fake measures so the pairing, the ratios and the
commands are checked against hand computations, whatever the machine's load."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def loops():
    spec = importlib.util.spec_from_file_location("verify_loops_under_test",
                                                  HERE / "verify_loops.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_rounds_rotate_which_measure_runs_first(loops):
    log: list[str] = []

    def measure(name: str):
        return lambda: log.append(name) or name.upper()

    got = loops.rotate(3, [measure("a"), measure("b"), measure("c")])
    assert log == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert got == [["A", "B", "C"]] * 3  # results in the measures' order, whatever ran first
    log.clear()
    pairs = loops.alternate(4, measure("s"), measure("p"))
    assert log == ["s", "p", "p", "s", "s", "p", "p", "s"]
    assert pairs == [("S", "P")] * 4


def test_a_paired_figure_is_the_median_of_the_rounds_ratios(loops):
    p = loops.Paired("x", (300.0, 120.0, 500.0), (200.0, 100.0, 1000.0), "plain")
    # rounds: 1.5, 1.2, 0.5 -> median 1.2 (the ratio of the medians would be 300/200 = 1.5)
    assert p.ratios == pytest.approx([1.5, 1.2, 0.5])
    assert p.ratio == pytest.approx(1.2)
    assert p.described() == ("plain; 3 rounds alternating, median round ratio "
                             "(range 0.50-1.50)")


def test_collective_rows_pair_each_torchrig_launch_with_the_plain_loop_of_its_round(loops):
    calls: list[str] = []
    sizes = (1 << 20, 4 << 20)

    def fake(name: str, rates: list[dict[int, float]]):
        def measure(asked):
            assert tuple(asked) == sizes  # the same message sizes on every side
            calls.append(name)
            return rates.pop(0)
        return measure

    rows = loops.collective_pairs(
        2, sizes,
        suite=fake("local", [{1 << 20: 600.0, 4 << 20: 900.0}, {1 << 20: 500.0, 4 << 20: 800.0}]),
        suite_torchrun=fake("torchrun", [{1 << 20: 400.0, 4 << 20: 850.0},
                                         {1 << 20: 420.0, 4 << 20: 820.0}]),
        plain=fake("plain", [{1 << 20: 400.0, 4 << 20: 1000.0},
                             {1 << 20: 500.0, 4 << 20: 800.0}]))
    assert calls == ["local", "torchrun", "plain", "torchrun", "plain", "local"]
    names = [r.name for r in rows]
    assert names == [f"gloo all_reduce {s}, 2 processes, busbw, {h} (B/s)"
                     for s in ("1 MiB", "4 MiB") for h in ("TorchRig's launcher",
                                                            "under torchrun")]
    local_1m, torchrun_1m, local_4m, _ = rows
    assert local_1m.ratios == pytest.approx([600 / 400, 500 / 500])  # 1.5, 1.0
    assert local_1m.ratio == pytest.approx(1.25)
    assert torchrun_1m.ratios == pytest.approx([1.0, 420 / 500])
    assert local_4m.ratios == pytest.approx([0.9, 1.0])


def test_plain_busbw_checks_the_all_reduce_factor(loops):
    # 4 ranks: 2(n-1)/n = 1.5, so algbw 100 -> busbw 150 (docs/collective.md)
    good = {"world": 4, "rows": [{"bytes": 1024, "time_s": 1.0, "algbw": 100.0,
                                  "busbw": 150.0}]}
    assert loops.plain_busbw(good) == {1024: 150.0}
    bad = {"world": 4, "rows": [{"bytes": 1024, "time_s": 1.0, "algbw": 100.0,
                                 "busbw": 100.0}]}
    with pytest.raises(ValueError, match="2\\(n-1\\)/n"):
        loops.plain_busbw(bad)


def test_the_plain_loop_runs_under_torchrun_standalone_with_two_processes(loops, tmp_path):
    cmd = loops.torchrun_command([262144, 1048576], tmp_path / "o.json")
    assert cmd[1:5] == ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]
    assert cmd[5].endswith("plain_allreduce.py") and Path(cmd[5]).is_file()
    assert cmd[cmd.index("--sizes") + 1] == "262144,1048576"


class _Sleepy:
    """Samples that take at least 2 ms each: at most 500 samples/s on one process."""

    def __len__(self) -> int:
        return 10_000

    def __getitem__(self, i: int) -> int:
        time.sleep(0.002)
        return i


def test_the_plain_loader_loop_counts_samples_over_its_own_clock(loops):
    pytest.importorskip("torch")
    rate = loops.plain_loader_rate(_Sleepy(), 0, 4, 0.05)
    assert 20 < rate <= 500  # 2 ms a sample is the ceiling; a loaded machine only slows it
