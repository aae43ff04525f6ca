"""The plan check in a child process: the result comes back whole, a refusal in both languages,
a crash or a cancel without taking the caller down."""

from __future__ import annotations

import signal
import threading
import time

import psutil
import pytest

pytest.importorskip("torch")

from torchrig.errors import InputError  # noqa: E402
from torchrig.planning.workload import workload_from_options  # noqa: E402
from torchrig.verify.child import MeasureFailed, run_verify_isolated  # noqa: E402
from torchrig.verify.compare import VerifyResult  # noqa: E402

pytestmark = pytest.mark.slow  # each test starts a Python that imports torch


def tiny_gpt(**extra):
    options = dict(task="nlp_transformer", mode="train", model="custom", style="gpt", layers=2,
                   hidden=64, heads=4, vocab=200, ffn=128, seq_len=16, batch=2,
                   precision="fp32")
    options.update(extra)
    return workload_from_options(**options)


def _children() -> list[psutil.Process]:
    return [p for p in psutil.Process().children(recursive=True)
            if "torchrig.verify.child" in " ".join(p.cmdline())]


@pytest.fixture(scope="module")
def measured_in_a_child(tmp_path_factory):
    """One real measurement in a child (its result and progress records), shared by the two
    tests that read it: each child imports torch, 5-8 s of the suite. The child gets folders
    of its own, as the function-scoped autouse fixture gives every test."""
    home = tmp_path_factory.mktemp("child-home")
    env = {"TORCHRIG_DATA_DIR": str(home / "data"), "TORCHRIG_CONFIG_DIR": str(home / "config"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data")}
    progress: list = []
    result = run_verify_isolated(tiny_gpt(), cancel=threading.Event(),
                                 progress=progress.append, device="cpu", env=env)
    return result, progress


def test_the_result_comes_back_as_the_child_measured_it(measured_in_a_child):
    result, progress = measured_in_a_child
    assert isinstance(result, VerifyResult)
    assert result.workload == tiny_gpt() and result.device == "cpu"
    assert result.row("weights").diff_percent == pytest.approx(0.0, abs=0.5)
    assert progress and progress[-1].done <= progress[-1].total
    # The document the child sent opens again as the same result.
    assert VerifyResult.from_dict(result.to_dict()) == result
    assert not _children()


def test_a_workload_that_cannot_be_measured_is_refused_in_both_languages():
    with pytest.raises(MeasureFailed) as refused:
        run_verify_isolated(workload_from_options(
            task="llm_inference", mode="infer", model="custom", style="llama", layers=2,
            hidden=64, heads=4, kv_heads=2, ffn=160, vocab=256, seq_len=32, batch=2,
            precision="int4"), cancel=threading.Event(), device="cpu")
    assert "int4" in refused.value.msg.en and refused.value.msg.zh != refused.value.msg.en


def test_a_device_this_machine_lacks_is_refused():
    with pytest.raises(MeasureFailed, match="cuda:7"):
        run_verify_isolated(tiny_gpt(), cancel=threading.Event(), device="cuda:7")


def test_a_killed_child_is_a_message_not_a_crash():
    def kill_on_first_progress(_record) -> None:
        for child in _children():
            child.send_signal(signal.SIGKILL)

    with pytest.raises(MeasureFailed) as ended:
        run_verify_isolated(tiny_gpt(layers=4, batch=8), cancel=threading.Event(),
                            progress=kill_on_first_progress, device="cpu")
    assert "SIGKILL" in ended.value.msg.en and "SIGKILL" in ended.value.msg.zh
    assert not _children()


def test_cancel_ends_the_child_and_returns_nothing():
    cancel = threading.Event()
    asked: list[float] = []

    def cancel_on_first_progress(_record) -> None:
        if not asked:
            asked.append(time.monotonic())
            cancel.set()

    assert run_verify_isolated(tiny_gpt(layers=4, batch=8), cancel=cancel,
                               progress=cancel_on_first_progress, device="cpu") is None
    assert asked and not _children()


def test_a_document_that_is_not_a_result_is_bad_input(measured_in_a_child):
    with pytest.raises(InputError, match="not a TorchRig verify result"):
        VerifyResult.from_dict({"format": "torchrig.bench-report"})
    good = measured_in_a_child[0].to_dict()
    broken = {**good, "rows": [{**good["rows"][0], "measured": "lots"}]}
    with pytest.raises(InputError, match=r"rows\[0\].*'measured' must be a number"):
        VerifyResult.from_dict(broken)
    # the image size the runs fed travels with the result, and is checked
    sized = {**good, "image_size_used": 96}
    assert VerifyResult.from_dict(sized).image_size_used == 96
    assert VerifyResult.from_dict(sized).to_dict()["image_size_used"] == 96
    for bad in (0, 2.5, True, "224", 70_000):
        with pytest.raises(InputError, match="'image_size_used' must be a whole number"):
            VerifyResult.from_dict({**good, "image_size_used": bad})
