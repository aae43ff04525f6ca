"""run_ab's method: ratios from interleaved pairs, throughput from steps timed on their own."""

from __future__ import annotations

import threading

import pytest

torch = pytest.importorskip("torch")

from torchrig.bench.base import BenchContext  # noqa: E402
from torchrig.bench.benchmarks.trainloop import Variant, run_ab  # noqa: E402
from torchrig.bench.settings import BenchSettings  # noqa: E402


def _tiny() -> tuple[object, object, object]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    return model, torch.randn(4, 8), torch.randint(0, 4, (4,))


def _ctx() -> BenchContext:
    return BenchContext(settings=BenchSettings(preset="smoke", device="cpu"), device="cpu",
                        cancel=threading.Event(), budget_s=10)


def _recording(log: list[str], name: str) -> Variant:
    return Variant(amp=False, prepare=lambda: log.append(name))


def test_throughput_comes_from_steps_timed_back_to_back_after_the_pairs():
    model, x, y = _tiny()
    log: list[str] = []
    ab = run_ab(_ctx(), model, x, y, _recording(log, "a"), _recording(log, "b"),
                slice_s=0.3, batch=4)
    pairs = len(ab.ratios)
    # first() of each side, then the pairs alternating, then A alone, then B alone.
    interleaved = log[2:2 + 2 * pairs]
    assert sorted(interleaved) == ["a"] * pairs + ["b"] * pairs
    alone = log[2 + 2 * pairs:]
    a_alone = len(alone) - alone[::-1].index("a")
    assert alone[:a_alone] == ["a"] * a_alone and set(alone[a_alone:]) == {"b"}
    assert ab.a.repeats == a_alone >= 3
    assert ab.b.repeats == len(alone) - a_alone >= 3
    assert ab.a.spread["repeats"] == ab.a.repeats


def test_without_a_share_for_timing_alone_throughput_comes_from_the_pairs():
    model, x, y = _tiny()
    log: list[str] = []
    ab = run_ab(_ctx(), model, x, y, _recording(log, "a"), _recording(log, "b"),
                slice_s=0.2, batch=4, alone_share=0)
    assert len(log) == 2 + 2 * len(ab.ratios)
    assert ab.a.repeats == ab.b.repeats == len(ab.ratios)


def test_steps_timed_alone_span_a_minimum_window_even_when_they_settle_at_once(monkeypatch):
    # A step that sleeps 10 ms, and a settle rule that is always satisfied: the old loop
    # stopped after min_steps (3 steps, 30 ms); now the timed steps must span
    # min(MIN_TIMED_S, half the budget) first: with a 1 s slice, 0.5 s less the untimed
    # first step's share (a busy machine's first step is slow).
    import time

    from torchrig.bench.benchmarks import trainloop

    monkeypatch.setattr(trainloop, "settled", lambda values, *a, **k: True)
    model, x, y = _tiny()
    slow = Variant(amp=False, prepare=lambda: time.sleep(0.01))
    result = trainloop.run_alone(_ctx(), model, x, y, slow, slice_s=1.0, batch=4)
    assert trainloop.min_window_s(0.5) == 0.25 and trainloop.min_window_s(10.0) == 1.0
    assert result.repeats > 3  # the old loop's min_steps exactly
    assert result.repeats * result.step_s >= 0.15  # about the window (median x steps)
