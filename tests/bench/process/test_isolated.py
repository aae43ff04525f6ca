"""run_isolated: the suite in a child process, followed through JSON lines."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from torchrig.bench.process.channel import BenchProcessError, describe_exit
from torchrig.bench.process.isolated import run_isolated
from torchrig.bench.process.protocol import settings_from_dict, settings_to_dict
from torchrig.bench.settings import BenchSettings
from torchrig.errors import InputError


def test_settings_cross_the_pipe_unchanged(tmp_path: Path):
    settings = BenchSettings(preset="full", device="cuda:1", only=("matmul", "h2d"),
                             dataset_dir=tmp_path, peaks={"fp32": 1e13}, budget_s=12.5)
    assert settings_from_dict(settings_to_dict(settings)) == settings


def test_exit_descriptions_name_the_signal_and_what_it_usually_means():
    assert "SIGKILL" in describe_exit(-signal.SIGKILL).en
    assert "out-of-memory" in describe_exit(-signal.SIGKILL).en
    assert "native code" in describe_exit(-signal.SIGSEGV).en
    assert describe_exit(3).en == "the benchmark process exited with code 3"


def test_events_arrive_in_order_and_the_report_comes_back():
    seen: list[str] = []
    report = run_isolated(BenchSettings(preset="smoke"), cancel=threading.Event(),
                          detect=False, registry="child_fakes:AB",
                          on_progress=lambda p: seen.append(f"p:{p.bench_id}"),
                          on_measurement=lambda m: seen.append(f"m:{m.id}"),
                          on_result=lambda r: seen.append(f"r:{r.id}"))
    assert [r.status for r in report.results] == ["ok", "ok"]
    assert seen == ["p:a"] * 3 + ["m:x", "r:a"] + ["p:b"] * 3 + ["m:x", "r:b"]
    assert report.machine_state is not None and "busy" in report.machine_state


def test_bad_settings_come_back_as_input_error():
    with pytest.raises(InputError, match="unknown benchmark zzz"):
        run_isolated(BenchSettings(only=("zzz",)), cancel=threading.Event(), detect=False,
                     registry="child_fakes:AB")


def test_a_child_that_cannot_start_is_one_clear_error():
    with pytest.raises(BenchProcessError, match="before measuring anything"):
        run_isolated(BenchSettings(), cancel=threading.Event(), detect=False,
                     registry="child_fakes:AB", python="/bin/false")


@pytest.mark.slow
def test_dataloader_workers_fork_safely_in_the_child():
    """The stdin watcher once held sys.stdin's lock while DataLoader forked its workers,
    which then hung for ever closing sys.stdin: a real smoke dataload must finish."""
    report = run_isolated(BenchSettings(preset="smoke", only=("dataload",)),
                          cancel=threading.Event(), detect=False)
    [result] = report.results
    assert result.ok, result.status
    assert result.measurement("best_rate") is not None
