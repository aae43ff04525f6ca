"""The plan check's child under the shared watchdog: stopped mid-measurement, it is ended and
named, and the caller gets one clear failure in both languages (a real torch child)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading

import psutil
import pytest

pytest.importorskip("torch")

from torchrig.planning.workload import workload_from_options  # noqa: E402
from torchrig.verify.child import MeasureFailed, run_verify_isolated  # noqa: E402

pytestmark = [pytest.mark.slow,  # the child imports torch
              pytest.mark.skipif(os.name != "posix", reason="SIGSTOP")]


def _children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True)
            if "torchrig.verify.child" in " ".join(p.cmdline())]


def test_a_stopped_measurement_child_is_ended_and_named():
    workload = workload_from_options(
        task="nlp_transformer", mode="train", model="custom", style="gpt", layers=4,
        hidden=64, heads=4, vocab=200, ffn=128, seq_len=16, batch=8, precision="fp32")
    stopped: list[int] = []

    def stop_on_first_progress(_record) -> None:
        if not stopped:
            for child in _children():
                child.send_signal(signal.SIGSTOP)
                stopped.append(child.pid)

    outcome: dict[str, BaseException] = {}

    def measure() -> None:
        try:
            run_verify_isolated(workload, cancel=threading.Event(),
                                progress=stop_on_first_progress, device="cpu", silence_s=1.0)
        except BaseException as exc:  # noqa: BLE001 - examined on the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    thread.join(120)  # a safety net against a wedged parent, not a measure of speed
    try:
        assert not thread.is_alive(), "the parent never returned: the watchdog did not fire"
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    [pid] = stopped
    failed = outcome.get("error")
    assert isinstance(failed, MeasureFailed), failed
    assert (f"the measurement process (pid {pid}) sent nothing for 1 s: it was stopped "
            "(SIGSTOP") in failed.msg.en
    assert "it was ended" in failed.msg.en
    assert f"pid {pid}" in failed.msg.zh and "暂停" in failed.msg.zh
    assert not _children()
