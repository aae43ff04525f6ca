"""LoRA through peft on a transformers model: the adapters are the only trained tensors, so
gradients and optimizer states are the adapters' alone - counted here from the shapes."""

from __future__ import annotations

import threading

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("peft")

from torchrig.planning.workload import workload_from_options  # noqa: E402
from torchrig.verify import measure as v  # noqa: E402 - after the torch check
from torchrig.verify.probe import Size, run_probe  # noqa: E402
from torchrig.verify.sources import transformers_source  # noqa: E402

pytestmark = pytest.mark.slow

H, FFN, LAYERS, VOCAB, KV = 64, 160, 2, 128, 2  # 4 heads of 16, 2 K/V heads: K, V are 32 wide
CONFIG = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=H,
              num_attention_heads=4, num_key_value_heads=KV, num_hidden_layers=LAYERS,
              intermediate_size=FFN, vocab_size=VOCAB, max_position_embeddings=64)


def adapter_params(rank: int) -> int:
    """LoRA on every linear layer of a block: A (in x r) and B (r x out) each, by hand:
    q (64->64), k (64->32), v (64->32), o (64->64), gate/up (64->160), down (160->64)."""
    shapes = [(H, H), (H, 32), (H, 32), (H, H), (H, FFN), (H, FFN), (FFN, H)]
    return LAYERS * sum(rank * (i + o) for i, o in shapes)


def test_lora_trains_only_the_adapters():
    rank = 4
    w = workload_from_options(task="llm_finetune_lora", mode="finetune", model="custom",
                              style="llama", layers=LAYERS, hidden=H, heads=4, kv_heads=KV,
                              ffn=FFN, vocab=VOCAB, seq_len=16, batch=2, lora_rank=rank,
                              precision="fp32", optimizer="adamw", checkpointing=False)
    _mp, spec = v.library_plan(transformers_source(CONFIG, "cfg"), w, "cpu")
    measured = run_probe(spec, Size(LAYERS, 2, 16), "cpu", 3, threading.Event())
    n = adapter_params(rank)
    assert measured.gradients == 4 * n  # fp32 gradients of the adapters only
    # AdamW: two fp32 moments per adapter parameter, plus one step counter per tensor
    # (fp32 scalars: 7 linear layers x 2 matrices x 2 layers)
    assert measured.optimizer_states == 8 * n + 4 * (7 * 2 * LAYERS)


def base_params() -> int:
    """The tiny Llama by hand: embeddings and LM head (128 x 64 each, untied), per layer q, k,
    v, o, gate, up, down and two RMSNorm weights, and the final norm."""
    per_layer = H * H + 2 * H * 32 + H * H + 3 * H * FFN + 2 * H
    return 2 * VOCAB * H + LAYERS * per_layer + H


@pytest.mark.parametrize("precision,base_bytes", [("amp_bf16", 2), ("amp_fp16", 2),
                                                  ("fp32", 4)])
def test_the_frozen_base_is_held_as_the_plan_counts_it(precision, base_bytes):
    # The plan counts a LoRA run's frozen base at 2 B per parameter under AMP (docs/
    # estimation.md); verify built it in fp32 and measured the shipped Llama-2-7B LoRA
    # workload's weights at +99 %. Adapters stay fp32 (PEFT upcasts them).
    rank = 4
    w = workload_from_options(task="llm_finetune_lora", mode="finetune", model="custom",
                              style="llama", layers=LAYERS, hidden=H, heads=4, kv_heads=KV,
                              ffn=FFN, vocab=VOCAB, seq_len=16, batch=2, lora_rank=rank,
                              precision=precision, optimizer="adamw", checkpointing=False)
    _mp, spec = v.library_plan(transformers_source(CONFIG, "cfg"), w, "cpu")
    measured = run_probe(spec, Size(LAYERS, 2, 16), "cpu", 3, threading.Event())
    # Llama's rotary buffers inv_freq and original_inv_freq: head_dim / 2 fp32 values each
    rotary = 2 * (H // 4 // 2) * 4
    assert measured.weights == base_bytes * base_params() + 4 * adapter_params(rank) + rotary
    assert measured.gradients == 4 * adapter_params(rank)
    assert (spec.frozen_note() is not None) == (precision != "fp32")
