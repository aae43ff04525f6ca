"""An inference pass's working set on a device without allocator statistics (the CPU): the peak
of the tensors the pass creates. Expected values by hand: a Linear's output is batch x out
features x 4 bytes in fp32, and what is alive at each moment follows from nn.Sequential keeping
only the last output."""

from __future__ import annotations

import threading

import pytest

torch = pytest.importorskip("torch")

from torchrig.planning.workload import workload_from_options  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402
from torchrig.verify.live_memory import peak_live_bytes  # noqa: E402
from torchrig.verify.probe import Size, run_probe  # noqa: E402
from torchrig.verify.sources import parse_factory  # noqa: E402

BATCH, WIDE = 8, 4000
WIDE_OUTPUT = BATCH * WIDE * 4  # 128,000 B: one (8 x 4000) fp32 tensor


def mlp(inplace: bool) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(1000, WIDE), torch.nn.ReLU(inplace=inplace),
                               torch.nn.Linear(WIDE, 10)).eval()


@pytest.mark.parametrize("inplace,expected", [
    # ReLU makes a second (8 x 4000) tensor while the Linear's output is still referenced.
    (False, 2 * WIDE_OUTPUT),
    # In place it writes into the Linear's output: then the last Linear's 8 x 10 output joins it.
    (True, WIDE_OUTPUT + BATCH * 10 * 4),
])
def test_the_peak_counts_what_is_alive_together(inplace, expected):
    model, x = mlp(inplace), torch.randn(BATCH, 1000)
    with torch.no_grad():
        peak = peak_live_bytes(lambda: model(x), [*model.parameters(), x])
    assert peak == expected


def test_tensors_from_before_are_not_counted():
    x = torch.randn(BATCH, WIDE)
    with torch.no_grad():
        # relu_ writes into x and view() aliases it: nothing new is alive.
        assert peak_live_bytes(lambda: x.relu_().view(-1), [x]) == 0
        assert peak_live_bytes(lambda: x * 2, [x]) == WIDE_OUTPUT


def test_verify_reports_the_working_set_of_a_cpu_inference(tmp_path):
    factory = tmp_path / "mlp.py"
    factory.write_text(
        "import torch\n"
        "def make_model():\n"
        f"    return torch.nn.Sequential(torch.nn.Linear(1000, {WIDE}), torch.nn.ReLU(),\n"
        f"                               torch.nn.Linear({WIDE}, 10))\n"
        "def batch(n):\n"
        "    return torch.randn(n, 1000), None\n")
    w = workload_from_options(task="image_classification", mode="infer", model="custom",
                              params=1000 * WIDE + WIDE + WIDE * 10 + 10, batch=BATCH,
                              precision="fp32", optimizer="sgd")
    source = parse_factory(f"{factory}:make_model")
    _mp, spec = v.library_plan(source, w, "cpu")
    measured = run_probe(spec, Size(None, BATCH, None), "cpu", 3, threading.Event())
    assert measured.activations == 2 * WIDE_OUTPUT
    result = v.verify(w, "cpu", source=source, quick=True)
    assert result.row("activations").measured == pytest.approx(2 * WIDE_OUTPUT, rel=1e-9)
    assert any("inference working set" in n.en for n in result.notes)
    # Fed back (verify --apply), the plan of the same model at twice the batch takes it per
    # sample: 256,000 B / 8 x 16.
    from dataclasses import replace

    from torchrig.planning.requirements import plan
    from torchrig.verify.written_workload import measured_workload

    applied = measured_workload(result)
    assert applied.activation_bytes_per_sample == 2 * WIDE_OUTPUT / BATCH
    again = plan(replace(applied, batch_size=2 * BATCH)).vram_per_gpu["activations"]
    assert again.value == 2 * WIDE_OUTPUT * 2
    assert "measured on" in again.note.en


@pytest.mark.parametrize("library", [False, True], ids=["reference", "transformers"])
def test_an_llm_prefill_keeps_only_the_next_tokens_logits(library):
    # Serving's prefill computes the last position's logits (vLLM, TensorRT-LLM; the plan
    # counts b x vocab x 4 B of them). A plain forward makes b x s x vocab: with a 32,000-word
    # vocabulary that one tensor (2 x 256 x 32,000 x 4 B = 65.5 MB) would be the whole working
    # set, 15x what the layers use.
    batch, seq, vocab = 2, 256, 32_000
    w = workload_from_options(task="llm_inference", mode="infer", model="custom", style="llama",
                              layers=2, hidden=128, heads=4, kv_heads=4, ffn=344, vocab=vocab,
                              seq_len=seq, batch=batch, precision="fp32", output_tokens=4)
    if library:
        pytest.importorskip("transformers")
        from torchrig.verify.sources import transformers_source

        source = transformers_source({
            "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 128,
            "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 2,
            "intermediate_size": 344, "vocab_size": vocab, "max_position_embeddings": seq},
            "config")
        _mp, spec = v.library_plan(source, w, "cpu")
    else:
        spec = v.probe_spec(w, "cpu")
    measured = run_probe(spec, Size(2, batch, seq), "cpu", 3, threading.Event())
    next_token_logits = batch * vocab * 4
    assert next_token_logits <= measured.activations < batch * seq * vocab * 4 / 4
