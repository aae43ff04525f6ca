"""checkpointing gives its figures within its budget on a slow or loaded machine (issue 27).

At load 2.3 its one run_ab at the preset's batch (two untimed steps, a pair, three steps of
each side alone) outlasted the child's hard limit, so the quick suite had no checkpointing
figure at all. Here the transformer is a fake whose step sleeps in proportion to its batch,
so "slow" is chosen, not measured: the benchmark must cut its batch from the first steps'
time, give the time ratio within the hard limit, and say the figure is from a smaller batch
and fewer steps.
"""

from __future__ import annotations

import threading
import time

import pytest

torch = pytest.importorskip("torch")

from torchrig.bench.base import BenchContext, OutOfTime  # noqa: E402
from torchrig.bench.benchmarks import checkpointing  # noqa: E402
from torchrig.bench.benchmarks.checkpointing import MIN_PAIRS, sized_batch  # noqa: E402
from torchrig.bench.report import Measurement  # noqa: E402
from torchrig.bench.settings import BenchSettings  # noqa: E402

ADDED = 1 / 3
"""The fake's checkpointed forward sleeps a third longer: one extra forward in three
(Chen et al.'s ~33 %), so the expected time ratio is 1 + 1/3 by construction."""


class _SleepyTransformer(torch.nn.Module):
    def __init__(self, vocab: int, per_sample_s: float) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, 4)
        self.head = torch.nn.Linear(4, vocab)
        self.per_sample_s = per_sample_s
        self.checkpointing = False

    def forward(self, x):
        time.sleep(self.per_sample_s * x.shape[0] * (1 + ADDED if self.checkpointing else 1))
        return self.head(self.emb(x))


def _run(monkeypatch, per_sample_s: float, budget_s: float):
    # the quick CPU shape's batch (8), with tokens few enough that the sleeps are the step
    shape = checkpointing.nets.TransformerShape(d_model=4, heads=1, layers=4, seq=4, batch=8,
                                                vocab=16)
    monkeypatch.setattr(checkpointing.nets, "transformer_shape", lambda *a, **k: shape)
    monkeypatch.setattr(checkpointing.nets, "build_transformer",
                        lambda shape: _SleepyTransformer(shape.vocab, per_sample_s))
    monkeypatch.setattr(checkpointing, "free_threads", lambda usable: (1, None))
    checkpointing.BENCHMARK.prepare()  # as the runner does before the clock (torch._dynamo)
    ctx = BenchContext(settings=BenchSettings(preset="quick", device="cpu"), device="cpu",
                       cancel=threading.Event(), budget_s=budget_s,
                       hard_limit_s=budget_s + 1.0)  # the runner's grace: max(1, budget / 4)
    got = {e.id: e for e in checkpointing.run(ctx) if isinstance(e, Measurement)}
    return ctx, got


def test_a_slow_machine_gets_a_smaller_batch_and_a_figure_within_the_hard_limit(monkeypatch):
    # The quick CPU shape's batch is 8: a pair there sleeps 8 x 0.03 x (1 + 4/3) = 0.56 s,
    # the first steps as much again, and the old sequence (first steps, a pair, 3 + 3 steps
    # alone: 2.8 s) runs past the 2 s hard limit with nothing measured (last test).
    ctx, got = _run(monkeypatch, per_sample_s=0.03, budget_s=1.0)
    assert ctx.elapsed() < 2.0
    added = got["time_added"]
    assert added.value == pytest.approx(ADDED, abs=0.2)  # sleeps stretch on a busy machine
    step = got["step_s_plain"]
    assert step.details["batch"] < 8
    notes = " ".join(n.en for n in step.notes)
    assert f"batch {step.details['batch']} instead of 8" in notes
    assert "interleaved pairs' steps" in notes  # no time to time each side alone
    assert ctx.budget_stopped or added.details["pairs"] >= 5  # fewer steps said so


def test_a_fast_machine_keeps_the_presets_batch_and_times_each_side_alone(monkeypatch):
    ctx, got = _run(monkeypatch, per_sample_s=0.002, budget_s=2.0)
    step = got["step_s_plain"]
    assert step.details["batch"] == 8
    notes = " ".join(n.en for n in step.notes)
    assert "instead of" not in notes and "interleaved pairs' steps" not in notes
    assert step.details["repeats"] >= 3  # steps timed alone, three at least
    assert got["time_added"].value == pytest.approx(ADDED, abs=0.15)


def test_the_batch_is_cut_in_proportion_to_what_the_budget_holds():
    # a pair took 0.9 s; MIN_PAIRS (3) pairs need 2.7 s at this batch
    assert MIN_PAIRS == 3
    assert sized_batch(8, 0.9, 2.7) == 8  # fits exactly
    # a smaller batch pays its first steps again (about a pair): 4 pairs' room, 3.6 s at 8;
    # 1.8 s holds half of that: 8 x 1.8 / 3.6 = 4
    assert sized_batch(8, 0.9, 1.8) == 4
    assert sized_batch(8, 0.9, 0.9) == 2  # a quarter: 8 x 0.9 / 3.6 = 2
    assert sized_batch(8, 0.9, 0.01) == 1  # never below one sample
    assert sized_batch(8, 0.0, 0.01) == 8  # no measurement, no cut
    assert sized_batch(8, 0.9, -0.5) == 1  # the first pair already spent the budget


@pytest.mark.slow  # it runs to the hard limit by design
def test_the_old_single_run_ab_ran_out_of_time_on_the_same_fake(monkeypatch):
    """The failure this fixes, kept as a check that the fake is slow enough to show it."""
    from torchrig.bench.benchmarks.trainloop import Variant, run_ab

    checkpointing.BENCHMARK.prepare()
    model = _SleepyTransformer(2048, 0.03)
    x = torch.randint(0, 2048, (8, 16))
    ctx = BenchContext(settings=BenchSettings(preset="quick", device="cpu"), device="cpu",
                       cancel=threading.Event(), budget_s=1.0, hard_limit_s=2.0)

    def switch(on: bool) -> Variant:
        return Variant(amp=False, prepare=lambda: setattr(model, "checkpointing", on))

    with pytest.raises(OutOfTime):
        run_ab(ctx, model, x, x, switch(False), switch(True), slice_s=0.9, batch=8)
