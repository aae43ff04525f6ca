"""The largest layer of a language model given by its parameter count only.

DeepSpeed's ZeRO-3 estimator counts 4 B x the largest layer (the module owning the most
parameters directly, ``model_to_params`` in deepspeed/runtime/zero/stage3.py); a custom model
described by ``params`` alone has no layers, so the planner estimates that module from the
shape published models of that size have (docs/estimation.md sec. 1.2, "ZeRO-3's gather
buffer"):

- hidden size: GPT-3 paper (Brown et al. 2020, arXiv 2005.14165), Table 2.1, d_model per
  parameter count, interpolated log-log between neighbouring rows;
- feed-forward width: 4 x d_model, as that table's caption states for all its models;
- vocabulary: 32,000, the planner's default for a custom transformer given no vocab
  (``workload._custom_arch``; Llama / Llama 2's SentencePiece vocabulary).

The largest layer is then the embedding (vocab x hidden) or the MLP's up projection
(hidden x ffn), whichever is larger. Any of hidden, vocab and ffn the workload gives replaces
the assumed one. Outside the table's range (125M to 175B) with no hidden given there is no
estimate, and the gather buffer keeps its upper bound.
"""

from __future__ import annotations

import math

from torchrig.records import record

GPT3_D_MODEL: tuple[tuple[float, int], ...] = (
    (125e6, 768), (350e6, 1024), (760e6, 1536), (1.3e9, 2048), (2.7e9, 2560),
    (6.7e9, 4096), (13e9, 5140), (175e9, 12288),
)
"""GPT-3 paper Table 2.1: (n_params, d_model) of its eight models, as printed (13B: 5140)."""

FFN_PER_HIDDEN = 4
"""d_ff = 4 x d_model (GPT-3 paper, Table 2.1 caption)."""

ASSUMED_VOCAB = 32_000
"""The vocabulary the planner assumes for a custom transformer given none
(``workload._custom_arch``): Llama and Llama 2's 32,000-token SentencePiece vocabulary."""


@record
class LayerEstimate:
    """The assumed shape and which of its parts the workload gave."""

    params: int
    hidden: int
    vocab: int
    ffn: int
    given: tuple[str, ...]

    @property
    def embedding(self) -> int:
        return self.vocab * self.hidden

    @property
    def mlp(self) -> int:
        return self.hidden * self.ffn

    @property
    def largest(self) -> int:
        return max(self.embedding, self.mlp)


def table_hidden(params: float) -> int | None:
    """d_model for ``params`` from :data:`GPT3_D_MODEL`: log-log interpolation between the two
    rows around it (a row's own count gives its d_model); None outside the table."""
    for (p0, h0), (p1, h1) in zip(GPT3_D_MODEL, GPT3_D_MODEL[1:], strict=False):
        if p0 <= params <= p1:
            exponent = math.log(h1 / h0) / math.log(p1 / p0)
            return round(h0 * (params / p0) ** exponent)
    return None


def estimate_largest_layer(params: float, hidden: int | None = None, vocab: int | None = None,
                           ffn: int | None = None) -> LayerEstimate | None:
    """The assumed largest layer of a ``params``-parameter language model; the given hidden,
    vocab and ffn replace the assumed ones. None when no hidden is given and ``params`` is
    outside :data:`GPT3_D_MODEL`."""
    h = hidden or table_hidden(params)
    if not h:
        return None
    given = tuple(name for name, v in (("hidden", hidden), ("vocab", vocab), ("ffn", ffn)) if v)
    return LayerEstimate(params=int(params), hidden=h, vocab=vocab or ASSUMED_VOCAB,
                         ffn=ffn or FFN_PER_HIDDEN * h, given=given)
